import DeckBase
import DeckCommandLine
import DeckCore
import DeckIO
import Foundation
import Testing

@testable import MenuDeckCLI

/// Every JSON document, JSON Lines line and CSV row that menudeck writes is valid against its
/// schema in docs/schemas (issue 16 section 1), run in process on the bundled Config/ and Data/
/// and on small simulations (a few diners, days and resamples, so the suite stays fast).
struct OutputSchemaTests {
  /// The groups of outputs, each with the schemas it validates against (all of which it must
  /// use: `outputsMatchTheirSchemas` checks that the list is the truth).
  enum Output: String, CaseIterable, Sendable {
    case deck, deckRejects, deckExplain, strategies, validate, stats, simulate, simulateEvents
    case playLog
    case compareSimulation, compareLogs, tune

    var schemas: Set<String> {
      switch self {
      case .deck: ["deck.json.schema.json", "deck.jsonl.schema.json", "deck.csv.schema.json"]
      case .deckRejects:
        ["deck.json.schema.json", "rejects.jsonl.schema.json", "rejects.csv.schema.json"]
      case .deckExplain:
        [
          "deck-explain.json.schema.json", "deck-explain.jsonl.schema.json",
          "deck-explain.csv.schema.json",
        ]
      case .strategies: ["strategies.json.schema.json", "strategies.jsonl.schema.json"]
      case .validate: ["validate.json.schema.json"]
      case .stats: ["stats.json.schema.json", "stats.jsonl.schema.json", "stats.csv.schema.json"]
      case .simulate:
        ["simulate.json.schema.json", "simulate.jsonl.schema.json", "simulate.csv.schema.json"]
      case .simulateEvents, .playLog: ["swipe-log.jsonl.schema.json", "swipe-log.csv.schema.json"]
      case .compareSimulation:
        ["compare.json.schema.json", "compare.jsonl.schema.json", "compare.csv.schema.json"]
      case .compareLogs:
        [
          "compare.json.schema.json", "compare.csv.schema.json",
          "compare-per-diner.csv.schema.json", "swipe-log.csv.schema.json",
        ]
      case .tune: ["tune.csv.schema.json", "tune.jsonl.schema.json", "strategies.json.schema.json"]
      }
    }
  }

  @Test(arguments: Output.allCases)
  func outputsMatchTheirSchemas(_ output: Output) throws {
    var checker = try SchemaChecker()
    let dir = try TempDir("menudeck-schemas")
    switch output {
    case .deck: try Self.deck(&checker, dir)
    case .deckRejects: try Self.deckRejects(&checker, dir)
    case .deckExplain: try Self.deckExplain(&checker, dir)
    case .strategies: try Self.strategies(&checker)
    case .validate: try Self.validate(&checker, dir)
    case .stats: try Self.stats(&checker, dir)
    case .simulate: try Self.simulate(&checker)
    case .simulateEvents: try Self.simulateEvents(&checker, dir)
    case .playLog: try Self.playLog(&checker, dir)
    case .compareSimulation: try Self.compareSimulation(&checker)
    case .compareLogs: try Self.compareLogs(&checker, dir)
    case .tune: try Self.tune(&checker)
    }
    #expect(checker.used == output.schemas)
  }

  // MARK: - Inputs

  static let catalog = CLITest.repoRoot + "/Data/catalog.json"
  static let users = CLITest.repoRoot + "/Data/users.json"
  static let swipes = CLITest.repoRoot + "/Data/swipes.jsonl"

  /// A config whose deck rules keep the strategy's order (no caps, spacing or cooldowns), so
  /// that `random` gives every card its propensity and prefix propensity.
  static func freeConfig(_ dir: TempDir) throws -> String {
    try dir.write(
      "free.json",
      """
      {"catalog": "\(catalog)", "users": "\(users)", "strategy": "random", "seed": 7,
       "time_zone": "Asia/Tokyo",
       "deck": {"size": 5, "max_per_category": null, "avoid_adjacent_category": false,
                "repeat_pick_days": 0, "cooldown_days": 0, "reshow_days": 0}}
      """)
  }

  /// A config with a pinned dish and decks larger than the rules can fill (cards marked
  /// `pinned`, decks with `warnings`).
  static func pinConfig(_ dir: TempDir) throws -> String {
    try dir.write(
      "pin.json",
      """
      {"catalog": "\(catalog)", "users": "\(users)", "strategy": "popularity", "seed": 7,
       "time_zone": "Asia/Tokyo", "deck": {"size": 60, "pinned": ["miso-soup"]}}
      """)
  }

