// The one open-addressing hash table of menudeck, and the hashing and probing every table of
// menudeck shares (issue 28).
//
// Every table here is open addressing with linear probing over a power-of-two number of slots;
// a slot is chosen by the top bits of a multiplicative (Fibonacci) hash, the same in every run
// and on every machine (never Swift's per-process `Hasher`, so an order that depends on slots
// is the same every time). Keys are never removed.
//
// - `HashMix`: the mixers and the probe step, for the tables that keep a specialised layout (a
//   diner's records in `SnapshotBuilder`, a diner's pairs in `HistoryState`).
// - `WordTable`: 64-bit keys to non-zero 32-bit values in flat slots (12 bytes a slot); the
//   counts of `StatsAccumulator`, and under `WordIndex` (64-bit keys to dense indices).
// - `ByteIndex`: byte strings (ids) to dense indices; the catalog's item index, the id tables of
//   `SnapshotBuilder`, the users file's duplicate check and `IDSet`.
//
// `HashMix`, `WordTable`, `WordIndex` and `ByteIndex` are `public` types with `package` members:
// with this toolchain a `package` type's `@inlinable` methods were not inlined into another
// module, which left a call per event in DeckIO's readers (+1.6% instructions on the realistic
// JSON Lines log, +2.4% on CSV; within 0.4% of the old tables once public, callgrind).

/// The stable hashes and the probe step of menudeck's open-addressing tables.
public enum HashMix {
  /// 2^64 divided by the golden ratio: the multiplier of Fibonacci hashing.
  @usableFromInline static let golden: UInt64 = 0x9E37_79B9_7F4A_7C15

  /// The slot of a 64-bit key of packed fields (which may differ only in a few low bits of each
  /// half): its bits mixed (half of MurmurHash3's finaliser), then the top `64 - shift` bits of a
  /// Fibonacci hash.
  @inlinable @inline(__always) @usableFromInline
  package static func slot(_ key: UInt64, shift: UInt64) -> Int {
    var x = key ^ (key &>> 33)
    x = x &* 0xFF51_AFD7_ED55_8CCD
    x ^= x &>> 33
    return Int(truncatingIfNeeded: (x &* golden) &>> shift)
  }

  /// The slot of a key that is already well spread (a dense index): the top `64 - shift` bits of
  /// its Fibonacci hash alone.
  @inlinable @inline(__always) @usableFromInline
  package static func fibonacci(_ key: UInt64, shift: UInt64) -> Int {
    Int(truncatingIfNeeded: (key &* golden) &>> shift)
  }

  /// `fibonacci` in 32 bits, for tables of at most 2^32 slots whose shift is kept in 32 bits.
  @inlinable @inline(__always) @usableFromInline
  package static func fibonacci32(_ key: UInt32, shift: UInt32) -> Int {
    Int(truncatingIfNeeded: (key &* 0x9E37_79B9) &>> shift)
  }

  /// The next slot of a linear probe in a table of `mask + 1` slots.
  @inlinable @inline(__always) @usableFromInline
  package static func next(_ slot: Int, mask: Int) -> Int { (slot &+ 1) & mask }

  /// The first 8 bytes of `key` as a little-endian word, zero-padded when it is shorter.
  @inlinable @inline(__always) @usableFromInline
  package static func head(_ key: UnsafeBufferPointer<UInt8>) -> UInt64 {
    let n = key.count
    guard let base = key.baseAddress, n > 0 else { return 0 }
    let raw = UnsafeRawPointer(base)
    if n >= 8 { return UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self)) }
    if n >= 4 {
      // Two overlapping 4-byte loads; the bytes they share are the same in both.
      let lo = UInt64(UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
      let hi = UInt64(
        UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)))
      return lo | hi &<< UInt64(8 &* (n &- 4))
    }
    var w = UInt64(base[0])
    if n > 1 { w |= UInt64(base[1]) &<< 8 }
    if n > 2 { w |= UInt64(base[2]) &<< 16 }
    return w
  }

  /// The hash of a byte string whose `head` is given: one multiplication per 8 bytes (the last
  /// word overlapping its predecessor so as to stay inside the key). Its top bits pick a slot.
  @inlinable @inline(__always) @usableFromInline
  package static func bytes(_ key: UnsafeBufferPointer<UInt8>, head: UInt64) -> UInt64 {
    var h = head &* golden
    let n = key.count
    if n > 8, let base = key.baseAddress {
      let raw = UnsafeRawPointer(base)
      var at = 8
      while at < n {
        let w = raw.loadUnaligned(fromByteOffset: min(at, n &- 8), as: UInt64.self)
        h = (h ^ UInt64(littleEndian: w)) &* golden
        at &+= 8
      }
    }
    return h
  }

  /// Whether `n` bytes at `a` and `b` are equal: whole words, the last one overlapping its
  /// predecessor; below 8 bytes two overlapping 4-byte loads, below 4 byte by byte. Never reads
  /// outside either range.
  @inlinable @inline(__always) @usableFromInline
  package static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int)
    -> Bool
  {
    let x = UnsafeRawPointer(a)
    let y = UnsafeRawPointer(b)
    if n >= 8 {
      var i = 0
      while i &+ 8 < n {
        if x.loadUnaligned(fromByteOffset: i, as: UInt64.self)
          != y.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        {
          return false
        }
        i &+= 8
      }
      return x.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
        == y.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
    }
    if n >= 4 {
      return x.loadUnaligned(as: UInt32.self) == y.loadUnaligned(as: UInt32.self)
        && x.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
          == y.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
    }
    var i = 0
    while i < n {
      if a[i] != b[i] { return false }
      i &+= 1
    }
    return true
  }
}

