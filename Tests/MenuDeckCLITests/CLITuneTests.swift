import DeckCommandLine
import DeckCore
import Foundation
import Testing

@testable import MenuDeckCLI

/// `menudeck tune` end to end on the bundled log: the validation is carved from the training
/// side only, the grid and the winner are what the evaluation says, and the outputs are the
/// same for every `--jobs`.
@Suite struct CLITuneTests {
  static let log = CLITest.repoRoot + "/Data/swipes.jsonl"
  static let byDate = ["tune", "--split", "2026-11-24", "--validation-days", "3"]

  static func lines(of path: String) throws -> [String] {
    String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
      .split(separator: "\n").map(String.init)
  }

  /// The value of `metric` per setting in `tune --format csv`, and the setting selected.
  static func grid(_ csv: String, metric: String) -> (values: [String: Double], selected: String?) {
    var values: [String: Double] = [:]
    var selected: String?
    for line in csv.split(separator: "\n").dropFirst() {
      let fields = CSVLine.fields(String(line))
      guard fields.count == 6, fields[3] == metric else { continue }
      values[fields[2]] = Double(fields[4])
      if fields[5] == "true" { selected = fields[2] }
    }
    return (values, selected)
  }

  /// Each setting's value on a date validation is the value `compare` gives that setting on
  /// the events before the split alone, split at the validation's first day: the validation is
  /// exactly the last days of the training side.
  @Test func aDateValidationIsCompareOnTheTrainingSide() throws {
    let dir = try TempDir()
    let before = try Self.lines(of: Self.log).filter { line in
      guard let range = line.range(of: "\"deck\":\"") else { return false }
      return line[range.upperBound...].prefix(10) < "2026-11-24"
    }
    let training = try dir.write("training.jsonl", before.joined(separator: "\n") + "\n")
    let tune = CLIRun(
      Self.byDate + [
        "-s", "itemknn", "--grid", "neighbours=5,10", "--grid", "recent_days=2,30", "--format",
        "csv", Self.log,
      ])
    #expect(tune.code == .success, "\(tune.stderr)")
    let tuned = Self.grid(tune.stdout, metric: "ndcg_at_10")
    #expect(tuned.values.count == 4)
    let compare = CLIRun([
      "compare", "-s", "itemknn:neighbours=5,recent_days=2", "-s",
      "itemknn:neighbours=10,recent_days=30", "--split", "2026-11-21", "--resamples", "10",
      "--format", "csv", training,
    ])
    #expect(compare.code == .success, "\(compare.stderr)")
    var compared = 0
    for line in compare.stdout.split(separator: "\n") {
      let f = CSVLine.fields(String(line))
      guard f.count > 5, f[0] == "estimate", f[3] == "ndcg_at_10" else { continue }
      #expect(Double(f[5]) == tuned.values[f[1]], "\(f[1])")
      compared += 1
    }
    #expect(compared == 2)
    // The winner is the best value, and the note names it.
    let best = tuned.values.max { $0.value < $1.value }!.value
    #expect(tuned.values[tuned.selected ?? ""] == best)
    #expect(tune.stderr.contains("the best of 4 settings by ndcg_at_10 is \(tuned.selected!)"))
  }

