import DeckBase

/// Where a CSV field starts: 1-based line and column (column in Unicode scalars).
package struct CSVPosition: Sendable, Equatable {
  package var line: Int
  package var column: Int
}

/// One data row of a CSV file.
package struct CSVRecord: Sendable, Equatable {
  /// The line the record starts on. A quoted field with line breaks makes a record span several
  /// lines, so this is not the record's index plus a constant.
  package let line: Int
  package let fields: [String]
  /// Where each field starts (for a quoted field, its opening quote).
  package let positions: [CSVPosition]

  package init(line: Int, fields: [String], positions: [CSVPosition]) {
    self.line = line
    self.fields = fields
    self.positions = positions
  }

  package subscript(index: Int) -> String { fields[index] }
}

/// A parsed CSV file: the header row and the records below it.
package struct CSVTable: Sendable {
  package let file: String
  /// Column names as written, without surrounding spaces.
  package let header: [String]
  package let headerLine: Int
  package let records: [CSVRecord]
  private let indexByName: [String: Int]

  init(file: String, header: [String], headerLine: Int, records: [CSVRecord]) {
    self.file = file
    self.header = header
    self.headerLine = headerLine
    self.records = records
    var index: [String: Int] = [:]
    for (n, name) in header.enumerated() where index[name] == nil { index[name] = n }
    self.indexByName = index
  }

  /// The index of the column named `name` (exact, case-sensitive), if present.
  package func column(_ name: String) -> Int? { indexByName[name] }

  /// The index of a column that must be present: "missing column 'price'; the header (line 1)
  /// has: id, name, category".
  package func requireColumn(_ name: String) throws(DeckIOError) -> Int {
    if let n = indexByName[name] { return n }
    let listed = header.map { "'\($0)'" }.joined(separator: ", ")
    throw .malformed(
      SourceLocation(file: file, line: headerLine),
      message: "missing column '\(name)'\(didYouMeanColumn(name)); the header has: \(listed)")
  }

  private func didYouMeanColumn(_ name: String) -> String {
    guard let near = closestMatch(name, header) else { return "" }
    return " (is '\(near)' a typo for it?)"
  }

  /// The location of field `index` of `record`.
  package func location(_ record: CSVRecord, _ index: Int) -> SourceLocation {
    let p = record.positions[index]
    return SourceLocation(file: file, line: p.line, column: p.column)
  }
}

/// An RFC 4180 CSV parser over UTF-8 bytes: the one general CSV reader (catalogs, users, the
/// real-data import). Swipe logs take its fast path, EventReaderCSV.swift, which keeps these
/// rules without building Strings.
///
/// - The first row is the header; every other row must have as many fields.
/// - Fields are separated by the delimiter (`CSVDelimiter`: a comma unless one is given).
/// - Fields may be quoted with `"`; inside quotes, delimiters and line breaks are data and `""` is
///   one quote. A line break inside quotes is kept as LF even when the file uses CRLF, so a file's
///   line-ending convention never changes the data.
/// - Lines end with LF or CRLF; the last line may lack one; blank lines at the end are ignored.
///   A carriage return not followed by a line feed outside quotes (CR-only line ends) is an
///   error (`loneCarriageReturnMessage`); inside quotes it is data.
/// - A leading UTF-8 byte order mark is skipped.
/// - Errors, each with the line and column of the offending byte: invalid UTF-8, a quote inside
///   an unquoted field, text after a closing quote, an unterminated quote, a carriage return not
///   followed by a line feed, a row with the wrong number of fields (both counts named), a blank
///   line between rows, duplicate column names, and a header separated by another delimiter
///   than the one given (`CSVDelimiter.wrongDelimiter`: a header of one field that holds one,
///   or a quoted header field followed by one).
package enum CSVParser {
  package static func parse(_ bytes: [UInt8], file: String, delimiter: CSVDelimiter = .comma)
    throws(DeckIOError) -> CSVTable
  {
    var s = Scanner(b: bytes, file: file, delimiter: delimiter)
    return try s.table()
  }

  package static func parse(_ text: String, file: String, delimiter: CSVDelimiter = .comma)
    throws(DeckIOError) -> CSVTable
  {
    try parse(Array(text.utf8), file: file, delimiter: delimiter)
  }
}