/// 64-bit keys to non-zero 32-bit values: keys and values side by side in flat slots (12 bytes a
/// slot, a value of 0 marking an empty one), between 35% and 70% full, so 17 to 34 bytes a key.
/// Probing reads the key and value arrays only; nothing is stored out of line.
///
/// The slot comes from `HashMix.slot`. (Never fill a table in another table's slot order, copy in
/// key order: keys that land in slot order pile up behind one another under linear probing.)
public struct WordTable: Sendable {
  /// Meaningful where `values` is not 0.
  @usableFromInline var keys: [UInt64]
  @usableFromInline var values: [Int32]
  /// The keys held.
  @usableFromInline var held = 0
  /// 64 - log2(slots).
  @usableFromInline var shift: UInt64

  /// An empty table of 1,024 slots.
  package init() {
    keys = Array(repeating: 0, count: 1024)
    values = Array(repeating: 0, count: 1024)
    shift = 64 - 10
  }

  /// The keys held.
  @inlinable package var count: Int { held }

  /// The value of `key`, 0 when it is not held.
  @inlinable @inline(__always)
  package func value(_ key: UInt64) -> Int32 {
    let mask = values.count &- 1
    var i = HashMix.slot(key, shift: shift)
    while values[i] != 0 {
      if keys[i] == key { return values[i] }
      i = HashMix.next(i, mask: mask)
    }
    return 0
  }

  /// Adds `amount` to the value of `key`, inserting the key with `amount` (not 0) when new.
  @inlinable @inline(__always)
  package mutating func add(_ key: UInt64, _ amount: Int32) {
    let mask = values.count &- 1
    var i = HashMix.slot(key, shift: shift)
    while values[i] != 0 {
      if keys[i] == key {
        values[i] += amount
        return
      }
      i = HashMix.next(i, mask: mask)
    }
    keys[i] = key
    values[i] = amount
    held &+= 1
    if held &* 10 > values.count &* 7 { grow() }
  }

  /// The value of `key`, or, when it is new, `value` (not 0) stored for it.
  @inlinable @inline(__always)
  package mutating func insert(_ key: UInt64, value: Int32) -> (value: Int32, inserted: Bool) {
    let mask = values.count &- 1
    var i = HashMix.slot(key, shift: shift)
    while values[i] != 0 {
      if keys[i] == key { return (values[i], false) }
      i = HashMix.next(i, mask: mask)
    }
    keys[i] = key
    values[i] = value
    held &+= 1
    if held &* 10 > values.count &* 7 { grow() }
    return (value, true)
  }

  /// Every key with its value, in slot order (sort them before relying on the order).
  package func entries() -> [(key: UInt64, value: Int32)] {
    var out: [(key: UInt64, value: Int32)] = []
    out.reserveCapacity(held)
    for i in values.indices where values[i] != 0 { out.append((keys[i], values[i])) }
    return out
  }

  /// Doubles the table, placing every held key again.
  @usableFromInline @inline(never)
  mutating func grow() {
    let oldKeys = keys
    let oldValues = values
    let size = oldValues.count &* 2
    keys = Array(repeating: 0, count: size)
    values = Array(repeating: 0, count: size)
    shift -= 1
    let mask = size &- 1
    for j in oldValues.indices where oldValues[j] != 0 {
      var i = HashMix.slot(oldKeys[j], shift: shift)
      while values[i] != 0 { i = HashMix.next(i, mask: mask) }
      keys[i] = oldKeys[j]
      values[i] = oldValues[j]
    }
  }
}

