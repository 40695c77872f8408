import Synchronization

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
  /// Where the value starts, packed (see ``JSONPosition``).
  package var position: JSONPosition

  package init(_ kind: Kind, at position: JSONPosition) {
    self.kind = kind
    self.position = position
  }

  /// Where the value starts: file, 1-based line and column (column in Unicode scalars).
  package var location: SourceLocation { position.location }

  /// The value, named as read from `file` when it was read without a file name.
  package func naming(_ file: String) -> JSONValue {
    guard location.file.isEmpty else { return self }
    return JSONValue(kind, at: position.naming(file))
  }

  package var line: Int { location.line }
  package var column: Int { location.column ?? 1 }

  // The accessors are inlinable: called from another module on an array element, a getter that
  // is not inlined is handed a copy of the element (a plugin's reply has millions of them).

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

  @inlinable package var isNull: Bool {
    if case .null = kind { return true }
    return false
  }
  @inlinable package var stringValue: String? {
    if case .string(let s) = kind { return s }
    return nil
  }
  @inlinable package var doubleValue: Double? {
    if case .number(let d, _) = kind { return d }
    return nil
  }
  /// The number as written in the file, if this is a number.
  @inlinable package var numberText: String? {
    if case .number(_, let text) = kind { return text }
    return nil
  }
  @inlinable package var boolValue: Bool? {
    if case .bool(let b) = kind { return b }
    return nil
  }
  @inlinable package var arrayValue: [JSONValue]? {
    if case .array(let a) = kind { return a }
    return nil
  }
  @inlinable package var objectValue: JSONObject? {
    if case .object(let o) = kind { return o }
    return nil
  }

  /// When this is an array: the values of its elements up to the first that is not a number, and
  /// the index of that one (nil when all are numbers). Read here, where the elements are visible
  /// in place: a loop in another module copies each element out of the array first, which cost
  /// more than reading the number (a plugin's rank reply has millions).
  package func numberElements() -> (values: [Double], firstNonNumber: Int?)? {
    guard case .array(let elements) = kind else { return nil }
    var values: [Double] = []
    values.reserveCapacity(elements.count)
    for k in elements.indices {
      guard case .number(let d, _) = elements[k].kind else { return (values, k) }
      values.append(d)
    }
    return (values, nil)
  }

  /// The member `key` when this is an object that has it.
  package subscript(key: String) -> JSONValue? { objectValue?[key] }
}

/// The members of a JSON object, in document order, with unique keys.
package struct JSONObject: Sendable, Equatable {
  package struct Member: Sendable, Equatable {
    package var key: String
    /// Where the key (its opening quote) is.
    package var keyPosition: JSONPosition
    package var value: JSONValue

    package init(key: String, keyPosition: JSONPosition, value: JSONValue) {
      self.key = key
      self.keyPosition = keyPosition
      self.value = value
    }

    package var keyLocation: SourceLocation { keyPosition.location }
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

/// Where a JSON value or key starts, in 12 bytes: the file as a number (``JSONSourceNames``),
/// the line and the column. A tree holds one per value, and a plugin's rank reply has millions
/// of values: a ``SourceLocation`` (56 bytes) in each made every value 88 bytes, and building
/// and freeing the tree moved five times the memory of the values themselves.
///
/// Lines and columns past 4,294,967,295 are told as that number (a JSON document that long is
/// over 4 GB; no input of menudeck reaches it).
package struct JSONPosition: Sendable, Equatable {
  private let file: UInt32
  private let line: UInt32
  /// 0 when unknown (a protocol line's values carry the line's position only).
  private let column: UInt32

  package init(file: UInt32, line: Int, column: Int?) {
    self.file = file
    self.line = UInt32(clamping: line)
    self.column = column.map { UInt32(clamping: max($0, 1)) } ?? 0
  }

  /// The same place in `name`.
  package func naming(_ name: String) -> JSONPosition {
    JSONPosition(
      file: JSONSourceNames.number(name), line: Int(line), column: column == 0 ? nil : Int(column))
  }

  package var location: SourceLocation {
    SourceLocation(
      file: JSONSourceNames.name(file), line: Int(line), column: column == 0 ? nil : Int(column))
  }
}

/// The names of the inputs that JSON trees were read from, each given a number once: a value
/// keeps the number (4 bytes) instead of the name. The table only grows, by one entry per
/// distinct name a process reads (a run reads a handful of files).
package enum JSONSourceNames {
  private struct Table {
    var numbers: [String: UInt32] = [:]
    var names: [String] = []
  }
  private static let table = Mutex(Table())

  /// The number of `name`, given on first use.
  package static func number(_ name: String) -> UInt32 {
    table.withLock { t in
      if let n = t.numbers[name] { return n }
      // Past 2^32 distinct names every further one shares the last number (never reached: a
      // process would need more memory for the names than it has).
      guard t.names.count < Int(UInt32.max) else { return UInt32.max - 1 }
      let n = UInt32(t.names.count)
      t.names.append(name)
      t.numbers[name] = n
      return n
    }
  }

  package static func name(_ number: UInt32) -> String {
    table.withLock { t in Int(number) < t.names.count ? t.names[Int(number)] : "" }
  }
}
