import DeckBase
import DeckIO
import Foundation
import Testing

/// The schemas of docs/schemas themselves: each one well formed for the validator, used by an
/// output test, listed in the folder's README, with ids typed as strings; and the validator
/// rejects real outputs once they are broken.
struct SchemaFilesTests {
  /// Every schema passes the meta-check: known keywords only, every `$ref` resolves, every
  /// property described.
  @Test func everySchemaPassesTheMetaCheck() throws {
    let set = try OutputSchemas.loaded.get()
    let names = try OutputSchemas.fileNames()
    #expect(names.count == set.documents.count)
    #expect(Set(set.idsByFile.keys) == Set(names))
    for (file, id) in set.idsByFile {
      #expect(id == file, "\(file) has the $id \(id), not its file name")
    }
    let problems = set.metaCheck()
    #expect(problems.isEmpty, "\(problems.map(\.description).joined(separator: "\n"))")
  }

  /// No schema rots: each one is validated against by an output test, or referred to by one
  /// that is (common.schema.json).
  @Test func everySchemaIsUsedByAnOutputTest() throws {
    let set = try OutputSchemas.loaded.get()
    let names = try OutputSchemas.fileNames()
    let tested = OutputSchemaTests.Output.allCases.reduce(into: Set<String>()) {
      $0.formUnion($1.schemas)
    }
    #expect(tested.isSubset(of: Set(names)), "\(tested.subtracting(names)) are not files")
    var reached = Set(tested.compactMap { set.idsByFile[$0] })
    var queue = Array(reached)
    while let id = queue.popLast() {
      for next in set.references(of: id) where !reached.contains(next) {
        reached.insert(next)
        queue.append(next)
      }
    }
    let unused = names.filter { !reached.contains(set.idsByFile[$0] ?? "") }
    #expect(unused.isEmpty, "schemas no output test uses: \(unused)")
  }

  /// The names of properties that hold ids or names: wherever they are declared, their values
  /// are strings (or null), never numbers, so that a diner `007` or a dish `42` stays what it is.
  /// (Branches of `anyOf`, `oneOf`, `allOf` and `not` only narrow what is declared above them.)
  static let idProperties: Set<String> = [
    "user", "item", "diner", "id", "category", "strategy", "arm", "baseline", "identifier",
    "use", "name", "metric",
  ]

