import DeckBase
import DeckCore
import Testing

@testable import DeckIO

/// The users file's fast path (UsersReaderFast.swift) against the general path, on random and
/// adversarial files in both formats: where the fast path reads a file it reads the same users,
/// and `UsersReader.parse` (fast path first) returns or throws exactly what the general path
/// alone does, duplicate ids included.
@Suite struct UsersReaderFastTests {
  enum Outcome: Equatable {
    case users([UserProfile])
    case error(DeckIOError)
  }

  static func general(_ bytes: [UInt8], _ format: DocumentFormat, _ delimiter: CSVDelimiter)
    -> Outcome
  {
    do throws(DeckIOError) {
      return .users(
        try UsersReader.parseGeneral(
          bytes, file: "u", format: format, delimiter: delimiter, collector: nil))
    } catch { return .error(error) }
  }

  static func parsed(_ bytes: [UInt8], _ format: DocumentFormat, _ delimiter: CSVDelimiter)
    -> Outcome
  {
    do throws(DeckIOError) {
      return .users(try UsersReader.parse(bytes, file: "u", format: format, delimiter: delimiter))
    } catch { return .error(error) }
  }

  /// Checks one file; returns whether the fast path read it.
  @discardableResult
  static func agree(_ bytes: [UInt8], _ format: DocumentFormat, _ delimiter: CSVDelimiter = .comma)
    -> Bool
  {
    let general = general(bytes, format, delimiter)
    let fast = UsersFastPath.users(bytes, format: format, delimiter: delimiter)
    if let fast {
      #expect(general == .users(fast), "\(String(decoding: bytes, as: UTF8.self))")
    }
    #expect(
      parsed(bytes, format, delimiter) == general, "\(String(decoding: bytes, as: UTF8.self))")
    // `check` (which collects every problem) must see the same users or the same first error.
    let checked = UsersReader.check(bytes, file: "u", format: format, delimiter: delimiter)
    switch general {
    case .users(let users): #expect(checked.users == users && checked.errors.isEmpty)
    case .error(let error): #expect(checked.users == nil && checked.errors.first == error)
    }
    return fast != nil
  }

  static let ids = [
    "u1", "u2", " u1 ", "U1", "", "  ", "caf\u{E9}", "cafe\u{301}", "d000001", "a,b", "a|b",
    "x\ty", "q\"q", "back\\slash", "\u{A0}nb", "user-with-a-rather-long-id-0001", "u1\u{7F}",
  ]
  static let listValues = ["Vegan", "vegan", " egg ", "", "Soy|Wheat", "É", "a;b", "x\ty"]

  static func pick<T>(_ values: [T], _ random: inout RandomStream) -> T {
    values[Int(random.next() % UInt64(values.count))]
  }

  static func jsonString(_ s: String) -> String {
    var out = "\""
    for c in s.unicodeScalars {
      switch c {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\t": out += "\\t"
      default: out.unicodeScalars.append(c)
      }
    }
    return out + "\""
  }

  static func randomJSON(_ random: inout RandomStream) -> String {
    let space = [" ", "", "\n", "\r\n", "\t"]
    var users: [String] = []
    for _ in 0..<Int(random.next() % 6) {
      var fields = ["\"id\": " + jsonString(pick(ids, &random))]
      for name in ["diets", "allergens", "disliked_categories"] where random.next() % 3 == 0 {
        let values = (0..<Int(random.next() % 4)).map { _ in jsonString(pick(listValues, &random)) }
        fields.append(
          "\"\(name)\":" + pick(space, &random) + "[" + values.joined(separator: ",") + "]")
      }
      switch random.next() % 12 {
      case 0: fields.removeFirst()  // no id
      case 1: fields.append("\"id\": \"again\"")  // a repeated key
      case 2: fields.append("\"diet\": []")  // an unknown field
      case 3: fields.append("\"diets\": null")
      case 4: fields[0] = "\"id\": 7"
      default: break
      }
      if random.next() % 2 == 0 { fields.shuffle(using: &random) }
      users.append("{" + fields.joined(separator: "," + pick(space, &random)) + "}")
    }
    var body =
      "[" + pick(space, &random) + users.joined(separator: "," + pick(space, &random)) + "]"
    switch random.next() % 10 {
    case 0: body = "{\"users\": " + body + "}"
    case 1: body = "{\"users\": " + body + ", \"x\": 1}"
    case 2: body = "\u{FEFF}" + body
    case 3: body += ","
    case 4: body = body.replacingOccurrences(of: "}]", with: "},]")
    default: break
    }
    return pick(space, &random) + body + pick(space, &random)
  }

  static func randomCSV(_ random: inout RandomStream, _ separator: String) -> String {
    var header = ["id", "diets", "allergens", "disliked_categories"]
    switch random.next() % 8 {
    case 0: header = ["id"]
    case 1: header.append("note")
    case 2: header.shuffle(using: &random)
    case 3: header[0] = " id"
    case 4: header.append("id")
    case 5: header = ["name", "diets"]
    default: break
    }
    var lines = [header.joined(separator: separator)]
    for _ in 0..<Int(random.next() % 6) {
      var row = header.map { name in
        name.contains("id")
          ? pick(ids, &random) : random.next() % 2 == 0 ? "" : pick(listValues, &random)
      }
      switch random.next() % 10 {
      case 0: row.append("")  // a field too many
      case 1: row[0] = "\"" + row[0] + "\""  // quoted
      default: break
      }
      lines.append(row.joined(separator: separator))
    }
    let ends = ["\n", "\r\n"]
    var text = lines.joined(separator: random.next() % 8 == 0 ? "\r\n" : "\n")
    switch random.next() % 6 {
    case 0: text += pick(ends, &random)
    case 1: text += "\n\n"
    case 2: text = text.replacingOccurrences(of: "\n", with: "\n\n")
    case 3: text = "\u{FEFF}" + text
    default: break
    }
    return text
  }

  /// One byte changed, inserted or removed, from bytes that matter to the readers.
  static func mutate(_ bytes: [UInt8], _ random: inout RandomStream) -> [UInt8] {
    let interesting = Array("\"\\,;|[]{}: \t\r\nAz0é".utf8) + [0, 0x7F, 0xFF]
    var b = bytes
    let at = b.isEmpty ? 0 : Int(random.next() % UInt64(b.count))
    switch random.next() % 3 {
    case 0 where !b.isEmpty: b[at] = pick(interesting, &random)
    case 1 where !b.isEmpty: b.remove(at: at)
    default: b.insert(pick(interesting, &random), at: at)
    }
    return b
  }

  @Test func randomJSONFilesReadTheSameOnBothPaths() {
    var random = RandomStream(seed: 2801)
    var fast = 0
    for _ in 0..<1500 {
      let bytes = Array(Self.randomJSON(&random).utf8)
      if Self.agree(bytes, .json) { fast += 1 }
      Self.agree(Self.mutate(bytes, &random), .json)
    }
    #expect(fast > 100)
  }

  @Test(arguments: [CSVDelimiter.comma, .semicolon, .tab])
  func randomCSVFilesReadTheSameOnBothPaths(delimiter: CSVDelimiter) {
    var random = RandomStream(seed: 2802 + UInt64(delimiter.byte))
    let separator = String(UnicodeScalar(delimiter.byte))
    var fast = 0
    for _ in 0..<1000 {
      let bytes = Array(Self.randomCSV(&random, separator).utf8)
      if Self.agree(bytes, .csv, delimiter) { fast += 1 }
      Self.agree(Self.mutate(bytes, &random), .csv, delimiter)
    }
    // Most random tables fall outside the shape (quotes, CRLF, a bad header); some must not.
    #expect(fast > 50)
  }

  @Test func duplicateIDsAreReportedByTheGeneralPathExactlyAsBefore() throws {
    let json = Array("{\"users\": [{\"id\": \"a\"},\n{\"id\": \"b\"},\n{\"id\": \" a\"}]}".utf8)
    #expect(UsersFastPath.users(json, format: .json, delimiter: .comma) == nil)
    #expect(
      Self.parsed(json, .json, .comma)
        == .error(
          .malformed(
            SourceLocation(file: "u", line: 3, column: 8),
            message: "duplicate user id 'a' (first used on line 1); ids must be unique")))
    let csv = Array("id\nb\na\nb\na\n".utf8)
    let checked = UsersReader.check(csv, file: "u", format: .csv)
    #expect(checked.users == nil)
    #expect(
      checked.errors.map(\.description) == [
        "u:4:1: duplicate user id 'b' (first used on line 2); ids must be unique",
        "u:5:1: duplicate user id 'a' (first used on line 3); ids must be unique",
      ])
    Self.agree(json, .json)
    Self.agree(csv, .csv)
  }

  @Test func theRealisticShapesTakeTheFastPath() {
    let ids = (0..<2000).map { "d" + String(1_000_000 + $0).dropFirst() }
    let json = "{\"users\": [" + ids.map { "{\"id\": \"\($0)\"}" }.joined(separator: ", ") + "]}"
    #expect(Self.agree(Array(json.utf8), .json))
    let csv = "id,diets,allergens,disliked_categories\n" + ids.map { "\($0),,,\n" }.joined()
    #expect(Self.agree(Array(csv.utf8), .csv))
    let lists = "id,diets,allergens\nu1,Vegan| VEGAN |,egg|soy\nu2,,\n"
    #expect(Self.agree(Array(lists.utf8), .csv))
    #expect(
      UsersFastPath.users(Array(lists.utf8), format: .csv, delimiter: .comma)
        == [
          UserProfile(id: "u1", diets: ["vegan"], allergens: ["egg", "soy"]), UserProfile(id: "u2"),
        ])
  }
}
