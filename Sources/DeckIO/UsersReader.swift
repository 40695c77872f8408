// Users files
// ===========
//
// JSON: an array of users, or an object whose only field is "users" (that array).
//
//     [
//       {"id": "u001", "diets": ["vegetarian"], "allergens": ["egg"],
//        "disliked_categories": ["noodles"]},
//       {"id": "u002"}
//     ]
//
// CSV: a header row with `id` (required) and any of `diets`, `allergens`,
// `disliked_categories` (lists separated by `|`); extra columns are ignored.
//
//     id,diets,allergens,disliked_categories
//     u001,vegetarian,egg,noodles
//     u002,,,
//
// The list field is `disliked_categories` in both formats (the CSV spelling, so that one name
// works everywhere). Ids are trimmed and must be non-empty and unique; lists are trimmed,
// lowercased (catalog categories are lowercased too, so they match), and lose empty entries and
// repeats. An unknown JSON field is an error that suggests the closest known one. A file with no
// users is valid: diners who appear only in the history still get decks.

import DeckBase
import DeckCore

/// Reads diner profiles from JSON or CSV (format described at the top of UsersReader.swift).
package enum UsersReader {
  /// The fields of a JSON user.
  package static let userFields = ["id", "diets", "allergens", "disliked_categories"]

  /// Reads the users at `path`; the format comes from the extension unless given.
  package static func read(
    path: String, format: DocumentFormat? = nil, delimiter: CSVDelimiter = .comma
  ) throws(DeckIOError) -> [UserProfile] {
    let bytes = try TextInput.readBytes(path: path, what: "users file")
    let format = try DocumentFormat.resolve(format, path: path, what: "users file")
    return try parse(bytes, file: path, format: format, delimiter: delimiter)
  }

  /// Parses users in file order; `file` is used in error locations, `delimiter` separates CSV
  /// fields.
  package static func parse(
    _ bytes: [UInt8], file: String, format: DocumentFormat, delimiter: CSVDelimiter = .comma
  ) throws(DeckIOError) -> [UserProfile] {
    try parse(bytes, file: file, format: format, delimiter: delimiter, collector: nil)
  }

  /// Parses users like `parse`, but goes on after a bad user and returns every problem it finds
  /// (syntax errors of the file itself still stop it); the users are nil when there was any.
  package static func check(
    _ bytes: [UInt8], file: String, format: DocumentFormat, delimiter: CSVDelimiter = .comma
  ) -> (users: [UserProfile]?, errors: [DeckIOError]) {
    ErrorCollector.check { collector throws(DeckIOError) in
      try parse(bytes, file: file, format: format, delimiter: delimiter, collector: collector)
    }
  }

  static func parse(
    _ bytes: [UInt8], file: String, format: DocumentFormat, delimiter: CSVDelimiter,
    collector: ErrorCollector?
  ) throws(DeckIOError) -> [UserProfile] {
    // The common shape of a users file, straight from the bytes (UsersReaderFast.swift); it
    // gives up on anything else and on any problem, which this general path then reports.
    if let users = UsersFastPath.users(bytes, format: format, delimiter: delimiter) {
      return users
    }
    return try parseGeneral(
      bytes, file: file, format: format, delimiter: delimiter, collector: collector)
  }

  /// `parse` without the fast path: every file, every problem.
  static func parseGeneral(
    _ bytes: [UInt8], file: String, format: DocumentFormat, delimiter: CSVDelimiter,
    collector: ErrorCollector?
  ) throws(DeckIOError) -> [UserProfile] {
    let users: [(UserProfile, SourceLocation)]
    switch format {
    case .json: users = try jsonUsers(bytes, file: file, collector: collector)
    case .csv:
      users = try csvUsers(bytes, file: file, delimiter: delimiter, collector: collector)
    }
    // Ids are their UTF-8 bytes (`IDKey`): "caf\u{E9}" and "cafe\u{301}" are two diners.
    var ids = ByteIndex(capacity: users.count)
    var firstAt: [SourceLocation] = []
    firstAt.reserveCapacity(users.count)
    for (user, at) in users {
      let (index, inserted) = ids.insert(user.id)
      if !inserted {
        let first = firstAt[Int(index)]
        try ErrorCollector.keep(
          .malformed(
            at,
            message: "duplicate user id '\(user.id)' (first used on line \(first.line)); "
              + "ids must be unique"), in: collector)
        continue
      }
      firstAt.append(at)
    }
    if let collector, let first = collector.errors.first { throw first }
    return users.map(\.0)
  }

  package static func parse(
    _ text: String, file: String, format: DocumentFormat, delimiter: CSVDelimiter = .comma
  ) throws(DeckIOError) -> [UserProfile] {
    try parse(Array(text.utf8), file: file, format: format, delimiter: delimiter)
  }

  static func jsonUsers(_ bytes: [UInt8], file: String, collector: ErrorCollector? = nil)
    throws(DeckIOError) -> [(UserProfile, SourceLocation)]
  {
    let elements = try JSONParser.parse(bytes, file: file).listOrWrapped(
      key: "users", of: "users", in: "the users object")
    return try ErrorCollector.each(elements.enumerated(), collector) { n, v throws(DeckIOError) in
      try jsonUser(v, number: n + 1)
    }
  }

  static func jsonUser(_ v: JSONValue, number n: Int) throws(DeckIOError)
    -> (UserProfile, SourceLocation)
  {
    do {
      _ = try v.requireObject("user \(n)")
      try v.rejectUnknownKeys(allowed: userFields, in: "a user")
      let idValue = try v.value(at: "id")
      let id = trimWhitespace(try idValue.requireString(field: "id"))
      if id.isEmpty { throw idValue.error("empty user id; every user needs an id") }
      let user = UserProfile(
        id: id, diets: normalisedList(try v.stringArray(at: "diets")),
        allergens: normalisedList(try v.stringArray(at: "allergens")),
        dislikedCategories: normalisedList(try v.stringArray(at: "disliked_categories")))
      return (user, idValue.location)
    }
  }

  static func csvUsers(
    _ bytes: [UInt8], file: String, delimiter: CSVDelimiter = .comma,
    collector: ErrorCollector? = nil
  ) throws(DeckIOError) -> [(UserProfile, SourceLocation)] {
    let table = try CSVParser.parse(bytes, file: file, delimiter: delimiter)
    let idCol = try table.requireColumn("id")
    let dietsCol = table.column("diets")
    let allergensCol = table.column("allergens")
    let dislikedCol = table.column("disliked_categories")
    return try ErrorCollector.each(table.records, collector) { r throws(DeckIOError) in
      func list(_ col: Int?) -> [String] { col.map { normalisedList(splitList(r[$0])) } ?? [] }
      let id = trimWhitespace(r[idCol])
      let at = table.location(r, idCol)
      if id.isEmpty {
        throw .malformed(at, message: "empty user id; every user needs an id")
      }
      let user = UserProfile(
        id: id, diets: list(dietsCol), allergens: list(allergensCol),
        dislikedCategories: list(dislikedCol))
      return (user, at)
    }
  }
}
