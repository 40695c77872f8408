import DeckBase
import DeckCore

// The values of a record's fields (text is already unquoted and unescaped; `off` is where it
// starts), and the number and UTF-8 helpers they share with the parsers.
extension RecordParser {
  @inline(__always)
  func idValue(_ p: UnsafePointer<UInt8>, _ n: Int, _ off: Int, _ field: EventField)
    throws(LineFailure)
  {
    if n == 0 { throw LineFailure(off, field, "empty; give a non-empty \(field.name) id") }
  }

  @inline(__always)
  func swipeValue(_ p: UnsafePointer<UInt8>, _ n: Int, _ off: Int) throws(LineFailure)
    -> SwipeDirection
  {
    if n == 5 && UnsafeRawPointer(p).loadUnaligned(as: UInt32.self) == 0x6867_6972
      && p[4] == UInt8(ascii: "t")
    {
      return .right
    }
    if n == 4 && UnsafeRawPointer(p).loadUnaligned(as: UInt32.self) == 0x7466_656C { return .left }
    throw LineFailure(
      off, .swipe, "\(quoted(p, n)) is not right or left; use \"right\" or \"left\" (lowercase)")
  }

  @inline(__always)
  mutating func timestampValue(_ p: UnsafePointer<UInt8>, _ n: Int, _ off: Int)
    throws(LineFailure) -> Int64
  {
    let b = UnsafeBufferPointer(start: p, count: n)
    let parsed: Timestamp.Parsed
    if n >= 10, let days = dayNumber(p) {
      if let quick = Timestamp.quickTime(p, n, afterDate: days) {
        if n == 25 {
          // For `usualTimestamp`: the offset's bytes and seconds.
          offsetWord = Timestamp.offsetWord(p)
          offsetSeconds = quick.offset
        }
        return quick.utc ? quick.seconds + zoneOffset(atUTC: quick.seconds) : quick.seconds
      }
      parsed = Timestamp.parse(b, afterDate: days)
    } else {
      parsed = Timestamp.parse(b)
    }
    switch parsed {
    case .local(let s):
      return s
    case .utc(let s):
      return s + zoneOffset(atUTC: s)
    case .invalid(let at, let reason):
      if mapping != nil {
        return try epochValue(p, n, off, invalidAt: at, reason: reason)
      }
      throw LineFailure(
        off + min(at, n), .at,
        "\(quoted(p, n)) is not a valid time (\(reason)); use \(Timestamp.expectedForms)")
    }
  }

  /// The time of the usual timestamp, without a call: the date the last one had, its clock
  /// read in one word, and then nothing (local time), or `Z` or the last offset's bytes, in the
  /// zone's last span. nil for anything else (a new date, offset or span, another form, a bad
  /// value), which `timestampValue` then reads, and which it remembers for the next ones.
  @inline(__always)
  func usualTimestamp(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int64? {
    guard n >= 19 else { return nil }
    let raw = UnsafeRawPointer(p)
    guard raw.loadUnaligned(as: UInt64.self) == lastDateHead,
      raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self) == lastDateTail,
      lastDays != .min, p[10] == UInt8(ascii: "T") || p[10] == UInt8(ascii: " "),
      let (hh, mm, ss) = Timestamp.clock(p + 11), hh < 24, mm < 60, ss < 60
    else { return nil }
    let local = Int64(lastDays) &* 86_400 &+ Int64(hh &* 3600 &+ mm &* 60 &+ ss)
    let utc: Int64
    if n == 25 {
      guard Timestamp.offsetWord(p) == offsetWord else { return nil }
      utc = local &- offsetSeconds
    } else if n == 20 && p[19] == UInt8(ascii: "Z") {
      utc = local
    } else {
      return n == 19 ? local : nil
    }
    guard zoneSpan.contains(utc) else { return nil }
    return utc &+ Int64(zoneSpan.offset)
  }

