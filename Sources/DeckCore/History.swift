#if canImport(Glibc)
  import Glibc
#endif

/// What one diner did with one dish. Days are `DeckDate.daysSinceEpoch`; `History.never` when
/// it never happened.
public struct UserItemRecord: Sendable, Hashable {
  public var item: Int32
  public var right: Int32
  public var left: Int32
  public var lastRight: Int32
  public var lastLeft: Int32

  public init(item: Int32, right: Int32, left: Int32, lastRight: Int32, lastLeft: Int32) {
    self.item = item
    self.right = right
    self.left = left
    self.lastRight = lastRight
    self.lastLeft = lastLeft
  }

  public var shown: Int32 { right &+ left }
  /// The last day the dish was shown (swiped either way).
  public var lastShown: Int32 { max(lastRight, lastLeft) }
}

/// One diner's history, items sorted by catalog index.
public struct UserHistory: Sendable, Hashable {
  public let id: String
  public let records: [UserItemRecord]
  public let right: Int32
  public let left: Int32

  public var shown: Int32 { right &+ left }

  /// The record of one item, if the diner ever swiped it (binary search).
  public func record(for item: Int32) -> UserItemRecord? {
    var lo = 0
    var hi = records.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if records[mid].item < item { lo = mid + 1 } else { hi = mid }
    }
    return lo < records.count && records[lo].item == item ? records[lo] : nil
  }
}

/// Aggregated swipe history: everything strategies and deck rules need, independent of the order
/// in which events arrived (all aggregates are integer counts and maxima).
public struct History: Sendable {
  public static let never: Int32 = .min
  /// Per-position counts are kept for positions 1...maxTrackedPosition; swipes at later
  /// positions count everywhere else.
  public static let maxTrackedPosition: Int32 = 1000

  /// Right swipes per catalog item.
  public let itemRight: [Int32]
  /// Left swipes per catalog item.
  public let itemLeft: [Int32]
  /// Per diner, keyed by user id.
  public let users: [String: UserHistory]
  /// Swipes per 1-based position (index 0 = position 1); right swipes likewise.
  public let positionShown: [Int32]
  public let positionRight: [Int32]
  /// Totals of the events that went into the aggregates.
  public let right: Int
  public let left: Int

  public var events: Int { right + left }

  /// An empty history over a catalog of `itemCount` items.
  public init(itemCount: Int) {
    itemRight = Array(repeating: 0, count: itemCount)
    itemLeft = Array(repeating: 0, count: itemCount)
    users = [:]
    positionShown = []
    positionRight = []
    right = 0
    left = 0
  }

  init(
    itemRight: [Int32], itemLeft: [Int32], users: [String: UserHistory], positionShown: [Int32],
    positionRight: [Int32], right: Int, left: Int
  ) {
    self.itemRight = itemRight
    self.itemLeft = itemLeft
    self.users = users
    self.positionShown = positionShown
    self.positionRight = positionRight
    self.right = right
    self.left = left
  }

  public var itemCount: Int { itemRight.count }

  /// Times an item was shown (swiped either way).
  @inline(__always)
  public func shown(_ item: Int32) -> Int32 { itemRight[Int(item)] &+ itemLeft[Int(item)] }

  /// User ids in byte order (stable across runs and platforms).
  public var userIDs: [String] {
    users.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
  }
}

/// Accumulates swipes into a `History`. Feed it in any order; the result is the same.
///
/// Memory grows with distinct users and (user, item) pairs, never with the number of events.
///
/// The builder is a value: copies are independent (copy on write). Its state lives in one
/// `HistoryStorage`, so an `add` checks uniqueness once, and `add` is inlinable so that readers
/// in other modules run it in their own loop.
public struct HistoryBuilder: Sendable {
  public let itemCount: Int
  /// Events on or after this day are not aggregated (counted in `skippedFuture`): a deck for a
  /// date never learns from that date or later.
  public let cutoff: DeckDate?
  /// `cutoff` as a day number; past every `Int32` day when there is none.
  @usableFromInline let cutoffDay: Int64
  @usableFromInline var storage: HistoryStorage
  private var userSlots: [String: Int32] = [:]
  private var userNames: [String] = []

