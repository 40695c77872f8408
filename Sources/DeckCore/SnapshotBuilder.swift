/// Accumulates swipes, keyed by the UTF-8 bytes of their ids (`IDKey`), into a `HistorySnapshot`.
/// Memory grows with distinct users, items and (user, item) pairs, never with the number of
/// events.
public struct SnapshotBuilder: Sendable {
  /// Item ids by their UTF-8 bytes (`IDKey`'s rule) to their slots; the ids themselves are
  /// the index's keys (no second copy as strings: a million diners' ids are 16 MB of them).
  private var itemSlots = ByteIndex()
  private var itemRight: [Int64] = []
  private var itemLeft: [Int64] = []
  /// Per item: shown and right per position (index = position - 1).
  private var itemPositions: [[(shown: Int64, right: Int64)]] = []
  /// User ids by their UTF-8 bytes to their slots.
  private var userSlots = ByteIndex()
  /// Per user: an open-addressing table of records keyed by item slot (item -1 = empty).
  private var tables: [RecordTable] = []
  private var firstDay: Int32?
  private var lastDay: Int32?
  public var hesitations: Int64 = 0
  /// Swipes kept as they are, not added up (`HistorySnapshot.pending`), in the order given.
  private var pending: [HistorySnapshot.PendingSwipe] = []

  public init() {}

  public mutating func itemSlot(_ id: String) -> Int32 {
    let (s, inserted) = itemSlots.insert(id)
    if !inserted { return s }
    itemRight.append(0)
    itemLeft.append(0)
    itemPositions.append([])
    return s
  }

  public mutating func userSlot(_ id: String) -> Int32 {
    let (s, inserted) = userSlots.insert(id)
    if !inserted { return s }
    tables.append(RecordTable())
    return s
  }

  /// Adds one swipe; `position` is 1-based or 0 when unknown.
  public mutating func add(
    user: Int32, item: Int32, swipe: SwipeDirection, day: Int32, position: Int32 = 0
  ) {
    let isRight = swipe == .right
    let i = Int(item)
    if isRight { itemRight[i] += 1 } else { itemLeft[i] += 1 }
    if position > 0 && position <= History.maxTrackedPosition {
      let p = Int(position)
      if itemPositions[i].count < p {
        itemPositions[i].append(
          contentsOf: repeatElement(
            (shown: Int64(0), right: Int64(0)), count: p - itemPositions[i].count))
      }
      itemPositions[i][p - 1].shown += 1
      if isRight { itemPositions[i][p - 1].right += 1 }
    }
    firstDay = firstDay.map { min($0, day) } ?? day
    lastDay = lastDay.map { max($0, day) } ?? day
    tables[Int(user)].add(item: item, right: isRight, day: day)
  }

  /// Keeps one swipe as it is, to be added up later (`HistorySnapshot.pending`). Memory grows
  /// with each one: a list of the swipes, as the log holds them.
  public mutating func addPending(_ swipe: HistorySnapshot.PendingSwipe) {
    pending.append(swipe)
  }

  /// Swipes kept as they are so far.
  public var pendingCount: Int { pending.count }

  /// The snapshot in canonical order, listing `sources` as its ingested logs.
  public func build(sources: [HistorySnapshot.Source] = []) -> HistorySnapshot {
    let order = itemSlots.indicesInKeyOrder()
    var newIndex = [Int32](repeating: 0, count: order.count)
    for (n, old) in order.enumerated() { newIndex[Int(old)] = Int32(n) }
    let items = order.map { slot in
      let old = Int(slot)
      return HistorySnapshot.Item(
        id: itemSlots.string(slot), right: itemRight[old], left: itemLeft[old],
        positions: itemPositions[old].enumerated().compactMap { p, c in
          c.shown == 0
            ? nil
            : HistorySnapshot.PositionCount(position: Int32(p + 1), shown: c.shown, right: c.right)
        })
    }
    let users = userSlots.indicesInKeyOrder().compactMap { slot -> HistorySnapshot.User? in
      let u = Int(slot)
      let list = tables[u].records.map { r -> HistorySnapshot.Record in
        var r = r
        r.item = newIndex[Int(r.item)]
        return r
      }.sorted { $0.item < $1.item }
      return list.isEmpty ? nil : HistorySnapshot.User(id: userSlots.string(slot), records: list)
    }
    return HistorySnapshot(
      sources: sources.sorted { $0.sha256.utf8.lexicographicallyPrecedes($1.sha256.utf8) },
      items: items, users: users, firstDay: firstDay, lastDay: lastDay, hesitations: hesitations,
      pending: pending.sorted())
  }
}

/// One diner's records keyed by item, in a flat open-addressing table (20 bytes a slot, at most
/// 3/4 full): far smaller than a dictionary per diner when there are millions of pairs. Its own
/// layout (the record is the slot, item -1 marks an empty one), not a `WordTable`: a record is
/// 20 bytes of counts and days, and a per-diner table starts at 8 slots, not 1,024; the slot and
/// probe step are `HashMix`'s.
private struct RecordTable: Sendable {
  private var slots: [HistorySnapshot.Record] = []
  private var count = 0
  private var shift: UInt64 = 64

  mutating func add(item: Int32, right: Bool, day: Int32) {
    if (count + 1) * 4 > slots.count * 3 { grow() }
    let mask = slots.count - 1
    var i = HashMix.fibonacci(UInt64(UInt32(bitPattern: item)), shift: shift)
    slots.withUnsafeMutableBufferPointer { t in
      while t[i].item != item && t[i].item != -1 { i = HashMix.next(i, mask: mask) }
      if t[i].item == -1 {
        t[i].item = item
        count += 1
      }
      if right {
        t[i].right &+= 1
        if day > t[i].lastRight { t[i].lastRight = day }
      } else {
        t[i].left &+= 1
        if day > t[i].lastLeft { t[i].lastLeft = day }
      }
    }
  }

  private mutating func grow() {
    let old = slots
    let capacity = max(8, old.count * 2)
    shift = UInt64(64 - capacity.trailingZeroBitCount)
    slots = Array(
      repeating: HistorySnapshot.Record(
        item: -1, right: 0, left: 0, lastRight: History.never, lastLeft: History.never),
      count: capacity)
    count = 0
    let mask = capacity - 1
    for r in old where r.item != -1 {
      var i = HashMix.fibonacci(UInt64(UInt32(bitPattern: r.item)), shift: shift)
      while slots[i].item != -1 { i = HashMix.next(i, mask: mask) }
      slots[i] = r
      count += 1
    }
  }

  var records: [HistorySnapshot.Record] { slots.filter { $0.item != -1 } }
}
