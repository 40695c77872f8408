import DeckCore

/// An intern table from byte strings to dense indices 0, 1, 2, ... in order of first insertion.
///
/// Open addressing with linear probing over a power-of-two slot array. The hash is an FNV-style
/// hash over 8-byte words with a final avalanche; it is the same in every run (Swift's `Hasher`
/// is seeded per process and is never used here). Keys live in one byte arena, so a table of a
/// million ids costs a few allocations, not a million.
package struct ByteTable: Sendable {
  /// One probe slot, 16 bytes. A key of at most 8 bytes is compared in the slot alone (its
  /// length is in `tag`, its bytes in `head`); a longer one goes on to its entry and the arena
  /// only when its first 8 bytes and hash bits match.
  private struct Slot {
    /// Entry index + 1, or 0 when empty.
    var entry: Int32 = 0
    /// 24 high bits of the key's hash, then the key's length (255 for 255 bytes or more).
    var tag: UInt32 = 0
    /// The first 8 bytes of the key, zero-padded (`ByteTable.head`).
    var head: UInt64 = 0
  }

  private var slots: [Slot]
  private var arena: [UInt8] = []
  /// Arena offsets and lengths by entry index (for `key(at:)`).
  private var entries: [(start: Int32, length: Int32)] = []

  package init(capacity: Int = 64) {
    var n = 16
    while n * 3 < capacity * 4 { n <<= 1 }
    slots = Array(repeating: Slot(), count: n)
  }

  /// Number of distinct keys.
  package var count: Int { entries.count }

  /// The index of `key`, or nil when it was never inserted.
  @inline(__always)
  package func find(_ key: UnsafeBufferPointer<UInt8>) -> Int32? {
    let h = ByteTable.hash(key)
    return slots.withUnsafeBufferPointer { s in
      arena.withUnsafeBufferPointer { a in
        entries.withUnsafeBufferPointer { en in
          let e = s[ByteTable.probe(s, a, en, key, h)].entry
          return e == 0 ? nil : e - 1
        }
      }
    }
  }

  /// The index of `key`, inserting it when new.
  @inline(__always)
  package mutating func insert(_ key: UnsafeBufferPointer<UInt8>) -> (index: Int32, inserted: Bool)
  {
    insert(key, hash: ByteTable.hash(key))
  }

  /// Reads the slot where a key with hash `h` would be looked for first, so that a probe soon
  /// after finds it in cache. The value means nothing; keep it (OR it into a variable that is
  /// used) so that the read is not dropped.
  @inline(__always)
  package func touch(hash h: UInt64) -> UInt32 {
    slots.withUnsafeBufferPointer { s in s[Int(truncatingIfNeeded: h) & (s.count - 1)].tag }
  }

  /// `insert(_:)` for a key whose `hash(_:)` is known.
  @inline(__always)
  package mutating func insert(_ key: UnsafeBufferPointer<UInt8>, hash h: UInt64) -> (
    index: Int32, inserted: Bool
  ) {
    let i = slots.withUnsafeBufferPointer { s in
      arena.withUnsafeBufferPointer { a in
        entries.withUnsafeBufferPointer { en in ByteTable.probe(s, a, en, key, h) }
      }
    }
    let e = slots[i].entry
    if e != 0 { return (e - 1, false) }
    precondition(arena.count + key.count <= Int(Int32.max), "byte table arena overflow")
    let index = Int32(entries.count)
    let start = Int32(arena.count)
    arena.append(contentsOf: key)
    entries.append((start, Int32(key.count)))
    slots[i] = Slot(entry: index + 1, tag: ByteTable.tag(h, key.count), head: ByteTable.head(key))
    if entries.count * 4 > slots.count * 3 { grow() }
    return (index, true)
  }

  /// Inserts the UTF-8 bytes of a string.
  @discardableResult
  package mutating func insert(_ key: String) -> (index: Int32, inserted: Bool) {
    var bytes = Array(key.utf8)
    return bytes.withUnsafeMutableBufferPointer { insert(UnsafeBufferPointer($0)) }
  }

  /// The index of a string key, or nil.
  package func find(_ key: String) -> Int32? {
    var bytes = Array(key.utf8)
    return bytes.withUnsafeMutableBufferPointer { find(UnsafeBufferPointer($0)) }
  }

  /// Whether entry `index` is `key`.
  @inline(__always)
  package func keyEquals(_ index: Int32, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
    let (s, n) = entries[Int(index)]
    guard Int(n) == key.count else { return false }
    if n == 0 { return true }
    return arena.withUnsafeBufferPointer { a in
      memEqual(a.baseAddress! + Int(s), key.baseAddress!, key.count)
    }
  }

  /// The bytes of entry `index`.
  package func key(at index: Int32) -> [UInt8] {
    let (s, n) = entries[Int(index)]
    return Array(arena[Int(s)..<Int(s + n)])
  }

  /// The key of entry `index` as a string (invalid UTF-8 is repaired with U+FFFD).
  package func string(at index: Int32) -> String {
    String(decoding: key(at: index), as: UTF8.self)
  }

  /// The slot holding `key`, or the empty slot where it belongs.
  @inline(__always)
  private static func probe(
    _ s: UnsafeBufferPointer<Slot>, _ a: UnsafeBufferPointer<UInt8>,
    _ e: UnsafeBufferPointer<(start: Int32, length: Int32)>, _ key: UnsafeBufferPointer<UInt8>,
    _ h: UInt64
  ) -> Int {
    let mask = s.count - 1
    let n = key.count
    let tag = ByteTable.tag(h, n)
    let head = ByteTable.head(key)
    var i = Int(truncatingIfNeeded: h) & mask
    while true {
      let slot = s[i]
      if slot.entry == 0 { return i }
      if slot.tag == tag && slot.head == head {
        if n <= 8 { return i }
        let (start, length) = e[Int(slot.entry) - 1]
        if Int(length) == n && memEqual(a.baseAddress! + Int(start), key.baseAddress!, n) {
          return i
        }
      }
      i = (i + 1) & mask
    }
  }

  /// A slot's tag: 24 bits of the hash and the length (capped at 255).
  @inline(__always)
  private static func tag(_ h: UInt64, _ n: Int) -> UInt32 {
    UInt32(truncatingIfNeeded: h >> 40) << 8 | UInt32(min(n, 255))
  }

  /// The first 8 bytes of `key` as a little-endian word, zero-padded when shorter: with the
  /// length, it tells keys of up to 8 bytes apart exactly. Never reads outside the key.
  @inline(__always)
  static func head(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 { HashMix.head(key) }

  private mutating func grow() {
    let n = slots.count * 2
    var newSlots = [Slot](repeating: Slot(), count: n)
    let mask = n - 1
    arena.withUnsafeBufferPointer { a in
      for slot in slots where slot.entry != 0 {
        let (start, length) = entries[Int(slot.entry) - 1]
        let key = UnsafeBufferPointer(start: a.baseAddress! + Int(start), count: Int(length))
        var i = Int(truncatingIfNeeded: ByteTable.hash(key)) & mask
        while newSlots[i].entry != 0 { i = (i + 1) & mask }
        newSlots[i] = slot
      }
    }
    slots = newSlots
  }

  /// FNV-1a style over little-endian 8-byte words, then one word holding the tail bytes, then a
  /// 64-bit avalanche.
  @inline(__always)
  package static func hash(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(key.count)
    let prime: UInt64 = 0x0000_0100_0000_01b3
    guard let base = key.baseAddress else { return avalanche(h) }
    let raw = UnsafeRawPointer(base)
    var i = 0
    let n = key.count
    while i + 8 <= n {
      let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
      h = (h ^ w) &* prime
      h ^= h >> 29
      i += 8
    }
    if i < n {
      // The last 1...7 bytes in one word: overlapping loads that stay inside the key.
      let w: UInt64
      if n >= 8 {
        w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self))
      } else if n >= 4 {
        let lo = UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self))
        let hi = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))
        w = UInt64(lo) | UInt64(hi) << 32
      } else {
        w = UInt64(base[0]) | UInt64(base[n >> 1]) << 8 | UInt64(base[n - 1]) << 16
      }
      h = (h ^ w) &* prime
    }
    return avalanche(h)
  }

  @inline(__always)
  private static func avalanche(_ x: UInt64) -> UInt64 {
    var z = x
    z = (z ^ (z >> 33)) &* 0xff51_afd7_ed55_8ccd
    z = (z ^ (z >> 33)) &* 0xc4ce_b9fe_1a85_ec53
    return z ^ (z >> 33)
  }
}

/// Byte equality without Foundation (`memcmp` semantics for equality only): whole words, then
/// the last bytes as one overlapping word, never reading outside either range.
@inline(__always)
func memEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
  let ra = UnsafeRawPointer(a)
  let rb = UnsafeRawPointer(b)
  if n >= 8 {
    var i = 0
    while i + 8 < n {
      if ra.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        != rb.loadUnaligned(fromByteOffset: i, as: UInt64.self)
      {
        return false
      }
      i += 8
    }
    return ra.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
      == rb.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
  }
  if n >= 4 {
    return ra.loadUnaligned(as: UInt32.self) == rb.loadUnaligned(as: UInt32.self)
      && ra.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
        == rb.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
  }
  var i = 0
  while i < n {
    if a[i] != b[i] { return false }
    i += 1
  }
  return true
}
