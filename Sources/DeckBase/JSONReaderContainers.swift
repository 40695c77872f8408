/// Objects and arrays: members and elements, their separators, duplicate keys and depth.
extension JSONTreeReader {
  mutating func object() throws(JSONSyntaxError) -> JSONValue {
    let open = i
    let loc = position(open)
    try enter(open)
    i += 1
    var members: [JSONObject.Member] = []
    var indexByKey: [String: Int] = [:]
    try skipWhitespace()
    if i < b.count, b[i] == UInt8(ascii: "}") {
      i += 1
      depth -= 1
      return JSONValue(.object(JSONObject(members: [])), at: loc)
    }
    while true {
      try skipWhitespace()
      guard i < b.count, b[i] == Self.quote else {
        if i < b.count, b[i] == UInt8(ascii: "}"), !members.isEmpty {
          throw fail(
            at: i, "trailing comma before '}'; remove the last comma", short: "expected a key")
        }
        if i >= b.count { throw unclosed("object", "'}'", loc, short: "expected a key") }
        throw unexpected("a field name in double quotes", short: "expected a key")
      }
      let keyLoc = position(i)
      let key = try string()
      var duplicate: Int?
      if let n = indexByKey[key] {
        guard !dialect.refusesDuplicateKeys else {
          let first = members[n].keyLocation
          throw fail(
            at: keyLoc.location, offset: i,
            "duplicate field '\(key)' (first at line \(first.line), column "
              + "\(first.column ?? 1)); keep one of them")
        }
        duplicate = n
      }
      try skipWhitespace()
      guard i < b.count, b[i] == UInt8(ascii: ":") else {
        if i >= b.count { throw unclosed("object", "'}'", loc, short: "expected ':'") }
        throw unexpected("':' after field name '\(key)'", short: "expected ':'")
      }
      i += 1
      try skipWhitespace()
      if i >= b.count, dialect.explains { throw unclosed("object", "'}'", loc, short: "") }
      let v = try value()
      let member = JSONObject.Member(key: key, keyPosition: keyLoc, value: v)
      if let n = duplicate {
        members[n] = member  // the protocol dialect: the last value wins
      } else {
        indexByKey[key] = members.count
        members.append(member)
      }
      if try !another(in: "object", closedBy: "}", loc, after: "the value of '\(key)'") { break }
    }
    depth -= 1
    return JSONValue(.object(JSONObject(members: members, indexByKey: indexByKey)), at: loc)
  }

  mutating func array() throws(JSONSyntaxError) -> JSONValue {
    let open = i
    let loc = position(open)
    try enter(open)
    i += 1
    var elements: [JSONValue] = []
    try skipWhitespace()
    if i < b.count, b[i] == UInt8(ascii: "]") {
      i += 1
      depth -= 1
      return JSONValue(.array([]), at: loc)
    }
    while true {
      try skipWhitespace()
      if dialect.explains {
        guard i < b.count else { throw unclosed("array", "']'", loc, short: "") }
        if b[i] == UInt8(ascii: "]"), !elements.isEmpty {
          throw fail(at: i, "trailing comma before ']'; remove the last comma", short: "")
        }
      }
      // A number straight from here: the most common element (a rank reply's scores), and one
      // call and one copy of the value fewer than through `value()`.
      if i < b.count, b[i] >= UInt8(ascii: "0") && b[i] <= UInt8(ascii: "9") {
        elements.append(try number())
      } else {
        elements.append(try value())
      }
      if try !another(in: "array", closedBy: "]", loc, after: "an array element") { break }
    }
    depth -= 1
    return JSONValue(.array(elements), at: loc)
  }

  /// After a member of an object or an element of an array (`what`, opened at `position`):
  /// true past a ',' (another follows), false past its `closer` (it ends); anything else fails.
  @inline(__always)
  mutating func another(
    in what: String, closedBy closer: Unicode.Scalar, _ position: JSONPosition,
    after: @autoclosure () -> String
  ) throws(JSONSyntaxError) -> Bool {
    try skipWhitespace()
    guard i < b.count else {
      throw unclosed(what, "'\(closer)'", position, short: "unexpected end of line in an \(what)")
    }
    if b[i] == UInt8(ascii: ",") {
      i += 1
      return true
    }
    if b[i] == UInt8(ascii: closer) {
      i += 1
      return false
    }
    throw unexpected("',' or '\(closer)' after \(after())", short: "expected ',' or '\(closer)'")
  }

  mutating func unclosed(
    _ what: String, _ closer: String, _ position: JSONPosition, short: String
  ) -> JSONSyntaxError {
    let opened = position.location
    return fail(
      at: i,
      "unexpected end of the file; expected \(closer) to close the \(what) opened at line "
        + "\(opened.line), column \(opened.column ?? 1)", short: short)
  }
}
