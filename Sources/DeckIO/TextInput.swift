import DeckBase

/// The two formats of table-like inputs (catalogs, users).
package enum DocumentFormat: String, Sendable, CaseIterable, CustomStringConvertible {
  case json
  case csv

  package var description: String { rawValue }

  /// The format named by a path's extension (`.json` or `.csv`, any case), or nil.
  package init?(pathExtensionOf path: String) {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
    self.init(rawValue: name[name.index(after: dot)...].lowercased())
  }

  /// `explicit` when given, else the format of the path's extension; an error naming the path when
  /// neither says.
  package static func resolve(
    _ explicit: DocumentFormat?, path: String, what: String
  ) throws(DeckIOError) -> DocumentFormat {
    if let explicit { return explicit }
    if let f = DocumentFormat(pathExtensionOf: path) { return f }
    throw .invalid(
      path: path,
      message: "cannot tell the format of the \(what) from its name; "
        + "name the file .json or .csv")
  }
}

/// Whole-file reading with errors that say what the file was for.
package enum TextInput {
  /// The bytes of the file at `path`. `what` names its role for messages ("catalog").
  ///
  /// - Throws: `.missingFile` when nothing is at `path`; `.io` when it is a directory or cannot
  ///   be read.
  /// With `maxBytes`, a file (or pipe) longer than that stops the read with `.invalid` before
  /// more is held.
  package static func readBytes(path: String, what: String, maxBytes: Int? = nil)
    throws(DeckIOError) -> [UInt8]
  {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 { throw openFailure(path: path, what: what, errno: errno) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      throw .io(path: path, message: "cannot read the \(what): \(describe(errno: errno))")
    }
    if (info.st_mode & S_IFMT) == S_IFDIR {
      throw .io(path: path, message: "is a directory, not the \(what); give the path of a file")
    }
    var bytes: [UInt8] = []
    // Regular files report their size; pipes and special files report 0 and are read to the end.
    bytes.reserveCapacity(min(max(Int(info.st_size), 0), maxBytes ?? Int.max))
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        throw .io(path: path, message: "cannot read the \(what): \(describe(errno: errno))")
      }
      if n == 0 { break }
      if let maxBytes, bytes.count + n > maxBytes {
        throw .invalid(
          path: path, message: "the \(what) is larger than \(maxBytes) bytes; split it")
      }
      bytes.append(contentsOf: chunk[0..<n])
    }
    return bytes
  }

  /// Up to `count` first bytes of the file at `path` (to tell file kinds apart).
  package static func readPrefix(path: String, count: Int) throws(DeckIOError) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 { throw openFailure(path: path, what: "input", errno: errno) }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, count - filled) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
      filled += n
    }
    return Array(buffer[0..<filled])
  }

  /// The error of an input that `open` refused with `code`, the same for every reader: nothing
  /// at the path (`ENOENT`, or a path through a file, `ENOTDIR`) is a missing file (exit 66);
  /// anything else, permission denied included, an I/O error (exit 74).
  static func openFailure(path: String, what: String, errno code: Int32) -> DeckIOError {
    if code == ENOENT || code == ENOTDIR { return .missingFile(path: path, what: what) }
    return .io(path: path, message: "cannot open the \(what): \(describe(errno: code))")
  }

  static func describe(errno code: Int32) -> String {
    switch code {
    case EACCES, EPERM: return "permission denied; check the file's permissions"
    case EISDIR: return "is a directory; give the path of a file"
    default: return errnoText(code)
    }
  }
}
