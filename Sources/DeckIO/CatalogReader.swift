// Catalog files
// =============
//
// A catalog is JSON or CSV; the reader picks the format from the file extension (`.json`, `.csv`)
// unless one is given. Both formats describe the same fields and the same catalog in either
// format gives an identical `Catalog`.
//
// JSON: an array of items, or an object whose only field is "items" (that array).
//
//     [
//       {
//         "id": "nikujaga",                      // required, non-empty string, unique
//         "name": "肉じゃが",                     // required, non-empty string
//         "category": "simmered",                // required, non-empty string
//         "tags": ["home-style", "beef"],        // optional list of strings
//         "price": 780,                          // optional number >= 0 (null = no price)
//         "image": "nikujaga.jpg",               // optional string
//         "allergens": ["soy", "wheat"],         // optional list of strings
//         "diets": [],                           // optional list of strings
//         "available": {                         // optional; every day when absent
//           "weekdays": ["mon", "wednesday"],    // optional, at least one day when given
//           "from": "2026-04-01",                // optional YYYY-MM-DD, first day served
//           "until": "2026-09-30"                // optional YYYY-MM-DD, last day served
//         }
//       }
//     ]
//
// (Comments are shown for explanation only; JSON has none.) Any other field in an item, in
// "available" or in the top-level object is an error that names it and suggests the closest
// known name, so that a typo such as "categroy" never passes silently. null counts as absent for
// optional fields.
//
// CSV (RFC 4180, see `CSVParser`): a header row naming the columns, in any order.
//
//     id,name,category,tags,price,image,allergens,diets,weekdays,available_from,available_until
//     nikujaga,肉じゃが,simmered,home-style|beef,780,nikujaga.jpg,soy|wheat,,mon|wednesday,2026-04-01,2026-09-30
//
// `id`, `name` and `category` are required columns; the others are optional and extra columns
// are ignored. List columns (`tags`, `allergens`, `diets`, `weekdays`) separate values with `|`.
// An empty cell means absent: no price, no image, an empty list, every weekday, no date limit.
//
// Normalisation (both formats): id, name, category, image and dates are trimmed of surrounding
// whitespace; categories, tags, allergens and diets are also lowercased (so that a user's
// "Soup" matches a catalog's "soup"), and lists drop empty entries and repeats, keeping the
// first occurrence. Weekdays are English names or their three-letter abbreviations, in any case.
//
// Errors name the file and line, with the column of the offending value: missing columns (with
// the header), duplicate ids (with both lines), a negative or non-numeric price, a date that is
// not a real YYYY-MM-DD day, an unknown weekday, an empty id, name or category, an `until`
// before `from`, an empty catalog.

import DeckBase
import DeckCore

