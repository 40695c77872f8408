import DeckBase
import DeckCore
import DeckIO
import Foundation

/// The public data sets `menudeck import` turns into a menudeck catalog.
package enum RealDataSet: String, Sendable, CaseIterable {
  /// MovieLens ml-latest-small (GroupLens): movies.csv is the catalog, ratings.csv the log.
  case movielens
  /// UCI "Restaurant & consumer data": geoplaces2.csv + chefmozcuisine.csv are the catalog,
  /// rating_final.csv the log.
  case uci

  /// The ratings log in the data set's directory, read in place with `mapping`.
  package var ratingsFile: String {
    switch self {
    case .movielens: return "ratings.csv"
    case .uci: return "rating_final.csv"
    }
  }

  /// Every file of the data set's directory that the import reads.
  package var inputFiles: [String] {
    switch self {
    case .movielens: return [MovieLensImport.moviesFile, ratingsFile]
    case .uci:
      return [UCIRestaurantsImport.placesFile, UCIRestaurantsImport.cuisineFile, ratingsFile]
    }
  }

  /// How the ratings log is read: its columns and which ratings are right and left swipes.
  package var mapping: ColumnMapping {
    // Both are checked by the tests; a failure here is a programming error.
    switch self {
    case .movielens:
      return try! ColumnMapping(
        columns: [.user: "userId", .item: "movieId", .at: "timestamp", .rating: "rating"],
        right: RatingRule(.atLeast, 4), left: RatingRule(.atMost, 2.5))
    case .uci:
      return try! ColumnMapping(
        columns: [.user: "userID", .item: "placeID", .rating: "rating"],
        right: RatingRule(.equal, 2), left: RatingRule(.equal, 0))
    }
  }

  /// `--columns ... --right '...' --left '...'`, as typed in a shell.
  package var mappingArguments: String {
    let m = mapping
    return "--columns \(m.columnsSpec) --right '\(m.right!)' --left '\(m.left!)'"
  }
}

/// Rows an importer left out, by reason.
package struct SkippedRows: Sendable, Equatable {
  package var reason: String
  package var count: Int
  /// The first few locations (file:line), for the note.
  package var examples: [String]
}

/// A data set's catalog, ready to write as menudeck's catalog CSV.
package struct ImportedCatalog: Sendable {
  package var dataSet: RealDataSet
  /// Items in the source's file order; categories and tags lowercased as the catalog reader
  /// would.
  package var items: [MenuItem]
  package var skipped: [SkippedRows]
  /// Other facts worth a line on stderr (an encoding fallback, a rule applied).
  package var notes: [String]

  package init(
    dataSet: RealDataSet, items: [MenuItem], skipped: [SkippedRows] = [], notes: [String] = []
  ) {
    self.dataSet = dataSet
    self.items = items
    self.skipped = skipped
    self.notes = notes
  }

  /// Items per category, most first (ties by name).
  package var categoryCounts: [(category: String, items: Int)] {
    // Categories by their bytes, as the catalog interns them (`IDKey`).
    var counts: [IDKey: Int] = [:]
    for item in items { counts[IDKey(item.category), default: 0] += 1 }
    return counts.map { ($0.key.string, $0.value) }.sorted {
      $0.1 != $1.1 ? $0.1 > $1.1 : $0.0.utf8.lexicographicallyPrecedes($1.0.utf8)
    }
  }

  /// menudeck's catalog CSV (the columns `CatalogReader` reads).
  package var catalogCSV: String { SampleData.catalogCSV(items) }
}

/// Counts of a ratings log read with its data set's mapping: the reader's (lines, right, left,
/// neutral, swipes on items that are not in the imported catalog, no time column) and the users
/// with a swipe.
package struct RatingCounts: Sendable, Equatable {
  package var log: EventReadStats
  package var users: Int
}

