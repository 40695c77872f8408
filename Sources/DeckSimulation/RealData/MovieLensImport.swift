import DeckCore
import DeckIO
import Foundation

/// MovieLens ml-latest-small: movies.csv (`movieId,title,genres`, genres separated by `|`) is the
/// catalog. An item per movie: id = movieId, name = title, category = the first genre as listed,
/// tags = all genres (lowercased, as the catalog reader would). Movies with `(no genres listed)`
/// (or an empty genres cell) get the category `unknown` and no tags.
///
/// MovieLens lists a movie's genres in alphabetical order (for all but about 1% of movies), so
/// "the first genre" is the alphabetically first: Action and Adventure win over Drama.
package enum MovieLensImport {
  package static let moviesFile = "movies.csv"
  /// MovieLens' mark for a movie without genres.
  package static let noGenres = "(no genres listed)"

  static func catalog(_ source: RealData.Source) throws(DeckIOError) -> ImportedCatalog {
    var notes: [String] = []
    let table = try RealData.table(source, moviesFile, what: "MovieLens movies file", notes: &notes)
    return try catalog(table, notes: notes)
  }

  /// The catalog of a parsed movies.csv.
  package static func catalog(_ table: CSVTable, notes: [String] = []) throws(DeckIOError)
    -> ImportedCatalog
  {
    let idColumn = try table.requireColumn("movieId")
    let titleColumn = try table.requireColumn("title")
    let genresColumn = try table.requireColumn("genres")
    var items: [MenuItem] = []
    var firstLine: [IDKey: Int] = [:]
    var unknown = 0
    for record in table.records {
      let id = try RealData.uniqueID(
        record, idColumn, of: table, name: "movieId", noun: "movie", firstLine: &firstLine)
      guard let title = RealData.cell(record, titleColumn) else {
        throw .malformed(
          table.location(record, titleColumn),
          message: "empty title for movie '\(id)'; every movie needs its title")
      }
      var genres: [String] = []
      let text = record[genresColumn].trimmingCharacters(in: .whitespaces)
      if text != noGenres {
        for part in text.split(separator: "|") {
          let genre = part.trimmingCharacters(in: .whitespaces).lowercased()
          if !genre.isEmpty && !genres.contains(genre) { genres.append(genre) }
        }
      }
      if genres.isEmpty { unknown += 1 }
      items.append(
        MenuItem(
          id: id, name: title, category: genres.first ?? RealData.unknownCategory, tags: genres))
    }
    var allNotes = notes
    if unknown > 0 {
      allNotes.append(
        "\(RealData.plural(unknown, "movie")) without genres ('\(noGenres)') in category "
          + "'\(RealData.unknownCategory)'")
    }
    return ImportedCatalog(dataSet: .movielens, items: items, notes: allNotes)
  }
}
