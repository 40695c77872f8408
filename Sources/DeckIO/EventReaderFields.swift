import DeckBase
import DeckCore

/// The fields the event reader knows. Anything else is ignored.
enum EventField: UInt8, CaseIterable {
  case user, item, swipe, at, position, deck, propensity, dx, width

  var name: String {
    switch self {
    case .user: return "user"
    case .item: return "item"
    case .swipe: return "swipe"
    case .at: return "at"
    case .position: return "position"
    case .deck: return "deck"
    case .propensity: return "propensity"
    case .dx: return "dx"
    case .width: return "width"
    }
  }

  @inline(__always) var bit: UInt16 { 1 << UInt16(rawValue) }

  /// The field a name denotes, by length first and then bytes.
  @inline(__always)
  static func identify(_ p: UnsafePointer<UInt8>, _ n: Int) -> EventField? {
    switch n {
    case 2:
      if p[0] == UInt8(ascii: "a") && p[1] == UInt8(ascii: "t") { return .at }
      if p[0] == UInt8(ascii: "d") && p[1] == UInt8(ascii: "x") { return .dx }
    case 4:
      let w = UnsafeRawPointer(p).loadUnaligned(as: UInt32.self)
      if w == word4("user") { return .user }
      if w == word4("item") { return .item }
      if w == word4("deck") { return .deck }
    case 5:
      let w = UnsafeRawPointer(p).loadUnaligned(as: UInt32.self)
      if w == word4("swip") && p[4] == UInt8(ascii: "e") { return .swipe }
      if w == word4("widt") && p[4] == UInt8(ascii: "h") { return .width }
    case 8:
      if UnsafeRawPointer(p).loadUnaligned(as: UInt64.self) == word8("position") {
        return .position
      }
    case 10:
      if UnsafeRawPointer(p).loadUnaligned(as: UInt64.self) == word8("propensi")
        && p[8] == UInt8(ascii: "t") && p[9] == UInt8(ascii: "y")
      {
        return .propensity
      }
    default:
      break
    }
    return nil
  }
}

@inline(__always)
private func word4(_ s: StaticString) -> UInt32 {
  let p = s.utf8Start
  return UInt32(p[0]) | UInt32(p[1]) << 8 | UInt32(p[2]) << 16 | UInt32(p[3]) << 24
}

@inline(__always)
private func word8(_ s: StaticString) -> UInt64 {
  let p = s.utf8Start
  var w: UInt64 = 0
  for i in 0..<8 { w |= UInt64(p[i]) << UInt64(8 * i) }
  return w
}

/// A bad record: where (byte offset from the record start), which field, what.
struct LineFailure: Error {
  var offset: Int
  var field: EventField?
  var message: String
  /// Where the record ends when already known (value errors in CSV records).
  var recordEnd: RecordEnd?
  /// A failure that cannot be skipped (a bad CSV header, a lone carriage return).
  var fatal = false
  /// The field as the log names it, when that is not `field.name` (a mapped column, `rating`).
  var label: String?

  init(_ offset: Int, _ field: EventField?, _ message: String) {
    self.offset = offset
    self.field = field
    self.message = message
  }

  /// A carriage return at `offset` that is not part of a CRLF line end (`loneCarriageReturnMessage`):
  /// fatal, since a file whose lines end with CR alone would otherwise be skipped as one bad
  /// line (all its swipes with it), and it ends at the CR, so that nothing waits for a line feed
  /// that may never come.
  static func loneCarriageReturn(at offset: Int) -> LineFailure {
    var failure = LineFailure(offset, nil, loneCarriageReturnMessage)
    failure.fatal = true
    failure.recordEnd = RecordEnd(consumed: offset + 1, lines: 1)
    return failure
  }

