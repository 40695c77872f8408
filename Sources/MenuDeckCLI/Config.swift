import DeckCore
import DeckIO
import DeckLab
import DeckStrategies

/// A named strategy instance from the config: a built-in (`use`) or an external plugin
/// (`plugin`), with options.
public struct NamedStrategy: Sendable, Equatable {
  public var name: String
  /// The built-in it uses; for a plugin, the configured name.
  public var use: String
  /// Raw option values as written (numbers keep their text).
  public var options: [String: String]
  /// The plugin executable (relative to the config's directory), for plugins.
  public var plugin: String?
  /// Seconds to wait for each plugin reply.
  public var timeout: Double?

  public init(
    name: String, use: String, options: [String: String], plugin: String? = nil,
    timeout: Double? = nil
  ) {
    self.name = name
    self.use = use
    self.options = options
    self.plugin = plugin
    self.timeout = timeout
  }
}

/// The run profile read from a config file (default Config/menudeck.json). Paths inside it are
/// relative to the config file's own directory, so a cron job may run from anywhere.
///
/// Every key is documented in the README; an unknown key is an error naming the key and the file.
public struct MenuDeckConfig: Sendable {
  public var path: String
  public var catalog: String?
  public var users: String?
  public var history: [String] = []
  public var strategy: String = "affinity"
  public var strategies: [String: NamedStrategy] = [:]
  public var seed: UInt64 = 0
  public var timeZone: String = "UTC"
  public var format: DeckFormat = .json
  public var dragRule: SwipeRule = .foodMenu
  public var rules = DeckRules()
  /// The simulated population (`menudeck simulate`); defaults when absent.
  public var simulation = SimulationConfig()
  /// How to read foreign CSV logs (`columns`: `map`, `right`, `left`); nil for menudeck's own.
  public var columns: ColumnMapping?
  /// The config file's bytes (for the run header's content hash); empty without a file.
  public var bytes: [UInt8] = []

  public static let topLevelKeys = [
    "catalog", "users", "history", "strategy", "strategies", "seed", "time_zone", "format",
    "drag_rule", "deck", "simulation", "columns",
  ]
  public static let columnsKeys = ["map", "right", "left"]
  /// How messages name the parts of the `columns` key.
  public static let columnsLabels = ColumnMapping.Labels(
    columns: "'columns.map'", right: "'columns.right'", left: "'columns.left'")
  public static let deckKeys = [
    "size", "max_per_category", "avoid_adjacent_category", "pinned", "excluded",
    "repeat_pick_days", "cooldown_days", "reshow_days",
  ]

  /// Built-in defaults with no file.
  public init(path: String = "") {
    self.path = path
  }

