import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckIO

/// CSV inputs separated by semicolons or tabs (`CSVDelimiter`): every reader reads them as it
/// reads the same data separated by commas, with RFC 4180 quoting around the delimiter, and a
/// header separated by another delimiter than the one given is refused with the one it has.
@Suite struct CSVDelimiterTests {
  /// `rows` as CSV separated by `d`: a field is quoted when it holds `d`, a quote or a line
  /// break (so the other delimiters stay unquoted, as data), its quotes doubled.
  static func write(_ rows: [[String]], _ d: CSVDelimiter, eol: String = "\n") -> String {
    rows.map { row in
      row.map { field in
        let special = field.utf8.contains {
          $0 == d.byte || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D
        }
        return special ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
      }.joined(separator: String(UnicodeScalar(d.byte)))
    }.joined(separator: eol) + eol
  }

  @Test func spellings() {
    for (text, d) in [
      (",", CSVDelimiter.comma), ("comma", .comma), (";", .semicolon), ("semicolon", .semicolon),
      ("Semicolon", .semicolon), ("tab", .tab), ("TAB", .tab), ("\t", .tab), ("\\t", .tab),
    ] {
      #expect(CSVDelimiter(spelling: text) == d, "\(text.debugDescription)")
    }
    for text in ["", "|", ";;", " ", ", ", "t", "\\", "colon", "0x3B"] {
      #expect(CSVDelimiter(spelling: text) == nil, "\(text.debugDescription)")
    }
    // What a hint gives back is what the option takes.
    for d in CSVDelimiter.allCases {
      #expect(CSVDelimiter(spelling: d.spelling) == d)
    }
    #expect(CSVDelimiter.semicolon.option == "--delimiter ';'")
    #expect(CSVDelimiter.tab.option == "--delimiter tab")
  }

  // MARK: - The general parser

  /// Fields that hold every delimiter, quotes and line breaks.
  static let rows: [[String]] = [
    ["id", "name", "note"],
    ["1", "Curry, mild", "a;b"],
    ["2", "tab\there", "say \"hi\""],
    ["3", "two\nlines", ""],
    ["4", "", "x,y;z\tw"],
  ]

  @Test(arguments: CSVDelimiter.allCases, ["\n", "\r\n"])
  func theParserReadsEveryDelimiterAsTheComma(_ d: CSVDelimiter, _ eol: String) throws {
    let table = try CSVParser.parse(Self.write(Self.rows, d, eol: eol), file: "t.csv", delimiter: d)
    #expect(table.header == Self.rows[0])
    #expect(table.records.map(\.fields) == Array(Self.rows.dropFirst()))
    #expect(table.records.map(\.line) == [2, 3, 4, 6])
  }

