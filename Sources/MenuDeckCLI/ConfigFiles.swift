import DeckBase
import DeckIO

/// The config's file paths ("catalog", "users", "history"; a plugin's path too), each relative
/// to the config file's directory.
struct ConfigFiles {
  /// The config file's directory.
  var base: String

  /// A non-empty path string, resolved against `base`.
  func relative(_ value: JSONValue, _ key: String) throws(DeckIOError) -> String {
    let text = try value.requireString(field: key)
    guard !text.isEmpty else { throw value.error("'\(key)' is empty; give a file path") }
    return resolve(text, against: base)
  }
}

extension MenuDeckConfig {
  /// "catalog", "users" and "history" (a path or a list of paths).
  mutating func readFiles(_ root: JSONValue, _ files: ConfigFiles) throws(DeckIOError) {
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
