import DeckCore
import Foundation

/// A JSON value of the plugin protocol.
///
/// The protocol has its own small reader and writer rather than `JSONSerialization`/`Codable`:
/// rank replies carry millions of numbers in a large run, and a plugin written in Python emits
/// `NaN` and `Infinity` by default, which must be reported as a non-finite score (a clear fault)
/// rather than as malformed JSON.
enum PluginJSON: Equatable, Sendable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([PluginJSON])
  case object([String: PluginJSON])

  subscript(key: String) -> PluginJSON? {
    if case .object(let o) = self { return o[key] }
    return nil
  }

  var string: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  var number: Double? {
    if case .number(let v) = self { return v }
    return nil
  }

  var array: [PluginJSON]? {
    if case .array(let a) = self { return a }
    return nil
  }

  /// The value as JSON text, for messages.
  var text: String {
    var w = PluginJSONWriter()
    w.value(self)
    return String(decoding: w.bytes, as: UTF8.self)
  }

  /// The name of the value's JSON type, for messages.
  var typeName: String {
    switch self {
    case .null: return "null"
    case .bool: return "a boolean"
    case .number: return "a number"
    case .string: return "a string"
    case .array: return "an array"
    case .object: return "an object"
    }
  }

  /// Parses one JSON text (one protocol line, without its newline). Accepts `NaN`, `Infinity`
  /// and `-Infinity` as numbers. Throws a short description of the first problem.
  static func parse(_ bytes: [UInt8]) throws(PluginJSONError) -> PluginJSON {
    var copy = bytes
    copy.append(0)  // strtod stops at the terminator
    return try copy.withUnsafeBufferPointer { buffer throws(PluginJSONError) in
      var parser = Parser(bytes: buffer, end: bytes.count)
      parser.skipSpace()
      let value = try parser.value(depth: 0)
      parser.skipSpace()
      guard parser.at == parser.end else { throw parser.error("extra text after the value") }
      return value
    }
  }
}

/// Why a line is not JSON: the message and the byte offset.
struct PluginJSONError: Error, Equatable {
  let message: String
  let offset: Int
}

private struct Parser {
  let bytes: UnsafeBufferPointer<UInt8>
  let end: Int
  var at = 0

  init(bytes: UnsafeBufferPointer<UInt8>, end: Int) {
    self.bytes = bytes
    self.end = end
  }

  func error(_ message: String) -> PluginJSONError { PluginJSONError(message: message, offset: at) }

  mutating func skipSpace() {
    while at < end {
      switch bytes[at] {
      case 0x20, 0x09, 0x0A, 0x0D: at += 1
      default: return
      }
    }
  }

  mutating func literal(_ word: StaticString) -> Bool {
    let n = word.utf8CodeUnitCount
    guard end - at >= n else { return false }
    let w = word.utf8Start
    for k in 0..<n where bytes[at + k] != w[k] { return false }
    at += n
    return true
  }

  mutating func value(depth: Int) throws(PluginJSONError) -> PluginJSON {
    guard depth < 64 else { throw error("nested too deeply") }
    guard at < end else { throw error("unexpected end of line") }
    switch bytes[at] {
    case UInt8(ascii: "{"):
      at += 1
      var object: [String: PluginJSON] = [:]
      skipSpace()
      if at < end, bytes[at] == UInt8(ascii: "}") {
        at += 1
        return .object(object)
      }
      while true {
        skipSpace()
        guard at < end, bytes[at] == UInt8(ascii: "\"") else { throw error("expected a key") }
        let key = try string()
        skipSpace()
        guard at < end, bytes[at] == UInt8(ascii: ":") else { throw error("expected ':'") }
        at += 1
        skipSpace()
        object[key] = try value(depth: depth + 1)
        skipSpace()
        guard at < end else { throw error("unexpected end of line in an object") }
        if bytes[at] == UInt8(ascii: ",") {
          at += 1
        } else if bytes[at] == UInt8(ascii: "}") {
          at += 1
          return .object(object)
        } else {
          throw error("expected ',' or '}'")
        }
      }
    case UInt8(ascii: "["):
      at += 1
      var array: [PluginJSON] = []
      skipSpace()
      if at < end, bytes[at] == UInt8(ascii: "]") {
        at += 1
        return .array(array)
      }
      while true {
        skipSpace()
        array.append(try value(depth: depth + 1))
        skipSpace()
        guard at < end else { throw error("unexpected end of line in an array") }
        if bytes[at] == UInt8(ascii: ",") {
          at += 1
        } else if bytes[at] == UInt8(ascii: "]") {
          at += 1
          return .array(array)
        } else {
          throw error("expected ',' or ']'")
        }
      }
    case UInt8(ascii: "\""):
      return .string(try string())
    case UInt8(ascii: "t"):
      if literal("true") { return .bool(true) }
    case UInt8(ascii: "f"):
      if literal("false") { return .bool(false) }
    case UInt8(ascii: "n"):
      if literal("null") { return .null }
    case UInt8(ascii: "N"):
      if literal("NaN") { return .number(.nan) }
    case UInt8(ascii: "I"):
      if literal("Infinity") { return .number(.infinity) }
    case UInt8(ascii: "-"):
      if literal("-Infinity") { return .number(-.infinity) }
      return try number()
    case UInt8(ascii: "0")...UInt8(ascii: "9"):
      return try number()
    default:
      break
    }
    throw error("expected a value")
  }

