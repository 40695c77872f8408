import DeckBase
import Foundation

/// Where an instance breaks a schema: the JSON pointer of the value in the instance (`""` for the
/// whole document), the keyword that failed and the place of that keyword in the schemas
/// (`file#/json/pointer`).
struct SchemaViolation: Sendable, Equatable, CustomStringConvertible {
  var instancePath: String
  var keyword: String
  var schemaPath: String
  var message: String

  var description: String {
    (instancePath.isEmpty ? "(root)" : instancePath) + ": \(keyword): \(message) (schema "
      + schemaPath + ")"
  }
}

/// A validator of JSON Schema draft 2020-12 for the tests, which knows exactly the keywords the
/// schemas of docs/schemas use and refuses every other one, so that a schema is never half
/// checked: an unknown keyword is a violation (keyword `unsupported`) wherever it is met, and
/// `metaCheck()` finds it in every schema before any output is validated.
///
/// Known: `$schema`, `$id` (the meta-check wants both at a document's root only), `$ref`
/// (`#/json/pointer` in the same document, or `file.schema.json#/pointer`, resolved against the
/// document's `$id`: a sibling file when the `$id` is a file name, as in docs/schemas), `$defs`, `$comment`, `title`, `description`, `format` (an annotation: `date` and
/// `date-time` only, never asserted), `type` (a name or a list; `integer` is a number without a
/// fraction), `enum`, `const`, `properties`, `required`, `additionalProperties`, `propertyNames`,
/// `items`, `prefixItems`, `minItems`, `maxItems`, `minimum`, `maximum`, `exclusiveMinimum`,
/// `exclusiveMaximum`, `minLength`, `maxLength` (counted in Unicode scalars), `pattern` (Swift's
/// `Regex`, searched for as ECMA-262 does, so a pattern anchors itself with `^...$`), `allOf`,
/// `anyOf`, `oneOf`, `not`, and the boolean schemas `true` and `false`.
///
/// Schemas are read with menudeck's own JSON parser (`JSONReader`), so duplicate keys in a schema
/// are errors.
struct SchemaSet: Sendable {
  static let draft = "https://json-schema.org/draft/2020-12/schema"

  static let formats: Set<String> = ["date", "date-time"]
  static let typeNames: Set<String> = [
    "null", "boolean", "object", "array", "number", "integer", "string",
  ]

  struct LoadError: Error, CustomStringConvertible {
    var description: String
  }

  /// The documents by their `$id`, and the `$id` of each by its file name.
  private(set) var documents: [String: JSONValue] = [:]
  private(set) var idsByFile: [String: String] = [:]

  init() {}

  /// Adds the schema `bytes` read from `file` (its last path component names it in `idsByFile`)
  /// and returns its `$id`.
  @discardableResult
  mutating func add(_ bytes: [UInt8], file: String) throws -> String {
    let value = try JSONReader.parse(bytes, file: file)
    guard let id = value["$id"]?.stringValue else {
      throw LoadError(description: "\(file): a schema document needs a string $id")
    }
    guard documents[id] == nil else {
      throw LoadError(description: "\(file): $id \(id) is already taken")
    }
    documents[id] = value
    idsByFile[(file as NSString).lastPathComponent] = id
    return id
  }

  mutating func add(_ text: String, file: String) throws {
    try add(Array(text.utf8), file: file)
  }

  /// Every `*.schema.json` of `directory`.
  static func load(directory: String) throws -> SchemaSet {
    var set = SchemaSet()
    let names = try FileManager.default.contentsOfDirectory(atPath: directory)
      .filter { $0.hasSuffix(".schema.json") }.sorted()
    for name in names {
      let path = directory + "/" + name
      try set.add(Array(try Data(contentsOf: URL(fileURLWithPath: path))), file: path)
    }
    return set
  }

  // MARK: - References

  /// A schema found by reference: the document it is in and the pointer to it.
  struct Location: Sendable, Hashable, CustomStringConvertible {
    var document: String
    var pointer: String

    var description: String {
      let file = document.split(separator: "/").last.map(String.init) ?? document
      return file + "#" + pointer
    }
  }

  /// The absolute form of `reference` made in the document `base`: a fragment alone stays in
  /// `base`, a file name is a sibling of `base`; an `http(s)` reference is taken as it is.
  func resolve(_ reference: String, in base: String) -> Location {
    let parts = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
    let resource = String(parts[0])
    let fragment = parts.count > 1 ? String(parts[1]) : ""
    let document: String
    if resource.isEmpty {
      document = base
    } else if resource.contains("://") {
      document = resource
    } else if let slash = base.lastIndex(of: "/") {
      document = String(base[...slash]) + resource
    } else {
      document = resource
    }
    return Location(document: document, pointer: fragment)
  }

