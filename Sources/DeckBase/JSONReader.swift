#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The one JSON parser of menudeck: RFC 8259 over UTF-8 bytes, keeping the line and column of
/// every value, in two dialects.
///
/// - ``Dialect/document`` (config, catalogs, users): strict, and its messages are for a person
///   editing the file. Rejected, each at the offending byte with what was expected there:
///   trailing commas, comments, single-quoted strings, leading zeros, numbers out of range,
///   invalid escapes, lone surrogates, raw control characters in strings, invalid UTF-8,
///   duplicate keys (both positions named), nesting deeper than ``maxDepth``, and anything after
///   the value. A leading UTF-8 byte order mark is skipped (RFC 8259 section 8.1 allows ignoring
///   it). Lines end with LF or CRLF: a carriage return not followed by a line feed is refused
///   (stricter than RFC 8259, which counts it as white space), the same rule as in every reader.
/// - ``Dialect/protocolLine`` (plugin replies, one line each): what a program writes. `NaN`,
///   `Infinity` and `-Infinity` are numbers (Python writes them by default; the plugin host
///   reports them as non-finite scores, a clearer fault than malformed JSON), as is a number too
///   large for a double (infinity); a repeated key keeps its last value; bytes that are not UTF-8
///   are decoded with replacement characters; any carriage return is white space. Its messages
///   are short ("expected ':'"), for the host to quote with a byte offset. Its numbers are values
///   only (their text is not kept): a rank reply carries millions of them.
///
/// Linear in the input (a 5 MB catalog parses in a fraction of a second). The event reader has a
/// parser of its own for JSON Lines (DeckIO's EventReaderJSON.swift), which never builds a tree.
package enum JSONReader {
  /// The deepest nesting of arrays and objects accepted, by every JSON reader of menudeck (this
  /// one in both dialects, and the event reader's).
  package static let maxDepth = 512

  /// How a JSON text is read; see ``JSONReader``.
  package struct Dialect: Sendable, Equatable {
    /// Messages for people (with what was found and hints at the usual mistakes), or short ones.
    package var explains: Bool
    /// Duplicate keys are refused, or the last one wins.
    package var refusesDuplicateKeys: Bool
    /// `NaN`, `Infinity` and `-Infinity` are numbers, and so is an overflowing number (infinity).
    package var allowsNonFinite: Bool
    /// UTF-8 is checked, a byte order mark skipped and a lone carriage return refused.
    package var checksText: Bool
    /// Numbers keep the text they were written with (for messages that quote it); without it a
    /// number's text is empty, and reading one makes no String.
    package var keepsNumberText: Bool

    /// Config, catalogs and users.
    package static let document = Dialect(
      explains: true, refusesDuplicateKeys: true, allowsNonFinite: false, checksText: true,
      keepsNumberText: true)
    /// One line of the plugin protocol.
    package static let protocolLine = Dialect(
      explains: false, refusesDuplicateKeys: false, allowsNonFinite: true, checksText: false,
      keepsNumberText: false)
  }

  /// Parses one JSON text. `file` names the input in locations.
  package static func parse(_ bytes: [UInt8], file: String, dialect: Dialect = .document)
    throws(JSONSyntaxError) -> JSONValue
  {
    var reader = Reader(bytes: bytes, file: file, dialect: dialect)
    return try reader.document()
  }
}

/// Why a text is not JSON: where (line and column, and the byte offset from the start) and what
/// is wrong there, in the words of the dialect.
package struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
  package var location: SourceLocation
  /// The byte offset the dialect points at (for a protocol line, where reading stopped).
  package var offset: Int
  package var message: String

  package init(location: SourceLocation, offset: Int, message: String) {
    self.location = location
    self.offset = offset
    self.message = message
  }

  package var description: String { "\(location): \(message)" }
}

private let quote = UInt8(ascii: "\"")
private let backslash = UInt8(ascii: "\\")

