import DeckCore
import DeckIO
import Foundation

/// UCI "Restaurant & consumer data": geoplaces2.csv (`placeID`, `name`, ...) is the catalog, one
/// item per place: id = placeID, name = name. chefmozcuisine.csv (`placeID,Rcuisine`, any number
/// of rows per place) gives the cuisines: the category is the place's first cuisine in file
/// order, the tags are all its cuisines (lowercased, as the catalog reader would). Places without
/// a cuisine get the category `unknown`. Cuisine rows of places that are not in geoplaces2.csv,
/// and repeated rows, are skipped and counted.
///
/// Files that are not valid UTF-8 are read as Latin-1 (the original UCI files were).
package enum UCIRestaurantsImport {
  package static let placesFile = "geoplaces2.csv"
  package static let cuisineFile = "chefmozcuisine.csv"

  static func catalog(_ source: RealData.Source) throws(DeckIOError) -> ImportedCatalog {
    var notes: [String] = []
    let places = try RealData.table(source, placesFile, what: "UCI places file", notes: &notes)
    let cuisines = try RealData.table(source, cuisineFile, what: "UCI cuisines file", notes: &notes)
    return try catalog(places: places, cuisines: cuisines, notes: notes)
  }

  /// The catalog of parsed geoplaces2.csv and chefmozcuisine.csv tables.
  package static func catalog(places: CSVTable, cuisines: CSVTable, notes: [String] = [])
    throws(DeckIOError) -> ImportedCatalog
  {
    let idColumn = try places.requireColumn("placeID")
    let nameColumn = try places.requireColumn("name")
    var ids: [String] = []
    // Place ids by their bytes (`IDKey`), as the catalog will tell them apart.
    var names: [IDKey: String] = [:]
    var firstLine: [IDKey: Int] = [:]
    for record in places.records {
      let id = try RealData.uniqueID(
        record, idColumn, of: places, name: "placeID", noun: "place", firstLine: &firstLine)
      guard let name = RealData.cell(record, nameColumn) else {
        throw .malformed(
          places.location(record, nameColumn),
          message: "no name for place '\(id)'; every place needs its name")
      }
      ids.append(id)
      names[IDKey(id)] = name
    }

    let placeColumn = try cuisines.requireColumn("placeID")
    let cuisineColumn = try cuisines.requireColumn("Rcuisine")
    var cuisinesOf: [IDKey: [String]] = [:]
    var skipped = RealData.SkipLog()
    for record in cuisines.records {
      guard let place = RealData.cell(record, placeColumn) else {
        skipped.add("cuisine row without a placeID", at: cuisines.location(record, placeColumn))
        continue
      }
      guard let cuisine = RealData.cell(record, cuisineColumn)?.lowercased() else {
        skipped.add("cuisine row without a cuisine", at: cuisines.location(record, cuisineColumn))
        continue
      }
      guard names[IDKey(place)] != nil else {
        skipped.add(
          "cuisine of a place not in \(placesFile)", at: cuisines.location(record, placeColumn))
        continue
      }
      if cuisinesOf[IDKey(place), default: []].contains(cuisine) {
        skipped.add("repeated cuisine row", at: cuisines.location(record, cuisineColumn))
        continue
      }
      cuisinesOf[IDKey(place), default: []].append(cuisine)
    }

    var items: [MenuItem] = []
    var unknown = 0
    var several = 0
    for id in ids {
      let list = cuisinesOf[IDKey(id)] ?? []
      if list.isEmpty { unknown += 1 }
      if list.count > 1 { several += 1 }
      items.append(
        MenuItem(
          id: id, name: names[IDKey(id)]!, category: list.first ?? RealData.unknownCategory,
          tags: list))
    }
    var allNotes = notes
    if unknown > 0 {
      allNotes.append(
        "\(RealData.plural(unknown, "place")) without a cuisine in category "
          + "'\(RealData.unknownCategory)'")
    }
    if several > 0 {
      allNotes.append(
        "\(RealData.plural(several, "place")) with several cuisines: the first in "
          + "\(cuisineFile) is the category, all are tags")
    }
    return ImportedCatalog(dataSet: .uci, items: items, skipped: skipped.entries, notes: allNotes)
  }
}