  @Test func idsAreStringsInEverySchema() throws {
    let set = try OutputSchemas.loaded.get()
    var checked = 0
    func visit(_ value: JSONValue, in document: String, at pointer: String) {
      switch value.kind {
      case .object(let o):
        for m in o.members {
          let here = pointer + "/" + SchemaSet.pointerToken(m.key)
          if m.key == "properties", let properties = m.value.objectValue {
            for p in properties.members where Self.idProperties.contains(p.key) {
              let types = set.types(of: p.value, in: document)
              #expect(
                types.contains("string") && types.isSubset(of: ["string", "null"]),
                "\(document)#\(here)/\(p.key) may be \(types.sorted())")
              checked += 1
            }
          }
          if !["anyOf", "oneOf", "allOf", "not"].contains(m.key) {
            visit(m.value, in: document, at: here)
          }
        }
      case .array(let a):
        for (n, v) in a.enumerated() { visit(v, in: document, at: pointer + "/\(n)") }
      default:
        break
      }
    }
    for (id, document) in set.documents { visit(document, in: id, at: "") }
    #expect(checked > 30)
  }

  /// The shared `run` definition (common.schema.json) is what `RunRecord` writes, with fields of
  /// a command's own beside it; one without `command` or with a bad hash is not.
  @Test func runRecordsMatchTheSharedDefinition() throws {
    let set = try OutputSchemas.loaded.get()
    let record = RunRecord(
      version: "0.1.0", command: "stats", arguments: ["menudeck", "stats", "-"],
      inputs: [
        RunInput(
          role: "catalog", path: "Data/catalog.json", sha256: String(repeating: "ab", count: 32)),
        RunInput(role: "history", path: "<stdin>", sha256: String(repeating: "0", count: 64)),
      ])
    func check(_ json: String) throws -> [SchemaViolation] {
      set.validate(
        try JSONReader.parse(Array(json.utf8), file: "run"), against: "#/$defs/run",
        in: "common.schema.json")
    }
    #expect(try check(record.json()) == [])
    var withSettings = record
    withSettings.settings = [.init("date", json: "\"2026-11-30\""), .init("seed", json: "7")]
    #expect(try check(withSettings.json()) == [])
    var bad = record
    bad.inputs[0].sha256 = "AB"
    #expect(try check(bad.json()).map(\.instancePath) == ["/inputs/0/sha256"])
    let noCommand = record.json().replacingOccurrences(of: "\"command\":\"stats\",", with: "")
    #expect(try check(noCommand).map(\.keyword) == ["required"])
  }

  /// docs/schemas/README.md lists every schema, and the manual links it.
  @Test func theReadmeListsEverySchema() throws {
    let readme = String(decoding: try CLITest.repoFile("docs/schemas/README.md"), as: UTF8.self)
    for name in try OutputSchemas.fileNames() {
      #expect(readme.contains("(\(name))"), "docs/schemas/README.md does not link \(name)")
    }
    let formats = String(decoding: try CLITest.repoFile("docs/output-formats.md"), as: UTF8.self)
    #expect(formats.contains("(schemas/README.md)"))
    let manual = String(decoding: try CLITest.repoFile("docs/README.md"), as: UTF8.self)
    #expect(manual.contains("(schemas/README.md)"))
  }

  // MARK: - Broken outputs fail

  /// A real output with one thing broken, and the violation it must give.
  struct Mutation: Sendable, CustomTestStringConvertible {
    enum Source: Sendable { case deckLine, deckDocument, stats, compare, swipeLine }
    var source: Source
    var path: [String]
    /// The new value as JSON text; nil removes the member.
    var value: String?
    var keyword: String
    var pointer: String

    var testDescription: String {
      "/" + path.joined(separator: "/") + (value.map { " = \($0)" } ?? " removed")
    }
  }

  static let mutations: [Mutation] = [
    Mutation(
      source: .deckLine, path: ["cards", "0", "item"], value: nil, keyword: "required",
      pointer: "/cards/0"),
    Mutation(
      source: .deckLine, path: ["cards", "0", "rank"], value: #""1""#, keyword: "type",
      pointer: "/cards/0/rank"),
    Mutation(
      source: .deckLine, path: ["cards", "0", "colour"], value: #""red""#,
      keyword: "additionalProperties", pointer: "/cards/0/colour"),
    Mutation(source: .deckLine, path: ["user"], value: "1", keyword: "type", pointer: "/user"),
    Mutation(
      source: .deckLine, path: ["date"], value: #""30/11/2026""#, keyword: "pattern",
      pointer: "/date"),
    Mutation(
      source: .deckDocument, path: ["run", "inputs", "0", "sha256"], value: #""abc""#,
      keyword: "pattern", pointer: "/run/inputs/0/sha256"),
    Mutation(
      source: .deckDocument, path: ["run", "seed"], value: "-1", keyword: "minimum",
      pointer: "/run/seed"),
    Mutation(source: .deckDocument, path: ["decks"], value: nil, keyword: "required", pointer: ""),
    Mutation(
      source: .stats, path: ["rows", "0", "like_rate"], value: "1.5", keyword: "maximum",
      pointer: "/rows/0/like_rate"),
    Mutation(
      source: .stats, path: ["rows", "0", "day"], value: #""yesterday""#, keyword: "pattern",
      pointer: "/rows/0/day"),
    Mutation(source: .compare, path: ["baseline"], value: nil, keyword: "required", pointer: ""),
    Mutation(
      source: .compare, path: ["metrics", "0", "form"], value: #""share""#, keyword: "enum",
      pointer: "/metrics/0/form"),
    Mutation(
      source: .compare, path: ["arms", "0", "estimates", "decks", "value"], value: #""6""#,
      keyword: "type", pointer: "/arms/0/estimates/decks/value"),
    Mutation(source: .swipeLine, path: ["dx"], value: "12.5", keyword: "oneOf", pointer: ""),
    Mutation(
      source: .swipeLine, path: ["swipe"], value: #""up""#, keyword: "enum", pointer: "/swipe"),
  ]

  /// The schema and a real output of each source.
  static func output(_ source: Mutation.Source) throws -> (JSONValue, String) {
    func first(_ run: CLIRun) throws -> [UInt8] {
      #expect(run.code == .success, "\(run.stderr)")
      return Array(try #require(run.stdoutBytes.split(separator: 0x0A).first))
    }
    let bytes: [UInt8]
    let schema: String
    switch source {
    case .deckLine:
      bytes = try first(
        CLIRun(["deck", "--date", "2026-11-30", "--user", "u01", "--format", "jsonl"]))
      schema = "deck.jsonl.schema.json"
    case .deckDocument:
      bytes =
        CLIRun(["deck", "--date", "2026-11-30", "--user", "u01", "--format", "json"])
        .stdoutBytes
      schema = "deck.json.schema.json"
    case .stats:
      bytes = CLIRun(["stats", "--format", "json"]).stdoutBytes
      schema = "stats.json.schema.json"
    case .compare:
      bytes =
        CLIRun(
          ["compare", "--resamples", "10", "--baseline", "random", "--format", "json"]
            + OutputSchemaTests.smallSimulation
        ).stdoutBytes
      schema = "compare.json.schema.json"
    case .swipeLine:
      let dir = try TempDir("menudeck-schemas")
      let run = CLIRun([
        "simulate", "--users", "4", "--days", "1", "--start", "2026-11-01", "--events",
        dir.file("e.jsonl"),
      ])
      #expect(run.code == .success, "\(run.stderr)")
      bytes = Array(
        try #require(try OutputSchemaTests.file(dir.file("e.jsonl")).split(separator: 0x0A).first))
      schema = "swipe-log.jsonl.schema.json"
    }
    return (try JSONReader.parse(bytes, file: "\(source)"), schema)
  }

  @Test(arguments: mutations)
  func brokenOutputsFail(_ mutation: Mutation) throws {
    let set = try OutputSchemas.loaded.get()
    let (value, schema) = try Self.output(mutation.source)
    #expect(set.validate(value, in: schema).isEmpty, "the output is not valid before the change")
    let new = try mutation.value.map { try JSONReader.parse(Array($0.utf8), file: "new") }
    let broken = value.replacing(mutation.path[...], with: new)
    #expect(broken != value)
    let found = set.validate(broken, in: schema)
    #expect(
      found.contains { $0.keyword == mutation.keyword && $0.instancePath == mutation.pointer },
      "expected \(mutation.keyword) at \(mutation.pointer), got \(found)")
  }

  /// CSV rows are checked by their column types: a diner or dish id made of digits is a string
  /// (valid), a score that is not a number is not; a header out of order fails.
  @Test func brokenCSVFails() throws {
    let set = try OutputSchemas.loaded.get()
    let header = "user,date,strategy,seed,rank,item,name,category,score\n"
    func rows(_ text: String) throws -> [[SchemaViolation]] {
      let table = try set.csvRows(
        Array(text.utf8), file: "t.csv", schemaFile: "deck.csv.schema.json")
      return table.rows.map { set.validate($0, in: "deck.csv.schema.json") }
    }
    #expect(try rows(header + "007,2026-11-30,affinity,1,1,42,Name,soup,0.5\n") == [[]])
    let bad = try rows(header + "u01,2026-11-30,affinity,1,1,miso,Name,soup,high\n")
    #expect(bad.first?.map(\.keyword) == ["type"])
    #expect(bad.first?.first?.instancePath == "/score")
    let missing = try rows(header + "u01,2026-11-30,affinity,1,,miso,Name,soup,0.5\n")
    #expect(missing.first?.first?.instancePath == "/rank")
    #expect(
      !set.checkCSVHeader(
        ["date", "user", "strategy", "seed", "rank", "item", "name", "category", "score"],
        schemaFile: "deck.csv.schema.json"
      ).isEmpty)
  }
}

extension JSONValue {
  /// This value with the member or element at `path` (object keys, array indices) set to `new`,
  /// added when missing, or removed when `new` is nil.
  func replacing(_ path: ArraySlice<String>, with new: JSONValue?) -> JSONValue {
    guard let key = path.first else { return new ?? self }
    let rest = path.dropFirst()
    switch kind {
    case .object(let o):
      var members = o.members
      if let n = members.firstIndex(where: { $0.key == key }) {
        if rest.isEmpty && new == nil {
          members.remove(at: n)
        } else {
          members[n].value = members[n].value.replacing(rest, with: new)
        }
      } else if rest.isEmpty, let new {
        members.append(JSONObject.Member(key: key, keyPosition: position, value: new))
      }
      return JSONValue(.object(JSONObject(members: members)), at: position)
    case .array(var a):
      guard let n = Int(key), a.indices.contains(n) else { return self }
      if rest.isEmpty && new == nil {
        a.remove(at: n)
      } else {
        a[n] = a[n].replacing(rest, with: new)
      }
      return JSONValue(.array(a), at: position)
    default:
      return self
    }
  }
}
