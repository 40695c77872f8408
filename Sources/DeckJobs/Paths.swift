import DeckBase
import DeckCore
import DeckIO
import Foundation

/// Paths as the user wrote them are kept for messages and headers; `open` turns one into a path
/// the file system can use from this process (commands run in process by tests have their own
/// current directory in `JobIO`).
package enum Paths {
  package static let processDirectory = FileManager.default.currentDirectoryPath

  package static func open(_ path: String, _ io: JobIO) -> String {
    if path == "-" || path.hasPrefix("/") { return path }
    if io.currentDirectory == processDirectory { return path }
    return io.resolvePath(path)
  }

  /// `a/b/../c` -> `a/c`, `./x` -> `x` (lexically; used for paths inside the config).
  package static func normalize(_ path: String) -> String {
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
  /// Adds events of unknown items found outside the reader, in the history that the snapshots
  /// and logs `inputs` made: the file's own when it is one input, else the merge's (no one file
  /// holds them, and a snapshot has no lines).
  package mutating func noteUnknown(_ count: Int, ids: [String], inputs: [String]) {
    guard count > 0 else { return }
    if inputs.count == 1, let k = files.lastIndex(where: { $0.file == inputs[0] }) {
      files[k].unknownItemEvents += count
    } else {
      mergedUnknownItemEvents += count
      mergedInputs = inputs
    }
    for id in ids
    where !unknownItemIDs.contains(where: { IDKey.same($0, id) })
      && unknownItemIDs.count < EventReadStats.unknownIDLimit
    {
      unknownItemIDs.append(id)
    }
  }

  /// Adds the per-file stats of another read, naming its files `displayName`.
  package mutating func merge(_ other: EventReadStats, displayName: String) {
    for var file in other.files {
      file.file = displayName
      files.append(file)
    }
    for id in other.unknownItemIDs
    where !unknownItemIDs.contains(where: { IDKey.same($0, id) })
      && unknownItemIDs.count < EventReadStats.unknownIDLimit
    {
      unknownItemIDs.append(id)
    }
  }
}

extension Paths {
  /// Runs `body` on `path` as this process opens it (see `open`); a `DeckIOError` it throws
  /// names the file as the user wrote it, as the binary run from that directory would.
  package static func using<T>(
    _ path: String, _ io: JobIO, _ body: (String) throws(DeckIOError) -> T
  ) throws(DeckIOError) -> T {
    let opened = open(path, io)
    do {
      return try body(opened)
    } catch {
      throw error.naming(opened, as: path)
    }
  }

  /// Fails early, before any input is read, when `--out` cannot be written.
  /// `shown` is how the path appears in messages (default: `path`).
  package static func checkOutput(
    _ path: String, _ io: JobIO, option: String = "--out", shown: String? = nil
  ) throws {
    let opened = open(path, io)
    let name = shown ?? path
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: opened, isDirectory: &isDirectory),
      isDirectory.boolValue
    {
      throw JobError(.ioError, "\(name): is a directory; give \(option) a file path")
    }
    let parent = directory(of: opened)
    if !FileManager.default.fileExists(atPath: parent, isDirectory: &isDirectory)
      || !isDirectory.boolValue
    {
      throw JobError(
        .ioError,
        "\(name): no directory '\(directory(of: path))'; create it or choose another \(option)")
    }
  }
}

extension DeckIOError {
  /// This error with `opened` (the path this process used) shown as `written`.
  package func naming(_ opened: String, as written: String) -> DeckIOError {
    guard opened != written else { return self }
    func fix(_ p: String) -> String { p == opened ? written : p }
    switch self {
    case .missingFile(let path, let what, let check):
      return .missingFile(path: fix(path), what: what, check: check)
    case .io(let path, let message):
      return .io(
        path: fix(path),
        message: message.replacingOccurrences(
          of: "'\(directory(of: opened))'", with: "'\(directory(of: written))'"))
    case .malformed(var location, let message):
      location.file = fix(location.file)
      return .malformed(location, message: message)
    case .invalid(let path, let message):
      // A message may show the path in a command line to run (a compressed log's).
      return .invalid(
        path: fix(path),
        message: message.replacingOccurrences(
          of: " \(TextLayout.shellWord(opened)) ", with: " \(TextLayout.shellWord(written)) "))
    }
  }
}