  public init(itemCount: Int, cutoff: DeckDate? = nil) {
    precondition(itemCount >= 0 && itemCount < Int(Int32.max / 4), "item count out of range")
    self.itemCount = itemCount
    self.cutoff = cutoff
    cutoffDay = cutoff.map { Int64($0.daysSinceEpoch) } ?? Int64(Int32.max) + 1
    storage = HistoryStorage(itemCount: itemCount)
  }

  /// Events left out because they were on or after the cutoff.
  public var skippedFuture: Int { storage.state.pointee.skippedFuture }

  /// Number of distinct users so far.
  public var userCount: Int { userNames.count }

  /// Number of distinct (user, item) pairs so far.
  public var pairCount: Int { storage.state.pointee.pairCount }

  /// The dense slot of a user id, created on first use. Readers intern once per distinct user.
  public mutating func userSlot(_ id: String) -> Int32 {
    if let s = userSlots[id] { return s }
    let s = Int32(userNames.count)
    userSlots[id] = s
    userNames.append(id)
    makeUnique()
    storage.state.pointee.addUser()
    return s
  }

  @inlinable @inline(__always)
  mutating func makeUnique() {
    if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
  }

  /// Adds one swipe. `item` is a catalog index; `position` is 1-based or 0 when unknown.
  @inlinable @inline(__always)
  public mutating func add(
    user: Int32, item: Int32, swipe: SwipeDirection, day: Int32, position: Int32 = 0
  ) {
    makeUnique()
    storage.state.pointee.add(
      user: user, item: item, right: swipe == .right, day: day, position: position,
      cutoffDay: cutoffDay)
  }

  /// One swipe for the bulk `add(_:)`: the arguments of `add(user:item:swipe:day:position:)` in
  /// 16 bytes.
  public struct Swipe: Sendable, Equatable {
    @usableFromInline var user: Int32
    @usableFromInline var item: Int32
    @usableFromInline var day: Int32
    /// `position << 1 | (right ? 1 : 0)`; positions outside 1...maxTrackedPosition count as 0,
    /// as they do in `add(user:item:swipe:day:position:)`.
    @usableFromInline var bits: Int32

    @inlinable
    public init(user: Int32, item: Int32, swipe: SwipeDirection, day: Int32, position: Int32 = 0) {
      self.user = user
      self.item = item
      self.day = day
      let p = position > 0 && position <= History.maxTrackedPosition ? position : 0
      bits = p << 1 | (swipe == .right ? 1 : 0)
    }
  }

  /// Adds swipes in bulk, with exactly the result of adding them one by one. The table slot of
  /// every pair is read before any is updated, so the cache misses of a batch overlap instead of
  /// coming one after another.
  public mutating func add(_ swipes: UnsafeBufferPointer<Swipe>) {
    makeUnique()
    storage.state.pointee.add(swipes, cutoffDay: cutoffDay)
  }

  /// Convenience for one decoded event.
  public mutating func add(_ event: SwipeEvent, item: Int32) {
    if let cutoff, event.day >= cutoff {
      makeUnique()
      storage.state.pointee.skippedFuture += 1
      return
    }
    let slot = userSlot(event.user)
    add(
      user: slot, item: item, swipe: event.swipe, day: event.day.daysSinceEpoch,
      position: Int32(clamping: event.position ?? 0))
  }

  public func build() -> History {
    storage.state.pointee.build(userNames: userNames)
  }
}

/// The state of a `HistoryBuilder` in manually managed buffers (no per-access uniqueness or
/// bounds checks on the hot path; indices are checked once per event).
///
/// Pairs are kept user-major: each user owns a small open-addressing table from item to counts
/// in one shared arena, so the swipes of a session (one diner, several cards in a row) touch the
/// same few cache lines. A table that fills up moves to a larger region (four times its size
/// while small, then twice); the region it leaves is reused by the next table that grows to that
/// size. The regions a table left behind add up to less than its current size, so memory stays
/// proportional to the number of pairs.
@usableFromInline
struct HistoryState {
  /// One (user, item) pair: 20 bytes, `item == -1` when the slot is empty.
  @usableFromInline
  struct Pair: Sendable {
    @usableFromInline var item: Int32
    @usableFromInline var right: Int32
    @usableFromInline var left: Int32
    @usableFromInline var lastRight: Int32
    @usableFromInline var lastLeft: Int32

