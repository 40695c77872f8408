import DeckBase
import DeckCore

private let quote = UInt8(ascii: "\"")
private let backslash = UInt8(ascii: "\\")
private let cr = UInt8(ascii: "\r")
// The event reader's JSON Lines parser: the hot path of ingest, kept apart from DeckBase's
// `JSONReader` (the one general JSON parser) on purpose. It reads one object per line straight
// from the read buffer through pointers, recognises the known keys as 8-byte words, skips the
// other members unchecked for meaning and decodes values into the record: no tree, no String per
// field, no location per value, all of which the general reader builds. What can be shared at no
// cost is shared: the nesting limit below, and the line-end rule and its message
// (`loneCarriageReturnMessage`, DeckBase's TextScanning.swift). Its escape decoding writes into a
// scratch buffer in place, where the general reader appends to an array, and stays its own.

/// The one nesting limit of every JSON reader (DeckBase's `JSONReader.maxDepth`).
private let maxDepth = JSONReader.maxDepth

/// `"user":"` as a little-endian word.
private let keyUser: UInt64 = 0x223a_2272_6573_7522
/// `"item":"` as a little-endian word.
private let keyItem: UInt64 = 0x223a_226d_6574_6922
/// `"deck":"` as a little-endian word.
private let keyDeck: UInt64 = 0x223a_226b_6365_6422
/// `"swipe":` as a little-endian word.
private let keySwipe: UInt64 = 0x3a22_6570_6977_7322
/// `"positio` as a little-endian word.
private let keyPositio: UInt64 = 0x6f69_7469_736f_7022
/// `"at":` as a little-endian word.
private let keyAt: UInt64 = 0x003a_2274_6122
/// `"dx":` as a little-endian word.
private let keyDx: UInt64 = 0x003a_2278_6422
/// `n"` as a little-endian word.
private let keyN: UInt16 = 0x226e

/// JSON Lines: one object per line. Offsets in failures are from the start of the line.
extension RecordParser {
  @inline(__always)
  mutating func parseJSONLine(_ p: UnsafePointer<UInt8>, available: Int, eof: Bool)
    throws(LineFailure) -> RecordOutcome
  {
    var n: Int
    let consumed: Int
    if let nl = memchr(p, Int32(UInt8(ascii: "\n")), available) {
      n = UnsafePointer<UInt8>(nl.assumingMemoryBound(to: UInt8.self)) - p
      consumed = n + 1
      // CRLF: the CR belongs to the line end. Any other CR in the line is refused (skipSpace).
      if n > 0 && p[n - 1] == cr { n -= 1 }
    } else if eof {
      n = available
      consumed = available
    } else {
      // No line feed yet. A CR before the last byte is then certainly not part of a CRLF: when
      // the line, read up to it, fails at it, it fails there whatever follows, so it fails now
      // rather than after the whole file (one line if its line ends are CR only) is in the
      // buffer. (Another failure before it waits for the line: its message may quote bytes
      // past the CR. The fuzz target found that.)
      if available > 1, let c = memchr(p, Int32(cr), available - 1) {
        let at = UnsafePointer<UInt8>(c.assumingMemoryBound(to: UInt8.self)) - p
        do throws(LineFailure) {
          _ = try parseJSONObject(p, at + 1)
        } catch {
          if error.fatal && error.offset == at { throw error }
        }
      }
      return .needMore
    }
    let kind = try parseJSONObject(p, n)
    return RecordOutcome(kind: kind, consumed: consumed, lines: 1)
  }

  /// Skips spaces and tabs. A CR here is not part of a CRLF line end (`parseJSONLine` takes
  /// that off the line): refused, as in every reader (`loneCarriageReturnMessage`).
  @inline(__always)
  func skipSpace(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) throws(LineFailure) -> Int {
    var i = i
    while i < n {
      let c = p[i]
      if c == 0x20 || c == 0x09 {
        i += 1
        continue
      }
      if c == cr { throw LineFailure.loneCarriageReturn(at: i) }
      break
    }
    return i
  }

  func truncated(_ n: Int) -> LineFailure {
    LineFailure(
      n, nil,
      "the line ends inside the JSON object (truncated?); each event must be one complete object "
        + "on one line")
  }

  func unexpected(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int, _ expected: String)
    -> LineFailure
  {
    if i >= n { return truncated(n) }
    let c = p[i]
    let found: String
    if c >= 0x20 && c < 0x7F {
      found = "'\(Character(Unicode.Scalar(c)))'"
    } else if c >= 0x80 {
      let len = utf8SequenceLength(p, i, n)
      if len == 0 { return invalidUTF8(p, i, nil) }
      found = quoted(p + i, len)
    } else {
      found = "byte 0x\(String(c, radix: 16, uppercase: true))"
    }
    return LineFailure(i, nil, "expected \(expected), found \(found)")
  }