private struct Reader {
  let b: [UInt8]
  let file: String
  let dialect: JSONReader.Dialect
  var i: Int
  var lines: LineTracker
  var depth = 0
  let lineLocation: SourceLocation

  init(bytes: [UInt8], file: String, dialect: JSONReader.Dialect) {
    self.b = bytes
    self.file = file
    self.dialect = dialect
    let start = dialect.checksText && bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    self.i = start
    self.lines = LineTracker(start: start)
    self.lineLocation = SourceLocation(file: file, line: 1)
  }

  /// Where `offset` is. A protocol line is one line, and its faults are told by byte offset:
  /// its values all carry the line's location, which spares a column count per value.
  mutating func location(_ offset: Int) -> SourceLocation {
    guard dialect.explains else { return lineLocation }
    return SourceLocation(file: file, line: lines.line, column: lines.column(of: offset, in: b))
  }

  /// An error at `offset`: `long` in the document dialect, `short` in the protocol one.
  mutating func fail(at offset: Int, _ long: String, short: String)
    -> JSONSyntaxError
  {
    guard dialect.explains else {
      return JSONSyntaxError(location: location(offset), offset: offset, message: short)
    }
    // Invalid UTF-8 is the real problem wherever it turns up.
    if offset < b.count, b[offset] >= 0x80, utf8SequenceLength(b, offset) == nil {
      return JSONSyntaxError(
        location: location(offset), offset: offset, message: invalidUTF8Message(b, offset))
    }
    return JSONSyntaxError(location: location(offset), offset: offset, message: long)
  }

  /// An error at a location other than the current byte (a document-dialect message).
  func fail(at location: SourceLocation, offset: Int, _ message: String) -> JSONSyntaxError {
    JSONSyntaxError(location: location, offset: offset, message: message)
  }

  mutating func document() throws(JSONSyntaxError) -> JSONValue {
    try skipWhitespace()
    if i >= b.count, dialect.explains {
      throw fail(at: i, "empty input; expected a JSON value", short: "")
    }
    let v = try value()
    try skipWhitespace()
    if i < b.count {
      throw fail(
        at: i,
        "unexpected \(describeByte(b, i)) after the end of the JSON value; "
          + "a file holds one value (wrap several in an array)",
        short: "extra text after the value")
    }
    return v
  }

  /// Skips white space. In the document dialect a carriage return must be followed by a line
  /// feed: CR-only line ends are refused as in every reader (`loneCarriageReturnMessage`),
  /// though JSON would allow them.
  @inline(__always)
  mutating func skipWhitespace() throws(JSONSyntaxError) {
    while i < b.count {
      switch b[i] {
      case UInt8(ascii: " "), UInt8(ascii: "\t"): i += 1
      case UInt8(ascii: "\r"):
        if dialect.checksText, i + 1 >= b.count || b[i + 1] != UInt8(ascii: "\n") {
          throw fail(at: i, loneCarriageReturnMessage, short: "")
        }
        i += 1
      case UInt8(ascii: "\n"):
        lines.newline(at: i)
        i += 1
      default: return
      }
    }
  }

  mutating func value() throws(JSONSyntaxError) -> JSONValue {
    guard i < b.count else {
      throw fail(
        at: i, "unexpected end of the file; expected a value", short: "unexpected end of line")
    }
    let start = i
    switch b[i] {
    case UInt8(ascii: "{"): return try object()
    case UInt8(ascii: "["): return try array()
    case quote:
      let loc = location(start)
      return JSONValue(.string(try string()), at: loc)
    case UInt8(ascii: "-"):
      if dialect.allowsNonFinite, isWord("-Infinity") {
        return number(-.infinity, text: "-Infinity", start)
      }
      return try number()
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
      if isWord("true") { return literal(.bool(true), 4) }
      if isWord("false") { return literal(.bool(false), 5) }
      if isWord("null") { return literal(.null, 4) }
      if dialect.allowsNonFinite {
        if isWord("NaN") { return number(.nan, text: "NaN", start) }
        if isWord("Infinity") { return number(.infinity, text: "Infinity", start) }
      }
      var end = i
      while end < b.count, isWordByte(b[end]) { end += 1 }
      let word = String(decoding: b[i..<end], as: UTF8.self)
      throw fail(
        at: i,
        "expected a value, found '\(word)'; strings need double quotes and the literals are "
          + "true, false and null", short: "expected a value")
    case UInt8(ascii: "'"):
      throw fail(
        at: i, "expected a value, found a single quote; strings need double quotes",
        short: "expected a value")
    case UInt8(ascii: "/"):
      throw fail(at: i, "comments are not allowed in JSON; remove them", short: "expected a value")
    default:
      throw fail(
        at: i,
        "expected a value (object, array, string, number, true, false or null), found "
          + describeByte(b, i), short: "expected a value")
    }
  }

