// The config loader (Sources/MenuDeckCLI/Config.swift, MenuDeckConfig.parse), with the
// simulation section and column mappings it reads. No trap on any input; a second parse
// succeeds or fails alike, with a message.

import DeckIO

@testable import MenuDeckCLI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  let input = FuzzBytes(data, count)
  let first = Result { () throws(DeckIOError) in
    try MenuDeckConfig.parse(input.bytes, path: "c.json")
  }
  let second = Result { () throws(DeckIOError) in
    try MenuDeckConfig.parse(input.bytes, path: "c.json")
  }
  switch (first, second) {
  case (.success, .success):
    break  // (not Equatable, and its dictionaries print in any order)
  case (.failure(let a), .failure(let b)):
    require(a == b, "two parses of one config fail differently: \(a) / \(b)")
    require(!a.description.isEmpty, "an empty message")
  default:
    require(false, "one parse failed and the other did not")
  }
  return 0
}