  /// file:line:column of the failure; `firstLine` is the line the record starts on.
  func location(in record: UnsafeBufferPointer<UInt8>, file: String, firstLine: Int)
    -> SourceLocation
  {
    var line = firstLine
    var lineStart = 0
    let end = min(offset, record.count)
    for i in 0..<end where record[i] == UInt8(ascii: "\n") {
      line += 1
      lineStart = i + 1
    }
    var column = 1
    for i in lineStart..<end where record[i] & 0xC0 != 0x80 { column += 1 }
    return SourceLocation(file: file, line: line, column: column, field: label ?? field?.name)
  }
}

/// Bytes and physical lines of one record, its line break included.
struct RecordEnd {
  var consumed: Int
  var lines: Int
  /// A CR not followed by a line feed in the bytes scanned past the failure for the record's
  /// end (so the record ends there): skipping the record would skip what may be the rest of a
  /// file with CR-only line ends.
  var loneCR: Int? = nil
}

struct RecordOutcome {
  /// `neutral`: a rated record whose rating matches neither swipe rule (mapped logs).
  enum Kind { case event, hesitation, neutral, blank, header, needMore }
  var kind: Kind
  var consumed: Int
  var lines: Int

  static let needMore = RecordOutcome(kind: .needMore, consumed: 0, lines: 0)
}

/// Memory for unescaped strings, owned by the parser and reused for every record.
final class ScratchBuffer {
  private(set) var base: UnsafeMutablePointer<UInt8>
  private(set) var capacity: Int

  init(capacity: Int = 256) {
    self.capacity = capacity
    base = .allocate(capacity: capacity)
  }

  deinit { base.deallocate() }

  func reserve(_ n: Int) {
    guard n > capacity else { return }
    let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: n * 2)
    base.deallocate()
    base = bigger
    capacity = n * 2
  }
}

/// The values of the record being parsed.
struct EventFields {
  var seen: UInt16 = 0
  var user = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
  var item = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
  var swipe = SwipeDirection.right
  var at: Int64 = 0
  var position: Int32 = 0
  var deck: DeckDate?
  var propensity: Double?
  var dx = 0.0
  var dxOffset = 0
  var width: Double?
  /// The rating of a mapped log (seen as `RecordParser.ratingBit`).
  var rating = 0.0
}

/// The format-independent half of the event parser: value conversion and the record rules.
/// The JSON and CSV halves are in EventReaderJSON.swift and EventReaderCSV.swift.
struct RecordParser {
  let rule: SwipeRule
  let zone: any UTCOffsetProvider
  let fixedOffset: Int?
  let format: EventFormat
  /// Whether the fast paths for the usual spellings are taken (tests turn them off to compare
  /// them with the general path, which must give the same results and failures).
  var fastPaths = true
  var fields = EventFields()
  var event = RawEvent(
    user: UnsafeBufferPointer(start: nil, count: 0),
    item: UnsafeBufferPointer(start: nil, count: 0),
    swipe: .right, at: 0, position: 0)
  let userScratch = ScratchBuffer()
  let itemScratch = ScratchBuffer()
  let valueScratch = ScratchBuffer()
  // CSV state: the column of each header field (nil = ignored), and the field boundaries.
  var columns: [EventField?]? = nil
  let csvFields: CSVFieldList
  // Copies of `csvFields`' pointers (the hot loop reads these, without retaining the object),
  // and the number of header columns (-1 before the header).
  var csvData: UnsafeMutablePointer<Int>
  var csvCapacity: Int
  var csvColumns: UnsafeMutablePointer<UInt8>
  /// `CSVFieldList.endsBase + 1`: where the fields of a record split by `csvSplitColumns` end.
  var csvEnds: UnsafeMutablePointer<Int>
  // The column of each field (-1: none), and whether records may be read field by field.
  let csvFieldColumns: UnsafeMutablePointer<Int>
  var csvByField = false
  var csvColumnCount = -1
  // The zone's offset for the UTC seconds `zoneSpan.start..<zoneSpan.end` (empty at first):
  // logs come in runs of times on the same day, so the zone is asked once per run.
  var zoneSpan = UTCOffsetSpan(offset: 0, start: 1, end: 0)
  // The last valid date (its 10 bytes) and its day number; `.min` when none yet.
  var lastDateHead: UInt64 = 0
  var lastDateTail: UInt16 = 0
  var lastDays: Int32 = .min
  // The last valid UTC offset of a time with one (`+09:00`): its `Timestamp.offsetWord`
  // (`Timestamp.noOffsetWord` when none yet) and its seconds east of UTC.
  var offsetWord = Timestamp.noOffsetWord
  var offsetSeconds: Int64 = 0
  // The same for the last deck date (logs repeat it too, and it need not be the time's date).
  var lastDeckHead: UInt64 = 0
  var lastDeckTail: UInt16 = 0
  var lastDeckDays: Int32 = .min
  // Mapped logs (see `ColumnMapping`): the mapping, the rules that turn ratings into swipes, the
  // header's name of each field for messages, and whether the log has no time column.
  let mapping: ColumnMapping?
  let rightRule: RatingRule?
  let leftRule: RatingRule?
  var mappedLabels: [EventField: String] = [:]
  var ratingLabel = "rating"
  private(set) var untimed = false