/// Reads a catalog from JSON or CSV into a validated `Catalog` (format described at the top of
/// CatalogReader.swift).
package enum CatalogReader {
  /// The fields of a JSON item.
  package static let itemFields = [
    "id", "name", "category", "tags", "price", "image", "allergens", "diets", "available",
  ]
  /// The fields of a JSON item's "available" object.
  package static let availabilityFields = ["weekdays", "from", "until"]
  /// The CSV columns that must be present.
  package static let requiredColumns = ["id", "name", "category"]
  /// The CSV columns the reader understands (others are ignored).
  package static let knownColumns = [
    "id", "name", "category", "tags", "price", "image", "allergens", "diets", "weekdays",
    "available_from", "available_until",
  ]

  /// Reads the catalog at `path`; the format comes from the extension unless given.
  package static func read(
    path: String, format: DocumentFormat? = nil, delimiter: CSVDelimiter = .comma
  ) throws(DeckIOError) -> Catalog {
    let bytes = try TextInput.readBytes(path: path, what: "catalog")
    let format = try DocumentFormat.resolve(format, path: path, what: "catalog")
    return try parse(bytes, file: path, format: format, delimiter: delimiter)
  }

  /// Parses catalog bytes; `file` is used in error locations, `delimiter` separates CSV fields.
  package static func parse(
    _ bytes: [UInt8], file: String, format: DocumentFormat, delimiter: CSVDelimiter = .comma
  ) throws(DeckIOError) -> Catalog {
    try parse(bytes, file: file, format: format, delimiter: delimiter, collector: nil)
  }

  /// Parses catalog bytes like `parse`, but goes on after a bad item and returns every problem
  /// it finds (syntax errors of the file itself still stop it). The catalog is nil when there
  /// was any error.
  package static func check(
    _ bytes: [UInt8], file: String, format: DocumentFormat, delimiter: CSVDelimiter = .comma
  ) -> (catalog: Catalog?, errors: [DeckIOError]) {
    ErrorCollector.check { collector throws(DeckIOError) in
      try parse(bytes, file: file, format: format, delimiter: delimiter, collector: collector)
    }
  }

  /// `parse`, keeping the errors of bad items in `collector` when there is one.
  static func parse(
    _ bytes: [UInt8], file: String, format: DocumentFormat, delimiter: CSVDelimiter,
    collector: ErrorCollector?
  ) throws(DeckIOError) -> Catalog {
    let drafts: [Draft]
    switch format {
    case .json: drafts = try jsonItems(bytes, file: file, collector: collector)
    case .csv: drafts = try csvItems(bytes, file: file, delimiter: delimiter, collector: collector)
    }
    return try finish(drafts, file: file, collector: collector)
  }

  /// Parses catalog text (convenient for tests and tools).
  package static func parse(
    _ text: String, file: String, format: DocumentFormat, delimiter: CSVDelimiter = .comma
  ) throws(DeckIOError) -> Catalog {
    try parse(Array(text.utf8), file: file, format: format, delimiter: delimiter)
  }

  /// An item with the locations its errors point at.
  struct Draft {
    var item: MenuItem
    var location: SourceLocation
    var idLocation: SourceLocation
  }

  static func finish(_ drafts: [Draft], file: String, collector: ErrorCollector? = nil)
    throws(DeckIOError) -> Catalog
  {
    if drafts.isEmpty && (collector?.errors.isEmpty ?? true) {
      throw .invalid(path: file, message: "the catalog has no items; add at least one")
    }
    // Ids are their UTF-8 bytes (`IDKey`): "caf\u{E9}" and "cafe\u{301}" are two dishes.
    var firstByID: [IDKey: SourceLocation] = [:]
    for d in drafts {
      if let first = firstByID[IDKey(d.item.id)] {
        try ErrorCollector.keep(
          .malformed(
            d.idLocation,
            message: "duplicate id '\(d.item.id)' (first used on line \(first.line)); "
              + "ids must be unique"), in: collector)
        continue
      }
      firstByID[IDKey(d.item.id)] = d.idLocation
    }
    if let collector, let first = collector.errors.first { throw first }
    do throws(DeckCoreError) {
      return try Catalog(items: drafts.map(\.item))
    } catch {
      if case .invalidCatalog(let n?, let message) = error, n < drafts.count {
        throw .malformed(drafts[n].location, message: message)
      }
      throw .invalid(path: file, message: error.description)
    }
  }

  // MARK: JSON

  static func jsonItems(_ bytes: [UInt8], file: String, collector: ErrorCollector? = nil)
    throws(DeckIOError) -> [Draft]
  {
    let elements = try JSONParser.parse(bytes, file: file).listOrWrapped(
      key: "items", of: "items", article: "an", in: "the catalog object")
    return try ErrorCollector.each(elements.enumerated(), collector) { n, v throws(DeckIOError) in
      try jsonItem(v, number: n + 1)
    }
  }

  static func jsonItem(_ v: JSONValue, number n: Int) throws(DeckIOError) -> Draft {
    _ = try v.requireObject("item \(n)")
    try v.rejectUnknownKeys(allowed: itemFields, in: "an item")
    let idValue = try v.value(at: "id")
    let id = trimWhitespace(try idValue.requireString(field: "id"))
    if id.isEmpty { throw idValue.error("empty id; every item needs an id") }
    let name = try requiredText(v, "name", id: id)
    let category = try requiredText(v, "category", id: id).lowercased()
    var price: Double?
    if let p = try v.optionalValue(at: "price") {
      guard case .number(let d, let text) = p.kind else {
        throw p.error("expected a number, got \(p.typeDescription)", field: "price")
      }
      guard d >= 0 else { throw p.error(priceMessage(text)) }
      price = d
    }
    var image = try v.optionalString(at: "image").map(trimWhitespace)
    if image?.isEmpty == true { image = nil }
    var availability = Availability.always
    if let av = try v.optionalObject(at: "available") {
      try av.rejectUnknownKeys(allowed: availabilityFields, in: "'available'")
      if let wv = try av.optionalValue(at: "weekdays") {
        let days = try wv.requireArray(field: "weekdays")
        guard !days.isEmpty else {
          throw wv.error(
            "empty 'weekdays'; list the days the dish is served, or leave 'weekdays' out for "
              + "every day")
        }
        var set = Set<Weekday>()
        for d in days {
          let name = try d.requireString(entryOf: "weekdays")
          guard let day = Weekday(name: trimWhitespace(name)) else {
            throw d.error(unknownWeekdayMessage(name))
          }
          set.insert(day)
        }
        availability.weekdays = set
      }
      availability.from = try jsonDate(av, "from")
      availability.until = try jsonDate(av, "until")
    }
    return Draft(
      item: MenuItem(
        id: id, name: name, category: category,
        tags: normalisedList(try v.stringArray(at: "tags")), price: price, image: image,
        allergens: normalisedList(try v.stringArray(at: "allergens")),
        diets: normalisedList(try v.stringArray(at: "diets")), availability: availability),
      location: v.location, idLocation: idValue.location)
  }

  private static func requiredText(_ v: JSONValue, _ key: String, id: String)
    throws(DeckIOError) -> String
  {
    let field = try v.value(at: key)
    let text = trimWhitespace(try field.requireString(field: key))
    if text.isEmpty {
      throw field.error("empty \(key) for item '\(id)'; every item needs a \(key)")
    }
    return text
  }

  private static func jsonDate(_ av: JSONValue, _ key: String) throws(DeckIOError) -> DeckDate? {
    guard let dv = try av.optionalValue(at: key) else { return nil }
    let text = try dv.requireString(field: key)
    guard let date = DeckDate.parse(trimWhitespace(text)) else {
      throw dv.error(dateMessage(key, text))
    }
    return date
  }

  // MARK: CSV

  static func csvItems(
    _ bytes: [UInt8], file: String, delimiter: CSVDelimiter = .comma,
    collector: ErrorCollector? = nil
  ) throws(DeckIOError) -> [Draft] {
    let table = try CSVParser.parse(bytes, file: file, delimiter: delimiter)
    let columns = try CSVItemColumns(table)
    return try ErrorCollector.each(table.records, collector) { r throws(DeckIOError) in
      try CSVItemRow(record: r, table: table, columns: columns).draft(file: file)
    }
  }
}

