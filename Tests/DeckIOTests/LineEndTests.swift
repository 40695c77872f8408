import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckIO

/// The one rule for line ends in every reader of line records (swipe logs, CSV files, JSON Lines
/// policy files): LF or CRLF; a CR that is not part of a CRLF (outside a quoted CSV field) is
/// refused at its line and column with one message, never read as data or white space (a file
/// with CR-only line ends would be one line: its swipes lost). A JSON document (config,
/// catalog, users) reads the same whatever its line ends: a CR is white space there (RFC 8259).
@Suite struct LineEndTests {
  /// `text` with its LF line ends made CR-only, or CRLF.
  private static func crOnly(_ text: String) -> String {
    text.replacingOccurrences(of: "\n", with: "\r")
  }
  private static func crlf(_ text: String) -> String {
    text.replacingOccurrences(of: "\n", with: "\r\n")
  }

  private static func loneCR(_ file: String, _ line: Int, _ column: Int) -> DeckIOError {
    .malformed(
      SourceLocation(file: file, line: line, column: column), message: loneCarriageReturnMessage)
  }

  private static let csvLog = """
    user,item,swipe,at,position
    u1,dish1,right,2026-10-01T10:00:00Z,1
    u1,"dish, 2",left,2026-10-01T10:00:05Z,2
    u2,dish3,left,2026-10-02,

    """
  private static let jsonLog = """
    {"user":"u1","item":"dish1","swipe":"right","at":"2026-10-01T10:00:00Z","position":1}
    {"user":"u1","item":"dish, 2","swipe":"left","at":"2026-10-01T10:00:05Z","position":2}
    {"user":"u2","item":"dish3","swipe":"left","at":"2026-10-02"}

    """
  private static let mappedLog = """
    userId,movieId,rating,timestamp
    1,10,4.5,1700000000
    1,11,1.0,1700000100
    2,10,5.0,1700000200

    """
  private static let mapping = try! ColumnMapping(
    columns: [.user: "userId", .item: "movieId", .at: "timestamp", .rating: "rating"],
    right: RatingRule(.atLeast, 4), left: RatingRule(.atMost, 2.5))

  private static func options(mapped: Bool, skip: Bool, chunk: Int) -> EventReaderOptions {
    EventReaderOptions(
      skipBadLines: skip, chunkSize: chunk, onReject: { _ throws(DeckIOError) in },
      columns: mapped ? mapping : nil)
  }

  private static func readError(
    _ text: String, _ format: EventFormat, _ options: EventReaderOptions
  ) -> DeckIOError? {
    do {
      _ = try readEvents(text, format, options: options, name: "log")
      return nil
    } catch { return error }
  }

  @Test(arguments: [
    (csvLog, EventFormat.csv, false, 28),
    (jsonLog, EventFormat.jsonLines, false, 86),
    (mappedLog, EventFormat.csv, true, 32),
  ])
  func swipeLogsWithCROnlyLineEndsFailAtTheFirstCR(
    _ text: String, _ format: EventFormat, _ mapped: Bool, _ column: Int
  ) throws {
    // Every chunk size (a JSON line is not waited for to its end, which never comes), with and
    // without skipping bad lines (skipping would lose the whole file as one line).
    for chunk in [16, 61, 1 << 18] {
      for skip in [false, true] {
        let error = Self.readError(
          Self.crOnly(text), format, Self.options(mapped: mapped, skip: skip, chunk: chunk))
        #expect(error == Self.loneCR("log", 1, column), "chunk \(chunk), skip \(skip)")
      }
      // CRLF reads as LF does.
      let options = Self.options(mapped: mapped, skip: false, chunk: chunk)
      let lf = try readEvents(text, format, options: options)
      let crlf = try readEvents(Self.crlf(text), format, options: options)
      #expect(lf.events.count == 3)
      #expect(crlf.events == lf.events)
      #expect(crlf.stats.lines == lf.stats.lines)
    }
  }