  /// `fields.seen` bit of the rating column (after the `EventField` bits).
  static let ratingBit: UInt16 = 1 << 9

  init(
    rule: SwipeRule, zone: any UTCOffsetProvider, format: EventFormat,
    mapping: ColumnMapping? = nil
  ) {
    self.rule = rule
    self.zone = zone
    self.fixedOffset = (zone as? FixedUTCOffset)?.seconds
    self.format = format
    self.mapping = mapping
    self.rightRule = mapping?.right
    self.leftRule = mapping?.left
    csvFields = CSVFieldList()
    csvData = csvFields.data
    csvCapacity = csvFields.capacity
    csvColumns = csvFields.columns
    csvEnds = csvFields.endsBase + 1
    csvFieldColumns = csvFields.fieldColumns
  }

  @inline(__always)
  mutating func parse(_ p: UnsafePointer<UInt8>, available: Int, eof: Bool) throws(LineFailure)
    -> RecordOutcome
  {
    switch format {
    case .jsonLines: return try parseJSONLine(p, available: available, eof: eof)
    case .csv: return try parseCSVRecord(p, available: available, eof: eof)
    }
  }

  /// Where a failed record ends, or nil when more bytes are needed to find out.
  func recordEnd(
    after failure: LineFailure, _ p: UnsafePointer<UInt8>, _ available: Int, _ eof: Bool
  )
    -> RecordEnd?
  {
    if let known = failure.recordEnd { return known }
    var lines = 1
    for k in 0..<min(failure.offset, available) where p[k] == UInt8(ascii: "\n") { lines += 1 }
    var i = max(0, min(failure.offset, available))
    while i < available && p[i] != UInt8(ascii: "\n") {
      if p[i] == UInt8(ascii: "\r") && (i + 1 < available ? p[i + 1] != UInt8(ascii: "\n") : eof) {
        return RecordEnd(consumed: i + 1, lines: lines, loneCR: i)
      }
      i += 1
    }
    if i == available && !eof { return nil }
    return RecordEnd(consumed: min(i + 1, available), lines: lines)
  }

  // MARK: - The record rules

