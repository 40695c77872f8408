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

  /// Swipes in the snapshot (`Int64.max` should they not fit: a decoded or merged snapshot
  /// always fits, see `totalSwipes()`).
  public var events: Int64 { (try? totalSwipes()) ?? .max }

  /// Swipes in the snapshot, or an error when they do not add up in 64 bits.
  public func totalSwipes() throws(DeckCoreError) -> Int64 {
    var total: Int64 = 0
    for item in items {
      total = try checkedSum(total, item.right, item.left) {
        "the swipes add up to more than \(Int64.max) (at item '\(item.id)')"
      }
    }
    return total
  }

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
    // A history counts in 32 bits (per dish, per diner, per position): a snapshot beyond them
    // is refused, never wrapped.
    func tooMany(_ what: String) -> DeckCoreError {
      .invalidSnapshot(
        "\(what) has more swipes than a deck history counts (\(Int32.max)); the snapshot is "
          + "corrupt or holds too much: ingest fewer logs into it")
    }
    /// `a + b` when it fits in 32 bits.
    func add32(_ a: Int32, _ b: Int64) -> Int32? {
      guard b >= 0, b <= Int64(Int32.max) else { return nil }
      let (sum, overflow) = a.addingReportingOverflow(Int32(b))
      return overflow ? nil : sum
    }
    var itemRight = [Int32](repeating: 0, count: catalog.count)
    var itemLeft = [Int32](repeating: 0, count: catalog.count)
    var positionShown: [Int32] = []
    var positionRight: [Int32] = []
    var unknownEvents: Int64 = 0
    var unknownIDs: [String] = []
    for (k, item) in items.enumerated() {
      guard let c = catalogIndex[k] else {
        unknownEvents = try checkedSum(unknownEvents, item.right, item.left) {
          "the swipes on dishes not in the catalog add up to more than \(Int64.max)"
        }
        if unknownIDs.count < 5 { unknownIDs.append(item.id) }
        continue
      }
      guard let r = add32(0, item.right), let l = add32(0, item.left), add32(r, item.left) != nil
      else { throw tooMany("dish '\(item.id)'") }
      itemRight[Int(c)] = r
      itemLeft[Int(c)] = l
      for p in item.positions {
        guard p.position >= 1, p.position <= History.maxTrackedPosition else {
          throw .invalidSnapshot("dish '\(item.id)' has swipes at position \(p.position)")
        }
        let i = Int(p.position) - 1
        if positionShown.count <= i {
          positionShown.append(contentsOf: repeatElement(0, count: i + 1 - positionShown.count))
          positionRight.append(contentsOf: repeatElement(0, count: i + 1 - positionRight.count))
        }
        guard let shown = add32(positionShown[i], p.shown),
          let right = add32(positionRight[i], p.right)
        else { throw tooMany("position \(p.position)") }
        positionShown[i] = shown
        positionRight[i] = right
      }
    }
    // Every diner's records in one block (see `UserItemRecords`), sized for all of them; the
    // records of items not in the catalog are left out.
    var recordCount = 0
    for user in users { recordCount += user.records.count }
    let storage: RecordStorage
    do {
      storage = try RecordStorage(capacity: recordCount)
    } catch {
      throw .outOfMemory(
        what: "the history of \(users.count) diner\(users.count == 1 ? "" : "s") and "
          + "\(recordCount) (diner, dish) pairs", bytes: error.bytes)
    }
    var next = 0
    var kept: [(id: String, start: Int, count: Int, right: Int32, left: Int32)] = []
    kept.reserveCapacity(users.count)
    var right = 0
    var left = 0
    for user in users {
      let start = next
      var userRight: Int64 = 0
      var userLeft: Int64 = 0
      for r in user.records {
        guard r.item >= 0, Int(r.item) < items.count else {
          throw .invalidSnapshot(
            "diner '\(user.id)' has a record of item \(r.item) of \(items.count)")
        }
        guard let c = catalogIndex[Int(r.item)] else { continue }
        guard r.right >= 0, r.left >= 0, add32(r.right, Int64(r.left)) != nil else {
          throw tooMany("diner '\(user.id)' with dish '\(items[Int(r.item)].id)'")
        }
        (storage.base + next).initialize(
          to: UserItemRecord(
            item: c, right: r.right, left: r.left, lastRight: r.lastRight, lastLeft: r.lastLeft))
        next += 1
        userRight += Int64(r.right)
        userLeft += Int64(r.left)
      }
      guard next > start else { continue }
      guard userRight + userLeft <= Int64(Int32.max) else { throw tooMany("diner '\(user.id)'") }
      // Catalog order may differ from id order.
      var mine = UnsafeMutableBufferPointer(start: storage.base + start, count: next - start)
      mine.sort { $0.item < $1.item }
      right += Int(userRight)
      left += Int(userLeft)
      kept.append((user.id, start, next - start, Int32(userRight), Int32(userLeft)))
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
        items.append(try sum(a.items[i], b.items[j]))
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
        users.append(
          User(id: a.users[i].id, records: try mergeRecords(ra, rb, user: a.users[i].id)))
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
    let hesitations = try checkedSum(a.hesitations, b.hesitations) {
      "the hesitations add up to more than \(Int64.max)"
    }
    let merged = HistorySnapshot(
      sources: sources, items: items, users: users, firstDay: minOptional(a.firstDay, b.firstDay),
      lastDay: maxOptional(a.lastDay, b.lastDay), hesitations: hesitations,
      timeZone: a.timeZone ?? b.timeZone, dragRule: a.dragRule ?? b.dragRule)
    _ = try merged.totalSwipes()
    return merged
  }

  private static func sum(_ x: Item, _ y: Item) throws(DeckCoreError) -> Item {
    func add(_ a: Int64, _ b: Int64, _ what: String) throws(DeckCoreError) -> Int64 {
      try checkedSum(a, b) { "the \(what) of dish '\(x.id)' add up to more than \(Int64.max)" }
    }
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
        let p = x.positions[i].position
        positions.append(
          PositionCount(
            position: p,
            shown: try add(x.positions[i].shown, y.positions[j].shown, "swipes at position \(p)"),
            right: try add(x.positions[i].right, y.positions[j].right, "right swipes at \(p)")))
        i += 1
        j += 1
      }
    }
    return Item(
      id: x.id, right: try add(x.right, y.right, "right swipes"),
      left: try add(x.left, y.left, "left swipes"), positions: positions)
  }

  private static func mergeRecords(_ x: [Record], _ y: [Record], user: String)
    throws(DeckCoreError) -> [Record]
  {
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
        let (right, o1) = x[i].right.addingReportingOverflow(y[j].right)
        let (left, o2) = x[i].left.addingReportingOverflow(y[j].left)
        guard !o1, !o2 else {
          throw .invalidSnapshot(
            "the swipes of diner '\(user)' on one dish add up to more than \(Int32.max); the "
              + "snapshots are corrupt or hold too much: merge fewer of them")
        }
        out.append(
          Record(
            item: x[i].item, right: right, left: left,
            lastRight: max(x[i].lastRight, y[j].lastRight),
            lastLeft: max(x[i].lastLeft, y[j].lastLeft)))
        i += 1
        j += 1
      }
    }
    return out
  }
}

/// `a + b + c`, or an `invalidSnapshot` error saying `what` when it does not fit in 64 bits.
private func checkedSum(
  _ a: Int64, _ b: Int64, _ c: Int64 = 0, _ what: () -> String
) throws(DeckCoreError) -> Int64 {
  let (ab, o1) = a.addingReportingOverflow(b)
  let (abc, o2) = ab.addingReportingOverflow(c)
  guard !o1, !o2 else {
    throw .invalidSnapshot(
      what() + "; the snapshots are corrupt or hold too much: merge or ingest fewer of them")
  }
  return abc
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