  mutating func parseJSONObject(_ p: UnsafePointer<UInt8>, _ n: Int) throws(LineFailure)
    -> RecordOutcome.Kind
  {
    var i = try skipSpace(p, 0, n)
    if i == n { return .blank }
    guard p[i] == UInt8(ascii: "{") else {
      throw LineFailure(
        i, nil, "not a JSON object; each line must be one object like {\"user\":...,\"item\":...}")
    }
    fields = EventFields()
    i = try skipSpace(p, i + 1, n)
    guard i < n else { throw truncated(n) }
    if p[i] == UInt8(ascii: "}") {
      i += 1
    } else {
      while true {
        guard i < n else { throw truncated(n) }
        guard p[i] == quote else {
          throw unexpected(p, i, n, "a field name in double quotes")
        }
        // The usual spellings (`"user":"`, `"at":"`, `"position":1`, ...) in one or two word
        // compares: the same field and value start as the general path below, which takes any
        // other spelling (escapes, spaces, unknown or truncated keys).
        if fastPaths, let (field, valueAt) = knownKey(p, i, n) {
          i = try jsonValue(field, p, valueAt, n)
          if i + 1 < n && p[i] == UInt8(ascii: ",") && p[i + 1] == quote {
            i += 1
            continue
          }
        } else {
          i = try generalMember(p, i, n)
        }
        i = try skipSpace(p, i, n)
        guard i < n else { throw truncated(n) }
        let c = p[i]
        if c == UInt8(ascii: ",") {
          i = try skipSpace(p, i + 1, n)
          continue
        }
        if c == UInt8(ascii: "}") {
          i += 1
          break
        }
        throw unexpected(p, i, n, "',' or '}' after a value")
      }
    }
    let close = i - 1
    i = try skipSpace(p, i, n)
    if i < n {
      throw LineFailure(
        i, nil, "unexpected text after the JSON object; put one object on each line")
    }
    return try finish(end: close)
  }

