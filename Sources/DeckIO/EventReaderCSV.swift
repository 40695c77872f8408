import DeckBase
import DeckCore

// The event reader's CSV records: the fast path of the one RFC 4180 reader, `CSVParser`
// (CSVParser.swift), with its rules (quoted fields, doubled quotes, CR and LF as data inside
// quotes, LF or CRLF line ends and nothing else) but none of its allocations: fields are split
// in place in the read buffer, by field or with 8-byte words, and only the known columns are
// decoded. `CSVParser` builds a table of Strings with positions, which the catalog, users and
// mapped-log headers need and a swipe log of millions of lines cannot afford. The event
// reader's own general path (RecordParser with the fast paths off) is checked against this one,
// the same outcome on the same bytes, by EventReaderCSVFastTests and EventReaderFastPathTests.

private let quote = UInt8(ascii: "\"")
private let newline = UInt8(ascii: "\n")
private let cr = UInt8(ascii: "\r")

/// CSV (RFC 4180): a header row naming the columns in any order, then one event per record.
/// Fields are separated by the delimiter `D` (a comma unless the options give another; "comma"
/// below is whichever it is). Fields may be quoted (`"a,b"`, `"say ""hi"""`, line breaks inside quotes); records end with LF
/// or CRLF, and a CR outside quotes that is not part of a CRLF is refused (CR-only line ends;
/// `LineFailure.loneCarriageReturn`); an empty field means "not logged". Offsets in failures are
/// from the record start.
extension RecordParser {
  @inline(__always)
  mutating func parseCSVRecord<D: CSVSeparator>(
    _ p: UnsafePointer<UInt8>, available: Int, eof: Bool, _: D.Type
  ) throws(LineFailure) -> RecordOutcome {
    // The usual record (no quotes, all ASCII, its line break in the buffer, every value usual):
    // one pass over words and a fixed sequence of field reads. It is kept apart from the rest
    // (`parseCSVRecordInGeneral`, which goes on from the split when there is one) because the
    // compiler stops inlining into a function that large: there, the split was a call.
    var split: (contentEnd: Int, consumed: Int, nonASCII: Bool)? = nil
    if fastPaths && csvColumnCount > 0 {
      split = csvSplitColumns(p, available, csvColumnCount, D.self)
      if let split, !split.nonASCII && csvByField && csvFieldValues(p, fromEnds: true) {
        do throws(LineFailure) {
          let kind = try finish(end: split.contentEnd)
          return RecordOutcome(kind: kind, consumed: split.consumed, lines: 1)
        } catch {
          throw located(error, consumed: split.consumed, lines: 1)
        }
      }
    }
    return try parseCSVRecordInGeneral(p, available: available, eof: eof, split: split, D.self)
  }

  /// Every record but the usual one: `split` is its `csvSplitColumns` result, if any. Its steps
  /// are functions inlined here (but the column loop, which only records with doubled quotes or
  /// unusual values reach), so that the record's state stays in this frame's locals; the split
  /// loop itself stays here, because the compiler stops inlining into a function this large.
  @inline(never)
  mutating func parseCSVRecordInGeneral<D: CSVSeparator>(
    _ p: UnsafePointer<UInt8>, available: Int, eof: Bool,
    split: (contentEnd: Int, consumed: Int, nonASCII: Bool)?, _: D.Type
  ) throws(LineFailure) -> RecordOutcome {
    let comma = D.byte
    // Phase 1: split the record into fields and find where it ends: from the split when there
    // is one, else by words, and when that gives up, by the general loop from the record start.
    var k = 0
    var high: UInt8 = 0
    var lines = 1
    var consumed = 0
    var contentEnd = 0
    var sawQuote = false
    if let split {
      // The fields are in `csvEnds` only: anything other than the usual record goes on by the
      // column loop, which reads `csvData`.
      k = csvColumnCount
      let ends = csvEnds
      for c in 0..<k { csvSet(c, ends[c - 1] + 1, ends[c], 0) }
      (contentEnd, consumed) = (split.contentEnd, split.consumed)
      high = split.nonASCII ? 0x80 : 0
    } else if fastPaths, let plain = csvSplitPlain(p, available, D.self) {
      (k, contentEnd, consumed) = (plain.fields, plain.contentEnd, plain.consumed)
      high = plain.nonASCII ? 0x80 : 0
    } else {
      var i = 0
      while true {
        var end = 0  // where the field ends: at its closing quote, or its comma or line end
        if i < available && p[i] == quote {
          sawQuote = true
          guard
            let (close, doubled) = try csvQuotedField(
              p, from: i, available: available, eof: eof, lines: &lines, high: &high)
          else { return .needMore }
          csvSet(k, i + 1, close, doubled ? 1 : 2)
          end = close + 1
          if end < available && p[end] != comma && p[end] != newline && p[end] != cr {
            throw csvAfterQuoteFailure(at: end, p[end], D.self)
          }
        } else {
          guard
            let j = try csvPlainField(
              p, from: i, available: available, eof: eof, high: &high, D.self)
          else { return .needMore }
          csvSet(k, i, j, 0)
          end = j
        }
        k += 1
        if end < available && p[end] == comma {
          i = end + 1
          continue
        }
        // At the end of the input, a line feed, or a CR (of a CRLF unless after quotes).
        contentEnd = end
        if end == available || p[end] == newline {
          consumed = end == available ? end : end + 1
        } else {
          if end + 1 == available && !eof { return .needMore }
          guard end + 1 < available && p[end + 1] == newline else {
            throw LineFailure.loneCarriageReturn(at: end)
          }
          consumed = end + 2
        }
        break
      }
    }
    // Blank line: ignored (also before the header).
    if k == 1 && !sawQuote && csvData[1] == csvData[0] {
      return RecordOutcome(kind: .blank, consumed: consumed, lines: lines)
    }
    // Phase 2: check, count and read the fields.
    do throws(LineFailure) {
      if high >= 0x80 { try csvCheckUTF8(p, fields: k) }
      let columnCount = csvColumnCount
      guard columnCount >= 0 else {
        try readHeader(p, k)
        return RecordOutcome(kind: .header, consumed: consumed, lines: lines)
      }
      if k != columnCount {
        throw csvFieldCountFailure(p, fields: k, contentEnd: contentEnd)
      }
      if !(fastPaths && csvByField && csvFieldValues(p, fromEnds: false)) {
        try csvColumnValues(p, fields: k)
      }
      let kind = try finish(end: contentEnd)
      return RecordOutcome(kind: kind, consumed: consumed, lines: lines)
    } catch {
      throw located(error, consumed: consumed, lines: lines)
    }
  }

