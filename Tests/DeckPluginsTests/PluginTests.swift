import DeckCore
import DeckPlugins
import DeckStrategies
import Foundation
import Testing

@testable import DeckBase

#if canImport(Glibc)
  import Glibc
#endif

/// The repository's Config/plugins folder (the example plugin the bundled config uses).
let pluginFolder = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .appendingPathComponent("Config/plugins").path

/// Tests/Fixtures/plugins: plugins that exist for the tests only (misbehave.py).
let fixturePluginFolder = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent()
  .appendingPathComponent("Fixtures/plugins").path

/// Whether `python3` is on PATH (the plugin tests are skipped without it).
let python3Available: Bool = {
  let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
  return path.split(separator: ":").contains { access("\($0)/python3", X_OK) == 0 }
}()

/// Collects the plugin's forwarded stderr lines.
final class LogLines: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: [String] = []

  var lines: [String] { lock.withLock { stored } }
  func append(_ line: String) { lock.withLock { stored.append(line) } }
}

/// A plugin from Tests/Fixtures/plugins, or else from Config/plugins.
func plugin(
  _ file: String, name: String, options: [String: String] = [:],
  environment: [String: String] = [:], timeout: Double = 10, log: LogLines = LogLines()
) throws -> PluginStrategy {
  try PluginStrategy(
    PluginStrategy.Configuration(
      name: name, executable: pluginPath(file), options: options, timeout: timeout,
      environment: environment),
    log: { log.append($0) })
}

/// The path of a test plugin: a fixture when there is one of that name, else the example.
func pluginPath(_ file: String) -> String {
  let fixture = fixturePluginFolder + "/" + file
  return FileManager.default.fileExists(atPath: fixture) ? fixture : pluginFolder + "/" + file
}

/// Three dishes (one vegetarian, one vegan and vegetarian, one neither) and a small history.
func pluginFixture() throws -> (Catalog, History) {
  let catalog = try Catalog(items: [
    MenuItem(id: "katsu-curry", name: "Katsu curry", category: "rice", price: 950),
    MenuItem(
      id: "veg-gyoza", name: "Vegetable gyoza", category: "side", tags: ["fried"],
      allergens: ["wheat"], diets: ["vegetarian"]),
    MenuItem(
      id: "inari", name: "Inari sushi", category: "rice", price: 400,
      diets: ["vegan", "vegetarian"]),
  ])
  var builder = HistoryBuilder(itemCount: 3, cutoff: DeckDate.parse("2026-01-10"))
  let day = DeckDate.parse("2026-01-05")!.daysSinceEpoch
  let u1 = builder.userSlot("u1")
  let u2 = builder.userSlot("u2")
  // katsu-curry: R=3, L=1; veg-gyoza: R=0, L=2; inari: R=1, L=0.
  for _ in 0..<3 { builder.add(user: u2, item: 0, swipe: .right, day: day) }
  builder.add(user: u1, item: 0, swipe: .left, day: day)
  builder.add(user: u1, item: 1, swipe: .left, day: day)
  builder.add(user: u1, item: 1, swipe: .left, day: day + 1)
  builder.add(user: u1, item: 2, swipe: .right, day: day)
  return (catalog, try builder.build())
}

func contexts(_ history: History, users: [String] = ["u1", "u2"], candidates: [Int32] = [0, 1, 2])
  -> [ScoringContext]
{
  users.map {
    ScoringContext(
      user: UserProfile(id: $0), userHistory: history.users[$0],
      date: DeckDate.parse("2026-01-10")!, candidates: candidates, seed: 42)
  }
}

/// Whether a process id no longer names a process (it was reaped).
func isGone(_ pid: Int32) -> Bool { kill(pid, 0) == -1 && errno == ESRCH }

/// A new empty folder under the temporary directory.
func temporaryFolder() throws -> URL {
  let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
    "menudeck-plugin-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
  try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  return dir
}