    var record: UserItemRecord {
      UserItemRecord(
        item: item, right: right, left: left, lastRight: lastRight, lastLeft: lastLeft)
    }

    @usableFromInline static let empty = Pair(
      item: -1, right: 0, left: 0, lastRight: History.never, lastLeft: History.never)

    @inlinable
    init(item: Int32, right: Int32, left: Int32, lastRight: Int32, lastLeft: Int32) {
      self.item = item
      self.right = right
      self.left = left
      self.lastRight = lastRight
      self.lastLeft = lastLeft
    }
  }

  /// One user: where its pair table is, its size, and its totals.
  @usableFromInline
  struct User {
    /// The user's table (in one of the arena's chunks, which never move).
    @usableFromInline var table: UnsafeMutablePointer<Pair>
    /// Occupied slots.
    @usableFromInline var count: Int32
    /// `32 - log2(capacity)`: the slot of an item is the top bits of a 32-bit product.
    @usableFromInline var shift: UInt32
    @usableFromInline var right: Int32
    @usableFromInline var left: Int32

    @inlinable var capacity: Int { 1 &<< Int(32 &- shift) }
  }

  @usableFromInline static let minTable = 4
  @usableFromInline static let maxPosition = Int(History.maxTrackedPosition)

  @usableFromInline let itemCount: Int
  /// Per item: right swipes at `2 * item`, left swipes at `2 * item + 1`.
  @usableFromInline var itemCounts: UnsafeMutablePointer<Int32>
  /// Per position p (1-based): swipes at `2 * (p - 1)`, right swipes at `2 * (p - 1) + 1`.
  @usableFromInline var positions: UnsafeMutablePointer<Int32>
  /// The highest tracked position seen.
  @usableFromInline var topPosition = 0
  @usableFromInline var users: UnsafeMutablePointer<User>
  @usableFromInline var userCount = 0
  @usableFromInline var userCapacity: Int
  /// The arena: chunks of pair slots, handed out from `cursor` on.
  var chunks: [(base: UnsafeMutablePointer<Pair>, count: Int)] = []
  var cursor: UnsafeMutablePointer<Pair>?
  var cursorLeft = 0
  /// Slots handed out from the arena (live tables and abandoned ones).
  /// Regions left behind by tables that grew, by log2 of their size, for reuse.
  var freeRegions = [[UnsafeMutablePointer<Pair>]](repeating: [], count: 64)
  @usableFromInline var pairCount = 0
  @usableFromInline var right = 0
  @usableFromInline var left = 0
  @usableFromInline var skippedFuture = 0
  /// Where the bulk `add` leaves the pair slots it reads ahead (so the reads are not dropped).
  var touched: Int32 = 0

  init(itemCount: Int) {
    self.itemCount = itemCount
    itemCounts = .allocate(capacity: max(2 * itemCount, 1))
    itemCounts.initialize(repeating: 0, count: max(2 * itemCount, 1))
    positions = .allocate(capacity: 2 * HistoryState.maxPosition)
    positions.initialize(repeating: 0, count: 2 * HistoryState.maxPosition)
    userCapacity = 64
    users = .allocate(capacity: userCapacity)
  }

  /// Frees the buffers (the owning `HistoryStorage` calls it once).
  func free() {
    itemCounts.deallocate()
    positions.deallocate()
    users.deallocate()
    for chunk in chunks { HistoryState.freeChunk(chunk.base) }
  }

  /// An independent copy.
  func copy() -> HistoryState {
    var c = HistoryState(itemCount: itemCount)
    c.itemCounts.update(from: itemCounts, count: max(2 * itemCount, 1))
    c.positions.update(from: positions, count: 2 * HistoryState.maxPosition)
    c.topPosition = topPosition
    c.users.deallocate()
    c.userCapacity = max(userCapacity, 1)
    c.users = .allocate(capacity: c.userCapacity)
    c.users.initialize(from: users, count: userCount)
    c.userCount = userCount
    // The copy's tables, packed into one chunk.
    var live = 0
    for u in 0..<userCount { live += users[u].capacity }
    let base = HistoryState.allocateChunk(max(live, 1))
    c.chunks = [(base, max(live, 1))]
    var next = base
    for u in 0..<userCount {
      let n = users[u].capacity
      next.initialize(from: users[u].table, count: n)
      c.users[u].table = next
      next += n
    }
    c.pairCount = pairCount
    c.right = right
    c.left = left
    c.skippedFuture = skippedFuture
    return c
  }

