import DeckBase
import Foundation
import Testing

/// The schemas of docs/schemas, read once for every test.
enum OutputSchemas {
  static let directory = CLITest.repoRoot + "/docs/schemas"

  static let loaded: Result<SchemaSet, any Error> = Result {
    try SchemaSet.load(directory: directory)
  }

  /// Every schema file's name, sorted.
  static func fileNames() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: directory)
      .filter { $0.hasSuffix(".schema.json") }.sorted()
  }
}

/// Validates outputs against the schemas of docs/schemas (by file name) and records each
/// violation as a test issue naming the output, the instance's JSON pointer and the keyword. It
/// keeps the names of the schemas it used, so that a test can show which ones it covers.
struct SchemaChecker {
  let set: SchemaSet
  private(set) var used: Set<String> = []
  /// The most violations written out per output (the rest are counted).
  var shown = 8

  init() throws {
    set = try OutputSchemas.loaded.get()
  }

  /// A JSON document: standard output of a `--format json` run, or a file.
  mutating func document(
    _ bytes: [UInt8], _ schema: String, _ what: String,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) {
    used.insert(schema)
    let value: JSONValue
    do {
      value = try JSONReader.parse(bytes, file: what)
    } catch {
      Issue.record("\(what) is not JSON: \(error)", sourceLocation: sourceLocation)
      return
    }
    report(set.validate(value, in: schema), what, schema, sourceLocation)
  }

  /// JSON Lines, each line against `schema`; returns how many lines there were.
  @discardableResult
  mutating func lines(
    _ bytes: [UInt8], _ schema: String, _ what: String,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) -> Int {
    used.insert(schema)
    let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
    for (n, line) in lines.enumerated() {
      let name = "\(what) line \(n + 1)"
      do {
        let value = try JSONReader.parse(Array(line), file: name)
        report(set.validate(value, in: schema), name, schema, sourceLocation)
      } catch {
        Issue.record("\(name) is not JSON: \(error)", sourceLocation: sourceLocation)
      }
    }
    return lines.count
  }

  /// A CSV output: its header against the schema's `$defs/header` and the order of its
  /// properties, each row (typed, see `SchemaSet.csvRows`) against the schema; returns how many
  /// rows there were.
  @discardableResult
  mutating func csv(
    _ bytes: [UInt8], _ schema: String, _ what: String,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) -> Int {
    used.insert(schema)
    let table: SchemaSet.CSVRows
    do {
      table = try set.csvRows(bytes, file: what, schemaFile: schema)
    } catch {
      Issue.record("\(what) is not CSV: \(error)", sourceLocation: sourceLocation)
      return 0
    }
    for problem in set.checkCSVHeader(table.header, schemaFile: schema) {
      Issue.record("\(what): \(problem)", sourceLocation: sourceLocation)
    }
    for row in table.rows {
      report(set.validate(row, in: schema), "\(what) line \(row.line)", schema, sourceLocation)
    }
    return table.rows.count
  }

  private func report(
    _ violations: [SchemaViolation], _ what: String, _ schema: String,
    _ sourceLocation: Testing.SourceLocation
  ) {
    guard !violations.isEmpty else { return }
    var text = "\(what) breaks \(schema):\n"
    text += violations.prefix(shown).map { "  \($0)" }.joined(separator: "\n")
    if violations.count > shown { text += "\n  ... \(violations.count - shown) more" }
    Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
  }
}