  public static func parse(_ bytes: [UInt8], path: String) throws(DeckIOError) -> MenuDeckConfig {
    var config = MenuDeckConfig(path: path)
    config.bytes = bytes
    let root = try JSONParser.parse(bytes, file: path)
    _ = try root.requireObject("the config")
    try root.rejectUnknownKeys(allowed: topLevelKeys, in: "the config")
    let base = directory(of: path)

    func relative(_ value: JSONValue, _ key: String) throws(DeckIOError) -> String {
      let text = try value.requireString("field '\(key)'")
      guard !text.isEmpty else { throw value.error("'\(key)' is empty; give a file path") }
      return resolve(text, against: base)
    }
    if let v = try root.optionalValue(at: "catalog") { config.catalog = try relative(v, "catalog") }
    if let v = try root.optionalValue(at: "users") { config.users = try relative(v, "users") }
    if let v = try root.optionalValue(at: "history") {
      if v.stringValue != nil {
        config.history = [try relative(v, "history")]
      } else {
        let list = try v.requireArray("field 'history' (a path or a list of paths)")
        for entry in list { config.history.append(try relative(entry, "history")) }
      }
    }
    if let v = try root.optionalValue(at: "strategy") {
      config.strategy = try v.requireString("field 'strategy'")
    }
    if let v = try root.optionalValue(at: "strategies") {
      let object = try v.requireObject("field 'strategies'")
      for member in object.members {
        let entry = member.value
        _ = try entry.requireObject("strategy '\(member.key)'")
        try entry.rejectUnknownKeys(
          allowed: ["use", "plugin", "options", "timeout"], in: "strategy '\(member.key)'")
        var options: [String: String] = [:]
        if let o = try entry.optionalValue(at: "options") {
          for option in try o.requireObject("the options of strategy '\(member.key)'").members {
            options[option.key] = try optionText(option.value, key: option.key)
          }
        }
        if let pluginValue = try entry.optionalValue(at: "plugin") {
          // An external plugin: its options are checked when it starts and describes itself.
          if entry["use"] != nil {
            throw entry.error(
              "strategy '\(member.key)' has both 'use' and 'plugin'; keep one of them")
          }
          let path = try relative(pluginValue, "plugin")
          var timeout: Double?
          if let t = try entry.optionalValue(at: "timeout") {
            guard let d = t.doubleValue, d > 0, d <= 3600 else {
              throw t.error("'timeout' must be a number of seconds from above 0 to 3600")
            }
            timeout = d
          }
          config.strategies[member.key] = NamedStrategy(
            name: member.key, use: member.key, options: options, plugin: path, timeout: timeout)
          continue
        }
        if entry["timeout"] != nil {
          throw entry.error(
            "'timeout' applies to plugins only; strategy '\(member.key)' is a built-in")
        }
        let use = try entry.optionalString(at: "use") ?? member.key
        guard let description = StrategyRegistry.description(of: use) else {
          let location = entry.location
          throw .malformed(
            location,
            message: "strategy '\(member.key)' uses '\(use)', which is not a built-in strategy"
              + didYouMean(use, StrategyRegistry.identifiers) + "; built-ins: "
              + StrategyRegistry.identifiers.joined(separator: ", "))
        }
        do {
          _ = try StrategyOptions(raw: options, for: description)
        } catch {
          throw entry.error(error.description)
        }
        config.strategies[member.key] = NamedStrategy(name: member.key, use: use, options: options)
      }
    }
    if let v = try root.optionalValue(at: "seed") {
      guard let text = v.numberText, let seed = UInt64(text) else {
        throw v.error("'seed' must be a whole number from 0 to 18446744073709551615")
      }
      config.seed = seed
    }
    if let v = try root.optionalValue(at: "time_zone") {
      config.timeZone = try v.requireString("field 'time_zone'")
      guard TimeZones.zone(named: config.timeZone) != nil else {
        throw v.error(
          "unknown time zone '\(config.timeZone)'; use an IANA name such as 'Asia/Tokyo' or 'UTC'")
      }
    }
    if let v = try root.optionalValue(at: "format") {
      let text = try v.requireString("field 'format'")
      guard let format = DeckFormat(rawValue: text) else {
        throw v.error(
          "unknown format '\(text)'"
            + didYouMean(text, DeckFormat.allCases.map(\.rawValue)) + "; use one of "
            + DeckFormat.allCases.map(\.rawValue).joined(separator: ", "))
      }
      config.format = format
    }
    if let v = try root.optionalValue(at: "drag_rule") {
      let text = try v.requireString("field 'drag_rule'")
      switch text {
      case "relative": config.dragRule = .foodMenu
      case "absolute": config.dragRule = .cardDeck
      default:
        throw v.error(
          "unknown drag rule '\(text)'; use 'relative' (food-menu app: |dx|/width > 0.45) or "
            + "'absolute' (card-deck app: |dx| > 100 points)")
      }
    }
    if let sim = try root.optionalValue(at: "simulation") {
      config.simulation = try SimulationConfig.parse(sim, file: path)
    }
    config.simulation.dragRule = config.dragRule
    if let v = try root.optionalValue(at: "columns") {
      config.columns = try parseColumns(v)
    }
    if let deck = try root.optionalValue(at: "deck") {
      _ = try deck.requireObject("field 'deck'")
      try deck.rejectUnknownKeys(allowed: deckKeys, in: "the deck rules")
      func int(_ key: String, in range: ClosedRange<Int>) throws(DeckIOError) -> Int? {
        guard let v = try deck.optionalValue(at: key) else { return nil }
        guard let text = v.numberText, let n = Int(text) ?? beyondInt(text), n >= range.lowerBound
        else {
          throw v.error("'deck.\(key)' must be a whole number \(range.lowerBound) or more")
        }
        guard n <= range.upperBound else {
          throw v.error(
            "'deck.\(key)' is \(text), more than the limit \(range.upperBound); give a whole "
              + "number from \(range.lowerBound) to \(range.upperBound)")
        }
        return n
      }
      if let n = try int("size", in: Limits.deckSize) { config.rules.size = n }
      if let v = try deck.optionalValue(at: "max_per_category") {
        guard let text = v.numberText, let n = Int(text) ?? beyondInt(text), n >= 1 else {
          throw v.error(
            "'deck.max_per_category' must be a whole number 1 or more (or null for no cap)")
        }
        guard n <= Limits.deckSize.upperBound else {
          throw v.error(
            "'deck.max_per_category' is \(text), more than the limit "
              + "\(Limits.deckSize.upperBound); give a whole number from 1 to "
              + "\(Limits.deckSize.upperBound) (or null for no cap)")
        }
        config.rules.maxPerCategory = n
      } else if deck["max_per_category"]?.isNull == true {
        config.rules.maxPerCategory = nil
      }
      if let b = try deck.optionalBool(at: "avoid_adjacent_category") {
        config.rules.avoidAdjacentCategory = b
      }
      config.rules.pinned = try deck.stringArray(at: "pinned")
      config.rules.excluded = try deck.stringArray(at: "excluded")
      if let n = try int("repeat_pick_days", in: Limits.ruleDays) {
        config.rules.repeatPickDays = n
      }
      if let n = try int("cooldown_days", in: Limits.ruleDays) { config.rules.cooldownDays = n }
      if let n = try int("reshow_days", in: Limits.ruleDays) { config.rules.reshowDays = n }
      do {
        try config.rules.validate()
      } catch {
        throw deck.error(error.description)
      }
    }
    return config
  }

