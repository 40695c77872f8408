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

private func snapshot(_ swipes: [(String, String, SwipeDirection, Int32, Int32)], source: String)
  -> HistorySnapshot
{
  var b = SnapshotBuilder()
  for (u, i, s, d, p) in swipes {
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
}