  /// A history snapshot of the sample log.
  static func snapshot(_ dir: TempDir) throws -> String {
    let path = dir.file("history.snap")
    let run = CLIRun(["ingest", "--into", path, swipes])
    #expect(run.code == .success, "\(run.stderr)")
    return path
  }

  static func succeeded(
    _ arguments: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) -> CLIRun {
    let run = CLIRun(arguments)
    #expect(
      run.code == .success, "\(arguments.joined(separator: " ")): \(run.stderr)",
      sourceLocation: sourceLocation)
    return run
  }

  static func file(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  // MARK: - The outputs

  /// `deck` in json, jsonl and csv: with the bundled config, with propensities, with pinned
  /// cards and short decks, and from a snapshot.
  static func deck(_ checker: inout SchemaChecker, _ dir: TempDir) throws {
    let date = ["--date", "2026-11-30"]
    let setups: [(String, [String])] = [
      ("bundled config", []),
      ("propensities", ["--config", try freeConfig(dir)]),
      ("pinned, short decks", ["--config", try pinConfig(dir)]),
      ("snapshot", ["--history", try snapshot(dir)]),
    ]
    var seen = ""
    for (name, extra) in setups {
      let json = succeeded(["deck"] + date + extra + ["--format", "json"])
      checker.document(json.stdoutBytes, "deck.json.schema.json", "deck json (\(name))")
      seen += json.stdout
      let jsonl = succeeded(["deck"] + date + extra + ["--format", "jsonl"])
      #expect(
        checker.lines(jsonl.stdoutBytes, "deck.jsonl.schema.json", "deck jsonl (\(name))") > 0)
      let csv = succeeded(["deck"] + date + extra + ["--format", "csv"])
      #expect(checker.csv(csv.stdoutBytes, "deck.csv.schema.json", "deck csv (\(name))") > 0)
    }
    // The optional parts of the schema were met.
    for part in [
      "\"propensity\":", "\"prefix_propensity\":", "\"pinned\":true", "\"warnings\":[",
      "\"role\":\"snapshot\"", "\"role\":\"history\"",
    ] {
      #expect(seen.contains(part), "no deck output had \(part)")
    }
  }

  /// A config whose freshness rules leave dishes shown in the last days candidates, behind the
  /// others (`recently_shown` in the explanations).
  static func reshowConfig(_ dir: TempDir) throws -> String {
    try dir.write(
      "reshow.json",
      """
      {"catalog": "\(catalog)", "users": "\(users)", "history": ["\(swipes)"],
       "strategy": "popularity", "seed": 7, "time_zone": "Asia/Tokyo",
       "deck": {"repeat_pick_days": 0, "cooldown_days": 0, "reshow_days": 5}}
      """)
  }

  /// `deck --explain` in json, jsonl and csv: every diner with the bundled config, with pinned
  /// cards and short decks, with dishes shown recently, and with propensities.
  static func deckExplain(_ checker: inout SchemaChecker, _ dir: TempDir) throws {
    let date = ["deck", "--date", "2026-11-30", "--explain"]
    let setups: [(String, [String])] = [
      ("bundled config", []),
      ("pinned, short decks", ["--config", try pinConfig(dir)]),
      ("recently shown", ["--config", try reshowConfig(dir)]),
      ("propensities", ["--config", try freeConfig(dir)]),
    ]
    var seen = ""
    for (name, extra) in setups {
      let json = succeeded(date + extra + ["--format", "json"])
      checker.document(json.stdoutBytes, "deck-explain.json.schema.json", "explain json (\(name))")
      seen += json.stdout
      let jsonl = succeeded(date + extra + ["--format", "jsonl"])
      let lines = checker.lines(
        jsonl.stdoutBytes, "deck-explain.jsonl.schema.json", "explain jsonl (\(name))")
      #expect(lines > 0)
      let csv = succeeded(date + extra + ["--format", "csv"])
      let rows = checker.csv(
        csv.stdoutBytes, "deck-explain.csv.schema.json", "explain csv (\(name))")
      #expect(rows > 0)
    }
    // The optional parts of the schema were met.
    for part in [
      "\"rule\":\"pinned\"", "\"rule\":\"category_cap\"", "\"rule\":\"spacing\"",
      "\"rule\":\"recently_shown\"", "\"rule\":\"outranked\"", "\"reason\":\"diet\"",
      "\"reason\":\"allergen\"", "\"reason\":\"disliked_category\"",
      "\"reason\":\"recently_picked\"", "\"reason\":\"cooldown\"", "\"warnings\":[",
      "\"propensity\":", "\"prefix_propensity\":",
    ] {
      #expect(seen.contains(part), "no explain output had \(part)")
    }
  }

  /// `deck --skip-bad-lines --rejects FILE`: bad JSON Lines (one not UTF-8) and a bad CSV row.
  static func deckRejects(_ checker: inout SchemaChecker, _ dir: TempDir) throws {
    let jsonl = try dir.write(
      "bad.jsonl",
      Array(
        #"""
        {"user":"u01","item":"gyudon","swipe":"rihgt","at":"2026-11-20T19:05:12"}
        {"user":"u01","item":"gyudon","swipe":"right","at":"2026-11-20T19:05:12"}

        """#.utf8) + [0xFF, 0xFE] + Array(#"{"bad"}"#.utf8) + [0x0A])
    let csv = try dir.write(
      "bad.csv",
      "user,item,swipe,at\nu02,gyudon,left,2026-11-21\nu02,\"oyako\ndon\",sideways,2026-11-21\n")
    let rejects = dir.file("rejects.jsonl")
    let run = succeeded([
      "deck", "--date", "2026-11-30", "--history", jsonl, "--history", csv, "--skip-bad-lines",
      "--rejects", rejects, "--format", "json",
    ])
    checker.document(run.stdoutBytes, "deck.json.schema.json", "deck json (bad logs)")
    let text = try file(rejects)
    #expect(checker.lines(text, "rejects.jsonl.schema.json", "rejects") == 3)
    let written = String(decoding: text, as: UTF8.self)
    #expect(written.contains("\"base64\":") && written.contains("\"text\":"))
    // The same rejects in CSV, for a .csv name: a row each, after the header.
    let csvRejects = dir.file("rejects.csv")
    _ = succeeded([
      "deck", "--date", "2026-11-30", "--history", jsonl, "--history", csv, "--skip-bad-lines",
      "--rejects", csvRejects, "--format", "json",
    ])
    let table = try file(csvRejects)
    #expect(checker.csv(table, "rejects.csv.schema.json", "rejects csv") == 3)
    #expect(String(decoding: table, as: UTF8.self).hasPrefix("file,line,column,field,reason,"))
  }

  static func strategies(_ checker: inout SchemaChecker) throws {
    let run = succeeded(["strategies", "--format", "json"])
    checker.document(run.stdoutBytes, "strategies.json.schema.json", "strategies json")
    let lines = succeeded(["strategies", "--format", "jsonl"])
    #expect(
      checker.lines(lines.stdoutBytes, "strategies.jsonl.schema.json", "strategies jsonl") > 0)
  }

  /// `validate --format json`: valid inputs, bad log lines, a missing file, a warning under
  /// `--strict`.
  static func validate(_ checker: inout SchemaChecker, _ dir: TempDir) throws {
    let bad = try dir.write(
      "bad.jsonl",
      """
      {"user":"u01","item":"gyudon","swipe":"rihgt","at":"2026-11-20"}
      {"user":"u01","item":"no-such-dish","swipe":"left","at":"2026-11-20"}
      not json

      """)
    let users = try dir.write(
      "users.json", #"{"users": [{"id": "007", "allergens": ["peanuts"]}]}"#)
    let cases: [([String], ExitCode)] = [
      ([], .success),
      (["--history", bad], .dataError),
      (["--catalog", dir.file("missing.json")], .noInput),
      (["--users", users, "--strict"], .failure),
    ]
    for (extra, code) in cases {
      let run = CLIRun(["validate", "--format", "json"] + extra)
      #expect(run.code == code, "validate \(extra): \(run.stderr)")
      checker.document(run.stdoutBytes, "validate.json.schema.json", "validate json \(extra)")
    }
  }

  /// `stats` of the sample log and of a snapshot of it, in json and csv.
  static func stats(_ checker: inout SchemaChecker, _ dir: TempDir) throws {
    let snap = try snapshot(dir)
    for (name, inputs) in [("log", [swipes]), ("snapshot", [snap])] {
      let json = succeeded(["stats", "--format", "json"] + inputs)
      checker.document(json.stdoutBytes, "stats.json.schema.json", "stats json (\(name))")
      let csv = succeeded(["stats", "--format", "csv"] + inputs)
      #expect(checker.csv(csv.stdoutBytes, "stats.csv.schema.json", "stats csv (\(name))") > 0)
      let jsonl = succeeded(["stats", "--format", "jsonl"] + inputs)
      #expect(
        checker.lines(jsonl.stdoutBytes, "stats.jsonl.schema.json", "stats jsonl (\(name))") > 0)
    }
  }

  static let smallSimulation = [
    "--users", "5", "--days", "2", "--start", "2026-11-01", "-s", "random", "-s", "popularity",
  ]

  static func simulate(_ checker: inout SchemaChecker) throws {
    let json = succeeded(["simulate", "--format", "json"] + smallSimulation)
    checker.document(json.stdoutBytes, "simulate.json.schema.json", "simulate json")
    let csv = succeeded(["simulate", "--format", "csv"] + smallSimulation)
    #expect(checker.csv(csv.stdoutBytes, "simulate.csv.schema.json", "simulate csv") > 0)
    let jsonl = succeeded(["simulate", "--format", "jsonl"] + smallSimulation)
    #expect(checker.lines(jsonl.stdoutBytes, "simulate.jsonl.schema.json", "simulate jsonl") > 0)
  }

  /// `simulate --events` as JSON Lines and CSV, with and without propensities and drags.
  static func simulateEvents(_ checker: inout SchemaChecker, _ dir: TempDir) throws {
    let free = try freeConfig(dir)
    let small = ["--users", "6", "--days", "2", "--start", "2026-11-01"]
    var seen = ""
    for (name, extra) in [
      ("bundled config", [String]()), ("propensities", ["--config", free]),
      ("drags", ["--config", free, "--drags"]),
    ] {
      for format in ["jsonl", "csv"] {
        let path = dir.file("\(name).\(format)")
        _ = succeeded(["simulate"] + small + extra + ["--events", path])
        let bytes = try file(path)
        seen += String(decoding: bytes, as: UTF8.self)
        let what = "simulate --events \(format) (\(name))"
        let count =
          format == "csv"
          ? checker.csv(bytes, "swipe-log.csv.schema.json", what)
          : checker.lines(bytes, "swipe-log.jsonl.schema.json", what)
        #expect(count > 0, "\(what) is empty")
      }
    }
    for part in ["\"prefix_propensity\":", "\"dx\":", "\"swipe\":", ",dx,width\n"] {
      #expect(seen.contains(part), "no log had \(part)")
    }
  }

  /// The log of `play --log`, written as play writes it: one `EventAppender` event at a time (a
  /// swipe with its propensities, a drag that sprang back, a drag that committed). `play` itself
  /// needs a terminal: `CLIPlayTests` drives the binary under a pseudo-terminal.
  static func playLog(_ checker: inout SchemaChecker, _ dir: TempDir) throws {
    let deck = DeckDate.parse("2026-11-30")
    let events = [
      LogEvent(
        user: "u01", item: "gyudon", swipe: .left, at: 1_764_500_000, position: 1, deck: deck,
        propensity: 0.25, prefixPropensity: 0.25),
      LogEvent(
        user: "u01", item: "oyakodon", swipe: nil, drag: LoggedDrag(dx: 58.5, width: 390),
        at: 1_764_500_003, position: 2, deck: deck),
      LogEvent(
        user: "u01", item: "oyakodon", swipe: nil, drag: LoggedDrag(dx: 195, width: 390),
        at: 1_764_500_005, position: 2, deck: deck),
    ]
    for (name, format) in [("play.jsonl", EventFormat.jsonLines), ("play.csv", .csv)] {
      let path = dir.file(name)
      let appender = try EventAppender(path: path, name: name, format: format)
      for event in events { try appender.append(event) }
      let bytes = try file(path)
      let count =
        format == .csv
        ? checker.csv(bytes, "swipe-log.csv.schema.json", "play --log \(name)")
        : checker.lines(bytes, "swipe-log.jsonl.schema.json", "play --log \(name)")
      #expect(count == events.count)
    }
  }

  /// `compare` on a small simulation, with and without a baseline, in json and csv.
  static func compareSimulation(_ checker: inout SchemaChecker) throws {
    let base = ["compare", "--resamples", "20"] + smallSimulation
    for baseline in [["--baseline", "random"], []] {
      let json = succeeded(base + baseline + ["--format", "json"])
      checker.document(json.stdoutBytes, "compare.json.schema.json", "compare json \(baseline)")
      let csv = succeeded(base + baseline + ["--format", "csv"])
      #expect(checker.csv(csv.stdoutBytes, "compare.csv.schema.json", "compare csv") > 0)
      let jsonl = succeeded(base + baseline + ["--format", "jsonl"])
      #expect(checker.lines(jsonl.stdoutBytes, "compare.jsonl.schema.json", "compare jsonl") > 0)
    }
  }

  /// `compare` on logs: the sample log split by date with `--per-diner` and `--trec`, a TREC
  /// run given back with `--run`, and off-policy estimates on a simulated log with propensities.
  static func compareLogs(_ checker: inout SchemaChecker, _ dir: TempDir) throws {
    let split = [
      "compare", "-s", "popularity", "-s", "affinity", "--baseline", "popularity", "--split",
      "2026-11-24", swipes, "--resamples", "20",
    ]
    let perDiner = dir.file("per-diner.csv")
    let trec = dir.file("trec")
    let json = succeeded(split + ["--format", "json", "--per-diner", perDiner, "--trec", trec])
    checker.document(json.stdoutBytes, "compare.json.schema.json", "compare json (logs)")
    #expect(
      checker.csv(try file(perDiner), "compare-per-diner.csv.schema.json", "per-diner (logs)")
        > 0)
    // The training swipes of --trec are a swipe log.
    #expect(
      checker.csv(try file(trec + "/train.csv"), "swipe-log.csv.schema.json", "--trec train.csv")
        > 0)
    let run = ["--run", "mine=" + trec + "/affinity.run"]
    let withRun = succeeded(split + run + ["--format", "json"])
    checker.document(withRun.stdoutBytes, "compare.json.schema.json", "compare json (--run)")
    let csv = succeeded(split + run + ["--format", "csv"])
    #expect(checker.csv(csv.stdoutBytes, "compare.csv.schema.json", "compare csv (--run)") > 0)

    let free = try freeConfig(dir)
    let log = dir.file("logged.jsonl")
    _ = succeeded([
      "simulate", "--config", free, "--users", "8", "--days", "3", "--start", "2026-11-01",
      "--events", log,
    ])
    let ope = [
      "compare", "--config", free, "-s", "random", "-s", "popularity", "--baseline", "random",
      "--split", "2026-11-03", log, "--ope", "--resamples", "20",
    ]
    let opeDiners = dir.file("ope-per-diner.csv")
    let opeJSON = succeeded(ope + ["--format", "json", "--per-diner", opeDiners])
    checker.document(opeJSON.stdoutBytes, "compare.json.schema.json", "compare json (--ope)")
    #expect(opeJSON.stdout.contains("\"name\":\"ips\""))
    #expect(
      checker.csv(try file(opeDiners), "compare-per-diner.csv.schema.json", "per-diner (--ope)")
        > 0)
    let opeCSV = succeeded(ope + ["--format", "csv"])
    #expect(checker.csv(opeCSV.stdoutBytes, "compare.csv.schema.json", "compare csv (--ope)") > 0)

    let tuned = succeeded(
      split + [
        "--tune", "--validation-days", "3", "--grid", "popularity.prior_passes=1,100",
        "--format", "json",
      ])
    checker.document(tuned.stdoutBytes, "compare.json.schema.json", "compare json (--tune)")
    #expect(tuned.stdout.contains(#""tuned":{"popularity":"prior_passes="#))
  }

  /// `tune` in csv and jsonl (a grid and a random search, with a quoted setting), and the
  /// strategies' default grids in `strategies --format json`.
  static func tune(_ checker: inout SchemaChecker) throws {
    let base = ["tune", "--split", "2026-11-24", "--validation-days", "3", swipes]
    let csv = succeeded(base + ["-s", "itemknn", "--grid", "neighbours=5,10", "--format", "csv"])
    #expect(checker.csv(csv.stdoutBytes, "tune.csv.schema.json", "tune csv") == 2 * 10)
    let jsonl = succeeded(
      base + [
        "-s", "blend", "--grid", #"components="popularity:1,ucb:1","popularity:3,ucb:1""#,
        "--format", "jsonl",
      ])
    #expect(checker.lines(jsonl.stdoutBytes, "tune.jsonl.schema.json", "tune jsonl") == 2 * 10)
    let random = succeeded(
      base + [
        "-s", "popularity", "--grid", "prior_passes=1..1000:log", "--random", "3", "--format",
        "jsonl",
      ])
    #expect(checker.lines(random.stdoutBytes, "tune.jsonl.schema.json", "tune jsonl (random)") > 0)
    let strategies = succeeded(["strategies", "--format", "json"])
    checker.document(strategies.stdoutBytes, "strategies.json.schema.json", "strategies json")
    #expect(strategies.stdout.contains(#""tuning":[20,50,200,1000]"#))
  }
}