/// Writes a new file that a test is going to execute (a plugin script), with `mode` exactly
/// (whatever the umask), and closes it before returning. Every test that writes a file to run
/// uses this, never Foundation's `write(toFile:)`/`write(to:)`: those open without
/// `O_CLOEXEC`, so a process that another test starts meanwhile inherits the writable
/// descriptor and keeps it as long as it lives, and exec of the script then fails with "text
/// file busy" (ETXTBSY). Here the descriptor is close-on-exec from the start.
func writeScript(_ text: String, to path: String, mode: mode_t = 0o755) throws {
  let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
  guard fd >= 0 else { throw SystemError(path: path, action: "cannot create", code: errno) }
  let bytes = Array(text.utf8)
  var done = 0
  var failure: SystemError?
  while done < bytes.count {
    let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
    if n < 0 && errno == EINTR { continue }
    guard n > 0 else {
      failure = SystemError(path: path, action: "cannot write", code: errno)
      break
    }
    done += n
  }
  if failure == nil, fchmod(fd, mode) != 0 {
    failure = SystemError(path: path, action: "cannot set the mode of", code: errno)
  }
  if close(fd) != 0, failure == nil {
    failure = SystemError(path: path, action: "cannot close", code: errno)
  }
  if let failure { throw failure }
}

@Suite(.enabled(if: python3Available, "python3 is not on PATH: the plugin tests need it"))
struct PluginTests {
  @Test func vegFirstDescribesItself() throws {
    let s = try plugin("veg_first.py", name: "veg-first")
    #expect(s.description.identifier == "veg-first")
    #expect(s.pluginIdentifier == "veg-first")
    #expect(s.description.options.map(\.name) == ["boost", "diet", "personal"])
    #expect(s.description.options[0].defaultValue == .double(1))
    #expect(s.description.options[0].range == 0...100)
    #expect(s.description.options[1].defaultValue == .string("vegetarian"))
    try s.finish()
    #expect(isGone(s.processID))
  }

  /// katsu-curry R=3 L=1, veg-gyoza R=0 L=2, inari R=1 L=0; u1 swiped katsu left once,
  /// veg-gyoza left twice, inari right once; u2 swiped katsu right three times.
  @Test func vegFirstScoresMatchTheDocumentedFormula() throws {
    let (catalog, history) = try pluginFixture()
    let log = LogLines()
    let s = try plugin("veg_first.py", name: "veg-first", log: log)
    try s.learn(catalog: catalog, history: history)
    var batch = contexts(history)
    let scores = try s.score(&batch)
    // u1: katsu 4/6 + 0 + 0.1*(0-1); gyoza 1/4 + 1 + 0.1*(0-2); inari 2/3 + 1 + 0.1*(1-0).
    let u1 = [4.0 / 6 - 0.1, 0.25 + 1 - 0.2, 2.0 / 3 + 1 + 0.1]
    // u2: katsu 4/6 + 0.1*3; gyoza 1/4 + 1; inari 2/3 + 1.
    let u2 = [4.0 / 6 + 0.3, 1.25, 2.0 / 3 + 1]
    #expect(scores.count == 2)
    for (got, want) in zip(scores[0].values + scores[1].values, u1 + u2) {
      #expect(abs(got - want) < 1e-12)
    }
    #expect(scores[0].propensities == nil)
    try s.finish()
    #expect(log.lines == ["3 dishes, 2 vegetarian"])
  }

  @Test func vegFirstOptionsChangeTheScores() throws {
    let (catalog, history) = try pluginFixture()
    let s = try plugin(
      "veg_first.py", name: "veg-first",
      options: ["boost": "0.5", "diet": "vegan", "personal": "0"])
    try s.learn(catalog: catalog, history: history)
    var batch = contexts(history, users: ["u1"])
    let scores = try s.score(&batch)
    #expect(scores[0].values == [4.0 / 6, 0.25, 2.0 / 3 + 0.5])
    try s.finish()
  }

  @Test func learnAgainUsesTheNewCounts() throws {
    let (catalog, history) = try pluginFixture()
    let s = try plugin("veg_first.py", name: "veg-first", options: ["personal": "0"])
    try s.learn(catalog: catalog, history: History(itemCount: 3))
    var batch = contexts(history, users: ["nobody"])
    #expect(try s.score(&batch)[0].values == [0.5, 1.5, 1.5])
    try s.learn(catalog: catalog, history: history)
    #expect(try s.score(&batch)[0].values == [4.0 / 6, 1.25, 2.0 / 3 + 1])
    try s.finish()
  }

