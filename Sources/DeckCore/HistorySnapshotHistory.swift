// A snapshot turned into the catalog-indexed `History` a deck is built from.
extension HistorySnapshot {
  /// The catalog-indexed history for a deck on `date`: items missing from the catalog are left
  /// out (counted in `unknownItemEvents`, with the first few ids), as when reading logs. The
  /// pending swipes dated before `date` (all of them when nil) are in it as if they were added
  /// up; the later ones are not (`pendingCount(before:)` tells how many those are).
  ///
  /// - Throws: when the snapshot has added up swipes on or after `date`: a deck never learns
  ///   from its own day, and the aggregates no longer know which swipes those were.
  public func history(for catalog: Catalog, before date: DeckDate?) throws(DeckCoreError)
    -> (history: History, unknownItemEvents: Int64, unknownItemIDs: [String])
  {
    if let date, let lastDay, lastDay >= date.daysSinceEpoch {
      throw .invalidSnapshot(
        "it has added up swipes of the days up to \(DeckDate(daysSinceEpoch: lastDay)), so it "
          + "cannot build decks for \(date) (a deck learns only from the days before it); build "
          + "from the raw logs, or from a snapshot that 'ingest --before \(date)' makes of them "
          + "(it keeps the later swipes waiting)")
    }
    if pendingCount(before: date) > 0 {
      return try counting(before: date).history(for: catalog, before: date)
    }
    let catalogIndex = items.map { catalog.index(of: $0.id) }
    let totals = try itemTotals(catalogIndex, catalogCount: catalog.count)
    let diners = try dinerHistories(catalogIndex)
    let history = History(
      itemRight: totals.itemRight, itemLeft: totals.itemLeft, users: diners.histories,
      positionShown: totals.positionShown, positionRight: totals.positionRight,
      right: diners.right, left: diners.left)
    return (history, totals.unknownEvents, totals.unknownIDs)
  }

  /// The per-dish and per-position counts of a history, and what fell on dishes not in the
  /// catalog.
  private struct ItemTotals {
    var itemRight: [Int32]
    var itemLeft: [Int32]
    var positionShown: [Int32] = []
    var positionRight: [Int32] = []
    var unknownEvents: Int64 = 0
    var unknownIDs: [String] = []
  }

  /// The counts per catalog dish and per position; `catalogIndex` is the catalog index of each
  /// of the snapshot's items (nil: not in the catalog).
  private func itemTotals(_ catalogIndex: [Int32?], catalogCount: Int) throws(DeckCoreError)
    -> ItemTotals
  {
    var t = ItemTotals(
      itemRight: [Int32](repeating: 0, count: catalogCount),
      itemLeft: [Int32](repeating: 0, count: catalogCount))
    for (k, item) in items.enumerated() {
      guard let c = catalogIndex[k] else {
        t.unknownEvents = try checkedSum(t.unknownEvents, item.right, item.left) {
          "the swipes on dishes not in the catalog add up to more than \(Int64.max)"
        }
        if t.unknownIDs.count < 5 { t.unknownIDs.append(item.id) }
        continue
      }
      guard let r = add32(0, item.right), let l = add32(0, item.left), add32(r, item.left) != nil
      else { throw tooMany("dish '\(item.id)'") }
      t.itemRight[Int(c)] = r
      t.itemLeft[Int(c)] = l
      for p in item.positions {
        guard p.position >= 1, p.position <= History.maxTrackedPosition else {
          throw .invalidSnapshot("dish '\(item.id)' has swipes at position \(p.position)")
        }
        let i = Int(p.position) - 1
        if t.positionShown.count <= i {
          t.positionShown.append(
            contentsOf: repeatElement(0, count: i + 1 - t.positionShown.count))
          t.positionRight.append(
            contentsOf: repeatElement(0, count: i + 1 - t.positionRight.count))
        }
        guard let shown = add32(t.positionShown[i], p.shown),
          let right = add32(t.positionRight[i], p.right)
        else { throw tooMany("position \(p.position)") }
        t.positionShown[i] = shown
        t.positionRight[i] = right
      }
    }
    return t
  }

  /// The diners' histories over the catalog, and their swipe totals. Every diner's records sit
  /// in one block (see `UserItemRecords`), sized for all of them; the records of items not in
  /// the catalog are left out, and so are diners left without records.
  private func dinerHistories(_ catalogIndex: [Int32?]) throws(DeckCoreError)
    -> (histories: UserHistories, right: Int, left: Int)
  {
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
    let histories = kept.map { k in
      UserHistory(
        id: k.id, records: UserItemRecords(storage: storage, offset: k.start, count: k.count),
        right: k.right, left: k.left)
    }
    // A snapshot lists each diner once (its reader refuses a file that does not; a builder
    // makes each one once).
    guard let users = UserHistories(unique: histories) else {
      throw .invalidSnapshot(
        "it lists a diner twice (a snapshot lists each diner once); it is corrupt: ingest the "
          + "logs into a new snapshot")
    }
    return (users, right, left)
  }
}

/// A history counts in 32 bits (per dish, per diner, per position): a snapshot beyond them is
/// refused, never wrapped.
private func tooMany(_ what: String) -> DeckCoreError {
  .invalidSnapshot(
    "\(what) has more swipes than a deck history counts (\(Int32.max)); the snapshot is "
      + "corrupt or holds too much: ingest fewer logs into it")
}

/// `a + b` when it fits in 32 bits.
private func add32(_ a: Int32, _ b: Int64) -> Int32? {
  guard b >= 0, b <= Int64(Int32.max) else { return nil }
  let (sum, overflow) = a.addingReportingOverflow(Int32(b))
  return overflow ? nil : sum
}
