import DeckBase

// MARK: - Typed access with located errors

extension JSONValue {
  /// An error at this value's location.
  package func error(_ message: String) -> DeckIOError {
    .malformed(location, message: message)
  }

  /// An error at this value's location, which is the value of `field` (for the JSON
  /// diagnostics' `field`; the text form reads "file:line:column: field: message").
  package func error(_ message: String, field: String) -> DeckIOError {
    var location = self.location
    location.field = field
    return .malformed(location, message: message)
  }

  func typeError(expected: String, for what: String) -> DeckIOError {
    error("expected \(expected) for \(what), got \(typeDescription)")
  }

  /// "expected a string, got a number" at this value, the value of `field`.
  func typeError(expected: String, field: String) -> DeckIOError {
    error("expected \(expected), got \(typeDescription)", field: field)
  }

  /// This value as an object; `what` names it in the error ("the catalog", "item 3").
  package func requireObject(_ what: String) throws(DeckIOError) -> JSONObject {
    guard let o = objectValue else { throw typeError(expected: "an object", for: what) }
    return o
  }
  package func requireArray(_ what: String) throws(DeckIOError) -> [JSONValue] {
    guard let a = arrayValue else { throw typeError(expected: "an array", for: what) }
    return a
  }
  package func requireString(_ what: String) throws(DeckIOError) -> String {
    guard let s = stringValue else { throw typeError(expected: "a string", for: what) }
    return s
  }
  package func requireNumber(_ what: String) throws(DeckIOError) -> Double {
    guard let d = doubleValue else { throw typeError(expected: "a number", for: what) }
    return d
  }
  package func requireBool(_ what: String) throws(DeckIOError) -> Bool {
    guard let b = boolValue else {
      throw typeError(expected: "true or false", for: what)
    }
    return b
  }

  /// This value, the value of `field`, as an object (an array, a string, ...); a value of
  /// another type is an error that names the field.
  package func requireObject(field: String) throws(DeckIOError) -> JSONObject {
    guard let o = objectValue else { throw typeError(expected: "an object", field: field) }
    return o
  }
  package func requireArray(field: String) throws(DeckIOError) -> [JSONValue] {
    guard let a = arrayValue else { throw typeError(expected: "an array", field: field) }
    return a
  }
  package func requireString(field: String) throws(DeckIOError) -> String {
    guard let s = stringValue else { throw typeError(expected: "a string", field: field) }
    return s
  }
  package func requireNumber(field: String) throws(DeckIOError) -> Double {
    guard let d = doubleValue else { throw typeError(expected: "a number", field: field) }
    return d
  }
  package func requireBool(field: String) throws(DeckIOError) -> Bool {
    guard let b = boolValue else { throw typeError(expected: "true or false", field: field) }
    return b
  }

  /// This value, an element of the array of `field`, as a string: "expected a string for each
  /// entry, got a number", at the element, naming the field.
  package func requireString(entryOf field: String) throws(DeckIOError) -> String {
    guard let s = stringValue else {
      throw error("expected a string for each entry, got \(typeDescription)", field: field)
    }
    return s
  }

  private func fields() throws(DeckIOError) -> JSONObject {
    guard let o = objectValue else { throw error("expected an object, got \(typeDescription)") }
    return o
  }

  /// The member `key`, which must be present (it may be null).
  package func value(at key: String) throws(DeckIOError) -> JSONValue {
    guard let v = try fields()[key] else { throw error("missing required field '\(key)'") }
    return v
  }

  /// The member `key`, or nil when it is absent or null.
  package func optionalValue(at key: String) throws(DeckIOError) -> JSONValue? {
    guard let v = try fields()[key], !v.isNull else { return nil }
    return v
  }

  /// A required string field: "expected a string, got an array" at the value, naming the field.
  package func string(at key: String) throws(DeckIOError) -> String {
    try value(at: key).requireString(field: key)
  }
  /// A string field that may be absent or null.
  package func optionalString(at key: String) throws(DeckIOError) -> String? {
    try optionalValue(at: key)?.requireString(field: key)
  }
  package func number(at key: String) throws(DeckIOError) -> Double {
    try value(at: key).requireNumber(field: key)
  }
  package func optionalNumber(at key: String) throws(DeckIOError) -> Double? {
    try optionalValue(at: key)?.requireNumber(field: key)
  }
  package func bool(at key: String) throws(DeckIOError) -> Bool {
    try value(at: key).requireBool(field: key)
  }
  package func optionalBool(at key: String) throws(DeckIOError) -> Bool? {
    try optionalValue(at: key)?.requireBool(field: key)
  }
  package func array(at key: String) throws(DeckIOError) -> [JSONValue] {
    try value(at: key).requireArray(field: key)
  }
  package func optionalArray(at key: String) throws(DeckIOError) -> [JSONValue]? {
    try optionalValue(at: key)?.requireArray(field: key)
  }
  package func object(at key: String) throws(DeckIOError) -> JSONValue {
    let v = try value(at: key)
    _ = try v.requireObject(field: key)
    return v
  }
  package func optionalObject(at key: String) throws(DeckIOError) -> JSONValue? {
    guard let v = try optionalValue(at: key) else { return nil }
    _ = try v.requireObject(field: key)
    return v
  }

  /// An array of strings; absent or null gives []. Each element must be a string:
  /// "expected a string for each entry, got a number" at the element, naming the field.
  package func stringArray(at key: String) throws(DeckIOError) -> [String] {
    guard let items = try optionalArray(at: key) else { return [] }
    var out: [String] = []
    out.reserveCapacity(items.count)
    for v in items { out.append(try v.requireString(entryOf: key)) }
    return out
  }

  /// The elements of a document that is either an array or an object whose only key is `key`
  /// holding that array (`[...]` or `{"items": [...]}`), as catalogs and users files may be.
  package func listOrWrapped(
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
  package func rejectUnknownKeys(allowed: [String], in what: String) throws(DeckIOError) {
    for m in try fields().members where !allowed.contains(m.key) {
      throw .malformed(
        m.keyLocation,
        message: "unknown field '\(m.key)' in \(what)\(didYouMean(m.key, allowed)); known fields: "
          + allowed.joined(separator: ", "))
    }
  }
}