  @Test func unknownOptionNamesTheKey() throws {
    let m = message { _ = try plugin("veg_first.py", name: "veg-first", options: ["bost": "2"]) }
    #expect(
      m
        == "strategy 'veg-first' has no option 'bost' (did you mean 'boost'?); valid options: boost, diet, personal"
    )
  }

  @Test func optionOutOfTheDeclaredRange() throws {
    let m = message { _ = try plugin("veg_first.py", name: "veg-first", options: ["boost": "-1"]) }
    #expect(
      m
        == "strategy 'veg-first' option 'boost': '-1' is out of range: give a number from 0.0 to 100.0"
    )
  }

  @Test func orderRepliesBecomeScoresAndPropensitiesFollowTheirItems() throws {
    let (catalog, history) = try pluginFixture()
    let s = try plugin("misbehave.py", name: "mis", options: ["mode": "order"])
    try s.learn(catalog: catalog, history: history)
    var batch = contexts(history, users: ["u1"], candidates: [0, 2])
    let scores = try s.score(&batch)
    // Reverse order: inari first (score 2), katsu-curry second (score 1).
    #expect(scores == [Scores([1, 2], propensities: [0.5, 0.5])])
    try s.finish()
  }

  @Test func stderrIsForwardedWithThePluginName() throws {
    let (catalog, history) = try pluginFixture()
    let log = LogLines()
    let s = try plugin("misbehave.py", name: "chatty", log: log)
    try s.learn(catalog: catalog, history: history)
    var batch = contexts(history)
    _ = try s.score(&batch)
    _ = try s.score(&batch)
    try s.finish()
    #expect(log.lines == ["rank 1: 2 diners", "rank 2: 2 diners"])
  }

  /// A plugin that logs far more than a socket buffer holds while menudeck writes a large
  /// request: neither side blocks the other, and no line is lost.
  @Test func heavyLoggingDuringALargeRequest() throws {
    let (catalog, history) = try pluginFixture()
    let log = LogLines()
    let s = try plugin("misbehave.py", name: "loud", environment: ["MISBEHAVE": "flood"], log: log)
    try s.learn(catalog: catalog, history: history)
    var batch = contexts(history, users: (0..<5000).map { "diner\($0)" })
    #expect(try s.score(&batch).count == 5000)
    try s.finish()
    let lines = log.lines
    #expect(lines.count == 20001)
    #expect(lines.first == "rank 1: 5000 diners")
    #expect(lines.last == "flood 19999")
  }

  @Test func describeOnlyStartsAndEnds() throws {
    let d = try PluginStrategy.describe(
      .init(name: "veg-first", executable: pluginFolder + "/veg_first.py"), log: { _ in })
    #expect(d.identifier == "veg-first")
    #expect(d.summary.hasPrefix("pick rate (R+1)/(R+L+2)"))
  }

  @Test func emptyBatchSendsNothing() throws {
    let (catalog, history) = try pluginFixture()
    let log = LogLines()
    let s = try plugin("misbehave.py", name: "mis", log: log)
    try s.learn(catalog: catalog, history: history)
    var batch: [ScoringContext] = []
    #expect(try s.score(&batch).isEmpty)
    try s.finish()
    #expect(log.lines.isEmpty)
  }
}

@Suite(.enabled(if: python3Available, "python3 is not on PATH: the plugin tests need it"))
struct PluginLearnTests {
  @Test func learnSendsAllDinersFirstThenOnlyTheChangedOnes() throws {
    let (catalog, history) = try pluginFixture()
    let log = LogLines()
    let s = try PluginStrategy(
      .init(
        name: "mis", executable: pluginPath("misbehave.py"),
        environment: ["MISBEHAVE_LEARN_USERS": "1"], usersPerLearnLine: 1),
      log: { log.append($0) })
    try s.learn(catalog: catalog, history: history)
    // A day later u2 swiped inari left; u1 did nothing.
    var builder = HistoryBuilder(itemCount: 3)
    let day = DeckDate.parse("2026-01-05")!.daysSinceEpoch
    let u1 = builder.userSlot("u1")
    let u2 = builder.userSlot("u2")
    for _ in 0..<3 { builder.add(user: u2, item: 0, swipe: .right, day: day) }
    builder.add(user: u1, item: 0, swipe: .left, day: day)
    builder.add(user: u1, item: 1, swipe: .left, day: day)
    builder.add(user: u1, item: 1, swipe: .left, day: day + 1)
    builder.add(user: u1, item: 2, swipe: .right, day: day)
    builder.add(user: u2, item: 2, swipe: .left, day: day + 5)
    try s.learn(catalog: catalog, history: builder.build())
    try s.finish()
    #expect(
      log.lines == [
        "learn 1: full, 7 events, 2 users in 2 lines: "
          + "[[\"u1\", [[\"katsu-curry\", 0, 1, null, \"2026-01-05\"], "
          + "[\"veg-gyoza\", 0, 2, null, \"2026-01-06\"], [\"inari\", 1, 0, \"2026-01-05\", null]]], "
          + "[\"u2\", [[\"katsu-curry\", 3, 0, \"2026-01-05\", null]]]]",
        "learn 2: changes, 8 events, 1 users in 1 lines: "
          + "[[\"u2\", [[\"katsu-curry\", 3, 0, \"2026-01-05\", null], "
          + "[\"inari\", 0, 1, null, \"2026-01-10\"]]]]",
      ])
  }
}

