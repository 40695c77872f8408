import DeckBase
import DeckIO
import DeckReports
import Foundation

/// A file of named configurations that a config includes ("include": see `ConfigInclude`), as
/// `tune --out` writes it: `{"strategies": {"NAME": {"use": ..., "options": {...}}}}`.
package enum ConfigFragment {
  /// The entry of one named configuration, on one line: `{"use": "itemknn", "options": {...}}`
  /// (a plugin's executable as an absolute path, so that the file may live anywhere). Option
  /// values are written as the config reads them back: numbers and booleans as such, the rest
  /// as strings (`TuningWriter.jsonValue`).
  package static func entry(_ named: NamedStrategy, _ io: JobIO) -> String {
    var w = JSONWriter(style: .spaced)
    w.beginObject()
    if let plugin = named.plugin {
      w.field("plugin", URL(fileURLWithPath: Paths.open(plugin, io)).standardizedFileURL.path)
    } else {
      w.field("use", named.use)
    }
    w.key("options")
    w.beginObject()
    for key in named.options.keys.sorted() {
      w.key(key)
      TuningWriter.writeValue(named.options[key]!, to: &w)
    }
    w.endObject()
    if let timeout = named.timeout { w.field("timeout", number: timeout) }
    w.endObject()
    return w.text
  }

  /// The fragment with `entry` as `name`: the other members of `existing` (a fragment read
  /// from the file being replaced) kept in their order and `name` replaced in its place, or
  /// added last.
  package static func render(name: String, entry: String, existing: JSONValue?) -> String {
    var members: [(key: String, text: String)] = []
    var include: JSONValue?
    if let existing {
      include = existing["include"]
      for m in existing["strategies"]?.objectValue?.members ?? [] {
        members.append((m.key, compact(m.value)))
      }
    }
    if let k = members.firstIndex(where: { $0.key == name }) {
      members[k].text = entry
    } else {
      members.append((name, entry))
    }
    return configFile { w in
      w.layout("\n  ")
      if let include {
        w.key("include")
        w.valueAsRead(include)
        w.layout("\n  ")
      }
      w.key("strategies")
      w.beginObject()
      for member in members {
        w.layout("\n    ")
        w.key(member.key)
        // An entry: one line written by `entry` or `compact`, both JSONWriters.
        w.fragment(member.text)
      }
      w.layout("\n  ")
      w.endObject()
    }
  }

  /// A config file as menudeck writes one (this fragment, `import`'s menudeck.json): one object
  /// whose members `members` writes, each on a line of its own two spaces in, and whose closing
  /// brace ends the file on a line of its own.
  package static func configFile(_ members: (inout JSONWriter) -> Void) -> String {
    var w = JSONWriter(style: .spaced)
    w.beginObject()
    members(&w)
    w.layout("\n")
    w.endObject()
    w.layout("\n")
    return w.text
  }

  /// An existing `--out` file read as a fragment to merge into: nil when it does not exist; a
  /// data error when it is not a fragment (another kind of file is never replaced).
  package static func existing(_ path: String, _ io: JobIO) throws -> JSONValue? {
    let opened = Paths.open(path, io)
    guard FileSystem.kind(of: opened) == .regular else { return nil }
    let bytes = try Paths.using(path, io) { p throws(DeckIOError) in
      try TextInput.readBytes(path: p, what: "config fragment")
    }
    let advice =
      "'--out' adds the tuned configuration to a file of named configurations; choose another"
      + " --out"
    let root: JSONValue
    do {
      root = try JSONParser.parse(bytes, file: path)
    } catch {
      throw JobError(.dataError, "\(error); \(advice)")
    }
    guard let object = root.objectValue else {
      throw JobError(
        .dataError,
        "\(path): is \(root.typeDescription), not a file of named configurations;"
          + " \(advice)")
    }
    for m in object.members where !MenuDeckConfig.includedKeys.contains(m.key) {
      throw JobError(
        .dataError,
        "\(m.keyLocation): '\(m.key)': the file is not only named configurations (a config?);"
          + " \(advice)")
    }
    if let strategies = root["strategies"], strategies.objectValue == nil {
      throw JobError(
        .dataError,
        "\(strategies.location): 'strategies' is \(strategies.typeDescription), not an object;"
          + " \(advice)")
    }
    return root
  }

  /// A JSON value on one line, numbers as written.
  package static func compact(_ value: JSONValue) -> String {
    var w = JSONWriter(style: .spaced)
    w.valueAsRead(value)
    return w.text
  }
}
