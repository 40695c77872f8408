import DeckCommandLine
import DeckCore
import DeckEvaluation
import DeckIO
import DeckJobs
import Foundation
import Testing

@testable import MenuDeckCLI

/// Every limit an error: out-of-range options (64), config values and input data (65), memory
/// (70); never a trap.
@Suite struct CLILimitsTests {
  /// A snapshot of one dish "a" of the CLIExitCodeTests catalog, read in UTC with the relative
  /// drag rule (the fixture config's), with the given diners' right swipes on it.
  static func snapshot(source: String, rights: [(String, Int32)]) -> HistorySnapshot {
    HistorySnapshot(
      sources: [
        HistorySnapshot.Source(
          sha256: String(repeating: source, count: 64), path: source + ".jsonl", bytes: 1,
          lines: 1, events: 1)
      ],
      items: [
        .init(
          id: "a", right: rights.reduce(0) { $0 + Int64($1.1) }, left: 0, positions: [])
      ],
      users: rights.map { id, n in
        .init(
          id: id,
          records: [
            .init(item: 0, right: n, left: 0, lastRight: 20_000, lastLeft: History.never)
          ])
      }, firstDay: 20_000, lastDay: 20_000, timeZone: "UTC", dragRule: "relative")
  }

  func expectUsage(
    _ result: CLIRun, _ message: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) {
    #expect(result.code == .usage, sourceLocation: sourceLocation)
    #expect(result.stdout == "", sourceLocation: sourceLocation)
    #expect(
      result.stderr.hasPrefix("menudeck: error: \(message)\n"), sourceLocation: sourceLocation)
  }

  // MARK: Options

  @Test func deckSizesBeyondTheLimitAreUsageErrors() throws {
    let dir = try CLIExitCodeTests.fixture()
    let config = dir.file("config.json")
    for size in ["9223372036854775807", "10001"] {
      expectUsage(
        dir.run(["deck", "--config", config, "--date", "2026-11-30", "--size", size]),
        "'--size': '\(size)' is out of range: give a whole number from 1 to 10000 (cards)")
      expectUsage(
        dir.run(["stats", "--config", config, "--size", size, dir.file("swipes.jsonl")]),
        "'--size': '\(size)' is out of range: give a whole number from 1 to 10000 (cards)")
      expectUsage(
        dir.run([
          "compare", "--config", config, "-s", "random", "-s", "popularity", "--split",
          "2026-11-20", "--size", size, dir.file("swipes.jsonl"),
        ]), "'--size': '\(size)' is out of range: give a whole number from 1 to 10000 (cards)")
    }
    // The limit itself is a deck (of the two dishes there are).
    let full = dir.run([
      "deck", "--config", config, "--date", "2026-11-30", "--size", "10000", "--format", "csv",
      "--quiet",
    ])
    #expect(full.code == .success)
    #expect(full.stdoutLines.count == 4)
    expectUsage(
      dir.run(["stats", "--config", config, "--repeat-window", "36501", dir.file("swipes.jsonl")]),
      "'--repeat-window': '36501' is out of range: give a whole number from 1 to 36500 (days)")
  }

  @Test func simulatedDinersBeyondTheLimitAreUsageErrors() throws {
    let dir = try CLIExitCodeTests.fixture()
    let config = dir.file("config.json")
    for users in ["9223372036854775807", "1000001", "99999999999999999999"] {
      expectUsage(
        dir.run(["simulate", "--config", config, "--users", users, "--days", "1"]),
        "'--users': '\(users)' is out of range: give a whole number from 1 to 1000000 (diners)")
      expectUsage(
        dir.run([
          "compare", "--config", config, "-s", "random", "-s", "popularity", "--users", users,
          "--days", "1",
        ]), "'--users': '\(users)' is out of range: give a whole number from 1 to 1000000 (diners)")
    }
    expectUsage(
      dir.run(["simulate", "--config", config, "--users", "0", "--days", "1"]),
      "'--users': '0' is out of range: give a whole number from 1 to 1000000 (diners)")
    expectUsage(
      dir.run(["simulate", "--config", config, "--users", "5", "--days", "36501"]),
      "'--days': '36501' is out of range: give a whole number from 1 to 36500 (100 years)")
  }

  @Test func aBootstrapThatWouldNotFitInMemoryIsAUsageError() throws {
    let metrics = (0..<300).map { MetricSpec(name: "m\($0)", definition: "", form: .ratio) }
    let arms = ["a", "b"].map { ArmUnits(arm: $0, units: 1, metrics: metrics.count) }
    let table = UnitTable(metrics: metrics, units: ["u"], arms: arms)
    #expect(throws: Never.self) { try Limits.checkResampling(table, resamples: 1_000) }
    #expect(
      throws: JobError.usage(
        "'--resamples' 1000000 with 2 strategies and 300 metrics would keep 600000000 replicate "
          + "values in memory (at most 200000000); give at most 333333 resamples")
    ) { try Limits.checkResampling(table, resamples: 1_000_000) }
  }

  // MARK: Config values

  @Test(arguments: [
    (
      "size", "10001",
      "'deck.size': '10001' is out of range: give a whole number from 1 to 10000"
    ),
    (
      "size", "99999999999999999999",
      "'deck.size': '99999999999999999999' is out of range: give a whole number from 1 to 10000"
    ),
    (
      "cooldown_days", "36501",
      "'deck.cooldown_days': '36501' is out of range: give a whole number from 0 to 36500"
    ),
    (
      "max_per_category", "10001",
      "'deck.max_per_category': '10001' is out of range: give a whole number from 1 to 10000 (or null for no cap)"
    ),
    // Below the range, and not whole numbers at all: each says which.
    ("size", "0", "'deck.size': '0' is out of range: give a whole number from 1 to 10000"),
    (
      "reshow_days", "-1",
      "'deck.reshow_days': '-1' is out of range: give a whole number from 0 to 36500"
    ),
    (
      "size", "2.5", "'deck.size': '2.5' is not a whole number; give a whole number from 1 to 10000"
    ),
    (
      "size", "\"ten\"",
      "'deck.size' is a string, not a whole number; give a whole number from 1 to 10000"
    ),
  ])
  func configValuesBeyondTheirLimitsAreDataErrors(key: String, value: String, message: String)
    throws
  {
    let dir = try CLIExitCodeTests.fixture(
      config: #"{"catalog": "catalog.json", "deck": {"\#(key)": \#(value)}}"#)
    let result = dir.run(["deck", "--config", dir.file("config.json"), "--date", "2026-11-30"])
    #expect(result.code == .dataError)
    #expect(result.stderr.hasPrefix("menudeck: error: \(dir.file("config.json")):1:"))
    #expect(result.stderr.contains(message))
    #expect(result.stderr.hasSuffix("\(message)\n"))
  }

  @Test(arguments: [
    (
      #""seed": -1"#,
      "'seed': '-1' is out of range: give a whole number from 0 to 18446744073709551615"
    ),
    (
      #""seed": 18446744073709551616"#,
      "'seed': '18446744073709551616' is out of range: give a whole number from 0 to "
        + "18446744073709551615"
    ),
    (
      #""seed": 1.5"#,
      "'seed': '1.5' is not a whole number; give a whole number from 0 to 18446744073709551615"
    ),
    (
      #""strategies": {"p": {"plugin": "p.py", "timeout": 0}}"#,
      "'timeout': '0' is out of range: give a number of seconds above 0, up to 3600"
    ),
    (
      #""strategies": {"p": {"plugin": "p.py", "timeout": "soon"}}"#,
      "'timeout' is a string, not a number; give a number of seconds above 0, up to 3600"
    ),
  ])
  func configSettingsOutOfRangeSayWhatToGive(entry: String, message: String) throws {
    let dir = try CLIExitCodeTests.fixture(config: #"{"catalog": "catalog.json", \#(entry)}"#)
    let result = dir.run(["deck", "--config", dir.file("config.json"), "--date", "2026-11-30"])
    #expect(result.code == .dataError)
    #expect(result.stderr.hasPrefix("menudeck: error: \(dir.file("config.json")):1:"))
    #expect(result.stderr.hasSuffix(": \(message)\n"), "\(result.stderr)")
  }

  /// Options: a number outside the range says so and what to give; a text that is no number
  /// keeps its own message.
  @Test(arguments: [
    (
      ["--level", "1.5"],
      "'--level': '1.5' is out of range: give a level above 0 and below 1 (e.g. 0.95)"
    ),
    (["--level", "high"], "invalid value 'high' for '--level'; expected a number like 0.5"),
    (
      ["--resamples", "0"],
      "'--resamples': '0' is out of range: give a whole number from 1 to 1000000"
    ),
    (
      ["--wait", "-1"],
      "'--wait': '-1' is out of range: give a number of seconds from 0 to 604800 (a week)"
    ),
  ])
  func optionsOutOfRangeSayWhatToGive(extra: [String], message: String) throws {
    let dir = try CLIExitCodeTests.fixture()
    let result = dir.run(
      [
        "compare", "--config", dir.file("config.json"), "-s", "random", "-s", "popularity",
        "--days", "1", "--users", "3",
      ] + extra)
    #expect(result.code == .usage)
    #expect(result.stderr.hasPrefix("menudeck: error: \(message)\n"), "\(result.stderr)")
  }

  // MARK: Off-policy logs

  /// The fixture's catalog and config with a log: a training swipe, then evaluated cards on
  /// 2026-11-22 (u1 picks a at position 1, u2 passes on b at position 2), the last one given.
  static func opeLog(last: String) throws -> TempDir {
    let dir = try CLIExitCodeTests.fixture()
    let lines = [
      CLIExitCodeTests.goodLine,
      #"{"user":"u1","item":"a","swipe":"right","at":"2026-11-22T12:00:00Z","position":1,"propensity":0.5}"#,
      #"{"user":"u2","item":"b","swipe":"left","at":"2026-11-22T12:00:00Z","position":2,"propensity":0.5}"#,
      last,
    ]
    try dir.write("log.jsonl", lines.joined(separator: "\n") + "\n")
    return dir
  }

  func compareOPE(_ dir: TempDir, format: String = "table") -> CLIRun {
    dir.run([
      "compare", "--config", dir.file("config.json"), "--ope", "--split", "2026-11-21", "-s",
      "random", "-s", "popularity", "--baseline", "random", "--resamples", "20", "--format", format,
      dir.file("log.jsonl"),
    ])
  }

  @Test func aPositionNear2To31IsAMalformedLineNotAnAllocation() throws {
    let dir = try Self.opeLog(
      last:
        #"{"user":"u2","item":"a","swipe":"right","at":"2026-11-22T12:00:00Z","position":2147483000,"propensity":0.5}"#
    )
    let result = compareOPE(dir)
    #expect(result.code == .dataError)
    #expect(
      result.stderr.hasPrefix("menudeck: error: \(dir.file("log.jsonl")):4:"), "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "position: '2147483000' is out of range: give a card position from 1 to 10000 (the most "
          + "cards a deck has)"))
  }

  @Test func cardsPastTheLastEvaluatedPositionAreLeftOutWithANote() throws {
    let dir = try Self.opeLog(
      last:
        #"{"user":"u2","item":"a","swipe":"right","at":"2026-11-22T12:00:00Z","position":150,"propensity":0.5}"#
    )
    let result = compareOPE(dir, format: "json")
    #expect(result.code == .success, "\(result.stderr)")
    let json = try #require(try result.json() as? [String: Any])
    let notes = try #require(json["notes"] as? [String])
    #expect(
      notes.contains(
        "1 logged card at positions above 100 (the last at 150) is left out of the off-policy "
          + "estimates, which cover positions 1 to 100"))
    let metrics = try #require(json["metrics"] as? [[String: Any]]).compactMap {
      $0["name"] as? String
    }
    #expect(metrics.contains("ips_p100") && !metrics.contains("ips_p101"))
  }

  @Test func aPropensityBelowTheFloorIsBadDataNamingTheLine() throws {
    let dir = try Self.opeLog(
      last:
        #"{"user":"u2","item":"a","swipe":"right","at":"2026-11-22T12:00:00Z","position":1,"propensity":1e-320}"#
    )
    let result = compareOPE(dir)
    #expect(result.code == .dataError)
    #expect(
      result.stderr.hasPrefix(
        "menudeck: error: \(dir.file("log.jsonl")):4: propensity: '1e-320' is below 0.000001, the smallest "
          + "propensity off-policy estimates use: "),
      "\(result.stderr)")
  }

  // MARK: Missing and unreadable inputs

  /// `validate` exits as `deck` does for the same input: 66 when nothing is there, 74 when it
  /// cannot be read (validate said 66 for an unreadable config: the "no catalog" that followed
  /// took precedence).
  @Test func validateAndDeckAgreeOnMissingAndUnreadableInputs() throws {
    let dir = try CLIExitCodeTests.fixture()
    try FileManager.default.createDirectory(
      atPath: dir.file("folder.json"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(
      atPath: dir.file("folder.jsonl"), withIntermediateDirectories: true)
    let config = dir.file("config.json")
    let cases: [([String], ExitCode)] = [
      (["--config", dir.file("folder.json")], .ioError),
      (["--config", dir.file("missing.json")], .noInput),
      (["--config", config, "--catalog", dir.file("folder.json")], .ioError),
      (["--config", config, "--users", dir.file("folder.json")], .ioError),
      (["--config", config, "--history", dir.file("folder.jsonl")], .ioError),
      (["--config", config, "--history", dir.file("missing.jsonl")], .noInput),
      // A path through a file is a missing file for every reader.
      (["--config", config, "--history", dir.file("catalog.json") + "/x.jsonl"], .noInput),
      (["--config", config, "--users", dir.file("catalog.json") + "/u.json"], .noInput),
    ]
    for (arguments, code) in cases {
      let validate = dir.run(["validate"] + arguments)
      let deck = dir.run(["deck"] + arguments + ["--date", "2026-11-30"])
      #expect(validate.code == code, "validate \(arguments): \(validate.stderr)")
      #expect(deck.code == code, "deck \(arguments): \(deck.stderr)")
    }
    // The unreadable config is the one error: nothing follows from it.
    let folder = dir.run(["validate", "--config", dir.file("folder.json")])
    #expect(
      folder.stderr
        == "menudeck: error: \(dir.file("folder.json")): is a directory, not the config; give the path of a "
        + "file\n")
    #expect(folder.stdout.hasSuffix("invalid: 1 error, 0 warnings\n"))
  }

  /// Permission denied (as root every file is readable: the test needs another user).
  @Test(.enabled(if: geteuid() != 0)) func anUnreadableFileIs74ForValidateAsForDeck() throws {
    let dir = try CLIExitCodeTests.fixture()
    try dir.write("locked.json", "{}")
    try dir.write("locked.jsonl", CLIExitCodeTests.goodLine + "\n")
    for name in ["locked.json", "locked.jsonl"] {
      try FileManager.default.setAttributes(
        [.posixPermissions: 0], ofItemAtPath: dir.file(name))
    }
    for arguments in [
      ["--config", dir.file("locked.json")],
      ["--config", dir.file("config.json"), "--history", dir.file("locked.jsonl")],
    ] {
      let validate = dir.run(["validate"] + arguments)
      #expect(validate.code == .ioError, "\(validate.stderr)")
      #expect(validate.stderr.contains("permission denied"))
      #expect(dir.run(["deck"] + arguments + ["--date", "2026-11-30"]).code == .ioError)
    }
  }

  // MARK: Snapshots

  @Test func aSnapshotWithAFlippedHeaderIsBadDataNotATrap() throws {
    let dir = try CLIExitCodeTests.fixture()
    var bytes = SnapshotFile.encode(Self.snapshot(source: "a", rights: [("u1", 1)]))
    for k in 13..<21 { bytes[k] ^= 0xff }
    try dir.write("h.snap", bytes)
    let result = dir.run([
      "deck", "--config", dir.file("config.json"), "--history", dir.file("h.snap"), "--date",
      "2026-11-30",
    ])
    #expect(result.code == .dataError)
    #expect(result.stdout == "")
    #expect(
      result.stderr.hasPrefix(
        "menudeck: error: \(dir.file("h.snap")): the snapshot's header gives a payload of "))
  }

  @Test func aMergeWhoseSumsOverflowIsBadDataAndWritesNothing() throws {
    let dir = try CLIExitCodeTests.fixture()
    try dir.write(
      "a.snap", SnapshotFile.encode(Self.snapshot(source: "a", rights: [("u1", .max)])))
    try dir.write("b.snap", SnapshotFile.encode(Self.snapshot(source: "b", rights: [("u1", 1)])))
    let result = dir.run([
      "merge", dir.file("a.snap"), dir.file("b.snap"), "--out", dir.file("m.snap"),
    ])
    #expect(result.code == .dataError)
    #expect(
      result.stderr
        == "menudeck: error: \(dir.file("b.snap")): the swipes of diner 'u1' on one dish add up to more "
        + "than 2147483647; the snapshots are corrupt or hold too much: merge fewer of them\n")
    #expect(!dir.exists("m.snap"))
  }

  @Test func aSnapshotBeyondWhatADeckHistoryCountsIsBadData() throws {
    let dir = try CLIExitCodeTests.fixture()
    try dir.write(
      "h.snap",
      SnapshotFile.encode(Self.snapshot(source: "a", rights: [("u1", .max), ("u2", 1)])))
    let result = dir.run([
      "deck", "--config", dir.file("config.json"), "--history", dir.file("h.snap"), "--date",
      "2026-11-30",
    ])
    #expect(result.code == .dataError)
    #expect(
      result.stderr
        == "menudeck: error: \(dir.file("h.snap")): dish 'a' has more swipes than a deck history counts "
        + "(2147483647); the snapshot is corrupt or holds too much: ingest fewer logs into it\n")
  }

  // MARK: Memory

  @Test func outOfMemoryIsExit70WithItsMessage() {
    let error = DeckCoreError.outOfMemory(what: "the history of 3 diners", bytes: 4_194_304)
    #expect(ExitCode.for(error) == .software)
    #expect(ExitCode.for(error).rawValue == 70)
    #expect(
      ExitCode.message(for: error, program: "menudeck")
        == "out of memory building the history of 3 diners (a block of 4194304 bytes was "
        + "refused); give menudeck more memory (see 'ulimit -v' and the container's memory "
        + "limit) or fewer swipe logs")
    // The other core errors stay data errors.
    #expect(ExitCode.for(DeckCoreError.invalidSnapshot("x")) == .dataError)
  }

  @Test func aLogWithoutLineEndsStopsAtTheRecordLimit() throws {
    let dir = try CLISafetyTests.fixture()
    let result = dir.run(
      CLISafetyTests.deck(dir) + ["--history", "/dev/zero", "--out", dir.file("d.json")])
    #expect(result.code == .dataError)
    #expect(
      result.stderr
        == "menudeck: error: /dev/zero:1: a record of more than 16 MiB without a line end; a swipe log has "
        + "one event per line (is this the right file?)\n")
  }
}
