/// The aggregates of swipe logs, independent of any catalog: what `menudeck ingest` stores so
/// that a nightly job adds one day's log instead of re-reading every log, and what `merge`
/// combines across shards.
///
/// Everything in it is a sum or a maximum keyed by ids, and it is kept in one canonical order
/// (items and users by id bytes, records by item, sources by hash), so merging is associative and
/// commutative down to the byte, and a snapshot turns into exactly the `History` that reading the
/// same logs directly gives (events dated on or after the deck date excepted: a snapshot must end
/// before the deck date; see `history(for:before:)`).
public struct HistorySnapshot: Sendable, Equatable {
  /// One ingested log file. Its SHA-256 identifies it: ingesting it again changes nothing.
  public struct Source: Sendable, Hashable {
    public var sha256: String
    /// The path it was read from (informative only).
    public var path: String
    public var bytes: Int64
    public var lines: Int64
    public var events: Int64

    public init(sha256: String, path: String, bytes: Int64, lines: Int64, events: Int64) {
      self.sha256 = sha256
      self.path = path
      self.bytes = bytes
      self.lines = lines
      self.events = events
    }
  }

  /// Swipes at one 1-based position.
  public struct PositionCount: Sendable, Hashable {
    public var position: Int32
    public var shown: Int64
    public var right: Int64

    public init(position: Int32, shown: Int64, right: Int64) {
      self.position = position
      self.shown = shown
      self.right = right
    }
  }

  /// Totals of one item over all diners.
  public struct Item: Sendable, Hashable {
    public var id: String
    public var right: Int64
    public var left: Int64
    /// Ascending by position; positions above `History.maxTrackedPosition` are not kept.
    public var positions: [PositionCount]

    public init(id: String, right: Int64, left: Int64, positions: [PositionCount]) {
      self.id = id
      self.right = right
      self.left = left
      self.positions = positions
    }
  }

  /// What one diner did with one item: the history's own record; `item` indexes `items`.
  public typealias Record = UserItemRecord

  public struct User: Sendable, Hashable {
    public var id: String
    /// Ascending by item index.
    public var records: [Record]

    public init(id: String, records: [Record]) {
      self.id = id
      self.records = records
    }
  }

  /// Ingested files, ascending by hash.
  public var sources: [Source]
  /// Ascending by id bytes.
  public var items: [Item]
  /// Ascending by id bytes.
  public var users: [User]
  /// Days (`DeckDate.daysSinceEpoch`) of the first and last swipe, nil when empty.
  public var firstDay: Int32?
  public var lastDay: Int32?
  /// Drags that did not commit.
  public var hesitations: Int64
  /// The time zone the logs' timestamps were read in (it decides each swipe's day), as the
  /// config names it; nil for an empty snapshot.
  public var timeZone: String?
  /// The drag rule raw drags were decided by ("relative" or "absolute"); nil when empty.
  public var dragRule: String?

  public init(
    sources: [Source] = [], items: [Item] = [], users: [User] = [], firstDay: Int32? = nil,
    lastDay: Int32? = nil, hesitations: Int64 = 0, timeZone: String? = nil,
    dragRule: String? = nil
  ) {
    self.sources = sources
    self.items = items
    self.users = users
    self.firstDay = firstDay
    self.lastDay = lastDay
    self.hesitations = hesitations
    self.timeZone = timeZone
    self.dragRule = dragRule
  }

  public static let empty = HistorySnapshot()

  /// Swipes in the snapshot.
  public var events: Int64 { items.reduce(0) { $0 + $1.right + $1.left } }

  /// Whether the log with this content hash is already in the snapshot.
  public func contains(sha256: String) -> Bool {
    sources.contains { $0.sha256 == sha256 }
  }