private let dquote = UInt8(ascii: "\"")
private let lf = UInt8(ascii: "\n")
private let cr = UInt8(ascii: "\r")

private struct Scanner {
  let b: [UInt8]
  let file: String
  let delimiter: CSVDelimiter
  /// `delimiter`'s byte.
  let separator: UInt8
  var i: Int
  var lines: LineTracker
  /// Whether the header row is being read (a quoted header field followed by another
  /// delimiter is then told as such).
  var inHeader = true

  init(b: [UInt8], file: String, delimiter: CSVDelimiter) {
    self.b = b
    self.file = file
    self.delimiter = delimiter
    self.separator = delimiter.byte
    let start = b.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    self.i = start
    self.lines = LineTracker(start: start)
  }

  mutating func position(_ offset: Int) -> CSVPosition {
    CSVPosition(line: lines.line, column: lines.column(of: offset, in: b))
  }

  mutating func fail(at offset: Int, _ message: String) -> DeckIOError {
    .malformed(
      SourceLocation(file: file, line: lines.line, column: lines.column(of: offset, in: b)),
      message: message)
  }

  mutating func table() throws(DeckIOError) -> CSVTable {
    guard let (headerRow, _, headerQuoted) = try record() else {
      throw .malformed(
        SourceLocation(file: file, line: 1, column: 1),
        message: "empty file; expected a header row naming the columns")
    }
    inHeader = false
    let header = headerRow.fields.map(trimSpaces)
    // Only spaces or tabs are blank too (they are trimmed off column names): a table of one
    // column without a name would not read back the same once written.
    if header == [""] {
      throw .malformed(
        SourceLocation(file: file, line: headerRow.line, column: 1),
        message: "blank first line; the first line must be the header row naming the columns")
    }
    if headerRow.fields.count == 1, !headerQuoted,
      let other = delimiter.separating(headerRow.fields[0].utf8)
    {
      throw .malformed(
        SourceLocation(file: file, line: headerRow.line, column: 1),
        message: delimiter.wrongDelimiter(other))
    }
    var seen: [String: Int] = [:]
    for (n, name) in header.enumerated() {
      if let first = seen[name] {
        let p = headerRow.positions[n]
        throw .malformed(
          SourceLocation(file: file, line: p.line, column: p.column),
          message: "duplicate column '\(name)' (columns \(first + 1) and \(n + 1)); "
            + "rename or remove one")
      }
      seen[name] = n
    }
    var records: [CSVRecord] = []
    // Blank lines are fine at the end of the file; between rows they are an error, except with
    // one column, where a blank line is a record with one empty field.
    var blanks: [CSVRecord] = []
    while let (r, isBlank, _) = try record() {
      if isBlank {
        blanks.append(r)
        continue
      }
      if let first = blanks.first {
        guard header.count == 1 else {
          throw .malformed(
            SourceLocation(file: file, line: first.line, column: 1),
            message: "blank line between rows; remove it (every row needs \(header.count) "
              + "fields)")
        }
        records.append(contentsOf: blanks)
        blanks.removeAll()
      }
      if r.fields.count != header.count {
        let hint =
          r.fields.count > header.count
          ? "quote fields that contain \(delimiter.plural)"
          : "add the missing fields (they may be empty)"
        throw .malformed(
          SourceLocation(file: file, line: r.line, column: 1),
          message: "row has \(r.fields.count) field\(r.fields.count == 1 ? "" : "s") but the "
            + "header (line \(headerRow.line)) has \(header.count); \(hint)")
      }
      records.append(r)
    }
    return CSVTable(file: file, header: header, headerLine: headerRow.line, records: records)
  }

