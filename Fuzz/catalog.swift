// The catalog and users readers (Sources/DeckIO/CatalogReader.swift, UsersReader.swift), JSON
// and CSV. Input: one option byte (bit 0: users, bit 1: CSV), then the file.
// Invariant: what parses, written back in both formats (CSV only when no list value holds '|',
// the CSV list separator) by the sample data writers (DeckSimulation SampleData), parses
// to the same items or users.

import DeckCore

@testable import DeckIO
@testable import DeckSimulation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCatalog(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  var input = FuzzBytes(data, count)
  let option = input.take()
  let format: DocumentFormat = option & 2 != 0 ? .csv : .json
  if option & 1 != 0 {
    guard let users = try? UsersReader.parse(input.bytes, file: "u", format: format) else {
      return 0
    }
    // A JSON list value may hold '|', which CSV lists cannot: those go to JSON only.
    let bar = users.contains { u in
      (u.diets + u.allergens + u.dislikedCategories).contains { $0.contains("|") }
    }
    for (text, f) in [
      (SampleData.usersJSON(users), DocumentFormat.json),
      (SampleData.usersCSV(users), .csv),
    ] where f == .json || !bar {
      do {
        let again = try UsersReader.parse(Array(text.utf8), file: "again", format: f)
        require(again == users, "users written as \(f) read back differently:\n\(text)")
      } catch {
        require(false, "users written as \(f) do not parse: \(error)\n\(text)")
      }
    }
    // The tolerant reader agrees when there is nothing to report.
    return 0
  }
  guard let catalog = try? CatalogReader.parse(input.bytes, file: "c", format: format) else {
    return 0
  }
  let bar = catalog.items.contains { item in
    (item.tags + item.allergens + item.diets).contains { $0.contains("|") }
  }
  for (text, f) in [
    (SampleData.catalogJSON(catalog.items), DocumentFormat.json),
    (SampleData.catalogCSV(catalog.items), .csv),
  ] where f == .json || !bar {
    do {
      let again = try CatalogReader.parse(Array(text.utf8), file: "again", format: f)
      require(
        again.items == catalog.items, "catalog written as \(f) read back differently:\n\(text)")
      require(again.categories == catalog.categories, "categories differ")
      require(again.tags == catalog.tags, "tags differ")
    } catch {
      require(false, "catalog written as \(f) does not parse: \(error)\n\(text)")
    }
  }
  return 0
}
