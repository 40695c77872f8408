import DeckCommandLine
import Foundation
import Testing

@testable import MenuDeckCLI

/// External plugins through the CLI: named in the config, faults with their exit codes, the
/// fallback, and `strategies` listing them. Needs python3 (the example plugins are Python).
@Suite(
  .enabled(
    if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
      || FileManager.default.isExecutableFile(atPath: "/usr/local/bin/python3")
      || ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").contains(where: {
        FileManager.default.isExecutableFile(atPath: "\($0)/python3")
      }) == true,
    "python3 is not on PATH: the plugin tests need it"))
struct CLIPluginTests {
  /// A config in a temp dir with the bundled data, the example plugin and the test plugin.
  static func fixture(mode: String? = nil) throws -> TempDir {
    let dir = try TempDir()
    let plugins = CLITest.repoRoot + "/Config/plugins"
    let fixtures = CLITest.repoRoot + "/Tests/Fixtures/plugins"
    var misbehave = ["\"plugin\": \"\(fixtures)/misbehave.py\"", "\"timeout\": 2"]
    if let mode { misbehave.append("\"options\": {\"mode\": \"\(mode)\"}") }
    try dir.write(
      "config.json",
      """
      {"catalog": "\(CLITest.repoRoot)/Data/catalog.json", "users": "\(CLITest.repoRoot)/Data/users.json",
       "history": ["\(CLITest.repoRoot)/Data/swipes.jsonl"], "time_zone": "Asia/Tokyo", "seed": 5,
       "strategies": {
         "veg-first": {"plugin": "\(plugins)/veg_first.py", "options": {"boost": 0.3}},
         "mis": {\(misbehave.joined(separator: ", "))},
         "gone": {"plugin": "\(dir.path)/nope.py"}
       }}
      """)
    return dir
  }

  func deck(_ dir: TempDir, _ extra: [String]) -> CLIRun {
    dir.run(["deck", "--config", dir.file("config.json"), "--date", "2026-11-30"] + extra)
  }

  @Test func aPluginBuildsDecksAndLogsWithItsName() throws {
    let dir = try Self.fixture()
    let r = deck(dir, ["--strategy", "veg-first", "--format", "jsonl"])
    #expect(r.code == .success, "\(r.stderr)")
    #expect(r.stdoutLines.filter { !$0.isEmpty }.count == 48)
    #expect(r.stderr.contains("menudeck: plugin veg-first: "))
    // Deterministic: the same bytes twice.
    #expect(
      deck(dir, ["--strategy", "veg-first", "--format", "jsonl"]).stdoutBytes == r.stdoutBytes)
  }

  /// More diners than one batch: with `--jobs`, one plugin process per worker, each for its own
  /// batches; the same decks as one process.
  @Test func onePluginProcessPerWorkerGivesTheSameDecks() throws {
    let dir = try Self.fixture()
    let users = (0..<1_700).map {
      "{\"id\": \"p\($0)\", \"diets\": [\($0 % 3 == 0 ? "\"vegetarian\"" : "")]}"
    }
    try dir.write("users.json", "[" + users.joined(separator: ",\n") + "]")
    var runs: [CLIRun] = []
    for jobs in ["1", "2", "3", "7"] {
      runs.append(
        deck(
          dir,
          [
            "--strategy", "veg-first", "--format", "jsonl", "--users", dir.file("users.json"),
            "--jobs", jobs,
          ]))
    }
    #expect(runs[0].code == .success, "\(runs[0].stderr)")
    #expect(runs[0].stdoutLines.filter { !$0.isEmpty }.count >= 1_700)
    for (k, run) in runs.enumerated() {
      #expect(run.code == .success, "\(run.stderr)")
      #expect(run.stdoutBytes == runs[0].stdoutBytes)
      // The plugin's one line at start, once per process: 1, 2, 3 and 4 (4 batches of 512).
      let starts = run.stderr.split(separator: "\n").filter {
        $0.hasPrefix("menudeck: plugin veg-first: ")
      }
      #expect(starts.count == [1, 2, 3, 4][k], "\(run.stderr)")
    }
  }

  @Test(arguments: [
    ("crash", ExitCode.unavailable), ("exit", .unavailable), ("hang", .unavailable),
    ("garbage", .protocolError), ("too-few", .protocolError), ("unknown-id", .protocolError),
    ("duplicate-id", .protocolError), ("nan", .protocolError), ("inf", .protocolError),
  ])
  func faultsHaveTheirExitCodesAndLeaveNoOutput(mode: String, code: ExitCode) throws {
    let dir = try Self.fixture(mode: mode)
    let r = deck(dir, ["--strategy", "mis", "--out", dir.file("decks.json")])
    #expect(r.code == code, "\(mode): \(r.stderr)")
    #expect(r.stderr.contains("strategy 'mis'"), "\(mode): \(r.stderr)")
    #expect(try dir.names() == ["config.json"], "\(mode): no partial output file")
  }

  @Test func aMissingPluginIs66() throws {
    let dir = try Self.fixture()
    let r = deck(dir, ["--strategy", "gone"])
    #expect(r.code == .noInput, "\(r.stderr)")
  }

  @Test func theFallbackServesTheAffectedDinersWithOneWarning() throws {
    let dir = try Self.fixture(mode: "crash")
    let r = deck(dir, ["--strategy", "mis", "--fallback", "popularity", "--format", "jsonl"])
    #expect(r.code == .success, "\(r.stderr)")
    #expect(r.stdoutLines.filter { !$0.isEmpty }.count == 48)
    let warnings = r.stderr.split(separator: "\n").filter {
      $0.contains("came from the fallback 'popularity'")
    }
    #expect(warnings.count == 1)
  }

  @Test func strategiesListsPlugins() throws {
    let dir = try Self.fixture()
    let r = dir.run(["strategies", "--config", dir.file("config.json"), "--format", "json"])
    #expect(r.code == .success)
    #expect(r.stdout.contains("\"identifier\":\"veg-first\""))
    #expect(r.stdout.contains("\"plugin\":"))
  }

  @Test func simulateRunsAPluginDayByDay() throws {
    let dir = try Self.fixture()
    let r = dir.run([
      "simulate", "--config", dir.file("config.json"), "--users", "30", "--days", "3", "--start",
      "2026-12-01", "--strategy", "veg-first", "--format", "csv",
    ])
    #expect(r.code == .success, "\(r.stderr)")
    #expect(r.stdout.contains("veg-first,,true,like_rate,"))
  }
}

