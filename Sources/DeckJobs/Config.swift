import DeckBase
import DeckCore
import DeckIO
import DeckSimulation
import DeckStrategies

/// A named strategy instance from the config: a built-in (`use`) or an external plugin
/// (`plugin`), with options.
package struct NamedStrategy: Sendable, Equatable {
  package var name: String
  /// The built-in it uses; for a plugin, the configured name.
  package var use: String
  /// Raw option values as written (numbers keep their text).
  package var options: [String: String]
  /// The plugin executable (relative to the config's directory), for plugins.
  package var plugin: String?
  /// Seconds to wait for each plugin reply.
  package var timeout: Double?
  /// The options its spelling gave (`NAME:key=value`, see `StrategySpelling`), also in
  /// `options`: they stay over the command line's `--option`s.
  package var variant: [String: String] = [:]

  package init(
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
/// Every key is documented in docs/config.md; an unknown key is an error naming the key and the
/// file.
package struct MenuDeckConfig: Sendable {
  package var path: String
  package var catalog: String?
  package var users: String?
  package var history: [String] = []
  package var strategy: String = "ease"
  package var strategies: [String: NamedStrategy] = [:]
  package var seed: UInt64 = 0
  package var timeZone: String = "UTC"
  package var format: DeckFormat = .json
  package var dragRule: SwipeRule = .foodMenu
  package var rules = DeckRules()
  /// The `rules` section as written: its rules (also in `rules.restaurantRules`) with where each
  /// field is, for errors the catalog finds (`RestaurantRulesConfig.error(_:catalog:)`).
  package var restaurantRules = RestaurantRulesConfig()
  /// The simulated population (`menudeck simulate`); defaults when absent.
  package var simulation = SimulationConfig()
  /// A history that ends more than this many days before the deck date is stale: `deck`,
  /// `play` and `validate` warn (`deck --strict` fails); 0 turns the check off.
  package var staleHistoryDays = 2
  /// Whether the config file gives `stale_history_days` (else `staleHistoryDays` is the
  /// default), for messages that say where the number comes from.
  package var staleHistoryDaysIsSet = false
  /// How to read foreign CSV logs (`columns`: `map`, `right`, `left`); nil for menudeck's own.
  package var columns: ColumnMapping?
  /// What separates the fields of each kind of CSV input (`csv_delimiter`); commas by default.
  package var csvDelimiters = CSVDelimiters()
  /// The config file's bytes (for the run header's content hash); empty without a file.
  package var bytes: [UInt8] = []
  /// The files "include" names (and those they include), in the order read.
  package var included: [IncludedConfig] = []

  package static let topLevelKeys = [
    "catalog", "users", "history", "strategy", "strategies", "seed", "time_zone", "format",
    "drag_rule", "deck", "simulation", "columns", "csv_delimiter", "stale_history_days",
    "include", "rules",
  ]
  package static let columnsKeys = ["map", "right", "left"]
  /// How messages name the parts of the `columns` key.
  package static let columnsLabels = ColumnMapping.Labels(
    columns: "'columns.map'", right: "'columns.right'", left: "'columns.left'")
  package static let deckKeys = [
    "size", "max_per_category", "avoid_adjacent_category", "pinned", "excluded",
    "repeat_pick_days", "cooldown_days", "reshow_days",
  ]

  /// Built-in defaults with no file.
  package init(path: String = "") {
    self.path = path
  }

  /// Reads and checks a config file's bytes, one section at a time (each section's reader sits
  /// in the file named after it: ConfigFiles.swift, with "csv_delimiter", ConfigStrategies.swift,
  /// ConfigSettings.swift, ConfigColumns.swift, ConfigDeck.swift, ConfigRules.swift; "simulation" is DeckSimulation's
  /// `SimulationConfig.parse`).
  /// Files it includes are read with `read`.
  package static func parse(
    _ bytes: [UInt8], path: String, read: ConfigFileReader = MenuDeckConfig.readFile
  ) throws(DeckIOError) -> MenuDeckConfig {
    var config = MenuDeckConfig(path: path)
    config.bytes = bytes
    let root = try JSONParser.parse(bytes, file: path)
    _ = try root.requireObject("the config")
    try root.rejectUnknownKeys(allowed: topLevelKeys, in: "the config")
    let files = ConfigFiles(base: directory(of: path))
    try config.readFiles(root, files)
    try config.readDelimiters(root)
    if let v = try root.optionalValue(at: "strategy") {
      config.strategy = try v.requireString(field: "strategy")
    }
    if let v = try root.optionalValue(at: "strategies") {
      config.strategies = try NamedStrategy.parseAll(v, files)
    }
    try config.readIncludes(root, files, read: read)
    try config.readSettings(root)
    if let sim = try root.optionalValue(at: "simulation") {
      config.simulation = try SimulationConfig.parse(sim, file: path)
    }
    config.simulation.dragRule = config.dragRule
    if let v = try root.optionalValue(at: "columns") {
      config.columns = try parseColumns(v)
    }
    if let deck = try root.optionalValue(at: "deck") {
      config.rules = try DeckRules.parse(deck)
    }
    if let v = try root.optionalValue(at: "rules") {
      config.restaurantRules = try RestaurantRulesConfig.parse(v)
      config.rules.restaurantRules = config.restaurantRules.rules
    }
    return config
  }

  /// The drag rule as the config names it: "relative" or "absolute".
  package var dragRuleName: String {
    if case .absolute = dragRule { return "absolute" }
    return "relative"
  }

  /// Every name `--strategy` accepts: built-ins and named configurations.
  package var strategyNames: [String] {
    var names = StrategyRegistry.identifiers
    for key in strategies.keys.sorted() where !names.contains(key) { names.append(key) }
    return names
  }
}

package func directory(of path: String) -> String {
  guard let slash = path.lastIndex(of: "/") else { return "." }
  let dir = String(path[..<slash])
  return dir.isEmpty ? "/" : dir
}

/// `path` as given when absolute, else joined to `base` (with "./" removed for tidy messages).
package func resolve(_ path: String, against base: String) -> String {
  if path.hasPrefix("/") || base == "." || base.isEmpty { return path }
  return Paths.normalize(base + "/" + path)
}