/// Shared steps of the importers.
package enum RealData {
  /// The catalog category of items the source gives no genre or cuisine.
  package static let unknownCategory = "unknown"

  /// Reads the catalog of `dataSet` from `directory`; messages show the directory as
  /// `shownAs` (the path as the user wrote it) when given.
  package static func importCatalog(
    _ dataSet: RealDataSet, directory: String, shownAs: String? = nil
  ) throws(DeckIOError) -> ImportedCatalog {
    let source = Source(directory: directory, shown: shownAs ?? directory)
    switch dataSet {
    case .movielens: return try MovieLensImport.catalog(source)
    case .uci: return try UCIRestaurantsImport.catalog(source)
    }
  }

  /// A data set's directory: as opened, and as shown in messages.
  struct Source {
    var directory: String
    var shown: String
  }

  /// Reads the ratings log of `dataSet` (`path`) with its mapping, against `catalog`.
  package static func countRatings(
    _ dataSet: RealDataSet, path: String, catalog: Catalog
  ) throws(DeckIOError) -> RatingCounts {
    var sink = CountingSink(catalog: catalog)
    let reader = EventReader(options: EventReaderOptions(columns: dataSet.mapping))
    let stats = try reader.read([EventSource(path: path, format: .csv)], into: &sink)
    return RatingCounts(log: stats, users: sink.users.count)
  }

  /// A source file's bytes as UTF-8: as they are when they are valid UTF-8, else decoded as
  /// Latin-1 (ISO 8859-1, every byte one character), with `latin1` set.
  static func utf8Text(_ bytes: [UInt8]) -> (bytes: [UInt8], latin1: Bool) {
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    loop: while true {
      switch decoder.decode(&iterator) {
      case .scalarValue: continue
      case .emptyInput: return (bytes, false)
      case .error: break loop
      }
    }
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count + bytes.count / 8)
    for b in bytes {
      if b < 0x80 {
        out.append(b)
      } else {
        out.append(0xC0 | (b >> 6))
        out.append(0x80 | (b & 0x3F))
      }
    }
    return (out, true)
  }

  /// Reads a source CSV file as a table (Latin-1 is accepted and noted in `notes`).
  static func table(_ source: Source, _ name: String, what: String, notes: inout [String])
    throws(DeckIOError) -> CSVTable
  {
    let path = FileSystem.join(source.directory, name)
    let shown = FileSystem.join(source.shown, name)
    let raw: [UInt8]
    do {
      raw = try TextInput.readBytes(path: path, what: what)
    } catch {
      switch error {
      case .missingFile(_, let what, let check):
        throw .missingFile(path: shown, what: what, check: check)
      case .io(_, let message): throw .io(path: shown, message: message)
      default: throw error
      }
    }
    let (bytes, latin1) = utf8Text(raw)
    if latin1 { notes.append("\(shown): not UTF-8; read as Latin-1 (ISO 8859-1)") }
    return try CSVParser.parse(bytes, file: shown)
  }

  /// "1 movie", "2 movies".
  package static func plural(_ n: Int, _ noun: String, _ plural: String? = nil) -> String {
    TextLayout.plural(n, noun, plural)
  }

  /// A trimmed cell; nil when empty or the sources' missing-value mark `?`.
  static func cell(_ record: CSVRecord, _ column: Int) -> String? {
    let s = record[column].trimmingCharacters(in: .whitespaces)
    return s.isEmpty || s == "?" ? nil : s
  }

  /// The id in `column` (called `name`) of a row of `table` that lists each `noun` once: refused
  /// when empty, or when a row before had it (`firstLine` holds each id's line, by its bytes as
  /// the catalog will tell ids apart).
  static func uniqueID(
    _ record: CSVRecord, _ column: Int, of table: CSVTable, name: String, noun: String,
    firstLine: inout [IDKey: Int]
  ) throws(DeckIOError) -> String {
    guard let id = cell(record, column) else {
      throw .malformed(
        table.location(record, column), message: "empty \(name); every \(noun) needs its id")
    }
    if let line = firstLine[IDKey(id)] {
      throw .malformed(
        table.location(record, column),
        message: "duplicate \(name) '\(id)' (first on line \(line)); keep one row per \(noun)")
    }
    firstLine[IDKey(id)] = record.line
    return id
  }

  /// Keeps skipped rows by reason, with their first three locations.
  struct SkipLog {
    private(set) var entries: [SkippedRows] = []

    mutating func add(_ reason: String, at location: SourceLocation) {
      if let i = entries.firstIndex(where: { $0.reason == reason }) {
        entries[i].count += 1
        if entries[i].examples.count < 3 { entries[i].examples.append(location.description) }
      } else {
        entries.append(SkippedRows(reason: reason, count: 1, examples: [location.description]))
      }
    }
  }
}

/// Counts swipes and distinct users; knows which items are in the catalog.
private struct CountingSink: SwipeEventSink {
  let catalog: Catalog
  var users = Set<IDKey>()

  mutating func event(_ e: SwipeEvent) -> EventDisposition {
    users.insert(IDKey(e.user))
    return catalog.index(of: e.item) == nil ? .unknownItem : .accepted
  }
}
