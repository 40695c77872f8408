/// A strict RFC 8259 JSON parser over UTF-8 bytes that keeps the line and column of every value.
///
/// Meant for config, catalogs and users, where a clear message matters more than raw speed; it is
/// still linear in the input (a 5 MB catalog parses in a fraction of a second).
///
/// Rejected, each with the line and column of the offending byte and what was expected there:
/// trailing commas, comments, single-quoted strings, leading zeros, numbers out of range, invalid
/// escapes, lone surrogates, raw control characters in strings, invalid UTF-8, duplicate keys
/// (both positions named), nesting deeper than ``maxDepth``, and anything after the value.
/// A leading UTF-8 byte order mark is skipped (RFC 8259 section 8.1 allows ignoring it).
/// Lines end with LF or CRLF: a carriage return not followed by a line feed is refused (stricter
/// than RFC 8259, which counts it as white space), the same rule as in every other reader.
public enum JSONParser {
  /// The deepest nesting of arrays and objects accepted.
  public static let maxDepth = 512

  /// Parses one JSON document. `file` is used in error locations.
  public static func parse(_ bytes: [UInt8], file: String) throws(DeckIOError) -> JSONValue {
    var p = Parser(bytes: bytes, file: file)
    return try p.document()
  }

  /// Parses one JSON document from text.
  public static func parse(_ text: String, file: String) throws(DeckIOError) -> JSONValue {
    try parse(Array(text.utf8), file: file)
  }
}

private let quote = UInt8(ascii: "\"")
private let backslash = UInt8(ascii: "\\")

private struct Parser {
  let b: [UInt8]
  let file: String
  var i: Int
  var lines: LineTracker
  var depth = 0

  init(bytes: [UInt8], file: String) {
    self.b = bytes
    self.file = file
    let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    self.i = start
    self.lines = LineTracker(start: start)
  }

  mutating func location(_ offset: Int) -> SourceLocation {
    SourceLocation(file: file, line: lines.line, column: lines.column(of: offset, in: b))
  }

  mutating func fail(at offset: Int, _ message: String) -> DeckIOError {
    // Invalid UTF-8 is the real problem wherever it turns up.
    if offset < b.count, b[offset] >= 0x80, utf8SequenceLength(b, offset) == nil {
      return .malformed(location(offset), message: invalidUTF8Message(b, offset))
    }
    return .malformed(location(offset), message: message)
  }

  mutating func document() throws(DeckIOError) -> JSONValue {
    try skipWhitespace()
    if i >= b.count { throw fail(at: i, "empty input; expected a JSON value") }
    let v = try value()
    try skipWhitespace()
    if i < b.count {
      throw fail(
        at: i,
        "unexpected \(describeByte(b, i)) after the end of the JSON value; "
          + "a file holds one value (wrap several in an array)")
    }
    return v
  }

  /// Skips white space. A carriage return must be followed by a line feed: CR-only line ends
  /// are refused as in every reader (`loneCarriageReturnMessage`), though JSON would allow them.
  @inline(__always)
  mutating func skipWhitespace() throws(DeckIOError) {
    while i < b.count {
      switch b[i] {
      case UInt8(ascii: " "), UInt8(ascii: "\t"): i += 1
      case UInt8(ascii: "\r"):
        guard i + 1 < b.count, b[i + 1] == UInt8(ascii: "\n") else {
          throw fail(at: i, loneCarriageReturnMessage)
        }
        i += 1
      case UInt8(ascii: "\n"):
        lines.newline(at: i)
        i += 1
      default: return
      }
    }
  }