  /// Adds a user with an empty table.
  mutating func addUser() {
    if userCount == userCapacity {
      let bigger = UnsafeMutablePointer<User>.allocate(capacity: userCapacity * 2)
      bigger.moveInitialize(from: users, count: userCount)
      users.deallocate()
      users = bigger
      userCapacity *= 2
    }
    let table = reserve(HistoryState.minTable)
    (users + userCount).initialize(
      to: User(
        table: table, count: 0, shift: 32 - 2, right: 0, left: 0))
    userCount += 1
  }

  /// Slots per chunk of the arena, 4 MiB (a larger table gets a chunk of its own).
  static let chunkSlots = (4 << 20) / MemoryLayout<Pair>.stride

  /// Bytes of a huge page (Linux, x86-64 and most arm64 kernels).
  static let hugePage = 2 << 20

  /// Memory for `n` pair slots. On Linux, aligned to huge pages and advised as such: pair
  /// lookups land anywhere in tens of megabytes, and with 4 KiB pages nearly every one would
  /// also miss the TLB. Freed with `freeChunk`.
  static func allocateChunk(_ n: Int) -> UnsafeMutablePointer<Pair> {
    #if canImport(Glibc)
      let bytes = n * MemoryLayout<Pair>.stride
      var raw: UnsafeMutableRawPointer? = nil
      if bytes >= hugePage, posix_memalign(&raw, hugePage, bytes) == 0, let raw {
        let whole = bytes & ~(hugePage - 1)
        _ = madvise(raw, whole, Int32(MADV_HUGEPAGE))
        return raw.bindMemory(to: Pair.self, capacity: n)
      }
      guard let small = malloc(max(bytes, 1)) else { fatalError("out of memory") }
      return small.bindMemory(to: Pair.self, capacity: n)
    #else
      return .allocate(capacity: n)
    #endif
  }

  static func freeChunk(_ p: UnsafeMutablePointer<Pair>) {
    #if canImport(Glibc)
      Glibc.free(p)
    #else
      p.deallocate()
    #endif
  }

  /// Hands out `n` (a power of two) empty slots: a region some table left behind, or fresh
  /// slots from the current chunk, or from a new one. Chunks never move, so tables keep their
  /// addresses.
  private mutating func reserve(_ n: Int) -> UnsafeMutablePointer<Pair> {
    if let reused = freeRegions[n.trailingZeroBitCount].popLast() {
      reused.update(repeating: .empty, count: n)
      return reused
    }
    if n > cursorLeft {
      // The rest of the chunk, in power-of-two pieces, for later tables.
      if var rest = cursor {
        var left = cursorLeft
        while left > 0 {
          let piece = 1 << (Int.bitWidth - 1 - left.leadingZeroBitCount)
          rest.initialize(repeating: .empty, count: piece)
          freeRegions[piece.trailingZeroBitCount].append(rest)
          rest += piece
          left -= piece
        }
      }
      let size = max(n, HistoryState.chunkSlots)
      let chunk = HistoryState.allocateChunk(size)
      chunks.append((chunk, size))
      cursor = chunk
      cursorLeft = size
    }
    let region = cursor!
    region.initialize(repeating: .empty, count: n)
    cursor = region + n
    cursorLeft -= n
    return region
  }

  @inlinable @inline(__always)
  static func slot(_ item: Int32, _ shift: UInt32) -> Int {
    Int(truncatingIfNeeded: (UInt32(bitPattern: item) &* 0x9E37_79B9) &>> shift)
  }

