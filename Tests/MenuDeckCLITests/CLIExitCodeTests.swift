import DeckCommandLine
import Foundation
import Testing

@testable import MenuDeckCLI

/// Every exit code of the deck job, each with the message a cron operator reads.
@Suite struct CLIExitCodeTests {
  static let catalog = """
    [
      {"id": "a", "name": "A", "category": "x"},
      {"id": "b", "name": "B", "category": "y"}
    ]

    """
  static let goodLine = #"{"user":"u1","item":"a","swipe":"right","at":"2026-11-20T12:00:00Z"}"#

  /// A directory with a two-item catalog, `config.json` pointing at it and an empty history.
  static func fixture(config: String? = nil) throws -> TempDir {
    let dir = try TempDir()
    try dir.write("catalog.json", catalog)
    try dir.write("swipes.jsonl", goodLine + "\n")
    try dir.write(
      "config.json", config ?? #"{"catalog": "catalog.json", "history": ["swipes.jsonl"]}"#)
    return dir
  }

  func expectUsage(
    _ arguments: [String], _ message: String, usage: String = CLITest.deckHelpNote,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) {
    let result = CLIRun(arguments)
    #expect(result.code == .usage, sourceLocation: sourceLocation)
    #expect(result.code.rawValue == 64, sourceLocation: sourceLocation)
    #expect(result.stdout == "", sourceLocation: sourceLocation)
    #expect(
      result.stderr == "menudeck: error: \(message)\n" + usage, sourceLocation: sourceLocation)
  }

  func expectFailure(
    _ result: CLIRun, _ code: ExitCode, _ message: String,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) {
    #expect(result.code == code, sourceLocation: sourceLocation)
    #expect(result.stdout == "", sourceLocation: sourceLocation)
    #expect(result.stderr == "menudeck: error: \(message)\n", sourceLocation: sourceLocation)
  }

  // MARK: 0

