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
  /// A config in a temp dir with the bundled data and the two example plugins.
  static func fixture(mode: String? = nil) throws -> TempDir {
    let dir = try TempDir()
    let plugins = CLITest.repoRoot + "/Config/plugins"
    var misbehave = ["\"plugin\": \"\(plugins)/misbehave.py\"", "\"timeout\": 2"]
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
    #expect(r.stderr.contains("[veg-first] "))
    // Deterministic: the same bytes twice.
    #expect(
      deck(dir, ["--strategy", "veg-first", "--format", "jsonl"]).stdoutBytes == r.stdoutBytes)
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
    #expect(r.stdout.contains("veg-first,all,"))
  }
}
