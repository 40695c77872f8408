import Testing

@testable import DeckCore

/// DeckCore's one open-addressing table (HashIndex.swift) against a `Dictionary` oracle:
/// colliding keys, growth, many keys, and byte strings that share long prefixes.
@Suite("HashIndex")
struct HashIndexTests {
  /// Keys that land in the same first slot of a 1,024-slot `WordTable`.
  static func collidingWords(_ count: Int) -> [UInt64] {
    var out: [UInt64] = []
    var k: UInt64 = 0
    let target = HashMix.slot(0, shift: 64 - 10)
    while out.count < count {
      if HashMix.slot(k, shift: 64 - 10) == target { out.append(k) }
      k += 1
    }
    return out
  }

  @Test("a word table adds and finds colliding keys, and keeps them through growth")
  func wordTableCollisions() {
    var table = WordTable()
    var oracle: [UInt64: Int32] = [:]
    let keys = Self.collidingWords(40)
    #expect(Set(keys.map { HashMix.slot($0, shift: 64 - 10) }).count == 1)
    for (n, k) in keys.enumerated() {
      table.add(k, Int32(n + 1))
      oracle[k, default: 0] += Int32(n + 1)
    }
    for k in keys.prefix(10) {
      table.add(k, 3)
      oracle[k, default: 0] += 3
    }
    // Past 70% of 1,024 slots: the table grows twice.
    for k in UInt64(1 << 40)..<UInt64(1 << 40 + 2000) {
      table.add(k, 1)
      oracle[k, default: 0] += 1
    }
    #expect(table.count == oracle.count)
    for (k, v) in oracle { #expect(table.value(k) == v) }
    #expect(table.value(7) == 0)
    #expect(table.value(UInt64.max) == 0)
    let entries = table.entries()
    #expect(entries.count == oracle.count)
    #expect(Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0.value) }) == oracle)
  }

  @Test("a word table's insert keeps the first value")
  func wordTableInsert() {
    var table = WordTable()
    let first = table.insert(42, value: 5)
    let second = table.insert(42, value: 9)
    #expect(first == (5, true) && second == (5, false))
    #expect(table.value(42) == 5)
    #expect(table.count == 1)
  }

  @Test("a word index gives dense indices in insertion order, for many packed keys")
  func wordIndexManyKeys() {
    var index = WordIndex()
    var oracle: [UInt64: Int32] = [:]
    var random = RandomStream(seed: 28)
    for _ in 0..<100_000 {
      // Packed (unit, item) pairs from small ranges: many keys differ in a few low bits.
      let key = UInt64(random.next() % 3000) << 32 | random.next() % 200
      let (i, inserted) = index.insert(key)
      if let known = oracle[key] {
        #expect(!inserted && i == known)
      } else {
        #expect(inserted && i == Int32(oracle.count))
        oracle[key] = i
      }
    }
    #expect(index.count == oracle.count)
    for (k, v) in oracle { #expect(index.find(k) == v) }
    #expect(index.find(UInt64(5000) << 32) == nil)
  }

  /// Ids that share long prefixes and differ in one byte, at every length around the 8-byte
  /// words of the hash, plus the empty id and ids that differ only in length.
  static func adversarialIDs() -> [String] {
    var ids: [String] = ["", "a", "aa", "a\u{0}", "\u{0}", "caf\u{E9}", "cafe\u{301}"]
    for length in 1...40 {
      let prefix = String(repeating: "p", count: length)
      for c in ["0", "1", "9", "q", "\u{E9}"] { ids.append(prefix + c) }
      ids.append(String(repeating: "x", count: length))
    }
    for n in 0..<3000 { ids.append("diner-with-a-long-common-prefix-\(n)") }
    for n in 0..<3000 { ids.append("\(n)-suffix-shared-by-every-id-of-this-group") }
    return ids
  }

  @Test("a byte index tells apart ids that share prefixes, by their UTF-8 bytes")
  func byteIndexAdversarial() {
    for fill in [ByteIndex.Fill.half, .quarter] {
      var index = ByteIndex(fill: fill)
      var oracle: [IDKey: Int32] = [:]
      let ids = Self.adversarialIDs()
      for id in ids + ids.reversed() {
        let (i, inserted) = index.insert(id)
        if let known = oracle[IDKey(id)] {
          #expect(!inserted && i == known)
        } else {
          #expect(inserted && i == Int32(oracle.count))
          oracle[IDKey(id)] = i
        }
      }
      #expect(index.count == oracle.count)
      for (id, i) in oracle {
        #expect(index.find(id.string) == i)
        #expect(IDKey.same(index.string(i), id.string))
      }
      #expect(index.find("p") == nil)
      #expect(index.find("diner-with-a-long-common-prefix-3000") == nil)
      #expect(index.find(String(repeating: "p", count: 41)) == nil)
    }
  }

  @Test("a byte index from a list keeps each id's first index; copies are independent")
  func byteIndexFromListAndCopies() {
    let a = ByteIndex(["x", "y", "x", "z"])
    #expect(a.count == 3)
    #expect(a.find("x") == 0 && a.find("y") == 1 && a.find("z") == 2)
    var b = a
    let w = b.insert("w")
    #expect(w == (3, true))
    #expect(a.find("w") == nil && a.count == 3)
    #expect(b.find("w") == 3 && b.count == 4)
    for n in 0..<1000 { _ = b.insert("grow\(n)") }
    #expect(a.count == 3 && a.find("grow1") == nil)
    #expect(b.find("grow999") == 1003 && b.find("x") == 0)
  }

  @Test("a byte index's look-up by bytes matches its look-up by string")
  func byteIndexBytes() {
    let index = ByteIndex(["dish1", "dish12345678901", "é"])
    for id in ["dish1", "dish12345678901", "é", "dish2"] {
      let bytes = Array(id.utf8)
      #expect(bytes.withUnsafeBufferPointer { index.find($0) } == index.find(id))
    }
  }

  @Test("a byte index lists its keys in byte order, as strings sort by their UTF-8 bytes")
  func byteIndexKeyOrder() {
    // Prefixes, an empty id, bytes above 0x7f (é, a combining accent: another string that
    // Swift compares equal, a different id here), digits that sort differently as numbers.
    let ids = Self.adversarialIDs() + ["", "e", "é", "e\u{301}", "z", "Z", "10", "9", "a\u{0}b"]
    var stream = RandomStream(seed: 7)
    let index = ByteIndex(ids.shuffled(using: &stream), fill: .quarter)
    let listed = index.indicesInKeyOrder().map { index.string($0) }
    var distinct: [IDKey: String] = [:]
    for id in ids { distinct[IDKey(id)] = id }
    let expected = distinct.values.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    #expect(listed.count == expected.count)
    #expect(listed.map { Array($0.utf8) } == expected.map { Array($0.utf8) })
  }

  @Test("an id set holds ids by their bytes")
  func idSet() {
    var set = IDSet(["caf\u{E9}", "b"])
    #expect(set.contains("caf\u{E9}"))
    #expect(!set.contains("cafe\u{301}"))
    let newID = set.insert("cafe\u{301}")
    let repeated = set.insert("b")
    #expect(newID && !repeated)
    #expect(set.count == 3)
    #expect(IDSet().count == 0)
  }

  @Test("an id map keeps the first value of an id, by its bytes, in order")
  func idMap() {
    var map = IDMap([("b", 1), ("caf\u{E9}", 2), ("b", 3)])
    #expect(map.count == 2)
    #expect(map["b"] == 1 && map["caf\u{E9}"] == 2 && map["cafe\u{301}"] == nil)
    let newID = map.insert("cafe\u{301}", 4)
    let repeated = map.insert("b", 5)
    #expect(newID && !repeated)
    #expect(map.ids == ["b", "caf\u{E9}", "cafe\u{301}"])
    #expect(map.values == [1, 2, 4])
  }
}
