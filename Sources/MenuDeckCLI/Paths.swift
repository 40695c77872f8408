import DeckIO
import Foundation

/// Paths as the user wrote them are kept for messages and headers; `open` turns one into a path
/// the file system can use from this process (commands run in process by tests have their own
/// current directory in `CLIStreams`).
enum Paths {
  static let processDirectory = FileManager.default.currentDirectoryPath

  static func open(_ path: String, _ io: CLIStreams) -> String {
    if path == "-" || path.hasPrefix("/") { return path }
    if io.currentDirectory == processDirectory { return path }
    return io.resolvePath(path)
  }

  /// `a/b/../c` -> `a/c`, `./x` -> `x` (lexically; used for paths inside the config).
  static func normalize(_ path: String) -> String {
    let absolute = path.hasPrefix("/")
    var parts: [Substring] = []
    for part in path.split(separator: "/", omittingEmptySubsequences: true) {
      if part == "." { continue }
      if part == "..", let last = parts.last, last != ".." {
        parts.removeLast()
        continue
      }
      if part == ".." && absolute && parts.isEmpty { continue }
      parts.append(part)
    }
    let joined = parts.joined(separator: "/")
    if absolute { return "/" + joined }
    return joined.isEmpty ? "." : joined
  }
}

extension EventReadStats {
  /// Adds the per-file stats of another read, naming its files `displayName`.
  mutating func merge(_ other: EventReadStats, displayName: String) {
    for var file in other.files {
      file.file = displayName
      files.append(file)
    }
    for id in other.unknownItemIDs
    where !unknownItemIDs.contains(id) && unknownItemIDs.count < EventReadStats.unknownIDLimit {
      unknownItemIDs.append(id)
    }
  }
}
