import Testing

@testable import DeckStrategies

struct PluginJSONTests {
  @Test(arguments: [
    ("null", PluginJSON.null),
    (" true ", .bool(true)),
    ("false", .bool(false)),
    ("0", .number(0)),
    ("-0.5e2", .number(-50)),
    ("1E+3", .number(1000)),
    ("123456789012345678", .number(123_456_789_012_345_678)),
    ("NaN", .number(.nan)),
    ("Infinity", .number(.infinity)),
    ("-Infinity", .number(-.infinity)),
    ("1e400", .number(.infinity)),
    ("\"a\\\"b\\\\c\\/d\\n\"", .string("a\"b\\c/d\n")),
    ("\"\\u00e9\\u3042\"", .string("é\u{3042}")),
    ("\"\\ud83c\\udf63\"", .string("🍣")),
    ("\"生\"", .string("生")),
    ("[]", .array([])),
    ("[1, [2], {}]", .array([.number(1), .array([.number(2)]), .object([:])])),
    ("{\"a\":1,\"b\":[true]}", .object(["a": .number(1), "b": .array([.bool(true)])])),
  ])
  func parses(text: String, value: PluginJSON) throws {
    let parsed = try PluginJSON.parse(Array(text.utf8))
    if case .number(let x) = value, x.isNaN {
      #expect(parsed.number?.isNaN == true)
    } else {
      #expect(parsed == value)
    }
  }

  @Test(arguments: [
    ("", "unexpected end of line", 0),
    ("nul", "expected a value", 0),
    ("01", "extra text after the value", 1),
    ("1.", "expected a digit after '.'", 2),
    ("-", "expected a digit", 1),
    ("1e", "expected a digit in the exponent", 2),
    ("[1,]", "expected a value", 3),
    ("[1 2]", "expected ',' or ']'", 3),
    ("{\"a\" 1}", "expected ':'", 5),
    ("{1:2}", "expected a key", 1),
    ("\"abc", "unterminated string", 4),
    ("\"\\x\"", "bad escape", 3),
    ("\"\\u12g4\"", "bad \\u escape", 5),
    ("\"a\tb\"", "control character in a string", 2),
    ("{\"type\":\"ranked\",\"id\":", "unexpected end of line", 22),
  ])
  func rejects(text: String, message: String, offset: Int) {
    #expect(throws: PluginJSONError(message: message, offset: offset)) {
      try PluginJSON.parse(Array(text.utf8))
    }
  }

  @Test func nestingIsLimited() {
    let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
    #expect(throws: PluginJSONError(message: "nested too deeply", offset: 64)) {
      try PluginJSON.parse(Array(deep.utf8))
    }
  }

  @Test func writerEscapesAndRoundTrips() throws {
    var w = PluginJSONWriter()
    let value = PluginJSON.object([
      "id": .string("q\"uote\\ \u{1} tab\t 生"), "n": .array([.number(2), .number(0.25), .null]),
    ])
    w.value(value)
    #expect(
      String(decoding: w.bytes, as: UTF8.self)
        == "{\"id\":\"q\\\"uote\\\\ \\u0001 tab\\t 生\",\"n\":[2,0.25,null]}")
    #expect(try PluginJSON.parse(w.bytes) == value)
  }
}