  @Test func theFieldCountMessageNamesTheDelimiter() {
    let error = thrown { () throws(DeckIOError) in
      try CSVParser.parse("a;b\n1;2;3\n", file: "t.csv", delimiter: .semicolon)
    }
    #expect(
      error?.description
        == "t.csv:2:1: row has 3 fields but the header (line 1) has 2; quote fields that contain "
        + "semicolons")
  }

  @Test(arguments: CSVDelimiter.allCases, CSVDelimiter.allCases)
  func aHeaderSeparatedByAnotherDelimiterIsRefusedWithIt(
    _ given: CSVDelimiter, _ found: CSVDelimiter
  ) throws {
    let text = Self.write([["id", "name", "category"], ["a", "Alpha, the first", "x"]], found)
    let read = { () throws(DeckIOError) in
      try CSVParser.parse(text, file: "c.csv", delimiter: given)
    }
    guard given != found else {
      #expect(try read().header == ["id", "name", "category"])
      return
    }
    #expect(
      throws: DeckIOError.malformed(
        SourceLocation(file: "c.csv", line: 1, column: 1), message: given.wrongDelimiter(found))
    ) { try read() }
  }

  @Test func theWrongDelimiterMessages() {
    #expect(
      CSVDelimiter.comma.wrongDelimiter(.semicolon)
        == "the header is separated by ';', not ','; give --delimiter ';'")
    #expect(
      CSVDelimiter.comma.wrongDelimiter(.tab)
        == "the header is separated by tabs, not ','; give --delimiter tab")
    #expect(
      CSVDelimiter.tab.wrongDelimiter(.comma)
        == "the header is separated by ',', not tabs; give --delimiter ','")
  }

  @Test func aQuotedHeaderSeparatedByAnotherDelimiterIsRefusedWhereItIs() {
    // What a spreadsheet writes when it quotes every field.
    let error = thrown { () throws(DeckIOError) in
      try CSVParser.parse("\"id\";\"name\";\"category\"\n\"a\";\"b\";\"c\"\n", file: "c.csv")
    }
    #expect(
      error
        == .malformed(
          SourceLocation(file: "c.csv", line: 1, column: 5),
          message: CSVDelimiter.comma.wrongDelimiter(.semicolon)))
    // In a record, the same bytes are the usual error about text after a closing quote.
    let record = thrown { () throws(DeckIOError) in
      try CSVParser.parse("id,name\n\"a\";\"b\"\n", file: "c.csv")
    }
    #expect(
      record?.description.hasPrefix("c.csv:2:4: unexpected ';' after a closing quote") == true)
  }

  @Test func headersOfOneColumnAndQuotedOnesAreNotTakenForAnotherDelimiter() throws {
    // One column without another delimiter, and one whose name holds one inside quotes.
    #expect(try CSVParser.parse("id\nu1\n", file: "u.csv").records.count == 1)
    #expect(try CSVParser.parse("id\nu1\n", file: "u.csv", delimiter: .tab).header == ["id"])
    #expect(try CSVParser.parse("\"id;x\"\nu1\n", file: "u.csv").header == ["id;x"])
    // Both other delimiters: the one it holds most.
    let error = thrown { () throws(DeckIOError) in
      try CSVParser.parse("id;name\tcategory;price\n", file: "c.csv")
    }
    #expect(error?.description == "c.csv:1:1: " + CSVDelimiter.comma.wrongDelimiter(.semicolon))
  }

  // MARK: - Catalogs, users, policy files

  static let catalog: [[String]] = [
    ["id", "name", "category", "tags", "price", "allergens"],
    ["nikujaga", "Nikujaga; beef, potato", "Simmered", "beef|home-style", "780", "soy"],
    ["gyoza", "Gyoza \"6\"", "fried", "", "", "wheat|pork"],
    ["miso", "Miso\tsoup", "soup", "", "120.5", ""],
  ]

  @Test(arguments: [CSVDelimiter.semicolon, .tab])
  func catalogsUsersAndPoliciesReadAsTheirCommaVersion(_ d: CSVDelimiter) throws {
    let comma = try CatalogReader.parse(Self.write(Self.catalog, .comma), file: "c", format: .csv)
    let other = try CatalogReader.parse(
      Self.write(Self.catalog, d), file: "c", format: .csv, delimiter: d)
    #expect(other.items == comma.items)
    #expect(other.items.map(\.name) == ["Nikujaga; beef, potato", "Gyoza \"6\"", "Miso\tsoup"])
    let checked = CatalogReader.check(
      Array(Self.write(Self.catalog, d).utf8), file: "c", format: .csv, delimiter: d)
    #expect(checked.catalog?.items == comma.items && checked.errors.isEmpty)

    let users: [[String]] = [
      ["id", "diets", "allergens", "disliked_categories"], ["u1", "vegetarian", "egg|soy", ""],
      ["u;2", "", "", "soup"],
    ]
    let usersComma = try UsersReader.parse(Self.write(users, .comma), file: "u", format: .csv)
    #expect(
      try UsersReader.parse(Self.write(users, d), file: "u", format: .csv, delimiter: d)
        == usersComma)
    #expect(
      UsersReader.check(Array(Self.write(users, d).utf8), file: "u", format: .csv, delimiter: d)
        .users == usersComma)

    let policy: [[String]] = [
      ["diner", "day", "item", "position", "probability"],
      ["u1", "2026-11-20", "gyoza", "1", "0.5"],
      ["", "", "miso", "1", "0.25"],
    ]
    let policyComma = try PolicyFile.parse(
      Array(Self.write(policy, .comma).utf8), file: "p", catalog: comma)
    #expect(
      try PolicyFile.parse(
        Array(Self.write(policy, d).utf8), file: "p", catalog: comma, delimiter: d)
        == policyComma)
    // Read with the comma, each is refused with the delimiter it has.
    let refusal = DeckIOError.malformed(
      SourceLocation(file: "p", line: 1, column: 1), message: CSVDelimiter.comma.wrongDelimiter(d))
    #expect(throws: refusal) {
      try PolicyFile.parse(Array(Self.write(policy, d).utf8), file: "p", catalog: comma)
    }
    #expect(throws: refusal) {
      try CatalogReader.parse(Self.write(Self.catalog, d), file: "p", format: .csv)
    }
    #expect(throws: refusal) {
      try UsersReader.parse(Self.write(users, d), file: "p", format: .csv)
    }
  }

  @Test func aDecimalCommaInAPriceIsRefusedWithTheNumberToWrite() {
    let error = thrown { () throws(DeckIOError) in
      try CatalogReader.parse(
        "id;name;category;price\na;Alpha;x;7,80\n", file: "c.csv", format: .csv,
        delimiter: .semicolon)
    }
    #expect(
      error?.description
        == "c.csv:2:11: price '7,80' must be a number 0 or more with a decimal point; "
        + "write '7.80'")
    let other = thrown { () throws(DeckIOError) in
      try CatalogReader.parse(
        "id;name;category;price\na;Alpha;x;7,8,0\n", file: "c.csv", format: .csv,
        delimiter: .semicolon)
    }
    #expect(other?.description.hasSuffix("price '7,8,0' must be a number 0 or more") == true)
  }

  // MARK: - Swipe logs

  /// A log as rows: menudeck's columns and a note with every delimiter, quotes and line breaks;
  /// raw drags, empty optional fields, blank lines, some non-ASCII ids.
  static func logRows(seed: UInt64, count: Int) -> [[String]] {
    var r = RandomStream(seed: seed)
    var rows = [["user", "item", "swipe", "at", "position", "deck", "dx", "width", "note"]]
    let notes = ["", "plain", "a, b", "c; d", "e\tf", "say \"hi\"", "two\nlines", "x\r\ny", "寿司"]
    for k in 0..<count {
      let drag = r.nextInt(below: 6) == 0
      rows.append([
        "u\(r.nextInt(below: 30))" + (k % 11 == 0 ? "é" : ""), "dish-\(r.nextInt(below: 20))",
        drag ? "" : r.nextInt(below: 3) == 0 ? "right" : "left",
        String(format: "2026-11-%02dT%02d:%02d:00Z", 1 + k % 28, k % 24, k % 60),
        r.nextInt(below: 3) == 0 ? "" : "\(1 + r.nextInt(below: 10))",
        r.nextInt(below: 2) == 0 ? "" : String(format: "2026-11-%02d", 1 + k % 28),
        drag ? "\(r.nextInt(below: 400) - 200)" : "", drag ? "300" : "",
        notes[r.nextInt(below: notes.count)],
      ])
    }
    return rows
  }

  private static func read(
    _ text: String, _ d: CSVDelimiter, fast: Bool, chunk: Int, skip: Bool = false,
    mapping: ColumnMapping? = nil, header: String? = nil
  ) -> (events: [SwipeEvent], stats: EventReadStats?, error: DeckIOError?) {
    var options = EventReaderOptions(
      skipBadLines: skip, chunkSize: chunk, onReject: { _ throws(DeckIOError) in },
      columns: mapping)
    options.csvDelimiter = d
    options.fastPaths = fast
    options.csvHeader = header.map { Array($0.utf8) }
    var sink = SwipeEventCollector()
    do {
      let stats = try EventReader(options: options).read(
        bytes: Array(text.utf8), name: "log.csv", format: .csv, into: &sink)
      return (sink.events, stats, nil)
    } catch {
      return (sink.events, nil, error)
    }
  }

  @Test(arguments: [CSVDelimiter.semicolon, .tab], ["\n", "\r\n"])
  func logsReadAsTheirCommaVersionOnEveryPathAndChunkSize(_ d: CSVDelimiter, _ eol: String) {
    let rows = Self.logRows(seed: 26, count: 400)
    let want = Self.read(Self.write(rows, .comma, eol: eol), .comma, fast: false, chunk: 1 << 18)
    #expect(want.error == nil)
    #expect(want.events.count == 400 - (want.stats?.hesitations ?? 0))
    let text = Self.write(rows, d, eol: eol)
    for chunk in [16, 61, 64, 200, 1 << 18] {
      for fast in [false, true] {
        let got = Self.read(text, d, fast: fast, chunk: chunk)
        #expect(got.error == nil, "chunk \(chunk), fast \(fast)")
        #expect(got.events == want.events, "chunk \(chunk), fast \(fast)")
        #expect(got.stats?.lines == want.stats?.lines)
        #expect(got.stats?.hesitations == want.stats?.hesitations)
        #expect(got.stats?.bytes == text.utf8.count)
      }
    }
  }

  @Test func aLogWhoseHeaderHasAnotherDelimiterStopsTheRunEvenWhenSkipping() {
    for given in CSVDelimiter.allCases {
      for found in CSVDelimiter.allCases where found != given {
        let text = Self.write(Self.logRows(seed: 3, count: 20), found)
        for skip in [false, true] {
          for fast in [false, true] {
            let got = Self.read(text, given, fast: fast, chunk: 61, skip: skip)
            #expect(
              got.error
                == .malformed(
                  SourceLocation(file: "log.csv", line: 1, column: 1),
                  message: given.wrongDelimiter(found)), "\(given) \(found) skip \(skip)")
            #expect(got.events.isEmpty)
          }
        }
      }
    }
    // A quoted header: at the byte after the first closing quote.
    let quoted = "\"user\";\"item\";\"swipe\";\"at\"\n\"u1\";\"d1\";\"left\";\"2026-10-01\"\n"
    for fast in [false, true] {
      #expect(
        Self.read(quoted, .comma, fast: fast, chunk: 1 << 18, skip: true).error
          == .malformed(
            SourceLocation(file: "log.csv", line: 1, column: 7),
            message: CSVDelimiter.comma.wrongDelimiter(.semicolon)))
      #expect(Self.read(quoted, .semicolon, fast: fast, chunk: 1 << 18).events.count == 1)
    }
  }

  @Test func theFieldCountMessageOfALogNamesTheDelimiter() {
    let got = Self.read(
      "user;item;swipe;at\nu1;d1;left;2026-10-01;x\n", .semicolon, fast: true, chunk: 64)
    #expect(
      got.error?.description
        == "log.csv:2:23: this row has 5 fields but the header has 4; quote fields that contain "
        + "semicolons")
  }

  /// The first row after the header read as one field that holds another delimiter: the rows
  /// are separated by it (the header given with --csv-header, or one in another delimiter than
  /// its rows), which stops the run even when skipping bad lines. A later row of one such field
  /// is one bad row, as before; and "1 field", not "1 fields".
  @Test func aFirstRowSeparatedByAnotherDelimiterSaysSo() {
    let rows = Array(Self.logRows(seed: 5, count: 12).map { Array($0.prefix(8)) })
    let semicolonRows = String(Self.write(rows, .semicolon).drop { $0 != "\n" }.dropFirst())
    let commaHeader = "user,item,swipe,at,position,deck,dx,width"
    for fast in [false, true] {
      for skip in [false, true] {
        // Headerless rows, the header given (with commas): line 1.
        let given = Self.read(
          semicolonRows, .comma, fast: fast, chunk: 61, skip: skip, header: commaHeader)
        #expect(
          given.error
            == .malformed(
              SourceLocation(file: "log.csv", line: 1),
              message: "the rows are separated by ';', not ','; give --delimiter ';' and "
                + "separate the names of --csv-header by ';' too"), "fast \(fast) skip \(skip)")
        #expect(given.events.isEmpty)
        // A header in the file with commas, rows with semicolons: line 2.
        let inFile = Self.read(
          commaHeader + "\n" + semicolonRows, .comma, fast: fast, chunk: 61, skip: skip)
        #expect(
          inFile.error
            == .malformed(
              SourceLocation(file: "log.csv", line: 2),
              message: CSVDelimiter.comma.wrongRowDelimiter(.semicolon, givenHeader: false)))
      }
      // A later row of one field: the count of fields, with the singular.
      let commaRows = Self.write(rows, .comma)
      let lines = commaRows.split(separator: "\n", omittingEmptySubsequences: false)
      let later = (lines.prefix(4) + ["u1;dish-1;left;2026-11-02T00:00:00Z"] + lines.dropFirst(4))
        .joined(separator: "\n")
      let error = Self.read(later, .comma, fast: fast, chunk: 61).error
      #expect(
        error?.description
          == "log.csv:5:36: this row has 1 field but the header has 8; quote fields that "
          + "contain commas", "fast \(fast)")
    }
    #expect(
      CSVDelimiter.comma.wrongRowDelimiter(.tab, givenHeader: false)
        == "the rows are separated by tabs, not ','; give --delimiter tab")
  }

  /// Read in parts, a part's first row is not the file's: a one-field row with semicolons at
  /// the start of a later part is the count of fields, as the serial reader says; one right
  /// after the header is the delimiter, however many parts.
  @Test func inPartsOnlyTheFilesFirstRowTellsTheDelimiter() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    var lines = ["user,item,swipe,at"]
    for k in 0..<200 {
      lines.append("u\(k % 7),dish-\(k % 5),left,2026-11-0\(1 + k % 9)T10:00:00Z")
    }
    let items = DinerBuckets.Items(catalog: EventReaderByDinerTests.catalog)
    func readBoth(_ text: String) throws -> [String] {
      let path = dir.appendingPathComponent("log.csv").path
      try Data(text.utf8).write(to: URL(fileURLWithPath: path))
      var messages: [String] = []
      var ingest = HistoryIngest(catalog: EventReaderByDinerTests.catalog, cutoff: nil)
      do {
        _ = try EventReader().read([EventSource(path: path)], into: &ingest)
        messages.append("ok")
      } catch { messages.append(error.description) }
      for jobs in [2, 4, 8] {
        do {
          _ = try EventReader().readInParts(
            path: path, format: .csv, jobs: jobs, minimumPartBytes: 64,
            sink: { DinerBuckets(items: items, buckets: jobs) }, finish: { _ in 0 })
          messages.append("ok")
        } catch { messages.append(error.description) }
      }
      return messages.map { $0.replacingOccurrences(of: path, with: "log.csv") }
    }
    var late = lines
    late[150] = "u1;dish-1;left;2026-11-02T10:00:00Z"
    let lateMessages = try readBoth(late.joined(separator: "\n") + "\n")
    #expect(Set(lateMessages).count == 1, "\(lateMessages)")
    #expect(lateMessages[0].hasPrefix("log.csv:151:"), "\(lateMessages[0])")
    #expect(lateMessages[0].contains("this row has 1 field but the header has 4"))
    var first = lines
    first[1] = "u1;dish-1;left;2026-11-02T10:00:00Z"
    let firstMessages = try readBoth(first.joined(separator: "\n") + "\n")
    #expect(
      firstMessages
        == Array(
          repeating: "log.csv:2: the rows are separated by ';', not ','; give --delimiter ';'",
          count: 4))
  }

  @Test(arguments: [CSVDelimiter.semicolon, .tab])
  func mappedLogsAndGivenHeadersTakeTheDelimiter(_ d: CSVDelimiter) throws {
    let mapping = try ColumnMapping(
      columns: [.user: "userId", .item: "movieId", .at: "timestamp", .rating: "rating"],
      right: RatingRule(.atLeast, 4), left: RatingRule(.atMost, 2.5))
    let rows = [
      ["userId", "movieId", "rating", "timestamp"], ["1", "10", "4.5", "1700000000"],
      ["1", "11", "1.0", "1700000100"], ["2", "10", "3.0", "1700000200"],
    ]
    let want = Self.read(Self.write(rows, .comma), .comma, fast: true, chunk: 64, mapping: mapping)
    #expect(want.events.count == 2 && want.stats?.neutral == 1)
    for fast in [false, true] {
      let got = Self.read(Self.write(rows, d), d, fast: fast, chunk: 64, mapping: mapping)
      #expect(got.events == want.events)
      #expect(got.stats?.neutral == 1)
      // Without its header, given it in the same delimiter.
      let body = Self.write(Array(rows.dropFirst()), d)
      let header = Self.write([rows[0]], d).dropLast()
      let headed = Self.read(
        body, d, fast: fast, chunk: 64, mapping: mapping, header: String(header))
      #expect(headed.events == want.events)
      #expect(headed.stats?.lines == 3)
    }
    // A mapped header read with the comma: the mapping never sees it as one column.
    let wrong = Self.read(Self.write(rows, d), .comma, fast: true, chunk: 64, mapping: mapping)
    #expect(wrong.error?.description == "log.csv:1:1: " + CSVDelimiter.comma.wrongDelimiter(d))
  }
}
