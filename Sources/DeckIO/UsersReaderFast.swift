import DeckCore

// The users file's fast path: the common shape of a users file (ASCII ids and lists, no escapes,
// no quoted CSV fields) read straight from the bytes into profiles, without a JSON tree, a CSV
// table or a dictionary of strings; the duplicate check is a `ByteIndex`. Anything outside that
// shape, and any problem at all (a syntax error, an empty id, a repeated id), makes it give up
// (nil) and `UsersReader` reads the file again on its general path, which reports exactly as
// before. So the fast path never decides an error; it only has to agree with the general path on
// the files it accepts (UsersReaderFastTests compares the two on random and adversarial files).
//
// Inside the shape, the only white space a string or field can hold is the space (control bytes
// and bytes from 0x80 up are outside it), so trimming an id is trimming spaces; lists go through
// the general path's `splitList` and `normalisedList`.

enum UsersFastPath {
  /// The users of `bytes`, or nil when the file is outside the fast path's shape or has any
  /// problem.
  static func users(_ bytes: [UInt8], format: DocumentFormat, delimiter: CSVDelimiter)
    -> [UserProfile]?
  {
    let users = bytes.withUnsafeBufferPointer { b -> [UserProfile]? in
      switch format {
      case .json:
        var scanner = FastUsersJSON(b: b)
        return scanner.document()
      case .csv:
        var scanner = FastUsersCSV(b: b, separator: delimiter.byte)
        return scanner.table()
      }
    }
    guard let users else { return nil }
    var ids = ByteIndex(capacity: users.count)
    for user in users where !ids.insert(user.id).inserted { return nil }
    return users
  }

  /// `b[range]` without leading and trailing spaces, as a string.
  static func trimmed(_ b: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
    var lo = range.lowerBound
    var hi = range.upperBound
    while lo < hi && b[lo] == 0x20 { lo += 1 }
    while hi > lo && b[hi - 1] == 0x20 { hi -= 1 }
    return String(decoding: UnsafeBufferPointer(rebasing: b[lo..<hi]), as: UTF8.self)
  }

  /// A list field, normalised as the general path does.
  static func list(_ values: [String]) -> [String] {
    values.isEmpty ? [] : normalisedList(values)
  }
}

/// A users file in JSON within the fast path's shape: `[...]` or `{"users": [...]}`, users with
/// the four known fields at most once each, string values and arrays of strings.
private struct FastUsersJSON {
  let b: UnsafeBufferPointer<UInt8>
  var i = 0

  mutating func document() -> [UserProfile]? {
    skipSpace()
    var users: [UserProfile]?
    if i < b.count && b[i] == UInt8(ascii: "{") {
      i += 1
      guard let key = string(), equals(key, "users"), take(":") else { return nil }
      users = array()
      guard users != nil, take("}") else { return nil }
    } else {
      users = array()
    }
    skipSpace()
    return i == b.count ? users : nil
  }

  mutating func array() -> [UserProfile]? {
    guard take("[") else { return nil }
    var users: [UserProfile] = []
    if take("]") { return users }
    while true {
      guard let user = user() else { return nil }
      users.append(user)
      if take(",") { continue }
      return take("]") ? users : nil
    }
  }

  mutating func user() -> UserProfile? {
    guard take("{") else { return nil }
    var id: String?
    var lists: [[String]?] = [nil, nil, nil]
    while true {
      guard let key = string(), take(":") else { return nil }
      if equals(key, "id") {
        guard id == nil, let value = string() else { return nil }
        id = UsersFastPath.trimmed(b, value)
      } else {
        let field =
          equals(key, "diets")
          ? 0 : equals(key, "allergens") ? 1 : equals(key, "disliked_categories") ? 2 : -1
        guard field >= 0, lists[field] == nil, let values = strings() else { return nil }
        lists[field] = values
      }
      if take(",") { continue }
      guard take("}"), let id, !id.isEmpty else { return nil }
      return UserProfile(
        id: id, diets: UsersFastPath.list(lists[0] ?? []),
        allergens: UsersFastPath.list(lists[1] ?? []),
        dislikedCategories: UsersFastPath.list(lists[2] ?? []))
    }
  }