/// The example plugin's documented logic, checked by hand through `deck` and `simulate`.
@Suite(
  .enabled(
    if: ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").contains(where: {
      FileManager.default.isExecutableFile(atPath: "\($0)/python3")
    }) == true,
    "python3 is not on PATH: the plugin tests need it"))
struct CLIPluginHandComputedTests {
  @Test func vegFirstScoresAsDocumented() throws {
    let dir = try TempDir()
    try dir.write(
      "catalog.json",
      """
      [{"id": "tofu", "name": "Tofu", "category": "side", "diets": ["vegetarian"]},
       {"id": "beef", "name": "Beef", "category": "main"},
       {"id": "soup", "name": "Soup", "category": "soup", "diets": ["vegetarian"]},
       {"id": "fish", "name": "Fish", "category": "fish"}]
      """)
    // Global: beef 3 right of 4, tofu 0 of 2, soup 1 of 1, fish never shown.
    // Diner d1 swiped beef right once and tofu left twice.
    try dir.write(
      "swipes.jsonl",
      """
      {"user":"d1","item":"beef","swipe":"right","at":"2026-11-20"}
      {"user":"d2","item":"beef","swipe":"right","at":"2026-11-21"}
      {"user":"d3","item":"beef","swipe":"right","at":"2026-11-21"}
      {"user":"d2","item":"beef","swipe":"left","at":"2026-11-22"}
      {"user":"d1","item":"tofu","swipe":"left","at":"2026-11-22"}
      {"user":"d1","item":"tofu","swipe":"left","at":"2026-11-23"}
      {"user":"d3","item":"soup","swipe":"right","at":"2026-11-23"}

      """)
    try dir.write(
      "config.json",
      """
      {"catalog": "catalog.json", "history": ["swipes.jsonl"],
       "deck": {"size": 4, "max_per_category": null, "repeat_pick_days": 0, "cooldown_days": 0,
                "reshow_days": 0},
       "strategies": {"veg-first": {"plugin": "\(CLITest.repoRoot)/Config/plugins/veg_first.py",
                                    "options": {"boost": 0.3, "personal": 0.1}}}}
      """)
    let r = dir.run([
      "deck", "--config", dir.file("config.json"), "--date", "2026-11-30", "--strategy",
      "veg-first", "--user", "d1", "--format", "csv",
    ])
    #expect(r.code == .success, "\(r.stderr)")
    // rate = (R+1)/(R+L+2); score = rate + 0.3 x vegetarian + 0.1 x (r - l) of d1:
    // beef 4/6 + 0.1 = 0.766667; soup 2/3 + 0.3 = 0.966667; fish 1/2 = 0.5;
    // tofu 1/4 + 0.3 - 0.2 = 0.35.
    let rows = r.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
    #expect(rows.map { String($0[5]) } == ["soup", "beef", "fish", "tofu"])
    #expect(rows.map { String($0[8]) } == ["0.966667", "0.766667", "0.500000", "0.350000"])

    // In a simulation the same plugin learns day by day: its first day's decks use only the
    // history it was given (none), so every diner's first deck is ordered by the diet boost.
    let sim = dir.run([
      "simulate", "--config", dir.file("config.json"), "--users", "5", "--days", "2", "--start",
      "2026-12-01", "--strategy", "veg-first", "--events", dir.file("sim.jsonl"), "--seed", "1",
    ])
    #expect(sim.code == .success, "\(sim.stderr)")
    let firstDay = try dir.read("sim.jsonl").split(separator: "\n").filter {
      $0.contains("\"deck\":\"2026-12-01\"") && $0.contains("\"position\":1,")
    }
    // Position 1 on day one is always a vegetarian dish (0.5 + 0.3 beats 0.5).
    #expect(!firstDay.isEmpty)
    #expect(
      firstDay.allSatisfy { $0.contains("\"item\":\"tofu\"") || $0.contains("\"item\":\"soup\"") })
  }
}