  @inlinable @inline(__always)
  mutating func add(
    user: Int32, item: Int32, right isRight: Bool, day: Int32, position: Int32, cutoffDay: Int64
  ) {
    precondition(UInt(bitPattern: Int(item)) < UInt(itemCount), "item index out of range")
    precondition(UInt(bitPattern: Int(user)) < UInt(userCount), "user slot out of range")
    if Int64(day) >= cutoffDay {
      skippedFuture &+= 1
      return
    }
    let u = users + Int(user)
    if isRight {
      itemCounts[2 &* Int(item)] &+= 1
      u.pointee.right &+= 1
      right &+= 1
    } else {
      itemCounts[2 &* Int(item) &+ 1] &+= 1
      u.pointee.left &+= 1
      left &+= 1
    }
    let p = Int(position) &- 1
    if UInt(bitPattern: p) < UInt(HistoryState.maxPosition) {
      positions[2 &* p] &+= 1
      if isRight { positions[2 &* p &+ 1] &+= 1 }
      if p >= topPosition { topPosition = p &+ 1 }
    }
    let table = u.pointee.table
    let shift = u.pointee.shift
    let mask = (1 &<< Int(32 &- shift)) &- 1
    var i = HistoryState.slot(item, shift)
    while true {
      let e = table + i
      let k = e.pointee.item
      if k == item {
        if isRight {
          e.pointee.right &+= 1
          if day > e.pointee.lastRight { e.pointee.lastRight = day }
        } else {
          e.pointee.left &+= 1
          if day > e.pointee.lastLeft { e.pointee.lastLeft = day }
        }
        return
      }
      if k < 0 { break }
      i = (i &+ 1) & mask
    }
    let fresh = Pair(
      item: item, right: isRight ? 1 : 0, left: isRight ? 0 : 1,
      lastRight: isRight ? day : History.never, lastLeft: isRight ? History.never : day)
    if (Int(u.pointee.count) &+ 1) &* 4 <= (mask &+ 1) &* 3 {
      table[i] = fresh
      u.pointee.count &+= 1
      pairCount &+= 1
    } else {
      insertGrowing(user: Int(user), fresh)
    }
  }

  mutating func add(_ swipes: UnsafeBufferPointer<HistoryBuilder.Swipe>, cutoffDay: Int64) {
    // Pass 1: independent loads of each pair's first probe slot, many in flight at once.
    var t: Int32 = 0
    for s in swipes where UInt(bitPattern: Int(s.user)) < UInt(userCount) {
      let u = users[Int(s.user)]
      t |= u.table[HistoryState.slot(s.item, u.shift)].item
    }
    touched = t
    // Pass 2: the updates, now mostly from cache.
    for s in swipes {
      add(
        user: s.user, item: s.item, right: s.bits & 1 != 0, day: s.day, position: s.bits >> 1,
        cutoffDay: cutoffDay)
    }
  }

  /// Tables below this many slots grow fourfold, larger ones double: fewer moves (each one reads
  /// and writes memory that is seldom in cache) for the many diners with up to a couple of
  /// hundred dishes (4, 16, 64, 256 slots: three moves instead of four on the way to 256).
  static let fourfoldBelow = 256

  /// Grows a user's table, then inserts a new pair into it.
  @usableFromInline @inline(never)
  mutating func insertGrowing(user: Int, _ pair: Pair) {
    let oldCapacity = users[user].capacity
    let old = users[user].table
    let steps: UInt32 = oldCapacity < HistoryState.fourfoldBelow ? 2 : 1
    let capacity = oldCapacity << Int(steps)
    let table = reserve(capacity)
    let shift = users[user].shift - steps
    let mask = capacity - 1
    for j in 0..<oldCapacity where old[j].item >= 0 {
      var i = HistoryState.slot(old[j].item, shift)
      while table[i].item >= 0 { i = (i + 1) & mask }
      table[i] = old[j]
    }
    var i = HistoryState.slot(pair.item, shift)
    while table[i].item >= 0 { i = (i + 1) & mask }
    table[i] = pair
    freeRegions[oldCapacity.trailingZeroBitCount].append(old)
    users[user].table = table
    users[user].shift = shift
    users[user].count += 1
    pairCount += 1
  }

