/// The parser behind `JSONReader.parse`: a cursor over the bytes, the dialect's rules, and the
/// line count for locations. One value per call of `value()`: objects and arrays
/// (JSONReaderContainers.swift), strings (JSONReaderStrings.swift) and numbers
/// (JSONReaderNumbers.swift) each in a file of their own.
struct JSONTreeReader {
  static let quote = UInt8(ascii: "\"")
  static let backslash = UInt8(ascii: "\\")

  let b: [UInt8]
  let file: String
  let dialect: JSONReader.Dialect
  var i: Int
  var lines: LineTracker
  var depth = 0
  let fileNumber: UInt32

  init(bytes: [UInt8], file: String, dialect: JSONReader.Dialect) {
    self.b = bytes
    self.file = file
    self.dialect = dialect
    let start = dialect.checksText && bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    self.i = start
    self.lines = LineTracker(start: start)
    self.fileNumber = JSONSourceNames.number(file)
  }

  /// Where `offset` is, for a value. A protocol line is one line, and its faults are told by
  /// byte offset: its values all carry the line's position, which spares a column count per
  /// value.
  @inline(__always)
  mutating func position(_ offset: Int) -> JSONPosition {
    guard dialect.explains else { return JSONPosition(file: fileNumber, line: 1, column: nil) }
    return JSONPosition(
      file: fileNumber, line: lines.line, column: lines.column(of: offset, in: b))
  }

  /// Where `offset` is, for a message.
  mutating func location(_ offset: Int) -> SourceLocation {
    guard dialect.explains else { return SourceLocation(file: file, line: 1) }
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

  /// Skips white space. A carriage return is white space (RFC 8259); one not followed by a line
  /// feed ends a line for locations (CR-only line ends), or is refused in the record dialect
  /// (`loneCarriageReturnMessage`: the rule of line records).
  @inline(__always)
  mutating func skipWhitespace() throws(JSONSyntaxError) {
    while i < b.count {
      switch b[i] {
      case UInt8(ascii: " "), UInt8(ascii: "\t"): i += 1
      case UInt8(ascii: "\r"):
        if i + 1 >= b.count || b[i + 1] != UInt8(ascii: "\n") {
          if dialect.refusesLoneCarriageReturn {
            throw fail(at: i, loneCarriageReturnMessage, short: "")
          }
          lines.newline(at: i)
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
    case Self.quote:
      let loc = position(start)
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
    let v = JSONValue(kind, at: position(i))
    i += length
    return v
  }

  /// `NaN`, `Infinity` or `-Infinity` (the protocol dialect), spelled `text`.
  mutating func number(_ d: Double, text: String, _ start: Int) -> JSONValue {
    let kept = dialect.keepsNumberText ? text : ""
    let v = JSONValue(.number(d, text: kept), at: position(start))
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
}