  /// The catalog-indexed history for a deck on `date`: items missing from the catalog are left
  /// out (counted in `unknownItemEvents`, with the first few ids), as when reading logs.
  ///
  /// - Throws: when the snapshot holds swipes on or after `date`: a deck never learns from its
  ///   own day, and a snapshot no longer knows which swipes those were.
  public func history(for catalog: Catalog, before date: DeckDate?) throws(DeckCoreError)
    -> (history: History, unknownItemEvents: Int64, unknownItemIDs: [String])
  {
    if let date, let lastDay, lastDay >= date.daysSinceEpoch {
      throw .invalidSnapshot(
        "it holds swipes up to \(DeckDate(daysSinceEpoch: lastDay)), so it cannot build decks for "
          + "\(date) (a deck learns only from the days before it); build from the raw logs, or "
          + "from a snapshot of the logs before \(date)")
    }
    let catalogIndex = items.map { catalog.index(of: $0.id) }
    var itemRight = [Int32](repeating: 0, count: catalog.count)
    var itemLeft = [Int32](repeating: 0, count: catalog.count)
    var positionShown: [Int32] = []
    var positionRight: [Int32] = []
    var unknownEvents: Int64 = 0
    var unknownIDs: [String] = []
    for (k, item) in items.enumerated() {
      guard let c = catalogIndex[k] else {
        unknownEvents += item.right + item.left
        if unknownIDs.count < 5 { unknownIDs.append(item.id) }
        continue
      }
      itemRight[Int(c)] = Int32(truncatingIfNeeded: item.right)
      itemLeft[Int(c)] = Int32(truncatingIfNeeded: item.left)
      for p in item.positions {
        let i = Int(p.position) - 1
        if positionShown.count <= i {
          positionShown.append(contentsOf: repeatElement(0, count: i + 1 - positionShown.count))
          positionRight.append(contentsOf: repeatElement(0, count: i + 1 - positionRight.count))
        }
        positionShown[i] &+= Int32(truncatingIfNeeded: p.shown)
        positionRight[i] &+= Int32(truncatingIfNeeded: p.right)
      }
    }
    // Every diner's records in one block (see `UserItemRecords`), sized for all of them; the
    // records of items not in the catalog are left out.
    let storage = RecordStorage(capacity: users.reduce(0) { $0 + $1.records.count })
    var next = 0
    var kept: [(id: String, start: Int, count: Int, right: Int32, left: Int32)] = []
    kept.reserveCapacity(users.count)
    var right = 0
    var left = 0
    for user in users {
      let start = next
      var userRight: Int32 = 0
      var userLeft: Int32 = 0
      for r in user.records {
        guard let c = catalogIndex[Int(r.item)] else { continue }
        (storage.base + next).initialize(
          to: UserItemRecord(
            item: c, right: r.right, left: r.left, lastRight: r.lastRight, lastLeft: r.lastLeft))
        next += 1
        userRight &+= r.right
        userLeft &+= r.left
      }
      guard next > start else { continue }
      // Catalog order may differ from id order.
      var mine = UnsafeMutableBufferPointer(start: storage.base + start, count: next - start)
      mine.sort { $0.item < $1.item }
      right += Int(userRight)
      left += Int(userLeft)
      kept.append((user.id, start, next - start, userRight, userLeft))
    }
    var histories: [String: UserHistory] = [:]
    histories.reserveCapacity(kept.count)
    for k in kept {
      histories[k.id] = UserHistory(
        id: k.id, records: UserItemRecords(storage: storage, offset: k.start, count: k.count),
        right: k.right, left: k.left)
    }
    let history = History(
      itemRight: itemRight, itemLeft: itemLeft, users: histories, positionShown: positionShown,
      positionRight: positionRight, right: right, left: left)
    return (history, unknownEvents, unknownIDs)
  }