  /// The quoted field whose opening quote is at `i`: where its closing quote is and whether it
  /// holds doubled quotes; nil when the buffer ends before that is known. Counts the line feeds
  /// in it and ORs its bytes into `high`.
  @inline(__always)
  func csvQuotedField(
    _ p: UnsafePointer<UInt8>, from i: Int, available: Int, eof: Bool, lines: inout Int,
    high: inout UInt8
  ) throws(LineFailure) -> (close: Int, doubled: Bool)? {
    var j = i + 1
    var doubled = false
    while true {
      while j < available {
        let c = p[j]
        if c == quote { break }
        if c == newline { lines += 1 }
        high |= c
        j += 1
      }
      if j == available {
        if !eof { return nil }
        var failure = LineFailure(
          i, nil, "a quoted field is not closed; add the closing '\"' (double quotes inside)")
        failure.recordEnd = RecordEnd(consumed: available, lines: lines)
        throw failure
      }
      if j + 1 == available && !eof { return nil }
      if j + 1 < available && p[j + 1] == quote {
        doubled = true
        j += 2
        continue
      }
      return (j, doubled)
    }
  }

  /// The end of the unquoted field that starts at `i` (its comma, line feed or CRLF, or the end
  /// of the input); nil when the buffer ends before that is known. ORs its bytes into `high`.
  @inline(__always)
  func csvPlainField<D: CSVSeparator>(
    _ p: UnsafePointer<UInt8>, from i: Int, available: Int, eof: Bool, high: inout UInt8,
    _: D.Type
  ) throws(LineFailure) -> Int? {
    let comma = D.byte
    var j = i
    while j < available {
      // Eight bytes at a time: past plain ASCII ones (no comma, line feed, quote or CR)
      // straight to the first other one.
      if j + 8 <= available {
        let w = UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self)
        let special =
          (w & 0x8080_8080_8080_8080) | swarBytesEqual(w, comma) | swarBytesEqual(w, newline)
          | swarBytesEqual(w, quote) | swarBytesEqual(w, cr)
        if special == 0 {
          j += 8
          continue
        }
        j += special.trailingZeroBitCount >> 3
      }
      let c = p[j]
      if c == comma || c == newline { break }
      if c == cr {
        // The CR of a CRLF ends the record; any other is refused.
        if j + 1 < available {
          if p[j + 1] == newline { break }
          throw LineFailure.loneCarriageReturn(at: j)
        }
        if !eof { return nil }
        throw LineFailure.loneCarriageReturn(at: j)
      }
      if c == quote {
        throw LineFailure(
          j, nil, "a '\"' inside an unquoted field; quote the whole field and double the '\"'")
      }
      high |= c
      j += 1
    }
    if j == available && !eof { return nil }
    return j
  }

  /// Text after a closing quote, `c` at `at`: in a header read with another delimiter than its
  /// own (`"user";"item"` read with commas), that is the mistake to tell.
  func csvAfterQuoteFailure<D: CSVSeparator>(at: Int, _ c: UInt8, _: D.Type) -> LineFailure {
    if csvColumnCount < 0, let other = CSVDelimiter(rawValue: c), other.byte != D.byte {
      var failure = LineFailure(at, nil, delimiter.wrongDelimiter(other))
      failure.fatal = true
      return failure
    }
    return LineFailure(
      at, nil,
      "unexpected text after a closing quote; quote the whole field and double any '\"' in it")
  }

  /// Refuses invalid UTF-8 in the first `k` fields of `csvData`.
  func csvCheckUTF8(_ p: UnsafePointer<UInt8>, fields k: Int) throws(LineFailure) {
    for f in 0..<k {
      var x = csvData[3 * f]
      let end = csvData[3 * f + 1]
      while x < end {
        if p[x] < 0x80 {
          x += 1
          continue
        }
        let len = utf8SequenceLength(p, x, end)
        if len == 0 { throw invalidUTF8(p, x, columns.flatMap { f < $0.count ? $0[f] : nil }) }
        x += len
      }
    }
  }

  /// A row of `k` fields under a header of another count (with the delimiter the row seems to
  /// use, when it is one field).
  func csvFieldCountFailure(_ p: UnsafePointer<UInt8>, fields k: Int, contentEnd: Int)
    -> LineFailure
  {
    let columnCount = csvColumnCount
    var failure = LineFailure(
      k > columnCount ? csvData[3 * columnCount] : contentEnd, nil,
      "this row has \(TextLayout.plural(k, "field")) but the header has \(columnCount); "
        + "quote fields that contain \(delimiter.plural)")
    if k == 1 && csvData[2] == 0 && columnCount > 1 {
      failure.rowDelimiter = delimiter.separating(
        UnsafeBufferPointer(start: p + csvData[0], count: csvData[1] - csvData[0]))
    }
    return failure
  }

  /// The column loop: reads the `k` fields of `csvData` into `fields` one column at a time, and
  /// fails at the first bad one. A call of its own: only records with doubled quotes or unusual
  /// values come here.
  mutating func csvColumnValues(_ p: UnsafePointer<UInt8>, fields k: Int) throws(LineFailure) {
    fields = EventFields()
    let columns = csvColumns
    for c in 0..<k {
      guard let field = EventField(rawValue: columns[c]) else {
        if columns[c] == CSVFieldList.ratingColumn { try ratingField(p, c) }
        continue
      }
      let start = csvData[3 * c]
      let end = csvData[3 * c + 1]
      if start == end {
        switch field {
        case .user, .item:
          throw LineFailure(start, field, "empty; give a non-empty \(field.name) id")
        case .at:
          throw LineFailure(start, field, "empty; every event needs its time")
        default:
          continue  // not logged
        }
      }
      fields.seen |= field.bit
      var vp = p + start
      var vn = end - start
      if csvData[3 * c + 2] == 1 {
        let scratch: ScratchBuffer
        switch field {
        case .user: scratch = userScratch
        case .item: scratch = itemScratch
        default: scratch = valueScratch
        }
        let v = undouble(p + start, vn, scratch)
        vp = UnsafePointer(scratch.base)
        vn = v
      }
      switch field {
      case .user:
        fields.user = UnsafeBufferPointer(start: vp, count: vn)
      case .item:
        fields.item = UnsafeBufferPointer(start: vp, count: vn)
      case .swipe:
        fields.swipe = try swipeValue(vp, vn, start)
      case .at:
        fields.at = try timestampValue(vp, vn, start)
      case .position:
        fields.position = try positionValue(vp, vn, start)
      case .deck:
        fields.deck = try dateValue(vp, vn, start)
      case .propensity:
        fields.propensity = try propensityValue(vp, vn, start)
      case .prefixPropensity:
        fields.prefixPropensity = try prefixPropensityValue(vp, vn, start)
      case .dx:
        fields.dx = try numberValue(vp, vn, start, .dx)
        fields.dxOffset = start
      case .width:
        fields.width = try widthValue(vp, vn, start)
      }
    }
  }

  /// A failure in a record with where the record ends (unless already known) and the log's own
  /// name of its field (a mapped column).
  func located(_ failure: LineFailure, consumed: Int, lines: Int) -> LineFailure {
    var failure = failure
    if failure.recordEnd == nil {
      failure.recordEnd = RecordEnd(consumed: consumed, lines: lines)
    }
    if failure.label == nil, let field = failure.field, let label = mappedLabels[field] {
      failure.label = label
    }
    return failure
  }

  /// Reads the values of a split record field by field, in a fixed order and without a jump
  /// per column, when they are all usual: no doubled quotes, no empty user, item or time, no
  /// bad value. Returns false otherwise, and the column loop then reads the record again from
  /// the start, so that failures are reported exactly as always (at the first bad column).
  ///
  /// `fromEnds`: the fields are in `csvEnds` (a record split by `csvSplitColumns`, which has no
  /// quotes), else in `csvData`.
  @inline(__always)
  mutating func csvFieldValues(_ p: UnsafePointer<UInt8>, fromEnds: Bool) -> Bool {
    let data = csvData
    let ends = csvEnds
    let columns = csvFieldColumns
    fields = EventFields()
    var seen: UInt16 = 0
    // The value of `field`: nil when it has no column or its field is empty, and `ok` false
    // when the field needs the column loop.
    var ok = true
    @inline(__always) func value(_ field: EventField) -> (UnsafePointer<UInt8>, Int, Int)? {
      let c = columns[Int(field.rawValue)]
      guard c >= 0 else { return nil }
      let start: Int
      let end: Int
      if fromEnds {
        start = ends[c &- 1] &+ 1
        end = ends[c]
      } else {
        start = data[3 &* c]
        end = data[3 &* c &+ 1]
        if data[3 &* c &+ 2] == 1 { ok = false }
      }
      if start == end { return nil }
      seen |= field.bit
      return (p + start, end &- start, start)
    }
    if let (vp, vn, _) = value(.user) {
      fields.user = UnsafeBufferPointer(start: vp, count: vn)
    } else {
      return false
    }
    if let (vp, vn, _) = value(.item) {
      fields.item = UnsafeBufferPointer(start: vp, count: vn)
    } else {
      return false
    }
    if let (vp, vn, off) = value(.swipe) {
      guard let swipe = try? swipeValue(vp, vn, off) else { return false }
      fields.swipe = swipe
    }
    if let (vp, vn, off) = value(.at) {
      if let at = usualTimestamp(vp, vn) {
        fields.at = at
      } else {
        guard let at = try? timestampValue(vp, vn, off) else { return false }
        fields.at = at
      }
    } else if columns[Int(EventField.at.rawValue)] >= 0 {
      return false
    }
    if let (vp, vn, off) = value(.position) {
      guard let position = try? positionValue(vp, vn, off) else { return false }
      fields.position = position
    }
    if let (vp, vn, off) = value(.deck) {
      if let days = usualDeckDate(vp, vn) {
        fields.deck = DeckDate(daysSinceEpoch: days)
      } else {
        guard let deck = try? dateValue(vp, vn, off) else { return false }
        fields.deck = deck
      }
    }
    if let (vp, vn, off) = value(.propensity) {
      guard let propensity = try? propensityValue(vp, vn, off) else { return false }
      fields.propensity = propensity
    }
    if let (vp, vn, off) = value(.prefixPropensity) {
      guard let prefix = try? prefixPropensityValue(vp, vn, off) else { return false }
      fields.prefixPropensity = prefix
    }
    if let (vp, vn, off) = value(.dx) {
      guard let dx = try? numberValue(vp, vn, off, .dx) else { return false }
      fields.dx = dx
      fields.dxOffset = off
    }
    if let (vp, vn, off) = value(.width) {
      guard let width = try? widthValue(vp, vn, off) else { return false }
      fields.width = width
    }
    fields.seen = seen
    return ok
  }

  /// Reads the rating column (field `c`) of a mapped log.
  @inline(never)
  mutating func ratingField(_ p: UnsafePointer<UInt8>, _ c: Int) throws(LineFailure) {
    let start = csvData[3 * c]
    let end = csvData[3 * c + 1]
    if start == end {
      var failure = LineFailure(start, nil, "empty; every rated event needs its rating")
      failure.label = ratingLabel
      throw failure
    }
    let (vp, vn) = csvFieldBytes(p, c)
    fields.rating = try ratingValue(vp, vn, start)
    fields.seen |= RecordParser.ratingBit
  }

  /// Copies a quoted field's content with `""` turned into `"`; returns the new length.
  /// Field `c` of `csvData` as bytes and count, its doubled quotes undoubled (in
  /// `valueScratch`, until the next such field).
  func csvFieldBytes(_ p: UnsafePointer<UInt8>, _ c: Int) -> (UnsafePointer<UInt8>, Int) {
    let start = csvData[3 * c]
    let n = csvData[3 * c + 1] - start
    guard csvData[3 * c + 2] == 1 else { return (p + start, n) }
    let undoubled = undouble(p + start, n, valueScratch)  // may move the scratch buffer
    return (UnsafePointer(valueScratch.base), undoubled)
  }

  func undouble(_ p: UnsafePointer<UInt8>, _ n: Int, _ scratch: ScratchBuffer) -> Int {
    scratch.reserve(n)
    let out = scratch.base
    var o = 0
    var j = 0
    while j < n {
      out[o] = p[j]
      o += 1
      j += p[j] == quote ? 2 : 1
    }
    return o
  }
}
