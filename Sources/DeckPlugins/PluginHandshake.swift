import DeckBase
import DeckCore
import DeckStrategies
import Foundation

/// Starting a plugin: checking its executable, spawning it, and the `hello` -> `describe`
/// handshake that reads what it declares.
extension PluginStrategy {
  /// Checks the executable and spawns it; its stderr lines go to `log` as they are (whoever
  /// configured the plugin knows its name, and says whose lines they are).
  static func launch(_ c: Configuration, log: @escaping (String) -> Void)
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
    do {
      return try PluginProcess(
        executable: path, arguments: c.arguments, environment: c.environment, log: log)
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
  static func handshake(_ process: PluginProcess, _ c: Configuration)
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
    var minor = 0
    if let value = reply["minor"], !value.isNull {
      guard let m = value.doubleValue, m >= 0, m <= Double(Int32.max), m == m.rounded() else {
        throw bad(
          "the describe reply's 'minor' is \(value.text); give the minor version of protocol"
            + " \(pluginProtocolVersion) the plugin speaks as a whole number (0, or"
            + " \(pluginMinorVersion) for ranking distributions), or leave it out for 0")
      }
      minor = Int(m)
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
      protocolVersion: Int(version), minorVersion: minor, identifier: identifier,
      summary: summary, options: options, learnUsers: learnUsers)
  }
}
