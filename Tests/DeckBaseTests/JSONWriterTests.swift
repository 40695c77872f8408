import Testing

@testable import DeckBase

/// The one JSON writer: its escaping, its number forms, its commas and layout, and that what it
/// writes reads back through the one parser as the values written.
@Suite struct JSONWriterTests {
  private func written(_ body: (inout JSONWriter) -> Void) -> String {
    var w = JSONWriter()
    body(&w)
    return w.text
  }

  @Test func escapesQuotesBackslashesAndEveryControlCharacter() {
    #expect(written { $0.string("a\"b\\c/d") } == #""a\"b\\c/d""#)
    #expect(written { $0.string("\n\r\t\u{08}\u{0C}") } == #""\n\r\t\b\f""#)
    #expect(written { $0.string("\u{00}\u{01}\u{1F}\u{7F}") } == "\"\\u0000\\u0001\\u001f\u{7F}\"")
    // Every control character is escaped, and nothing else below 0x80 is.
    for b in UInt8(0)..<0x80 {
      let text = written { w in [b].withUnsafeBufferPointer { w.string(bytes: $0) } }
      if b < 0x20 || b == 0x22 || b == 0x5C {
        #expect(text.utf8.count > 3 && text.utf8.dropFirst().first == 0x5C, "byte \(b)")
      } else {
        #expect(Array(text.utf8) == [0x22, b, 0x22], "byte \(b)")
      }
    }
  }

