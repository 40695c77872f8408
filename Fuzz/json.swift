// JSONParser (Sources/DeckIO/JSONParser.swift, DeckBase's JSONReader in its document dialect):
// the parser of config, catalogs and users.
// Invariant: a document that parses, written back as JSON, parses to the same values.

import DeckBase

@testable import DeckIO

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  let input = FuzzBytes(data, count)
  guard let value = try? JSONParser.parse(input.bytes, file: "fuzz.json") else { return 0 }
  let text = written(value)
  let again: JSONValue
  do {
    again = try JSONParser.parse(text, file: "again.json")
  } catch {
    require(false, "the written document does not parse: \(error)\n\(text)")
    return 0
  }
  require(same(value, again), "the written document parses to other values:\n\(text)")
  return 0
}

/// `v` as compact JSON; numbers as they were written, strings by the writers' one escaping rule.
private func written(_ v: JSONValue) -> String {
  switch v.kind {
  case .null: return "null"
  case .bool(let b): return b ? "true" : "false"
  case .number(_, let text): return text
  case .string(let s): return JSONText.string(s)
  case .array(let a): return "[" + a.map(written).joined(separator: ",") + "]"
  case .object(let o):
    return "{"
      + o.members.map { JSONText.string($0.key) + ":" + written($0.value) }.joined(separator: ",")
      + "}"
  }
}

/// The same values and member order, wherever they are.
private func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
  switch (a.kind, b.kind) {
  case (.null, .null): return true
  case (.bool(let x), .bool(let y)): return x == y
  case (.number(let x, let s), .number(let y, let t)): return s == t && x.bitPattern == y.bitPattern
  case (.string(let x), .string(let y)): return x == y
  case (.array(let x), .array(let y)):
    return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
  case (.object(let x), .object(let y)):
    return x.keys == y.keys && zip(x.members, y.members).allSatisfy { same($0.value, $1.value) }
  default: return false
  }
}
