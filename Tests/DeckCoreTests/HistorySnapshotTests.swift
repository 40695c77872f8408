import Testing

@testable import DeckCore

/// Random swipes over a few users and items, some items outside the catalog.
private func randomSwipes(seed: UInt64, count: Int) -> [(
  String, String, SwipeDirection, Int32, Int32
)] {
  var r = RandomStream(seed: seed)
  return (0..<count).map { _ in
    (
      "u\(r.nextInt(below: 7))", "i\(r.nextInt(below: 9))",
      r.nextInt(below: 4) == 0 ? .right : .left, Int32(20_000 + r.nextInt(below: 20)),
      Int32(r.nextInt(below: 12))
    )
  }
}

/// The snapshot an ingest of `swipes` makes: the swipes dated on or after `before` pending, as
/// the ingest's sink keeps them.
private func snapshot(
  _ swipes: [(String, String, SwipeDirection, Int32, Int32)], source: String,
  before: Int32? = nil
) -> HistorySnapshot {
  var b = SnapshotBuilder()
  for (u, i, s, d, p) in swipes {
    if let before, d >= before {
      b.addPending(.init(day: d, user: u, item: i, swipe: s, position: p))
      continue
    }
    let us = b.userSlot(u)
    let its = b.itemSlot(i)
    b.add(user: us, item: its, swipe: s, day: d, position: p)
  }
  return b.build(sources: [
    HistorySnapshot.Source(
      sha256: source, path: source, bytes: 1, lines: Int64(swipes.count),
      events: Int64(swipes.count))
  ])
}

/// The catalog knows i0...i6; i7 and i8 are unknown. Catalog order differs from id order.
private let catalog = try! Catalog(
  items: ["i3", "i0", "i6", "i1", "i5", "i2", "i4"].map {
    MenuItem(id: $0, name: $0, category: "c\($0.last!)")
  })

private func sameHistory(_ a: History, _ b: History) -> Bool {
  a.itemRight == b.itemRight && a.itemLeft == b.itemLeft && a.users == b.users
    && a.positionShown == b.positionShown && a.positionRight == b.positionRight
    && a.right == b.right && a.left == b.left
}