@Suite(.enabled(if: python3Available, "python3 is not on PATH: the plugin tests need it"))
struct PluginFallbackTests {
  @Test func aFaultMidRunSendsThatBatchAndLaterOnesToTheFallback() throws {
    let (catalog, history) = try pluginFixture()
    let popularity = try StrategyRegistry.make("popularity")
    let s = FallbackStrategy(
      primary: try plugin(
        "misbehave.py", name: "mis", environment: ["MISBEHAVE": "crash", "MISBEHAVE_AT": "2"]),
      fallback: popularity)
    try s.learn(catalog: catalog, history: history)
    var batch = contexts(history)
    #expect(try s.score(&batch).map(\.values) == [[0, 0, 0], [0, 0, 0]])
    #expect(s.warning == nil)
    let expected = try popularity.score(&batch)
    #expect(try s.score(&batch) == expected)
    #expect(try s.score(&batch) == expected)
    try s.finish()
    #expect(s.fallbackDecks == 4)
    #expect(
      s.warning
        == "strategy 'mis': rank request 2 (2 diners, 'u1' to 'u2'): was killed by signal 6 (SIGABRT) before replying; see its log above; 4 decks came from the fallback 'popularity'"
    )
  }

  @Test func aPluginThatCannotStartGivesEveryDeckToTheFallback() throws {
    let (catalog, history) = try pluginFixture()
    let s = FallbackStrategy(
      name: "ghost",
      starting: { () throws(StrategyError) -> any RankingStrategy in
        try PluginStrategy(
          .init(name: "ghost", executable: "Config/plugins/ghost.py"), log: { _ in })
      }, fallback: try StrategyRegistry.make("random"))
    try s.learn(catalog: catalog, history: history)
    var batch = contexts(history, users: ["u1"])
    _ = try s.score(&batch)
    try s.finish()
    #expect(
      s.warning
        == "strategy 'ghost': start-up: 'Config/plugins/ghost.py' does not exist; check the plugin path in the config; 1 deck came from the fallback 'random'"
    )
  }
}

@Suite(.enabled(if: python3Available, "python3 is not on PATH: the plugin tests need it"))
struct PluginProtocolDocumentTests {
  /// The minimal plugin printed in docs/plugins.md (the protocol) works as printed.
  @Test func theMinimalPluginOfTheDocumentRuns() throws {
    let protocolPage = URL(fileURLWithPath: pluginFolder).deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("docs/plugins.md")
    let text = try String(contentsOf: protocolPage, encoding: .utf8)
    let marker = "## A minimal plugin (Python)\n\n```python\n"
    let start = try #require(text.range(of: marker)).upperBound
    let end = try #require(text[start...].range(of: "```")).lowerBound
    let dir = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("zero.py").path
    try writeScript(String(text[start..<end]), to: path)
    let (catalog, history) = try pluginFixture()
    let s = try PluginStrategy(.init(name: "zero", executable: path), log: { _ in })
    #expect(s.pluginIdentifier == "zero")
    try s.learn(catalog: catalog, history: history)
    var batch = contexts(history)
    #expect(try s.score(&batch).map(\.values) == [[0, 0, 0], [0, 0, 0]])
    try s.finish()
  }

  /// Every mode misbehave.py documents is one the fault tests use, and the other way round.
  @Test func misbehaveDocumentsItsModes() throws {
    let text = try String(contentsOfFile: pluginPath("misbehave.py"), encoding: .utf8)
    let documented = text.split(separator: "\n")
      .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") && $0.count > 18 }
      .map { String($0.dropFirst(2).prefix { $0 != " " }) }
    #expect(
      Set(documented) == [
        "exit-at-hello", "hang-at-hello", "wrong-protocol", "exit", "crash", "raise", "hang",
        "ignore-term", "garbage", "partial", "error", "wrong-id", "wrong-type", "results",
        "too-few", "unknown-id", "duplicate-id", "not-candidate", "propensity", "nan", "inf",
        "flood", "order", "bad-exit", "leave-child", "fork-exit",
      ])
  }
}