  @Test func aStrayCRStopsTheRunAtItsLineEvenWhenSkipping() {
    let csv = "user,item,swipe,at\nu1,d1,left,2026-10-01\nu2,d\r2,left,2026-10-01\n"
    let json =
      #"{"user":"u1","item":"d1","swipe":"left","at":"2026-10-01"}"# + "\n"
      + #"{"user":"u2",  "item":"d2","swipe":"left",   "at":"2026-10-01"}"# + "\r \n"
    for skip in [false, true] {
      let options = Self.options(mapped: false, skip: skip, chunk: 1 << 18)
      #expect(Self.readError(csv, .csv, options) == Self.loneCR("log", 3, 5))
      #expect(Self.readError(json, .jsonLines, options) == Self.loneCR("log", 2, 64))
    }
  }

  @Test func aCROnlyFileWhoseFirstRecordIsBadIsNotSkippedAsOneLine() throws {
    // The first record fails before its CR: skipping it would skip the whole file (one line),
    // so the run stops at the CR; without skipping, the first error is the record's own.
    let json = Self.crOnly(
      #"{"user":"u1","item":"d1","swipe":"rihgt","at":"2026-10-01"}"# + "\n" + Self.jsonLog)
    let csv =
      "user,item,swipe,at\n" + Self.crOnly("u\"1,d1,left,2026-10-01\nu2,d2,left,2026-10-01\n")
    for chunk in [16, 61, 1 << 18] {
      let skip = Self.options(mapped: false, skip: true, chunk: chunk)
      #expect(Self.readError(json, .jsonLines, skip) == Self.loneCR("log", 1, 60), "chunk \(chunk)")
      #expect(Self.readError(csv, .csv, skip) == Self.loneCR("log", 2, 23), "chunk \(chunk)")
      let stop = Self.options(mapped: false, skip: false, chunk: chunk)
      #expect(
        Self.readError(json, .jsonLines, stop)?.description
          == #"log:1:35: swipe: 'rihgt' is not right or left; use "right" or "left" (lowercase)"#)
      #expect(
        Self.readError(csv, .csv, stop)?.description.hasPrefix("log:2:2: a '\"' inside") == true)
    }
  }

