import DeckBase
import DeckIO

/// CSV outputs against the schema of one row.
///
/// A CSV schema (`*.csv.schema.json`) describes one row as an object, column name to value, with
/// the columns as `properties` in the order of the header, and the header itself as
/// `$defs/header` (an array of the column names). A row is read for its schema as a JSON object:
/// an empty field is `null`; a field whose column may be a number (`type` `number` or `integer`)
/// and that is a JSON number is that number; `true` and `false` in a column that may be a boolean
/// are booleans; anything else is the string.
extension SchemaSet {
  struct CSVRows {
    var header: [String]
    var rows: [JSONValue]
  }

  /// The rows of `bytes` (a CSV output read as `file`), typed by the row schema `schemaFile`.
  func csvRows(_ bytes: [UInt8], file: String, schemaFile: String) throws -> CSVRows {
    let table = try CSVParser.parse(bytes, file: file)
    let id = idsByFile[schemaFile] ?? schemaFile
    let properties = documents[id].flatMap { objectSchema($0, in: id) }
    let types: [Set<String>] = table.header.map { column in
      guard let (o, doc) = properties, let sub = o["properties"]?[column] else { return [] }
      return self.types(of: sub, in: doc)
    }
    let fileNumber = JSONSourceNames.number(file)
    let rows = table.records.map { record in
      let position = JSONPosition(file: fileNumber, line: record.line, column: nil)
      let members = zip(table.header, record.fields).enumerated().map { n, pair in
        JSONObject.Member(
          key: pair.0, keyPosition: position,
          value: JSONValue(Self.typed(pair.1, types[n]), at: position))
      }
      return JSONValue(.object(JSONObject(members: members)), at: position)
    }
    return CSVRows(header: table.header, rows: rows)
  }

  /// A CSV field as the JSON value its column's `types` read it as.
  static func typed(_ field: String, _ types: Set<String>) -> JSONValue.Kind {
    if field.isEmpty { return .null }
    if types.contains("number") || types.contains("integer"),
      let value = try? JSONReader.parse(Array(field.utf8), file: ""),
      case .number = value.kind
    {
      return value.kind
    }
    if types.contains("boolean") && (field == "true" || field == "false") {
      return .bool(field == "true")
    }
    return .string(field)
  }

  /// What is wrong with a CSV output's `header` for the schema `schemaFile`: it must be valid
  /// against the schema's `$defs/header`, and its columns must be properties of the row schema,
  /// in the order of `properties` (a column the header may leave out may be missing).
  func checkCSVHeader(_ header: [String], schemaFile: String) -> [String] {
    let position = JSONPosition(file: 0, line: 1, column: nil)
    let value = JSONValue(.array(header.map { JSONValue(.string($0), at: position) }), at: position)
    var problems = validate(value, against: "#/$defs/header", in: schemaFile).map {
      "header \(header): \($0)"
    }
    let id = idsByFile[schemaFile] ?? schemaFile
    guard let root = documents[id], let (o, _) = objectSchema(root, in: id),
      let keys = o["properties"]?.objectValue?.keys
    else {
      return problems + ["\(schemaFile): the root is not an object schema with properties"]
    }
    let order = header.compactMap { keys.firstIndex(of: $0) }
    if order.count != header.count || order != order.sorted() {
      problems.append(
        "header \(header) is not in the order of the schema's properties \(keys) (\(schemaFile))")
    }
    return problems
  }
}