  /// A known field whose name at `p[i]` (its opening quote) is spelled exactly and followed
  /// directly by `:` and a value that does not start with white space; the field and where its
  /// value starts. nil for anything else (the general path decides).
  @inline(__always)
  func knownKey(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> (EventField, Int)? {
    guard i + 8 < n else { return nil }
    let raw = UnsafeRawPointer(p + i)
    let w = raw.loadUnaligned(as: UInt64.self)
    let field: EventField
    let valueAt: Int
    switch w {
    case keyUser:
      field = .user
      valueAt = i + 7
    case keyItem:
      field = .item
      valueAt = i + 7
    case keyDeck:
      field = .deck
      valueAt = i + 7
    case keySwipe:
      field = .swipe
      valueAt = i + 8
    case keyPositio:
      guard i + 11 < n, raw.loadUnaligned(fromByteOffset: 8, as: UInt16.self) == keyN,
        p[i + 10] == UInt8(ascii: ":")
      else { return nil }
      field = .position
      valueAt = i + 11
    default:
      // `"at":` and `"dx":` are 5 bytes.
      switch w & 0xFF_FFFF_FFFF {
      case keyAt: field = .at
      case keyDx: field = .dx
      default: return nil
      }
      valueAt = i + 5
    }
    let c = p[valueAt]
    if c == 0x20 || c == 0x09 || c == 0x0D { return nil }
    return (field, valueAt)
  }

  /// One `"name": value` member by the general path; returns the index after the value.
  @inline(never)
  mutating func generalMember(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int)
    throws(LineFailure) -> Int
  {
    var i = i
    // Field name: plain ASCII without escapes on the fast path.
    let keyStart = i + 1
    var j = keyStart
    while j < n {
      let c = p[j]
      if c == quote || c == backslash || c < 0x20 || c >= 0x80 { break }
      j += 1
    }
    let field: EventField?
    if j < n && p[j] == quote {
      field = EventField.identify(p + keyStart, j - keyStart)
      i = j + 1
    } else {
      let end = try scanString(p, i, n, nil)
      let key = unescape(p, keyStart, end.close, end.escaped, valueScratch)
      field = EventField.identify(key.baseAddress ?? p, key.count)
      i = end.close + 1
    }
    i = try skipSpace(p, i, n)
    guard i < n, p[i] == UInt8(ascii: ":") else {
      throw unexpected(p, i, n, "':' after the field name")
    }
    i = try skipSpace(p, i + 1, n)
    guard i < n else { throw truncated(n) }
    if let field {
      return try jsonValue(field, p, i, n)
    }
    return try skipValue(p, i, n, depth: 1)
  }

  /// Reads the value of a known field at `p[i]`; returns the index after it.
  @inline(__always)
  mutating func jsonValue(
    _ field: EventField, _ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int
  )
    throws(LineFailure) -> Int
  {
    let c = p[i]
    if c == UInt8(ascii: "n") && isLiteral(p, i, n, "null") {
      switch field {
      case .position, .deck, .propensity, .prefixPropensity, .width:
        // null: not logged.
        try markSeen(field, i)
        fields.seen &= ~field.bit
        return i + 4
      default:
        throw LineFailure(i, field, "null; \(expectation(field))")
      }
    }
    try markSeen(field, i)
    switch field {
    case .user, .item, .swipe, .at, .deck:
      guard c == quote else {
        throw LineFailure(
          i, field, "expected a string, found \(tokenText(p, i, n)); \(expectation(field))")
      }
      if fastPaths && (field == .at || field == .deck), let next = quickTime(field, p, i, n) {
        return next
      }
      let end: (close: Int, escaped: Bool)
      if fastPaths, let close = shortPlainString(p, i, n) {
        end = (close, false)
      } else {
        end = try scanString(p, i, n, field)
      }
      let start = i + 1
      let value: UnsafeBufferPointer<UInt8>
      if end.escaped {
        let scratch: ScratchBuffer
        switch field {
        case .user: scratch = userScratch
        case .item: scratch = itemScratch
        default: scratch = valueScratch
        }
        value = unescape(p, start, end.close, true, scratch)
      } else {
        value = UnsafeBufferPointer(start: p + start, count: end.close - start)
      }
      let vp = value.baseAddress ?? p + start
      switch field {
      case .user:
        try idValue(vp, value.count, start, .user)
        fields.user = value
      case .item:
        try idValue(vp, value.count, start, .item)
        fields.item = value
      case .swipe:
        fields.swipe = try swipeValue(vp, value.count, start)
      case .at:
        fields.at = try timestampValue(vp, value.count, start)
      default:
        fields.deck = try dateValue(vp, value.count, start)
      }
      return end.close + 1
    case .position, .propensity, .prefixPropensity, .dx, .width:
      let j = jsonNumberEnd(p, i, n)
      if j == i {
        throw LineFailure(
          i, field, "expected a number, found \(tokenText(p, i, n)); \(expectation(field))")
      }
      switch field {
      case .position:
        fields.position = try positionValue(p + i, j - i, i)
      case .propensity:
        fields.propensity = try propensityValue(p + i, j - i, i)
      case .prefixPropensity:
        fields.prefixPropensity = try prefixPropensityValue(p + i, j - i, i)
      case .dx:
        fields.dx = try numberValue(p + i, j - i, i, .dx)
        fields.dxOffset = i
      default:
        fields.width = try widthValue(p + i, j - i, i)
      }
      return j
    }
  }

  /// A time or date string of the usual lengths (`YYYY-MM-DDTHH:MM:SS±HH:MM`, `...Z`,
  /// `...SS`, and `YYYY-MM-DD` for `deck`) read without scanning it first: when the bytes
  /// before a quote at that distance are a valid value, none of them is a quote, backslash,
  /// control or non-ASCII byte, so the string is exactly those bytes. Returns the index after
  /// the closing quote, or nil (having set nothing) for the general path to decide.
  @inline(__always)
  mutating func quickTime(
    _ field: EventField, _ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int
  ) -> Int? {
    let v = p + i + 1
    if field == .deck {
      guard i + 11 < n, p[i + 11] == quote, let d = try? dateValue(v, 10, i + 1) else {
        return nil
      }
      fields.deck = d
      return i + 12
    }
    var length = 25
    while true {
      if i + length + 1 < n && p[i + length + 1] == quote,
        let t = try? timestampValue(v, length, i + 1)
      {
        fields.at = t
        return i + length + 2
      }
      switch length {
      case 25: length = 20
      case 20: length = 19
      default: return nil
      }
    }
  }

  /// The closing quote of the string opening at `p[i]` when it comes within the next 16 bytes
  /// with only plain bytes before it (no backslash, control or non-ASCII byte): where
  /// `scanString` would find it, without escapes. nil otherwise (`scanString` decides).
  @inline(__always)
  func shortPlainString(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> Int? {
    guard i + 17 <= n else { return nil }
    let raw = UnsafeRawPointer(p + i + 1)
    var special = swarSpecialStringBytes(raw.loadUnaligned(as: UInt64.self))
    var base = i + 1
    if special == 0 {
      special = swarSpecialStringBytes(raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
      base += 8
      if special == 0 { return nil }
    }
    let close = base + (special.trailingZeroBitCount >> 3)
    return p[close] == quote ? close : nil
  }

  func expectation(_ field: EventField) -> String {
    switch field {
    case .user: return "give the user id as a string"
    case .item: return "give the item id as a string"
    case .swipe: return "give \"right\" or \"left\""
    case .at: return "give the time as a string: \(Timestamp.expectedForms)"
    case .deck: return "give the deck date as \"YYYY-MM-DD\""
    case .position: return "give the 1-based card position as a number"
    case .propensity: return "give a number in (0, 1]"
    case .prefixPropensity: return "give a number in (0, 1]"
    case .dx: return "give the horizontal drag in points as a number"
    case .width: return "give the card width in points as a number"
    }
  }

  /// A short rendering of the token at `p[i]` for messages.
  func tokenText(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> String {
    var j = i
    var depth = 0
    var inString = false
    while j < n && j - i < 40 {
      let c = p[j]
      if inString {
        if c == backslash {
          j += 1
        } else if c == quote {
          inString = false
          if depth == 0 {
            j += 1
            break
          }
        }
      } else if c == quote {
        inString = true
      } else if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
        depth += 1
      } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
        if depth <= 1 {
          j += depth
          break
        }
        depth -= 1
      } else if depth == 0 && (c == UInt8(ascii: ",") || c == 0x20) {
        break
      }
      j += 1
    }
    return quoted(p + i, min(j, n) - i)
  }

  @inline(__always)
  func isLiteral(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int, _ word: StaticString)
    -> Bool
  {
    let len = word.utf8CodeUnitCount
    guard i + len <= n else { return false }
    return memEqual(p + i, word.utf8Start, len)
  }

  /// Skips any JSON value (checked, not decoded); returns the index after it.
  func skipValue(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int, depth: Int)
    throws(LineFailure) -> Int
  {
    let c = p[i]
    switch c {
    case quote:
      return try scanString(p, i, n, nil).close + 1
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      guard depth < maxDepth else {
        throw LineFailure(i, nil, "nested deeper than \(maxDepth) levels; flatten the value")
      }
      let isObject = c == UInt8(ascii: "{")
      let closer = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
      var j = try skipSpace(p, i + 1, n)
      guard j < n else { throw truncated(n) }
      if p[j] == closer { return j + 1 }
      while true {
        if isObject {
          guard j < n, p[j] == quote else {
            throw unexpected(p, j, n, "a field name in double quotes")
          }
          j = try scanString(p, j, n, nil).close + 1
          j = try skipSpace(p, j, n)
          guard j < n, p[j] == UInt8(ascii: ":") else {
            throw unexpected(p, j, n, "':' after the field name")
          }
          j = try skipSpace(p, j + 1, n)
        }
        guard j < n else { throw truncated(n) }
        j = try skipValue(p, j, n, depth: depth + 1)
        j = try skipSpace(p, j, n)
        guard j < n else { throw truncated(n) }
        if p[j] == UInt8(ascii: ",") {
          j = try skipSpace(p, j + 1, n)
          continue
        }
        if p[j] == closer { return j + 1 }
        throw unexpected(p, j, n, isObject ? "',' or '}'" : "',' or ']'")
      }
    case UInt8(ascii: "t"):
      if isLiteral(p, i, n, "true") { return i + 4 }
    case UInt8(ascii: "f"):
      if isLiteral(p, i, n, "false") { return i + 5 }
    case UInt8(ascii: "n"):
      if isLiteral(p, i, n, "null") { return i + 4 }
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
      let j = jsonNumberEnd(p, i, n)
      guard parseNumber(p + i, j - i) != nil else {
        throw LineFailure(i, nil, "\(quoted(p + i, j - i)) is not a valid JSON number")
      }
      return j
    default:
      break
    }
    throw unexpected(p, i, n, "a JSON value")
  }
}

/// The end of the run of bytes from `i` that may spell a JSON number (digits, signs, '.', 'e'):
/// where the number's token ends, valid or not.
@inline(__always)
private func jsonNumberEnd(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> Int {
  var j = i
  while j < n {
    let d = p[j]
    let isNumberByte =
      (d &- UInt8(ascii: "0") < 10) || d == UInt8(ascii: "-") || d == UInt8(ascii: "+")
      || d == UInt8(ascii: ".") || d | 0x20 == UInt8(ascii: "e")
    if !isNumberByte { break }
    j += 1
  }
  return j
}