/// The columns of a CSV catalog: id, name and category required, the rest optional.
private struct CSVItemColumns {
  let id: Int
  let name: Int
  let category: Int
  let tags: Int?
  let price: Int?
  let image: Int?
  let allergens: Int?
  let diets: Int?
  let weekdays: Int?
  let from: Int?
  let until: Int?

  init(_ table: CSVTable) throws(DeckIOError) {
    id = try table.requireColumn("id")
    name = try table.requireColumn("name")
    category = try table.requireColumn("category")
    tags = table.column("tags")
    price = table.column("price")
    image = table.column("image")
    allergens = table.column("allergens")
    diets = table.column("diets")
    weekdays = table.column("weekdays")
    from = table.column("available_from")
    until = table.column("available_until")
  }
}

/// One record of a CSV catalog read as an item, field by field; the first bad field is thrown.
private struct CSVItemRow {
  let record: CSVRecord
  let table: CSVTable
  let columns: CSVItemColumns

  func cell(_ col: Int?) -> String { col.map { trimWhitespace(record[$0]) } ?? "" }
  func list(_ col: Int?) -> [String] { normalisedList(splitList(cell(col))) }
  func at(_ col: Int) -> SourceLocation { table.location(record, col) }

  func draft(file: String) throws(DeckIOError) -> CatalogReader.Draft {
    let id = cell(columns.id)
    if id.isEmpty {
      throw .malformed(at(columns.id), message: "empty id; every item needs an id")
    }
    let name = try required(columns.name, "name", of: id)
    let category = try required(columns.category, "category", of: id, lowercased: true)
    let image = cell(columns.image)
    return CatalogReader.Draft(
      item: MenuItem(
        id: id, name: name, category: category, tags: list(columns.tags), price: try price(),
        image: image.isEmpty ? nil : image, allergens: list(columns.allergens),
        diets: list(columns.diets), availability: try availability()),
      location: SourceLocation(file: file, line: record.line, column: 1),
      idLocation: at(columns.id))
  }

  /// A field every item needs (after the id): its trimmed text, never empty.
  func required(_ col: Int, _ key: String, of id: String, lowercased: Bool = false)
    throws(DeckIOError) -> String
  {
    let text = lowercased ? cell(col).lowercased() : cell(col)
    if text.isEmpty {
      throw .malformed(at(col), message: "empty \(key) for item '\(id)'; every item needs a \(key)")
    }
    return text
  }

  func price() throws(DeckIOError) -> Double? {
    guard let col = columns.price, !cell(col).isEmpty else { return nil }
    let text = cell(col)
    guard let d = parseDecimal(text), d >= 0 else {
      throw .malformed(at(col), message: priceMessage(text))
    }
    return d
  }

  /// The weekdays, then the first and last days; all optional.
  func availability() throws(DeckIOError) -> Availability {
    var availability = Availability.always
    if let col = columns.weekdays {
      let names = splitList(cell(col)).map(trimWhitespace).filter { !$0.isEmpty }
      if !names.isEmpty {
        var set = Set<Weekday>()
        for name in names {
          guard let day = Weekday(name: name) else {
            throw .malformed(at(col), message: unknownWeekdayMessage(name))
          }
          set.insert(day)
        }
        availability.weekdays = set
      }
    }
    for (col, key) in [(columns.from, "available_from"), (columns.until, "available_until")] {
      guard let col, !cell(col).isEmpty else { continue }
      guard let date = DeckDate.parse(cell(col)) else {
        throw .malformed(at(col), message: dateMessage(key, cell(col)))
      }
      if key == "available_from" { availability.from = date } else { availability.until = date }
    }
    return availability
  }
}

