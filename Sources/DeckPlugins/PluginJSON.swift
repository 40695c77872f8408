import DeckBase
import DeckCore

/// The JSON of the plugin protocol: replies are read by the shared parser (DeckBase's
/// `JSONReader`) in its protocol-line dialect, and messages are written by `PluginJSONWriter`
/// with the shared escaper and number form.
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
  /// The value as compact JSON text, for messages (object keys sorted).
  var text: String {
    var w = PluginJSONWriter()
    w.value(self)
    return String(decoding: w.bytes, as: UTF8.self)
  }
}

/// Appends JSON text to a byte buffer (one protocol line is built in one buffer).
struct PluginJSONWriter {
  var bytes: [UInt8] = []

  init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

  mutating func raw(_ text: StaticString) {
    bytes.append(
      contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
  }

  mutating func string(_ s: String) { JSONText.append(s, to: &bytes) }

  mutating func int<T: BinaryInteger>(_ v: T) { bytes.append(contentsOf: String(v).utf8) }

  /// A finite number (callers never write NaN or infinity).
  mutating func double(_ v: Double) { bytes.append(contentsOf: Text.number(v).utf8) }

  mutating func strings(_ list: [String]) {
    bytes.append(UInt8(ascii: "["))
    for (k, s) in list.enumerated() {
      if k > 0 { bytes.append(UInt8(ascii: ",")) }
      string(s)
    }
    bytes.append(UInt8(ascii: "]"))
  }

  /// A day as "YYYY-MM-DD", or `null` for none.
  mutating func optionalDate(_ day: Int32?) {
    if let day {
      string(DeckDate(daysSinceEpoch: day).description)
    } else {
      raw("null")
    }
  }

  /// A parsed value, numbers in the writer's form and object keys sorted (so that a value
  /// written twice gives the same bytes).
  mutating func value(_ v: JSONValue) {
    switch v.kind {
    case .null: raw("null")
    case .bool(let b): b ? raw("true") : raw("false")
    case .number(let d, _): double(d)
    case .string(let s): string(s)
    case .array(let a):
      bytes.append(UInt8(ascii: "["))
      for (k, e) in a.enumerated() {
        if k > 0 { bytes.append(UInt8(ascii: ",")) }
        value(e)
      }
      bytes.append(UInt8(ascii: "]"))
    case .object(let o):
      bytes.append(UInt8(ascii: "{"))
      for (k, key) in o.keys.sorted().enumerated() {
        if k > 0 { bytes.append(UInt8(ascii: ",")) }
        string(key)
        bytes.append(UInt8(ascii: ":"))
        value(o[key]!)
      }
      bytes.append(UInt8(ascii: "}"))
    }
  }
}