  mutating func value() throws(DeckIOError) -> JSONValue {
    guard i < b.count else { throw fail(at: i, "unexpected end of the file; expected a value") }
    let start = i
    switch b[i] {
    case UInt8(ascii: "{"): return try object()
    case UInt8(ascii: "["): return try array()
    case quote:
      let loc = location(start)
      return JSONValue(.string(try string()), at: loc)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
      var end = i
      while end < b.count, isWordByte(b[end]) { end += 1 }
      let word = String(decoding: b[i..<end], as: UTF8.self)
      let loc = location(start)
      switch word {
      case "true":
        i = end
        return JSONValue(.bool(true), at: loc)
      case "false":
        i = end
        return JSONValue(.bool(false), at: loc)
      case "null":
        i = end
        return JSONValue(.null, at: loc)
      default:
        throw .malformed(
          loc,
          message: "expected a value, found '\(word)'; strings need double quotes and the "
            + "literals are true, false and null")
      }
    case UInt8(ascii: "'"):
      throw fail(at: i, "expected a value, found a single quote; strings need double quotes")
    case UInt8(ascii: "/"):
      throw fail(at: i, "comments are not allowed in JSON; remove them")
    default:
      throw fail(
        at: i,
        "expected a value (object, array, string, number, true, false or null), found "
          + describeByte(b, i))
    }
  }

  func isWordByte(_ c: UInt8) -> Bool {
    (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z"))
      || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z"))
      || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: "_")
  }

  mutating func enter(_ offset: Int) throws(DeckIOError) {
    depth += 1
    if depth > JSONParser.maxDepth {
      throw fail(at: offset, "nesting deeper than \(JSONParser.maxDepth) levels; flatten the data")
    }
  }

  /// "expected X, found Y", with hints for the usual mistakes.
  mutating func unexpected(_ expected: String) -> DeckIOError {
    if i < b.count, b[i] == UInt8(ascii: "/") {
      return fail(at: i, "comments are not allowed in JSON; remove them")
    }
    return fail(at: i, "expected \(expected), found \(describeByte(b, i))")
  }