/// 64-bit keys to dense indices (0, 1, 2, ... in insertion order): a `WordTable` holding each
/// index plus 1.
public struct WordIndex: Sendable {
  @usableFromInline var table = WordTable()

  package init() {}

  /// The keys held.
  @inlinable package var count: Int { table.count }

  /// The index of `key`, or nil.
  @inlinable @inline(__always)
  package func find(_ key: UInt64) -> Int32? {
    let v = table.value(key)
    return v == 0 ? nil : v &- 1
  }

  /// The index of `key`, given the next index (`count`) when it is new.
  @inlinable @inline(__always)
  package mutating func insert(_ key: UInt64) -> (index: Int32, inserted: Bool) {
    let r = table.insert(key, value: Int32(truncatingIfNeeded: table.count) &+ 1)
    return (r.value &- 1, r.inserted)
  }
}

/// Byte strings (ids: an id is its UTF-8 bytes, see `IDKey`) to dense indices (0, 1, 2, ... in
/// insertion order).
///
/// 4-byte slots (the entry plus 1, 0 when empty) at most a quarter or half full (`Fill`), and a
/// 16-byte entry per key (its first 8 bytes, zero-padded; its length; where its bytes are in one
/// arena). The hash is `HashMix.bytes`: one multiplication per 8 bytes of the key, its top bits
/// the slot. Keys of up to 8 bytes are told apart by their first word and length alone; longer
/// ones are then compared byte for byte. Copies share memory until one of them inserts.
public struct ByteIndex: @unchecked Sendable {
  /// How full the slots may get: a quarter (a look-up on the hot path of an ingest, where keys
  /// differ in a few digits: 1.4 probes a look-up instead of 1.9 at half) or half (tables built
  /// once and looked up a few times: half the slot memory).
  package enum Fill: Sendable {
    case quarter, half
  }

  @usableFromInline struct Entry {
    @usableFromInline var head: UInt64
    @usableFromInline var length: Int32
    @usableFromInline var start: Int32

    @inlinable init(head: UInt64, length: Int32, start: Int32) {
      self.head = head
      self.length = length
      self.start = start
    }
  }