  /// The day number of a deck date that is the last one's bytes, without a call; nil for any
  /// other text (`dateValue` then reads it, and remembers its bytes and day number in
  /// `lastDeckHead`, `lastDeckTail` and `lastDeckDays`).
  @inline(__always)
  func usualDeckDate(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int32? {
    guard n == 10 else { return nil }
    let raw = UnsafeRawPointer(p)
    guard raw.loadUnaligned(as: UInt64.self) == lastDeckHead,
      raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self) == lastDeckTail,
      lastDeckDays != .min
    else { return nil }
    return lastDeckDays
  }

  /// The configured zone's offset at a UTC time, from the last span the zone gave when it
  /// holds the time.
  @inline(__always)
  mutating func zoneOffset(atUTC s: Int64) -> Int64 {
    if zoneSpan.contains(s) { return Int64(zoneSpan.offset) }
    return newZoneSpan(s)
  }

  @inline(never)
  mutating func newZoneSpan(_ s: Int64) -> Int64 {
    zoneSpan = zone.offsetSpan(atUTC: s)
    return Int64(zoneSpan.offset)
  }

  /// Unix epoch seconds (mapped logs only), converted to the configured zone's wall clock; a
  /// value that is neither epoch seconds nor ISO 8601 fails with the ISO reason.
  @inline(never)
  func epochValue(
    _ p: UnsafePointer<UInt8>, _ n: Int, _ off: Int, invalidAt at: Int, reason: String
  ) throws(LineFailure) -> Int64 {
    switch Timestamp.epochSeconds(UnsafeBufferPointer(start: p, count: n)) {
    case .seconds(let s):
      if let fixedOffset { return s + Int64(fixedOffset) }
      return s + Int64(zone.offset(atUTC: s))
    case .outOfRange:
      throw LineFailure(
        off, .at,
        "\(quoted(p, n)) is beyond 9999-12-31 as Unix seconds (milliseconds? divide by 1000)")
    case .notEpoch:
      throw LineFailure(
        off + min(at, n), .at,
        "\(quoted(p, n)) is not a valid time (\(reason)); use \(Timestamp.expectedForms) or "
          + "Unix seconds")
    }
  }

  /// A rating: a number in JSON's grammar.
  @inline(never)
  func ratingValue(_ p: UnsafePointer<UInt8>, _ n: Int, _ off: Int) throws(LineFailure) -> Double {
    if let v = parseNumber(p, n), v.isFinite { return v }
    var failure = LineFailure(
      off, nil, "\(quoted(p, n)) is not a number; the rating rules compare numbers like 4 or 2.5")
    failure.label = ratingLabel
    throw failure
  }

