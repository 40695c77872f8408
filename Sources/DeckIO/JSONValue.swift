import DeckStrategies

/// A JSON value with the place it starts in its file.
///
/// Produced by ``JSONParser``. Objects keep their members in document order; a key appears at most
/// once (the parser rejects duplicates). Numbers keep the text they were written with so that
/// error messages can quote it exactly.
public struct JSONValue: Sendable, Equatable {
  public enum Kind: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The value as a `Double` and the number exactly as written (e.g. `1.50`, `2e3`).
    case number(Double, text: String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)
  }

  public var kind: Kind
  /// Where the value starts: file, 1-based line and column (column in Unicode scalars).
  public var location: SourceLocation

  public init(_ kind: Kind, at location: SourceLocation) {
    self.kind = kind
    self.location = location
  }

  public var line: Int { location.line }
  public var column: Int { location.column ?? 1 }

  /// The kind of value with its article, for messages: "null", "a boolean", "a number",
  /// "a string", "an array", "an object".
  public var typeDescription: String {
    switch kind {
    case .null: return "null"
    case .bool: return "a boolean"
    case .number: return "a number"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "an object"
    }
  }

  public var isNull: Bool {
    if case .null = kind { return true }
    return false
  }
  public var stringValue: String? {
    if case .string(let s) = kind { return s }
    return nil
  }
  public var doubleValue: Double? {
    if case .number(let d, _) = kind { return d }
    return nil
  }
  /// The number as written in the file, if this is a number.
  public var numberText: String? {
    if case .number(_, let text) = kind { return text }
    return nil
  }
  public var boolValue: Bool? {
    if case .bool(let b) = kind { return b }
    return nil
  }
  public var arrayValue: [JSONValue]? {
    if case .array(let a) = kind { return a }
    return nil
  }
  public var objectValue: JSONObject? {
    if case .object(let o) = kind { return o }
    return nil
  }

  /// The member `key` when this is an object that has it.
  public subscript(key: String) -> JSONValue? { objectValue?[key] }
}

/// The members of a JSON object, in document order, with unique keys.
public struct JSONObject: Sendable, Equatable {
  public struct Member: Sendable, Equatable {
    public var key: String
    /// Where the key (its opening quote) is.
    public var keyLocation: SourceLocation
    public var value: JSONValue

    public init(key: String, keyLocation: SourceLocation, value: JSONValue) {
      self.key = key
      self.keyLocation = keyLocation
      self.value = value
    }
  }

  public let members: [Member]
  private let indexByKey: [String: Int]

  /// Members with unique keys (a repeated key keeps its last value; the parser never builds such
  /// an object).
  public init(members: [Member]) {
    var index: [String: Int] = [:]
    for (n, m) in members.enumerated() { index[m.key] = n }
    self.members = members
    self.indexByKey = index
  }

  /// Members whose keys are known to be unique, with their index by key (used by the parser).
  init(members: [Member], indexByKey: [String: Int]) {
    self.members = members
    self.indexByKey = indexByKey
  }

  public var keys: [String] { members.map(\.key) }
  public var count: Int { members.count }

  public subscript(key: String) -> JSONValue? {
    guard let n = indexByKey[key] else { return nil }
    return members[n].value
  }

  /// The member named `key`, with its key location.
  public func member(_ key: String) -> Member? {
    guard let n = indexByKey[key] else { return nil }
    return members[n]
  }

  public static func == (a: JSONObject, b: JSONObject) -> Bool { a.members == b.members }
}

// MARK: - Typed access with located errors

extension JSONValue {
  /// An error at this value's location.
  public func error(_ message: String) -> DeckIOError {
    .malformed(location, message: message)
  }

  func typeError(expected: String, for what: String) -> DeckIOError {
    error("expected \(expected) for \(what), got \(typeDescription)")
  }

  /// This value as an object; `what` names it in the error ("the catalog", "item 3").
  public func requireObject(_ what: String) throws(DeckIOError) -> JSONObject {
    guard let o = objectValue else { throw typeError(expected: "an object", for: what) }
    return o
  }
  public func requireArray(_ what: String) throws(DeckIOError) -> [JSONValue] {
    guard let a = arrayValue else { throw typeError(expected: "an array", for: what) }
    return a
  }
  public func requireString(_ what: String) throws(DeckIOError) -> String {
    guard let s = stringValue else { throw typeError(expected: "a string", for: what) }
    return s
  }
  public func requireNumber(_ what: String) throws(DeckIOError) -> Double {
    guard let d = doubleValue else { throw typeError(expected: "a number", for: what) }
    return d
  }
  public func requireBool(_ what: String) throws(DeckIOError) -> Bool {
    guard let b = boolValue else {
      throw typeError(expected: "true or false", for: what)
    }
    return b
  }