  /// Owns the memory; the index's pointers below point into it.
  /// Its fields are read and written only by the `ByteIndex` that holds it uniquely (a shared
  /// one is copied before an insert), so they go without the run-time exclusivity checks a class
  /// property gets: a dozen such checks were half the cost of an insert (100,000 diner ids read
  /// from a users file).
  @usableFromInline final class Storage {
    @exclusivity(unchecked) @usableFromInline var slots: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) @usableFromInline var slotCount: Int
    @exclusivity(unchecked) @usableFromInline var entries: UnsafeMutablePointer<Entry>
    @exclusivity(unchecked) @usableFromInline var entryCapacity: Int
    @exclusivity(unchecked) @usableFromInline var arena: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) @usableFromInline var arenaCapacity: Int

    init(slotCount: Int, entryCapacity: Int, arenaCapacity: Int) {
      self.slotCount = slotCount
      self.entryCapacity = max(entryCapacity, 1)
      self.arenaCapacity = max(arenaCapacity, 8)
      slots = .allocate(capacity: slotCount)
      slots.initialize(repeating: 0, count: slotCount)
      entries = .allocate(capacity: self.entryCapacity)
      arena = .allocate(capacity: self.arenaCapacity)
    }

    /// A copy holding the first `entries` entries and `bytes` bytes of the arena.
    func copy(entries count: Int, bytes: Int) -> Storage {
      let s = Storage(
        slotCount: slotCount, entryCapacity: entryCapacity, arenaCapacity: arenaCapacity)
      s.slots.update(from: slots, count: slotCount)
      s.entries.initialize(from: entries, count: count)
      s.arena.initialize(from: arena, count: bytes)
      return s
    }

    deinit {
      slots.deallocate()
      entries.deallocate()
      arena.deallocate()
    }
  }

  @usableFromInline var storage: Storage
  @usableFromInline var slots: UnsafeMutablePointer<Int32>
  @usableFromInline var entries: UnsafeMutablePointer<Entry>
  @usableFromInline var arena: UnsafeMutablePointer<UInt8>
  @usableFromInline var mask: Int
  @usableFromInline var shift: UInt64
  /// log2 of the slots per key at most (2 for a quarter, 1 for half).
  @usableFromInline let fillShift: Int
  @usableFromInline var held = 0
  @usableFromInline var arenaUsed = 0

  /// An empty index with room for `capacity` keys of `bytes` bytes in all before it grows.
  package init(fill: Fill = .half, capacity: Int = 0, bytes: Int = 0) {
    fillShift = fill == .quarter ? 2 : 1
    var bits = 4
    while (1 << bits) < (max(capacity, 1) << fillShift) { bits += 1 }
    storage = Storage(slotCount: 1 << bits, entryCapacity: capacity, arenaCapacity: bytes)
    slots = storage.slots
    entries = storage.entries
    arena = storage.arena
    mask = (1 << bits) - 1
    shift = UInt64(64 - bits)
  }

  /// An index of `ids` in their order; an id given again keeps its first index.
  package init(_ ids: some Collection<String>, fill: Fill = .half) {
    self.init(fill: fill, capacity: ids.count, bytes: ids.reduce(0) { $0 + $1.utf8.count })
    for id in ids { _ = insert(id) }
  }

  /// The keys held.
  @inlinable package var count: Int { held }

  /// The index of `key`, or nil.
  @inlinable @inline(__always)
  package func find(_ key: UnsafeBufferPointer<UInt8>) -> Int32? {
    let head = HashMix.head(key)
    var i = slot(key, head)
    while true {
      let e = slots[i]
      if e == 0 { return nil }
      if matches(Int(e) &- 1, key, head) { return e &- 1 }
      i = HashMix.next(i, mask: mask)
    }
  }

  /// The index of `id`'s UTF-8 bytes, or nil.
  @inlinable
  package func find(_ id: String) -> Int32? {
    ByteIndex.withBytes(id) { find($0) }
  }

  /// The index of `key`, given the next index (`count`) when it is new.
  @inlinable
  package mutating func insert(_ key: UnsafeBufferPointer<UInt8>) -> (index: Int32, inserted: Bool)
  {
    let head = HashMix.head(key)
    var i = slot(key, head)
    while true {
      let e = slots[i]
      if e == 0 { break }
      if matches(Int(e) &- 1, key, head) { return (e &- 1, false) }
      i = HashMix.next(i, mask: mask)
    }
    return (append(key, head: head, at: i), true)
  }

  /// The index of `id`'s UTF-8 bytes, given the next index when it is new.
  @inlinable
  package mutating func insert(_ id: String) -> (index: Int32, inserted: Bool) {
    ByteIndex.withBytes(id) { insert($0) }
  }

  /// The bytes of the key of `index` (valid until the next insertion).
  @inlinable
  package func key(_ index: Int32) -> UnsafeBufferPointer<UInt8> {
    let e = entries[Int(index)]
    return UnsafeBufferPointer(start: arena + Int(e.start), count: Int(e.length))
  }

  /// The key of `index` as a string.
  package func string(_ index: Int32) -> String { String(decoding: key(index), as: UTF8.self) }

  /// The indices of the keys sorted by their bytes (`IDKey`'s order: byte by byte, a prefix
  /// first), read in place.
  package func indicesInKeyOrder() -> [Int32] {
    (0..<Int32(held)).sorted { key($0).lexicographicallyPrecedes(key($1)) }
  }

  /// `body` over the UTF-8 bytes of `id`.
  @inlinable @inline(__always)
  static func withBytes<R>(_ id: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let r = id.utf8.withContiguousStorageIfAvailable(body) { return r }
    var copy = id
    copy.makeContiguousUTF8()
    return copy.utf8.withContiguousStorageIfAvailable(body)!
  }

  /// The first slot of `key` (whose `HashMix.head` is `head`).
  @inlinable @inline(__always)
  func slot(_ key: UnsafeBufferPointer<UInt8>, _ head: UInt64) -> Int {
    Int(truncatingIfNeeded: HashMix.bytes(key, head: head) &>> shift) & mask
  }

  @inlinable @inline(__always)
  func matches(_ entry: Int, _ key: UnsafeBufferPointer<UInt8>, _ head: UInt64) -> Bool {
    let e = entries[entry]
    let n = key.count
    guard Int(e.length) == n, e.head == head else { return false }
    if n <= 8 { return true }
    return HashMix.equal(arena + (Int(e.start) &+ 8), key.baseAddress! + 8, n &- 8)
  }

  /// Stores a new key in the empty slot `at`; returns its index.
  @usableFromInline
  mutating func append(_ key: UnsafeBufferPointer<UInt8>, head: UInt64, at slot: Int) -> Int32 {
    let n = key.count
    precondition(arenaUsed + n <= Int(Int32.max) && held < Int(Int32.max) - 1, "ids too long")
    if !isKnownUniquelyReferenced(&storage) {
      storage = storage.copy(entries: held, bytes: arenaUsed)
    }
    if held == storage.entryCapacity {
      let grown = UnsafeMutablePointer<Entry>.allocate(capacity: held * 2)
      grown.moveInitialize(from: storage.entries, count: held)
      storage.entries.deallocate()
      storage.entries = grown
      storage.entryCapacity = held * 2
    }
    if arenaUsed + n > storage.arenaCapacity {
      let size = max(storage.arenaCapacity * 2, arenaUsed + n)
      let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
      grown.moveInitialize(from: storage.arena, count: arenaUsed)
      storage.arena.deallocate()
      storage.arena = grown
      storage.arenaCapacity = size
    }
    if n > 0 { (storage.arena + arenaUsed).initialize(from: key.baseAddress!, count: n) }
    (storage.entries + held).initialize(
      to: Entry(head: head, length: Int32(n), start: Int32(arenaUsed)))
    storage.slots[slot] = Int32(held + 1)
    arenaUsed += n
    held += 1
    if held << fillShift > storage.slotCount { growSlots() }
    slots = storage.slots
    entries = storage.entries
    arena = storage.arena
    return Int32(held - 1)
  }

  /// Doubles the slots, placing every key again in index order.
  mutating func growSlots() {
    let size = storage.slotCount * 2
    let grown = UnsafeMutablePointer<Int32>.allocate(capacity: size)
    grown.initialize(repeating: 0, count: size)
    shift -= 1
    mask = size - 1
    for index in 0..<held {
      let e = storage.entries[index]
      let key = UnsafeBufferPointer(start: storage.arena + Int(e.start), count: Int(e.length))
      var i = Int(truncatingIfNeeded: HashMix.bytes(key, head: e.head) &>> shift) & mask
      while grown[i] != 0 { i = HashMix.next(i, mask: mask) }
      grown[i] = Int32(index + 1)
    }
    storage.slots.deallocate()
    storage.slots = grown
    storage.slotCount = size
  }
}

