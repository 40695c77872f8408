import DeckBase

/// A minimal meta-check of the schemas: what the validator needs to trust them, short of the
/// whole draft 2020-12 meta-schema.
extension SchemaSet {
  /// Every problem of every document: an unknown keyword anywhere (also in branches no output
  /// reaches), `$schema` other than draft 2020-12, `$schema` or `$id` below a root, a keyword
  /// whose value has the wrong shape, a `$ref` that resolves to nothing, an unknown `type` or
  /// `format`, a pattern that does not compile, a `required` property missing from `properties`
  /// of a closed object, and a property without a `description` (its own, or its `$ref`
  /// target's) where it is declared: properties inside `allOf`, `anyOf`, `oneOf` and `not` only
  /// constrain ones declared above them, and need none.
  func metaCheck() -> [SchemaViolation] {
    var problems: [SchemaViolation] = []
    for (id, document) in documents.sorted(by: { $0.key < $1.key }) {
      let root = Location(document: id, pointer: "")
      if document["$schema"]?.stringValue != Self.draft {
        problems.append(problem(root, "$schema", "the root's $schema must be \(Self.draft)"))
      }
      walk(document, at: root, isRoot: true, inBranch: false, into: &problems)
    }
    return problems
  }

  /// Every `$ref` of every document, resolved: the documents each document uses.
  func references(of id: String) -> Set<String> {
    var out = Set<String>()
    func visit(_ v: JSONValue) {
      switch v.kind {
      case .object(let o):
        for m in o.members {
          if m.key == "$ref", let ref = m.value.stringValue {
            out.insert(resolve(ref, in: id).document)
          } else {
            visit(m.value)
          }
        }
      case .array(let a): a.forEach(visit)
      default: break
      }
    }
    if let document = documents[id] { visit(document) }
    return out
  }

  private func problem(_ at: Location, _ keyword: String, _ message: String) -> SchemaViolation {
    var location = at
    location.pointer += "/" + Self.pointerToken(keyword)
    return SchemaViolation(
      instancePath: "", keyword: keyword, schemaPath: location.description, message: message)
  }

  private func walk(
    _ schema: JSONValue, at location: Location, isRoot: Bool, inBranch: Bool,
    into problems: inout [SchemaViolation]
  ) {
    if case .bool = schema.kind { return }
    guard let o = schema.objectValue else {
      problems.append(
        SchemaViolation(
          instancePath: "", keyword: "schema", schemaPath: location.description,
          message: "a schema is an object or a boolean, not \(schema.typeDescription)"))
      return
    }
    func sub(_ tokens: String...) -> Location {
      var at = location
      for t in tokens { at.pointer += "/" + Self.pointerToken(t) }
      return at
    }
    func bad(_ keyword: String, _ message: String) {
      problems.append(problem(location, keyword, message))
    }
    func isCount(_ v: JSONValue) -> Bool {
      guard let d = v.doubleValue else { return false }
      return d >= 0 && d.rounded() == d
    }
    for member in o.members {
      let key = member.key
      let value = member.value
      switch key {
      case "$schema", "$id":
        if !isRoot { bad(key, "\(key) belongs at a document's root only") }
        if value.stringValue == nil { bad(key, "\(key) is not a string") }
      case "$comment", "title", "description":
        if value.stringValue == nil { bad(key, "\(key) is not a string") }
      case "format":
        if !Self.formats.contains(value.stringValue ?? "") {
          bad(key, "unsupported format (known: \(Self.formats.sorted()))")
        }
      case "$ref":
        guard let ref = value.stringValue else {
          bad(key, "$ref is not a string")
          continue
        }
        if self.schema(at: resolve(ref, in: location.document)) == nil {
          bad(key, "\(ref) resolves to nothing")
        }
      case "$defs", "properties":
        guard let defs = value.objectValue else {
          bad(key, "\(key) is not an object")
          continue
        }
        for m in defs.members {
          walk(m.value, at: sub(key, m.key), isRoot: false, inBranch: inBranch, into: &problems)
          if key == "properties" && !inBranch && !hasDescription(m.value, in: location.document) {
            problems.append(
              problem(sub(key, m.key), "description", "the property '\(m.key)' has no description"))
          }
        }
      case "additionalProperties", "propertyNames", "items", "not":
        walk(
          value, at: sub(key), isRoot: false, inBranch: inBranch || key == "not", into: &problems)
      case "prefixItems", "allOf", "anyOf", "oneOf":
        guard let branches = value.arrayValue, !branches.isEmpty else {
          bad(key, "\(key) is not a non-empty array")
          continue
        }
        for (n, branch) in branches.enumerated() {
          walk(
            branch, at: sub(key, String(n)), isRoot: false,
            inBranch: inBranch || key != "prefixItems", into: &problems)
        }
      case "type":
        let names =
          value.stringValue.map { [$0] } ?? (value.arrayValue ?? []).compactMap(\.stringValue)
        if names.isEmpty || !names.allSatisfy(Self.typeNames.contains)
          || (value.arrayValue.map { $0.count != names.count || Set(names).count != names.count }
            ?? false)
        {
          bad(key, "type is not a type name or a list of distinct ones")
        }
      case "enum":
        if (value.arrayValue ?? []).isEmpty { bad(key, "enum is not a non-empty array") }
      case "const":
        break
      case "required":
        guard let names = value.arrayValue?.compactMap(\.stringValue),
          names.count == value.arrayValue?.count, Set(names).count == names.count
        else {
          bad(key, "required is not a list of distinct strings")
          continue
        }
        if case .bool(false)? = o["additionalProperties"]?.kind {
          let known = o["properties"]?.objectValue
          for name in names where known?[name] == nil {
            bad(key, "'\(name)' is required but not among the properties of a closed object")
          }
        }
      case "minItems", "maxItems", "minLength", "maxLength":
        if !isCount(value) { bad(key, "\(key) is not a whole number 0 or more") }
      case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
        if value.doubleValue == nil { bad(key, "\(key) is not a number") }
      case "pattern":
        guard let source = value.stringValue, (try? Regex(source)) != nil else {
          bad(key, "the pattern is not a string that compiles")
          continue
        }
      default:
        problems.append(
          SchemaViolation(
            instancePath: "", keyword: "unsupported", schemaPath: sub(key).description,
            message: "the validator does not know the keyword '\(key)'"))
      }
    }
  }

  /// Whether `schema` has a description, or is a `$ref` to one that has.
  private func hasDescription(_ schema: JSONValue, in document: String, depth: Int = 0) -> Bool {
    guard depth < 64, let o = schema.objectValue else { return false }
    if o["description"] != nil { return true }
    guard let ref = o["$ref"]?.stringValue else { return false }
    let location = resolve(ref, in: document)
    guard let target = self.schema(at: location) else { return false }
    return hasDescription(target, in: location.document, depth: depth + 1)
  }
}
