import DeckBase
import Testing

/// The tests' JSON Schema validator (Support/JSONSchemaValidator.swift): each keyword accepts and
/// rejects, unknown keywords fail, references resolve, and violations say where.
struct JSONSchemaValidatorTests {
  static let id = "https://menudeck.invalid/test/t.schema.json"

  /// A schema document with `body` (members of the root object) and the usual head.
  static func document(_ body: String, id: String = id) -> String {
    "{\"$schema\":\"\(SchemaSet.draft)\",\"$id\":\"\(id)\"" + (body.isEmpty ? "" : ",") + body
      + "}"
  }

  static func violations(_ body: String, _ instance: String) throws -> [SchemaViolation] {
    var set = SchemaSet()
    try set.add(document(body), file: "t.schema.json")
    let value = try JSONReader.parse(Array(instance.utf8), file: "instance")
    return set.validate(value, in: "t.schema.json")
  }

  /// A keyword's schema, instances it accepts, and instances it rejects with the keyword and
  /// instance pointer of the first violation.
  struct Case: Sendable, CustomTestStringConvertible {
    var schema: String
    var valid: [String]
    var invalid: [(instance: String, keyword: String, pointer: String)]

    var testDescription: String { schema }
  }

  static let cases: [Case] = [
    Case(
      schema: #""type":"string""#, valid: [#""a""#, #""""#],
      invalid: [("1", "type", ""), ("null", "type", "")]),
    Case(
      schema: #""type":"integer""#, valid: ["3", "-2", "3.0", "1e2"],
      invalid: [("3.5", "type", ""), (#""3""#, "type", "")]),
    Case(
      schema: #""type":"number""#, valid: ["1", "1.5", "-0.25e-3"],
      invalid: [("null", "type", ""), (#""1""#, "type", "")]),
    Case(
      schema: #""type":["string","null"]"#, valid: ["null", #""x""#],
      invalid: [("true", "type", ""), ("[]", "type", "")]),
    Case(
      schema: #""type":"boolean""#, valid: ["true", "false"], invalid: [("0", "type", "")]),
    Case(schema: #""type":"object""#, valid: ["{}"], invalid: [("[]", "type", "")]),
    Case(schema: #""type":"array""#, valid: ["[]"], invalid: [("{}", "type", "")]),
    Case(schema: #""type":"null""#, valid: ["null"], invalid: [("false", "type", "")]),
    Case(
      schema: #""enum":["a",1,null,[1,{"b":2}]]"#,
      valid: [#""a""#, "1", "1.0", "null", #"[1,{"b":2}]"#],
      invalid: [(#""b""#, "enum", ""), ("2", "enum", ""), (#"[1,{"b":3}]"#, "enum", "")]),
    Case(
      schema: #""const":{"a":[1,2],"b":true}"#, valid: [#"{"b":true,"a":[1,2]}"#],
      invalid: [(#"{"a":[2,1],"b":true}"#, "const", ""), (#"{"a":[1,2]}"#, "const", "")]),
    Case(
      schema: #""properties":{"a":{"type":"string"},"x/y":{"type":"integer"}}"#,
      valid: [#"{"a":"x"}"#, "{}", "5", #"{"b":1}"#],
      invalid: [(#"{"a":1}"#, "type", "/a"), (#"{"x/y":"no"}"#, "type", "/x~1y")]),
    Case(
      schema: #""required":["a","b"]"#, valid: [#"{"a":1,"b":null}"#, "[]"],
      invalid: [(#"{"a":1}"#, "required", "")]),
    Case(
      schema: #""properties":{"a":{}},"additionalProperties":false"#,
      valid: [#"{"a":1}"#, "{}"], invalid: [(#"{"a":1,"b":2}"#, "additionalProperties", "/b")]),
    Case(
      schema: #""properties":{"a":{}},"additionalProperties":{"type":"integer"}"#,
      valid: [#"{"a":"x","b":2}"#], invalid: [(#"{"b":"x"}"#, "type", "/b")]),
    Case(
      schema: #""propertyNames":{"pattern":"^[a-z_]+$"}"#, valid: [#"{"like_rate":1}"#],
      invalid: [(#"{"Like":1}"#, "pattern", "/Like")]),
    Case(
      schema: #""items":{"type":"integer"}"#, valid: ["[]", "[1,2]"],
      invalid: [("[1,\"2\"]", "type", "/1")]),
    Case(
      schema: #""prefixItems":[{"type":"string"},{"type":"integer"}],"items":false"#,
      valid: [#"["a",1]"#, #"["a"]"#, "[]"],
      invalid: [(#"["a",1,2]"#, "items", "/2"), ("[1]", "type", "/0")]),
    Case(
      schema: #""prefixItems":[{"const":"a"}],"items":{"type":"integer"}"#,
      valid: [#"["a",1,2]"#], invalid: [(#"["a","b"]"#, "type", "/1")]),
    Case(
      schema: #""minItems":1,"maxItems":2"#, valid: ["[1]", "[1,2]", "{}"],
      invalid: [("[]", "minItems", ""), ("[1,2,3]", "maxItems", "")]),
    Case(
      schema: #""minimum":0,"maximum":1"#, valid: ["0", "1", "0.5", #""x""#],
      invalid: [("-0.1", "minimum", ""), ("1.5", "maximum", "")]),
    Case(
      schema: #""exclusiveMinimum":0,"exclusiveMaximum":1"#, valid: ["0.5"],
      invalid: [("0", "exclusiveMinimum", ""), ("1", "exclusiveMaximum", "")]),
    Case(
      schema: #""minLength":2,"maxLength":3"#, valid: [#""ab""#, #""日本""#, #""abc""#, "1"],
      invalid: [(#""a""#, "minLength", ""), (#""abcd""#, "maxLength", "")]),
    Case(
      schema: #""pattern":"^[0-9]{4}-[0-9]{2}-[0-9]{2}$""#, valid: [#""2026-11-30""#, "7"],
      invalid: [
        (#""2026-1-30""#, "pattern", ""), (#""x2026-11-30""#, "pattern", ""),
        (#""2026-11-30x""#, "pattern", ""),
      ]),
    Case(
      schema: #""pattern":"^[0-9a-f]{64}$""#,
      valid: ["\"" + String(repeating: "0a", count: 32) + "\""],
      invalid: [
        ("\"" + String(repeating: "0A", count: 32) + "\"", "pattern", ""),
        ("\"" + String(repeating: "0a", count: 31) + "\"", "pattern", ""),
      ]),
    Case(
      schema: #""pattern":"^([0-9]{4}-[0-9]{2}-[0-9]{2}|all)$""#,
      valid: [#""all""#, #""2026-01-02""#],
      invalid: [(#""alll""#, "pattern", "")]),
    Case(
      schema: #""format":"date","type":"string""#, valid: [#""2026-11-30""#, #""not a date""#],
      invalid: [("1", "type", "")]),
    Case(
      schema: #""format":"date-time""#, valid: [#""2026-11-30T12:00:00Z""#, "3"], invalid: []),
    Case(
      schema: #""anyOf":[{"type":"string"},{"minimum":5}]"#, valid: [#""a""#, "7"],
      invalid: [("3", "anyOf", "")]),
    Case(
      schema: #""oneOf":[{"type":"integer"},{"minimum":5}]"#, valid: ["3", "5.5"],
      invalid: [("7", "oneOf", ""), ("2.5", "oneOf", "")]),
    Case(
      schema: #""allOf":[{"type":"integer"},{"minimum":5}]"#, valid: ["7"],
      invalid: [("3", "minimum", ""), ("5.5", "type", "")]),
    Case(
      schema: #""not":{"required":["x"]}"#, valid: ["{}", #"{"y":1}"#],
      invalid: [(#"{"x":1}"#, "not", "")]),
    Case(
      schema: #""properties":{"t":true,"f":false}"#, valid: [#"{"t":[1]}"#, "{}"],
      invalid: [(#"{"f":null}"#, "false", "/f")]),
    Case(
      schema:
        ##""$defs":{"day":{"type":"string","pattern":"^[0-9]{2}$"}},"items":{"$ref":"#/$defs/day"}"##,
      valid: [#"["01","31"]"#], invalid: [(#"["01","1"]"#, "pattern", "/1"), ("[1]", "type", "/0")]),
    Case(
      schema: #""$comment":"a note","title":"T","description":"D""#, valid: ["1", "null"],
      invalid: []),
  ]

  @Test(arguments: cases)
  func eachKeywordAcceptsAndRejects(_ c: Case) throws {
    for instance in c.valid {
      let found = try Self.violations(c.schema, instance)
      #expect(found.isEmpty, "\(instance) should be valid against {\(c.schema)}: \(found)")
    }
    for bad in c.invalid {
      let found = try Self.violations(c.schema, bad.instance)
      let first = try #require(
        found.first, "\(bad.instance) should break {\(c.schema)}")
      #expect(first.keyword == bad.keyword, "\(bad.instance): \(found)")
      #expect(first.instancePath == bad.pointer, "\(bad.instance): \(found)")
    }
  }

  /// A keyword the validator does not implement fails, naming it, however valid the instance,
  /// and so does a format it does not know.
  @Test func unknownKeywordsFail() throws {
    let found = try Self.violations(#""type":"string","maxContains":1"#, #""a""#)
    #expect(found.count == 1)
    #expect(found.first?.keyword == "unsupported")
    #expect(found.first?.message.contains("'maxContains'") == true)
    #expect(found.first?.schemaPath == "t.schema.json#/maxContains")
    let nested = try Self.violations(#""properties":{"a":{"minContains":1}}"#, #"{"a":[]}"#)
    #expect(nested.first?.schemaPath == "t.schema.json#/properties/a/minContains")
    #expect(try Self.violations(#""format":"email""#, #""a""#).first?.keyword == "format")
    // The meta-check finds them where no instance reaches.
    var set = SchemaSet()
    try set.add(
      Self.document(#""$defs":{"unused":{"anyOf":[{"dependentRequired":{}}]}}"#),
      file: "t.schema.json")
    let problems = set.metaCheck()
    #expect(
      problems.map(\.schemaPath) == ["t.schema.json#/$defs/unused/anyOf/0/dependentRequired"],
      "\(problems)")
  }

  /// `$ref` resolves within a document and to a sibling file by its name, against the
  /// document's `$id`; one that leads nowhere is a violation and a meta-check problem.
  @Test func referencesResolve() throws {
    var set = SchemaSet()
    try set.add(
      Self.document(
        ##""$defs":{"x":{"type":"integer","minimum":1},"list":{"type":"array","items":{"$ref":"#/$defs/x"}}}"##,
        id: "https://menudeck.invalid/test/common.schema.json"),
      file: "dir/common.schema.json")
    try set.add(
      Self.document(
        ##""properties":{"a":{"description":"A","$ref":"common.schema.json#/$defs/list"},"b":{"$ref":"#/$defs/b"}},"$defs":{"b":{"description":"B","const":"b"}}"##,
        id: "https://menudeck.invalid/test/main.schema.json"),
      file: "dir/main.schema.json")
    func check(_ instance: String) throws -> [SchemaViolation] {
      set.validate(try JSONReader.parse(Array(instance.utf8), file: "i"), in: "main.schema.json")
    }
    #expect(try check(#"{"a":[1,2],"b":"b"}"#).isEmpty)
    let bad = try check(#"{"a":[1,0],"b":"c"}"#)
    #expect(bad.map(\.instancePath) == ["/a/1", "/b"], "\(bad)")
    #expect(bad.map(\.keyword) == ["minimum", "const"])
    #expect(bad.first?.schemaPath == "common.schema.json#/$defs/x/minimum")
    #expect(set.metaCheck().isEmpty, "\(set.metaCheck())")
    // A reference into a $defs entry of another file, as the output tests use them.
    let inner = set.validate(
      try JSONReader.parse(Array("[3]".utf8), file: "i"), against: "#/$defs/list",
      in: "common.schema.json")
    #expect(inner.isEmpty)

    var broken = SchemaSet()
    try broken.add(
      Self.document(#""properties":{"a":{"description":"d","$ref":"other.schema.json#/x"}}"#),
      file: "t.schema.json")
    let found = broken.validate(
      try JSONReader.parse(Array(#"{"a":1}"#.utf8), file: "i"), in: "t.schema.json")
    #expect(found.first?.keyword == "$ref")
    #expect(found.first?.message.contains("resolves to nothing") == true)
    #expect(broken.metaCheck().map(\.keyword) == ["$ref"])
  }

  /// The meta-check's other rules: the draft, `$id` at the root only, properties described,
  /// required properties of closed objects declared, shapes of keyword values.
  @Test func metaCheckFindsMalformedSchemas() throws {
    func problems(_ body: String, schema: String = SchemaSet.draft) throws -> [String] {
      var set = SchemaSet()
      try set.add(
        "{\"$schema\":\"\(schema)\",\"$id\":\"\(Self.id)\"," + body + "}", file: "t.schema.json")
      return set.metaCheck().map { "\($0.schemaPath) \($0.message)" }
    }
    #expect(try problems(#""type":"string""#).isEmpty)
    #expect(
      try problems(#""type":"string""#, schema: "http://json-schema.org/draft-07/schema#")
        .count == 1)
    #expect(try problems(#""items":{"$id":"x"}"#).count == 1)
    #expect(
      try problems(#""properties":{"a":{"type":"string"}}"#)
        == ["t.schema.json#/properties/a/description the property 'a' has no description"])
    #expect(
      try problems(
        #""properties":{"a":{"description":"d"}},"required":["a","b"],"additionalProperties":false"#
      ).count == 1)
    #expect(try problems(#""type":"text""#).count == 1)
    #expect(try problems(#""type":["string","string"]"#).count == 1)
    #expect(try problems(#""minItems":-1"#).count == 1)
    #expect(try problems(#""minimum":"0""#).count == 1)
    #expect(try problems(#""anyOf":[]"#).count == 1)
    #expect(try problems(#""pattern":"(""#).count == 1)
    #expect(try problems(#""enum":[]"#).count == 1)
  }

  /// CSV fields are typed by what their column allows: empty is null, numbers only where a
  /// number may be (a diner `007` stays a string), booleans only where a boolean may be.
  @Test func csvFieldsAreTypedByTheirColumn() {
    #expect(SchemaSet.typed("", ["string"]) == .null)
    #expect(SchemaSet.typed("007", ["string"]) == .string("007"))
    #expect(SchemaSet.typed("007", ["number"]) == .string("007"))
    #expect(SchemaSet.typed("1.5", ["number", "null"]) == .number(1.5, text: "1.5"))
    #expect(SchemaSet.typed("12", ["integer"]) == .number(12, text: "12"))
    #expect(SchemaSet.typed("2.5e-07", ["number"]) == .number(2.5e-07, text: "2.5e-07"))
    #expect(SchemaSet.typed("nan", ["number"]) == .string("nan"))
    #expect(SchemaSet.typed("true", ["boolean"]) == .bool(true))
    #expect(SchemaSet.typed("true", ["string"]) == .string("true"))
  }

  /// A CSV's header must match `$defs/header` and the order of the row schema's properties.
  @Test func csvHeaderIsChecked() throws {
    var set = SchemaSet()
    try set.add(
      Self.document(
        #""type":"object","properties":{"a":{"description":"d"},"b":{"description":"d"}},"$defs":{"header":{"prefixItems":[{"const":"a"},{"const":"b"}],"minItems":2,"items":false}}"#
      ), file: "t.schema.json")
    #expect(set.checkCSVHeader(["a", "b"], schemaFile: "t.schema.json").isEmpty)
    #expect(set.checkCSVHeader(["b", "a"], schemaFile: "t.schema.json").count == 3)
    #expect(set.checkCSVHeader(["a"], schemaFile: "t.schema.json").count == 1)
    #expect(set.checkCSVHeader(["a", "b", "c"], schemaFile: "t.schema.json").count == 2)
  }
}
