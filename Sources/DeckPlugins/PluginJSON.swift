import DeckBase
import DeckCore

/// The JSON of the plugin protocol: replies are read by the shared parser (DeckBase's
/// `JSONReader`) in its protocol-line dialect, and messages are written by DeckBase's
/// `JSONWriter`, the one writer.
///
/// Not `JSONSerialization`/`Codable`: rank replies carry millions of numbers in a large run, and
/// a plugin written in Python emits `NaN` and `Infinity` by default, which must be reported as a
/// non-finite score (a clear fault) rather than as malformed JSON.
enum PluginJSON {
  /// Parses one JSON text (one protocol line, without its newline). Accepts `NaN`, `Infinity`
  /// and `-Infinity` as numbers. Throws a short description of the first problem.
  static func parse(_ bytes: [UInt8]) throws(PluginJSONError) -> JSONValue {
    do {
      return try JSONReader.parse(bytes, file: "reply", dialect: .protocolLine)
    } catch {
      throw PluginJSONError(message: error.message, offset: error.offset)
    }
  }
}

/// Why a line is not JSON: the message and the byte offset.
struct PluginJSONError: Error, Equatable {
  let message: String
  let offset: Int
}

extension JSONValue {
  /// The value as compact JSON text, for messages (object keys sorted; `NaN` as `nan`).
  var text: String {
    var w = JSONWriter()
    w.value(self, quoting: true)
    return w.text
  }
}

extension JSONWriter {
  /// A day as "YYYY-MM-DD", or `null` for none.
  mutating func optionalDate(_ day: Int32?) {
    string(day.map { DeckDate(daysSinceEpoch: $0).description })
  }
}
