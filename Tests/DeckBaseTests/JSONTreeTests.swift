import Testing

@testable import DeckBase

/// The packed positions of the JSON tree and the in-place number reading of arrays.
@Suite("JSON tree")
struct JSONTreeTests {
  @Test("every value and key tells its file, line and column")
  func positions() throws {
    let text = "{\n  \"a\": [1, -2.5e1, \"x\"],\n  \"b\": {\"c\": null}\n}"
    let v = try JSONReader.parse(Array(text.utf8), file: "conf/x.json")
    #expect(v.location == SourceLocation(file: "conf/x.json", line: 1, column: 1))
    let a = try #require(v["a"]?.arrayValue)
    #expect(
      a.map(\.location.description) == ["conf/x.json:2:9", "conf/x.json:2:12", "conf/x.json:2:20"])
    #expect(a[1].numberText == "-2.5e1")
    let b = try #require(v.objectValue?.member("b"))
    #expect(b.keyLocation == SourceLocation(file: "conf/x.json", line: 3, column: 3))
    #expect(b.value["c"]?.location.description == "conf/x.json:3:14")
  }

  @Test("a protocol line's values carry the line, without a column")
  func protocolLine() throws {
    let v = try JSONReader.parse(Array("{\"s\":[1,2]}".utf8), file: "reply", dialect: .protocolLine)
    #expect(v["s"]?.arrayValue?[1].location == SourceLocation(file: "reply", line: 1))
    #expect(v["s"]?.arrayValue?[1].numberText == "")
  }

  @Test("the same file name gets the same number; different names stay apart")
  func fileNames() throws {
    let a = try JSONReader.parse(Array("1".utf8), file: "one.json")
    let b = try JSONReader.parse(Array("1".utf8), file: "one.json")
    let c = try JSONReader.parse(Array("1".utf8), file: "two.json")
    #expect(a == b)
    #expect(a != c)
    #expect(c.location.file == "two.json")
    #expect(JSONSourceNames.number("one.json") == JSONSourceNames.number("one.json"))
  }

  @Test("naming a value read without a file name")
  func naming() throws {
    let v = try JSONReader.parse(Array("\n [true]".utf8), file: "")
    let named = v.naming("config.json")
    #expect(named.location == SourceLocation(file: "config.json", line: 2, column: 2))
    #expect(named.kind == v.kind)
    #expect(named.naming("other.json").location.file == "config.json")
  }

  @Test("lines and columns beyond 32 bits are clamped, not trapped")
  func clamped() {
    let p = JSONPosition(file: JSONSourceNames.number("big"), line: Int.max, column: Int.max)
    #expect(p.location.line == Int(UInt32.max))
    #expect(p.location.column == Int(UInt32.max))
    #expect(JSONPosition(file: 0, line: 3, column: nil).location.column == nil)
  }

  @Test(
    "numberElements: the numbers up to the first element that is not one",
    arguments: [
      ("[1, 2.5, -3]", [1, 2.5, -3], nil as Int?), ("[]", [], nil), ("[1, \"x\", 3]", [1], 1),
      ("[null]", [], 0), ("[1, [2]]", [1], 1),
    ])
  func numberElements(text: String, values: [Double], first: Int?) throws {
    let v = try JSONReader.parse(Array(text.utf8), file: "t")
    let r = try #require(v.numberElements())
    #expect(r.values == values)
    #expect(r.firstNonNumber == first)
  }

  @Test("numberElements of a value that is not an array is nil")
  func numberElementsOfNonArray() throws {
    #expect(try JSONReader.parse(Array("{}".utf8), file: "t").numberElements() == nil)
    #expect(try JSONReader.parse(Array("3".utf8), file: "t").numberElements() == nil)
  }
}
