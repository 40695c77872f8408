import DeckCore

/// The catalog's item ids by their bytes, for the one look-up per event of an ingest.
///
/// A `ByteTable` is built for interning: 16-byte slots that hold a key's first bytes; for a
/// catalog of 500 dishes that is 32 KiB, more than the first-level cache holds beside a reader's
/// buffer and an aggregation's writes, and its hash (words, then an avalanche) is a chain of
/// several multiplications before the first load can start. This index is immutable and small
/// instead: 4-byte slots (entry + 1, 0 when empty) at most a quarter full, and 16-byte entries
/// (the first 8 bytes of the id, zero-padded; its length; where its bytes are), 16 KiB for 500
/// dishes. Its hash is one multiplication per 8 bytes of the id (Fibonacci hashing: the slot is
/// the product's high bits), the same in every run. Ids of up to 8 bytes are told apart by their
/// first word and length alone; longer ones are then compared byte for byte.
///
/// A quarter, not a half: at half full, ids that differ only in a few digits ("dish0" to
/// "dish499") took 1.9 probes per look-up, and a probe loop of varying length is a mispredicted
/// branch; at a quarter they take 1.4, and the ingest benchmark's look-ups 4 ns less per event.
struct ItemIndex: @unchecked Sendable {
  private struct Entry {
    var head: UInt64
    var length: Int32
    var start: Int32
  }

  /// Owns the index's memory; never mutated after `init`, so copies may share it.
  private final class Storage {
    let slots: UnsafeMutablePointer<Int32>
    let entries: UnsafeMutablePointer<Entry>
    let arena: UnsafeMutablePointer<UInt8>

    init(slotCount: Int, entryCount: Int, arenaBytes: Int) {
      slots = .allocate(capacity: slotCount)
      slots.initialize(repeating: 0, count: slotCount)
      entries = .allocate(capacity: max(entryCount, 1))
      arena = .allocate(capacity: max(arenaBytes, 1))
    }

    deinit {
      slots.deallocate()
      entries.deallocate()
      arena.deallocate()
    }
  }

  private let storage: Storage
  private let slots: UnsafeMutablePointer<Int32>
  private let entries: UnsafeMutablePointer<Entry>
  private let arena: UnsafeMutablePointer<UInt8>
  private let mask: Int
  private let shift: UInt64
  /// Number of ids.
  let count: Int

  /// An index of `ids`: the index of an id is its position in `ids` (the first one, should an id
  /// be given twice).
  init(ids: [String]) {
    var bits = 4
    while (1 << bits) < 4 * ids.count { bits += 1 }
    let slotCount = 1 << bits
    let bytes = ids.reduce(0) { $0 + $1.utf8.count }
    precondition(bytes <= Int(Int32.max), "item ids too long")
    storage = Storage(slotCount: slotCount, entryCount: ids.count, arenaBytes: bytes)
    slots = storage.slots
    entries = storage.entries
    arena = storage.arena
    mask = slotCount - 1
    shift = UInt64(64 - bits)
    count = ids.count
    var offset = 0
    for (index, id) in ids.enumerated() {
      var utf8 = Array(id.utf8)
      let n = utf8.count
      utf8.withUnsafeMutableBufferPointer { b in
        let key = UnsafeBufferPointer(b)
        if n > 0 { (arena + offset).update(from: key.baseAddress!, count: n) }
        entries[index] = Entry(
          head: ByteTable.head(key), length: Int32(n), start: Int32(offset))
        let head = ByteTable.head(key)
        var i = slot(key, head)
        while slots[i] != 0 {
          // A repeated id keeps its first index.
          if matches(Int(slots[i]) - 1, key, head) { return }
          i = (i + 1) & mask
        }
        slots[i] = Int32(index + 1)
      }
      offset += n
    }
  }

  /// The index of `key`, or nil when it is not an id of the catalog.
  @inline(__always)
  func find(_ key: UnsafeBufferPointer<UInt8>) -> Int32? {
    let head = ByteTable.head(key)
    var i = slot(key, head)
    while true {
      let e = slots[i]
      if e == 0 { return nil }
      if matches(Int(e) &- 1, key, head) { return e &- 1 }
      i = (i &+ 1) & mask
    }
  }

  /// The first slot of `key` (whose `ByteTable.head` is `head`).
  @inline(__always)
  private func slot(_ key: UnsafeBufferPointer<UInt8>, _ head: UInt64) -> Int {
    let multiplier: UInt64 = 0x9E37_79B9_7F4A_7C15
    var h = head &* multiplier
    let n = key.count
    if n > 8, let base = key.baseAddress {
      let raw = UnsafeRawPointer(base)
      var at = 8
      while at < n {
        // Whole words, the last one overlapping its predecessor so as to stay inside the key.
        let w = raw.loadUnaligned(fromByteOffset: min(at, n &- 8), as: UInt64.self)
        h = (h ^ UInt64(littleEndian: w)) &* multiplier
        at &+= 8
      }
    }
    return Int(truncatingIfNeeded: h &>> shift) & mask
  }

  @inline(__always)
  private func matches(_ entry: Int, _ key: UnsafeBufferPointer<UInt8>, _ head: UInt64) -> Bool {
    let e = entries[entry]
    let n = key.count
    guard Int(e.length) == n, e.head == head else { return false }
    if n <= 8 { return true }
    return memEqual(arena + Int(e.start) + 8, key.baseAddress! + 8, n &- 8)
  }
}
