import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckIO

func users(_ text: String, _ format: DocumentFormat) throws(DeckIOError) -> [UserProfile] {
  try UsersReader.parse(text, file: format == .json ? "u.json" : "u.csv", format: format)
}

func usersError(_ text: String, _ format: DocumentFormat) -> DeckIOError? {
  thrown { () throws(DeckIOError) in try users(text, format) }
}

@Suite struct UsersReaderTests {
  static let expected = [
    UserProfile(
      id: "u001", diets: ["vegetarian"], allergens: ["egg", "soy"],
      dislikedCategories: ["noodles", "fried"]),
    UserProfile(id: "ユーザー2"),
    UserProfile(id: "u003", allergens: ["wheat"]),
  ]

  @Test func readsJSONArrayObjectAndCSVToTheSameUsers() throws {
    let array = #"""
      [
        {"id": " u001 ", "diets": ["Vegetarian"], "allergens": ["egg", " SOY", "", "egg"],
         "disliked_categories": ["Noodles", "fried"]},
        {"id": "ユーザー2"},
        {"id": "u003", "diets": null, "allergens": ["wheat"], "disliked_categories": []}
      ]
      """#
    #expect(try users(array, .json) == Self.expected)
    #expect(try users(#"{"users": \#(array)}"#, .json) == Self.expected)
    let csvText = #"""
      id,allergens,diets,disliked_categories,note
       u001 ,egg| SOY||egg,Vegetarian,Noodles|fried,"likes ""spicy"""
      ユーザー2,,,,
      u003,wheat,,,

      """#
    #expect(try users(csvText, .csv) == Self.expected)
    #expect(
      try users(csvText.replacingOccurrences(of: "\n", with: "\r\n"), .csv) == Self.expected)
  }

  /// Fuzz finding (catalog target, input `Fuzz/findings/catalog/crash-dafde1c1...`, cut down):
  /// a list cell split by characters took '|' and the combining mark after it (U+05B5) for one
  /// character, so "\\|\u{5B5}dd" was one diet, and the users written back read differently.
  @Test func listsSplitAtEveryBarEvenBeforeACombiningMark() throws {
    let csv = "id,diets,allergens\nu1,\\|\u{5B5}dd,a|\u{301}b||c\n"
    let read = try users(csv, .csv)
    #expect(
      read == [
        UserProfile(id: "u1", diets: ["\\", "\u{5B5}dd"], allergens: ["a", "\u{301}b", "c"])
      ])
    // Written back and read again: the same.
    let text = read.map { u in
      "\(u.id),\(u.diets.joined(separator: "|")),\(u.allergens.joined(separator: "|"))\n"
    }.joined()
    #expect(try users("id,diets,allergens\n" + text, .csv) == read)
  }

  @Test func onlyTheIDColumnIsRequired() throws {
    #expect(try users("id\na\nb\n", .csv) == [UserProfile(id: "a"), UserProfile(id: "b")])
  }

  @Test func anEmptyUsersFileIsValid() throws {
    #expect(try users("[]", .json) == [])
    #expect(try users(#"{"users": []}"#, .json) == [])
    #expect(try users("id,diets\n", .csv) == [])
  }

  @Test func duplicateUserIDsNameBothLines() {
    #expect(
      usersError("[\n  {\"id\": \"a\"},\n  {\"id\": \"b\"},\n  {\"id\": \"a\"}\n]", .json)
        == .malformed(
          SourceLocation(file: "u.json", line: 4, column: 10),
          message: "duplicate user id 'a' (first used on line 2); ids must be unique"))
    #expect(
      usersError("id,diets\na,\nb,\n a ,vegan\n", .csv)
        == .malformed(
          SourceLocation(file: "u.csv", line: 4, column: 1),
          message: "duplicate user id 'a' (first used on line 2); ids must be unique"))
  }

  /// Diner ids are their bytes: precomposed and decomposed "chloé" are two diners.
  @Test func twoSpellingsOfAnIDAreTwoDinersAndADuplicateIsTheSameBytes() throws {
    let (nfc, nfd) = ("chlo\u{E9}", "chloe\u{301}")
    let read = try users("id,allergens\n\(nfc),egg\n\(nfd),\n", .csv)
    #expect(read.map { Array($0.id.utf8) } == [Array(nfc.utf8), Array(nfd.utf8)])
    #expect(read.map(\.allergens) == [["egg"], []])
    #expect(
      usersError("id\n\(nfd)\n\(nfc)\n\(nfd)\n", .csv)
        == .malformed(
          SourceLocation(file: "u.csv", line: 4, column: 1),
          message: "duplicate user id '\(nfd)' (first used on line 2); ids must be unique"))
  }

  @Test func unknownFieldSuggestsTheDocumentedName() {
    #expect(
      usersError(#"[{"id": "a", "dislikedCategories": ["soup"]}]"#, .json)
        == .malformed(
          SourceLocation(file: "u.json", line: 1, column: 14),
          message: "unknown field 'dislikedCategories' in a user (did you mean "
            + "'disliked_categories'?); known fields: id, diets, allergens, disliked_categories"))
    #expect(
      usersError(#"{"user": []}"#, .json)
        == .malformed(
          SourceLocation(file: "u.json", line: 1, column: 2),
          message: "unknown field 'user' in the users object (did you mean 'users'?); known "
            + "fields: users"))
  }

  @Test func otherUserErrors() {
    #expect(
      usersError(#"[{"id": "  "}]"#, .json)
        == .malformed(
          SourceLocation(file: "u.json", line: 1, column: 9),
          message: "empty user id; every user needs an id"))
    #expect(
      usersError(#"[{"diets": ["vegan"]}]"#, .json)
        == .malformed(
          SourceLocation(file: "u.json", line: 1, column: 2),
          message: "missing required field 'id'"))
    #expect(
      usersError(#"[{"id": "a", "diets": "vegan"}]"#, .json)
        == .malformed(
          SourceLocation(file: "u.json", line: 1, column: 23, field: "diets"),
          message: "expected an array, got a string"))
    #expect(
      usersError(#"["a"]"#, .json)
        == .malformed(
          SourceLocation(file: "u.json", line: 1, column: 2),
          message: "expected an object for user 1, got a string"))
    #expect(
      usersError("7", .json)
        == .malformed(
          SourceLocation(file: "u.json", line: 1, column: 1),
          message: "expected an array of users or an object with a \"users\" array, got a number"))
    #expect(
      usersError("user,diets\na,vegan\n", .csv)
        == .malformed(
          SourceLocation(file: "u.csv", line: 1),
          message: "missing column 'id'; the header has: 'user', 'diets'"))
    #expect(
      usersError("id,diets\n,vegan\n", .csv)
        == .malformed(
          SourceLocation(file: "u.csv", line: 2, column: 1),
          message: "empty user id; every user needs an id"))
  }

  @Test func readsAUsersFileAndReportsAMissingOne() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("users.csv").path
    try "id,diets\nu1,vegan\n".write(toFile: path, atomically: true, encoding: .utf8)
    #expect(try UsersReader.read(path: path) == [UserProfile(id: "u1", diets: ["vegan"])])
    let missing = dir.appendingPathComponent("none.json").path
    #expect(
      thrown { () throws(DeckIOError) in try UsersReader.read(path: missing) }
        == .missingFile(path: missing, what: "users file"))
  }
}

@Suite struct UsersCheckTests {
  @Test func checkReportsEveryBadUser() {
    let json = """
      {"users": [{"id": "a"}, {"id": ""}, {"id": "b", "diet": ["x"]}, {"id": "a"}]}
      """
    let (users, errors) = UsersReader.check(Array(json.utf8), file: "u.json", format: .json)
    #expect(users == nil)
    #expect(errors.count == 3)
    let csv = "id,diets\na,\n,\nb,\na,\n"
    let (csvUsers, csvErrors) = UsersReader.check(Array(csv.utf8), file: "u.csv", format: .csv)
    #expect(csvUsers == nil)
    #expect(
      csvErrors.map { "\($0)".split(separator: ":").prefix(2).joined(separator: ":") } == [
        "u.csv:3", "u.csv:5",
      ])
    let good = UsersReader.check(Array("id\na\nb\n".utf8), file: "g.csv", format: .csv)
    #expect(good.errors.isEmpty)
    #expect(good.users?.map(\.id) == ["a", "b"])
  }
}
