import DeckCore
import DeckPlugins
import DeckStrategies
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Runs a misbehave.py plugin through learn and two rank batches of diners u1, u2 and finish;
/// returns the error text, the typed fault and the log.
func misbehave(
  _ mode: String, at: Int = 1, timeout: Double = 10
) throws -> (message: String?, fault: PluginFault?, pid: Int32?, log: [String]) {
  let (catalog, history) = try pluginFixture()
  let log = LogLines()
  let strategy: PluginStrategy
  do {
    strategy = try plugin(
      "misbehave.py", name: "mis", environment: ["MISBEHAVE": mode, "MISBEHAVE_AT": String(at)],
      timeout: timeout, log: log)
  } catch {
    return (String(describing: error), nil, nil, log.lines)
  }
  let m = message {
    try strategy.learn(catalog: catalog, history: history)
    for _ in 0..<2 {
      var batch = contexts(history)
      _ = try strategy.score(&batch)
    }
    try strategy.finish()
  }
  return (m, strategy.fault, strategy.processID, log.lines)
}

@Suite(.enabled(if: python3Available, "python3 is not on PATH: the plugin tests need it"))
struct PluginFaultTests {
  static let request1 = "rank request 1 (2 diners, 'u1' to 'u2')"
  static let request2 = "rank request 2 (2 diners, 'u1' to 'u2')"

  @Test(arguments: [
    (
      "results", PluginFault.Kind.wrongCount,
      "returned 1 result for 2 diners; a 'ranked' reply has one result per request, in order"
    ),
    (
      "too-few", .wrongCount,
      "returned 2 scores for 3 candidates of user 'u1'; send one score per candidate, in candidate order"
    ),
    (
      "unknown-id", .badItem,
      "order of user 'u1' names 'no-such-dish', which is not in the catalog; order only the request's candidates"
    ),
    ("duplicate-id", .badItem, "order of user 'u1' lists 'katsu-curry' twice"),
    ("nan", .nonFinite, "returned a non-finite score (nan) for item 'katsu-curry' of user 'u1'"),
    ("inf", .nonFinite, "returned a non-finite score (inf) for item 'katsu-curry' of user 'u1'"),
    (
      "garbage", .malformed,
      "wrote malformed JSON (expected a value at byte 1): 'this is not json'; stdout is for protocol lines only, log to stderr"
    ),
    ("wrong-id", .malformed, "the reply's id is 2, not 1; answer requests in order"),
    (
      "wrong-type", .malformed,
      "replied 'learned' where 'ranked' was expected: '{\"type\":\"learned\",\"id\":1}'"
    ),
    ("error", .reported, "reported an error: model file 'weights.bin' is missing"),
    (
      "exit", .exitedEarly, "exited with status 0 before replying; see its log above"
    ),
    (
      "partial", .exitedEarly,
      "exited with status 0 before replying after writing '{\"type\":\"ranked\",\"id\":' without a newline; see its log above"
    ),
    (
      "crash", .crashed, "was killed by signal 6 (SIGABRT) before replying; see its log above"
    ),
    ("raise", .exitedEarly, "exited with status 1 before replying; see its log above"),
  ])
  func faultInTheFirstRankRequest(mode: String, kind: PluginFault.Kind, text: String) throws {
    let r = try misbehave(mode)
    #expect(r.message == "strategy 'mis': \(Self.request1): \(text)")
    #expect(r.fault == PluginFault(kind, plugin: "mis", request: Self.request1, message: text))
    #expect(isGone(try #require(r.pid, "the plugin did not start: \(r.message ?? "")")))
  }

  @Test(arguments: [
    (
      "not-candidate", PluginFault.Kind.badItem,
      "order of user 'u1' names 'inari', which is not a candidate; order only the request's candidates"
    ),
    (
      "propensity", .nonFinite,
      "propensity 1 of user 'u1' is 1.5; a propensity is a probability in 0...1"
    ),
  ])
  func faultWithTwoCandidates(mode: String, kind: PluginFault.Kind, text: String) throws {
    let (catalog, history) = try pluginFixture()
    let s = try plugin("misbehave.py", name: "mis", environment: ["MISBEHAVE": mode])
    try s.learn(catalog: catalog, history: history)
    var batch = contexts(history, users: ["u1"], candidates: [0, 1])
    let m = message { _ = try s.score(&batch) }
    #expect(m == "strategy 'mis': rank request 1 (1 diner, 'u1'): \(text)")
    #expect(s.fault?.kind == kind)
    #expect(isGone(s.processID))
  }