// MARK: - Shared field rules (catalog and users)

func priceMessage(_ text: String) -> String {
  // A decimal comma, as spreadsheets write it where they separate fields with semicolons.
  let pointed = text.replacingOccurrences(of: ",", with: ".")
  if pointed != text, let d = parseDecimal(trimWhitespace(pointed)), d >= 0 {
    return "price '\(text)' must be a number 0 or more with a decimal point; write "
      + "'\(trimWhitespace(pointed))'"
  }
  return "price '\(text)' must be a number 0 or more"
}

func dateMessage(_ key: String, _ text: String) -> String {
  "\(key) '\(text)' is not a valid date; write a real day as YYYY-MM-DD"
}

func unknownWeekdayMessage(_ name: String) -> String {
  let all = Weekday.allCases.flatMap { [$0.name, $0.short] }
  let hint = closestMatch(name.lowercased(), all).map { " (did you mean '\($0)'?)" } ?? ""
  return "unknown weekday '\(name)'\(hint); use monday ... sunday or mon ... sun"
}

/// Values of a `|`-separated CSV cell, untrimmed.
func splitList(_ cell: String) -> [String] {
  // At every '|' byte: split by characters, a '|' followed by a combining mark (one grapheme
  // with it) was no separator, so "a|\u{301}b" was one value, and written back, two lists ran
  // together (found by the catalog fuzz target).
  guard !cell.isEmpty else { return [] }
  return cell.utf8.split(separator: UInt8(ascii: "|"), omittingEmptySubsequences: false).map {
    String(decoding: $0, as: UTF8.self)
  }
}

/// Trimmed, lowercased, without empties and repeats (first occurrence kept).
func normalisedList(_ values: [String]) -> [String] {
  var out: [String] = []
  var seen = Set<String>()
  for v in values {
    let t = trimWhitespace(v).lowercased()
    if !t.isEmpty, seen.insert(t).inserted { out.append(t) }
  }
  return out
}

/// `s` without leading and trailing whitespace (Unicode whitespace, line breaks included).
func trimWhitespace(_ s: String) -> String {
  guard let first = s.firstIndex(where: { !$0.isWhitespace }) else { return "" }
  let last = s.lastIndex(where: { !$0.isWhitespace })!
  return String(s[first...last])
}

/// A plain decimal number: `-?digits(.digits)?([eE][+-]?digits)?`, finite. Rejects forms that
/// `Double(String)` would accept but a spreadsheet never writes ("inf", "nan", "0x1p3", "+1").
func parseDecimal(_ text: String) -> Double? {
  let b = Array(text.utf8)
  var i = 0
  func digits() -> Bool {
    let s = i
    while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") { i += 1 }
    return i > s
  }
  if i < b.count, b[i] == UInt8(ascii: "-") { i += 1 }
  guard digits() else { return nil }
  if i < b.count, b[i] == UInt8(ascii: ".") {
    i += 1
    guard digits() else { return nil }
  }
  if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
    i += 1
    if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
    guard digits() else { return nil }
  }
  guard i == b.count, let d = Double(text), d.isFinite else { return nil }
  return d
}

/// Collects per-record errors for `check`: a check goes on after a bad item or user; a parse
/// (no collector) stops at the first.
final class ErrorCollector {
  var errors: [DeckIOError] = []

  /// What `body` returns with a collector when it kept no error; else nil and every error, in
  /// the order found (the one `body` threw last, unless kept already).
  static func check<T>(_ body: (ErrorCollector) throws(DeckIOError) -> T) -> (T?, [DeckIOError]) {
    let collector = ErrorCollector()
    do throws(DeckIOError) {
      return (try body(collector), [])
    } catch {
      if !collector.errors.contains(error) { collector.errors.append(error) }
      return (nil, collector.errors)
    }
  }

  /// Keeps `error` in `collector`, or throws it without one.
  static func keep(_ error: DeckIOError, in collector: ErrorCollector?) throws(DeckIOError) {
    guard let collector else { throw error }
    collector.errors.append(error)
  }

  /// `record` of each of `records`, in order; the error of a bad one is kept in `collector`
  /// (and the record left out), or thrown without one.
  static func each<S: Sequence, T>(
    _ records: S, _ collector: ErrorCollector?,
    _ record: (S.Element) throws(DeckIOError) -> T
  ) throws(DeckIOError) -> [T] {
    var out: [T] = []
    out.reserveCapacity(records.underestimatedCount)
    for r in records {
      do throws(DeckIOError) {
        out.append(try record(r))
      } catch {
        try keep(error, in: collector)
      }
    }
    return out
  }
}
