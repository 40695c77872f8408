#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The two formats of table-like inputs (catalogs, users).
public enum DocumentFormat: String, Sendable, CaseIterable, CustomStringConvertible {
  case json
  case csv

  public var description: String { rawValue }

  /// The format named by a path's extension (`.json` or `.csv`, any case), or nil.
  public init?(pathExtensionOf path: String) {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
    self.init(rawValue: name[name.index(after: dot)...].lowercased())
  }

  /// `explicit` when given, else the format of the path's extension; an error naming the path when
  /// neither says.
  public static func resolve(
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
public enum TextInput {
  /// The bytes of the file at `path`. `what` names its role for messages ("catalog").
  ///
  /// - Throws: `.missingFile` when nothing is at `path`; `.io` when it is a directory or cannot
  ///   be read.
  public static func readBytes(path: String, what: String) throws(DeckIOError) -> [UInt8] {
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
    bytes.reserveCapacity(max(Int(info.st_size), 0))
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        throw .io(path: path, message: "cannot read the \(what): \(describe(errno: errno))")
      }
      if n == 0 { break }
      bytes.append(contentsOf: chunk[0..<n])
    }
    return bytes
  }

  /// Up to `count` first bytes of the file at `path` (to tell file kinds apart).
  public static func readPrefix(path: String, count: Int) throws(DeckIOError) -> [UInt8] {
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
    default:
      if let s = strerror(code) { return String(cString: s).lowercased() }
      return "error \(code)"
    }
  }
}

// MARK: - Shared byte-level text helpers (JSON and CSV parsers)

/// The one rule for line ends, in every reader (CSV and JSON catalogs and users, swipe logs in
/// CSV, mapped CSV and JSON Lines, the config): a line ends with LF or CRLF. A carriage return
/// that is not followed by a line feed (outside a quoted CSV field, where it is data) is refused
/// with this message at its line and column, never read as part of a value or as white space:
/// read so, a file with old Mac (CR-only) line ends would be one long line, and its swipes lost.
let loneCarriageReturnMessage =
  "carriage return not followed by a line feed; end lines with LF or CRLF (a file with "
  + "CR-only line ends, as old Mac files have, converts with: tr '\\r' '\\n' < old > new)"

/// The length of the valid UTF-8 sequence starting with the non-ASCII byte at `i`, or nil when the
/// bytes there are not valid UTF-8 (overlong forms, surrogates, values above U+10FFFF, truncated
/// sequences and stray continuation bytes are all invalid).
@inline(__always)
func utf8SequenceLength(_ b: [UInt8], _ i: Int) -> Int? {
  let lead = b[i]
  let n = b.count
  @inline(__always) func cont(_ k: Int, _ lo: UInt8 = 0x80, _ hi: UInt8 = 0xBF) -> Bool {
    k < n && b[k] >= lo && b[k] <= hi
  }
  switch lead {
  case 0xC2...0xDF:
    return cont(i + 1) ? 2 : nil
  case 0xE0:
    return cont(i + 1, 0xA0) && cont(i + 2) ? 3 : nil
  case 0xE1...0xEC, 0xEE...0xEF:
    return cont(i + 1) && cont(i + 2) ? 3 : nil
  case 0xED:
    return cont(i + 1, 0x80, 0x9F) && cont(i + 2) ? 3 : nil
  case 0xF0:
    return cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3) ? 4 : nil
  case 0xF1...0xF3:
    return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : nil
  case 0xF4:
    return cont(i + 1, 0x80, 0x8F) && cont(i + 2) && cont(i + 3) ? 4 : nil
  default:
    return nil
  }
}

/// The message for invalid UTF-8 at `i`: names the offending bytes.
func invalidUTF8Message(_ b: [UInt8], _ i: Int) -> String {
  var shown = [hexByte(b[i])]
  var k = i + 1
  while k < b.count, k < i + 4, (0x80...0xBF).contains(b[k]) {
    shown.append(hexByte(b[k]))
    k += 1
  }
  return "invalid UTF-8 (bytes \(shown.joined(separator: " "))); save the file as UTF-8"
}

func hexByte(_ x: UInt8) -> String {
  let digits = Array("0123456789ABCDEF")
  return "0x" + String(digits[Int(x >> 4)]) + String(digits[Int(x & 15)])
}

/// What is at byte `i`, for "found ..." in messages: `'x'` for visible ASCII and valid non-ASCII
/// characters, names for line breaks and control characters, "the end of the file" past the end.
func describeByte(_ b: [UInt8], _ i: Int) -> String {
  guard i < b.count else { return "the end of the file" }
  let c = b[i]
  switch c {
  case UInt8(ascii: "\n"), UInt8(ascii: "\r"): return "a line break"
  case UInt8(ascii: "\t"): return "a tab"
  case 0..<0x20, 0x7F: return "control character \(scalarName(UInt32(c)))"
  case 0x20..<0x7F: return "'\(Character(Unicode.Scalar(c)))'"
  default:
    guard let len = utf8SequenceLength(b, i) else { return "an invalid UTF-8 byte \(hexByte(c))" }
    let s = String(decoding: b[i..<(i + len)], as: UTF8.self)
    return "'\(s)' (\(scalarName(s.unicodeScalars.first!.value)))"
  }
}

/// `U+000A` style name of a scalar value.
func scalarName(_ v: UInt32) -> String {
  var hex = String(v, radix: 16, uppercase: true)
  while hex.count < 4 { hex = "0" + hex }
  return "U+" + hex
}

/// Line and column bookkeeping for a forward scan.
///
/// Lines advance when the scanner reports a line feed. Columns count Unicode scalars (every byte
/// that is not a UTF-8 continuation byte), as editors do. Columns are computed on demand from the
/// last computed position, so asking for the columns of increasing offsets costs O(n) in total
/// even when the whole file is one line.
struct LineTracker {
  private(set) var line = 1
  private(set) var lineStart = 0
  private var cacheOffset = 0
  private var cacheColumn = 1

  init(start: Int) {
    lineStart = start
    cacheOffset = start
  }

  /// The byte at `offset` is a line feed: the next line starts after it.
  @inline(__always)
  mutating func newline(at offset: Int) {
    line += 1
    lineStart = offset + 1
    cacheOffset = offset + 1
    cacheColumn = 1
  }

  /// The 1-based column of `offset`, which must be on the current line.
  mutating func column(of offset: Int, in b: [UInt8]) -> Int {
    if offset < cacheOffset {
      cacheOffset = lineStart
      cacheColumn = 1
    }
    var col = cacheColumn
    var k = cacheOffset
    while k < offset {
      if b[k] & 0xC0 != 0x80 { col += 1 }
      k += 1
    }
    cacheOffset = offset
    cacheColumn = col
    return col
  }
}