  /// Fuzz finding (events target, chunk 16): a JSON line that fails before its first CR failed
  /// early, read up to the CR, and its message quoted fewer bytes than when the whole line was
  /// read. Only a failure at the CR itself is taken early now.
  @Test func aJSONLineThatFailsBeforeItsCRFailsAlikeAtEveryChunkSize() {
    let log =
      "{\"user\":\0{\"user\":\"u7\",\"item\":\"r\rmen\",\"dx\"<\r100,\"width\":150,\"at\":\"2026-11-42\"}\n{\"usetion\":1,\"propensity\":0\"u7\",\"item\rr:\"\"menion\":1,\"propensity\":0\n"
    let whole = Self.readError(
      log, .jsonLines, Self.options(mapped: false, skip: false, chunk: 1 << 18))
    #expect(
      whole?.description.hasPrefix(
        "log:1:9: user: expected a string, found '\0{\"user\":\"u7\",\"item\":\"r\rmen") == true)
    for chunk in [16, 61, 100] {
      #expect(
        Self.readError(log, .jsonLines, Self.options(mapped: false, skip: false, chunk: chunk))
          == whole, "chunk \(chunk)")
    }
  }

  @Test func lineEndsAtTheEndOfTheInput() throws {
    // A final CR without its LF is refused; a final CRLF or LF, or none, is fine.
    for end in ["", "\n", "\r\n"] {
      let csv = try readEvents("user,item,swipe,at\nu1,d1,left,2026-10-01" + end, .csv)
      #expect(csv.events.count == 1)
      let json = try readEvents(
        #"{"user":"u1","item":"d1","swipe":"left","at":"2026-10-01"}"# + end, .jsonLines)
      #expect(json.events.count == 1)
    }
    let options = Self.options(mapped: false, skip: true, chunk: 1 << 18)
    #expect(
      Self.readError("user,item,swipe,at\nu1,d1,left,2026-10-01\r", .csv, options)
        == Self.loneCR("log", 2, 22))
    #expect(
      Self.readError("user,item,swipe,at\nu1,\"d1\",left,\"2026-10-01\"\r", .csv, options)
        == Self.loneCR("log", 2, 26))
    #expect(
      Self.readError(
        #"{"user":"u1","item":"d1","swipe":"left","at":"2026-10-01"}"# + "\r", .jsonLines, options)
        == Self.loneCR("log", 1, 59))
  }

  @Test func aCRInsideQuotesIsData() throws {
    let (events, _) = try readEvents("user,item,swipe,at\n\"u\r1\",d1,left,2026-10-01\n", .csv)
    #expect(events.map(\.user) == ["u\r1"])
    let table = try CSVParser.parse("id,name\n1,\"a\rb\"\n", file: "t.csv")
    #expect(table.records.map(\.fields) == [["1", "a\rb"]])
  }

  @Test func swipeLogFilesWithCROnlyLineEnds() throws {
    // From a file, as the commands read them.
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "menudeck-lineends-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    for (name, text, column) in [("a.csv", Self.csvLog, 28), ("a.jsonl", Self.jsonLog, 86)] {
      let path = dir.appendingPathComponent(name).path
      try Data(Self.crOnly(text).utf8).write(to: URL(fileURLWithPath: path))
      var sink = SwipeEventCollector()
      #expect(throws: Self.loneCR(path, 1, column)) {
        _ = try EventReader(options: EventReaderOptions(skipBadLines: true)).read(
          [EventSource(path: path)], into: &sink)
      }
      #expect(sink.events.isEmpty)
    }
  }

  private static let catalogCSV = """
    id,name,category
    a,Alpha,x
    b,"Beta, the second",y

    """
  private static let catalogJSON = """
    [
      {"id": "a", "name": "Alpha", "category": "x"},
      {"id": "b", "name": "Beta, the second", "category": "y"}
    ]

    """
  private static let usersCSV = """
    id,diets
    u1,vegetarian
    u2,

    """
  private static let usersJSON = """
    [
      {"id": "u1", "diets": ["vegetarian"]},
      {"id": "u2"}
    ]

    """

  @Test func catalogsAndUsersWithCROnlyLineEnds() throws {
    // CSV: refused at the first CR, with every delimiter.
    for d in CSVDelimiter.allCases {
      let s = String(UnicodeScalar(d.byte))
      #expect(throws: Self.loneCR("c.csv", 1, 17)) {
        _ = try CatalogReader.parse(
          Self.crOnly(Self.catalogCSV).replacingOccurrences(of: ",", with: s), file: "c.csv",
          format: .csv, delimiter: d)
      }
      #expect(throws: Self.loneCR("u.csv", 1, 9)) {
        _ = try UsersReader.parse(
          Self.crOnly(Self.usersCSV).replacingOccurrences(of: ",", with: s), file: "u.csv",
          format: .csv, delimiter: d)
      }
    }
    // JSON: a document, read as with LF.
    #expect(
      try CatalogReader.parse(Self.crOnly(Self.catalogJSON), file: "c.json", format: .json).items
        == CatalogReader.parse(Self.catalogJSON, file: "c.json", format: .json).items)
    #expect(
      try UsersReader.parse(Self.crOnly(Self.usersJSON), file: "u.json", format: .json)
        == UsersReader.parse(Self.usersJSON, file: "u.json", format: .json))
    // CRLF reads as LF does.
    for (text, format) in [(Self.catalogCSV, DocumentFormat.csv), (Self.catalogJSON, .json)] {
      let lf = try CatalogReader.parse(text, file: "c", format: format)
      let crlf = try CatalogReader.parse(Self.crlf(text), file: "c", format: format)
      #expect(crlf.items.map(\.id) == ["a", "b"])
      #expect(crlf.items.map(\.name) == lf.items.map(\.name))
    }
    for (text, format) in [(Self.usersCSV, DocumentFormat.csv), (Self.usersJSON, .json)] {
      let lf = try UsersReader.parse(text, file: "u", format: format)
      let crlf = try UsersReader.parse(Self.crlf(text), file: "u", format: format)
      #expect(crlf.count == 2)
      #expect(crlf == lf)
    }
  }

  @Test func jsonDocumentsTakeALoneCRAsWhiteSpaceThatEndsALine() throws {
    // Anywhere between tokens, and at the end.
    let a = try JSONParser.parse("{\n  \"a\":\r1}", file: "d.json")["a"]
    #expect(a?.doubleValue == 1)
    #expect(a?.line == 3 && a?.column == 1)
    #expect(try JSONParser.parse("[]\r", file: "d.json").arrayValue?.isEmpty == true)
    #expect(try JSONParser.parse("\r\r[1,\r2]\r\r", file: "d.json").arrayValue?[1].line == 4)
    // CRLF is one line end, CR alone one, LF alone one: "\r\r\n\n" is three.
    let b = try JSONParser.parse("{\"x\":0,\r\r\n\n \"b\": 2}", file: "d.json")["b"]
    #expect(b?.line == 4 && b?.column == 7)
    // Errors in a CR-only document are at their line and column.
    #expect(
      malformed(
        thrown { () throws(DeckIOError) in
          try JSONParser.parse("{\r  \"a\": 1,\r  \"b\": tru\r}", file: "d.json")
        })?.line == 3)
    #expect(
      malformed(
        thrown { () throws(DeckIOError) in
          try JSONParser.parse("{\r  \"a\": 1,\r  \"b\": tru\r}", file: "d.json")
        })?.column == 8)
    // A CR in a string is a control character there, as before.
    #expect(throws: DeckIOError.self) { _ = try JSONParser.parse("\"a\rb\"", file: "d.json") }
  }

  @Test func jsonLinesRecordsRefuseALoneCR() throws {
    // One line of a JSON Lines file (the record dialect), and a policy file of decks.
    #expect(throws: Self.loneCR("p.jsonl", 1, 3)) {
      _ = try JSONParser.parseRecord(Array("{}\r{}".utf8), file: "p.jsonl")
    }
    let catalog = try CatalogReader.parse(Self.catalogCSV, file: "c.csv", format: .csv)
    let lines = [
      #"{"deck":["a","b"],"probability":0.5}"#, #"{"deck":["b"],"probability":0.25}"#,
    ]
    let lf = try PolicyFile.parse(
      Array((lines.joined(separator: "\n") + "\n").utf8), file: "p.jsonl", catalog: catalog)
    let crlf = try PolicyFile.parse(
      Array((lines.joined(separator: "\r\n") + "\r\n").utf8), file: "p.jsonl", catalog: catalog)
    #expect(crlf == lf)
    #expect(throws: Self.loneCR("p.jsonl", 1, 37)) {
      _ = try PolicyFile.parse(
        Array((lines.joined(separator: "\r") + "\r").utf8), file: "p.jsonl", catalog: catalog)
    }
    // A final CR without its line feed, and one before a line feed that is not the last byte.
    #expect(throws: Self.loneCR("p.jsonl", 2, 34)) {
      _ = try PolicyFile.parse(
        Array((lines.joined(separator: "\n") + "\r").utf8), file: "p.jsonl", catalog: catalog)
    }
    #expect(throws: Self.loneCR("p.jsonl", 2, 1)) {
      _ = try PolicyFile.parse(
        Array((lines[0] + "\n\r\r\n" + lines[1]).utf8), file: "p.jsonl", catalog: catalog)
    }
  }

  @Test func theMessageSaysWhatToDo() {
    #expect(loneCarriageReturnMessage.hasPrefix("carriage return not followed by a line feed"))
    #expect(loneCarriageReturnMessage.contains("end lines with LF or CRLF"))
    #expect(loneCarriageReturnMessage.contains(#"tr '\r' '\n'"#))
  }
}
