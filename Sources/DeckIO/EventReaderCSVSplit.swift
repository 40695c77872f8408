import DeckCore

private let quote = UInt8(ascii: "\"")
private let newline = UInt8(ascii: "\n")
private let cr = UInt8(ascii: "\r")

/// The delimiter of a CSV log as a type (`CSVDelimiter` as a value): the record loop of the
/// event reader is compiled once for each, and compares bytes with its delimiter as with a
/// constant, so that the usual comma costs what it cost when it was the only delimiter (no
/// byte loaded from the parser, no vector built from it per record).
protocol CSVSeparator {
  static var byte: UInt8 { get }
}

enum CommaSeparator: CSVSeparator {
  @inline(__always) static var byte: UInt8 { UInt8(ascii: ",") }
}

enum SemicolonSeparator: CSVSeparator {
  @inline(__always) static var byte: UInt8 { UInt8(ascii: ";") }
}

enum TabSeparator: CSVSeparator {
  @inline(__always) static var byte: UInt8 { UInt8(ascii: "\t") }
}

/// Owns the memory of the CSV state of a `RecordParser`: the field boundaries of one record
/// (reused for every record) and the field of each header column. The parser keeps copies of
/// the pointers, so the hot loop does not retain this object.
final class CSVFieldList {
  private(set) var capacity = 16
  /// Per field: content start, content end (offsets in the record), and 1 when the field was
  /// quoted and contains doubled quotes, 2 when quoted without them, 0 when unquoted.
  private(set) var data = UnsafeMutablePointer<Int>.allocate(capacity: 16 * 3)
  /// Per header column: the `EventField` raw value, or `ignoredColumn`.
  private(set) var columns = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
  /// Where each field of a record split by `csvSplitColumns` ends (its delimiter, or before the
  /// final CR), one per header column, after a first element of -1: field `c` starts at
  /// `ends[c - 1] + 1` for every `c`. `endsBase + 1` is the first field's end.
  private(set) var endsBase = UnsafeMutablePointer<Int>.allocate(capacity: 2)
  /// Per `EventField` (by raw value): its column, or -1.
  let fieldColumns = UnsafeMutablePointer<Int>.allocate(capacity: EventField.allCases.count)
  /// Whether each known field has at most one column and there is no rating column: records
  /// can then be read field by field (see `csvFieldValues`).
  private(set) var byField = false

  static let ignoredColumn: UInt8 = 0xFF
  /// The rating column of a mapped log (see `ColumnMapping`).
  static let ratingColumn: UInt8 = 0xFE

  init() {
    fieldColumns.initialize(repeating: -1, count: EventField.allCases.count)
    endsBase.initialize(repeating: -1, count: 2)
  }

  deinit {
    data.deallocate()
    columns.deallocate()
    endsBase.deallocate()
    fieldColumns.deallocate()
  }

  func grow() {
    let bigger = UnsafeMutablePointer<Int>.allocate(capacity: capacity * 2 * 3)
    bigger.update(from: data, count: capacity * 3)
    data.deallocate()
    data = bigger
    capacity *= 2
  }

  func setColumns(_ fields: [EventField?]) {
    setKinds(fields.map { $0?.rawValue ?? CSVFieldList.ignoredColumn })
  }

  /// Per column: an `EventField` raw value, `ratingColumn` or `ignoredColumn`.
  func setKinds(_ kinds: [UInt8]) {
    columns.deallocate()
    columns = .allocate(capacity: max(kinds.count, 1))
    endsBase.deallocate()
    endsBase = .allocate(capacity: kinds.count + 1)
    endsBase.initialize(repeating: -1, count: kinds.count + 1)
    for (c, kind) in kinds.enumerated() { columns[c] = kind }
    fieldColumns.update(repeating: -1, count: EventField.allCases.count)
    byField = true
    for (c, kind) in kinds.enumerated() {
      if kind == CSVFieldList.ratingColumn { byField = false }
      guard let field = EventField(rawValue: kind) else { continue }
      if fieldColumns[Int(field.rawValue)] >= 0 { byField = false }
      fieldColumns[Int(field.rawValue)] = c
    }
  }
}