  /// `"columns": {"map": {"user": "userId", ...}, "right": "rating>=4", "left": "rating<=2"}`.
  static func parseColumns(_ v: JSONValue) throws(DeckIOError) -> ColumnMapping {
    let labels = columnsLabels
    _ = try v.requireObject("field 'columns'")
    try v.rejectUnknownKeys(allowed: columnsKeys, in: "'columns'")
    var map: [ColumnMapping.Field: String] = [:]
    if let m = try v.optionalValue(at: "map") {
      let valid = ColumnMapping.Field.allCases.map(\.rawValue)
      for member in try m.requireObject("field 'columns.map' (field: column name)").members {
        guard let field = ColumnMapping.Field(rawValue: member.key) else {
          throw member.value.error(
            "\(labels.columns): unknown field '\(member.key)'\(didYouMean(member.key, valid)); "
              + "fields: " + valid.joined(separator: ", "))
        }
        map[field] = try member.value.requireString("the column of '\(member.key)'")
      }
    }
    func rule(_ key: String, _ label: String) throws(DeckIOError) -> RatingRule? {
      guard let r = try v.optionalValue(at: key) else { return nil }
      let text = try r.requireString("field 'columns.\(key)'")
      do {
        return try RatingRule.parse(text, label: label)
      } catch {
        throw r.error(error.message)
      }
    }
    let right = try rule("right", labels.right)
    let left = try rule("left", labels.left)
    do {
      return try ColumnMapping(columns: map, right: right, left: left, labels: labels)
    } catch {
      throw v.error(error.message)
    }
  }

  /// Strategy option values are written as JSON numbers, booleans or strings.
  static func optionText(_ value: JSONValue, key: String) throws(DeckIOError) -> String {
    switch value.kind {
    case .number(_, let text): return text
    case .bool(let b): return b ? "true" : "false"
    case .string(let s): return s
    default:
      throw value.error(
        "option '\(key)' must be a number, true/false or a string, got \(value.typeDescription)")
    }
  }

  /// The built-in identifier and raw options for a strategy name: a named configuration from
  /// this config, or a built-in with its options from this config's entry of the same name.
  public func resolveStrategy(_ name: String) -> NamedStrategy? {
    if let named = strategies[name] { return named }
    if StrategyRegistry.description(of: name) != nil {
      return NamedStrategy(name: name, use: name, options: [:])
    }
    return nil
  }

  /// The drag rule as the config names it: "relative" or "absolute".
  public var dragRuleName: String {
    if case .absolute = dragRule { return "absolute" }
    return "relative"
  }

  /// Every name `--strategy` accepts: built-ins and named configurations.
  public var strategyNames: [String] {
    var names = StrategyRegistry.identifiers
    for key in strategies.keys.sorted() where !names.contains(key) { names.append(key) }
    return names
  }
}

/// `Int.max` for a whole number written with more digits than an `Int` holds (so that it is
/// reported as over its limit), else nil.
func beyondInt(_ text: String) -> Int? {
  !text.isEmpty && text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) ? Int.max : nil
}

func directory(of path: String) -> String {
  guard let slash = path.lastIndex(of: "/") else { return "." }
  let dir = String(path[..<slash])
  return dir.isEmpty ? "/" : dir
}

/// `path` as given when absolute, else joined to `base` (with "./" removed for tidy messages).
func resolve(_ path: String, against base: String) -> String {
  if path.hasPrefix("/") || base == "." || base.isEmpty { return path }
  return Paths.normalize(base + "/" + path)
}