  @Test func crashMidRunNamesTheSecondRequest() throws {
    let r = try misbehave("crash", at: 2)
    #expect(
      r.message
        == "strategy 'mis': \(Self.request2): was killed by signal 6 (SIGABRT) before replying; see its log above"
    )
    #expect(r.log.prefix(2) == ["rank 1: 2 diners", "rank 2: 2 diners"])
    #expect(isGone(try #require(r.pid, "the plugin did not start: \(r.message ?? "")")))
  }

  @Test func anExceptionsTracebackReachesTheLog() throws {
    let r = try misbehave("raise")
    #expect(r.log.contains("RuntimeError: misbehaving on purpose"))
    #expect(r.log.first == "rank 1: 2 diners")
  }

  @Test func hangIsStoppedAtTheTimeout() throws {
    let r = try misbehave("hang", timeout: 2.5)
    #expect(
      r.message
        == "strategy 'mis': \(Self.request1): no reply within 2.5 s (the per-request timeout); the plugin was stopped. Make it answer faster, send smaller batches, or raise the timeout"
    )
    #expect(r.fault?.kind == .timedOut)
    #expect(isGone(try #require(r.pid, "the plugin did not start: \(r.message ?? "")")))
  }

  @Test func aPluginIgnoringSIGTERMIsKilled() throws {
    let r = try misbehave("ignore-term", timeout: 2.5)
    #expect(r.fault?.kind == .timedOut)
    #expect(isGone(try #require(r.pid, "the plugin did not start: \(r.message ?? "")")))
  }

  @Test func hangInTheHandshake() throws {
    let r = try misbehave("hang-at-hello", timeout: 2.5)
    #expect(
      r.message
        == "strategy 'mis': handshake: no reply within 2.5 s (the per-request timeout); the plugin was stopped. Make it answer faster, send smaller batches, or raise the timeout"
    )
  }

  @Test func exitBeforeTheHandshake() throws {
    let r = try misbehave("exit-at-hello")
    #expect(
      r.message
        == "strategy 'mis': handshake: exited with status 3 before replying; see its log above")
    #expect(r.log == ["leaving before the handshake"])
  }

  @Test func wrongProtocolVersion() throws {
    let r = try misbehave("wrong-protocol")
    #expect(
      r.message == "strategy 'mis': handshake: speaks protocol 99; this menudeck speaks protocol 1")
  }

  @Test func badExitStatusAfterEnd() throws {
    let r = try misbehave("bad-exit")
    #expect(
      r.message
        == "strategy 'mis': end: exited with status 2 after the end message; see its log above")
    #expect(r.fault?.kind == .exitedEarly)
    #expect(isGone(try #require(r.pid, "the plugin did not start: \(r.message ?? "")")))
  }

  @Test func aFaultIsStickyAndLaterCallsRepeatIt() throws {
    let (catalog, history) = try pluginFixture()
    let s = try plugin("misbehave.py", name: "mis", environment: ["MISBEHAVE": "nan"])
    try s.learn(catalog: catalog, history: history)
    var batch = contexts(history)
    let first = message { _ = try s.score(&batch) }
    let second = message { _ = try s.score(&batch) }
    let end = message { try s.finish() }
    #expect(first != nil)
    #expect(second == first)
    #expect(end == first)
  }

  @Test func missingExecutable() throws {
    let path = pluginFolder + "/no_such_plugin.py"
    let m = message {
      _ = try PluginStrategy(.init(name: "ghost", executable: path), log: { _ in })
    }
    #expect(
      m
        == "strategy 'ghost': start-up: '\(path)' does not exist; check the plugin path in the config"
    )
  }

  @Test func notExecutable() throws {
    let dir = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("plugin.py").path
    try writeScript("#!/usr/bin/env python3\n", to: path, mode: 0o644)
    let m = message {
      _ = try PluginStrategy(.init(name: "doc", executable: path), log: { _ in })
    }
    #expect(m == "strategy 'doc': start-up: '\(path)' is not executable; run: chmod +x '\(path)'")
  }

  @Test func directoryInsteadOfExecutable() throws {
    let m = message {
      _ = try PluginStrategy(.init(name: "dir", executable: pluginFolder), log: { _ in })
    }
    #expect(
      m
        == "strategy 'dir': start-up: '\(pluginFolder)' is a directory; give the path of the plugin's executable"
    )
  }

  @Test func missingInterpreter() throws {
    let dir = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("p.sh").path
    try writeScript("#!/no/such/interpreter\n", to: path)
    let m = message { _ = try PluginStrategy(.init(name: "p", executable: path), log: { _ in }) }
    #expect(
      m
        == "strategy 'p': start-up: could not start '\(path)': no such file or directory; check its first line (#!/usr/bin/env python3) names an installed interpreter"
    )
  }
}
