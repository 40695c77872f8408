import DeckBase
import DeckCore
import DeckIO

/// A file the config includes ("include"): named configurations kept apart from the config,
/// such as the one `menudeck tune --out` writes.
package struct IncludedConfig: Sendable, Equatable {
  /// The path as the config names it, resolved against the including file's directory.
  package var path: String
  /// The file that includes it (the config, or another included file).
  package var includedBy: String
  /// Its bytes, for the run header's hash.
  package var bytes: [UInt8]
}

/// Reads a file for the config: `path` as resolved (relative to the current directory, or
/// absolute), `what` for the message when it is missing.
package typealias ConfigFileReader = (_ path: String, _ what: String) throws(DeckIOError) -> [UInt8]

extension MenuDeckConfig {
  /// The keys an included file may hold: its named configurations, and files it includes in
  /// turn.
  package static let includedKeys = ["strategies", "include"]

  /// The most files one config includes, all levels together.
  package static let maxIncludes = 64

  /// The default reader: the file system, from this process's current directory.
  package static func readFile(_ path: String, _ what: String) throws(DeckIOError) -> [UInt8] {
    try TextInput.readBytes(path: path, what: what)
  }

  /// "include": a file path or a list of them, each relative to the including file's
  /// directory. Each file holds "strategies" (and may "include" more): its named
  /// configurations join the config's. A name defined twice, a file included twice and a cycle
  /// are errors naming both places.
  package mutating func readIncludes(
    _ root: JSONValue, _ files: ConfigFiles, read: ConfigFileReader
  )
    throws(DeckIOError)
  {
    var definedIn: [String: String] = [:]
    for name in strategies.keys { definedIn[name] = path }
    try include(from: root, file: path, files, chain: [path], definedIn: &definedIn, read: read)
  }

  private mutating func include(
    from root: JSONValue, file: String, _ files: ConfigFiles, chain: [String],
    definedIn: inout [String: String], read: ConfigFileReader
  ) throws(DeckIOError) {
    guard let value = try root.optionalValue(at: "include") else { return }
    let entries: [JSONValue]
    if value.stringValue != nil {
      entries = [value]
    } else if let list = value.arrayValue {
      entries = list
    } else {
      throw value.error(
        "'include' is \(value.typeDescription); give a file path or a list of them"
          + " (e.g. [\"tuned.json\"]), relative to \(file == path ? "the config" : file)'s folder",
        field: "include")
    }
    for entry in entries {
      let target = try files.relative(entry, "include")
      if let at = chain.firstIndex(of: target) {
        let cycle = (chain[at...] + [target]).joined(separator: " -> ")
        throw entry.error(
          "'\(target)' includes itself (\(cycle)); remove one of these includes", field: "include")
      }
      if let earlier = included.first(where: { $0.path == target }) {
        throw entry.error(
          "'\(target)' is included twice (also by \(earlier.includedBy)); include each file once",
          field: "include")
      }
      guard included.count < Self.maxIncludes else {
        throw entry.error(
          "more than \(Self.maxIncludes) included files; merge some of them", field: "include")
      }
      let bytes = try read(target, "file \(file) includes")
      included.append(IncludedConfig(path: target, includedBy: file, bytes: bytes))
      let sub = try JSONParser.parse(bytes, file: target)
      _ = try sub.requireObject("an included config file")
      try sub.rejectUnknownKeys(
        allowed: Self.includedKeys,
        in: "a file the config includes (it holds named configurations only)")
      let subFiles = ConfigFiles(base: directory(of: target))
      if let list = try sub.optionalValue(at: "strategies") {
        for member in try list.requireObject(field: "strategies").members {
          if let other = definedIn[member.key] {
            throw .malformed(
              member.keyLocation,
              message: "strategy '\(member.key)' is defined in both \(other) and \(target);"
                + " rename one of them or remove it")
          }
          strategies[member.key] = try NamedStrategy.parse(member.value, name: member.key, subFiles)
          definedIn[member.key] = target
        }
      }
      try include(
        from: sub, file: target, subFiles, chain: chain + [target], definedIn: &definedIn,
        read: read)
    }
  }
}