  /// `appendFixed` (the decks' scores, millions of them) writes into the output in place; it
  /// must write what `Text.fixed` writes, for every count of decimals a writer uses, rounding
  /// half away from zero, a negative that rounds to zero without its sign, and the values past
  /// its fast range.
  @Test func appendFixedWritesWhatFixedWrites() {
    var values: [Double] = [
      0, -0.0, 0.5, -0.5, 1, 2.0 / 3, -2.0 / 3, 0.0000005, -0.0000004, 0.1234565, 999_999_999.5,
      1e9, -1e9, 1e12, 123.456, .nan, .infinity, -.infinity, 1e-300, 0.9999999999,
    ]
    // A fixed sample of ordinary scores: an LCG's bits as doubles in [-1000, 1000).
    var state: UInt64 = 30
    for _ in 0..<2_000 {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      values.append(Double(state >> 11) * 0x1.0p-53 * 2000 - 1000)
    }
    for decimals in 0...9 {
      for v in values {
        var out: [UInt8] = Array("x".utf8)
        Text.appendFixed(v, decimals: decimals, to: &out)
        #expect(
          String(decoding: out, as: UTF8.self) == "x" + Text.fixed(v, decimals: decimals),
          "\(v), \(decimals) decimals")
      }
    }
  }

  /// A value laid out by its writer gets the comma any value gets.
  @Test func aValueLaidOutByItsWriterGetsItsComma() {
    let text = written { w in
      w.beginArray()
      w.value { $0.append(contentsOf: Array("{\"a\":1}".utf8)) }
      w.int(2)
      w.value { $0.append(contentsOf: Array("3".utf8)) }
      w.endArray()
    }
    #expect(text == #"[{"a":1},2,3]"#)
  }

  @Test func writesNonASCIIAsItIs() {
    #expect(written { $0.string("crème brûlée 拉麺 🍜") } == "\"crème brûlée 拉麺 🍜\"")
    // Bytes that are not UTF-8 (a rejected line) go out unchanged between the quotes.
    let raw: [UInt8] = [0x61, 0xFF, 0xC3, 0x0A]
    var w = JSONWriter()
    raw.withUnsafeBufferPointer { w.string(bytes: $0) }
    let bytes = w.bytes
    #expect(bytes == [0x22, 0x61, 0xFF, 0xC3, 0x5C, UInt8(ascii: "n"), 0x22])
  }

  @Test func numbersInTheOutputsForms() {
    let cases: [(Double, String)] = [
      (0, "0"), (-0.0, "0"), (980, "980"), (-3, "-3"), (2.5, "2.5"), (0.1, "0.1"),
      (1e-7, "1e-07"), (1e21, "1e+21"), (1e15, "1000000000000000.0"), (1e16, "1e+16"),
      (999_999_999_999_999, "999999999999999"),
      (-1.5e-300, "-1.5e-300"), (1.0 / 3.0, "0.3333333333333333"),
    ]
    for (value, want) in cases {
      #expect(written { $0.number(value) } == want, "\(value)")
      // The same text as Text.number, the form of the text outputs.
      #expect(Text.number(value) == want, "\(value)")
    }
    #expect(written { $0.roundTrip(0) } == "0.0")
    #expect(written { $0.roundTrip(1) } == "1.0")
    #expect(written { $0.roundTrip(1e-7) } == "1e-07")
    #expect(written { $0.fixed(2.0 / 3.0, decimals: 3) } == "0.667")
    #expect(written { $0.int(-42) } == "-42")
    #expect(written { $0.int(UInt64.max) } == "18446744073709551615")
    #expect(written { $0.int(Int64.min) } == "-9223372036854775808")
  }

  @Test func nonFiniteNumbersAreNull() throws {
    for value in [Double.nan, .infinity, -.infinity] {
      #expect(written { $0.number(value) } == "null")
      #expect(written { $0.roundTrip(value) } == "null")
    }
    #expect(written { $0.number(Double?.none) } == "null")
    // A value quoted in a message keeps Swift's spelling of what a plugin sent.
    let parsed = try JSONReader.parse(
      Array("[NaN,-Infinity,1]".utf8), file: "t", dialect: .protocolLine)
    #expect(written { $0.value(parsed) } == "[null,null,1]")
    #expect(written { $0.value(parsed, quoting: true) } == "[nan,-inf,1]")
  }

  @Test func nestsObjectsAndArraysWithCommas() {
    let text = written { w in
      w.beginObject()
      w.field("name", "ramen")
      w.key("tags")
      w.strings(["hot", "soup"])
      w.key("empty")
      w.beginArray()
      w.endArray()
      w.key("nested")
      w.beginArray()
      w.beginObject()
      w.field("a", bool: true)
      w.endObject()
      w.beginObject()
      w.endObject()
      w.null()
      w.endArray()
      w.field("price", number: 12.5)
      w.field("count", int: 3)
      w.field("missing", Optional<String>.none)
      w.endObject()
    }
    #expect(
      text
        == #"{"name":"ramen","tags":["hot","soup"],"empty":[],"nested":[{"a":true},{},null],"price":12.5,"count":3,"missing":null}"#
    )
  }

  @Test func nestsDeeperThanSixtyFourLevels() throws {
    let text = String(repeating: "[1,", count: 100) + "2" + String(repeating: ",3]", count: 100)
    let parsed = try JSONReader.parse(Array(text.utf8), file: "t")
    var w = JSONWriter()
    w.value(parsed)
    #expect(w.text == text)
    #expect(w.isComplete)
  }

  @Test func layoutGoesAfterTheCommaAndBeforeTheClosingBracket() {
    var w = JSONWriter()
    w.beginObject()
    w.key("run")
    w.beginObject()
    w.endObject()
    w.layout("\n")
    w.key("rows")
    w.beginArray()
    w.layout("\n")
    w.int(1)
    w.layout("\n")
    w.int(2)
    w.layout("\n")
    w.endArray()
    w.endObject()
    w.layout("\n")
    #expect(w.text == "{\"run\":{},\n\"rows\":[\n1,\n2\n]}\n")
    #expect(w.isComplete)
  }

  @Test func spacedKeysAndTopLevelRecords() {
    var w = JSONWriter(style: .spaced)
    w.beginObject()
    w.layout("\n  ")
    w.key("items")
    w.beginArray()
    for id in ["a", "b"] {
      w.layout("\n    ")
      w.beginObject()
      w.field("id", id)
      w.key("tags")
      w.strings(["x", "y"])
      w.endObject()
    }
    w.layout("\n  ")
    w.endArray()
    w.layout("\n")
    w.endObject()
    #expect(
      w.text
        == "{\n  \"items\": [\n    {\"id\": \"a\", \"tags\": [\"x\", \"y\"]},\n    {\"id\": \"b\", \"tags\": [\"x\", \"y\"]}\n  ]\n}"
    )
    // JSON Lines: values at the top level take no comma.
    var lines = JSONWriter()
    for n in 0..<2 {
      lines.beginObject()
      lines.field("n", int: n)
      lines.endObject()
      lines.layout("\n")
    }
    #expect(lines.text == "{\"n\":0}\n{\"n\":1}\n")
  }

  @Test func fragmentsAndParsedValues() throws {
    var inner = JSONWriter()
    inner.strings(["x"])
    var w = JSONWriter()
    w.beginArray()
    w.fragment(inner.text)
    w.fragment(bytes: inner.bytes)
    w.endArray()
    #expect(w.text == #"[["x"],["x"]]"#)

    let parsed = try JSONReader.parse(
      Array(#"{"b":[1,2.5,"é\n"],"a":null,"c":{"z":true,"y":false}}"#.utf8), file: "t")
    var v = JSONWriter()
    v.value(parsed)
    #expect(v.text == #"{"a":null,"b":[1,2.5,"é\n"],"c":{"y":false,"z":true}}"#)
  }

  @Test func whatItWritesReadsBack() throws {
    let strings = ["", "plain", "q\"b\\s", "\u{01}\u{1F}\t", "拉麺 🍜", "\u{7F}\u{2028}"]
    var w = JSONWriter()
    w.beginObject()
    w.key("strings")
    w.strings(strings)
    w.key("numbers")
    w.beginArray()
    let numbers = [0, -3, 2.5, 1e-7, 1e21, 123_456_789.125, -0.0]
    for n in numbers { w.number(n) }
    w.endArray()
    w.endObject()
    let back = try JSONReader.parse(w.bytes, file: "t")
    #expect(back["strings"]?.arrayValue?.map { $0.stringValue } == strings)
    #expect(back["numbers"]?.arrayValue?.map { $0.doubleValue } == numbers)
  }
}
