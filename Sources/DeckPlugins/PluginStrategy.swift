import DeckBase
import DeckCore
import DeckStrategies
import Foundation

/// A strategy run by an external program that speaks the menudeck plugin protocol
/// (Config/plugins/PROTOCOL.md) over its stdin and stdout.
///
/// The program is started once, in `init`, which also reads its description and checks the
/// configured options against it. `learn` sends the history (the first one also the catalog),
/// `score` sends one `rank` message per batch of diners, `finish` sends `end` and waits for a
/// clean exit. Every line the plugin writes to stderr goes to `log`, prefixed "[name] ".
///
/// The plugin runs in a process group of its own. Any fault (see `PluginFault.Kind`) ends the
/// whole group (SIGTERM, then SIGKILL after a short grace) and is thrown as
/// `StrategyError.plugin`; the typed fault stays in `fault`, and every later call throws the same
/// error. `finish` and `deinit` end the group as well, so nothing a plugin started outlives it.
package final class PluginStrategy: RankingStrategy {
  /// How to start and talk to a plugin.
  package struct Configuration: Sendable {
    /// The name the plugin is configured under (e.g. "veg-first"): used in `--strategy`, in log
    /// prefixes and in messages.
    package var name: String
    /// Path of the executable (a script needs a `#!` line and the executable bit).
    package var executable: String
    package var arguments: [String]
    /// Options as raw strings, checked against the options the plugin declares.
    package var options: [String: String]
    /// Seconds to wait for each reply (handshake, each learn, each rank batch, end).
    package var timeout: Double
    /// Variables added to the plugin's environment.
    package var environment: [String: String]
    /// Diners' records per `learn_users` line.
    package var usersPerLearnLine: Int

    package init(
      name: String, executable: String, arguments: [String] = [], options: [String: String] = [:],
      timeout: Double = PluginStrategy.defaultTimeout, environment: [String: String] = [:],
      usersPerLearnLine: Int = 1000
    ) {
      self.name = name
      self.executable = executable
      self.arguments = arguments
      self.options = options
      self.timeout = timeout
      self.environment = environment
      self.usersPerLearnLine = usersPerLearnLine
    }
  }

  package static let defaultTimeout = 10.0
  /// Seconds between SIGTERM and SIGKILL when a plugin is stopped.
  static let killGrace = 1.0

  package let configuration: Configuration
  /// The strategy's description: the configured name, and the plugin's summary and options.
  package let description: StrategyDescription
  /// The identifier the plugin gives itself in its `describe` reply.
  package let pluginIdentifier: String
  /// The validated options sent to the plugin.
  package let options: StrategyOptions
  /// The fault that stopped the plugin, if any.
  package private(set) var fault: PluginFault?

  /// The process id of the plugin (it has been reaped once `fault` is set or after `finish`).
  package let processID: Int32
  private let learnUsers: Bool
  private var process: PluginProcess?
  private var catalog: Catalog?
  /// Item ids as JSON strings, by catalog index.
  private var ids: [[UInt8]] = []
  private var indexOfID: [String: Int] = [:]
  private var learned: [String: UserHistory]?
  private var learnCount = 0
  private var rankCount = 0

  /// Starts the plugin and checks its description and the options. Throws a `StrategyError`:
  /// `.plugin` for a plugin fault, `.unknownOption`/`.invalidOption` for options the plugin does
  /// not declare or that do not fit their declared type.
  package init(_ configuration: Configuration, log: @escaping (String) -> Void)
    throws(StrategyError)
  {
    self.configuration = configuration
    let name = configuration.name
    let process = try Self.launch(configuration, log: log)
    let describe: PluginDescription
    do {
      describe = try Self.handshake(process, configuration)
    } catch {
      throw error.strategyError
    }
    let description = StrategyDescription(
      identifier: name, summary: describe.summary, options: describe.options)
    do {
      options = try StrategyOptions(raw: configuration.options, for: description)
    } catch {
      process.stop(grace: Self.killGrace)
      throw error
    }
    self.description = description
    self.pluginIdentifier = describe.identifier
    self.learnUsers = describe.learnUsers
    self.process = process
    self.processID = process.pid
  }

  /// Starts the plugin only to read its description (for `menudeck strategies`), then ends it.
  package static func describe(_ configuration: Configuration, log: @escaping (String) -> Void)
    throws(StrategyError) -> StrategyDescription
  {
    let process = try launch(configuration, log: log)
    do {
      let d = try handshake(process, configuration)
      let deadline = monotonicSeconds() + configuration.timeout
      _ = process.exchange(HostMessage.end.encode(ids: []), deadline: deadline)
      process.closeInput()
      _ = process.waitForExit(deadline: deadline)
      process.stop(grace: killGrace)
      return StrategyDescription(
        identifier: configuration.name, summary: d.summary, options: d.options)
    } catch {
      throw error.strategyError
    }
  }

  deinit {
    process?.stop(grace: Self.killGrace)
  }

  // MARK: - RankingStrategy

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {
    let process = try running()
    guard history.itemCount == catalog.count else {
      throw .failed(
        strategy: configuration.name,
        message:
          "the history covers \(history.itemCount) items but the catalog has \(catalog.count); "
          + "build the history from this catalog")
    }
    if self.catalog == nil {
      self.catalog = catalog
      ids = catalog.items.map {
        var w = PluginJSONWriter()
        w.string($0.id)
        return w.bytes
      }
      for (k, item) in catalog.items.enumerated() { indexOfID[item.id] = k }
      _ = try call(
        process, .start(options: options.all, catalog: catalog), request: "start",
        expect: "ready")
    } else if self.catalog!.count != catalog.count {
      throw .failed(
        strategy: configuration.name,
        message:
          "learn was given a catalog of \(catalog.count) items after one of \(self.catalog!.count); a plugin keeps the catalog of its first learn"
      )
    }
    learnCount += 1
    let request = "learn request \(learnCount)"
    // Per-diner records: all of them the first time, then only the diners whose records changed.
    var users: [(String, UserHistory)] = []
    var full = true
    if learnUsers {
      if let previous = learned, previous.keys.allSatisfy({ history.users[$0] != nil }) {
        full = false
        for id in history.userIDs where previous[id] != history.users[id] {
          users.append((id, history.users[id]!))
        }
      } else {
        users = history.userIDs.map { ($0, history.users[$0]!) }
      }
      learned = history.users
    }
    let perLine = max(1, configuration.usersPerLearnLine)
    let batches = (users.count + perLine - 1) / perLine
    var bytes = HostMessage.learn(
      id: learnCount, full: full, history: history, users: users.count, userBatches: batches
    ).encode(ids: ids)
    var start = 0
    while start < users.count {
      let end = min(users.count, start + perLine)
      bytes += HostMessage.learnUsers(id: learnCount, users: Array(users[start..<end])).encode(
        ids: ids)
      start = end
    }
    let reply = try call(process, bytes: bytes, request: request, expect: "learned")
    try checkID(reply, learnCount, request: request)
  }

  package func score(_ batch: inout [ScoringContext]) throws(StrategyError) -> [Scores] {
    let process = try running()
    guard catalog != nil else {
      throw .failed(strategy: configuration.name, message: "score was called before learn")
    }
    if batch.isEmpty { return [] }
    rankCount += 1
    let first = batch.first!.user.id
    let last = batch.last!.user.id
    let request =
      batch.count == 1
      ? "rank request \(rankCount) (1 diner, '\(first)')"
      : "rank request \(rankCount) (\(batch.count) diners, '\(first)' to '\(last)')"
    let reply = try call(
      process, bytes: HostMessage.rank(id: rankCount, batch: batch).encode(ids: ids),
      request: request, expect: "ranked")
    try checkID(reply, rankCount, request: request)
    guard let results = reply["results"]?.arrayValue else {
      throw fail(.malformed, request, "the reply has no 'results' array")
    }
    guard results.count == batch.count else {
      throw fail(
        .wrongCount, request,
        "returned \(results.count) results for \(batch.count) diners; a 'ranked' reply has one result per request, in order"
      )
    }
    var out: [Scores] = []
    out.reserveCapacity(batch.count)
    for k in 0..<batch.count {
      out.append(try scores(results[k], for: batch[k], request: request))
    }
    return out
  }

  package func finish() throws(StrategyError) {
    guard let process = process else {
      if let fault { throw fault.strategyError }
      return
    }
    self.process = nil
    let deadline = monotonicSeconds() + configuration.timeout
    switch process.exchange(HostMessage.end.encode(ids: ids), deadline: deadline) {
    case .line(let line):
      process.stop(grace: Self.killGrace)
      throw record(
        PluginFault(
          .malformed, plugin: configuration.name, request: "end",
          message: "wrote \(quote(line)) after the end message; a plugin exits without a reply"))
    case .ended, .timedOut:
      break
    }
    process.closeInput()
    guard let termination = process.waitForExit(deadline: deadline) else {
      process.stop(grace: Self.killGrace)
      throw record(
        PluginFault(
          .timedOut, plugin: configuration.name, request: "end",
          message:
            "did not exit within \(seconds(configuration.timeout)) of the end message; it was stopped"
        ))
    }
    // Whatever the plugin left running goes with it.
    process.stop(grace: Self.killGrace)
    guard termination == .exited(0) else {
      throw record(
        PluginFault(
          termination.isSignal ? .crashed : .exitedEarly, plugin: configuration.name,
          request: "end", message: "\(termination) after the end message; see its log above"))
    }
  }

  // MARK: - Replies

  /// One diner's scores from its result; order replies become scores n, n-1, ..., 1.
  private func scores(_ result: JSONValue, for context: ScoringContext, request: String)
    throws(StrategyError) -> Scores
  {
    let user = context.user.id
    let n = context.candidates.count
    let propensities = result["propensities"]
    if let list = result["scores"] {
      guard let values = list.arrayValue else {
        throw fail(
          .malformed, request, "'scores' of user '\(user)' is \(list.typeDescription), not an array"
        )
      }
      guard values.count == n else {
        throw fail(
          .wrongCount, request,
          "returned \(values.count) scores for \(n) candidates of user '\(user)'; send one score per candidate, in candidate order"
        )
      }
      var out = [Double](repeating: 0, count: n)
      for (k, v) in values.enumerated() {
        guard let x = v.doubleValue else {
          throw fail(
            .malformed, request,
            "score \(k + 1) of user '\(user)' is \(v.typeDescription), not a number")
        }
        guard x.isFinite else {
          throw fail(
            .nonFinite, request,
            "returned a non-finite score (\(x)) for item '\(catalog![context.candidates[k]].id)' of user '\(user)'"
          )
        }
        out[k] = x
      }
      let p = try self.propensities(propensities, count: n, user: user, request: request)
      return Scores(out, propensities: p)
    }
    if let list = result["order"] {
      guard let entries = list.arrayValue else {
        throw fail(
          .malformed, request, "'order' of user '\(user)' is \(list.typeDescription), not an array")
      }
      // Candidate index of each catalog index in this request.
      var slot: [Int: Int] = [:]
      for (k, item) in context.candidates.enumerated() { slot[Int(item)] = k }
      var out = [Double](repeating: 0, count: n)
      var seen = [Bool](repeating: false, count: n)
      var position = [Int](repeating: 0, count: n)
      for (rank, entry) in entries.enumerated() {
        guard let id = entry.stringValue else {
          throw fail(
            .malformed, request,
            "order entry \(rank + 1) of user '\(user)' is \(entry.typeDescription), not an item id")
        }
        guard let index = indexOfID[id], let k = slot[index] else {
          let what = indexOfID[id] == nil ? "not in the catalog" : "not a candidate"
          throw fail(
            .badItem, request,
            "order of user '\(user)' names '\(id)', which is \(what); order only the request's candidates"
          )
        }
        guard !seen[k] else {
          throw fail(.badItem, request, "order of user '\(user)' lists '\(id)' twice")
        }
        seen[k] = true
        position[k] = rank
        out[k] = Double(n - rank)
      }
      guard entries.count == n else {
        let missing = seen.firstIndex(of: false).map { catalog![context.candidates[$0]].id } ?? ""
        throw fail(
          .wrongCount, request,
          "order of user '\(user)' lists \(entries.count) of \(n) candidates (missing '\(missing)'); order every candidate"
        )
      }
      var p = try self.propensities(propensities, count: n, user: user, request: request)
      if let byRank = p { p = position.map { byRank[$0] } }
      return Scores(out, propensities: p)
    }
    throw fail(.malformed, request, "the result of user '\(user)' has neither 'scores' nor 'order'")
  }

  private func propensities(_ value: JSONValue?, count n: Int, user: String, request: String)
    throws(StrategyError) -> [Double]?
  {
    guard let value, !value.isNull else { return nil }
    guard let list = value.arrayValue else {
      throw fail(
        .malformed, request,
        "'propensities' of user '\(user)' is \(value.typeDescription), not an array")
    }
    guard list.count == n else {
      throw fail(
        .wrongCount, request,
        "returned \(list.count) propensities for \(n) candidates of user '\(user)'")
    }
    var out: [Double] = []
    out.reserveCapacity(n)
    for (k, v) in list.enumerated() {
      guard let x = v.doubleValue, x.isFinite, x >= 0, x <= 1 else {
        throw fail(
          .nonFinite, request,
          "propensity \(k + 1) of user '\(user)' is \(v.doubleValue.map { String($0) } ?? v.typeDescription); a propensity is a probability in 0...1"
        )
      }
      out.append(x)
    }
    return out
  }

  // MARK: - Machinery

  private func running() throws(StrategyError) -> PluginProcess {
    if let fault { throw fault.strategyError }
    guard let process else {
      throw .failed(strategy: configuration.name, message: "used after finish")
    }
    return process
  }

  /// Ends the process, remembers the fault and returns it as the error to throw.
  private func record(_ fault: PluginFault) -> StrategyError {
    process?.stop(grace: Self.killGrace)
    process = nil
    self.fault = fault
    return fault.strategyError
  }

  private func fail(_ kind: PluginFault.Kind, _ request: String, _ message: String) -> StrategyError
  {
    record(PluginFault(kind, plugin: configuration.name, request: request, message: message))
  }

  private func call(
    _ process: PluginProcess, _ message: HostMessage, request: String, expect: String
  ) throws(StrategyError) -> JSONValue {
    try call(process, bytes: message.encode(ids: ids), request: request, expect: expect)
  }

  private func call(_ process: PluginProcess, bytes: [UInt8], request: String, expect: String)
    throws(StrategyError) -> JSONValue
  {
    do {
      return try Self.exchange(process, bytes, request: request, expect: expect, configuration)
    } catch {
      fault = error
      self.process = nil
      throw error.strategyError
    }
  }

  private func checkID(_ reply: JSONValue, _ id: Int, request: String) throws(StrategyError) {
    guard reply["id"]?.doubleValue == Double(id) else {
      let got = reply["id"]?.text ?? "missing"
      throw fail(
        .malformed, request, "the reply's id is \(got), not \(id); answer requests in order")
    }
  }

  private static func launch(_ c: Configuration, log: @escaping (String) -> Void)
    throws(StrategyError) -> PluginProcess
  {
    func fault(_ message: String) -> StrategyError {
      PluginFault(.notStartable, plugin: c.name, request: "start-up", message: message)
        .strategyError
    }
    let path = c.executable
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw fault("'\(path)' does not exist; check the plugin path in the config")
    }
    guard !isDirectory.boolValue else {
      throw fault("'\(path)' is a directory; give the path of the plugin's executable")
    }
    guard access(path, X_OK) == 0 else {
      throw fault("'\(path)' is not executable; run: chmod +x '\(path)'")
    }
    let prefix = "[\(c.name)] "
    do {
      return try PluginProcess(
        executable: path, arguments: c.arguments, environment: c.environment,
        log: { log(prefix + $0) })
    } catch {
      let hint =
        error.code == ENOENT || error.code == ENOEXEC
        ? "; check its first line (#!/usr/bin/env python3) names an installed interpreter"
        : error.code == ETXTBSY
          ? "; another process still has it open for writing: let it finish, then run again" : ""
      throw fault("could not start '\(path)': \(error.text)\(hint)")
    }
  }

  /// hello -> describe.
  private static func handshake(_ process: PluginProcess, _ c: Configuration)
    throws(PluginFault) -> PluginDescription
  {
    let request = "handshake"
    let reply = try exchange(
      process, HostMessage.hello(name: c.name).encode(ids: []), request: request,
      expect: "describe", c)
    func bad(_ message: String) -> PluginFault {
      process.stop(grace: killGrace)
      return PluginFault(.malformed, plugin: c.name, request: request, message: message)
    }
    guard let version = reply["protocol"]?.doubleValue else {
      throw bad("the describe reply has no 'protocol' number")
    }
    guard Int(exactly: version) == pluginProtocolVersion else {
      throw bad(
        "speaks protocol \(version.formatted()); this menudeck speaks protocol \(pluginProtocolVersion)"
      )
    }
    guard let identifier = reply["identifier"]?.stringValue, !identifier.isEmpty else {
      throw bad("the describe reply has no 'identifier' string")
    }
    guard let summary = reply["summary"]?.stringValue else {
      throw bad("the describe reply has no 'summary' string")
    }
    var options: [OptionSpec] = []
    for (k, entry) in (reply["options"]?.arrayValue ?? []).enumerated() {
      guard let name = entry["name"]?.stringValue, !name.isEmpty else {
        throw bad("option \(k + 1) of the describe reply has no 'name'")
      }
      guard let typeName = entry["type"]?.stringValue, let type = OptionType(rawValue: typeName)
      else {
        throw bad(
          "option '\(name)' has type \(entry["type"]?.text ?? "missing"); use double, int, bool or string"
        )
      }
      let meaning = entry["meaning"]?.stringValue ?? ""
      let value: OptionValue
      switch (type, entry["default"]?.kind) {
      case (.double, .number(let v, _)?) where v.isFinite: value = .double(v)
      case (.int, .number(let v, _)?) where Int(exactly: v) != nil: value = .int(Int(v))
      case (.bool, .bool(let v)?): value = .bool(v)
      case (.string, .string(let v)?): value = .string(v)
      default: throw bad("option '\(name)' has no 'default' of type \(typeName)")
      }
      var range: ClosedRange<Double>?
      if let lo = entry["min"]?.doubleValue, let hi = entry["max"]?.doubleValue, lo <= hi {
        range = lo...hi
      }
      options.append(OptionSpec(name, type, default: value, range: range, meaning))
    }
    var learnUsers = false
    if case .bool(let b)? = reply["learn_users"]?.kind { learnUsers = b }
    return PluginDescription(
      protocolVersion: Int(version), identifier: identifier, summary: summary, options: options,
      learnUsers: learnUsers)
  }

  /// Sends `bytes`, reads one reply line and checks its type. On any fault the process is
  /// stopped before the fault is thrown.
  private static func exchange(
    _ process: PluginProcess, _ bytes: [UInt8], request: String, expect: String,
    _ c: Configuration
  ) throws(PluginFault) -> JSONValue {
    func fault(_ kind: PluginFault.Kind, _ message: String) -> PluginFault {
      process.stop(grace: killGrace)
      return PluginFault(kind, plugin: c.name, request: request, message: message)
    }
    switch process.exchange(bytes, deadline: monotonicSeconds() + c.timeout) {
    case .timedOut:
      throw fault(
        .timedOut,
        "no reply within \(seconds(c.timeout)) (the per-request timeout); the plugin was stopped. "
          + "Make it answer faster, send smaller batches, or raise the timeout")
    case .ended:
      let pending = process.pendingOutput
      let termination =
        process.waitForExit(deadline: monotonicSeconds() + killGrace)
        ?? process.stop(grace: killGrace)
      let partial = pending.isEmpty ? "" : " after writing \(quote(pending)) without a newline"
      let kind: PluginFault.Kind = termination.isSignal ? .crashed : .exitedEarly
      throw fault(kind, "\(termination) before replying\(partial); see its log above")
    case .line(let line):
      let reply: JSONValue
      do {
        reply = try PluginJSON.parse(line)
      } catch {
        throw fault(
          .malformed,
          "wrote malformed JSON (\(error.message) at byte \(error.offset + 1)): \(quote(line)); "
            + "stdout is for protocol lines only, log to stderr")
      }
      guard let type = reply["type"]?.stringValue else {
        throw fault(.malformed, "wrote a line without a 'type': \(quote(line))")
      }
      if type == "error" {
        let text = reply["message"]?.stringValue ?? "(no message)"
        throw fault(.reported, "reported an error: \(text)")
      }
      guard type == expect else {
        throw fault(.malformed, "replied '\(type)' where '\(expect)' was expected: \(quote(line))")
      }
      return reply
    }
  }
}

extension PluginProcess.Termination {
  var isSignal: Bool {
    if case .signaled = self { return true }
    return false
  }
}

/// The first bytes of a line, quoted, for messages.
func quote(_ bytes: [UInt8], limit: Int = 60) -> String {
  let head = String(decoding: bytes.prefix(limit), as: UTF8.self)
  var escaped = ""
  for scalar in head.unicodeScalars {
    switch scalar {
    case "\n": escaped += "\\n"
    case "\t": escaped += "\\t"
    case "'": escaped += "\\'"
    default:
      escaped += scalar.value < 0x20 ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
    }
  }
  return "'" + escaped + (bytes.count > limit ? "...'" : "'")
}

func seconds(_ s: Double) -> String {
  s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
}
