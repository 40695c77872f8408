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
  public let records: UserItemRecords
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
    /// The user's slot (`userSlot(_:)`).
    public var user: Int32
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

  /// Lets the arena map at most `bytes` more, as if the system refused the rest (tests of the
  /// out-of-memory path).
  mutating func limitArena(toBytes bytes: Int) {
    makeUnique()
    storage.state.pointee.byteLimit = storage.state.pointee.mappedTotal + bytes
  }

  /// The history of the swipes added.
  ///
  /// - Throws: `DeckCoreError.outOfMemory` when the system refused memory for it, here or in an
  ///   earlier `add` (which then added nothing more).
  public func build() throws(DeckCoreError) -> History {
    try storage.state.pointee.build(userNames: userNames)
  }
}

/// The state of a `HistoryBuilder` in manually managed buffers (no per-access uniqueness or
/// bounds checks on the hot path; indices are checked once per event).
///
/// Pairs are kept user-major, so that the swipes of a session (one diner, several cards in a
/// row) touch one diner's memory. Each diner starts with a small open-addressing table from item
/// to counts (16-byte `Pair`s); a table that fills up moves to a larger one (four times its size
/// while small, then twice), and when the larger table would take at least as many bytes as a
/// direct array over the whole catalog, the diner gets that array instead (8-byte `Cell`s
/// indexed by item: no probing, no further moves, records come out in item order). Memory stays
/// proportional to the number of pairs: a diner's array is never larger than the table it takes
/// the place of.
///
/// Both layouts pack counts into 16 bits and cells pack days into 16 bits; what does not fit
/// goes to `spills`, exactly (see `Spill`), so the results are those of full-width counters.
///
/// Tables and arrays live in an arena of zero-filled chunks that never move; all-zero memory is
/// an empty table and an empty array. A region left behind by a table that grew is reused by the
/// next table that grows to that size.
@usableFromInline
struct HistoryState {
  /// One (user, item) pair of a hash table: 16 bytes, all zero when the slot is empty.
  @usableFromInline
  struct Pair: Sendable {
    /// `item + 1`; 0 for an empty slot.
    @usableFromInline var key: UInt32
    /// The low 16 bits of the counts; the rest is in the pair's `Spill`.
    @usableFromInline var right: UInt16
    @usableFromInline var left: UInt16
    @usableFromInline var lastRight: Int32
    @usableFromInline var lastLeft: Int32

    @inlinable
    init(key: UInt32, right: UInt16, left: UInt16, lastRight: Int32, lastLeft: Int32) {
      self.key = key
      self.right = right
      self.left = left
      self.lastRight = lastRight
      self.lastLeft = lastLeft
    }
  }

  /// One item of a diner's direct array: 8 bytes, all zero when the diner never swiped it.
  ///
  /// Four 16-bit fields in one word, so that a swipe updates the one chosen by its direction
  /// with shifts instead of branches: the low 16 bits of the right and left counts (the rest is
  /// in the pair's `Spill`), then the `dayCode` of the latest right and left day (0 for none,
  /// `spilled` when the day is in the pair's `Spill`).
  @usableFromInline
  struct Cell: Sendable {
    @usableFromInline var bits: UInt64

    /// Bit offsets of the fields: a count at `countOffset(right:)`, its day 32 bits higher.
    @inlinable @inline(__always)
    static func countOffset(right: Bool) -> UInt64 { right ? 0 : 16 }

    init(right: UInt16, left: UInt16, lastRight: UInt16, lastLeft: UInt16) {
      bits =
        UInt64(right) | UInt64(left) << 16 | UInt64(lastRight) << 32 | UInt64(lastLeft) << 48
    }

    @inlinable @inline(__always)
    func field(_ offset: UInt64) -> UInt16 { UInt16(truncatingIfNeeded: bits &>> offset) }

    @inlinable @inline(__always)
    mutating func set(_ offset: UInt64, _ value: UInt16) {
      bits = bits & ~(0xFFFF &<< offset) | UInt64(value) &<< offset
    }

