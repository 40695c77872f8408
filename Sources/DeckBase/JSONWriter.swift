/// The one JSON writer of menudeck: every JSON document, JSON Lines record, run header and plugin
/// protocol message is written through it, so one string or number is always the same bytes.
///
/// It streams to a byte buffer (`bytes`) and puts the commas itself: a value or key written in a
/// container that already holds one is preceded by `,`. It does not indent on its own: the few
/// outputs laid out on several lines ask for their line breaks and spaces with `layout(_:)`,
/// which is written after the comma of the next value (so `,\n"rows":` and `\n]` both come out
/// as the outputs have always had them).
///
/// Strings are escaped per RFC 8259 (`appendString`, the one escaper: quote, backslash and
/// control characters as `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f` or `\u00XX`, everything else,
/// non-ASCII included, as is). Numbers are written in the forms the outputs have always used:
/// `number` (a whole number below 1e15 without a point, else the shortest round-trip form),
/// `roundTrip` (always with a point or an exponent), `plainDecimal` (never an exponent), `fixed`
/// (fixed decimals) and `int`. JSON has
/// no NaN or infinity: `number` and `roundTrip` write a non-finite value as `null`.
package struct JSONWriter {
  /// The text written so far.
  package var bytes: [UInt8]
  /// Compact (the default) or with a space after each colon and comma.
  package var style: Style

  // The state is `@usableFromInline` and the small methods `@inlinable`, so that the writers of
  // other modules (decks, logs, plugin messages: millions of values) inline them.

  /// How many containers are open.
  @usableFromInline var depth = 0
  /// Bit `d - 1`: the open container at depth `d` (1 to 64) holds a value already.
  @usableFromInline var holdsBits: UInt64 = 0
  /// The same for containers deeper than 64 (a parsed value written back), innermost last.
  @usableFromInline var deepHolds: [Bool] = []
  /// A key was written and its value not yet.
  @usableFromInline var afterKey = false
  /// Layout white space waiting for the next token (after its comma).
  @usableFromInline var pendingLayout: [UInt8] = []

  package enum Style: Sendable {
    /// `{"key":value,"other":[1,2]}`
    case compact
    /// `{"key": value, "other": [1, 2]}` (the sample data's files); a comma followed by layout
    /// (`layout(_:)`) takes the layout instead of the space.
    case spaced
  }

  @inlinable package init(capacity: Int = 0, style: Style = .compact) {
    bytes = []
    bytes.reserveCapacity(capacity)
    self.style = style
  }

  /// Writes whole values at the end of `buffer` in place (no copy): for writers that keep one
  /// buffer for several formats.
  @inlinable package static func append(
    to buffer: inout [UInt8], _ body: (inout JSONWriter) -> Void
  ) {
    var w = JSONWriter()
    swap(&w.bytes, &buffer)
    body(&w)
    precondition(w.isComplete, "a value left open")
    swap(&w.bytes, &buffer)
  }

  /// The text of the values `body` writes: for the few values kept as JSON text to be written
  /// later with `fragment` (a report parameter of any type, a run's setting).
  package static func text(style: Style = .compact, _ body: (inout JSONWriter) -> Void) -> String {
    var w = JSONWriter(style: style)
    body(&w)
    precondition(w.isComplete, "a value left open")
    return w.text
  }

  /// The text written so far, as a String.
  package var text: String { String(decoding: bytes, as: UTF8.self) }

  /// No container is open and no key waits for its value: the text is one or more whole values.
  package var isComplete: Bool { depth == 0 && !afterKey }

  // MARK: - Structure

  @inlinable package mutating func beginObject() { begin(UInt8(ascii: "{")) }

  @inlinable package mutating func endObject() {
    precondition(!afterKey, "a key without its value")
    end(UInt8(ascii: "}"))
  }

  @inlinable package mutating func beginArray() { begin(UInt8(ascii: "[")) }

  @inlinable package mutating func endArray() {
    precondition(!afterKey, "a key inside an array")
    end(UInt8(ascii: "]"))
  }

  /// Opens an object or an array with its bracket.
  @inlinable @inline(__always) mutating func begin(_ bracket: UInt8) {
    beforeValue()
    bytes.append(bracket)
    open()
  }

  /// Closes the innermost object or array with its bracket, after any layout that waits.
  @inlinable @inline(__always) mutating func end(_ bracket: UInt8) {
    flushLayout()
    bytes.append(bracket)
    close()
  }

  /// An object member's key; the next call writes its value.
  @inlinable package mutating func key(_ k: String) {
    precondition(!afterKey, "two keys in a row")
    beforeValue()
    JSONWriter.appendString(k, to: &bytes)
    switch style {
    case .compact: bytes.append(UInt8(ascii: ":"))
    case .spaced: bytes.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
    }
    afterKey = true
  }

  /// White space laid out between tokens (`"\n"`, `"\n  "`): written before the next token and
  /// after its comma, or at once when no comma can come (at the top level, after a key or right
  /// after an opening bracket). Only spaces and line breaks.
  package mutating func layout(_ whitespace: StaticString) {
    let text = UnsafeBufferPointer(
      start: whitespace.utf8Start, count: whitespace.utf8CodeUnitCount)
    precondition(text.allSatisfy { $0 == 0x20 || $0 == 0x0A }, "layout is only white space")
    if afterKey || !holdsValue {
      bytes.append(contentsOf: text)
    } else {
      pendingLayout.append(contentsOf: text)
    }
  }

  // MARK: - Values

  @inlinable package mutating func string(_ s: String) {
    beforeValue()
    JSONWriter.appendString(s, to: &bytes)
  }

  /// A string, or `null` for nil.
  @inlinable package mutating func string(_ s: String?) {
    if let s { string(s) } else { null() }
  }

  /// Bytes (UTF-8 or not: a rejected log line is written as it came) as a JSON string.
  @inlinable package mutating func string(bytes raw: UnsafeBufferPointer<UInt8>) {
    beforeValue()
    JSONWriter.appendString(bytes: raw, to: &bytes)
  }

  /// A list of strings as an array.
  @inlinable package mutating func strings(_ list: [String]) {
    beginArray()
    for s in list { string(s) }
    endArray()
  }

  /// A number in the outputs' one form (`Text.number`): a whole number below 1e15 in
  /// magnitude without a point (`980`, `-3`, `0` for -0), else Swift's shortest round-trip form
  /// (`2.5`, `1e-07`, `1e+21`). A non-finite value, which JSON cannot hold, is `null`.
  @inlinable package mutating func number(_ value: Double) {
    guard value.isFinite else { return null() }
    beforeValue()
    bytes.append(contentsOf: JSONWriter.numberText(value).utf8)
  }

  /// A number, or `null` for nil.
  @inlinable package mutating func number(_ value: Double?) {
    if let value { number(value) } else { null() }
  }

  /// A number always typed as a float (`Text.roundTrip`: `0.0`, `1.0`, `0.5`, `1e-07`); a
  /// non-finite value is `null`.
  @inlinable package mutating func roundTrip(_ value: Double) {
    guard value.isFinite else { return null() }
    beforeValue()
    bytes.append(contentsOf: Text.roundTrip(value).utf8)
  }

  /// A number with exactly `decimals` digits after the point (`Text.appendFixed`).
  @inlinable package mutating func fixed(_ value: Double, decimals: Int) {
    beforeValue()
    Text.appendFixed(value, decimals: decimals, to: &bytes)
  }

  /// A finite number in plain decimal with its shortest round-trip digits, never an exponent
  /// (`Text.plainDecimal`: `0.125`, `390`, `0.00000125`): propensities and exact scores.
  @inlinable package mutating func plainDecimal(_ value: Double) {
    precondition(value.isFinite, "only finite numbers are written in plain decimal")
    beforeValue()
    bytes.append(contentsOf: Text.plainDecimal(value).utf8)
  }

  // Integers take concrete types, not a generic `BinaryInteger`: a generic call from another
  // module that is not specialized looks up type metadata for every number.
  @inlinable package mutating func int(_ value: Int) { int(Int64(value)) }

  @inlinable package mutating func int(_ value: Int32) { int(Int64(value)) }

  @inlinable package mutating func int(_ value: Int64) {
    beforeValue()
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    Text.appendInt(value.magnitude, to: &bytes)
  }

  @inlinable package mutating func int(_ value: UInt64) {
    beforeValue()
    Text.appendInt(value, to: &bytes)
  }

  /// An integer, or `null` for nil.
  @inlinable package mutating func int(_ value: Int?) {
    if let value { int(value) } else { null() }
  }

  @inlinable package mutating func bool(_ value: Bool) {
    beforeValue()
    bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
  }

  @inlinable package mutating func null() {
    beforeValue()
    bytes.append(contentsOf: "null".utf8)
  }

  /// A parsed value: numbers in `number`'s form, object keys sorted (so that a value written
  /// twice gives the same bytes). `quoting`: the text quotes a value in a message (what a
  /// plugin sent), and a non-finite number is written as Swift spells it (`nan`, `inf`), which
  /// is not JSON, rather than as `null`.
  package mutating func value(_ v: JSONValue, quoting: Bool = false) {
    switch v.kind {
    case .null: null()
    case .bool(let b): bool(b)
    case .number(let d, _) where quoting && !d.isFinite:
      beforeValue()
      bytes.append(contentsOf: String(d).utf8)
    case .number(let d, _): number(d)
    case .string(let s): string(s)
    case .array(let a):
      beginArray()
      for e in a { value(e, quoting: quoting) }
      endArray()
    case .object(let o):
      beginObject()
      for k in o.keys.sorted() {
        key(k)
        value(o[k]!, quoting: quoting)
      }
      endObject()
    }
  }

  /// A number written back as an input spelt it (`1e3`, `0.50`: a config value kept as the user
  /// wrote it). `text` must be a JSON number (RFC 8259's grammar), which is checked.
  package mutating func number(text: String) {
    precondition(JSONWriter.isNumber(text), "not a JSON number: \(text)")
    beforeValue()
    bytes.append(contentsOf: text.utf8)
  }

  /// A parsed value as it was read: object members in document order, numbers as spelt in the
  /// input (`number(text:)`; `roundTrip` for a number with no text). One line, in this writer's
  /// style.
  package mutating func valueAsRead(_ v: JSONValue) {
    switch v.kind {
    case .number(let d, let text):
      if text.isEmpty { roundTrip(d) } else { number(text: text) }
    case .array(let a):
      beginArray()
      for e in a { valueAsRead(e) }
      endArray()
    case .object(let o):
      beginObject()
      for m in o.members {
        key(m.key)
        valueAsRead(m.value)
      }
      endObject()
    default: value(v)
    }
  }

  /// RFC 8259's number: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
  package static func isNumber(_ text: String) -> Bool {
    let b = Array(text.utf8)
    var i = 0
    func digits() -> Int {
      let start = i
      while i < b.count && b[i] >= 0x30 && b[i] <= 0x39 { i += 1 }
      return i - start
    }
    if i < b.count && b[i] == UInt8(ascii: "-") { i += 1 }
    if i < b.count && b[i] == 0x30 {
      i += 1
    } else if digits() == 0 {
      return false
    }
    if i < b.count && b[i] == UInt8(ascii: ".") {
      i += 1
      if digits() == 0 { return false }
    }
    if i < b.count && (b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E")) {
      i += 1
      if i < b.count && (b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-")) { i += 1 }
      if digits() == 0 { return false }
    }
    return i == b.count
  }

  /// A value already written as JSON text (by another `JSONWriter`: a run's settings, a plugin's
  /// options): appended as it is. Only for text this writer made.
  @inlinable package mutating func fragment(_ json: String) {
    beforeValue()
    bytes.append(contentsOf: json.utf8)
  }

  /// Members of the open object already written as JSON text, `"k":v,"k":v` (made once by
  /// another `JSONWriter`, for text repeated in every record: a deck card's dish), appended as
  /// they are, after a comma when the object holds a member.
  @inlinable package mutating func members(bytes json: [UInt8]) {
    precondition(!afterKey, "members after a key")
    beforeValue()
    bytes.append(contentsOf: json)
  }

  /// One whole value whose compact JSON text `body` appends to `bytes` itself: for a writer
  /// that lays out millions of values of one known shape (a deck's cards) without a call per
  /// token. The writer puts the comma before it, as before any value.
  @inlinable package mutating func value(appending body: (inout [UInt8]) -> Void) {
    precondition(style == .compact, "a value laid out by its writer is compact")
    beforeValue()
    body(&bytes)
  }

  /// A value already written as JSON bytes, appended as they are (see `fragment(_:)`).
  @inlinable package mutating func fragment(bytes json: [UInt8]) {
    beforeValue()
    bytes.append(contentsOf: json)
  }

  /// A value already written as JSON bytes: a slice of text that holds several.
  @inlinable package mutating func fragment(bytes json: ArraySlice<UInt8>) {
    beforeValue()
    bytes.append(contentsOf: json)
  }

  /// An array with one element per line: `[]` when empty, else `[`, each element on a line of
  /// its own, and `]` on the last.
  package mutating func arrayOfLines<S: Sequence>(
    _ elements: S, _ element: (inout JSONWriter, S.Element) -> Void
  ) {
    beginArray()
    var any = false
    for e in elements {
      layout("\n")
      element(&self, e)
      any = true
    }
    if any { layout("\n") }
    endArray()
  }

  /// An array of one object per element: `members` writes each element's members.
  package mutating func arrayOfObjects<S: Sequence>(
    _ elements: S, _ members: (inout JSONWriter, S.Element) -> Void
  ) {
    beginArray()
    for e in elements {
      beginObject()
      members(&self, e)
      endObject()
    }
    endArray()
  }

  // MARK: - Key and value in one call

  @inlinable package mutating func field(_ k: String, _ s: String?) {
    key(k)
    string(s)
  }

  @inlinable package mutating func field(_ k: String, number: Double?) {
    key(k)
    self.number(number)
  }

  @inlinable package mutating func field(_ k: String, int: Int?) {
    key(k)
    self.int(int)
  }

  @inlinable package mutating func field(_ k: String, int: Int32) {
    key(k)
    self.int(int)
  }

  @inlinable package mutating func field(_ k: String, int: UInt64) {
    key(k)
    self.int(int)
  }

  @inlinable package mutating func field(_ k: String, bool: Bool) {
    key(k)
    self.bool(bool)
  }

  // MARK: - Commas and layout

  /// The innermost open container holds a value already (false at the top level).
  @inlinable var holdsValue: Bool {
    if depth == 0 { return false }
    if depth <= 64 { return holdsBits & (1 << UInt64(depth - 1)) != 0 }
    return deepHolds[depth - 65]
  }

  @inlinable mutating func open() {
    depth += 1
    if depth <= 64 {
      holdsBits &= ~(1 << UInt64(depth - 1))
    } else {
      deepHolds.append(false)
    }
  }

  @inlinable mutating func close() {
    precondition(depth > 0, "no container is open")
    if depth > 64 { deepHolds.removeLast() }
    depth -= 1
  }

  /// The comma before a value or key (after the first in its container), then pending layout.
  @inlinable mutating func beforeValue() {
    if afterKey {
      afterKey = false
    } else if depth > 0 {
      let holds: Bool
      if depth <= 64 {
        let bit: UInt64 = 1 << UInt64(depth - 1)
        holds = holdsBits & bit != 0
        holdsBits |= bit
      } else {
        holds = deepHolds[depth - 65]
        deepHolds[depth - 65] = true
      }
      if holds {
        bytes.append(UInt8(ascii: ","))
        if style == .spaced && pendingLayout.isEmpty { bytes.append(UInt8(ascii: " ")) }
      }
    }
    flushLayout()
  }

  @inlinable mutating func flushLayout() {
    if pendingLayout.isEmpty { return }
    bytes.append(contentsOf: pendingLayout)
    pendingLayout.removeAll(keepingCapacity: true)
  }

  // MARK: - The escaper and the number form

  static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

  /// Appends `s` as a JSON string literal (with quotes), escaped per RFC 8259.
  @inlinable package static func appendString(_ s: String, to out: inout [UInt8]) {
    var s = s
    s.withUTF8 { appendString(bytes: $0, to: &out) }
  }

  /// Appends bytes as a JSON string literal: quote, backslash and control characters escaped as
  /// `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f` or `\u00XX`, everything else (non-ASCII UTF-8, or
  /// bytes that are not UTF-8 at all) as is.
  @inlinable package static func appendString(
    bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]
  ) {
    out.append(UInt8(ascii: "\""))
    // Runs of bytes that need no escape are copied whole.
    var start = 0
    var i = 0
    let n = bytes.count
    while i < n {
      let b = bytes[i]
      if b >= 0x20 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") {
        i += 1
        continue
      }
      if i > start { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i])) }
      appendEscape(b, to: &out)
      i += 1
      start = i
    }
    if n > start { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<n])) }
    out.append(UInt8(ascii: "\""))
  }

  /// The escape of a quote, a backslash or a control character.
  @usableFromInline static func appendEscape(_ b: UInt8, to out: inout [UInt8]) {
    switch b {
    case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
    case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
    case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
    case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
    case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
    case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
    case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
    default:
      out.append(contentsOf: [
        0x5C, UInt8(ascii: "u"), 0x30, 0x30, hexDigits[Int(b >> 4)], hexDigits[Int(b & 15)],
      ])
    }
  }

  /// A number as an integer when it is whole and below 1e15 in magnitude (`980`, `-3`),
  /// otherwise Swift's shortest round-trip form (`2.5`, `1e+20`; `nan` and `inf` for the
  /// non-finite, which `number(_:)` never writes).
  package static func numberText(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
  }
}