  /// The schema at `location`, or nil when its document or pointer leads nowhere.
  func schema(at location: Location) -> JSONValue? {
    guard var value = documents[location.document] else { return nil }
    if location.pointer.isEmpty { return value }
    guard location.pointer.hasPrefix("/") else { return nil }
    for token in location.pointer.dropFirst().split(
      separator: "/", omittingEmptySubsequences: false)
    {
      let key = token.replacingOccurrences(of: "~1", with: "/")
        .replacingOccurrences(of: "~0", with: "~")
      switch value.kind {
      case .object(let o):
        guard let next = o[key] else { return nil }
        value = next
      case .array(let a):
        guard let n = Int(key), a.indices.contains(n) else { return nil }
        value = a[n]
      default:
        return nil
      }
    }
    return value
  }

  /// The schema at `reference` (made in `document`, the `$id` of a file, or a file name).
  func schema(_ reference: String, in document: String) -> (JSONValue, Location)? {
    let base = idsByFile[document] ?? document
    let location = resolve(reference, in: base)
    return schema(at: location).map { ($0, location) }
  }

  // MARK: - Validation

  /// Every violation of `instance` against the schema at `reference` (a fragment, resolved in the
  /// document `document`: a `$id` or a file name such as `deck.json.schema.json`).
  func validate(_ instance: JSONValue, against reference: String = "#", in document: String)
    -> [SchemaViolation]
  {
    guard let (schema, location) = self.schema(reference, in: document) else {
      return [
        SchemaViolation(
          instancePath: "", keyword: "$ref", schemaPath: "\(document)\(reference)",
          message: "no schema at \(reference) in \(document)")
      ]
    }
    var run = ValidationRun(set: self)
    run.validate(instance, schema, at: location, path: "")
    return run.violations
  }

  // MARK: - Types

  /// The types a value valid against `schema` may have, as far as the CSV conversion and the
  /// id checks need them: the names in `type` and the types of `enum` and `const` values
  /// (`integer` for a whole number), collected through `$ref`, `allOf`, `anyOf` and `oneOf`.
  /// Empty when the schema says nothing about types.
  func types(of schema: JSONValue, in document: String, depth: Int = 0) -> Set<String> {
    guard depth < 64, let o = schema.objectValue else { return [] }
    var out = Set<String>()
    if let t = o["type"] {
      if let name = t.stringValue { out.insert(name) }
      for v in t.arrayValue ?? [] { if let name = v.stringValue { out.insert(name) } }
    }
    for v in (o["enum"]?.arrayValue ?? []) + (o["const"].map { [$0] } ?? []) {
      out.insert(Self.typeName(v))
    }
    if let ref = o["$ref"]?.stringValue {
      let location = resolve(ref, in: document)
      if let target = self.schema(at: location) {
        out.formUnion(types(of: target, in: location.document, depth: depth + 1))
      }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
      for branch in o[key]?.arrayValue ?? [] {
        out.formUnion(types(of: branch, in: document, depth: depth + 1))
      }
    }
    return out
  }

  /// The object schema `schema` is, after following `$ref`s: the one with `properties`.
  func objectSchema(_ schema: JSONValue, in document: String) -> (JSONObject, String)? {
    var current = schema
    var doc = document
    for _ in 0..<64 {
      guard let o = current.objectValue else { return nil }
      if o["properties"] != nil { return (o, doc) }
      guard let ref = o["$ref"]?.stringValue else { return nil }
      let location = resolve(ref, in: doc)
      guard let next = self.schema(at: location) else { return nil }
      current = next
      doc = location.document
    }
    return nil
  }

  /// `null`, `boolean`, `integer` (a number without a fraction), `number`, `string`, `array` or
  /// `object`.
  static func typeName(_ v: JSONValue) -> String {
    switch v.kind {
    case .null: return "null"
    case .bool: return "boolean"
    case .number(let d, _): return d.rounded(.towardZero) == d && d.isFinite ? "integer" : "number"
    case .string: return "string"
    case .array: return "array"
    case .object: return "object"
    }
  }

  /// JSON equality: numbers by value (`1` equals `1.0`), objects whatever their key order.
  static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a.kind, b.kind) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.number(let x, _), .number(let y, _)): return x == y
    case (.string(let x), .string(let y)): return x == y
    case (.array(let x), .array(let y)):
      return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
    case (.object(let x), .object(let y)):
      guard x.count == y.count else { return false }
      return x.members.allSatisfy { m in y[m.key].map { equal(m.value, $0) } ?? false }
    default: return false
    }
  }

  /// `token` escaped for a JSON pointer.
  static func pointerToken(_ token: String) -> String {
    token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
  }
}