    var right: UInt16 { field(0) }
    var left: UInt16 { field(16) }
    var lastRight: UInt16 { field(32) }
    var lastLeft: UInt16 { field(48) }
    /// Whether the diner swiped the item (every swipe leaves a nonzero day code).
    @inlinable var isUsed: Bool { bits &>> 32 != 0 }
  }

  /// What the packed layouts leave out, for the rare pair that needs it: the counts in multiples
  /// of 65,536 and, for a cell whose day code is `spilled`, the latest day itself.
  struct Spill: Equatable {
    var right: Int64 = 0
    var left: Int64 = 0
    var lastRight: Int32 = History.never
    var lastLeft: Int32 = History.never
  }

  /// The cell day code that means "see the spill".
  @usableFromInline static let spilled: UInt16 = 0xFFFF

  /// A day as a cell code: days 0...65,533 (1970-01-01 to 2149-06-04) are `day + 1`; every other
  /// day (earlier, later, or `History.never` itself) is `spilled`.
  @inlinable @inline(__always)
  static func dayCode(_ day: Int32) -> UInt16 {
    UInt32(bitPattern: day) < UInt32(spilled) - 1 ? UInt16(truncatingIfNeeded: day &+ 1) : spilled
  }

  /// The day of an in-range code (`1...65,534`), or `History.never` for 0.
  static func day(ofCode code: UInt16) -> Int32 { code == 0 ? History.never : Int32(code) - 1 }

  /// One user: where its table or array is, its size, and its totals.
  @usableFromInline
  struct User {
    /// The user's pairs (hash table) or cells (direct array), in one of the arena's chunks.
    @usableFromInline var table: UnsafeMutableRawPointer
    /// Distinct items.
    @usableFromInline var count: Int32
    /// A hash table: `32 - log2(capacity)` (the slot of an item is the top bits of a 32-bit
    /// product). A direct array: 0.
    @usableFromInline var shift: UInt32
    /// Right swipes at 0, left swipes at 1.
    @usableFromInline var swipes: SIMD2<Int32>

    @inlinable var isArray: Bool { shift == 0 }
    /// Slots of a hash table.
    @inlinable var capacity: Int { 1 &<< Int(32 &- shift) }
  }

  /// Slots of a new user's table.
  @usableFromInline static let minTable = 4
  @usableFromInline static let maxPosition = Int(History.maxTrackedPosition)
  /// Bytes of an arena unit: one pair, a quarter of a cache line. Regions are whole lines.
  static let unit = MemoryLayout<Pair>.stride

  @usableFromInline let itemCount: Int
  /// Units of a direct array over the catalog (whole cache lines).
  let arrayUnits: Int
  /// Per item: right swipes at `2 * item`, left swipes at `2 * item + 1`.
  @usableFromInline var itemCounts: UnsafeMutablePointer<Int32>
  /// Per position p (1-based): swipes at `2 * (p - 1)`, right swipes at `2 * (p - 1) + 1`.
  @usableFromInline var positions: UnsafeMutablePointer<Int32>
  /// The highest tracked position seen.
  @usableFromInline var topPosition = 0
  @usableFromInline var users: UnsafeMutablePointer<User>
  @usableFromInline var userCount = 0
  @usableFromInline var userCapacity: Int
  /// The arena: zero-filled chunks, handed out from `cursor` on.
  var chunks: [(base: UnsafeMutableRawPointer, bytes: Int)] = []
  var cursor: UnsafeMutableRawPointer?
  /// Units left after `cursor` in the current chunk.
  var cursorLeft = 0
  /// Regions left behind by tables that grew, by log2 of their size in units, for reuse.
  var freeRegions = [[UnsafeMutableRawPointer]](repeating: [], count: 64)
  /// The overflow of packed counts and days, by `spillKey(user, item)` (empty in practice).
  var spills: [UInt64: Spill] = [:]
  @usableFromInline var pairCount = 0
  /// Right swipes at 0, left swipes at 1.
  @usableFromInline var swipes: SIMD2<Int> = .zero
  @usableFromInline var skippedFuture = 0
  /// Where the bulk `add` leaves the memory it reads ahead (so the reads are not dropped).
  var touched: UInt8 = 0
  /// The bulk `add`'s addresses to read ahead.
  var scratch = UnsafeMutablePointer<UnsafeRawPointer>.allocate(capacity: 1)
  var scratchCapacity = 1
  /// The size of the first block of memory the system refused, or 0. Once it is set, `add`
  /// adds nothing (tables may be missing) and `build` throws.
  @usableFromInline var refusedBytes = 0
  /// Bytes of the arena's chunks, and the most it may map (tests lower it to see a refusal).
  var mappedTotal = 0
  var byteLimit = Int.max / 4

