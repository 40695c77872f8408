import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckIO

// MARK: - Helpers shared by the DeckIO parser tests

/// The error `body` throws, or nil.
func thrown<T>(_ body: () throws(DeckIOError) -> T) -> DeckIOError? {
  do {
    _ = try body()
    return nil
  } catch {
    return error
  }
}

/// Location and message of a `.malformed` error (nil for anything else).
func malformed(_ error: DeckIOError?) -> (line: Int, column: Int?, message: String)? {
  guard case .malformed(let at, let message) = error else { return nil }
  return (at.line, at.column, message)
}

func jsonError(_ text: String) -> (line: Int, column: Int?, message: String)? {
  malformed(thrown { () throws(DeckIOError) in try JSONParser.parse(text, file: "t.json") })
}

func jsonError(bytes: [UInt8]) -> (line: Int, column: Int?, message: String)? {
  malformed(thrown { () throws(DeckIOError) in try JSONParser.parse(bytes, file: "t.json") })
}

/// A fresh empty directory for files a test writes.
func temporaryDirectory() throws -> URL {
  let url = FileManager.default.temporaryDirectory
    .appendingPathComponent("deckio-tests-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url
}

// MARK: - Values and positions

@Suite struct JSONParserValueTests {
  @Test func parsesEveryKindWithItsPosition() throws {
    let text = """
      {
        "a": [1, -2.5e3, true],
        "b": null,
        "c": "x",
        "d": {"e": false}
      }
      """
    let root = try JSONParser.parse(text, file: "t.json")
    #expect(root.location == SourceLocation(file: "t.json", line: 1, column: 1))
    let object = try #require(root.objectValue)
    #expect(object.keys == ["a", "b", "c", "d"])
    #expect(object.member("a")?.keyLocation == SourceLocation(file: "t.json", line: 2, column: 3))
    let a = try #require(root["a"])
    #expect((a.line, a.column) == (2, 8))
    let elements = try #require(a.arrayValue)
    #expect(
      elements.map(\.kind) == [.number(1, text: "1"), .number(-2500, text: "-2.5e3"), .bool(true)])
    #expect(elements.map(\.column) == [9, 12, 20])
    #expect(root["b"]?.kind == .null)
    #expect((root["b"]!.line, root["b"]!.column) == (3, 8))
    #expect(root["c"]?.kind == .string("x"))
    #expect(root["d"]?["e"]?.kind == .bool(false))
    #expect((root["d"]!["e"]!.line, root["d"]!["e"]!.column) == (5, 14))
  }

  @Test func keepsMembersInDocumentOrder() throws {
    let root = try JSONParser.parse(#"{"z": 1, "a": 2, "m": 3}"#, file: "t.json")
    #expect(root.objectValue?.keys == ["z", "a", "m"])
  }

  @Test func decodesEveryEscape() throws {
    let root = try JSONParser.parse(
      #"["\"\\\/\b\f\n\r\t\u0041\u00e9\u00E9\ud83d\ude00\u0000"]"#, file: "t.json")
    #expect(root.arrayValue?.first?.stringValue == "\"\\/\u{8}\u{C}\n\r\tAéé😀\u{0}")
  }

  @Test func keepsNonASCIITextAndCountsColumnsInCharacters() throws {
    let root = try JSONParser.parse(#"{"名前": "肉じゃが", "n": 1}"#, file: "t.json")
    #expect(root["名前"]?.stringValue == "肉じゃが")
    // `{"名前": "肉じゃが", ` is 15 characters, so "n" starts at column 16 and its value at 21.
    #expect(root.objectValue?.member("n")?.keyLocation.column == 16)
    #expect(root["n"]?.column == 21)
  }

  @Test(arguments: [
    ("0", 0.0), ("-0", -0.0), ("12", 12), ("-7.25", -7.25), ("1e3", 1000), ("2E-2", 0.02),
    ("1.5e+2", 150), ("0.1", 0.1), ("1e-400", 0),
  ])
  func parsesNumbersAndKeepsTheirText(text: String, value: Double) throws {
    let v = try JSONParser.parse(text, file: "t.json")
    #expect(v.kind == .number(value, text: text))
    #expect(v.numberText == text)
  }

  @Test func acceptsEmptyContainersAndAllWhitespace() throws {
    let v = try JSONParser.parse(" \t\r\n[ ] ", file: "t.json")
    #expect(v.arrayValue == [])
    #expect((v.line, v.column) == (2, 1))
    #expect(try JSONParser.parse("{}", file: "t.json").objectValue?.count == 0)
  }

  @Test func skipsAByteOrderMarkAndCountsColumnsAfterIt() throws {
    let v = try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8), file: "t.json")
    #expect(v.column == 1)
    let e = jsonError(bytes: [0xEF, 0xBB, 0xBF] + Array("[x]".utf8))
    #expect(e?.line == 1)
    #expect(e?.column == 2)
  }

  @Test func acceptsNestingUpToTheLimitAndRejectsDeeper() throws {
    let depth = JSONParser.maxDepth
    let ok = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    #expect(throws: Never.self) { try JSONParser.parse(ok, file: "t.json") }
    let deep = "[" + ok + "]"
    let e = jsonError(deep)
    #expect(e?.column == depth + 1)
    #expect(e?.message == "nesting deeper than 512 levels; flatten the data")
  }

  @Test func parsesALargeOneLineDocumentInLinearTime() throws {
    // About 5 MB on a single line: a column computed from the line start for every value would
    // be quadratic and never finish.
    let item = #"{"id": "item-0000000", "name": "Dish", "tags": ["a", "b"], "price": 12.5},"#
    let count = 60_000
    var text = "["
    text.reserveCapacity(item.utf8.count * count + 2)
    for _ in 0..<count { text += item }
    text.removeLast()
    text += "]"
    let root = try JSONParser.parse(text, file: "big.json")
    let items = try #require(root.arrayValue)
    #expect(items.count == count)
    #expect(items.last?.column == 2 + (count - 1) * item.utf8.count)
  }
}

// MARK: - Errors

@Suite struct JSONParserErrorTests {
  struct Case: CustomTestStringConvertible, Sendable {
    var input: String
    var line: Int
    var column: Int
    var message: String
    var testDescription: String { input.debugDescription }
  }

  static let valueExpected =
    "expected a value (object, array, string, number, true, false or null), found "
  static let literalHint = "; strings need double quotes and the literals are true, false and null"
  static let oneValue =
    " after the end of the JSON value; a file holds one value (wrap several in an array)"

  static let cases: [Case] = [
    Case(input: "", line: 1, column: 1, message: "empty input; expected a JSON value"),
    Case(input: " \n  ", line: 2, column: 3, message: "empty input; expected a JSON value"),
    Case(
      input: "[1, 2,]", line: 1, column: 7,
      message: "trailing comma before ']'; remove the last comma"),
    Case(
      input: "{\"a\": 1,}", line: 1, column: 9,
      message: "trailing comma before '}'; remove the last comma"),
    Case(
      input: "[1 // one\n]", line: 1, column: 4,
      message: "comments are not allowed in JSON; remove them"),
    Case(
      input: "/* c */ []", line: 1, column: 1,
      message: "comments are not allowed in JSON; remove them"),
    Case(input: "[01]", line: 1, column: 2, message: "number '01' has a leading zero; remove it"),
    Case(
      input: "[-007]", line: 1, column: 2, message: "number '-007' has a leading zero; remove it"),
    Case(
      input: "[1.]", line: 1, column: 4,
      message: "expected a digit after the '.' of '1.', found ']'"),
    Case(input: "[.5]", line: 1, column: 2, message: valueExpected + "'.'"),
    Case(
      input: "[1e+]", line: 1, column: 5,
      message: "expected a digit in the exponent of '1e+', found ']'"),
    Case(input: "[-]", line: 1, column: 3, message: "expected a digit after '-', found ']'"),
    Case(input: "[+1]", line: 1, column: 2, message: valueExpected + "'+'"),
    Case(input: "[1e400]", line: 1, column: 2, message: "number '1e400' is too large"),
    Case(
      input: #"["a\x"]"#, line: 1, column: 4,
      message: #"invalid escape '\x'; valid escapes are \" \\ \/ \b \f \n \r \t and \uXXXX"#),
    Case(
      input: #"["\ud800"]"#, line: 1, column: 3,
      message:
        #"lone surrogate \uD800; a high surrogate must be followed by a low surrogate escape \uDC00-\uDFFF"#
    ),
    Case(
      input: #"["\ud800\u0041"]"#, line: 1, column: 9,
      message: #"\u0041 is not a low surrogate; a high surrogate must be followed by \uDC00-\uDFFF"#
    ),
    Case(
      input: #"["\udc00"]"#, line: 1, column: 3,
      message: #"lone surrogate \uDC00; a low surrogate must follow a high surrogate \uD800-\uDBFF"#
    ),
    Case(
      input: #"["\u12g4"]"#, line: 1, column: 3,
      message: #"\u must be followed by four hex digits"#),
    Case(
      input: "[\"a\tb\"]", line: 1, column: 4,
      message: #"control character U+0009 inside a string; write it as \u0009"#),
    Case(
      input: "[\"ab\ncd\"]", line: 1, column: 5,
      message: #"line break inside a string; write it as \n, or add the missing closing '"'"#),
    Case(
      input: "[\"abc", line: 1, column: 2, message: #"unterminated string; add the closing '"'"#),
    Case(input: "{} x", line: 1, column: 4, message: "unexpected 'x'" + oneValue),
    Case(input: "1\n2", line: 2, column: 1, message: "unexpected '2'" + oneValue),
    Case(
      input: "['a']", line: 1, column: 2,
      message: "expected a value, found a single quote; strings need double quotes"),
    Case(
      input: "[True]", line: 1, column: 2, message: "expected a value, found 'True'" + literalHint),
    Case(
      input: "[NaN]", line: 1, column: 2, message: "expected a value, found 'NaN'" + literalHint),
    Case(
      input: "[nul]", line: 1, column: 2, message: "expected a value, found 'nul'" + literalHint),
    Case(
      input: "{\"a\" 1}", line: 1, column: 6,
      message: "expected ':' after field name 'a', found '1'"),
    Case(
      input: "[1 2]", line: 1, column: 4,
      message: "expected ',' or ']' after an array element, found '2'"),
    Case(
      input: "{\"a\": 1 \"b\": 2}", line: 1, column: 9,
      message: "expected ',' or '}' after the value of 'a', found '\"'"),
    Case(
      input: "{a: 1}", line: 1, column: 2,
      message: "expected a field name in double quotes, found 'a'"),
    Case(
      input: "[1,\n2", line: 2, column: 2,
      message:
        "unexpected end of the file; expected ']' to close the array opened at line 1, column 1"),
    Case(
      input: "{\"a\":\n", line: 2, column: 1,
      message:
        "unexpected end of the file; expected '}' to close the object opened at line 1, column 1"),
    Case(
      input: "{\"a\": 1,\n \"a\": 2}", line: 2, column: 2,
      message: "duplicate field 'a' (first at line 1, column 2); keep one of them"),
    Case(
      input: "[\r\n1,\r\n]", line: 3, column: 1,
      message: "trailing comma before ']'; remove the last comma"),
    Case(input: "[\u{A0}1]", line: 1, column: 2, message: valueExpected + "'\u{A0}' (U+00A0)"),
    Case(input: "[\u{C}]", line: 1, column: 2, message: valueExpected + "control character U+000C"),
  ]

  @Test(arguments: cases)
  func reportsWhereAndWhatWasExpected(_ c: Case) {
    let e = jsonError(c.input)
    #expect(e?.line == c.line)
    #expect(e?.column == c.column)
    #expect(e?.message == c.message)
  }

  @Test func errorsNameTheFile() {
    let e = thrown { () throws(DeckIOError) in try JSONParser.parse("[1,]", file: "dir/menu.json") }
    #expect(
      e?.description == "dir/menu.json:1:4: trailing comma before ']'; remove the last comma")
  }

  @Test(
    arguments: [
      // (bytes, column, bytes named in the message)
      ([0x5B, 0x22, 0x61, 0xFF, 0x22, 0x5D], 4, "0xFF"),
      ([0x5B, 0x22, 0xC0, 0xAF, 0x22, 0x5D], 3, "0xC0 0xAF"),  // overlong "/"
      ([0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D], 3, "0xED 0xA0 0x80"),  // encoded surrogate
      ([0x5B, 0x22, 0xE3, 0x81, 0x22, 0x5D], 3, "0xE3 0x81"),  // truncated
      ([0x5B, 0x22, 0xF4, 0x90, 0x80, 0x80, 0x22, 0x5D], 3, "0xF4 0x90 0x80 0x80"),  // > U+10FFFF
      ([0x5B, 0x22, 0xC3, 0xA9, 0x80, 0x22, 0x5D], 4, "0x80"),  // "é" then a stray continuation
      ([0x5B, 0x31, 0x2C, 0x20, 0xFE, 0x5D], 5, "0xFE"),  // outside a string
    ] as [([UInt8], Int, String)])
  func reportsInvalidUTF8AtTheBadByte(bytes: [UInt8], column: Int, shown: String) {
    let e = jsonError(bytes: bytes)
    #expect(e?.line == 1)
    #expect(e?.column == column)
    #expect(e?.message == "invalid UTF-8 (bytes \(shown)); save the file as UTF-8")
  }

  @Test func reportsInvalidUTF8OnALaterLine() {
    let e = jsonError(bytes: Array("{\n  \"name\": \"ab".utf8) + [0xFF] + Array("\"\n}".utf8))
    #expect(e?.line == 2)
    #expect(e?.column == 14)
  }

  @Test func acceptsEveryValidUTF8Length() throws {
    let v = try JSONParser.parse("[\"a\u{E9}\u{8089}\u{1F600}\u{10FFFF}\"]", file: "t.json")
    #expect(v.arrayValue?.first?.stringValue == "a\u{E9}\u{8089}\u{1F600}\u{10FFFF}")
  }
}

// MARK: - Typed accessors

@Suite struct JSONAccessorTests {
  let doc: JSONValue

  init() throws {
    doc = try JSONParser.parse(
      """
      {
        "name": "Soup",
        "price": [1],
        "tags": ["a", 2],
        "note": null,
        "n": 3.5,
        "ok": true,
        "sub": {"x": 1}
      }
      """, file: "c.json")
  }

  @Test func returnsPresentValuesOfTheRightType() throws {
    #expect(try doc.string(at: "name") == "Soup")
    #expect(try doc.number(at: "n") == 3.5)
    #expect(try doc.bool(at: "ok") == true)
    #expect(try doc.object(at: "sub")["x"]?.doubleValue == 1)
    #expect(try doc.optionalString(at: "note") == nil)
    #expect(try doc.optionalString(at: "absent") == nil)
    #expect(try doc.optionalNumber(at: "n") == 3.5)
    #expect(try doc.stringArray(at: "absent") == [])
  }

  /// The field is the error's location's (the JSON diagnostics' `field`), not words of its
  /// message.
  @Test func wrongTypeNamesTheFieldAndPointsAtTheValue() {
    let e = thrown { () throws(DeckIOError) in try doc.string(at: "price") }
    #expect(
      e
        == .malformed(
          SourceLocation(file: "c.json", line: 3, column: 12, field: "price"),
          message: "expected a string, got an array"))
    #expect(e?.description == "c.json:3:12: price: expected a string, got an array")
    func located(_ e: DeckIOError?) -> (String?, String)? {
      guard case .malformed(let at, let message) = e else { return nil }
      return (at.field, message)
    }
    #expect(
      located(thrown { () throws(DeckIOError) in try doc.number(at: "name") })!
        == ("name", "expected a number, got a string"))
    #expect(
      located(thrown { () throws(DeckIOError) in try doc.bool(at: "n") })!
        == ("n", "expected true or false, got a number"))
    #expect(
      located(thrown { () throws(DeckIOError) in try doc.string(at: "note") })!
        == ("note", "expected a string, got null"))
    #expect(
      located(thrown { () throws(DeckIOError) in try doc.array(at: "name") })!
        == ("name", "expected an array, got a string"))
    #expect(
      located(thrown { () throws(DeckIOError) in _ = try doc.object(at: "name") })!
        == ("name", "expected an object, got a string"))
  }

  @Test func missingRequiredFieldPointsAtTheObject() {
    let e = malformed(thrown { () throws(DeckIOError) in try doc.string(at: "title") })
    #expect(e?.line == 1)
    #expect(e?.column == 1)
    #expect(e?.message == "missing required field 'title'")
  }

  @Test func stringArrayPointsAtTheBadEntry() {
    let error = thrown { () throws(DeckIOError) in try doc.stringArray(at: "tags") }
    let e = malformed(error)
    #expect(e?.line == 4)
    #expect(e?.column == 17)
    #expect(e?.message == "expected a string for each entry, got a number")
    #expect(error?.description.hasPrefix("c.json:4:17: tags: ") == true)
  }

  @Test func fieldAccessOnANonObjectSaysSo() throws {
    let array = try JSONParser.parse("[1]", file: "c.json")
    #expect(
      malformed(thrown { () throws(DeckIOError) in try array.string(at: "x") })?.message
        == "expected an object, got an array")
  }

  @Test func unknownKeysAreRejectedWithASuggestion() {
    let known = ["name", "price", "tags", "note", "n", "ok", "sub"]
    #expect(
      thrown { () throws(DeckIOError) in try doc.rejectUnknownKeys(allowed: known, in: "a test") }
        == nil)
    let e = malformed(
      thrown { () throws(DeckIOError) in
        try doc.rejectUnknownKeys(allowed: ["names", "price"], in: "a test")
      })
    #expect(e?.line == 2)
    #expect(e?.column == 3)
    #expect(
      e?.message
        == "unknown field 'name' in a test (did you mean 'names'?); known fields: names, price")
  }
}
