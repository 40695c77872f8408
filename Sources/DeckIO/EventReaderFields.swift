import DeckBase
import DeckCore

/// The fields the event reader knows. Anything else is ignored.
enum EventField: UInt8, CaseIterable {
  case user, item, swipe, at, position, deck, propensity, prefixPropensity, dx, width

  var name: String {
    switch self {
    case .user: return "user"
    case .item: return "item"
    case .swipe: return "swipe"
    case .at: return "at"
    case .position: return "position"
    case .deck: return "deck"
    case .propensity: return "propensity"
    case .prefixPropensity: return "prefix_propensity"
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
    case 17:
      let raw = UnsafeRawPointer(p)
      if raw.loadUnaligned(as: UInt64.self) == word8("prefix_p")
        && raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == word8("ropensit")
        && p[16] == UInt8(ascii: "y")
      {
        return .prefixPropensity
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
  /// A CSV record read as one field that holds another delimiter, in a log whose header has
  /// several columns: when it is the first record after the header, the rows are separated
  /// by that delimiter (`EventReader` says so; later records keep the count of fields).
  var rowDelimiter: CSVDelimiter?

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
  var prefixPropensity: Double?
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
  /// The delimiter of CSV records (the record loop takes it as a type, `CSVSeparator`; this
  /// value is for messages and for `parse` without one).
  let delimiter: CSVDelimiter
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
  static let ratingBit: UInt16 = 1 << 10

  init(
    rule: SwipeRule, zone: any UTCOffsetProvider, format: EventFormat,
    mapping: ColumnMapping? = nil, delimiter: CSVDelimiter = .comma
  ) {
    self.rule = rule
    self.zone = zone
    self.fixedOffset = (zone as? FixedUTCOffset)?.seconds
    self.format = format
    self.delimiter = delimiter
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

  /// The next record, its CSV fields separated by `D` (the record loop's delimiter, which is
  /// `delimiter`).
  @inline(__always)
  mutating func parse<D: CSVSeparator>(
    _ p: UnsafePointer<UInt8>, available: Int, eof: Bool, _: D.Type
  ) throws(LineFailure) -> RecordOutcome {
    switch format {
    case .jsonLines: return try parseJSONLine(p, available: available, eof: eof)
    case .csv: return try parseCSVRecord(p, available: available, eof: eof, D.self)
    }
  }

  /// The next record, its CSV fields separated by `delimiter` (tests: the reader's loop takes
  /// the delimiter as a type).
  mutating func parse(_ p: UnsafePointer<UInt8>, available: Int, eof: Bool) throws(LineFailure)
    -> RecordOutcome
  {
    switch delimiter {
    case .comma: return try parse(p, available: available, eof: eof, CommaSeparator.self)
    case .semicolon: return try parse(p, available: available, eof: eof, SemicolonSeparator.self)
    case .tab: return try parse(p, available: available, eof: eof, TabSeparator.self)
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
      position: fields.position, deck: fields.deck, propensity: fields.propensity,
      prefixPropensity: fields.prefixPropensity)
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
}