  /// The sum of two snapshots. Associative and commutative; refuses to count a log twice.
  public static func merge(_ a: HistorySnapshot, _ b: HistorySnapshot) throws(DeckCoreError)
    -> HistorySnapshot
  {
    // Both sides must have read their logs the same way, or their days would not agree.
    if let x = a.timeZone, let y = b.timeZone, x != y {
      throw .invalidSnapshot(
        "one snapshot was read in time zone '\(x)', the other in '\(y)'; swipe days would "
          + "disagree: ingest the logs again with one config")
    }
    if let x = a.dragRule, let y = b.dragRule, x != y {
      throw .invalidSnapshot(
        "one snapshot decided drags by the \(x) rule, the other by the \(y) rule; ingest the "
          + "logs again with one config")
    }
    // Sources: a union of distinct logs.
    var sources = a.sources
    for s in b.sources {
      if a.sources.contains(where: { $0.sha256 == s.sha256 }) {
        throw .invalidSnapshot(
          "both snapshots contain the log '\(s.path)' (sha256 \(s.sha256.prefix(12))…); merging "
            + "them would count its swipes twice")
      }
      sources.append(s)
    }
    sources.sort { $0.sha256.utf8.lexicographicallyPrecedes($1.sha256.utf8) }

    // Items: merge two id-sorted lists, remembering where each side's items went.
    var items: [Item] = []
    items.reserveCapacity(a.items.count + b.items.count)
    var mapA = [Int32](repeating: 0, count: a.items.count)
    var mapB = [Int32](repeating: 0, count: b.items.count)
    var i = 0
    var j = 0
    while i < a.items.count || j < b.items.count {
      let takeA: Bool
      let takeB: Bool
      if i == a.items.count {
        (takeA, takeB) = (false, true)
      } else if j == b.items.count {
        (takeA, takeB) = (true, false)
      } else if a.items[i].id == b.items[j].id {
        (takeA, takeB) = (true, true)
      } else {
        let aFirst = a.items[i].id.utf8.lexicographicallyPrecedes(b.items[j].id.utf8)
        (takeA, takeB) = (aFirst, !aFirst)
      }
      let index = Int32(items.count)
      if takeA && takeB {
        items.append(sum(a.items[i], b.items[j]))
      } else {
        items.append(takeA ? a.items[i] : b.items[j])
      }
      if takeA {
        mapA[i] = index
        i += 1
      }
      if takeB {
        mapB[j] = index
        j += 1
      }
    }

    // Users likewise; records remapped to the merged item indices.
    var users: [User] = []
    users.reserveCapacity(a.users.count + b.users.count)
    i = 0
    j = 0
    func remapped(_ u: User, _ map: [Int32]) -> [Record] {
      u.records.map { r in
        var r = r
        r.item = map[Int(r.item)]
        return r
      }
    }
    while i < a.users.count || j < b.users.count {
      if i < a.users.count && j < b.users.count && a.users[i].id == b.users[j].id {
        let ra = remapped(a.users[i], mapA)
        let rb = remapped(b.users[j], mapB)
        users.append(User(id: a.users[i].id, records: mergeRecords(ra, rb)))
        i += 1
        j += 1
      } else if j == b.users.count
        || (i < a.users.count && a.users[i].id.utf8.lexicographicallyPrecedes(b.users[j].id.utf8))
      {
        users.append(User(id: a.users[i].id, records: remapped(a.users[i], mapA)))
        i += 1
      } else {
        users.append(User(id: b.users[j].id, records: remapped(b.users[j], mapB)))
        j += 1
      }
    }
    return HistorySnapshot(
      sources: sources, items: items, users: users, firstDay: minOptional(a.firstDay, b.firstDay),
      lastDay: maxOptional(a.lastDay, b.lastDay), hesitations: a.hesitations + b.hesitations,
      timeZone: a.timeZone ?? b.timeZone, dragRule: a.dragRule ?? b.dragRule)
  }

  private static func sum(_ x: Item, _ y: Item) -> Item {
    var positions: [PositionCount] = []
    var i = 0
    var j = 0
    while i < x.positions.count || j < y.positions.count {
      if j == y.positions.count
        || (i < x.positions.count && x.positions[i].position < y.positions[j].position)
      {
        positions.append(x.positions[i])
        i += 1
      } else if i == x.positions.count || y.positions[j].position < x.positions[i].position {
        positions.append(y.positions[j])
        j += 1
      } else {
        positions.append(
          PositionCount(
            position: x.positions[i].position, shown: x.positions[i].shown + y.positions[j].shown,
            right: x.positions[i].right + y.positions[j].right))
        i += 1
        j += 1
      }
    }
    return Item(id: x.id, right: x.right + y.right, left: x.left + y.left, positions: positions)
  }

  private static func mergeRecords(_ x: [Record], _ y: [Record]) -> [Record] {
    var out: [Record] = []
    out.reserveCapacity(x.count + y.count)
    var i = 0
    var j = 0
    while i < x.count || j < y.count {
      if j == y.count || (i < x.count && x[i].item < y[j].item) {
        out.append(x[i])
        i += 1
      } else if i == x.count || y[j].item < x[i].item {
        out.append(y[j])
        j += 1
      } else {
        out.append(
          Record(
            item: x[i].item, right: x[i].right &+ y[j].right, left: x[i].left &+ y[j].left,
            lastRight: max(x[i].lastRight, y[j].lastRight),
            lastLeft: max(x[i].lastLeft, y[j].lastLeft)))
        i += 1
        j += 1
      }
    }
    return out
  }
}