  @Test func success() throws {
    let dir = try Self.fixture()
    let result = dir.run([
      "--config", dir.file("config.json"), "--date", "2026-11-30", "--format", "csv",
      "--strategy", "affinity",
    ])
    #expect(result.code == .success)
    #expect(result.code.rawValue == 0)
    #expect(
      result.stdout == """
        user,date,strategy,seed,rank,item,name,category,score
        u1,2026-11-30,affinity,0,1,a,A,x,0.705556
        u1,2026-11-30,affinity,0,2,b,B,y,0.500000

        """)
    #expect(
      result.stderr == """
        menudeck: warning: user 'u1': deck has 2 of 10 cards (the catalog has only 2 dishes)
        menudeck: warning: the history ends on 2026-11-20, 10 days before the deck date 2026-11-30 (more than the default 2 of stale_history_days; set it in \(dir.file("config.json"))): 1 swipe of 1 diner in \(dir.file("swipes.jsonl")). Add the missing days' logs (is the nightly ingest running?), or raise stale_history_days
        menudeck: note: 1 deck (1 short of 10 cards) for 2026-11-30 with 'affinity'

        """)
  }

  // MARK: 64 usage

  @Test func unknownOptionSuggestsTheClosest() {
    expectUsage(["--dat", "2026-11-30"], "unknown option '--dat' (did you mean '--date'?)")
    expectUsage(
      ["deck", "--skip-bad-line"],
      "unknown option '--skip-bad-line' (did you mean '--skip-bad-lines'?)")
  }

  @Test func unknownSubcommand() {
    expectUsage(
      ["deks"], "unknown subcommand 'deks' (did you mean 'deck'?)",
      usage: "menudeck: note: see 'menudeck --help'\n")
  }

  @Test(arguments: ["2026-13-01", "2026-02-30", "30.11.2026", "2026-11-30T00:00:00Z", ""])
  func badDate(text: String) {
    expectUsage(
      ["deck", "--date", text],
      "invalid date '\(text)' for '--date'; expected YYYY-MM-DD, e.g. 2026-11-30, or today, "
        + "tomorrow, yesterday, +N or -N (days from today in the config's time zone)")
  }

  @Test func sizeMustBePositive() {
    expectUsage(
      ["deck", "--date", "2026-11-30", "--size", "0"],
      "'--size': '0' is out of range: give a whole number from 1 to 10000 (cards)")
    expectUsage(
      ["deck", "--date", "2026-11-30", "--size", "-3"],
      "'--size': '-3' is out of range: give a whole number from 1 to 10000 (cards)")
    #expect(CLIRun(["deck", "--date", "2026-11-30", "--size", "1", "--quiet"]).code == .success)
  }

  @Test func unknownStrategyOnTheCommandLine() {
    expectUsage(
      ["deck", "--date", "2026-11-30", "--strategy", "afinity"],
      "unknown strategy 'afinity' (did you mean 'affinity'?); valid strategies: random, "
        + "popularity, affinity, thompson, ucb, epsilon-greedy, itemknn, blend, diversify, "
        + "plackett-luce, als, ease, linucb, lints, cautious-popularity, ts-warm, veg-first")
  }

  @Test func badOptionValues() {
    expectUsage(
      ["deck", "--date", "2026-11-30", "-s", "affinity", "--option", "weight_tags=abc"],
      "strategy 'affinity' option 'weight_tags': 'abc' is not a number; give a number from 0.0 to 1.0"
    )
    expectUsage(
      ["deck", "--date", "2026-11-30", "-s", "affinity", "--option", "nosuch=1"],
      "strategy 'affinity' has no option 'nosuch'; valid options: weight_popularity, "
        + "prior_strength, weight_tags, prior, prior_likes, prior_passes")
    expectUsage(
      ["deck", "--date", "2026-11-30", "--format", "xml"],
      "invalid value 'xml' for '--format'; expected one of: json, jsonl, csv, table")
  }

  @Test func rejectsNeedsSkipBadLines() {
    expectUsage(
      ["deck", "--date", "2026-11-30", "--rejects", "/tmp/never-written.txt"],
      "'--rejects' needs '--skip-bad-lines' (without it a bad line stops the run)")
  }

  // MARK: 65 bad data

  @Test func malformedCatalogJSONHasLineAndColumn() throws {
    let dir = try Self.fixture()
    try dir.write(
      "catalog.json",
      """
      [
        {"id": "a", "name": "A", "category": "x", "price": 100},
        {"id": "b", "name": "B", "category": "y" "price": 100}
      ]
      """)
    expectFailure(
      dir.run(["--config", dir.file("config.json"), "--date", "2026-11-30"]), .dataError,
      "\(dir.file("catalog.json")):3:44: expected ',' or '}' after the value of 'category', found '\"'"
    )
  }

  @Test func duplicateIDNamesBothLines() throws {
    let dir = try Self.fixture()
    try dir.write(
      "catalog.json",
      """
      [
        {"id": "a", "name": "A", "category": "x"},
        {"id": "a", "name": "B", "category": "y"}
      ]
      """)
    expectFailure(
      dir.run(["--config", dir.file("config.json"), "--date", "2026-11-30"]), .dataError,
      "\(dir.file("catalog.json")):3:10: duplicate id 'a' (first used on line 2); ids must be unique"
    )
  }

  @Test func negativePrice() throws {
    let dir = try Self.fixture()
    try dir.write(
      "catalog.json", #"[{"id": "a", "name": "A", "category": "x", "price": -5}]"#)
    expectFailure(
      dir.run(["--config", dir.file("config.json"), "--date", "2026-11-30"]), .dataError,
      "\(dir.file("catalog.json")):1:53: price '-5' must be a number 0 or more")
  }

  @Test func unknownConfigKeyNamesKeyAndFile() throws {
    let dir = try Self.fixture(config: #"{"catalog": "catalog.json", "sed": 1}"#)
    expectFailure(
      dir.run(["--config", dir.file("config.json"), "--date", "2026-11-30"]), .dataError,
      "\(dir.file("config.json")):1:29: unknown field 'sed' in the config (did you mean 'seed'?); known fields: "
        + "catalog, users, history, strategy, strategies, seed, time_zone, format, drag_rule, deck, simulation, "
        + "columns, csv_delimiter, stale_history_days, include, rules"
    )
  }

  @Test func unknownDeckRuleKey() throws {
    let dir = try Self.fixture(config: #"{"catalog": "catalog.json", "deck": {"sise": 5}}"#)
    let result = dir.run(["--config", dir.file("config.json"), "--date", "2026-11-30"])
    #expect(result.code == .dataError)
    #expect(result.stderr.hasPrefix("menudeck: error: \(dir.file("config.json")):1:"))
    #expect(result.stderr.contains("'sise'"))
    #expect(result.stderr.contains("size"))
  }

  @Test func malformedEventLineNamesFileAndLine() throws {
    let dir = try Self.fixture()
    try dir.write(
      "swipes.jsonl",
      Self.goodLine + "\n"
        + #"{"user":"u1","item":"a","swipe":"rigt","at":"2026-11-20T12:00:00Z"}"# + "\n")
    expectFailure(
      dir.run(["--config", dir.file("config.json"), "--date", "2026-11-30"]), .dataError,
      "\(dir.file("swipes.jsonl")):2:34: swipe: 'rigt' is not right or left; "
        + #"use "right" or "left" (lowercase)"#)
  }

  @Test func unknownStrategyInTheConfig() throws {
    let dir = try Self.fixture(config: #"{"catalog": "catalog.json", "strategy": "afinity"}"#)
    expectFailure(
      dir.run(["--config", dir.file("config.json"), "--date", "2026-11-30"]), .dataError,
      "\(dir.file("config.json")): unknown strategy 'afinity' (did you mean 'affinity'?); valid strategies: "
        + "random, popularity, affinity, thompson, ucb, epsilon-greedy, itemknn, blend, diversify, plackett-luce, als, ease, linucb, lints"
    )
  }

  @Test func namedStrategyUsingAnUnknownBuiltin() throws {
    let dir = try Self.fixture(
      config: #"{"catalog": "catalog.json", "strategies": {"x": {"use": "afinity"}}}"#)
    expectFailure(
      dir.run(["--config", dir.file("config.json"), "--date", "2026-11-30"]), .dataError,
      "\(dir.file("config.json")):1:49: strategy 'x' uses 'afinity', which is not a built-in strategy "
        + "(did you mean 'affinity'?); built-ins: random, popularity, affinity, thompson, ucb, epsilon-greedy, itemknn, blend, diversify, plackett-luce, als, ease, linucb, lints"
    )
  }

  @Test func badOptionInTheConfigIsBadData() throws {
    let dir = try Self.fixture(
      config:
        #"{"catalog": "catalog.json", "strategies": {"affinity": {"options": {"nosuch": 1}}}}"#
    )
    let result = dir.run(["--config", dir.file("config.json"), "--date", "2026-11-30"])
    #expect(result.code == .dataError)
    #expect(result.stderr.hasPrefix("menudeck: error: \(dir.file("config.json")):1:"))
    #expect(result.stderr.contains("has no option 'nosuch'"))
  }

  // MARK: 66 missing input

  @Test func missingCatalog() throws {
    let dir = try Self.fixture(config: #"{"catalog": "menu.json"}"#)
    expectFailure(
      dir.run(["--config", dir.file("config.json"), "--date", "2026-11-30"]), .noInput,
      "\(dir.file("menu.json")): no such file (the catalog); check the path or the config")
    #expect(CLIRun(["--config", dir.path + "/config.json"]).code.rawValue == 66)
  }

  @Test func missingHistory() throws {
    let dir = try Self.fixture(
      config: #"{"catalog": "catalog.json", "history": ["swipes.jsonl", "logs/old.jsonl"]}"#)
    expectFailure(
      dir.run(["--config", dir.file("config.json"), "--date", "2026-11-30"]), .noInput,
      "\(dir.file("logs/old.jsonl")): no such file (the swipe log); check the path or the config")
  }

  @Test func missingConfig() throws {
    let dir = try Self.fixture()
    expectFailure(
      dir.run(["--config", dir.file("nope.json"), "--date", "2026-11-30"]), .noInput,
      "\(dir.file("nope.json")): no such file (the config); check the path")
    // Without --config, the default is looked for in the current directory.
    expectFailure(
      dir.run(["--date", "2026-11-30"]), .noInput,
      "Config/menudeck.json: no such file (the default config); run menudeck from the directory "
        + "that holds Config/, or give --config FILE")
  }

  /// Paths inside a config are relative to the config's directory, not the current one.
  @Test func configPathsAreRelativeToTheConfig() throws {
    let dir = try Self.fixture()
    let result = CLIRun(["--config", dir.path + "/config.json", "--date", "2026-11-30", "-q"])
    #expect(result.code == .success)
    #expect(result.stderr == "")
    #expect(result.stdout.contains(#""path":"\#(dir.path)/catalog.json""#))
  }

  // MARK: 74 I/O

  @Test func outIntoAMissingDirectory() throws {
    let dir = try Self.fixture()
    let result = dir.run([
      "--config", dir.file("config.json"), "--date", "2026-11-30", "--out",
      dir.file("no/such/dir/decks.json"),
    ])
    #expect(result.code == .ioError)
    #expect(result.code.rawValue == 74)
    #expect(result.stdout == "")
    #expect(result.stderr.hasPrefix("menudeck: error: \(dir.file("no/such/dir/decks.json")): "))
    #expect(result.stderr.contains("'\(dir.file("no/such/dir"))'"))
    #expect(try dir.names() == ["catalog.json", "config.json", "swipes.jsonl"])
  }

  @Test func outOntoADirectory() throws {
    let dir = try Self.fixture()
    try FileManager.default.createDirectory(
      atPath: dir.path + "/decks", withIntermediateDirectories: false)
    let result = dir.run([
      "--config", dir.file("config.json"), "--date", "2026-11-30", "--out", dir.file("decks"),
    ])
    #expect(result.code == .ioError)
    #expect(result.stdout == "")
    #expect(result.stderr.hasPrefix("menudeck: error: \(dir.file("decks")): "))
    #expect(try dir.names() == ["catalog.json", "config.json", "decks", "swipes.jsonl"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path + "/decks") == [])
  }

  /// `--out` is checked before any input is read, and the message says what to do.
  @Test
  func outIsCheckedFirstAndSaysWhatToDo() throws {
    let dir = try Self.fixture()
    try dir.write(
      "swipes.jsonl", #"{"user":"u1","item":"a","swipe":"rigt","at":"2026-11-20"}"# + "\n")
    try FileManager.default.createDirectory(
      atPath: dir.path + "/decks", withIntermediateDirectories: false)
    let args = [
      "--config", dir.file("config.json"), "--date", "2026-11-30", "--skip-bad-lines",
      "--rejects", dir.file("rejects.jsonl"),
    ]
    let missing = dir.run(args + ["--out", dir.file("no/decks.json")])
    #expect(missing.code == .ioError)
    #expect(
      missing.stderr
        == "menudeck: error: \(dir.file("no/decks.json")): no directory '\(dir.file("no"))'; create it or "
        + "choose another --out\n")
    let directory = dir.run(args + ["--out", dir.file("decks")])
    #expect(directory.code == .ioError)
    #expect(
      directory.stderr
        == "menudeck: error: \(dir.file("decks")): is a directory; give --out a file path\n")
    // Nothing was read, so nothing was rejected.
    #expect(!dir.exists("rejects.jsonl"))
  }

  @Test
  func systemErrorTextIsLowercase() throws {
    let dir = try Self.fixture()
    let result = dir.run([
      "--config", dir.file("config.json"), "--date", "2026-11-30", "--skip-bad-lines",
      "--rejects", dir.file("no/rejects.jsonl"),
    ])
    #expect(result.code == .ioError)
    #expect(
      result.stderr
        == "menudeck: error: \(dir.file("no/rejects.jsonl")): no directory '\(dir.file("no"))'; create it "
        + "or choose another --rejects\n")
    // A system call's own text (strerror) is lowercased into the sentence.
    try FileManager.default.createSymbolicLink(
      atPath: dir.file("loop.json"), withDestinationPath: dir.file("loop.json"))
    let loop = dir.run(["--catalog", dir.file("loop.json"), "--date", "2026-11-30"])
    #expect(loop.code == .ioError)
    #expect(
      loop.stderr
        == "menudeck: error: \(dir.file("loop.json")): cannot open the catalog: too many levels of symbolic "
        + "links\n")
  }

  @Test
  func emptyUserIsAUsageError() {
    expectUsage(
      ["deck", "--date", "2026-11-30", "--user", ""],
      "'--user' needs a diner id, got an empty string")
  }
}