@Suite struct HistorySnapshotTests {
  @Test func mergeIsCommutativeAndAssociative() throws {
    let a = snapshot(randomSwipes(seed: 1, count: 200), source: "a")
    let b = snapshot(randomSwipes(seed: 2, count: 150), source: "b")
    let c = snapshot(randomSwipes(seed: 3, count: 90), source: "c")
    #expect(try HistorySnapshot.merge(a, b) == HistorySnapshot.merge(b, a))
    #expect(
      try HistorySnapshot.merge(HistorySnapshot.merge(a, b), c)
        == HistorySnapshot.merge(a, HistorySnapshot.merge(b, c)))
    #expect(try HistorySnapshot.merge(a, .empty) == a)
  }

  @Test func mergeOfShardsEqualsOneSnapshotOfEverything() throws {
    let all = randomSwipes(seed: 4, count: 400)
    let shards = [Array(all[0..<100]), Array(all[100..<250]), Array(all[250...])]
    var merged = HistorySnapshot.empty
    for (n, shard) in shards.enumerated() {
      merged = try HistorySnapshot.merge(merged, snapshot(shard, source: "s\(n)"))
    }
    var whole = snapshot(all, source: "x")
    whole.sources = merged.sources
    #expect(merged == whole)
  }

  @Test func mergeRefusesToCountALogTwice() {
    let a = snapshot(randomSwipes(seed: 5, count: 10), source: "same")
    #expect(throws: DeckCoreError.self) { try HistorySnapshot.merge(a, a) }
  }

  /// The empty partitions of a split log are one log (the same content) without swipes: they
  /// merge, kept once, the same whatever the order and grouping.
  @Test func aLogWithoutSwipesMayBeInBothSides() throws {
    func empty(_ path: String) -> HistorySnapshot {
      var s = HistorySnapshot.empty
      s.sources = [.init(sha256: "e3b0c442", path: path, bytes: 0, lines: 0, events: 0)]
      return s
    }
    let a = snapshot(randomSwipes(seed: 7, count: 30), source: "a")
    let x = empty("part-2")
    let y = empty("part-1")
    let xy = try HistorySnapshot.merge(x, y)
    #expect(try xy == HistorySnapshot.merge(y, x))
    #expect(xy.sources.map(\.path) == ["part-1"])
    #expect(
      try HistorySnapshot.merge(HistorySnapshot.merge(a, x), y)
        == HistorySnapshot.merge(a, HistorySnapshot.merge(y, x)))
    #expect(try HistorySnapshot.merge(a, xy).sources.count == 2)
  }

  @Test func historyEqualsTheOneBuiltFromTheSameSwipes() throws {
    let swipes = randomSwipes(seed: 6, count: 500)
    let date = DeckDate(daysSinceEpoch: 20_020)
    var builder = HistoryBuilder(itemCount: catalog.count, cutoff: date)
    var unknown = 0
    for (u, i, s, d, p) in swipes.reversed() {
      guard let item = catalog.index(of: i) else {
        unknown += 1
        continue
      }
      let slot = builder.userSlot(u)
      builder.add(user: slot, item: item, swipe: s, day: d, position: p)
    }
    let direct = try builder.build()
    let (fromSnapshot, unknownEvents, unknownIDs) = try snapshot(swipes, source: "a").history(
      for: catalog, before: date)
    #expect(sameHistory(direct, fromSnapshot))
    #expect(unknownEvents == Int64(unknown))
    #expect(unknownIDs == ["i7", "i8"])
  }

  @Test func aSnapshotCannotBuildDecksForItsOwnDays() {
    let s = snapshot([("u1", "i1", .right, 20_010, 1)], source: "a")
    #expect(throws: DeckCoreError.self) {
      try s.history(for: catalog, before: DeckDate(daysSinceEpoch: 20_010))
    }
    #expect(throws: Never.self) {
      try s.history(for: catalog, before: DeckDate(daysSinceEpoch: 20_011))
    }
  }

  @Test func canonicalOrderDoesNotDependOnEventOrder() {
    let swipes = randomSwipes(seed: 7, count: 300)
    #expect(snapshot(swipes, source: "a") == snapshot(swipes.reversed(), source: "a"))
    let s = snapshot(swipes, source: "a")
    #expect(s.items.map(\.id) == s.items.map(\.id).sorted())
    #expect(
      s.users.allSatisfy { u in
        zip(u.records, u.records.dropFirst()).allSatisfy { $0.item < $1.item }
      })
    #expect(s.events == 300)
    #expect(s.firstDay == swipes.map(\.3).min())
    #expect(s.lastDay == swipes.map(\.3).max())
  }

  // MARK: - Pending swipes

  /// Pending swipes merge like the rest: any order and grouping gives the same snapshot, and
  /// the merge of shards is the snapshot of everything with the same limit.
  @Test func mergeWithPendingSwipesIsCommutativeAndAssociative() throws {
    let a = snapshot(randomSwipes(seed: 11, count: 200), source: "a", before: 20_012)
    let b = snapshot(randomSwipes(seed: 12, count: 150), source: "b", before: 20_015)
    let c = snapshot(randomSwipes(seed: 13, count: 90), source: "c")
    #expect(!a.pending.isEmpty && !b.pending.isEmpty)
    #expect(try HistorySnapshot.merge(a, b) == HistorySnapshot.merge(b, a))
    #expect(
      try HistorySnapshot.merge(HistorySnapshot.merge(a, b), c)
        == HistorySnapshot.merge(a, HistorySnapshot.merge(b, c)))
    #expect(try HistorySnapshot.merge(a, .empty) == a)
    let all = randomSwipes(seed: 14, count: 400)
    var merged = HistorySnapshot.empty
    for (n, range) in [0..<100, 100..<250, 250..<400].enumerated() {
      merged = try HistorySnapshot.merge(
        merged, snapshot(Array(all[range]), source: "s\(n)", before: 20_010))
    }
    var whole = snapshot(all, source: "x", before: 20_010)
    whole.sources = merged.sources
    #expect(merged == whole)
    #expect(merged.events == 400)
  }

  /// Adding up the pending swipes a later limit passes gives the snapshot that the later limit
  /// gives from the start; nothing is added up twice or lost.
  @Test func countingPendingSwipesEqualsALaterLimit() throws {
    let swipes = randomSwipes(seed: 15, count: 500)
    let early = snapshot(swipes, source: "a", before: 20_005)
    for later: Int32 in [20_004, 20_005, 20_010, 20_019, 20_030] {
      let counted = try early.counting(before: DeckDate(daysSinceEpoch: later))
      #expect(counted == snapshot(swipes, source: "a", before: max(later, 20_005)), "\(later)")
      #expect(counted.events == 500)
    }
    #expect(try early.counting(before: nil) == snapshot(swipes, source: "a"))
    #expect(try early.counting(before: nil).pending.isEmpty)
  }

  /// A deck run on a snapshot with pending swipes learns exactly what reading the swipes
  /// directly teaches for that date: the pending swipes before it as if added up, none after.
  @Test func historyWithPendingSwipesEqualsTheDirectRead() throws {
    let swipes = randomSwipes(seed: 16, count: 600)
    let s = snapshot(swipes, source: "a", before: 20_008)
    for date: Int32 in [20_008, 20_009, 20_013, 20_019, 20_020, 20_040] {
      let deckDate = DeckDate(daysSinceEpoch: date)
      var builder = HistoryBuilder(itemCount: catalog.count, cutoff: deckDate)
      for (u, i, dir, d, p) in swipes {
        guard let item = catalog.index(of: i) else { continue }
        builder.add(user: builder.userSlot(u), item: item, swipe: dir, day: d, position: p)
      }
      let direct = try builder.build()
      let (fromSnapshot, _, _) = try s.history(for: catalog, before: deckDate)
      #expect(sameHistory(direct, fromSnapshot), "deck date \(date)")
      #expect(
        s.pending.count - s.pendingCount(before: deckDate)
          == swipes.filter { $0.3 >= date }.count)
    }
    // Before the pending days the aggregates alone; on or before their last day, refused.
    #expect(throws: DeckCoreError.self) {
      try s.history(for: catalog, before: DeckDate(daysSinceEpoch: 20_007))
    }
  }

  /// The canonical order of pending swipes is by id bytes: two spellings of one character are
  /// two ids, ordered by their bytes whatever the order they came in.
  @Test func pendingSwipesAreOrderedByIDBytes() {
    let composed = "caf\u{E9}"
    let decomposed = "cafe\u{301}"
    var x = SnapshotBuilder()
    var y = SnapshotBuilder()
    let one = HistorySnapshot.PendingSwipe(
      day: 20_000, user: composed, item: "i", swipe: .left, position: 1)
    var two = one
    two.user = decomposed
    x.addPending(one)
    x.addPending(two)
    y.addPending(two)
    y.addPending(one)
    #expect(
      x.build().pending.map { Array($0.user.utf8) } == y.build().pending.map { Array($0.user.utf8) }
    )
    #expect(x.build().pending.map { Array($0.user.utf8) }.first == Array(decomposed.utf8))
    #expect(one != two)
  }
}
