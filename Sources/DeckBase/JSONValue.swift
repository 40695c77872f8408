/// A JSON value with the place it starts in its input: the one JSON tree of menudeck (config,
/// catalogs, users, plugin replies).
///
/// Produced by ``JSONReader``. Objects keep their members in document order; a key appears at most
/// once (the parser rejects duplicates). Numbers keep the text they were written with so that
/// error messages can quote it exactly.
package struct JSONValue: Sendable, Equatable {
  package enum Kind: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The value as a `Double` and the number exactly as written (e.g. `1.50`, `2e3`); the text
    /// is empty when read in the protocol-line dialect, which does not keep it.
    case number(Double, text: String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
  }

  package var kind: Kind
  /// Where the value starts: file, 1-based line and column (column in Unicode scalars).
  package var location: SourceLocation

  package init(_ kind: Kind, at location: SourceLocation) {
    self.kind = kind
    self.location = location
  }

  package var line: Int { location.line }
  package var column: Int { location.column ?? 1 }

  /// The kind of value with its article, for messages: "null", "a boolean", "a number",
  /// "a string", "an array", "an object".
  package var typeDescription: String {
    switch kind {
    case .null: return "null"
    case .bool: return "a boolean"
    case .number: return "a number"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "an object"
    }
  }

  package var isNull: Bool {
    if case .null = kind { return true }
    return false
  }
  package var stringValue: String? {
    if case .string(let s) = kind { return s }
    return nil
  }
  package var doubleValue: Double? {
    if case .number(let d, _) = kind { return d }
    return nil
  }
  /// The number as written in the file, if this is a number.
  package var numberText: String? {
    if case .number(_, let text) = kind { return text }
    return nil
  }
  package var boolValue: Bool? {
    if case .bool(let b) = kind { return b }
    return nil
  }
  package var arrayValue: [JSONValue]? {
    if case .array(let a) = kind { return a }
    return nil
  }
  package var objectValue: JSONObject? {
    if case .object(let o) = kind { return o }
    return nil
  }

  /// The member `key` when this is an object that has it.
  package subscript(key: String) -> JSONValue? { objectValue?[key] }
}

/// The members of a JSON object, in document order, with unique keys.
package struct JSONObject: Sendable, Equatable {
  package struct Member: Sendable, Equatable {
    package var key: String
    /// Where the key (its opening quote) is.
    package var keyLocation: SourceLocation
    package var value: JSONValue

    package init(key: String, keyLocation: SourceLocation, value: JSONValue) {
      self.key = key
      self.keyLocation = keyLocation
      self.value = value
    }
  }

  package let members: [Member]
  private let indexByKey: [String: Int]

  /// Members with unique keys (a repeated key keeps its last value; the reader never builds such
  /// an object).
  package init(members: [Member]) {
    var index: [String: Int] = [:]
    for (n, m) in members.enumerated() { index[m.key] = n }
    self.members = members
    self.indexByKey = index
  }

  /// Members whose keys are known to be unique, with their index by key (used by the reader).
  package init(members: [Member], indexByKey: [String: Int]) {
    self.members = members
    self.indexByKey = indexByKey
  }

  package var keys: [String] { members.map(\.key) }
  package var count: Int { members.count }

  package subscript(key: String) -> JSONValue? {
    guard let n = indexByKey[key] else { return nil }
    return members[n].value
  }

  /// The member named `key`, with its key location.
  package func member(_ key: String) -> Member? {
    guard let n = indexByKey[key] else { return nil }
    return members[n]
  }

  package static func == (a: JSONObject, b: JSONObject) -> Bool { a.members == b.members }
}
