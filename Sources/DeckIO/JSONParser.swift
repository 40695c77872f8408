import DeckBase

/// The JSON documents of DeckIO's readers (config, catalogs, users): DeckBase's `JSONReader` in
/// its document dialect (in the record dialect for one line of a JSON Lines file), with its
/// errors as this layer's `.malformed` at their line and column.
package enum JSONParser {
  /// The deepest nesting of arrays and objects accepted (the one limit of every JSON reader).
  package static let maxDepth = JSONReader.maxDepth

  /// Parses one JSON document. `file` is used in error locations.
  package static func parse(_ bytes: [UInt8], file: String) throws(DeckIOError) -> JSONValue {
    do {
      return try JSONReader.parse(bytes, file: file, dialect: .document)
    } catch {
      throw .malformed(error.location, message: error.message)
    }
  }

  /// Parses one line of a JSON Lines file (its line end removed): a document, but a carriage
  /// return not followed by a line feed is refused, as in every reader of line records.
  package static func parseRecord(_ bytes: [UInt8], file: String) throws(DeckIOError) -> JSONValue {
    do {
      return try JSONReader.parse(bytes, file: file, dialect: .record)
    } catch {
      throw .malformed(error.location, message: error.message)
    }
  }

  /// Parses one JSON document from text.
  package static func parse(_ text: String, file: String) throws(DeckIOError) -> JSONValue {
    try parse(Array(text.utf8), file: file)
  }
}
