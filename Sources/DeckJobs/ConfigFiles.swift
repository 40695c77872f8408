import DeckBase
import DeckIO

/// The config's file paths ("catalog", "users", "history"; a plugin's path too), each relative
/// to the config file's directory.
package struct ConfigFiles {
  /// The config file's directory.
  package var base: String

  /// A non-empty path string, resolved against `base`.
  package func relative(_ value: JSONValue, _ key: String) throws(DeckIOError) -> String {
    let text = try value.requireString(field: key)
    guard !text.isEmpty else { throw value.error("'\(key)' is empty; give a file path") }
    return resolve(text, against: base)
  }
}

/// The delimiter of each kind of CSV input of a run: the config's "csv_delimiter" (one for all,
/// or one per kind), with `--delimiter` over it (one for all).
package struct CSVDelimiters: Sendable, Equatable {
  package var catalog = CSVDelimiter.comma
  package var users = CSVDelimiter.comma
  /// Swipe logs, and `--csv-header`.
  package var history = CSVDelimiter.comma
  /// `compare --policy` files.
  package var policy = CSVDelimiter.comma

  package init() {}

  /// The same delimiter for every kind.
  package static func all(_ delimiter: CSVDelimiter) -> CSVDelimiters {
    var d = CSVDelimiters()
    d.catalog = delimiter
    d.users = delimiter
    d.history = delimiter
    d.policy = delimiter
    return d
  }

  /// The keys of the object form of "csv_delimiter".
  static let keys = ["catalog", "users", "history", "policy"]
}

extension MenuDeckConfig {
  /// "csv_delimiter": one delimiter for every CSV input (`";"`), or one per kind of input
  /// (`{"catalog": ";", "users": ";"}`, the kinds left out keeping the comma).
  package mutating func readDelimiters(_ root: JSONValue) throws(DeckIOError) {
    guard let v = try root.optionalValue(at: "csv_delimiter") else { return }
    func delimiter(_ value: JSONValue, _ key: String) throws(DeckIOError) -> CSVDelimiter {
      let text = try value.requireString(field: key)
      guard let d = CSVDelimiter(spelling: text) else {
        throw value.error(
          "'\(key)': unknown delimiter '\(text)'; use \(CSVDelimiter.expected)")
      }
      return d
    }
    if v.stringValue != nil {
      csvDelimiters = .all(try delimiter(v, "csv_delimiter"))
      return
    }
    _ = try v.requireObject(
      "field 'csv_delimiter' (a delimiter, or an object of catalog, users, history, policy)")
    try v.rejectUnknownKeys(allowed: CSVDelimiters.keys, in: "'csv_delimiter'")
    if let c = try v.optionalValue(at: "catalog") {
      csvDelimiters.catalog = try delimiter(c, "csv_delimiter.catalog")
    }
    if let u = try v.optionalValue(at: "users") {
      csvDelimiters.users = try delimiter(u, "csv_delimiter.users")
    }
    if let h = try v.optionalValue(at: "history") {
      csvDelimiters.history = try delimiter(h, "csv_delimiter.history")
    }
    if let p = try v.optionalValue(at: "policy") {
      csvDelimiters.policy = try delimiter(p, "csv_delimiter.policy")
    }
  }

  /// "catalog", "users" and "history" (a path or a list of paths).
  package mutating func readFiles(_ root: JSONValue, _ files: ConfigFiles) throws(DeckIOError) {
    if let v = try root.optionalValue(at: "catalog") { catalog = try files.relative(v, "catalog") }
    if let v = try root.optionalValue(at: "users") { users = try files.relative(v, "users") }
    if let v = try root.optionalValue(at: "history") {
      if v.stringValue != nil {
        history = [try files.relative(v, "history")]
      } else {
        let list = try v.requireArray("field 'history' (a path or a list of paths)")
        for entry in list { history.append(try files.relative(entry, "history")) }
      }
    }
  }
}
