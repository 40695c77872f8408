// The plugin reply parser (Sources/DeckPlugins/PluginJSON.swift, DeckBase's JSONReader in its
// protocol-line dialect): one protocol line.
// Invariant: a reply that parses, written back by the host's writer, parses to the same value
// (NaN and the infinities, which Python plugins send, parse but are never written back).

import DeckBase

@testable import DeckPlugins

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlugin(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  let input = FuzzBytes(data, count)
  let value: JSONValue
  do {
    value = try PluginJSON.parse(input.bytes)
  } catch {
    require(error.offset >= 0 && error.offset <= count, "offset \(error.offset) of \(count)")
    return 0
  }
  // The host writes finite numbers only (DeckBase's `JSONWriter` writes any other as null); a
  // reply with NaN or an infinity is reported as a fault, never written back.
  guard allFinite(value) else { return 0 }
  var w = JSONWriter()
  w.value(value)
  do {
    let again = try PluginJSON.parse(w.bytes)
    var w2 = JSONWriter()
    w2.value(again)
    require(w2.bytes == w.bytes, "written twice differently: \(value.text)")
  } catch {
    require(false, "the written reply does not parse: \(error) \(value.text)")
  }
  return 0
}

private func allFinite(_ v: JSONValue) -> Bool {
  switch v.kind {
  case .number(let x, _): return x.isFinite
  case .array(let a): return a.allSatisfy(allFinite)
  case .object(let o): return o.members.allSatisfy { allFinite($0.value) }
  default: return true
  }
}