  mutating func number() throws(PluginJSONError) -> PluginJSON {
    let start = at
    if bytes[at] == UInt8(ascii: "-") { at += 1 }
    func digits(_ p: inout Parser) -> Int {
      let s = p.at
      while p.at < p.end, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(p.bytes[p.at]) {
        p.at += 1
      }
      return p.at - s
    }
    if at < end, bytes[at] == UInt8(ascii: "0") {
      at += 1  // no leading zeros: "01" is "0" followed by extra text
    } else {
      guard digits(&self) > 0 else { throw error("expected a digit") }
    }
    if at < end, bytes[at] == UInt8(ascii: ".") {
      at += 1
      guard digits(&self) > 0 else { throw error("expected a digit after '.'") }
    }
    if at < end, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
      at += 1
      if at < end, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
      guard digits(&self) > 0 else { throw error("expected a digit in the exponent") }
    }
    let base = bytes.baseAddress!
    let value = (base + start).withMemoryRebound(to: CChar.self, capacity: at - start) {
      strtod($0, nil)
    }
    return .number(value)
  }

  mutating func string() throws(PluginJSONError) -> String {
    at += 1  // opening quote
    var out: [UInt8] = []
    while at < end {
      let c = bytes[at]
      if c == UInt8(ascii: "\"") {
        at += 1
        return String(decoding: out, as: UTF8.self)
      }
      if c < 0x20 { throw error("control character in a string") }
      if c != UInt8(ascii: "\\") {
        out.append(c)
        at += 1
        continue
      }
      at += 1
      guard at < end else { break }
      let e = bytes[at]
      at += 1
      switch e {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
      case UInt8(ascii: "b"): out.append(0x08)
      case UInt8(ascii: "f"): out.append(0x0C)
      case UInt8(ascii: "n"): out.append(0x0A)
      case UInt8(ascii: "r"): out.append(0x0D)
      case UInt8(ascii: "t"): out.append(0x09)
      case UInt8(ascii: "u"):
        var scalar = try hex4()
        if (0xD800..<0xDC00).contains(scalar), end - at >= 6, bytes[at] == UInt8(ascii: "\\"),
          bytes[at + 1] == UInt8(ascii: "u")
        {
          at += 2
          let low = try hex4()
          guard (0xDC00..<0xE000).contains(low) else { throw error("bad surrogate pair") }
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let u = Unicode.Scalar(scalar) else { throw error("bad \\u escape") }
        out.append(contentsOf: Array(String(Character(u)).utf8))
      default:
        throw error("bad escape")
      }
    }
    throw error("unterminated string")
  }

  mutating func hex4() throws(PluginJSONError) -> UInt32 {
    guard end - at >= 4 else { throw error("bad \\u escape") }
    var v: UInt32 = 0
    for _ in 0..<4 {
      let c = bytes[at]
      let d: UInt8
      switch c {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
      default: throw error("bad \\u escape")
      }
      v = v << 4 | UInt32(d)
      at += 1
    }
    return v
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

  mutating func string(_ s: String) {
    bytes.append(UInt8(ascii: "\""))
    for c in s.utf8 {
      switch c {
      case UInt8(ascii: "\""): raw("\\\"")
      case UInt8(ascii: "\\"): raw("\\\\")
      case 0x0A: raw("\\n")
      case 0x0D: raw("\\r")
      case 0x09: raw("\\t")
      case 0..<0x20:
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        raw("\\u00")
        bytes.append(hex[Int(c >> 4)])
        bytes.append(hex[Int(c & 15)])
      default: bytes.append(c)
      }
    }
    bytes.append(UInt8(ascii: "\""))
  }

  mutating func int<T: BinaryInteger>(_ v: T) { bytes.append(contentsOf: String(v).utf8) }

  /// A finite number (callers never write NaN or infinity).
  mutating func double(_ v: Double) {
    if v == v.rounded(), abs(v) < 1e15 {
      int(Int64(v))
    } else {
      bytes.append(contentsOf: v.description.utf8)
    }
  }

  mutating func strings(_ list: [String]) {
    bytes.append(UInt8(ascii: "["))
    for (k, s) in list.enumerated() {
      if k > 0 { bytes.append(UInt8(ascii: ",")) }
      string(s)
    }
    bytes.append(UInt8(ascii: "]"))
  }

  mutating func optionalDate(_ day: Int32) {
    if day == History.never {
      raw("null")
    } else {
      string(DeckDate(daysSinceEpoch: day).description)
    }
  }

  mutating func value(_ v: PluginJSON) {
    switch v {
    case .null: raw("null")
    case .bool(let b): b ? raw("true") : raw("false")
    case .number(let d): double(d)
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
