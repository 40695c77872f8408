import DeckBase
import DeckIO
import DeckStrategies

extension NamedStrategy {
  /// The config's "strategies": named configurations by name, each a built-in (`use`, checked
  /// with its options here) or a plugin (`plugin`, whose options it checks when it starts).
  package static func parseAll(_ v: JSONValue, _ files: ConfigFiles) throws(DeckIOError)
    -> [String: NamedStrategy]
  {
    var strategies: [String: NamedStrategy] = [:]
    let object = try v.requireObject(field: "strategies")
    for member in object.members {
      strategies[member.key] = try parse(member.value, name: member.key, files)
    }
    return strategies
  }

  /// One entry of "strategies".
  package static func parse(_ entry: JSONValue, name: String, _ files: ConfigFiles)
    throws(DeckIOError)
    -> NamedStrategy
  {
    _ = try entry.requireObject("strategy '\(name)'")
    try entry.rejectUnknownKeys(
      allowed: ["use", "plugin", "options", "timeout"], in: "strategy '\(name)'")
    var options: [String: String] = [:]
    if let o = try entry.optionalValue(at: "options") {
      for option in try o.requireObject("the options of strategy '\(name)'").members {
        options[option.key] = try optionText(option.value, key: option.key)
      }
    }
    if let pluginValue = try entry.optionalValue(at: "plugin") {
      // An external plugin: its options are checked when it starts and describes itself.
      if entry["use"] != nil {
        throw entry.error("strategy '\(name)' has both 'use' and 'plugin'; keep one of them")
      }
      let path = try files.relative(pluginValue, "plugin")
      var timeout: Double?
      if let t = try entry.optionalValue(at: "timeout") {
        let expected = "a number of seconds above 0, up to 3600"
        guard let d = t.doubleValue, let text = t.numberText else {
          throw t.error("'timeout' is \(t.typeDescription), not a number; give \(expected)")
        }
        guard d > 0, d <= 3600 else {
          throw t.error("'timeout': " + RangeText.outOfRange(text, give: expected))
        }
        timeout = d
      }
      return NamedStrategy(
        name: name, use: name, options: options, plugin: path, timeout: timeout)
    }
    if entry["timeout"] != nil {
      throw entry.error("'timeout' applies to plugins only; strategy '\(name)' is a built-in")
    }
    let use = try entry.optionalString(at: "use") ?? name
    guard let description = StrategyRegistry.description(of: use) else {
      throw .malformed(
        entry.location,
        message: "strategy '\(name)' uses '\(use)', which is not a built-in strategy"
          + didYouMean(use, StrategyRegistry.identifiers) + "; built-ins: "
          + StrategyRegistry.identifiers.joined(separator: ", "))
    }
    do {
      _ = try StrategyOptions(raw: options, for: description)
    } catch {
      throw entry.error(error.description)
    }
    return NamedStrategy(name: name, use: use, options: options)
  }

  /// Strategy option values are written as JSON numbers, booleans or strings.
  package static func optionText(_ value: JSONValue, key: String) throws(DeckIOError) -> String {
    switch value.kind {
    case .number(_, let text): return text
    case .bool(let b): return b ? "true" : "false"
    case .string(let s): return s
    default:
      throw value.error(
        "option '\(key)' must be a number, true/false or a string, got \(value.typeDescription)")
    }
  }
}