// Splitting a CSV record into fields: the fast paths for records without quotes.
extension RecordParser {
  /// Splits a record without quotes whose line break is in `p[0..<available]`: the number of
  /// fields (recorded by `csvSet`), where the content ends (before a final CR), the bytes
  /// consumed, and whether any byte is non-ASCII. nil when it sees a quote or no line break:
  /// the general loop then reads the record from its start, so results never differ.
  @inline(__always)
  mutating func csvSplitPlain<D: CSVSeparator>(
    _ p: UnsafePointer<UInt8>, _ available: Int, _: D.Type
  ) -> (fields: Int, contentEnd: Int, consumed: Int, nonASCII: Bool)? {
    let comma = D.byte
    var k = 0
    var fieldStart = 0
    var nonASCII = false
    var j = 0
    while true {
      // The high bit of each delimiter, line feed, quote, CR and non-ASCII byte from `j` on.
      let base = j
      var marks: UInt64
      if j + 8 <= available {
        let w = UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self)
        marks =
          (w & 0x8080_8080_8080_8080) | swarBytesEqual(w, comma) | swarBytesEqual(w, newline)
          | swarBytesEqual(w, quote) | swarBytesEqual(w, cr)
        j += 8
      } else if j < available {
        let c = p[j]
        marks = c >= 0x80 || c == comma || c == newline || c == quote || c == cr ? 0x80 : 0
        j += 1
      } else {
        return nil
      }
      while marks != 0 {
        let at = base + (marks.trailingZeroBitCount >> 3)
        marks &= marks &- 1
        let c = p[at]
        if c == comma {
          csvSet(k, fieldStart, at, 0)
          k += 1
          fieldStart = at + 1
        } else if c == newline {
          csvSet(k, fieldStart, at, 0)
          return (k + 1, at, at + 1, nonASCII)
        } else if c == cr {
          // The CR of a CRLF ends the record; the general loop refuses any other.
          guard at + 1 < available && p[at + 1] == newline else { return nil }
          csvSet(k, fieldStart, at, 0)
          return (k + 1, at, at + 2, nonASCII)
        } else if c == quote {
          return nil
        } else {
          nonASCII = true
        }
      }
    }
  }

  /// Splits the usual data record, `columns` unquoted fields ended by delimiters (`D`, called
  /// commas below) and a line break, without a test per delimiter of which one it is: the
  /// commas, line feeds, quotes and CRs of 64 bytes at a time become one bit mask, the fields
  /// are its first `columns` bits, and one check at the end says whether they were
  /// `columns - 1` commas and then a line feed (or a CRLF). The fields go to `csvEnds` (their
  /// ends only: each starts after the previous one's delimiter).
  /// Returns where the content ends (before a final CR), the bytes consumed, and whether a byte
  /// of the blocks read (the record's or after it) is non-ASCII, which only asks for the exact
  /// UTF-8 check of the fields. nil for any other record (a quote, another number of fields, a
  /// line break not within the 64-byte blocks in `p[0..<available]`): the other paths then read
  /// it from its start, so results never differ.
  @inline(__always)
  func csvSplitColumns<D: CSVSeparator>(
    _ p: UnsafePointer<UInt8>, _ available: Int, _ columns: Int, _: D.Type
  ) -> (contentEnd: Int, consumed: Int, nonASCII: Bool)? {
    let comma = D.byte
    guard available >= 64 else { return nil }
    let ends = csvEnds
    let last = columns &- 1
    var base = 0
    var (marks, nonASCII) = csvBlockMarks(p, D.self)
    // Any bits but those of a comma: a delimiter that is not where it should be.
    var wrong: UInt8 = 0
    var f = 0
    while true {
      while marks == 0 {
        base &+= 64
        guard base &+ 64 <= available else { return nil }
        let block = csvBlockMarks(p + base, D.self)
        marks = block.marks
        nonASCII = nonASCII || block.nonASCII
      }
      let at = base &+ marks.trailingZeroBitCount
      marks &= marks &- 1
      ends[f] = at
      if f == last {
        // A line feed, or the CR of a CRLF: any other CR (here or in an earlier field, where it
        // is in `wrong`) is for the general loop to refuse.
        guard wrong == 0 else { return nil }
        let c = p[at]
        if c == newline { return (at, at &+ 1, nonASCII) }
        guard c == cr && at &+ 1 < available && p[at &+ 1] == newline else { return nil }
        return (at, at &+ 2, nonASCII)
      }
      wrong |= p[at] ^ comma
      f &+= 1
    }
  }

  /// Records field `k` of the current record.
  @inline(__always)
  mutating func csvSet(_ k: Int, _ start: Int, _ end: Int, _ kind: Int) {
    if k >= csvCapacity {
      csvFields.grow()
      csvData = csvFields.data
      csvCapacity = csvFields.capacity
    }
    csvData[3 * k] = start
    csvData[3 * k + 1] = end
    csvData[3 * k + 2] = kind
  }
}

/// The delimiters (`D`'s byte: the commas), line feeds, quotes and carriage returns of the 64
/// bytes at `p` as bits (bit `i` for byte `i`), and whether any of the 64 bytes is non-ASCII.
/// Each 16 bytes are compared with the four delimiters as whole vectors (one byte compare
/// instruction each: vector against vector, since a comparison with a scalar is made lane by
/// lane), which gives 0xFF for a hit and 0x00 otherwise; the low bit of each 8 lanes is then
/// gathered into 8 bits by one multiplication.
@inline(__always)
func csvBlockMarks<D: CSVSeparator>(_ p: UnsafePointer<UInt8>, _: D.Type) -> (
  marks: UInt64, nonASCII: Bool
) {
  let raw = UnsafeRawPointer(p)
  let commas = SIMD16<UInt8>(repeating: D.byte)
  let newlines = SIMD16<UInt8>(repeating: newline)
  let quotes = SIMD16<UInt8>(repeating: quote)
  let crs = SIMD16<UInt8>(repeating: cr)
  var marks: UInt64 = 0
  var any = SIMD16<UInt8>(repeating: 0)
  for k in 0..<4 {
    let v = raw.loadUnaligned(fromByteOffset: 16 &* k, as: SIMD16<UInt8>.self)
    any |= v
    let hits = (v .== commas) .| (v .== newlines) .| (v .== quotes) .| (v .== crs)
    let words = unsafeBitCast(hits, to: SIMD2<UInt64>.self)
    let lo = ((words[0] & 0x0101_0101_0101_0101) &* 0x0102_0408_1020_4080) >> 56
    let hi = ((words[1] & 0x0101_0101_0101_0101) &* 0x0102_0408_1020_4080) >> 56
    marks |= (lo | hi << 8) << UInt64(16 &* k)
  }
  let highs = unsafeBitCast(any & SIMD16<UInt8>(repeating: 0x80), to: SIMD2<UInt64>.self)
  return (marks, highs[0] | highs[1] != 0)
}
