import DeckCommandLine
import Foundation
import Testing

@testable import MenuDeckCLI

/// `compare --tune`: every arm tuned on the training side's validation, then compared with its
/// winning options, which the report names.
@Suite struct CLICompareTuneTests {
  static let log = CLITest.repoRoot + "/Data/swipes.jsonl"
  static let base = [
    "compare", "--split", "2026-11-24", "--resamples", "20", "--permutations", "200",
    "--format", "json",
  ]
  static let tuning = [
    "--tune", "--validation-days", "3", "--grid", "popularity.prior_passes=1,10,100", "--grid",
    "itemknn.neighbours=5,10",
  ]

  static func report(_ r: CLIRun) throws -> [String: Any] {
    #expect(r.code == .success, "\(r.stderr)")
    return try #require(try r.json() as? [String: Any])
  }

  /// The tuned arms are the arms spelt with their winners: the same estimates, named as given.
  @Test func tunedArmsAreTheirWinners() throws {
    let tuned = try Self.report(
      CLIRun(
        Self.base + Self.tuning + [
          "-s", "popularity", "-s", "itemknn", "-s", "random", "--baseline", "popularity",
          Self.log,
        ]))
    let parameters = try #require(tuned["parameters"] as? [String: Any])
    let won = try #require(parameters["tuned"] as? [String: String])
    #expect(won["random"] == "nothing to tune")
    let popularity = try #require(won["popularity"])
    let itemknn = try #require(won["itemknn"])
    #expect(popularity.hasPrefix("prior_passes="))
    #expect(itemknn.hasPrefix("neighbours="))
    #expect(
      parameters["tuned_settings"] as? [String: Int] == [
        "popularity": 3, "itemknn": 2, "random": 1,
      ])
    #expect(
      (parameters["tuning"] as? String)?.hasPrefix(
        "ndcg_at_10 on the validation, the last 3 days before 2026-11-24") == true)
    // The run header records the winners' options.
    let run = try #require(tuned["run"] as? [String: Any])
    let options = try #require(run["options"] as? [String: [String: Any]])
    #expect(
      options["popularity"]?["prior_passes"] as? Double
        == Double(popularity.dropFirst("prior_passes=".count)))

    let spelt = try Self.report(
      CLIRun(
        Self.base + [
          "-s", "popularity:\(popularity)", "-s", "itemknn:\(itemknn)", "-s", "random",
          "--baseline", "popularity:\(popularity)", Self.log,
        ]))
    func estimates(_ json: [String: Any]) throws -> [NSDictionary] {
      try #require(json["arms"] as? [[String: Any]]).map {
        try #require($0["estimates"] as? NSDictionary)
      }
    }
    #expect(try estimates(tuned) == estimates(spelt))
  }

  /// The bytes are the same for every --jobs (the run header's arguments aside).
  @Test func theSameForEveryJobs() {
    let arguments = Self.base + Self.tuning + ["-s", "popularity", "-s", "itemknn", Self.log]
    let one = CLIRun(arguments + ["--jobs", "1"])
    let four = CLIRun(arguments + ["--jobs", "4"])
    #expect(one.code == .success, "\(one.stderr)")
    #expect(CLITest.withoutArguments(one.stdout) == CLITest.withoutArguments(four.stdout))
  }

  /// Without a --grid, each strategy's own grid; a variant keeps what its spelling fixes.
  @Test func ownGridsAndFixedOptions() throws {
    let r = CLIRun(
      Self.base + [
        "--tune", "--validation-days", "3", "-s", "popularity", "-s", "itemknn:recent_days=2",
        Self.log,
      ])
    let parameters = try #require(try Self.report(r)["parameters"] as? [String: Any])
    let counts = try #require(parameters["tuned_settings"] as? [String: Int])
    #expect(counts == ["popularity": 4, "itemknn:recent_days=2": 12])
    #expect(r.stderr.contains("menudeck: note: --tune: itemknn:recent_days=2: neighbours="))
  }

  @Test(arguments: [
    (
      ["--grid", "popularity.prior_passes=1,2", "-s", "popularity", "-s", "random"],
      "'--grid' is for --tune"
    ),
    (
      ["--tune", "--grid", "itemknm.neighbours=5", "-s", "popularity", "-s", "itemknn"],
      "'itemknm' is none of the compared strategies"
    ),
    (
      ["--tune", "--grid", "neighbours=5", "-s", "popularity", "-s", "itemknn"],
      "name the one this option is for, STRATEGY.KEY=VALUES"
    ),
    (
      ["--tune", "-s", "popularity", "-s", "veg-first"],
      "'veg-first' is a plugin, whose options menudeck cannot tune by itself"
    ),
    (
      ["--tune", "--metric", "ndcg@20", "-s", "popularity", "-s", "random"],
      "beyond the deck of 10 cards"
    ),
  ])
  func mistakesAreUsageErrors(_ more: [String], _ message: String) {
    let r = CLIRun(
      Self.base + ["--validation-days", "3"].filter { _ in more.contains("--tune") } + more + [
        Self.log
      ])
    #expect(r.code == .usage, "\(r.stderr)")
    #expect(r.stderr.contains(message), "\(r.stderr)")
  }

  @Test func tuneNeedsLogs() {
    let r = CLIRun([
      "compare", "-s", "popularity", "-s", "random", "--tune", "--users", "5", "--days", "1",
    ])
    #expect(r.code == .usage)
    #expect(r.stderr.hasPrefix("menudeck: error: '--tune' applies to logs"))
  }
}

