/// A JSON value with the place it starts in its input: the one JSON tree of menudeck (config,
/// catalogs, users, plugin replies).
///
/// Produced by ``JSONReader``. Objects keep their members in document order; a key appears at most
/// once (the parser rejects duplicates). Numbers keep the text they were written with so that
/// error messages can quote it exactly.
public struct JSONValue: Sendable, Equatable {
  public enum Kind: Sendable, Equatable {
    case null
    case bool(Bool)
    /// The value as a `Double` and the number exactly as written (e.g. `1.50`, `2e3`); the text
    /// is empty when read in the protocol-line dialect, which does not keep it.
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

  /// Members with unique keys (a repeated key keeps its last value; the reader never builds such
  /// an object).
  public init(members: [Member]) {
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