  /// What happens on or after the split, or in the test's hold-out pairs, never changes a
  /// tuning: right and left swipes swapped there give the same bytes.
  @Test(arguments: ["date", "holdout"])
  func theTestSideIsNeverRead(_ kind: String) throws {
    let dir = try TempDir()
    let seed: UInt64 = 20_261_130  // the bundled config's
    let threshold = UInt64((0.2 * 0x1p64).rounded(.down))
    var changed = 0
    let flipped = try Self.lines(of: Self.log).map { line -> String in
      let isTest: Bool
      if kind == "date" {
        let range = try #require(line.range(of: "\"deck\":\""))
        isTest = line[range.upperBound...].prefix(10) >= "2026-11-24"
      } else {
        func field(_ name: String) throws -> String {
          let start = try #require(line.range(of: "\"\(name)\":\""))
          let rest = line[start.upperBound...]
          return String(rest[..<rest.firstIndex(of: "\"")!])
        }
        var h = StableHash()
        h.combine(seed)
        h.combine(bytes: Array(try field("user").utf8))
        h.combine(UInt64(0xff))
        h.combine(bytes: Array(try field("item").utf8))
        isTest = h.finalized < threshold
      }
      guard isTest else { return line }
      changed += 1
      if line.contains("\"swipe\":\"right\"") {
        return line.replacingOccurrences(of: "\"swipe\":\"right\"", with: "\"swipe\":\"left\"")
      }
      return line.replacingOccurrences(of: "\"swipe\":\"left\"", with: "\"swipe\":\"right\"")
    }
    #expect(changed > 300)
    let other = try dir.write("flipped.jsonl", flipped.joined(separator: "\n") + "\n")
    let split = kind == "date" ? Self.byDate : ["tune", "--holdout", "0.2"]
    let arguments = split + ["-s", "popularity", "--format", "jsonl"]
    let original = CLIRun(arguments + [Self.log])
    let mutated = CLIRun(arguments + [other])
    #expect(original.code == .success, "\(original.stderr)")
    #expect(!original.stdout.isEmpty)
    #expect(original.stdout == mutated.stdout)
    // The comparison itself does see them.
    let compare = kind == "date" ? ["--split", "2026-11-24"] : ["--holdout", "0.2"]
    let seen = [
      "compare", "-s", "popularity", "-s", "random", "--resamples", "10", "--format", "csv",
    ]
    #expect(
      CLIRun(seen + compare + [Self.log]).stdout != CLIRun(seen + compare + [other]).stdout)
  }

  /// The same bytes for every --jobs, and the same seeded draws for the same seed.
  @Test func theOutputIsTheSameForEveryJobs() {
    let arguments =
      Self.byDate + [
        "-s", "popularity", "--grid", "prior_passes=1..1000:log", "--random", "6", "--format",
        "jsonl", Self.log,
      ]
    let one = CLIRun(arguments + ["--jobs", "1"])
    let three = CLIRun(arguments + ["--jobs", "3"])
    #expect(one.code == .success, "\(one.stderr)")
    #expect(one.stdout == three.stdout)
    #expect(one.stdout.split(separator: "\n").count == 6 * 10)
    let otherSeed = CLIRun(arguments + ["--seed", "5"])
    #expect(otherSeed.code == .success)
    #expect(otherSeed.stdout != one.stdout)
  }

  /// Without --grid, a strategy's own grid: each tuned option's values, with the default and
  /// the configured value among them. The bundled config's cautious-popularity fixes its prior
  /// (prior_likes 1, prior_passes 9), so `prior` is not tuned (fitted would contradict it); its
  /// `per` is. The plain built-in tunes both.
  @Test func theDefaultGridHoldsTheStrategyAsConfigured() throws {
    func settings(_ r: CLIRun) -> [Substring] {
      // The title and the header (the blank line between them is no element of the split).
      r.stdout.split(separator: "\n").dropFirst(2).map {
        $0.split(separator: " ", omittingEmptySubsequences: true)[1]
      }
    }
    let r = CLIRun(Self.byDate + ["-s", "cautious-popularity", Self.log])
    #expect(r.code == .success, "\(r.stderr)")
    #expect(
      settings(r) == ["cautious-popularity:per=showing", "cautious-popularity:per=diner"])
    let builtin = CLIRun(Self.byDate + ["-s", "thompson", Self.log])
    #expect(builtin.code == .success, "\(builtin.stderr)")
    #expect(settings(builtin) == ["thompson:prior=fitted", "thompson:prior=fixed"])
    // A configured value outside the option's tuning values is tried too, in its place.
    let dir = try TempDir()
    let config = try dir.write(
      "config.json",
      """
      {"catalog": "\(CLITest.repoRoot)/Data/catalog.json", "time_zone": "Asia/Tokyo",
       "seed": 20261130, "history": ["\(Self.log)"],
       "strategies": {"eg": {"use": "epsilon-greedy", "options": {"epsilon": 0.15, "prior_passes": 2}}}}
      """)
    let configured = dir.run(Self.byDate + ["--config", config, "-s", "eg", Self.log])
    #expect(configured.code == .success, "\(configured.stderr)")
    #expect(
      settings(configured) == [
        "eg:epsilon=0", "eg:epsilon=0.05", "eg:epsilon=0.1", "eg:epsilon=0.15", "eg:epsilon=0.2",
      ])
    // The summary gives the value as configured when another setting won.
    for (run, asConfigured) in [
      (r, "cautious-popularity:per=showing"), (builtin, "thompson:prior=fitted"),
      (configured, "eg:epsilon=0.15"),
    ] {
      let won = run.stderr.contains(" is \(asConfigured) (")
      #expect(run.stderr.contains("; as configured, ") == !won, "\(run.stderr)")
    }
    // A spelling's options and --option are not tuned: itemknn's grid is then neighbours only.
    let fixed = CLIRun(
      Self.byDate + ["-s", "itemknn:recent_days=7", "-o", "weight_popularity=0", Self.log])
    #expect(fixed.code == .success, "\(fixed.stderr)")
    #expect(fixed.stdout.contains("itemknn:recent_days=7,neighbours=1000,left_swipes=ignore"))
    #expect(fixed.stdout.split(separator: "\n").count == 2 + 4 * 3)
  }

  /// `--out` writes the winner as a named configuration that a config includes; tuning again
  /// into the same file, which the config includes, renews it and keeps the others.
  @Test func theWinnerIsANamedConfigurationTheConfigIncludes() throws {
    let dir = try TempDir()
    let tuned = dir.file("tuned.json")
    try dir.write(
      "tuned.json",
      #"{"strategies": {"keep-me": {"use": "ucb", "options": {"exploration": 0.5}}}}"# + "\n")
    let config = try dir.write(
      "config.json",
      """
      {"catalog": "\(CLITest.repoRoot)/Data/catalog.json", "time_zone": "Asia/Tokyo",
       "seed": 20261130, "history": ["\(Self.log)"], "include": ["tuned.json"]}
      """)
    let first = dir.run(
      Self.byDate + [
        "--config", config, "-s", "itemknn", "--grid", "neighbours=5,10", "--out", tuned,
        Self.log,
      ])
    #expect(first.code == .success, "\(first.stderr)")
    #expect(first.stderr.contains("'itemknn-tuned' written to \(tuned) (which \(config) includes)"))
    #expect(
      try dir.read("tuned.json") == """
        {
          "strategies": {
            "keep-me": {"use": "ucb", "options": {"exploration": 0.5}},
            "itemknn-tuned": {"use": "itemknn", "options": {"neighbours": 10}}
          }
        }

        """)
    // The named configuration ranks as its spelling does.
    let named = dir.run([
      "deck", "--config", config, "--date", "2026-11-30", "-s", "itemknn-tuned", "--format",
      "jsonl",
    ])
    let spelt = dir.run([
      "deck", "--config", config, "--date", "2026-11-30", "-s", "itemknn:neighbours=10",
      "--format", "jsonl",
    ])
    #expect(named.code == .success, "\(named.stderr)")
    #expect(
      named.stdout
        == spelt.stdout.replacingOccurrences(of: "itemknn:neighbours=10", with: "itemknn-tuned"))
    // Again, with another grid and name: the file keeps both earlier entries.
    let second = dir.run(
      Self.byDate + [
        "--config", config, "-s", "itemknn-tuned", "--grid", "recent_days=2,30", "--name",
        "knn2", "--out", tuned, Self.log,
      ])
    #expect(second.code == .success, "\(second.stderr)")
    let text = try dir.read("tuned.json")
    #expect(text.contains(#""keep-me": {"use": "ucb""#))
    #expect(text.contains(#""itemknn-tuned": {"use": "itemknn", "options": {"neighbours": 10}}"#))
    #expect(
      text.contains(#""knn2": {"use": "itemknn", "options": {"neighbours": 10, "recent_days": "#))
  }

  /// An --out that holds something else than named configurations is never replaced.
  @Test func anOutThatIsNotAFileOfConfigurationsIsRefused() throws {
    let dir = try TempDir()
    let other = try dir.write("other.json", #"{"catalog": "x.json"}"#)
    let r = CLIRun(Self.byDate + ["-s", "popularity", "--out", other, Self.log])
    #expect(r.code == .dataError)
    #expect(
      r.stderr.hasPrefix(
        "menudeck: error: \(other):1:2: 'catalog': the file is not only named configurations"))
    #expect(try dir.read("other.json") == #"{"catalog": "x.json"}"#)
    let config = CLIRun(
      Self.byDate + [
        "-s", "popularity", "--out", CLITest.repoRoot + "/Config/menudeck.json", Self.log,
      ])
    #expect(config.code == .usage, "the config is an input: \(config.stderr)")
  }

  @Test(arguments: [
    (
      ["-s", "itemknn", "--grid", "neigbours=5,10"],
      "'--grid neigbours=5,10': strategy 'itemknn' has no option 'neigbours' (did you mean 'neighbours'?)"
    ),
    (
      ["-s", "itemknn", "--grid", "neighbours=0,10"],
      "'--grid neighbours=0,10': strategy 'itemknn' option 'neighbours': '0' is out of range: give a whole number from 1 to 1000000"
    ),
    (
      ["-s", "itemknn", "--grid", "neighbours=5..50"],
      "a range (LOW..HIGH) is drawn from, not enumerated; give --random N"
    ),
    (
      ["-s", "itemknn", "--grid", "neighbours=5.5..50", "--random", "3"],
      "'neighbours' takes whole numbers"
    ),
    (["-s", "itemknn", "--grid", "neighbours=5,5"], "'5' is given twice"),
    (
      ["-s", "itemknn:neighbours=5", "--grid", "neighbours=5,10"],
      "'neighbours' is fixed at 5 by the strategy 'itemknn:neighbours=5'"
    ),
    (["-s", "random"], "nothing to tune: 'random' has no option with tuning values left to tune"),
    (["-s", "popularity", "--metric", "ndgc@10"], "'--metric ndgc@10': no such ranking metric"),
    (
      ["-s", "popularity", "--metric", "popularity_bias"], "popularity_bias has no better direction"
    ),
    (
      ["-s", "popularity", "--k", "5", "--metric", "ndcg@10"],
      "is at k = 10, which '--k' does not give"
    ),
    (
      ["-s", "popularity", "--validation-fraction", "0.2"],
      "'--validation-fraction' is for --holdout"
    ),
    (
      ["-s", "popularity", "--random", "0"],
      "'--random': '0' is out of range: give a whole number from 1 to 1000"
    ),
    (["-s", "popularity", "--out", "tuned.txt"], "give a .json name"),
    (["-s", "popularity", "--name", "a b"], "holds no ':' or white space"),
  ])
  func mistakesAreUsageErrors(_ more: [String], _ message: String) {
    let r = CLIRun(Self.byDate + more + [Self.log])
    #expect(r.code == .usage, "\(r.stderr)")
    #expect(r.stderr.contains(message), "\(r.stderr)")
  }

  @Test func aValidationWithoutRightSwipesSaysWhatToWiden() {
    let none = CLIRun([
      "tune", "--split", "2026-11-16", "--validation-days", "1", "-s", "popularity", Self.log,
    ])
    #expect(none.code == .dataError)
    #expect(
      none.stderr.contains(
        "no diner swiped right in the validation (the last 1 day before 2026-11-16 (2026-11-15 to"
          + " 2026-11-15)): nothing to tune on; give more --validation-days, or a later --split"))
  }
}

/// The fields of one CSV line (quotes and doubled quotes), for the tests' own checks.
enum CSVLine {
  static func fields(_ line: String) -> [String] {
    var fields: [String] = []
    var field = ""
    var quoted = false
    var chars = Array(line)[...]
    while let c = chars.popFirst() {
      if quoted {
        if c == "\"" {
          if chars.first == "\"" {
            field.append("\"")
            chars = chars.dropFirst()
          } else {
            quoted = false
          }
        } else {
          field.append(c)
        }
      } else if c == "\"" {
        quoted = true
      } else if c == "," {
        fields.append(field)
        field = ""
      } else {
        field.append(c)
      }
    }
    fields.append(field)
    return fields
  }
}