  /// Whether `word` is at `i`: in the document dialect only as a whole word (`nullx` is no
  /// `null`); in the protocol dialect as a prefix, the rest being extra text.
  func isWord(_ word: StaticString) -> Bool {
    let n = word.utf8CodeUnitCount
    guard b.count - i >= n else { return false }
    let w = word.utf8Start
    for k in 0..<n where b[i + k] != w[k] { return false }
    return !dialect.explains || i + n >= b.count || !isWordByte(b[i + n])
  }

  mutating func literal(_ kind: JSONValue.Kind, _ length: Int) -> JSONValue {
    let v = JSONValue(kind, at: location(i))
    i += length
    return v
  }

  /// `NaN`, `Infinity` or `-Infinity` (the protocol dialect), spelled `text`.
  mutating func number(_ d: Double, text: String, _ start: Int) -> JSONValue {
    let kept = dialect.keepsNumberText ? text : ""
    let v = JSONValue(.number(d, text: kept), at: location(start))
    i += text.utf8.count
    return v
  }

  func isWordByte(_ c: UInt8) -> Bool {
    (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z"))
      || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
      || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_")
  }

  mutating func enter(_ offset: Int) throws(JSONSyntaxError) {
    depth += 1
    if depth > JSONReader.maxDepth {
      throw fail(
        at: offset, "nesting deeper than \(JSONReader.maxDepth) levels; flatten the data",
        short: "nested too deeply")
    }
  }

  /// "expected X, found Y", with hints for the usual mistakes.
  mutating func unexpected(_ expected: String, short: String) -> JSONSyntaxError {
    if i < b.count, b[i] == UInt8(ascii: "/") {
      return fail(at: i, "comments are not allowed in JSON; remove them", short: short)
    }
    return fail(at: i, "expected \(expected), found \(describeByte(b, i))", short: short)
  }

  mutating func object() throws(JSONSyntaxError) -> JSONValue {
    let open = i
    let loc = location(open)
    try enter(open)
    i += 1
    var members: [JSONObject.Member] = []
    var indexByKey: [String: Int] = [:]
    try skipWhitespace()
    if i < b.count, b[i] == UInt8(ascii: "}") {
      i += 1
      depth -= 1
      return JSONValue(.object(JSONObject(members: [])), at: loc)
    }
    while true {
      try skipWhitespace()
      guard i < b.count, b[i] == quote else {
        if i < b.count, b[i] == UInt8(ascii: "}"), !members.isEmpty {
          throw fail(
            at: i, "trailing comma before '}'; remove the last comma", short: "expected a key")
        }
        if i >= b.count { throw unclosed("object", "'}'", loc, short: "expected a key") }
        throw unexpected("a field name in double quotes", short: "expected a key")
      }
      let keyLoc = location(i)
      let key = try string()
      var duplicate: Int?
      if let n = indexByKey[key] {
        guard !dialect.refusesDuplicateKeys else {
          let first = members[n].keyLocation
          throw fail(
            at: keyLoc, offset: i,
            "duplicate field '\(key)' (first at line \(first.line), column "
              + "\(first.column ?? 1)); keep one of them")
        }
        duplicate = n
      }
      try skipWhitespace()
      guard i < b.count, b[i] == UInt8(ascii: ":") else {
        if i >= b.count { throw unclosed("object", "'}'", loc, short: "expected ':'") }
        throw unexpected("':' after field name '\(key)'", short: "expected ':'")
      }
      i += 1
      try skipWhitespace()
      if i >= b.count, dialect.explains { throw unclosed("object", "'}'", loc, short: "") }
      let v = try value()
      let member = JSONObject.Member(key: key, keyLocation: keyLoc, value: v)
      if let n = duplicate {
        members[n] = member  // the protocol dialect: the last value wins
      } else {
        indexByKey[key] = members.count
        members.append(member)
      }
      try skipWhitespace()
      guard i < b.count else {
        throw unclosed("object", "'}'", loc, short: "unexpected end of line in an object")
      }
      if b[i] == UInt8(ascii: ",") {
        i += 1
        continue
      }
      if b[i] == UInt8(ascii: "}") {
        i += 1
        break
      }
      throw unexpected("',' or '}' after the value of '\(key)'", short: "expected ',' or '}'")
    }
    depth -= 1
    return JSONValue(.object(JSONObject(members: members, indexByKey: indexByKey)), at: loc)
  }

  mutating func array() throws(JSONSyntaxError) -> JSONValue {
    let open = i
    let loc = location(open)
    try enter(open)
    i += 1
    var elements: [JSONValue] = []
    try skipWhitespace()
    if i < b.count, b[i] == UInt8(ascii: "]") {
      i += 1
      depth -= 1
      return JSONValue(.array([]), at: loc)
    }
    while true {
      try skipWhitespace()
      if dialect.explains {
        guard i < b.count else { throw unclosed("array", "']'", loc, short: "") }
        if b[i] == UInt8(ascii: "]"), !elements.isEmpty {
          throw fail(at: i, "trailing comma before ']'; remove the last comma", short: "")
        }
      }
      elements.append(try value())
      try skipWhitespace()
      guard i < b.count else {
        throw unclosed("array", "']'", loc, short: "unexpected end of line in an array")
      }
      if b[i] == UInt8(ascii: ",") {
        i += 1
        continue
      }
      if b[i] == UInt8(ascii: "]") {
        i += 1
        break
      }
      throw unexpected("',' or ']' after an array element", short: "expected ',' or ']'")
    }
    depth -= 1
    return JSONValue(.array(elements), at: loc)
  }

  mutating func unclosed(
    _ what: String, _ closer: String, _ opened: SourceLocation, short: String
  ) -> JSONSyntaxError {
    fail(
      at: i,
      "unexpected end of the file; expected \(closer) to close the \(what) opened at line "
        + "\(opened.line), column \(opened.column ?? 1)", short: short)
  }

  /// A string starting at the opening quote at `i`; leaves `i` after the closing quote.
  mutating func string() throws(JSONSyntaxError) -> String {
    let open = i
    i += 1
    var runStart = i
    var buffer: [UInt8] = []
    var escaped = false
    while true {
      guard i < b.count else {
        if dialect.explains {
          throw fail(
            at: location(open), offset: i, "unterminated string; add the closing '\"'")
        }
        throw fail(at: i, "", short: "unterminated string")
      }
      let c = b[i]
      if c == quote {
        let result: String
        if escaped {
          buffer.append(contentsOf: b[runStart..<i])
          result = String(decoding: buffer, as: UTF8.self)
        } else {
          result = String(decoding: b[runStart..<i], as: UTF8.self)
        }
        i += 1
        return result
      }
      if c == backslash {
        buffer.append(contentsOf: b[runStart..<i])
        escaped = true
        try escape(into: &buffer)
        runStart = i
        continue
      }
      if c < 0x20 {
        if c == UInt8(ascii: "\n") || c == UInt8(ascii: "\r") {
          throw fail(
            at: i, "line break inside a string; write it as \\n, or add the missing closing '\"'",
            short: "control character in a string")
        }
        throw fail(
          at: i,
          "control character \(scalarName(UInt32(c))) inside a string; write it as "
            + "\\u00\(hexByte(c).dropFirst(2))", short: "control character in a string")
      }
      if c < 0x80 || !dialect.checksText {
        i += 1
        continue
      }
      guard let len = utf8SequenceLength(b, i) else {
        throw fail(at: location(i), offset: i, invalidUTF8Message(b, i))
      }
      i += len
    }
  }

  /// An escape sequence at `i` (the backslash); appends its UTF-8 and moves past it. The
  /// protocol dialect points at the byte where reading stopped, the document one at the escape.
  mutating func escape(into buffer: inout [UInt8]) throws(JSONSyntaxError) {
    let start = i
    guard i + 1 < b.count else {
      if !dialect.explains {
        i = b.count
        throw fail(at: i, "", short: "unterminated string")
      }
      throw fail(at: i, "unterminated escape at the end of the file", short: "")
    }
    let e = b[i + 1]
    i += 2
    switch e {
    case quote: buffer.append(quote)
    case backslash: buffer.append(backslash)
    case UInt8(ascii: "/"): buffer.append(UInt8(ascii: "/"))
    case UInt8(ascii: "b"): buffer.append(0x08)
    case UInt8(ascii: "f"): buffer.append(0x0C)
    case UInt8(ascii: "n"): buffer.append(0x0A)
    case UInt8(ascii: "r"): buffer.append(0x0D)
    case UInt8(ascii: "t"): buffer.append(0x09)
    case UInt8(ascii: "u"):
      let first = try hex4(escapeStart: start)
      var scalar = first
      if (0xD800...0xDBFF).contains(first) {
        let lowStart = i
        guard i + 1 < b.count, b[i] == backslash, b[i + 1] == UInt8(ascii: "u") else {
          throw fail(
            at: dialect.explains ? start : i,
            "lone surrogate \\u\(scalarName(first).dropFirst(2)); a high surrogate must be "
              + "followed by a low surrogate escape \\uDC00-\\uDFFF", short: "bad \\u escape")
        }
        i += 2
        let second = try hex4(escapeStart: lowStart)
        guard (0xDC00...0xDFFF).contains(second) else {
          throw fail(
            at: dialect.explains ? lowStart : i,
            "\\u\(scalarName(second).dropFirst(2)) is not a low surrogate; a high surrogate "
              + "must be followed by \\uDC00-\\uDFFF", short: "bad surrogate pair")
        }
        scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
      } else if (0xDC00...0xDFFF).contains(first) {
        throw fail(
          at: dialect.explains ? start : i,
          "lone surrogate \\u\(scalarName(first).dropFirst(2)); a low surrogate must follow a "
            + "high surrogate \\uD800-\\uDBFF", short: "bad \\u escape")
      }
      appendUTF8(scalar, to: &buffer)
    default:
      let stop = i
      i = start + 1
      throw fail(
        at: dialect.explains ? start : stop,
        "invalid escape '\\\(describeEscape(e))'; valid escapes are \\\" \\\\ \\/ \\b \\f \\n "
          + "\\r \\t and \\uXXXX", short: "bad escape")
    }
  }

  func describeEscape(_ e: UInt8) -> String {
    (0x21..<0x7F).contains(e) ? String(Character(Unicode.Scalar(e))) : hexByte(e)
  }

  /// Four hex digits at `i`; moves past them.
  mutating func hex4(escapeStart: Int) throws(JSONSyntaxError) -> UInt32 {
    var v: UInt32 = 0
    for k in 0..<4 {
      guard i + k < b.count, let d = hexValue(b[i + k]) else {
        let at = dialect.explains ? escapeStart : (b.count - i < 4 ? i : i + k)
        throw fail(at: at, "\\u must be followed by four hex digits", short: "bad \\u escape")
      }
      v = v << 4 | d
    }
    i += 4
    return v
  }

  func hexValue(_ c: UInt8) -> UInt32? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(c - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(c - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(c - UInt8(ascii: "A") + 10)
    default: return nil
    }
  }

  @inline(__always)
  func isDigit(_ k: Int) -> Bool {
    k < b.count && b[k] >= UInt8(ascii: "0") && b[k] <= UInt8(ascii: "9")
  }

  /// The value of the number just scanned (`start..<i`), read by `strtod` from a terminated copy
  /// of its bytes: no String per number, for replies that carry millions of them. Overflow
  /// gives an infinity, as the protocol dialect allows.
  func protocolNumber(from start: Int) -> Double {
    let count = i - start
    return b.withUnsafeBufferPointer { bytes in
      withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { copy in
        for k in 0..<count { copy[k] = CChar(bitPattern: bytes[start + k]) }
        copy[count] = 0
        return strtod(copy.baseAddress!, nil)
      }
    }
  }

  /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
  mutating func number() throws(JSONSyntaxError) -> JSONValue {
    let start = i
    let loc = location(start)
    func text(_ end: Int) -> String { String(decoding: b[start..<end], as: UTF8.self) }
    if b[i] == UInt8(ascii: "-") { i += 1 }
    guard isDigit(i) else {
      throw fail(
        at: i, "expected a digit after '-', found \(describeByte(b, i))", short: "expected a digit")
    }
    if b[i] == UInt8(ascii: "0") {
      i += 1
      // The protocol dialect reads "01" as 0 followed by extra text.
      if isDigit(i), dialect.explains {
        var end = i
        while isDigit(end) { end += 1 }
        throw fail(
          at: loc, offset: start, "number '\(text(end))' has a leading zero; remove it")
      }
    } else {
      while isDigit(i) { i += 1 }
    }
    if i < b.count, b[i] == UInt8(ascii: ".") {
      i += 1
      guard isDigit(i) else {
        throw fail(
          at: i, "expected a digit after the '.' of '\(text(i))', found \(describeByte(b, i))",
          short: "expected a digit after '.'")
      }
      while isDigit(i) { i += 1 }
    }
    if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
      i += 1
      if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
      guard isDigit(i) else {
        throw fail(
          at: i, "expected a digit in the exponent of '\(text(i))', found \(describeByte(b, i))",
          short: "expected a digit in the exponent")
      }
      while isDigit(i) { i += 1 }
    }
    if !dialect.keepsNumberText {
      return JSONValue(.number(protocolNumber(from: start), text: ""), at: loc)
    }
    let t = text(i)
    // Out of range is infinity (a protocol line may say so; a document may not).
    let d = Double(t) ?? (b[start] == UInt8(ascii: "-") ? -.infinity : .infinity)
    guard d.isFinite || dialect.allowsNonFinite else {
      throw fail(at: loc, offset: start, "number '\(t)' is too large")
    }
    return JSONValue(.number(d, text: t), at: loc)
  }
}

/// Appends the UTF-8 of a scalar value known to be valid (not a surrogate, at most U+10FFFF).
@inline(__always)
package func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
  switch scalar {
  case 0..<0x80:
    out.append(UInt8(scalar))
  case 0x80..<0x800:
    out.append(0xC0 | UInt8(scalar >> 6))
    out.append(0x80 | UInt8(scalar & 0x3F))
  case 0x800..<0x10000:
    out.append(0xE0 | UInt8(scalar >> 12))
    out.append(0x80 | UInt8((scalar >> 6) & 0x3F))
    out.append(0x80 | UInt8(scalar & 0x3F))
  default:
    out.append(0xF0 | UInt8(scalar >> 18))
    out.append(0x80 | UInt8((scalar >> 12) & 0x3F))
    out.append(0x80 | UInt8((scalar >> 6) & 0x3F))
    out.append(0x80 | UInt8(scalar & 0x3F))
  }
}