  /// The next record, whether it is a blank line and whether a field of it was quoted, or nil at
  /// the end of the input.
  mutating func record() throws(DeckIOError) -> (CSVRecord, blank: Bool, quoted: Bool)? {
    guard i < b.count else { return nil }
    let line = lines.line
    var fields: [String] = []
    var positions: [CSVPosition] = []
    var sawQuote = false
    while true {
      positions.append(position(i))
      if i < b.count, b[i] == dquote {
        sawQuote = true
        fields.append(try quotedField())
      } else {
        fields.append(try plainField())
      }
      if i < b.count, b[i] == separator {
        i += 1
        continue
      }
      // End of record: LF, CRLF or the end of the input.
      if i < b.count {
        if b[i] == cr { i += 1 }
        lines.newline(at: i)
        i += 1
      }
      break
    }
    // `""` alone on a line is a record with one empty field, not a blank line.
    let blank = !sawQuote && fields == [""]
    return (CSVRecord(line: line, fields: fields, positions: positions), blank, sawQuote)
  }

  /// An unquoted field at `i`; stops at the delimiter, a line end or the end of the input.
  mutating func plainField() throws(DeckIOError) -> String {
    let start = i
    while i < b.count {
      let c = b[i]
      if c == separator || c == lf { break }
      if c == cr {
        if i + 1 < b.count, b[i + 1] == lf { break }
        throw fail(at: i, loneCarriageReturnMessage)
      }
      if c == dquote {
        throw fail(
          at: i,
          "quote inside an unquoted field; enclose the whole field in quotes and double the "
            + "quote (\"\")")
      }
      if c < 0x80 {
        i += 1
      } else if let len = utf8SequenceLength(b, i) {
        i += len
      } else {
        throw fail(at: i, invalidUTF8Message(b, i))
      }
    }
    return String(decoding: b[start..<i], as: UTF8.self)
  }

  /// A quoted field with its opening quote at `i`; leaves `i` after the closing quote.
  mutating func quotedField() throws(DeckIOError) -> String {
    let openLine = lines.line
    let openColumn = lines.column(of: i, in: b)
    i += 1
    var out: [UInt8] = []
    var runStart = i
    while true {
      guard i < b.count else {
        throw .malformed(
          SourceLocation(file: file, line: openLine, column: openColumn),
          message: "quoted field is never closed; add the closing quote (\")")
      }
      let c = b[i]
      if c == dquote {
        out.append(contentsOf: b[runStart..<i])
        if i + 1 < b.count, b[i + 1] == dquote {
          out.append(dquote)
          i += 2
          runStart = i
          continue
        }
        i += 1
        break
      }
      if c == lf {
        lines.newline(at: i)
        i += 1
      } else if c == cr, i + 1 < b.count, b[i + 1] == lf {
        // CRLF inside quotes becomes LF.
        out.append(contentsOf: b[runStart..<i])
        out.append(lf)
        lines.newline(at: i + 1)
        i += 2
        runStart = i
      } else if c < 0x80 {
        i += 1
      } else if let len = utf8SequenceLength(b, i) {
        i += len
      } else {
        throw fail(at: i, invalidUTF8Message(b, i))
      }
    }
    if i < b.count, b[i] != separator, b[i] != lf,
      !(b[i] == cr && i + 1 < b.count && b[i + 1] == lf)
    {
      if b[i] == cr { throw fail(at: i, loneCarriageReturnMessage) }
      if inHeader, let other = CSVDelimiter(rawValue: b[i]), other != delimiter {
        // `"id";"name"` read with commas: the header's delimiter is another.
        throw fail(at: i, delimiter.wrongDelimiter(other))
      }
      throw fail(
        at: i,
        "unexpected \(describeByte(b, i)) after a closing quote; a quoted field must end at its "
          + "closing quote (write a quote inside it as \"\")")
    }
    return String(decoding: out, as: UTF8.self)
  }
}

/// `s` without leading and trailing spaces and tabs.
func trimSpaces(_ s: String) -> String {
  let u = s.utf8
  var start = u.startIndex
  var end = u.endIndex
  while start < end, u[start] == UInt8(ascii: " ") || u[start] == UInt8(ascii: "\t") {
    start = u.index(after: start)
  }
  while end > start {
    let prev = u.index(before: end)
    guard u[prev] == UInt8(ascii: " ") || u[prev] == UInt8(ascii: "\t") else { break }
    end = prev
  }
  return String(s[start..<end])
}