/// One validation: the violations found so far, and the patterns compiled for it.
private struct ValidationRun {
  let set: SchemaSet
  var violations: [SchemaViolation] = []
  var patterns: [String: Regex<AnyRegexOutput>] = [:]
  var depth = 0

  init(set: SchemaSet) {
    self.set = set
  }

  mutating func fail(
    _ path: String, _ keyword: String, _ location: SchemaSet.Location, _ message: String
  ) {
    var at = location
    at.pointer += "/" + SchemaSet.pointerToken(keyword)
    violations.append(
      SchemaViolation(
        instancePath: path, keyword: keyword, schemaPath: at.description, message: message))
  }

  /// Whether `instance` is valid against `schema`, without keeping the violations (the branches
  /// of `anyOf`, `oneOf` and `not`).
  mutating func isValid(
    _ instance: JSONValue, _ schema: JSONValue, at location: SchemaSet.Location, path: String
  ) -> [SchemaViolation] {
    let saved = violations
    violations = []
    validate(instance, schema, at: location, path: path)
    let found = violations
    violations = saved
    return found
  }

  mutating func validate(
    _ instance: JSONValue, _ schema: JSONValue, at location: SchemaSet.Location, path: String
  ) {
    switch schema.kind {
    case .bool(true):
      return
    case .bool(false):
      violations.append(
        SchemaViolation(
          instancePath: path, keyword: "false", schemaPath: location.description,
          message: "no value is allowed here"))
      return
    case .object(let o):
      depth += 1
      defer { depth -= 1 }
      guard depth < 200 else {
        fail(path, "$ref", location, "references nest deeper than 200 (a loop?)")
        return
      }
      for member in o.members {
        keyword(member.key, member.value, of: o, instance, at: location, path: path)
      }
    default:
      violations.append(
        SchemaViolation(
          instancePath: path, keyword: "schema", schemaPath: location.description,
          message: "a schema is an object or a boolean, not \(schema.typeDescription)"))
    }
  }

  private func child(_ location: SchemaSet.Location, _ tokens: String...) -> SchemaSet.Location {
    var at = location
    for t in tokens { at.pointer += "/" + SchemaSet.pointerToken(t) }
    return at
  }