  /// An array of strings, each as it is.
  mutating func strings() -> [String]? {
    guard take("[") else { return nil }
    var out: [String] = []
    if take("]") { return out }
    while true {
      guard let s = string() else { return nil }
      out.append(String(decoding: UnsafeBufferPointer(rebasing: b[s]), as: UTF8.self))
      if take(",") { continue }
      return take("]") ? out : nil
    }
  }

  /// The range of a string's bytes between its quotes: printable ASCII without a backslash.
  mutating func string() -> Range<Int>? {
    skipSpace()
    guard i < b.count && b[i] == UInt8(ascii: "\"") else { return nil }
    i += 1
    let start = i
    while i < b.count {
      let c = b[i]
      if c == UInt8(ascii: "\"") {
        i += 1
        return start..<(i - 1)
      }
      if c == UInt8(ascii: "\\") || c < 0x20 || c >= 0x80 { return nil }
      i += 1
    }
    return nil
  }

  func equals(_ range: Range<Int>, _ text: StaticString) -> Bool {
    guard range.count == text.utf8CodeUnitCount else { return false }
    let p = text.utf8Start
    for (n, at) in range.enumerated() where b[at] != p[n] { return false }
    return true
  }

  /// Skips white space, then takes `c` if it is next.
  mutating func take(_ c: Unicode.Scalar) -> Bool {
    skipSpace()
    guard i < b.count && b[i] == UInt8(ascii: c) else { return false }
    i += 1
    return true
  }

  mutating func skipSpace() {
    while i < b.count {
      switch b[i] {
      case 0x20, 0x0A, 0x0D, 0x09: i += 1
      default: return
      }
    }
  }
}

/// A users file in CSV within the fast path's shape: a header of plain names (letters, digits,
/// `_`) naming `id` once and no name twice, LF line ends, no quotes, no blank line, every row as
/// many fields as the header.
private struct FastUsersCSV {
  let b: UnsafeBufferPointer<UInt8>
  let separator: UInt8
  var i = 0
  var fields: [Range<Int>] = []

  mutating func table() -> [UserProfile]? {
    guard b.count > 0, line() else { return nil }
    var names: [String] = []
    for f in fields {
      guard !f.isEmpty, b[f].allSatisfy(Self.isNameByte) else { return nil }
      names.append(String(decoding: UnsafeBufferPointer(rebasing: b[f]), as: UTF8.self))
    }
    guard Set(names).count == names.count, let idColumn = names.firstIndex(of: "id") else {
      return nil
    }
    let columns = ["diets", "allergens", "disliked_categories"].map { names.firstIndex(of: $0) }
    let width = names.count
    var users: [UserProfile] = []
    while i < b.count {
      guard line(), fields.count == width else { return nil }
      let id = UsersFastPath.trimmed(b, fields[idColumn])
      guard !id.isEmpty else { return nil }
      let lists = columns.map { column -> [String] in
        guard let column, !fields[column].isEmpty else { return [] }
        let cell = String(decoding: UnsafeBufferPointer(rebasing: b[fields[column]]), as: UTF8.self)
        return UsersFastPath.list(splitList(cell))
      }
      users.append(
        UserProfile(id: id, diets: lists[0], allergens: lists[1], dislikedCategories: lists[2]))
    }
    return users
  }

  /// Reads one line's fields into `fields`; false when it is blank or outside the shape.
  mutating func line() -> Bool {
    fields.removeAll(keepingCapacity: true)
    var start = i
    while i < b.count {
      let c = b[i]
      if c == separator {
        fields.append(start..<i)
        start = i + 1
      } else if c == 0x0A {
        break
      } else if c < 0x20 || c >= 0x80 || c == UInt8(ascii: "\"") {
        return false
      }
      i += 1
    }
    fields.append(start..<i)
    let blank = fields.count == 1 && fields[0].isEmpty
    if i < b.count { i += 1 }
    return !blank
  }

  static func isNameByte(_ c: UInt8) -> Bool {
    switch c {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
      true
    default: false
    }
  }
}