  /// Checks required fields, decides a raw drag and fills `event`. `end` is the byte where the
  /// record's content ends (missing-field errors point there).
  @inline(__always)
  mutating func finish(end: Int) throws(LineFailure) -> RecordOutcome.Kind {
    let seen = fields.seen
    let required = EventField.user.bit | EventField.item.bit | EventField.at.bit
    if seen & required != required {
      try missingRequired(seen, end)
    }
    let hasSwipe = seen & EventField.swipe.bit != 0
    let hasDx = seen & EventField.dx.bit != 0
    var swipe = fields.swipe
    if hasDx {
      if hasSwipe {
        throw LineFailure(
          fields.dxOffset, .dx,
          "both 'swipe' and 'dx' given; keep one of them (they could disagree)")
      }
      let outcome: DragOutcome
      do {
        outcome = try rule.decide(dx: fields.dx, width: fields.width)
      } catch {
        if fields.width == nil {
          throw LineFailure(
            end, .width, "missing; the relative swipe rule needs the card width with 'dx'")
        }
        throw LineFailure(fields.dxOffset, .dx, error.description)
      }
      guard let d = outcome.swipe else { return .hesitation }
      swipe = d
    } else if !hasSwipe {
      guard let rightRule, let leftRule, seen & RecordParser.ratingBit != 0 else {
        throw LineFailure(
          end, .swipe, "missing; give 'swipe' (right or left) or the raw drag 'dx'")
      }
      if rightRule.matches(fields.rating) {
        swipe = .right
      } else if leftRule.matches(fields.rating) {
        swipe = .left
      } else {
        return .neutral
      }
    }
    event = RawEvent(
      user: fields.user, item: fields.item, swipe: swipe, at: fields.at,
      position: fields.position, deck: fields.deck, propensity: fields.propensity)
    return .event
  }

  /// Throws for the first required field that is missing, except the time of an untimed log.
  @inline(never)
  func missingRequired(_ seen: UInt16, _ end: Int) throws(LineFailure) {
    if seen & EventField.user.bit == 0 {
      throw LineFailure(end, .user, "missing; every event needs the user id")
    }
    if seen & EventField.item.bit == 0 {
      throw LineFailure(end, .item, "missing; every event needs the item id")
    }
    if untimed { return }
    throw LineFailure(
      end, .at, "missing; every event needs its time (\(Timestamp.expectedForms))")
  }

  /// Marks the log as having no time column (a mapped CSV header without one).
  mutating func setUntimed() { untimed = true }

  @inline(__always)
  mutating func markSeen(_ field: EventField, _ offset: Int) throws(LineFailure) {
    if fields.seen & field.bit != 0 {
      throw LineFailure(offset, field, "given twice; keep one")
    }
    fields.seen |= field.bit
  }

  // MARK: - Values (text is already unquoted and unescaped; `off` is where it starts)

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
  /// other text (`dateValue` then reads it, and `deckDays` remembers it).
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
      if v == 0 {
        throw LineFailure(off, .position, "0 is not a card position; positions start at 1")
      }
      return Int32(v)
    }
    if v > limit {
      throw LineFailure(
        off, .position,
        "\(quoted(p, n)) is beyond the last card position (\(limit), the most cards a deck has)")
    }
    throw LineFailure(
      off, .position, "\(quoted(p, n)) is not a whole number; give the 1-based card position")
  }

  @inline(__always)
  func propensityValue(_ p: UnsafePointer<UInt8>, _ n: Int, _ off: Int) throws(LineFailure)
    -> Double
  {
    let v = try numberValue(p, n, off, .propensity)
    guard v > 0 && v <= 1 else {
      throw LineFailure(
        off, .propensity,
        "\(quoted(p, n)) is not in (0, 1]; give the probability the ranking had of showing it there"
      )
    }
    return v
  }

  @inline(__always)
  func widthValue(_ p: UnsafePointer<UInt8>, _ n: Int, _ off: Int) throws(LineFailure) -> Double {
    let v = try numberValue(p, n, off, .width)
    guard v > 0 else {
      throw LineFailure(
        off, .width, "\(quoted(p, n)) is not a card width; it must be greater than 0")
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
        throw LineFailure(off, field, "\(quoted(p, n)) is out of range")
      }
      return v
    }
    throw LineFailure(off, field, "\(quoted(p, n)) is not a number; write it like 12.5 or -3")
  }
}

/// Short quoted text for messages: at most 40 characters, invalid UTF-8 shown as U+FFFD.
func quoted(_ p: UnsafePointer<UInt8>, _ n: Int) -> String {
  let s = String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
  if s.count > 40 { return "'\(s.prefix(40))...'" }
  return "'\(s)'"
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
