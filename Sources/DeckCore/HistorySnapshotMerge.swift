// The sum of two snapshots: merged logs, items, diners and records.
extension HistorySnapshot {
  /// The sum of two snapshots. Associative and commutative; refuses to count a log twice (a
  /// log without swipes, which counts nothing, may be in both). The pending swipes of both are
  /// kept, pending, in one list in canonical order.
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
    let sources = try mergedSources(a, b)
    let (items, mapA, mapB) = try mergedItems(a, b)
    let users = try mergedUsers(a, b, mapA, mapB)
    let hesitations = try checkedSum(a.hesitations, b.hesitations) {
      "the hesitations add up to more than \(Int64.max)"
    }
    let merged = HistorySnapshot(
      sources: sources, items: items, users: users, firstDay: minOptional(a.firstDay, b.firstDay),
      lastDay: maxOptional(a.lastDay, b.lastDay), hesitations: hesitations,
      timeZone: a.timeZone ?? b.timeZone, dragRule: a.dragRule ?? b.dragRule,
      pending: mergedPending(a.pending, b.pending))
    _ = try merged.totalSwipes()
    return merged
  }

  /// Two lists in canonical order as one (a swipe in both is a swipe of each: kept twice).
  static func mergedPending(_ a: [PendingSwipe], _ b: [PendingSwipe]) -> [PendingSwipe] {
    if a.isEmpty { return b }
    if b.isEmpty { return a }
    var out: [PendingSwipe] = []
    out.reserveCapacity(a.count + b.count)
    var i = 0
    var j = 0
    while i < a.count || j < b.count {
      if j == b.count || (i < a.count && !(b[j] < a[i])) {
        out.append(a[i])
        i += 1
      } else {
        out.append(b[j])
        j += 1
      }
    }
    return out
  }

  /// The logs of both sides (none in both, but for logs without swipes), in hash order.
  private static func mergedSources(_ a: HistorySnapshot, _ b: HistorySnapshot)
    throws(DeckCoreError) -> [Source]
  {
    var sources = a.sources
    for s in b.sources {
      if let k = a.sources.firstIndex(where: { $0.sha256 == s.sha256 }) {
        // A log without swipes adds nothing, so it may be in both (the empty partitions of a
        // split log): kept once, the same one whatever the order (the least path).
        if s.events == 0 && a.sources[k].events == 0 {
          if s.path.utf8.lexicographicallyPrecedes(a.sources[k].path.utf8) { sources[k] = s }
          continue
        }
        throw .invalidSnapshot(
          "both snapshots contain the log '\(s.path)' (sha256 \(s.sha256.prefix(12))…); merging "
            + "them would count its swipes twice")
      }
      sources.append(s)
    }
    sources.sort { $0.sha256.utf8.lexicographicallyPrecedes($1.sha256.utf8) }
    return sources
  }

  /// Both sides' items merged by id bytes (two lists in byte order), and where each side's items
  /// went.
  private static func mergedItems(_ a: HistorySnapshot, _ b: HistorySnapshot)
    throws(DeckCoreError) -> (items: [Item], mapA: [Int32], mapB: [Int32])
  {
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
      } else if IDKey.same(a.items[i].id, b.items[j].id) {
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
    return (items, mapA, mapB)
  }

  /// Both sides' diners merged by id bytes, their records remapped to the merged item indices.
  private static func mergedUsers(
    _ a: HistorySnapshot, _ b: HistorySnapshot, _ mapA: [Int32], _ mapB: [Int32]
  ) throws(DeckCoreError) -> [User] {
    var users: [User] = []
    users.reserveCapacity(a.users.count + b.users.count)
    var i = 0
    var j = 0
    func remapped(_ u: User, _ map: [Int32]) -> [Record] {
      u.records.map { r in
        var r = r
        r.item = map[Int(r.item)]
        return r
      }
    }
    while i < a.users.count || j < b.users.count {
      if i < a.users.count && j < b.users.count && IDKey.same(a.users[i].id, b.users[j].id) {
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
    return users
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
