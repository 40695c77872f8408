import DeckBase
import DeckCore
import DeckStrategies
import Foundation

/// A strategy run by an external program that speaks the menudeck plugin protocol
/// (docs/plugins.md) over its stdin and stdout.
///
/// The program is started once, in `init`, which also reads its description and checks the
/// configured options against it. `learn` sends the history (the first one also the catalog),
/// `score` sends one `rank` message per batch of diners, `finish` sends `end` and waits for a
/// clean exit. A plugin of minor version 1 (`minorVersion`) is asked for each diner's ranking
/// distribution when the batch's contexts want it (`ScoringContext.wantsPolicy`), and may give
/// prefix propensities; see `scores(_:for:request:asked:)` for how they become `Scores`.
/// Every line the plugin writes to stderr goes to `log`, without its newline (the command line
/// prints it as the named plugin's, `menudeck: plugin NAME: ...`).
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
  /// The protocol's minor version spoken with the plugin: the one it declares (`"minor"`, 0
  /// when absent), at most menudeck's own (`pluginMinorVersion`).
  package let minorVersion: Int
  /// The validated options sent to the plugin.
  package let options: StrategyOptions
  /// The fault that stopped the plugin, if any.
  package private(set) var fault: PluginFault?

  /// The process id of the plugin (it has been reaped once `fault` is set or after `finish`).
  package let processID: Int32
  private let learnUsers: Bool
  private var process: PluginProcess?
  private(set) var catalog: Catalog?
  /// Item ids as JSON strings, by catalog index.
  private var ids: [[UInt8]] = []
  /// Catalog indices by the bytes of the item ids (`IDKey`), for the plugin's replies.
  private(set) var indexOfID: [IDKey: Int] = [:]
  private var learned: UserHistories?
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
    self.minorVersion = min(describe.minorVersion, pluginMinorVersion)
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
        var w = JSONWriter()
        w.string($0.id)
        return w.bytes
      }
      for (k, item) in catalog.items.enumerated() { indexOfID[IDKey(item.id)] = k }
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
      if let previous = learned, previous.values.allSatisfy({ history.users[$0.id] != nil }) {
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
    // Distributions are asked of a plugin that can give them, when the evaluation wants them.
    let wantPolicy = minorVersion >= 1 && batch.contains { $0.wantsPolicy }
    let reply = try call(
      process,
      bytes: HostMessage.rank(id: rankCount, batch: batch, wantPolicy: wantPolicy).encode(
        ids: ids),
      request: request, expect: "ranked")
    try checkID(reply, rankCount, request: request)
    guard let results = reply["results"]?.arrayValue else {
      throw fail(.malformed, request, "the reply has no 'results' array")
    }
    guard results.count == batch.count else {
      throw fail(
        .wrongCount, request,
        "returned \(TextLayout.plural(results.count, "result")) for "
          + "\(TextLayout.plural(batch.count, "diner")); a 'ranked' reply has one result per "
          + "request, in order"
      )
    }
    var out: [Scores] = []
    out.reserveCapacity(batch.count)
    for k in 0..<batch.count {
      out.append(try scores(results[k], for: batch[k], request: request, asked: wantPolicy))
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

  /// `record` for a fault of this plugin found in the reply to `request`.
  func fail(_ kind: PluginFault.Kind, _ request: String, _ message: String) -> StrategyError {
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
}