  @inline(__always)
  mutating func dateValue(_ p: UnsafePointer<UInt8>, _ n: Int, _ off: Int) throws(LineFailure)
    -> DeckDate
  {
    if n == 10, p[4] == UInt8(ascii: "-"), p[7] == UInt8(ascii: "-"), let days = dayNumber(p) {
      let raw = UnsafeRawPointer(p)
      lastDeckHead = raw.loadUnaligned(as: UInt64.self)
      lastDeckTail = raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self)
      lastDeckDays = days
      return DeckDate(daysSinceEpoch: days)
    }
    throw LineFailure(off, .deck, "\(quoted(p, n)) is not a date; use YYYY-MM-DD (a real date)")
  }

  /// The day number of the date `YYYY-MM-DD` in the 10 bytes at `p`, or nil when they are not a
  /// valid date. Logs repeat the same few dates, so the last valid one is remembered by its
  /// bytes.
  @inline(__always)
  mutating func dayNumber(_ p: UnsafePointer<UInt8>) -> Int32? {
    let raw = UnsafeRawPointer(p)
    let head = raw.loadUnaligned(as: UInt64.self)
    let tail = raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self)
    if head == lastDateHead && tail == lastDateTail && lastDays != .min { return lastDays }
    guard case .local(let s) = Timestamp.parse(UnsafeBufferPointer(start: p, count: 10)) else {
      return nil
    }
    lastDateHead = head
    lastDateTail = tail
    lastDays = Int32(truncatingIfNeeded: s / 86_400)
    return lastDays
  }

  @inline(__always)
  func positionValue(_ p: UnsafePointer<UInt8>, _ n: Int, _ off: Int) throws(LineFailure)
    -> Int32
  {
    let limit = Int(EventReader.maxPosition)
    var v = 0
    var i = 0
    while i < n {
      let d = p[i] &- UInt8(ascii: "0")
      guard d < 10 else { break }
      v = v &* 10 &+ Int(d)
      i += 1
      if v > limit { break }
    }
    if i == n && n > 0 && v <= limit && !(n > 1 && p[0] == UInt8(ascii: "0")) {
      if v == 0 { throw LineFailure(off, .position, positionOutOfRange(p, n)) }
      return Int32(v)
    }
    if v > limit { throw LineFailure(off, .position, positionOutOfRange(p, n)) }
    throw LineFailure(
      off, .position, "\(quoted(p, n)) is not a whole number; give the 1-based card position")
  }

  @inline(__always)
  func propensityValue(_ p: UnsafePointer<UInt8>, _ n: Int, _ off: Int) throws(LineFailure)
    -> Double
  {
    try probabilityValue(
      p, n, off, .propensity,
      give: "the probability the ranking had of showing it there, above 0 and up to 1")
  }

  @inline(__always)
  func prefixPropensityValue(_ p: UnsafePointer<UInt8>, _ n: Int, _ off: Int)
    throws(LineFailure) -> Double
  {
    try probabilityValue(
      p, n, off, .prefixPropensity,
      give: "the probability the ranking had of showing the deck's cards from position 1 to "
        + "this one, in their order, above 0 and up to 1")
  }

  /// A probability above 0 and up to 1 in `field`; out of range, the failure says what to give.
  @inline(__always)
  func probabilityValue(
    _ p: UnsafePointer<UInt8>, _ n: Int, _ off: Int, _ field: EventField,
    give: @autoclosure () -> String
  ) throws(LineFailure) -> Double {
    let v = try numberValue(p, n, off, field)
    guard v > 0 && v <= 1 else {
      throw LineFailure(off, field, RangeText.outOfRange(shortText(p, n), give: give()))
    }
    return v
  }

  @inline(__always)
  func widthValue(_ p: UnsafePointer<UInt8>, _ n: Int, _ off: Int) throws(LineFailure) -> Double {
    let v = try numberValue(p, n, off, .width)
    guard v > 0 else {
      throw LineFailure(
        off, .width, RangeText.outOfRange(shortText(p, n), give: "a card width above 0"))
    }
    return v
  }

  /// A number in JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
  @inline(__always)
  func numberValue(_ p: UnsafePointer<UInt8>, _ n: Int, _ off: Int, _ field: EventField)
    throws(LineFailure) -> Double
  {
    if let v = parseNumber(p, n) {
      guard v.isFinite else {
        throw LineFailure(
          off, field, RangeText.outOfRange(shortText(p, n), give: "a finite number like 12.5 or -3")
        )
      }
      return v
    }
    throw LineFailure(off, field, "\(quoted(p, n)) is not a number; write it like 12.5 or -3")
  }
}

/// Short quoted text for messages: at most 40 characters, invalid UTF-8 shown as U+FFFD.
func quoted(_ p: UnsafePointer<UInt8>, _ n: Int) -> String { "'\(shortText(p, n))'" }

/// The text of `quoted` without its quotes.
func shortText(_ p: UnsafePointer<UInt8>, _ n: Int) -> String {
  let s = String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
  return s.count > 40 ? "\(s.prefix(40))..." : s
}

/// A card position outside 1 to `EventReader.maxPosition`.
private func positionOutOfRange(_ p: UnsafePointer<UInt8>, _ n: Int) -> String {
  RangeText.outOfRange(
    shortText(p, n),
    give: "a card position from 1 to \(EventReader.maxPosition) (the most cards a deck has)")
}