  init(itemCount: Int) {
    self.itemCount = itemCount
    let lines = (itemCount * MemoryLayout<Cell>.stride + 63) / 64
    arrayUnits = max(lines, 1) * (64 / HistoryState.unit)
    itemCounts = .allocate(capacity: max(2 * itemCount, 1))
    itemCounts.initialize(repeating: 0, count: max(2 * itemCount, 1))
    positions = .allocate(capacity: 2 * HistoryState.maxPosition)
    positions.initialize(repeating: 0, count: 2 * HistoryState.maxPosition)
    userCapacity = 64
    users = .allocate(capacity: userCapacity)
  }

  /// Frees the buffers (the owning `HistoryStorage` calls it once).
  func free() {
    scratch.deallocate()
    itemCounts.deallocate()
    positions.deallocate()
    users.deallocate()
    for chunk in chunks { HistoryState.freeChunk(chunk.base, bytes: chunk.bytes) }
  }

  /// Units of a user's table or array.
  func units(_ user: User) -> Int { user.isArray ? arrayUnits : user.capacity }

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
    // A state that ran out of memory adds nothing more and its tables are not all there: the
    // copy keeps the users (for their count) and the failure.
    c.refusedBytes = refusedBytes
    if refusedBytes != 0 { return c }
    // The copy's tables, packed into one chunk.
    var live = 0
    for u in 0..<userCount { live += units(users[u]) }
    let bytes = max(live, 1) * HistoryState.unit
    guard let base = HistoryState.allocateChunk(bytes) else {
      c.refusedBytes = bytes
      return c
    }
    c.chunks = [(base, bytes)]
    var next = base
    for u in 0..<userCount {
      let n = units(users[u]) * HistoryState.unit
      next.copyMemory(from: users[u].table, byteCount: n)
      c.users[u].table = next
      next += n
    }
    c.spills = spills
    c.pairCount = pairCount
    c.swipes = swipes
    c.skippedFuture = skippedFuture
    return c
  }

  /// Adds a user with an empty table (or an empty array, for a catalog that small). When the
  /// memory for it is refused, the user is still counted (its slot is handed out) but has no
  /// table: `refusedBytes` is set, and nothing is added to any table again.
  mutating func addUser() {
    if userCount == userCapacity {
      let bigger = UnsafeMutablePointer<User>.allocate(capacity: userCapacity * 2)
      bigger.moveInitialize(from: users, count: userCount)
      users.deallocate()
      users = bigger
      userCapacity *= 2
    }
    let array = arrayUnits <= HistoryState.minTable
    let table =
      refusedBytes == 0 ? reserve(array ? arrayUnits : HistoryState.minTable) : nil
    (users + userCount).initialize(
      to: User(
        table: table ?? HistoryState.noTable, count: 0, shift: array ? 0 : 32 - 2, swipes: .zero))
    userCount += 1
  }

  /// The table of a user added after memory ran out: never read or written (`add` adds nothing
  /// once `refusedBytes` is set).
  static var noTable: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: 64)! }

  /// Bytes per chunk of the arena, 4 MiB (a larger region gets a chunk of its own).
  static let chunkBytes = 4 << 20

  /// Bytes of a huge page (Linux, x86-64 and most arm64 kernels).
  static let hugePage = 2 << 20

  /// `bytes` of zero-filled memory (any number; the arena asks for whole units), freed with
  /// `freeChunk`. Mapped
  /// straight from the kernel: its pages are zero without a pass of ours. On Linux, aligned to
  /// huge pages and advised as such: pair lookups land anywhere in tens of megabytes, and with
  /// 4 KiB pages nearly every one would also miss the TLB.
  /// nil when the system refuses the memory (or `bytes` is beyond any address space).
  static func allocateChunk(_ bytes: Int) -> UnsafeMutableRawPointer? {
    guard bytes >= 0, bytes <= Int.max / 4 else { return nil }
    #if canImport(Glibc)
      let bytes = mappedBytes(bytes)
      let length = bytes + hugePage
      guard
        let raw = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
        raw != MAP_FAILED
      else { return nil }
      // Keep the aligned part only.
      let start = (Int(bitPattern: raw) + hugePage - 1) & ~(hugePage - 1)
      let head = start - Int(bitPattern: raw)
      if head > 0 { munmap(raw, head) }
      let tail = length - head - bytes
      if tail > 0 { munmap(raw + head + bytes, tail) }
      let chunk = raw + head
      if bytes >= hugePage { _ = madvise(chunk, bytes & ~(hugePage - 1), Int32(MADV_HUGEPAGE)) }
      return chunk
    #else
      let chunk = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
      chunk.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
      return chunk
    #endif
  }

  #if canImport(Glibc)
    static let pageSize = max(Int(sysconf(Int32(_SC_PAGESIZE))), 1)

    /// A chunk's bytes as mapped: whole pages.
    static func mappedBytes(_ bytes: Int) -> Int { (bytes + pageSize - 1) / pageSize * pageSize }
  #endif

  static func freeChunk(_ chunk: UnsafeMutableRawPointer, bytes: Int) {
    #if canImport(Glibc)
      munmap(chunk, mappedBytes(bytes))
    #else
      chunk.deallocate()
    #endif
  }

  /// Hands out `n` units of zero memory (`n` a multiple of 4): a region some table left behind
  /// (for a power of two), or fresh units from the current chunk, or from a new one. Chunks never
  /// move, so tables keep their addresses. nil, with `refusedBytes` set, when the system refuses
  /// a new chunk (or `byteLimit` would be passed).
  private mutating func reserve(_ n: Int) -> UnsafeMutableRawPointer? {
    if n.nonzeroBitCount == 1, let reused = freeRegions[n.trailingZeroBitCount].popLast() {
      reused.initializeMemory(as: UInt8.self, repeating: 0, count: n * HistoryState.unit)
      return reused
    }
    if n > cursorLeft {
      let bytes = max(n * HistoryState.unit, HistoryState.chunkBytes)
      guard mappedTotal <= byteLimit - bytes, let chunk = HistoryState.allocateChunk(bytes) else {
        refusedBytes = bytes
        return nil
      }
      mappedTotal += bytes
      // The rest of the chunk, in power-of-two pieces (of 4 units and more), for later tables.
      if var rest = cursor {
        var left = cursorLeft
        while left > 0 {
          let piece = 1 << (Int.bitWidth - 1 - left.leadingZeroBitCount)
          freeRegions[piece.trailingZeroBitCount].append(rest)
          rest += piece * HistoryState.unit
          left -= piece
        }
      }
      chunks.append((chunk, bytes))
      cursor = chunk
      cursorLeft = bytes / HistoryState.unit
    }
    let region = cursor!
    cursor = region + n * HistoryState.unit
    cursorLeft -= n
    return region
  }

  @inlinable @inline(__always)
  static func slot(_ item: Int32, _ shift: UInt32) -> Int {
    Int(truncatingIfNeeded: (UInt32(bitPattern: item) &* 0x9E37_79B9) &>> shift)
  }

  @inlinable @inline(__always)
  static func spillKey(_ user: Int, _ item: Int32) -> UInt64 {
    UInt64(truncatingIfNeeded: user) << 32 | UInt64(UInt32(bitPattern: item))
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
    // Out of memory: tables may be missing, and `build` will throw.
    if _slowPath(refusedBytes != 0) { return }
    // The direction picks counters by index, not by branch (it is unpredictable).
    let u = users + Int(user)
    let side = isRight ? 0 : 1
    itemCounts[2 &* Int(item) &+ side] &+= 1
    u.pointee.swipes[side] &+= 1
    swipes[side] &+= 1
    let p = Int(position) &- 1
    if UInt(bitPattern: p) < UInt(HistoryState.maxPosition) {
      positions[2 &* p] &+= 1
      positions[2 &* p &+ 1] &+= isRight ? 1 : 0
      if p >= topPosition { topPosition = p &+ 1 }
    }
    let shift = u.pointee.shift
    if shift == 0 {
      addToArray(user: user, item: item, right: isRight, day: day)
      return
    }
    let table = u.pointee.table.assumingMemoryBound(to: Pair.self)
    let mask = (1 &<< Int(32 &- shift)) &- 1
    let key = UInt32(bitPattern: item) &+ 1
    var i = HistoryState.slot(item, shift)
    while true {
      let e = table + i
      let k = e.pointee.key
      if k == key {
        if isRight {
          if e.pointee.right == .max { carry(user: user, item: item, right: true) }
          e.pointee.right &+= 1
          if day > e.pointee.lastRight { e.pointee.lastRight = day }
        } else {
          if e.pointee.left == .max { carry(user: user, item: item, right: false) }
          e.pointee.left &+= 1
          if day > e.pointee.lastLeft { e.pointee.lastLeft = day }
        }
        return
      }
      if k == 0 { break }
      i = (i &+ 1) & mask
    }
    let fresh = Pair(
      key: key, right: isRight ? 1 : 0, left: isRight ? 0 : 1,
      lastRight: isRight ? day : History.never, lastLeft: isRight ? History.never : day)
    if (Int(u.pointee.count) &+ 1) &* 4 <= (mask &+ 1) &* 3 {
      table[i] = fresh
      u.pointee.count &+= 1
      pairCount &+= 1
    } else {
      insertGrowing(user: Int(user), fresh)
    }
  }

  /// The update of a diner with a direct array: the count and the day chosen by the direction,
  /// by shifts; a count about to wrap or a day without a code takes the slow path.
  @inlinable @inline(__always)
  mutating func addToArray(user: Int32, item: Int32, right isRight: Bool, day: Int32) {
    let u = users + Int(user)
    let c = u.pointee.table.assumingMemoryBound(to: Cell.self) + Int(item)
    let bits = c.pointee.bits
    let countAt = Cell.countOffset(right: isRight)
    let dayAt = countAt &+ 32
    let count = (bits &>> countAt) & 0xFFFF
    let last = (bits &>> dayAt) & 0xFFFF
    let code = UInt64(HistoryState.dayCode(day))
    let spilled = UInt64(HistoryState.spilled)
    if count == 0xFFFF || last == spilled || code == spilled {
      addToArraySlowly(user: user, item: item, right: isRight, day: day)
      return
    }
    let used: Int32 = bits &>> 32 != 0 ? 0 : 1
    u.pointee.count &+= used
    pairCount &+= Int(used)
    c.pointee.bits = (bits &+ (1 &<< countAt)) ^ ((last ^ max(last, code)) &<< dayAt)
  }

  /// `addToArray` for a count about to wrap to 0 or a day that has no code or meets one that is
  /// spilled.
  @usableFromInline @inline(never)
  mutating func addToArraySlowly(user: Int32, item: Int32, right isRight: Bool, day: Int32) {
    let u = users + Int(user)
    let c = u.pointee.table.assumingMemoryBound(to: Cell.self) + Int(item)
    if !c.pointee.isUsed {
      u.pointee.count &+= 1
      pairCount &+= 1
    }
    let countAt = Cell.countOffset(right: isRight)
    if c.pointee.field(countAt) == .max { carry(user: user, item: item, right: isRight) }
    c.pointee.set(countAt, c.pointee.field(countAt) &+ 1)
    let code = HistoryState.dayCode(day)
    let last = c.pointee.field(countAt + 32)
    if last < code && code != HistoryState.spilled {
      c.pointee.set(countAt + 32, code)
    } else if last == HistoryState.spilled || code == HistoryState.spilled {
      spillDay(user: user, item: item, right: isRight, day: day)
    }
  }

  /// A 16-bit count is about to wrap to 0: its 65,536 go to the spill.
  @usableFromInline @inline(never)
  mutating func carry(user: Int32, item: Int32, right: Bool) {
    let key = HistoryState.spillKey(Int(user), item)
    if right {
      spills[key, default: Spill()].right += 0x1_0000
    } else {
      spills[key, default: Spill()].left += 0x1_0000
    }
  }

  /// A day that has no cell code, or a cell whose day is already spilled: the latest day goes to
  /// the spill (with the cell's own day, if it had one) and the cell says `spilled`.
  @usableFromInline @inline(never)
  mutating func spillDay(user: Int32, item: Int32, right: Bool, day: Int32) {
    let c = users[Int(user)].table.assumingMemoryBound(to: Cell.self) + Int(item)
    let key = HistoryState.spillKey(Int(user), item)
    var s = spills[key] ?? Spill()
    let dayAt = Cell.countOffset(right: right) + 32
    let old = c.pointee.field(dayAt)
    if right {
      if old != HistoryState.spilled { s.lastRight = HistoryState.day(ofCode: old) }
      s.lastRight = max(s.lastRight, day)
    } else {
      if old != HistoryState.spilled { s.lastLeft = HistoryState.day(ofCode: old) }
      s.lastLeft = max(s.lastLeft, day)
    }
    c.pointee.set(dayAt, HistoryState.spilled)
    spills[key] = s
  }

  mutating func add(_ swipes: UnsafeBufferPointer<HistoryBuilder.Swipe>, cutoffDay: Int64) {
    if refusedBytes != 0 { return }
    // Pass 1: the address of the memory each swipe will update, then a tight loop of
    // independent loads of them all (the tighter the loop, the more loads the processor keeps in
    // flight at once).
    if scratchCapacity < swipes.count {
      scratch.deallocate()
      scratchCapacity = swipes.count
      scratch = .allocate(capacity: scratchCapacity)
    }
    var m = 0
    for s in swipes
    where UInt(bitPattern: Int(s.user)) < UInt(userCount)
      && UInt(bitPattern: Int(s.item)) < UInt(itemCount)
    {
      let u = users[Int(s.user)]
      let offset =
        u.isArray
        ? Int(s.item) &* MemoryLayout<Cell>.stride
        : HistoryState.slot(s.item, u.shift) &* MemoryLayout<Pair>.stride
      scratch[m] = UnsafeRawPointer(u.table + offset)
      m &+= 1
    }
    var t: UInt8 = 0
    for k in 0..<m { t |= scratch[k].load(as: UInt8.self) }
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

  /// Grows a user's table, or turns it into a direct array, then inserts a new pair. When the
  /// memory is refused the pair is dropped and `refusedBytes` says so (`build` throws).
  @usableFromInline @inline(never)
  mutating func insertGrowing(user: Int, _ pair: Pair) {
    let oldCapacity = users[user].capacity
    let old = users[user].table.assumingMemoryBound(to: Pair.self)
    let steps: UInt32 = oldCapacity < HistoryState.fourfoldBelow ? 2 : 1
    let capacity = oldCapacity << Int(steps)
    guard let region = reserve(capacity >= arrayUnits ? arrayUnits : capacity) else { return }
    if capacity >= arrayUnits {
      let cells = region.assumingMemoryBound(to: Cell.self)
      users[user].table = UnsafeMutableRawPointer(cells)
      users[user].shift = 0
      for j in 0..<oldCapacity where old[j].key != 0 { moveToArray(user: user, old[j], cells) }
      moveToArray(user: user, pair, cells)
    } else {
      let table = region.assumingMemoryBound(to: Pair.self)
      let shift = users[user].shift - steps
      let mask = capacity - 1
      for j in 0..<oldCapacity where old[j].key != 0 {
        var i = HistoryState.slot(Int32(bitPattern: old[j].key &- 1), shift)
        while table[i].key != 0 { i = (i + 1) & mask }
        table[i] = old[j]
      }
      var i = HistoryState.slot(Int32(bitPattern: pair.key &- 1), shift)
      while table[i].key != 0 { i = (i + 1) & mask }
      table[i] = pair
      users[user].table = UnsafeMutableRawPointer(table)
      users[user].shift = shift
    }
    freeRegions[oldCapacity.trailingZeroBitCount].append(UnsafeMutableRawPointer(old))
    users[user].count += 1
    pairCount += 1
  }

  /// Writes a table's pair into a direct array. A day without a cell code goes to the spill; so
  /// does "swiped, but only on the day `History.never`", which a cell could not tell from "never
  /// swiped".
  private mutating func moveToArray(user: Int, _ pair: Pair, _ cells: UnsafeMutablePointer<Cell>) {
    let item = Int32(bitPattern: pair.key &- 1)
    if spills.isEmpty {
      // The common case: no spills anywhere (so a count of 0 is 0) and days with codes.
      let right =
        pair.lastRight == History.never
        ? (pair.right == 0 ? 0 : HistoryState.spilled) : HistoryState.dayCode(pair.lastRight)
      let left =
        pair.lastLeft == History.never
        ? (pair.left == 0 ? 0 : HistoryState.spilled) : HistoryState.dayCode(pair.lastLeft)
      if right != HistoryState.spilled && left != HistoryState.spilled {
        cells[Int(item)] = Cell(
          right: pair.right, left: pair.left, lastRight: right, lastLeft: left)
        return
      }
    }
    let key = HistoryState.spillKey(user, item)
    func code(_ day: Int32, swiped: Bool, right: Bool) -> UInt16 {
      if day == History.never && !swiped { return 0 }
      let c = HistoryState.dayCode(day)
      if c == HistoryState.spilled {
        if right {
          spills[key, default: Spill()].lastRight = day
        } else {
          spills[key, default: Spill()].lastLeft = day
        }
      }
      return c
    }
    let s = spills[key]
    let swipedRight = pair.right != 0 || (s?.right ?? 0) != 0
    let swipedLeft = pair.left != 0 || (s?.left ?? 0) != 0
    cells[Int(item)] = Cell(
      right: pair.right, left: pair.left,
      lastRight: code(pair.lastRight, swiped: swipedRight, right: true),
      lastLeft: code(pair.lastLeft, swiped: swipedLeft, right: false))
  }

  /// The full record of a pair, spill included.
  func record(
    user: Int, item: Int32, right: UInt16, left: UInt16, lastRight: Int32, lastLeft: Int32
  )
    -> UserItemRecord
  {
    var r = UserItemRecord(
      item: item, right: Int32(right), left: Int32(left), lastRight: lastRight,
      lastLeft: lastLeft)
    if !spills.isEmpty, let s = spills[HistoryState.spillKey(user, item)] {
      r.right = Int32(truncatingIfNeeded: s.right &+ Int64(right))
      r.left = Int32(truncatingIfNeeded: s.left &+ Int64(left))
    }
    return r
  }

  /// The full record of a cell.
  func record(user: Int, item: Int32, _ c: Cell) -> UserItemRecord {
    var r = record(
      user: user, item: item, right: c.right, left: c.left,
      lastRight: HistoryState.day(ofCode: c.lastRight),
      lastLeft: HistoryState.day(ofCode: c.lastLeft))
    if c.lastRight == HistoryState.spilled || c.lastLeft == HistoryState.spilled {
      let s = spills[HistoryState.spillKey(user, item)]!
      if c.lastRight == HistoryState.spilled { r.lastRight = s.lastRight }
      if c.lastLeft == HistoryState.spilled { r.lastLeft = s.lastLeft }
    }
    return r
  }

  func build(userNames: [String]) throws(DeckCoreError) -> History {
    precondition(userNames.count == userCount)
    func refused(_ bytes: Int) -> DeckCoreError {
      .outOfMemory(
        what: "the history of \(userCount) diner\(userCount == 1 ? "" : "s") and \(pairCount) "
          + "(diner, dish) pairs", bytes: bytes)
    }
    if refusedBytes != 0 { throw refused(refusedBytes) }
    var byUser: [String: UserHistory] = [:]
    byUser.reserveCapacity(userCount)
    // Per user with a table, the records in item order: from a bitmap over the catalog when that
    // is small next to the user's records, else by sorting (item, slot) keys. An array is in item
    // order already.
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
    // Every diner's records in one block, one after another. A diner with an array writes one
    // slot past its records (see below), hence the slot more. A table's records are checked
    // against its count before they are written; an array has as many used cells as its count
    // (`add` and `moveToArray` count every cell they start), checked after.
    let storage: RecordStorage
    do { storage = try RecordStorage(capacity: pairCount + 1) } catch { throw refused(error.bytes) }
    var next = 0
    for u in 0..<userCount {
      let user = users[u]
      let count = Int(user.count)
      precondition(next + count <= pairCount, "pair counts disagree")
      let out = storage.base + next
      var k = 0
      if user.isArray {
        let cells = user.table.assumingMemoryBound(to: Cell.self)
        // Every cell is written to the next free slot, which only moves on past a used cell (no
        // branch to mispredict on a third of the cells).
        if spills.isEmpty {
          // Arithmetic instead of selects, which the compiler would turn into branches.
          @inline(__always) func day(_ code: UInt16) -> Int32 {
            let d = Int32(code) &- 1
            return d ^ ((d ^ History.never) & (d &>> 31))
          }
          for item in 0..<itemCount {
            let c = cells[item]
            (out + k).initialize(
              to: UserItemRecord(
                item: Int32(truncatingIfNeeded: item), right: Int32(c.right),
                left: Int32(c.left), lastRight: day(c.lastRight), lastLeft: day(c.lastLeft)))
            let codes = c.bits &>> 32
            k &+= Int(truncatingIfNeeded: (codes | (0 &- codes)) &>> 63)
          }
        } else {
          for item in 0..<itemCount where cells[item].isUsed {
            (out + k).initialize(to: record(user: u, item: Int32(item), cells[item]))
            k += 1
          }
        }
      } else {
        let table = user.table.assumingMemoryBound(to: Pair.self)
        let capacity = user.capacity
        func record(slot j: Int) -> UserItemRecord {
          let p = table[j]
          return self.record(
            user: u, item: Int32(bitPattern: p.key &- 1), right: p.right, left: p.left,
            lastRight: p.lastRight, lastLeft: p.lastLeft)
        }
        if words <= 4 * count + 8 {
          for j in 0..<capacity where table[j].key != 0 {
            let item = Int(table[j].key - 1)
            bits[item >> 6] |= 1 << UInt64(item & 63)
            slotOf[item] = Int32(j)
          }
          for w in 0..<words where bits[w] != 0 {
            var word = bits[w]
            bits[w] = 0
            while word != 0 {
              let item = w << 6 | word.trailingZeroBitCount
              precondition(k < count, "pair counts disagree")
              (out + k).initialize(to: record(slot: Int(slotOf[item])))
              k += 1
              word &= word &- 1
            }
          }
        } else {
          if keys.count < count { keys = [UInt64](repeating: 0, count: capacity) }
          keys.withUnsafeMutableBufferPointer { keys in
            for j in 0..<capacity where table[j].key != 0 {
              keys[k] = UInt64(table[j].key) << 32 | UInt64(j)
              k += 1
            }
            precondition(k == count, "pair counts disagree")
            sortKeys(UnsafeMutableBufferPointer(rebasing: keys[0..<k]))
            for i in 0..<k {
              let slot = Int(truncatingIfNeeded: keys[i] & 0xFFFF_FFFF)
              (out + i).initialize(to: record(slot: slot))
            }
          }
        }
      }
      precondition(k == count, "pair counts disagree")
      byUser[userNames[u]] = UserHistory(
        id: userNames[u], records: UserItemRecords(storage: storage, offset: next, count: k),
        right: user.swipes[0], left: user.swipes[1])
      next += k
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
      positionRight: positionRight, right: swipes[0], left: swipes[1])
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