  mutating func object() throws(DeckIOError) -> JSONValue {
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
          throw fail(at: i, "trailing comma before '}'; remove the last comma")
        }
        if i >= b.count { throw unclosed("object", "'}'", loc) }
        throw unexpected("a field name in double quotes")
      }
      let keyLoc = location(i)
      let key = try string()
      if let n = indexByKey[key] {
        let first = members[n].keyLocation
        throw .malformed(
          keyLoc,
          message: "duplicate field '\(key)' (first at line \(first.line), column "
            + "\(first.column ?? 1)); keep one of them")
      }
      indexByKey[key] = members.count
      try skipWhitespace()
      guard i < b.count, b[i] == UInt8(ascii: ":") else {
        if i >= b.count { throw unclosed("object", "'}'", loc) }
        throw unexpected("':' after field name '\(key)'")
      }
      i += 1
      try skipWhitespace()
      if i >= b.count { throw unclosed("object", "'}'", loc) }
      let v = try value()
      members.append(JSONObject.Member(key: key, keyLocation: keyLoc, value: v))
      try skipWhitespace()
      guard i < b.count else { throw unclosed("object", "'}'", loc) }
      if b[i] == UInt8(ascii: ",") {
        i += 1
        continue
      }
      if b[i] == UInt8(ascii: "}") {
        i += 1
        break
      }
      throw unexpected("',' or '}' after the value of '\(key)'")
    }
    depth -= 1
    return JSONValue(.object(JSONObject(members: members, indexByKey: indexByKey)), at: loc)
  }

  mutating func array() throws(DeckIOError) -> JSONValue {
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
      guard i < b.count else { throw unclosed("array", "']'", loc) }
      if b[i] == UInt8(ascii: "]"), !elements.isEmpty {
        throw fail(at: i, "trailing comma before ']'; remove the last comma")
      }
      elements.append(try value())
      try skipWhitespace()
      guard i < b.count else { throw unclosed("array", "']'", loc) }
      if b[i] == UInt8(ascii: ",") {
        i += 1
        continue
      }
      if b[i] == UInt8(ascii: "]") {
        i += 1
        break
      }
      throw unexpected("',' or ']' after an array element")
    }
    depth -= 1
    return JSONValue(.array(elements), at: loc)
  }

  mutating func unclosed(_ what: String, _ closer: String, _ opened: SourceLocation) -> DeckIOError
  {
    fail(
      at: i,
      "unexpected end of the file; expected \(closer) to close the \(what) opened at line "
        + "\(opened.line), column \(opened.column ?? 1)")
  }

  /// A string starting at the opening quote at `i`; leaves `i` after the closing quote.
  mutating func string() throws(DeckIOError) -> String {
    let open = i
    i += 1
    var runStart = i
    var buffer: [UInt8] = []
    var escaped = false
    while true {
      guard i < b.count else {
        throw .malformed(
          location(open), message: "unterminated string; add the closing '\"'")
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
            at: i, "line break inside a string; write it as \\n, or add the missing closing '\"'")
        }
        throw fail(
          at: i,
          "control character \(scalarName(UInt32(c))) inside a string; write it as "
            + "\\u00\(hexByte(c).dropFirst(2))")
      }
      if c < 0x80 {
        i += 1
        continue
      }
      guard let len = utf8SequenceLength(b, i) else {
        throw .malformed(location(i), message: invalidUTF8Message(b, i))
      }
      i += len
    }
  }

  /// An escape sequence at `i` (the backslash); appends its UTF-8 and moves past it.
  mutating func escape(into buffer: inout [UInt8]) throws(DeckIOError) {
    let start = i
    guard i + 1 < b.count else {
      throw fail(at: i, "unterminated escape at the end of the file")
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
            at: start,
            "lone surrogate \\u\(scalarName(first).dropFirst(2)); a high surrogate must be "
              + "followed by a low surrogate escape \\uDC00-\\uDFFF")
        }
        i += 2
        let second = try hex4(escapeStart: lowStart)
        guard (0xDC00...0xDFFF).contains(second) else {
          throw fail(
            at: lowStart,
            "\\u\(scalarName(second).dropFirst(2)) is not a low surrogate; a high surrogate "
              + "must be followed by \\uDC00-\\uDFFF")
        }
        scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
      } else if (0xDC00...0xDFFF).contains(first) {
        throw fail(
          at: start,
          "lone surrogate \\u\(scalarName(first).dropFirst(2)); a low surrogate must follow a "
            + "high surrogate \\uD800-\\uDBFF")
      }
      buffer.append(contentsOf: Array(String(Unicode.Scalar(scalar)!).utf8))
    default:
      i = start + 1
      throw fail(
        at: start,
        "invalid escape '\\\(describeEscape(e))'; valid escapes are \\\" \\\\ \\/ \\b \\f \\n "
          + "\\r \\t and \\uXXXX")
    }
  }

  func describeEscape(_ e: UInt8) -> String {
    (0x21..<0x7F).contains(e) ? String(Character(Unicode.Scalar(e))) : hexByte(e)
  }

  /// Four hex digits at `i`; moves past them.
  mutating func hex4(escapeStart: Int) throws(DeckIOError) -> UInt32 {
    var v: UInt32 = 0
    for k in 0..<4 {
      guard i + k < b.count, let d = hexValue(b[i + k]) else {
        throw fail(at: escapeStart, "\\u must be followed by four hex digits")
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

  /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
  mutating func number() throws(DeckIOError) -> JSONValue {
    let start = i
    let loc = location(start)
    func text(_ end: Int) -> String { String(decoding: b[start..<end], as: UTF8.self) }
    if b[i] == UInt8(ascii: "-") { i += 1 }
    guard isDigit(i) else {
      throw fail(at: i, "expected a digit after '-', found \(describeByte(b, i))")
    }
    if b[i] == UInt8(ascii: "0") {
      i += 1
      if isDigit(i) {
        var end = i
        while isDigit(end) { end += 1 }
        throw .malformed(
          loc, message: "number '\(text(end))' has a leading zero; remove it")
      }
    } else {
      while isDigit(i) { i += 1 }
    }
    if i < b.count, b[i] == UInt8(ascii: ".") {
      i += 1
      guard isDigit(i) else {
        throw fail(
          at: i, "expected a digit after the '.' of '\(text(i))', found \(describeByte(b, i))")
      }
      while isDigit(i) { i += 1 }
    }
    if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
      i += 1
      if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
      guard isDigit(i) else {
        throw fail(
          at: i, "expected a digit in the exponent of '\(text(i))', found \(describeByte(b, i))")
      }
      while isDigit(i) { i += 1 }
    }
    let t = text(i)
    guard let d = Double(t), d.isFinite else {
      throw .malformed(loc, message: "number '\(t)' is too large")
    }
    return JSONValue(.number(d, text: t), at: loc)
  }
}