private func minOptional(_ a: Int32?, _ b: Int32?) -> Int32? {
  guard let a else { return b }
  guard let b else { return a }
  return min(a, b)
}

private func maxOptional(_ a: Int32?, _ b: Int32?) -> Int32? {
  guard let a else { return b }
  guard let b else { return a }
  return max(a, b)
}

/// Accumulates swipes, keyed by id strings, into a `HistorySnapshot`. Memory grows with distinct
/// users, items and (user, item) pairs, never with the number of events.
public struct SnapshotBuilder: Sendable {
  private var itemSlots: [String: Int32] = [:]
  private var itemIDs: [String] = []
  private var itemRight: [Int64] = []
  private var itemLeft: [Int64] = []
  /// Per item: shown and right per position (index = position - 1).
  private var itemPositions: [[(shown: Int64, right: Int64)]] = []
  private var userSlots: [String: Int32] = [:]
  private var userIDs: [String] = []
  /// Per user: an open-addressing table of records keyed by item slot (item -1 = empty).
  private var tables: [RecordTable] = []
  private var firstDay: Int32?
  private var lastDay: Int32?
  public var hesitations: Int64 = 0

  public init() {}

  public mutating func itemSlot(_ id: String) -> Int32 {
    if let s = itemSlots[id] { return s }
    let s = Int32(itemIDs.count)
    itemSlots[id] = s
    itemIDs.append(id)
    itemRight.append(0)
    itemLeft.append(0)
    itemPositions.append([])
    return s
  }

  public mutating func userSlot(_ id: String) -> Int32 {
    if let s = userSlots[id] { return s }
    let s = Int32(userIDs.count)
    userSlots[id] = s
    userIDs.append(id)
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

  /// The snapshot in canonical order, listing `sources` as its ingested logs.
  public func build(sources: [HistorySnapshot.Source] = []) -> HistorySnapshot {
    let order = itemIDs.indices.sorted {
      itemIDs[$0].utf8.lexicographicallyPrecedes(itemIDs[$1].utf8)
    }
    var newIndex = [Int32](repeating: 0, count: itemIDs.count)
    for (n, old) in order.enumerated() { newIndex[old] = Int32(n) }
    let items = order.map { old in
      HistorySnapshot.Item(
        id: itemIDs[old], right: itemRight[old], left: itemLeft[old],
        positions: itemPositions[old].enumerated().compactMap { p, c in
          c.shown == 0
            ? nil
            : HistorySnapshot.PositionCount(position: Int32(p + 1), shown: c.shown, right: c.right)
        })
    }
    let userOrder = userIDs.indices.sorted {
      userIDs[$0].utf8.lexicographicallyPrecedes(userIDs[$1].utf8)
    }
    let users = userOrder.compactMap { u -> HistorySnapshot.User? in
      let list = tables[u].records.map { r -> HistorySnapshot.Record in
        var r = r
        r.item = newIndex[Int(r.item)]
        return r
      }.sorted { $0.item < $1.item }
      return list.isEmpty ? nil : HistorySnapshot.User(id: userIDs[u], records: list)
    }
    return HistorySnapshot(
      sources: sources.sorted { $0.sha256.utf8.lexicographicallyPrecedes($1.sha256.utf8) },
      items: items, users: users, firstDay: firstDay, lastDay: lastDay, hesitations: hesitations)
  }
}

/// One diner's records keyed by item, in a flat open-addressing table (20 bytes a slot, at most
/// 3/4 full): far smaller than a dictionary per diner when there are millions of pairs.
private struct RecordTable: Sendable {
  private var slots: [HistorySnapshot.Record] = []
  private var count = 0
  private var shift: UInt64 = 64

  mutating func add(item: Int32, right: Bool, day: Int32) {
    if (count + 1) * 4 > slots.count * 3 { grow() }
    let mask = slots.count - 1
    var i = Int(
      truncatingIfNeeded: (UInt64(UInt32(bitPattern: item)) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    slots.withUnsafeMutableBufferPointer { t in
      while t[i].item != item && t[i].item != -1 { i = (i + 1) & mask }
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
      var i = Int(
        truncatingIfNeeded: (UInt64(UInt32(bitPattern: r.item)) &* 0x9E37_79B9_7F4A_7C15) >> shift)
      while slots[i].item != -1 { i = (i + 1) & mask }
      slots[i] = r
      count += 1
    }
  }

  var records: [HistorySnapshot.Record] { slots.filter { $0.item != -1 } }
}
