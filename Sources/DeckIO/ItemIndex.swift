import DeckCore

/// The catalog's item ids by their bytes, for the one look-up per event of an ingest: a
/// `ByteIndex` (DeckCore's table of byte strings) built once, at most a quarter full.
///
/// A `ByteTable` is built for interning: 16-byte slots that hold a key's first bytes; for a
/// catalog of 500 dishes that is 32 KiB, more than the first-level cache holds beside a reader's
/// buffer and an aggregation's writes, and its hash (words, then an avalanche) is a chain of
/// several multiplications before the first load can start. A `ByteIndex` is small instead:
/// 4-byte slots and 16-byte entries, 16 KiB for 500 dishes, and its hash is one multiplication
/// per 8 bytes of the id.
///
/// A quarter, not a half: at half full, ids that differ only in a few digits ("dish0" to
/// "dish499") took 1.9 probes per look-up, and a probe loop of varying length is a mispredicted
/// branch; at a quarter they take 1.4, and the ingest benchmark's look-ups 4 ns less per event.
struct ItemIndex: Sendable {
  private let index: ByteIndex
  /// The position in `ids` of each distinct id, when an id was given twice (nil otherwise, the
  /// index being the position).
  private let positions: [Int32]?
  /// Number of ids.
  let count: Int

  /// An index of `ids`: the index of an id is its position in `ids` (the first one, should an id
  /// be given twice).
  init(ids: [String]) {
    var index = ByteIndex(
      fill: .quarter, capacity: ids.count, bytes: ids.reduce(0) { $0 + $1.utf8.count })
    var positions: [Int32] = []
    var repeated = false
    for (n, id) in ids.enumerated() {
      if index.insert(id).inserted { positions.append(Int32(n)) } else { repeated = true }
    }
    self.index = index
    self.positions = repeated ? positions : nil
    count = ids.count
  }

  /// The index of `key`, or nil when it is not an id of the catalog.
  @inline(__always)
  func find(_ key: UnsafeBufferPointer<UInt8>) -> Int32? {
    guard let i = index.find(key) else { return nil }
    if let positions { return positions[Int(i)] }
    return i
  }
}
