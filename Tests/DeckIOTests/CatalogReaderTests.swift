import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckIO

/// A catalog that uses every field, quotes, commas and a line break in names, non-ASCII text,
/// values that need normalising, null and absent optional fields.
let fullCatalogJSON = #"""
  {"items": [
    {"id": "nikujaga", "name": "肉じゃが", "category": " Simmered ",
     "tags": ["Home-Style", " beef ", "home-style", ""], "price": 780, "image": "nikujaga.jpg",
     "allergens": ["soy", "Wheat"], "diets": [],
     "available": {"weekdays": ["mon", "Wednesday", "FRI"], "from": "2026-04-01",
                   "until": "2026-09-30"}},
    {"id": "curry", "name": "Curry, \"extra\" mild", "category": "rice", "tags": ["spicy"],
     "price": 12.5, "diets": ["Vegetarian", "vegetarian"], "available": {"from": "2026-01-01"}},
    {"id": "note", "name": "Two\nlines", "category": "rice", "price": 0},
    {"id": "tea", "name": "Tea", "category": "drink", "price": null, "image": null,
     "allergens": null, "available": {"weekdays": ["sun"]}}
  ]}
  """#

/// The same catalog as CSV, columns in another order, with an extra column.
let fullCatalogCSV = #"""
  name,id,category,tags,price,image,allergens,diets,weekdays,available_from,available_until,notes
  肉じゃが,nikujaga, Simmered ,Home-Style| beef |home-style|,780,nikujaga.jpg,soy|Wheat,,mon|Wednesday|FRI,2026-04-01,2026-09-30,"extra, ignored"
  "Curry, ""extra"" mild",curry,rice,spicy,12.50,,,Vegetarian|vegetarian,,2026-01-01,,
  "Two
  lines",note,rice,,0,,,,,,,
  Tea,tea,drink,,,,,,sun,,,

  """#

func catalog(_ text: String, _ format: DocumentFormat) throws(DeckIOError) -> Catalog {
  try CatalogReader.parse(text, file: format == .json ? "c.json" : "c.csv", format: format)
}

func catalogError(_ text: String, _ format: DocumentFormat) -> DeckIOError? {
  thrown { () throws(DeckIOError) in try catalog(text, format) }
}

/// `.malformed` at (line, column) with `message`, in c.json or c.csv.
func expectMalformed(
  _ e: DeckIOError?, _ format: DocumentFormat, line: Int, column: Int?, field: String? = nil,
  _ message: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  let file = format == .json ? "c.json" : "c.csv"
  #expect(
    e
      == .malformed(
        DeckBase.SourceLocation(file: file, line: line, column: column, field: field),
        message: message),
    sourceLocation: sourceLocation)
}

@Suite struct CatalogReaderTests {
  /// Fuzz finding (catalog target): '|' before a combining mark was no list separator.
  @Test func tagListsSplitAtEveryBarEvenBeforeACombiningMark() throws {
    let c = try catalog("id,name,category,tags\nd,D,x,a|\u{301}b|c\n", .csv)
    #expect(c.items.map(\.tags) == [["a", "\u{301}b", "c"]])
  }

  @Test func readsEveryFieldAndNormalises() throws {
    let c = try catalog(fullCatalogJSON, .json)
    #expect(c.items.map(\.id) == ["nikujaga", "curry", "note", "tea"])
    #expect(
      c.items[0]
        == MenuItem(
          id: "nikujaga", name: "肉じゃが", category: "simmered", tags: ["home-style", "beef"],
          price: 780, image: "nikujaga.jpg", allergens: ["soy", "wheat"], diets: [],
          availability: Availability(
            weekdays: [.monday, .wednesday, .friday], from: DeckDate.parse("2026-04-01"),
            until: DeckDate.parse("2026-09-30"))))
    #expect(
      c.items[1]
        == MenuItem(
          id: "curry", name: "Curry, \"extra\" mild", category: "rice", tags: ["spicy"],
          price: 12.5, diets: ["vegetarian"],
          availability: Availability(from: DeckDate.parse("2026-01-01"))))
    #expect(c.items[2] == MenuItem(id: "note", name: "Two\nlines", category: "rice", price: 0))
    #expect(
      c.items[3]
        == MenuItem(
          id: "tea", name: "Tea", category: "drink",
          availability: Availability(weekdays: [.sunday])))
    #expect(c.categories == ["simmered", "rice", "drink"])
    #expect(c.tags == ["home-style", "beef", "spicy"])
  }

  @Test(arguments: [false, true])
  func jsonAndCSVGiveTheIdenticalCatalog(crlf: Bool) throws {
    let csvText =
      crlf ? fullCatalogCSV.replacingOccurrences(of: "\n", with: "\r\n") : fullCatalogCSV
    let fromJSON = try catalog(fullCatalogJSON, .json)
    let fromCSV = try catalog(csvText, .csv)
    #expect(fromCSV.items == fromJSON.items)
    #expect(fromCSV.categories == fromJSON.categories)
    #expect(fromCSV.tags == fromJSON.tags)
    #expect(fromCSV.itemCategory == fromJSON.itemCategory)
    #expect(fromCSV.itemTags == fromJSON.itemTags)
  }

  @Test func csvWithABOMReadsTheSame() throws {
    let withBOM = try CatalogReader.parse(
      [0xEF, 0xBB, 0xBF] + Array(fullCatalogCSV.utf8), file: "c.csv", format: .csv)
    #expect(withBOM.items == (try catalog(fullCatalogJSON, .json)).items)
  }

  @Test func acceptsATopLevelArrayAndMinimalItems() throws {
    let c = try catalog(#"[{"id": "a", "name": "A", "category": "x"}]"#, .json)
    #expect(c.items == [MenuItem(id: "a", name: "A", category: "x")])
    let d = try catalog("id,name,category\na,A,x\n", .csv)
    #expect(d.items == c.items)
  }

  @Test(arguments: ["monday", "Mon", "MON", " mon "])
  func weekdaysAcceptNamesAndAbbreviationsInAnyCase(name: String) throws {
    let c = try catalog(
      #"[{"id": "a", "name": "A", "category": "x", "available": {"weekdays": ["\#(name)"]}}]"#,
      .json)
    #expect(c.items[0].availability.weekdays == [.monday])
    let d = try catalog("id,name,category,weekdays\na,A,x,\(name)|\n", .csv)
    #expect(d.items[0].availability.weekdays == [.monday])
  }

  // MARK: JSON errors

  @Test func unknownFieldIsRejectedWithASuggestion() {
    let e = catalogError(
      """
      [
        {"id": "a", "name": "A", "categroy": "x"}
      ]
      """, .json)
    expectMalformed(
      e, .json, line: 2, column: 28,
      "unknown field 'categroy' in an item (did you mean 'category'?); known fields: id, name, "
        + "category, tags, price, image, allergens, diets, available")
    let f = catalogError(
      #"[{"id": "a", "name": "A", "category": "x", "available": {"form": "2026-01-01"}}]"#, .json)
    expectMalformed(
      f, .json, line: 1, column: 58,
      "unknown field 'form' in 'available' (did you mean 'from'?); known fields: weekdays, from, "
        + "until")
    let g = catalogError(#"{"itmes": []}"#, .json)
    expectMalformed(
      g, .json, line: 1, column: 2,
      "unknown field 'itmes' in the catalog object (did you mean 'items'?); known fields: items")
  }

  /// Ids are their bytes: precomposed and decomposed "café" are two dishes (and two categories),
  /// each read and kept byte for byte; a duplicate is the same bytes.
  @Test func twoSpellingsOfAnIDAreTwoDishesAndADuplicateIsTheSameBytes() throws {
    let (nfc, nfd) = ("caf\u{E9}", "cafe\u{301}")
    for (text, format) in [
      ("id,name,category\n\(nfc),A,\(nfc)\n\(nfd),B,\(nfd)\n", DocumentFormat.csv),
      (
        #"[{"id": "\#(nfc)", "name": "A", "category": "\#(nfc)"}, "#
          + #"{"id": "\#(nfd)", "name": "B", "category": "\#(nfd)"}]"#, .json
      ),
    ] {
      let c = try catalog(text, format)
      #expect(c.items.map { Array($0.id.utf8) } == [Array(nfc.utf8), Array(nfd.utf8)])
      #expect(c.index(of: nfc) == 0 && c.index(of: nfd) == 1)
      #expect(c.categories.count == 2)
    }
    let e = catalogError("id,name,category\n\(nfd),A,x\ntea,T,x\n\(nfd),B,x\n", .csv)
    expectMalformed(
      e, .csv, line: 4, column: 1,
      "duplicate id '\(nfd)' (first used on line 2); ids must be unique")
  }

  @Test func duplicateIDNamesBothLines() {
    let e = catalogError(
      """
      [
        {"id": "a", "name": "A", "category": "x"},
        {"id": "b", "name": "B", "category": "x"},
        {"id": "a", "name": "C", "category": "x"}
      ]
      """, .json)
    expectMalformed(
      e, .json, line: 4, column: 10, "duplicate id 'a' (first used on line 2); ids must be unique")
  }

  @Test(arguments: [
    ("-3", 1, 53, "price '-3' must be a number 0 or more"),
    ("-0.01", 1, 53, "price '-0.01' must be a number 0 or more"),
    (#""3""#, 1, 53, "expected a number, got a string"),
    ("[]", 1, 53, "expected a number, got an array"),
  ])
  func badPriceInJSON(price: String, line: Int, column: Int, message: String) {
    let e = catalogError(
      #"[{"id": "a", "name": "A", "category": "x", "price": \#(price)}]"#, .json)
    let typeError = message.hasPrefix("expected")
    expectMalformed(
      e, .json, line: line, column: column, field: typeError ? "price" : nil, message)
  }

  @Test func zeroPriceIsAllowed() throws {
    #expect(
      try catalog(#"[{"id": "a", "name": "A", "category": "x", "price": 0}]"#, .json).items[0]
        .price == 0)
  }

  @Test(arguments: [
    (
      #"{"from": "2026-02-30"}"#,
      "from '2026-02-30' is not a valid date; write a real day as YYYY-MM-DD"
    ),
    (
      #"{"until": "2026-1-05"}"#,
      "until '2026-1-05' is not a valid date; write a real day as YYYY-MM-DD"
    ),
    (
      #"{"from": "tomorrow"}"#,
      "from 'tomorrow' is not a valid date; write a real day as YYYY-MM-DD"
    ),
  ])
  func badDateInJSON(available: String, message: String) {
    let e = catalogError(
      #"[{"id": "a", "name": "A", "category": "x", "available": \#(available)}]"#, .json)
    expectMalformed(e, .json, line: 1, column: available.hasPrefix(#"{"until"#) ? 67 : 66, message)
  }

  @Test func leapDayIsAValidDate() throws {
    let c = try catalog(
      #"[{"id": "a", "name": "A", "category": "x", "available": {"from": "2028-02-29"}}]"#, .json)
    #expect(c.items[0].availability.from == DeckDate(year: 2028, month: 2, day: 29))
  }

  @Test func otherJSONItemErrors() {
    expectMalformed(
      catalogError(
        #"[{"id": "a", "name": "A", "category": "x", "available": {"weekdays": ["mon", "thurday"]}}]"#,
        .json), .json, line: 1, column: 78,
      "unknown weekday 'thurday' (did you mean 'thursday'?); use monday ... sunday or mon ... sun")
    expectMalformed(
      catalogError(
        #"[{"id": "a", "name": "A", "category": "x", "available": {"weekdays": []}}]"#, .json),
      .json, line: 1, column: 70,
      "empty 'weekdays'; list the days the dish is served, or leave 'weekdays' out for every day")
    expectMalformed(
      catalogError(#"[{"id": "a", "name": "  ", "category": "x"}]"#, .json), .json, line: 1,
      column: 22, "empty name for item 'a'; every item needs a name")
    expectMalformed(
      catalogError(#"[{"id": "", "name": "A", "category": "x"}]"#, .json), .json, line: 1,
      column: 9, "empty id; every item needs an id")
    expectMalformed(
      catalogError(#"[{"id": 7, "name": "A", "category": "x"}]"#, .json), .json, line: 1,
      column: 9, field: "id", "expected a string, got a number")
    expectMalformed(
      catalogError(#"[{"id": "a", "name": "A"}]"#, .json), .json, line: 1, column: 2,
      "missing required field 'category'")
    expectMalformed(
      catalogError(#"[{"id": "a", "name": "A", "category": "x"}, 1]"#, .json), .json, line: 1,
      column: 45, "expected an object for item 2, got a number")
    expectMalformed(
      catalogError(#""menu""#, .json), .json, line: 1, column: 1,
      "expected an array of items or an object with an \"items\" array, got a string")
    expectMalformed(
      catalogError(
        #"[{"id": "a", "name": "A", "category": "x", "available": {"from": "2026-02-01", "until": "2026-01-01"}}]"#,
        .json), .json, line: 1, column: 2,
      "item 'a' is available until 2026-01-01, before 2026-02-01")
    expectMalformed(
      catalogError(#"[{"id": "a", "name": "A", "category": "x", "tags": "b"}]"#, .json), .json,
      line: 1, column: 52, field: "tags", "expected an array, got a string")
  }

  @Test func emptyCatalogIsAnError() {
    let message = "the catalog has no items; add at least one"
    #expect(catalogError("[]", .json) == .invalid(path: "c.json", message: message))
    #expect(catalogError(#"{"items": []}"#, .json) == .invalid(path: "c.json", message: message))
    #expect(catalogError("id,name,category\n", .csv) == .invalid(path: "c.csv", message: message))
  }

  @Test func malformedJSONIsReportedByTheReader() {
    expectMalformed(
      catalogError("[\n  {\"id\": \"a\",}\n]", .json), .json, line: 2, column: 14,
      "trailing comma before '}'; remove the last comma")
  }

  // MARK: CSV errors

  @Test func missingColumnNamesItAndTheHeader() {
    expectMalformed(
      catalogError("id,category,price\na,x,1\n", .csv), .csv, line: 1, column: nil,
      "missing column 'name'; the header has: 'id', 'category', 'price'")
  }

  @Test func duplicateIDInCSVNamesBothPhysicalLines() {
    let e = catalogError("id,name,category\na,\"Two\nlines\",x\nb,B,x\na,C,x\n", .csv)
    expectMalformed(
      e, .csv, line: 5, column: 1, "duplicate id 'a' (first used on line 2); ids must be unique")
  }

  @Test(arguments: [
    ("-3", 7, "price '-3' must be a number 0 or more"),
    ("abc", 7, "price 'abc' must be a number 0 or more"),
    ("\"1,5\"", 7, "price '1,5' must be a number 0 or more with a decimal point; write '1.5'"),
    ("inf", 7, "price 'inf' must be a number 0 or more"),
    ("nan", 7, "price 'nan' must be a number 0 or more"),
    ("+1", 7, "price '+1' must be a number 0 or more"),
    ("1.", 7, "price '1.' must be a number 0 or more"),
    ("1e999", 7, "price '1e999' must be a number 0 or more"),
  ])
  func badPriceInCSV(price: String, column: Int, message: String) {
    let e = catalogError("id,name,category,price\na,A,x,1\nb,B,x,\(price)\n", .csv)
    expectMalformed(e, .csv, line: 3, column: column, message)
  }

  @Test(arguments: [("0", 0.0), ("007", 7), ("12.50", 12.5), (" 3 ", 3), ("1e2", 100)])
  func goodPricesInCSV(price: String, value: Double) throws {
    let c = try catalog("id,name,category,price\na,A,x,\(price)\n", .csv)
    #expect(c.items[0].price == value)
  }

  @Test func otherCSVItemErrors() {
    expectMalformed(
      catalogError("id,name,category,available_from\na,A,x,2026/01/01\n", .csv), .csv, line: 2,
      column: 7,
      "available_from '2026/01/01' is not a valid date; write a real day as YYYY-MM-DD")
    expectMalformed(
      catalogError("id,name,category,available_until\na,A,x,2025-02-29\n", .csv), .csv, line: 2,
      column: 7,
      "available_until '2025-02-29' is not a valid date; write a real day as YYYY-MM-DD")
    expectMalformed(
      catalogError("id,name,category,weekdays\na,A,x,mon|thurday\n", .csv), .csv, line: 2,
      column: 7,
      "unknown weekday 'thurday' (did you mean 'thursday'?); use monday ... sunday or mon ... sun")
    expectMalformed(
      catalogError("id,name,category\na, ,x\n", .csv), .csv, line: 2, column: 3,
      "empty name for item 'a'; every item needs a name")
    expectMalformed(
      catalogError("id,name,category\na,A,\n", .csv), .csv, line: 2, column: 5,
      "empty category for item 'a'; every item needs a category")
    expectMalformed(
      catalogError("id,name,category\n,A,x\n", .csv), .csv, line: 2, column: 1,
      "empty id; every item needs an id")
    expectMalformed(
      catalogError(
        "id,name,category,available_from,available_until\na,A,x,2026-02-01,2026-01-01\n", .csv),
      .csv, line: 2, column: 1, "item 'a' is available until 2026-01-01, before 2026-02-01")
  }

  @Test func invalidUTF8InACSVCatalogIsReportedAtTheByte() {
    let bytes = Array("id,name,category\na,Mis".utf8) + [0xC3, 0x28] + Array("o,x\n".utf8)
    let e = thrown { () throws(DeckIOError) in
      try CatalogReader.parse(bytes, file: "c.csv", format: .csv)
    }
    expectMalformed(
      e, .csv, line: 2, column: 6, "invalid UTF-8 (bytes 0xC3); save the file as UTF-8")
  }

  // MARK: Files

  @Test func readsFilesChoosingTheFormatByExtension() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let json = dir.appendingPathComponent("menu.JSON").path
    let csvPath = dir.appendingPathComponent("menu.csv").path
    let txt = dir.appendingPathComponent("menu.txt").path
    try fullCatalogJSON.write(toFile: json, atomically: true, encoding: .utf8)
    try fullCatalogCSV.write(toFile: csvPath, atomically: true, encoding: .utf8)
    try fullCatalogCSV.write(toFile: txt, atomically: true, encoding: .utf8)
    let a = try CatalogReader.read(path: json)
    let b = try CatalogReader.read(path: csvPath)
    let c = try CatalogReader.read(path: txt, format: .csv)
    #expect(a.items == b.items)
    #expect(c.items == b.items)
    #expect(
      thrown { () throws(DeckIOError) in try CatalogReader.read(path: txt) }
        == .invalid(
          path: txt,
          message:
            "cannot tell the format of the catalog from its name; name the file .json or .csv"
        ))
    // Errors carry the path they were read from.
    let bad = dir.appendingPathComponent("bad.csv").path
    try Data("id,name\n".utf8).write(to: URL(fileURLWithPath: bad))
    #expect(
      thrown { () throws(DeckIOError) in try CatalogReader.read(path: bad) }?.description
        == "\(bad):1: missing column 'category'; the header has: 'id', 'name'")
  }

  @Test func missingFileAndDirectoryAreReportedAsSuch() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let missing = dir.appendingPathComponent("nope.json").path
    #expect(
      thrown { () throws(DeckIOError) in try CatalogReader.read(path: missing) }
        == .missingFile(path: missing, what: "catalog"))
    #expect(
      thrown { () throws(DeckIOError) in try CatalogReader.read(path: missing + "/x.json") }
        == .missingFile(path: missing + "/x.json", what: "catalog"))
    #expect(
      thrown { () throws(DeckIOError) in try CatalogReader.read(path: dir.path, format: .json) }
        == .io(path: dir.path, message: "is a directory, not the catalog; give the path of a file"))
  }

  @Test func textInputReadsExactBytesOfAnySize() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    for size in [0, 1, 65_535, 65_536, 65_537, 300_001] {
      let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
      let path = dir.appendingPathComponent("f\(size).bin").path
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      #expect(try TextInput.readBytes(path: path, what: "test file") == bytes)
    }
  }

  @Test(arguments: [
    ("a/menu.json", DocumentFormat.json), ("menu.CSV", .csv), ("x.y/menu.Json", .json),
  ])
  func formatFromExtension(path: String, format: DocumentFormat) {
    #expect(DocumentFormat(pathExtensionOf: path) == format)
  }

  @Test(arguments: ["menu", "menu.jsonl", "a.json/menu", ".json", "menu.csv.bak"])
  func noFormatFromOtherNames(path: String) {
    #expect(DocumentFormat(pathExtensionOf: path) == nil)
  }
}

@Suite struct CatalogCheckTests {
  @Test func checkReportsEveryBadItemInJSON() {
    let text = """
      {"items": [
        {"id": "a", "name": "A", "category": "soup", "price": -1},
        {"id": "b", "name": "B", "category": "soup"},
        {"id": "b", "name": "B again", "category": "rice"},
        {"id": "c", "name": "", "category": "rice"}
      ]}
      """
    let (catalog, errors) = CatalogReader.check(Array(text.utf8), file: "c.json", format: .json)
    #expect(catalog == nil)
    #expect(
      errors.map { "\($0)".split(separator: ":").prefix(2).joined(separator: ":") } == [
        "c.json:2", "c.json:5", "c.json:4",
      ])
  }

  @Test func checkReportsEveryBadRowInCSV() {
    let text = "id,name,category,price\na,A,soup,x\nb,B,soup,1\nb,B2,rice,2\n,C,rice,3\n"
    let (catalog, errors) = CatalogReader.check(Array(text.utf8), file: "c.csv", format: .csv)
    #expect(catalog == nil)
    #expect(
      errors.map { "\($0)".split(separator: ":").prefix(2).joined(separator: ":") } == [
        "c.csv:2", "c.csv:5", "c.csv:4",
      ])
  }

  @Test func checkOfAGoodCatalogEqualsParse() throws {
    let text = "id,name,category\na,A,soup\nb,B,rice\n"
    let (catalog, errors) = CatalogReader.check(Array(text.utf8), file: "c.csv", format: .csv)
    #expect(errors.isEmpty)
    let parsed = try CatalogReader.parse(text, file: "c.csv", format: .csv)
    #expect(catalog?.items == parsed.items)
  }
}