  private mutating func keyword(
    _ name: String, _ value: JSONValue, of schema: JSONObject, _ instance: JSONValue,
    at location: SchemaSet.Location, path: String
  ) {
    switch name {
    case "$schema", "$id", "$defs", "$comment", "title", "description":
      return
    case "format":
      if let f = value.stringValue, SchemaSet.formats.contains(f) { return }
      fail(path, "format", location, "unsupported format \(value.stringValue ?? "(not a string)")")
    case "$ref":
      guard let ref = value.stringValue else {
        return fail(path, "$ref", location, "$ref is not a string")
      }
      let target = set.resolve(ref, in: location.document)
      guard let resolved = set.schema(at: target) else {
        return fail(path, "$ref", location, "\(ref) resolves to nothing")
      }
      validate(instance, resolved, at: target, path: path)
    case "type":
      let names =
        value.stringValue.map { [$0] } ?? (value.arrayValue ?? []).compactMap(\.stringValue)
      let actual = SchemaSet.typeName(instance)
      let ok = names.contains(actual) || (actual == "integer" && names.contains("number"))
      if !ok {
        fail(
          path, "type", location,
          "\(instance.typeDescription) is not of type \(names.joined(separator: " or "))")
      }
    case "enum":
      let options = value.arrayValue ?? []
      if !options.contains(where: { SchemaSet.equal($0, instance) }) {
        fail(path, "enum", location, "\(Self.show(instance)) is not one of the allowed values")
      }
    case "const":
      if !SchemaSet.equal(value, instance) {
        fail(path, "const", location, "\(Self.show(instance)) is not \(Self.show(value))")
      }
    case "properties":
      guard let object = instance.objectValue, let properties = value.objectValue else { return }
      for member in object.members {
        guard let sub = properties[member.key] else { continue }
        validate(
          member.value, sub, at: child(location, "properties", member.key),
          path: path + "/" + SchemaSet.pointerToken(member.key))
      }
    case "required":
      guard let object = instance.objectValue else { return }
      for key in (value.arrayValue ?? []).compactMap(\.stringValue) where object[key] == nil {
        fail(path, "required", location, "the required property '\(key)' is missing")
      }
    case "additionalProperties":
      guard let object = instance.objectValue else { return }
      let known = schema["properties"]?.objectValue
      for member in object.members where known?[member.key] == nil {
        let memberPath = path + "/" + SchemaSet.pointerToken(member.key)
        if case .bool(false) = value.kind {
          fail(memberPath, "additionalProperties", location, "'\(member.key)' is not allowed here")
        } else {
          validate(
            member.value, value, at: child(location, "additionalProperties"), path: memberPath)
        }
      }
    case "propertyNames":
      guard let object = instance.objectValue else { return }
      for member in object.members {
        let key = JSONValue(.string(member.key), at: member.keyPosition)
        validate(
          key, value, at: child(location, "propertyNames"),
          path: path + "/" + SchemaSet.pointerToken(member.key))
      }
    case "prefixItems":
      guard let array = instance.arrayValue, let schemas = value.arrayValue else { return }
      for (n, (item, sub)) in zip(array, schemas).enumerated() {
        validate(item, sub, at: child(location, "prefixItems", String(n)), path: path + "/\(n)")
      }
    case "items":
      guard let array = instance.arrayValue else { return }
      let skip = schema["prefixItems"]?.arrayValue?.count ?? 0
      for n in array.indices where n >= skip {
        if case .bool(false) = value.kind {
          fail(path + "/\(n)", "items", location, "no item is allowed past position \(skip)")
        } else {
          validate(array[n], value, at: child(location, "items"), path: path + "/\(n)")
        }
      }
    case "minItems", "maxItems":
      guard let array = instance.arrayValue, let bound = value.doubleValue else { return }
      let ok = name == "minItems" ? Double(array.count) >= bound : Double(array.count) <= bound
      if !ok {
        fail(path, name, location, "\(array.count) items, \(name) is \(Text.number(bound))")
      }
    case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
      guard let x = instance.doubleValue, let bound = value.doubleValue else { return }
      let ok: Bool
      switch name {
      case "minimum": ok = x >= bound
      case "maximum": ok = x <= bound
      case "exclusiveMinimum": ok = x > bound
      default: ok = x < bound
      }
      if !ok { fail(path, name, location, "\(Self.show(instance)) breaks \(name) \(bound)") }
    case "minLength", "maxLength":
      guard let s = instance.stringValue, let bound = value.doubleValue else { return }
      let length = Double(s.unicodeScalars.count)
      if name == "minLength" ? length < bound : length > bound {
        fail(path, name, location, "\(Self.show(instance)) has \(Int(length)) characters")
      }
    case "pattern":
      guard let s = instance.stringValue else { return }
      guard let source = value.stringValue, let regex = compiled(source) else {
        return fail(path, "pattern", location, "the pattern does not compile")
      }
      if (try? regex.firstMatch(in: s)) == nil {
        fail(path, "pattern", location, "\(Self.show(instance)) does not match \(source)")
      }
    case "allOf":
      for (n, branch) in (value.arrayValue ?? []).enumerated() {
        validate(instance, branch, at: child(location, "allOf", String(n)), path: path)
      }
    case "anyOf", "oneOf":
      let branches = value.arrayValue ?? []
      var failures: [[SchemaViolation]] = []
      for (n, branch) in branches.enumerated() {
        failures.append(isValid(instance, branch, at: child(location, name, String(n)), path: path))
      }
      let passed = failures.filter(\.isEmpty).count
      if passed == 0 {
        let why = failures.enumerated().map { n, v in
          "branch \(n): " + (v.first.map(\.description) ?? "?")
        }
        fail(
          path, name, location,
          "matches none of the \(branches.count) branches (" + why.joined(separator: "; ") + ")")
      } else if name == "oneOf" && passed > 1 {
        fail(path, name, location, "matches \(passed) branches, oneOf allows exactly one")
      }
    case "not":
      if isValid(instance, value, at: child(location, "not"), path: path).isEmpty {
        fail(path, "not", location, "\(Self.show(instance)) matches the schema under not")
      }
    default:
      violations.append(
        SchemaViolation(
          instancePath: path, keyword: "unsupported",
          schemaPath: child(location, name).description,
          message: "the validator does not know the keyword '\(name)'"))
    }
  }

  private mutating func compiled(_ source: String) -> Regex<AnyRegexOutput>? {
    if let r = patterns[source] { return r }
    guard let r = try? Regex(source) else { return nil }
    patterns[source] = r
    return r
  }

  /// A value for a message: short JSON-like text.
  static func show(_ v: JSONValue) -> String {
    switch v.kind {
    case .null: return "null"
    case .bool(let b): return b ? "true" : "false"
    case .number(let d, let text): return text.isEmpty ? Text.number(d) : text
    case .string(let s): return JSONText.string(s.count > 60 ? String(s.prefix(60)) + "…" : s)
    case .array(let a): return "an array of \(a.count)"
    case .object: return "an object"
    }
  }
}
