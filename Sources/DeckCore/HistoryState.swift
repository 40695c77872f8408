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
  /// Whether the arena's chunks and the built history's records are advised as huge pages
  /// (`HistoryBuilder.hugePages`).
  var hugePages = true

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
    c.hugePages = hugePages
    if refusedBytes != 0 { return c }
    // The copy's tables, packed into one chunk.
    var live = 0
    for u in 0..<userCount { live += units(users[u]) }
    let bytes = max(live, 1) * HistoryState.unit
    guard let base = HistoryState.allocateChunk(bytes, hugePages: hugePages) else {
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

}