/// A set of ids by their UTF-8 bytes (`IDKey`'s identity rule) on a `ByteIndex`: for lists of
/// diners or dishes that are looked up once per row.
package struct IDSet: Sendable {
  @usableFromInline var index: ByteIndex

  /// The set of `ids`.
  package init(_ ids: some Collection<String>) { index = ByteIndex(ids) }

  /// An empty set.
  package init() { index = ByteIndex() }

  /// An empty set with room for `capacity` ids.
  package init(capacity: Int) { index = ByteIndex(capacity: capacity) }

  /// The ids held.
  @inlinable package var count: Int { index.count }

  /// Whether the set holds `id` (its UTF-8 bytes).
  @inlinable package func contains(_ id: String) -> Bool { index.find(id) != nil }

  /// Whether the set holds these bytes.
  @inlinable package func contains(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    index.find(bytes) != nil
  }

  /// Adds `id`; true when it was not held.
  @discardableResult
  package mutating func insert(_ id: String) -> Bool { index.insert(id).inserted }
}

/// Values by id (by its UTF-8 bytes, `IDKey`'s rule) on a `ByteIndex`, the values in a dense
/// array beside it: for tables built once and looked up per diner, such as the profiles of a
/// users file by id. The first value given for an id is kept.
package struct IDMap<Value: Sendable>: Sendable {
  @usableFromInline var index: ByteIndex
  /// By the index's dense index.
  package private(set) var values: [Value]

  /// An empty map.
  package init() {
    index = ByteIndex()
    values = []
  }

  /// The map of `pairs`, the first value of an id kept.
  package init(_ pairs: some Collection<(String, Value)>) {
    index = ByteIndex(capacity: pairs.count)
    values = []
    values.reserveCapacity(pairs.count)
    for (id, value) in pairs { insert(id, value) }
  }

  /// The ids held.
  @inlinable package var count: Int { index.count }

  /// The value of `id`, or nil.
  package subscript(_ id: String) -> Value? {
    index.find(id).map { values[Int($0)] }
  }

  /// Stores `value` for `id` unless it holds one; true when it was new.
  @discardableResult
  package mutating func insert(_ id: String, _ value: Value) -> Bool {
    guard index.insert(id).inserted else { return false }
    values.append(value)
    return true
  }

  /// The ids in the order they were first given.
  package var ids: [String] { (0..<index.count).map { index.string(Int32($0)) } }
}