  func build(userNames: [String]) -> History {
    precondition(userNames.count == userCount)
    var byUser: [String: UserHistory] = [:]
    byUser.reserveCapacity(userCount)
    // Per user, the records in item order: from a bitmap over the catalog when that is small
    // next to the user's records, else by sorting (item, slot) keys.
    let words = (itemCount + 63) / 64
    let bits = UnsafeMutablePointer<UInt64>.allocate(capacity: max(words, 1))
    bits.initialize(repeating: 0, count: max(words, 1))
    let slotOf = UnsafeMutablePointer<Int32>.allocate(capacity: max(itemCount, 1))
    slotOf.initialize(repeating: 0, count: max(itemCount, 1))
    defer {
      bits.deallocate()
      slotOf.deallocate()
    }
    var keys = [UInt64](repeating: 0, count: 64)
    for u in 0..<userCount {
      let user = users[u]
      let table = user.table
      let capacity = user.capacity
      let count = Int(user.count)
      let records: [UserItemRecord]
      if words <= 4 * count + 8 {
        for j in 0..<capacity where table[j].item >= 0 {
          let item = Int(table[j].item)
          bits[item >> 6] |= 1 << UInt64(item & 63)
          slotOf[item] = Int32(j)
        }
        records = [UserItemRecord](unsafeUninitializedCapacity: count) { buffer, initialized in
          var k = 0
          for w in 0..<words where bits[w] != 0 {
            var word = bits[w]
            bits[w] = 0
            while word != 0 {
              let item = w << 6 | word.trailingZeroBitCount
              (buffer.baseAddress! + k).initialize(to: table[Int(slotOf[item])].record)
              k += 1
              word &= word &- 1
            }
          }
          initialized = k
        }
      } else {
        if keys.count < count { keys = [UInt64](repeating: 0, count: capacity) }
        records = keys.withUnsafeMutableBufferPointer { k in
          var n = 0
          for j in 0..<capacity where table[j].item >= 0 {
            k[n] = UInt64(UInt32(bitPattern: table[j].item)) << 32 | UInt64(j)
            n += 1
          }
          sortKeys(UnsafeMutableBufferPointer(rebasing: k[0..<n]))
          return [UserItemRecord](unsafeUninitializedCapacity: n) { buffer, initialized in
            for i in 0..<n {
              let slot = Int(truncatingIfNeeded: k[i] & 0xFFFF_FFFF)
              (buffer.baseAddress! + i).initialize(to: table[slot].record)
            }
            initialized = n
          }
        }
      }
      byUser[userNames[u]] = UserHistory(
        id: userNames[u], records: records, right: user.right, left: user.left)
    }
    var itemRight = [Int32](repeating: 0, count: itemCount)
    var itemLeft = [Int32](repeating: 0, count: itemCount)
    for i in 0..<itemCount {
      itemRight[i] = itemCounts[2 * i]
      itemLeft[i] = itemCounts[2 * i + 1]
    }
    var positionShown = [Int32](repeating: 0, count: topPosition)
    var positionRight = [Int32](repeating: 0, count: topPosition)
    for p in 0..<topPosition {
      positionShown[p] = positions[2 * p]
      positionRight[p] = positions[2 * p + 1]
    }
    return History(
      itemRight: itemRight, itemLeft: itemLeft, users: byUser, positionShown: positionShown,
      positionRight: positionRight, right: right, left: left)
  }
}

/// Owns a `HistoryState` (frees its buffers once). The state sits behind a pointer so that the
/// hot path reaches it without the dynamic exclusivity checks of class properties.
@usableFromInline
final class HistoryStorage: @unchecked Sendable {
  @usableFromInline let state: UnsafeMutablePointer<HistoryState>

  init(_ value: HistoryState) {
    state = .allocate(capacity: 1)
    state.initialize(to: value)
  }

  convenience init(itemCount: Int) {
    self.init(HistoryState(itemCount: itemCount))
  }

  deinit {
    state.pointee.free()
    state.deinitialize(count: 1)
    state.deallocate()
  }

  /// An independent copy (copy on write).
  @usableFromInline
  func copy() -> HistoryStorage { HistoryStorage(state.pointee.copy()) }
}

/// Sorts keys ascending: insertion sort for the short runs most diners have, the standard sort
/// beyond.
func sortKeys(_ buffer: UnsafeMutableBufferPointer<UInt64>) {
  var r = buffer
  if r.count > 48 {
    r.sort()
    return
  }
  var i = 1
  while i < r.count {
    let x = r[i]
    var j = i
    while j > 0 && r[j - 1] > x {
      r[j] = r[j - 1]
      j -= 1
    }
    r[j] = x
    i += 1
  }
}