private let exactPowersOfTen: [Double] = [
  1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
  1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

/// Parses a whole buffer as a JSON number; nil when it is not one. Exact: small mantissas with
/// small exponents are computed directly (both operands exact, one rounding), anything else goes
/// through the standard library's correctly rounded conversion.
@inline(__always)
func parseNumber(_ p: UnsafePointer<UInt8>, _ n: Int) -> Double? {
  var i = 0
  var negative = false
  if i < n && p[i] == UInt8(ascii: "-") {
    negative = true
    i += 1
  }
  guard i < n else { return nil }
  var mantissa: UInt64 = 0
  var digits = 0
  let intStart = i
  while i < n, case let d = p[i] &- UInt8(ascii: "0"), d < 10 {
    if digits < 19 { mantissa = mantissa &* 10 &+ UInt64(d) }
    digits += 1
    i += 1
  }
  let intDigits = i - intStart
  guard intDigits > 0, !(intDigits > 1 && p[intStart] == UInt8(ascii: "0")) else { return nil }
  var exponent = 0
  if intDigits > 19 { exponent = intDigits - 19 }
  if i < n && p[i] == UInt8(ascii: ".") {
    i += 1
    let fracStart = i
    while i < n, case let d = p[i] &- UInt8(ascii: "0"), d < 10 {
      if digits < 19 {
        mantissa = mantissa &* 10 &+ UInt64(d)
        exponent -= 1
      }
      digits += 1
      i += 1
    }
    guard i > fracStart else { return nil }
  }
  if i < n && (p[i] | 0x20) == UInt8(ascii: "e") {
    i += 1
    var expNegative = false
    if i < n && (p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-")) {
      expNegative = p[i] == UInt8(ascii: "-")
      i += 1
    }
    let expStart = i
    var e = 0
    while i < n, case let d = p[i] &- UInt8(ascii: "0"), d < 10 {
      if e < 100_000 { e = e * 10 + Int(d) }
      i += 1
    }
    guard i > expStart else { return nil }
    exponent += expNegative ? -e : e
  }
  guard i == n else { return nil }
  if digits <= 19 && mantissa < (1 << 53) && exponent >= -22 && exponent <= 22 {
    var v = Double(mantissa)
    if exponent < 0 { v /= exactPowersOfTen[-exponent] } else { v *= exactPowersOfTen[exponent] }
    return negative ? -v : v
  }
  return Double(String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self))
}

/// The length of the valid UTF-8 sequence starting at `p[i]` (a byte >= 0x80), or 0 when it is
/// invalid (overlong forms, surrogates, beyond U+10FFFF, truncated).
@inline(__always)
func utf8SequenceLength(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> Int {
  let c = p[i]
  @inline(__always) func cont(_ k: Int) -> Bool { k < n && p[k] & 0xC0 == 0x80 }
  if c >= 0xC2 && c <= 0xDF { return cont(i + 1) ? 2 : 0 }
  if c >= 0xE0 && c <= 0xEF {
    guard i + 2 < n, cont(i + 1), cont(i + 2) else { return 0 }
    let c1 = p[i + 1]
    if c == 0xE0 && c1 < 0xA0 { return 0 }
    if c == 0xED && c1 >= 0xA0 { return 0 }
    return 3
  }
  if c >= 0xF0 && c <= 0xF4 {
    guard i + 3 < n, cont(i + 1), cont(i + 2), cont(i + 3) else { return 0 }
    let c1 = p[i + 1]
    if c == 0xF0 && c1 < 0x90 { return 0 }
    if c == 0xF4 && c1 >= 0x90 { return 0 }
    return 4
  }
  return 0
}

func invalidUTF8(_ p: UnsafePointer<UInt8>, _ i: Int, _ field: EventField?) -> LineFailure {
  let hex = String(p[i], radix: 16, uppercase: true)
  return LineFailure(
    i, field, "invalid UTF-8 (byte 0x\(hex.count < 2 ? "0" + hex : hex)); save the log as UTF-8")
}