/// The config's "include": named configurations from other files.
@Suite struct CLIConfigIncludeTests {
  static func world(_ main: String, _ files: [String: String]) throws -> TempDir {
    let dir = try TempDir()
    try FileManager.default.createDirectory(
      atPath: dir.file("sub"), withIntermediateDirectories: true)
    try dir.write(
      "config.json",
      """
      {"catalog": "\(CLITest.repoRoot)/Data/catalog.json", "time_zone": "Asia/Tokyo",
       "history": ["\(CLITest.repoRoot)/Data/swipes.jsonl"], \(main)}
      """)
    for (name, text) in files { try dir.write(name, text) }
    return dir
  }

  static func deck(_ dir: TempDir, _ strategy: String) -> CLIRun {
    dir.run([
      "deck", "--config", "config.json", "--date", "2026-11-30", "-s", strategy, "--format",
      "json",
    ])
  }

  /// An included file's configurations are the config's, paths relative to that file, and the
  /// run header lists the file.
  @Test func includedConfigurationsJoinTheConfigs() throws {
    let dir = try Self.world(
      #""include": "sub/a.json", "strategies": {"mine": {"use": "popularity"}}"#,
      [
        "sub/a.json":
          #"{"include": ["b.json"], "strategies": {"pass9": {"use": "popularity", "options": {"prior_passes": 9}}}}"#,
        "sub/b.json": #"{"strategies": {"ts": {"use": "thompson"}}}"#,
      ])
    let r = Self.deck(dir, "pass9")
    #expect(r.code == .success, "\(r.stderr)")
    let spelt = Self.deck(dir, "popularity:prior_passes=9")
    #expect(!r.jsonDeckLines.isEmpty)
    #expect(
      r.jsonDeckLines
        == spelt.jsonDeckLines.map {
          $0.replacingOccurrences(of: "popularity:prior_passes=9", with: "pass9")
        })
    #expect(r.stdout.contains(#"{"role":"include","path":"sub/a.json","sha256":""#))
    #expect(r.stdout.contains(#"{"role":"include","path":"sub/b.json","sha256":""#))
    #expect(Self.deck(dir, "ts").code == .success)
    let listing = dir.run(["strategies", "--config", "config.json"])
    #expect(listing.stdout.contains("  pass9: popularity prior_passes=9\n"))
  }

  @Test(arguments: [
    (
      #""include": ["sub/a.json"], "strategies": {"mine": {"use": "popularity"}}"#,
      ["sub/a.json": #"{"strategies": {"mine": {"use": "ucb"}}}"#],
      "sub/a.json:1:17: strategy 'mine' is defined in both config.json and sub/a.json; rename one of them or remove it"
    ),
    (
      #""include": ["sub/a.json"]"#, ["sub/a.json": #"{"include": "../config.json"}"#],
      "sub/a.json:1:13: include: 'config.json' includes itself (config.json -> sub/a.json -> config.json); remove one of these includes"
    ),
    (
      #""include": ["sub/a.json", "sub/b.json"]"#,
      ["sub/a.json": #"{"include": "b.json"}"#, "sub/b.json": "{}"],
      "include: 'sub/b.json' is included twice (also by sub/a.json); include each file once"
    ),
    (
      #""include": ["sub/a.json"]"#, ["sub/a.json": #"{"seed": 3}"#],
      "sub/a.json:1:2: unknown field 'seed' in a file the config includes (it holds named configurations only); known fields: strategies, include"
    ),
    (
      #""include": 3"#, [:],
      "include: 'include' is a number; give a file path or a list of them"
    ),
  ])
  func mistakesAreDataErrors(_ main: String, _ files: [String: String], _ message: String) throws {
    let dir = try Self.world(main, files)
    let r = Self.deck(dir, "popularity")
    #expect(r.code == .dataError, "\(r.stderr)")
    #expect(r.stderr.hasPrefix("menudeck: error: "), "\(r.stderr)")
    #expect(r.stderr.contains(message), "\(r.stderr)")
  }

  @Test func aMissingIncludedFileIsMissingInput() throws {
    let dir = try Self.world(#""include": ["sub/none.json"]"#, [:])
    let r = Self.deck(dir, "popularity")
    #expect(r.code == .noInput)
    #expect(
      r.stderr.hasPrefix(
        "menudeck: error: sub/none.json: no such file (the file config.json includes)"))
  }

  /// A file the config includes is an input: no output of another command replaces it.
  @Test func anIncludedFileIsAnInput() throws {
    let dir = try Self.world(
      #""include": ["sub/a.json"]"#, ["sub/a.json": #"{"strategies": {}}"#])
    let r = dir.run([
      "deck", "--config", "config.json", "--date", "2026-11-30", "--out", "sub/a.json",
    ])
    #expect(r.code == .usage)
    #expect(r.stderr.contains("is an input of this run (the config's \"include\" 'sub/a.json')"))
  }
}
