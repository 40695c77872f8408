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
  /// The diners' ids, a diner's slot its index here (the history's table of ids, `UserHistories`).
  private var users = ByteIndex()

  public init(itemCount: Int, cutoff: DeckDate? = nil) {
    precondition(itemCount >= 0 && itemCount < Int(Int32.max / 4), "item count out of range")
    self.itemCount = itemCount
    self.cutoff = cutoff
    cutoffDay = cutoff.map { Int64($0.daysSinceEpoch) } ?? Int64(Int32.max) + 1
    storage = HistoryStorage(itemCount: itemCount)
  }

  /// Events left out because they were on or after the cutoff.
  public var skippedFuture: Int { storage.state.pointee.skippedFuture }

  /// Whether the history's memory is advised as huge pages (Linux; the default). With the
  /// advice, each first touch zeroes a 2 MiB page; on a VM that reclaims memory (this project's),
  /// those pages often come back from the host one fault at a time: 0.05 to 1.8 s of system time
  /// for the same one-thread read of a 2,000,000-swipe log, against 0.11-0.24 s without. Several
  /// threads faulting small pages at once wait on each other in the kernel instead, so a history
  /// added up on several threads keeps the advice and one added up on one thread goes without it
  /// (`HistoryIngest(catalog:cutoff:hugePages:)`).
  package var hugePages: Bool {
    get { storage.state.pointee.hugePages }
    set {
      makeUnique()
      storage.state.pointee.hugePages = newValue
    }
  }

  /// Number of distinct users so far.
  public var userCount: Int { users.count }

  /// Number of distinct (user, item) pairs so far.
  public var pairCount: Int { storage.state.pointee.pairCount }

  /// The dense slot of a user id, created on first use. Readers intern once per distinct user.
  /// Ids are told apart by their UTF-8 bytes (`IDKey`): precomposed and decomposed "café" are two
  /// diners.
  public mutating func userSlot(_ id: String) -> Int32 {
    ByteIndex.withBytes(id) { userSlot(bytes: $0) }
  }

  /// The dense slot of the user id with these UTF-8 bytes, created on first use.
  package mutating func userSlot(bytes id: UnsafeBufferPointer<UInt8>) -> Int32 {
    let (slot, inserted) = users.insert(id)
    if inserted {
      makeUnique()
      storage.state.pointee.addUser()
    }
    return slot
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
  /// 16 bytes. Packed for the in-repo fast readers only: the public API takes the values as they
  /// are (`add(user:item:swipe:day:position:)`).
  package struct Swipe: Sendable, Equatable {
    /// The user's slot (`userSlot(_:)`).
    package var user: Int32
    @usableFromInline var item: Int32
    @usableFromInline var day: Int32
    /// `position << 1 | (right ? 1 : 0)`; positions outside 1...maxTrackedPosition count as 0,
    /// as they do in `add(user:item:swipe:day:position:)`.
    @usableFromInline var bits: Int32

    @inlinable
    package init(user: Int32, item: Int32, swipe: SwipeDirection, day: Int32, position: Int32 = 0) {
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
  package mutating func add(_ swipes: UnsafeBufferPointer<Swipe>) {
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
    try storage.state.pointee.build(users: users)
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