  private func fields() throws(DeckIOError) -> JSONObject {
    guard let o = objectValue else { throw error("expected an object, got \(typeDescription)") }
    return o
  }

  /// The member `key`, which must be present (it may be null).
  public func value(at key: String) throws(DeckIOError) -> JSONValue {
    guard let v = try fields()[key] else { throw error("missing required field '\(key)'") }
    return v
  }

  /// The member `key`, or nil when it is absent or null.
  public func optionalValue(at key: String) throws(DeckIOError) -> JSONValue? {
    guard let v = try fields()[key], !v.isNull else { return nil }
    return v
  }

  /// A required string field: "expected a string for field 'name', got an array".
  public func string(at key: String) throws(DeckIOError) -> String {
    try value(at: key).requireString("field '\(key)'")
  }
  /// A string field that may be absent or null.
  public func optionalString(at key: String) throws(DeckIOError) -> String? {
    try optionalValue(at: key)?.requireString("field '\(key)'")
  }
  public func number(at key: String) throws(DeckIOError) -> Double {
    try value(at: key).requireNumber("field '\(key)'")
  }
  public func optionalNumber(at key: String) throws(DeckIOError) -> Double? {
    try optionalValue(at: key)?.requireNumber("field '\(key)'")
  }
  public func bool(at key: String) throws(DeckIOError) -> Bool {
    try value(at: key).requireBool("field '\(key)'")
  }
  public func optionalBool(at key: String) throws(DeckIOError) -> Bool? {
    try optionalValue(at: key)?.requireBool("field '\(key)'")
  }
  public func array(at key: String) throws(DeckIOError) -> [JSONValue] {
    try value(at: key).requireArray("field '\(key)'")
  }
  public func optionalArray(at key: String) throws(DeckIOError) -> [JSONValue]? {
    try optionalValue(at: key)?.requireArray("field '\(key)'")
  }
  public func object(at key: String) throws(DeckIOError) -> JSONValue {
    let v = try value(at: key)
    _ = try v.requireObject("field '\(key)'")
    return v
  }
  public func optionalObject(at key: String) throws(DeckIOError) -> JSONValue? {
    guard let v = try optionalValue(at: key) else { return nil }
    _ = try v.requireObject("field '\(key)'")
    return v
  }

  /// An array of strings; absent or null gives []. Each element must be a string:
  /// "expected a string for an entry of 'tags', got a number" at the element.
  public func stringArray(at key: String) throws(DeckIOError) -> [String] {
    guard let items = try optionalArray(at: key) else { return [] }
    var out: [String] = []
    out.reserveCapacity(items.count)
    for v in items { out.append(try v.requireString("an entry of '\(key)'")) }
    return out
  }

  /// The elements of a document that is either an array or an object whose only key is `key`
  /// holding that array (`[...]` or `{"items": [...]}`), as catalogs and users files may be.
  public func listOrWrapped(
    key: String, of what: String, article: String = "a", in objectName: String
  ) throws(DeckIOError) -> [JSONValue] {
    switch kind {
    case .array(let a):
      return a
    case .object:
      try rejectUnknownKeys(allowed: [key], in: objectName)
      return try array(at: key)
    default:
      throw error(
        "expected an array of \(what) or an object with \(article) \"\(key)\" array, got "
          + typeDescription)
    }
  }

  /// Fails on the first key not in `allowed`, at that key, with a did-you-mean suggestion:
  /// "unknown field 'categroy' in an item (did you mean 'category'?); known fields: id, name, ...".
  public func rejectUnknownKeys(allowed: [String], in what: String) throws(DeckIOError) {
    for m in try fields().members where !allowed.contains(m.key) {
      throw .malformed(
        m.keyLocation,
        message: "unknown field '\(m.key)' in \(what)\(didYouMean(m.key, allowed)); known fields: "
          + allowed.joined(separator: ", "))
    }
  }
}
