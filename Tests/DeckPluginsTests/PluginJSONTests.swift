import DeckBase
import Testing

@testable import DeckPlugins

struct PluginJSONTests {
  /// Texts and the value each parses to, written back by the host's writer.
  @Test(arguments: [
    ("null", "null"),
    (" true ", "true"),
    ("false", "false"),
    ("0", "0"),
    ("-0.5e2", "-50"),
    ("1E+3", "1000"),
    ("123456789012345678", "1.2345678901234568e+17"),
    ("NaN", "nan"),
    ("Infinity", "inf"),
    ("-Infinity", "-inf"),
    ("1e400", "inf"),
    ("\"a\\\"b\\\\c\\/d\\n\"", "\"a\\\"b\\\\c/d\\n\""),
    ("\"\\u00e9\\u3042\"", "\"é\u{3042}\""),
    ("\"\\ud83c\\udf63\"", "\"🍣\""),
    ("\"生\"", "\"生\""),
    ("[]", "[]"),
    ("[1, [2], {}]", "[1,[2],{}]"),
    ("{\"a\":1,\"b\":[true]}", "{\"a\":1,\"b\":[true]}"),
    ("{\"b\":1,\"a\":2,\"b\":3}", "{\"a\":2,\"b\":3}"),
  ])
  func parses(text: String, written: String) throws {
    #expect(try PluginJSON.parse(Array(text.utf8)).text == written)
  }

  @Test func keepsNumbersAndTheirKinds() throws {
    let v = try PluginJSON.parse(Array("{\"s\":[0.25,NaN],\"id\":3}".utf8))
    #expect(v["id"]?.doubleValue == 3)
    #expect(v["s"]?.arrayValue?[0].doubleValue == 0.25)
    #expect(v["s"]?.arrayValue?[1].doubleValue?.isNaN == true)
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
    ("{\"a\":1", "unexpected end of line in an object", 6),
    ("[1", "unexpected end of line in an array", 2),
    ("\"\\udc00\"", "bad \\u escape", 7),
    ("\"\\ud800\\u0041\"", "bad surrogate pair", 13),
  ])
  func rejects(text: String, message: String, offset: Int) {
    #expect(throws: PluginJSONError(message: message, offset: offset)) {
      try PluginJSON.parse(Array(text.utf8))
    }
  }

  @Test func nestingIsLimitedAsInEveryReader() throws {
    let depth = JSONReader.maxDepth
    let ok = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    _ = try PluginJSON.parse(Array(ok.utf8))
    let deep = "[" + ok + "]"
    #expect(throws: PluginJSONError(message: "nested too deeply", offset: depth)) {
      try PluginJSON.parse(Array(deep.utf8))
    }
  }

  @Test func writerEscapesAndRoundTrips() throws {
    var w = JSONWriter()
    w.beginObject()
    w.field("id", "q\"uote\\ \u{1} tab\t \u{8}\u{C} 生")
    w.key("n")
    w.beginArray()
    w.number(2)
    w.number(0.25)
    w.null()
    w.endArray()
    w.endObject()
    #expect(
      String(decoding: w.bytes, as: UTF8.self)
        == "{\"id\":\"q\\\"uote\\\\ \\u0001 tab\\t \\b\\f 生\",\"n\":[2,0.25,null]}")
    let value = try PluginJSON.parse(w.bytes)
    var again = JSONWriter()
    again.value(value)
    #expect(again.bytes == w.bytes)
  }
}
