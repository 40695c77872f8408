import Testing

@testable import DeckCore

@Suite("History aggregation")
struct HistoryTests {
  @Test("events on or after the cutoff are ignored and counted")
  func cutoff() throws {
    var b = HistoryBuilder(itemCount: 2, cutoff: Fixture.date)
    let u = b.userSlot("u")
    b.add(user: u, item: 0, swipe: .right, day: Fixture.date.daysSinceEpoch - 1, position: 1)
    b.add(user: u, item: 0, swipe: .right, day: Fixture.date.daysSinceEpoch)
    b.add(user: u, item: 1, swipe: .left, day: Fixture.date.daysSinceEpoch + 3, position: 2)
    #expect(b.skippedFuture == 2)
    let h = b.build()
    #expect(h.right == 1)
    #expect(h.left == 0)
    #expect(h.itemRight == [1, 0])
    #expect(h.itemLeft == [0, 0])
    #expect(h.positionShown == [1])
    let user = try #require(h.users["u"])
    #expect(user.records.count == 1)
    #expect(user.records[0].lastRight == Fixture.date.daysSinceEpoch - 1)
    #expect(user.record(for: 1) == nil)
  }

  @Test("aggregates do not depend on event order")
  func orderIndependent() {
    let events: [(String, Int32, SwipeDirection, Int32, Int32)] = [
      ("u", 0, .right, 10, 1), ("v", 1, .left, 11, 2), ("u", 0, .left, 12, 3),
      ("u", 2, .right, 9, 0),
      ("v", 1, .right, 8, 1),
    ]
    func build(_ evs: [(String, Int32, SwipeDirection, Int32, Int32)]) -> History {
      var b = HistoryBuilder(itemCount: 3)
      for (user, item, swipe, day, pos) in evs {
        b.add(user: b.userSlot(user), item: item, swipe: swipe, day: day, position: pos)
      }
      return b.build()
    }
    let a = build(events)
    let z = build(events.reversed())
    #expect(a.users == z.users)
    #expect(a.itemRight == z.itemRight)
    #expect(a.positionShown == z.positionShown)
    #expect(a.positionRight == [2, 0, 0])
    #expect(a.positionShown == [2, 1, 1])
    let u = a.users["u"]!
    #expect(u.right == 2 && u.left == 1)
    #expect(
      u.record(for: 0)
        == UserItemRecord(item: 0, right: 1, left: 1, lastRight: 10, lastLeft: 12))
    #expect(a.userIDs == ["u", "v"])
  }

  @Test("the pair table keeps every (user, item) pair through growth")
  func manyPairs() {
    var b = HistoryBuilder(itemCount: 50)
    for user in 0..<60 {
      let slot = b.userSlot("user\(user)")
      for item in 0..<50 where (user + item) % 3 == 0 {
        b.add(user: slot, item: Int32(item), swipe: .left, day: Int32(user))
      }
    }
    let h = b.build()
    #expect(h.users.count == 60)
    var expectedPairs = 0
    for u in 0..<60 {
      for i in 0..<50 where (u + i) % 3 == 0 { expectedPairs += 1 }
    }
    let pairs = h.users.values.reduce(0) { $0 + $1.records.count }
    #expect(pairs == expectedPairs)
    let r = h.users["user7"]!
    let expectedItems: [Int32] = (0..<50).filter { (7 + $0) % 3 == 0 }.map { Int32($0) }
    #expect(r.records.map(\.item) == expectedItems)
    #expect(r.records.allSatisfy { $0.lastLeft == 7 && $0.lastRight == History.never })
  }

  // MARK: - Tables, growth, bulk adds, copies

  /// One swipe for the reference model.
  struct Event {
    var user: Int
    var item: Int32
    var swipe: SwipeDirection
    var day: Int32
    var position: Int32
  }

  /// The aggregates computed the plain way, with dictionaries.
  static func reference(_ events: [Event], users: Int, itemCount: Int, cutoff: Int32 = .max)
    -> (records: [String: [UserItemRecord]], right: [Int32], left: [Int32], shown: [Int32])
  {
    var pairs: [Int: [Int32: UserItemRecord]] = [:]
    var right = [Int32](repeating: 0, count: itemCount)
    var left = [Int32](repeating: 0, count: itemCount)
    var shown: [Int32] = []
    for e in events where e.day < cutoff {
      var r =
        pairs[e.user, default: [:]][e.item]
        ?? UserItemRecord(
          item: e.item, right: 0, left: 0, lastRight: History.never, lastLeft: History.never)
      if e.swipe == .right {
        r.right += 1
        r.lastRight = max(r.lastRight, e.day)
        right[Int(e.item)] += 1
      } else {
        r.left += 1
        r.lastLeft = max(r.lastLeft, e.day)
        left[Int(e.item)] += 1
      }
      pairs[e.user, default: [:]][e.item] = r
      if e.position >= 1 && e.position <= History.maxTrackedPosition {
        let p = Int(e.position)
        if shown.count < p { shown += [Int32](repeating: 0, count: p - shown.count) }
        shown[p - 1] += 1
      }
    }
    var records: [String: [UserItemRecord]] = [:]
    for u in 0..<users {
      records["user\(u)"] = (pairs[u] ?? [:]).values.sorted { $0.item < $1.item }
    }
    return (records, right, left, shown)
  }

  /// Random events: `users` users, each with up to `maxItems` distinct items from the catalog,
  /// several swipes per pair, days and positions in and out of range.
  static func randomEvents(users: Int, itemCount: Int, maxItems: Int, seed: UInt64) -> [Event] {
    var random = RandomStream(seed: seed)
    var events: [Event] = []
    for u in 0..<users {
      let n = 1 + random.nextInt(below: maxItems)
      for _ in 0..<n {
        let item = Int32(random.nextInt(below: itemCount))
        for _ in 0..<(1 + random.nextInt(below: 3)) {
          let positions: [Int32] = [0, 1, 2, 7, 999, 1000, 1001, 5000]
          events.append(
            Event(
              user: u, item: item, swipe: random.nextDouble() < 0.3 ? .right : .left,
              day: Int32(20_000 + random.nextInt(below: 60)),
              position: positions[random.nextInt(below: positions.count)]))
        }
      }
    }
    return events
  }

  static func shuffled(_ events: [Event], seed: UInt64) -> [Event] {
    var random = RandomStream(seed: seed)
    var e = events
    for i in stride(from: e.count - 1, to: 0, by: -1) {
      e.swapAt(i, random.nextInt(below: i + 1))
    }
    return e
  }

  static func expectMatches(
    _ h: History, _ events: [Event], users: Int, itemCount: Int, cutoff: Int32 = .max
  ) {
    let ref = reference(events, users: users, itemCount: itemCount, cutoff: cutoff)
    #expect(h.users.count == users)
    for (id, records) in ref.records {
      #expect(h.users[id]?.records == records, "user \(id)")
      #expect(h.users[id]?.right == records.reduce(0) { $0 + $1.right })
      #expect(h.users[id]?.left == records.reduce(0) { $0 + $1.left })
    }
    #expect(h.itemRight == ref.right)
    #expect(h.itemLeft == ref.left)
    #expect(h.positionShown == ref.shown)
    #expect(h.events == ref.right.reduce(0) { $0 + Int($1) } + ref.left.reduce(0) { $0 + Int($1) })
  }

  @Test(
    "every pair survives table growth, for catalogs that order records by bitmap or by sort",
    arguments: [(300, 40), (5000, 20), (20_000, 70)])
  func tablesGrowAndOrder(itemCount: Int, maxItems: Int) {
    let users = 150
    let events = HistoryTests.randomEvents(
      users: users, itemCount: itemCount, maxItems: maxItems, seed: UInt64(itemCount))
    var b = HistoryBuilder(itemCount: itemCount)
    let slots = (0..<users).map { b.userSlot("user\($0)") }
    for e in HistoryTests.shuffled(events, seed: 1) {
      b.add(user: slots[e.user], item: e.item, swipe: e.swipe, day: e.day, position: e.position)
    }
    HistoryTests.expectMatches(b.build(), events, users: users, itemCount: itemCount)
  }

  @Test("thousands of users fill several arena chunks and reuse left-behind tables")
  func manyUsersManyChunks() {
    // 3000 users x up to 60 items: well over one 4 MiB (209,715-slot) chunk of
    // tables.
    let users = 3000
    let events = HistoryTests.randomEvents(users: users, itemCount: 400, maxItems: 60, seed: 9)
    var b = HistoryBuilder(itemCount: 400)
    for u in 0..<users { _ = b.userSlot("user\(u)") }
    for e in HistoryTests.shuffled(events, seed: 2) {
      b.add(user: Int32(e.user), item: e.item, swipe: e.swipe, day: e.day, position: e.position)
    }
    let distinct = Set(events.map { Int64($0.user) << 32 | Int64($0.item) }).count
    #expect(b.pairCount == distinct)
    #expect(b.userCount == users)
    HistoryTests.expectMatches(b.build(), events, users: users, itemCount: 400)
  }

  @Test("bulk adds give exactly what single adds give, cutoff included")
  func bulkEqualsSingle() {
    let users = 80
    let events = HistoryTests.randomEvents(users: users, itemCount: 90, maxItems: 30, seed: 4)
    let cutoff = DeckDate(daysSinceEpoch: 20_050)
    var single = HistoryBuilder(itemCount: 90, cutoff: cutoff)
    var bulk = HistoryBuilder(itemCount: 90, cutoff: cutoff)
    for u in 0..<users {
      _ = single.userSlot("user\(u)")
      _ = bulk.userSlot("user\(u)")
    }
    let order = HistoryTests.shuffled(events, seed: 3)
    for e in order {
      single.add(
        user: Int32(e.user), item: e.item, swipe: e.swipe, day: e.day, position: e.position)
    }
    // Uneven batches, sessions of one user included.
    var batch: [HistoryBuilder.Swipe] = []
    for (n, e) in order.enumerated() {
      batch.append(
        HistoryBuilder.Swipe(
          user: Int32(e.user), item: e.item, swipe: e.swipe, day: e.day, position: e.position))
      if batch.count == 1 + n % 37 {
        batch.withUnsafeBufferPointer { bulk.add($0) }
        batch.removeAll()
      }
    }
    batch.withUnsafeBufferPointer { bulk.add($0) }
    let skipped = events.filter { $0.day >= 20_050 }.count
    #expect(skipped > 0)
    #expect(single.skippedFuture == skipped)
    #expect(bulk.skippedFuture == skipped)
    let a = single.build()
    let z = bulk.build()
    #expect(a.users == z.users)
    #expect(a.itemRight == z.itemRight && a.itemLeft == z.itemLeft)
    #expect(a.positionShown == z.positionShown && a.positionRight == z.positionRight)
    HistoryTests.expectMatches(z, events, users: users, itemCount: 90, cutoff: 20_050)
  }

  @Test("without a cutoff every day counts, the extremes included; with one, the day before")
  func cutoffExtremes() {
    var b = HistoryBuilder(itemCount: 1)
    let u = b.userSlot("u")
    b.add(user: u, item: 0, swipe: .right, day: .max)
    b.add(user: u, item: 0, swipe: .left, day: .min + 1)
    #expect(b.skippedFuture == 0)
    #expect(
      b.build().users["u"]?.records
        == [UserItemRecord(item: 0, right: 1, left: 1, lastRight: .max, lastLeft: .min + 1)])
    var c = HistoryBuilder(itemCount: 1, cutoff: DeckDate(daysSinceEpoch: 100))
    let v = c.userSlot("v")
    c.add(user: v, item: 0, swipe: .right, day: 99)
    c.add(user: v, item: 0, swipe: .right, day: 100)
    c.add(user: v, item: 0, swipe: .right, day: .max)
    #expect(c.skippedFuture == 2)
    #expect(c.build().right == 1)
  }

  @Test(
    "the latest day wins across the sign boundary, in any order",
    arguments: [
      [.min + 1, -1, 0, 1], [1, 0, -1, .min + 1], [0, .min + 1, 1, -1], [-1, .max, .min + 1, 0],
    ] as [[Int32]])
  func latestDayAcrossZero(days: [Int32]) {
    var b = HistoryBuilder(itemCount: 3)
    let u = b.userSlot("u")
    for day in days {
      b.add(user: u, item: 2, swipe: .right, day: day)
      b.add(user: u, item: 0, swipe: .left, day: day)
    }
    b.add(user: u, item: 1, swipe: .left, day: -2)
    let latest = days.max()!
    #expect(
      b.build().users["u"]?.records == [
        UserItemRecord(
          item: 0, right: 0, left: Int32(days.count), lastRight: History.never, lastLeft: latest),
        UserItemRecord(item: 1, right: 0, left: 1, lastRight: History.never, lastLeft: -2),
        UserItemRecord(
          item: 2, right: Int32(days.count), left: 0, lastRight: latest, lastLeft: History.never),
      ])
  }

  @Test("positions outside 1...1000 count everywhere but in the position arrays")
  func swipePositionBits() {
    var b = HistoryBuilder(itemCount: 1)
    let u = b.userSlot("u")
    let swipes = [
      HistoryBuilder.Swipe(user: u, item: 0, swipe: .right, day: 5, position: 1000),
      HistoryBuilder.Swipe(user: u, item: 0, swipe: .left, day: 6, position: 1001),
      HistoryBuilder.Swipe(user: u, item: 0, swipe: .right, day: 4, position: -3),
      HistoryBuilder.Swipe(user: u, item: 0, swipe: .left, day: 2, position: .max),
    ]
    swipes.withUnsafeBufferPointer { b.add($0) }
    let h = b.build()
    #expect(h.positionShown.count == 1000)
    #expect(h.positionShown[999] == 1 && h.positionRight[999] == 1)
    #expect(h.positionShown.reduce(0, +) == 1)
    #expect(
      h.users["u"]?.records
        == [UserItemRecord(item: 0, right: 2, left: 2, lastRight: 5, lastLeft: 6)])
    #expect(h.right == 2 && h.left == 2)
  }

  @Test("copies are independent, before and after either side grows")
  func copyOnWrite() {
    var a = HistoryBuilder(itemCount: 200)
    let u = a.userSlot("u")
    for item in 0..<30 { a.add(user: u, item: Int32(item), swipe: .left, day: 1) }
    var b = a
    for item in 0..<100 { b.add(user: u, item: Int32(item), swipe: .right, day: 2) }
    let v = b.userSlot("v")
    b.add(user: v, item: 7, swipe: .right, day: 3)
    a.add(user: u, item: 150, swipe: .right, day: 9)
    let ha = a.build()
    let hb = b.build()
    #expect(ha.users.count == 1)
    #expect(ha.users["u"]?.records.count == 31)
    #expect(
      ha.users["u"]?.record(for: 5)
        == UserItemRecord(item: 5, right: 0, left: 1, lastRight: History.never, lastLeft: 1))
    #expect(ha.users["u"]?.record(for: 150)?.right == 1)
    #expect(hb.users.count == 2)
    #expect(hb.users["u"]?.records.count == 100)
    #expect(
      hb.users["u"]?.record(for: 5)
        == UserItemRecord(item: 5, right: 1, left: 1, lastRight: 2, lastLeft: 1))
    #expect(hb.users["u"]?.record(for: 150) == nil)
    #expect(
      hb.users["v"]?.records == [
        UserItemRecord(item: 7, right: 1, left: 0, lastRight: 3, lastLeft: History.never)
      ])
    #expect(ha.itemLeft.reduce(0, +) == 30 && ha.itemRight.reduce(0, +) == 1)
    #expect(hb.itemLeft.reduce(0, +) == 30 && hb.itemRight.reduce(0, +) == 101)
    // A copy of a copy keeps growing on its own (its tables were packed by the copy).
    var c = b
    for item in 100..<200 { c.add(user: u, item: Int32(item), swipe: .left, day: 4) }
    #expect(c.build().users["u"]?.records.count == 200)
    #expect(b.build().users["u"]?.records.count == 100)
  }

  @Test(
    "record order: insertion sort and the standard sort agree", arguments: [0, 1, 2, 48, 49, 300])
  func keySort(count: Int) {
    var random = RandomStream(seed: UInt64(count))
    var keys = (0..<count).map { _ in UInt64(random.nextInt(below: 1 << 40)) }
    let expected = keys.sorted()
    keys.withUnsafeMutableBufferPointer { sortKeys($0) }
    #expect(keys == expected)
  }
}
