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
    let h = try b.build()
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
  func orderIndependent() throws {
    let events: [(String, Int32, SwipeDirection, Int32, Int32)] = [
      ("u", 0, .right, 10, 1), ("v", 1, .left, 11, 2), ("u", 0, .left, 12, 3),
      ("u", 2, .right, 9, 0),
      ("v", 1, .right, 8, 1),
    ]
    func build(_ evs: [(String, Int32, SwipeDirection, Int32, Int32)]) throws -> History {
      var b = HistoryBuilder(itemCount: 3)
      for (user, item, swipe, day, pos) in evs {
        b.add(user: b.userSlot(user), item: item, swipe: swipe, day: day, position: pos)
      }
      return try b.build()
    }
    let a = try build(events)
    let z = try build(events.reversed())
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
  func manyPairs() throws {
    var b = HistoryBuilder(itemCount: 50)
    for user in 0..<60 {
      let slot = b.userSlot("user\(user)")
      for item in 0..<50 where (user + item) % 3 == 0 {
        b.add(user: slot, item: Int32(item), swipe: .left, day: Int32(user))
      }
    }
    let h = try b.build()
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
      #expect(h.users[id].map { Array($0.records) } == records, "user \(id)")
      #expect(h.users[id]?.right == records.reduce(0) { $0 + $1.right })
      #expect(h.users[id]?.left == records.reduce(0) { $0 + $1.left })
    }
    #expect(h.itemRight == ref.right)
    #expect(h.itemLeft == ref.left)
    #expect(h.positionShown == ref.shown)
    #expect(h.events == ref.right.reduce(0) { $0 + Int($1) } + ref.left.reduce(0) { $0 + Int($1) })
  }

  @Test(
    "every pair survives table growth and the move to an array, whatever orders the records",
    arguments: [(300, 40), (300, 120), (8, 8), (60, 40), (5000, 20), (20_000, 70)])
  func tablesGrowAndOrder(itemCount: Int, maxItems: Int) throws {
    let users = 150
    let events = HistoryTests.randomEvents(
      users: users, itemCount: itemCount, maxItems: maxItems, seed: UInt64(itemCount))
    var b = HistoryBuilder(itemCount: itemCount)
    let slots = (0..<users).map { b.userSlot("user\($0)") }
    for e in HistoryTests.shuffled(events, seed: 1) {
      b.add(user: slots[e.user], item: e.item, swipe: e.swipe, day: e.day, position: e.position)
    }
    HistoryTests.expectMatches(try b.build(), events, users: users, itemCount: itemCount)
  }

  @Test("thousands of users fill several arena chunks and reuse left-behind tables")
  func manyUsersManyChunks() throws {
    // 3000 users x up to 60 items: well over one 4 MiB (262,144-unit) chunk of tables and
    // arrays.
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
    HistoryTests.expectMatches(try b.build(), events, users: users, itemCount: 400)
  }

  @Test("bulk adds give exactly what single adds give, cutoff included")
  func bulkEqualsSingle() throws {
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
    let a = try single.build()
    let z = try bulk.build()
    #expect(a.users == z.users)
    #expect(a.itemRight == z.itemRight && a.itemLeft == z.itemLeft)
    #expect(a.positionShown == z.positionShown && a.positionRight == z.positionRight)
    HistoryTests.expectMatches(z, events, users: users, itemCount: 90, cutoff: 20_050)
  }

  @Test("without a cutoff every day counts, the extremes included; with one, the day before")
  func cutoffExtremes() throws {
    var b = HistoryBuilder(itemCount: 1)
    let u = b.userSlot("u")
    b.add(user: u, item: 0, swipe: .right, day: .max)
    b.add(user: u, item: 0, swipe: .left, day: .min + 1)
    #expect(b.skippedFuture == 0)
    #expect(
      try b.build().users["u"]?.records
        == [UserItemRecord(item: 0, right: 1, left: 1, lastRight: .max, lastLeft: .min + 1)])
    var c = HistoryBuilder(itemCount: 1, cutoff: DeckDate(daysSinceEpoch: 100))
    let v = c.userSlot("v")
    c.add(user: v, item: 0, swipe: .right, day: 99)
    c.add(user: v, item: 0, swipe: .right, day: 100)
    c.add(user: v, item: 0, swipe: .right, day: .max)
    #expect(c.skippedFuture == 2)
    #expect(try c.build().right == 1)
  }

  @Test(
    "the latest day wins across the sign boundary, in any order",
    arguments: [
      [.min + 1, -1, 0, 1], [1, 0, -1, .min + 1], [0, .min + 1, 1, -1], [-1, .max, .min + 1, 0],
    ] as [[Int32]])
  func latestDayAcrossZero(days: [Int32]) throws {
    var b = HistoryBuilder(itemCount: 3)
    let u = b.userSlot("u")
    for day in days {
      b.add(user: u, item: 2, swipe: .right, day: day)
      b.add(user: u, item: 0, swipe: .left, day: day)
    }
    b.add(user: u, item: 1, swipe: .left, day: -2)
    let latest = days.max()!
    #expect(
      try b.build().users["u"]?.records == [
        UserItemRecord(
          item: 0, right: 0, left: Int32(days.count), lastRight: History.never, lastLeft: latest),
        UserItemRecord(item: 1, right: 0, left: 1, lastRight: History.never, lastLeft: -2),
        UserItemRecord(
          item: 2, right: Int32(days.count), left: 0, lastRight: latest, lastLeft: History.never),
      ])
  }

  @Test("positions outside 1...1000 count everywhere but in the position arrays")
  func swipePositionBits() throws {
    var b = HistoryBuilder(itemCount: 1)
    let u = b.userSlot("u")
    let swipes = [
      HistoryBuilder.Swipe(user: u, item: 0, swipe: .right, day: 5, position: 1000),
      HistoryBuilder.Swipe(user: u, item: 0, swipe: .left, day: 6, position: 1001),
      HistoryBuilder.Swipe(user: u, item: 0, swipe: .right, day: 4, position: -3),
      HistoryBuilder.Swipe(user: u, item: 0, swipe: .left, day: 2, position: .max),
    ]
    swipes.withUnsafeBufferPointer { b.add($0) }
    let h = try b.build()
    #expect(h.positionShown.count == 1000)
    #expect(h.positionShown[999] == 1 && h.positionRight[999] == 1)
    #expect(h.positionShown.reduce(0, +) == 1)
    #expect(
      h.users["u"]?.records
        == [UserItemRecord(item: 0, right: 2, left: 2, lastRight: 5, lastLeft: 6)])
    #expect(h.right == 2 && h.left == 2)
  }

  @Test("copies are independent, before and after either side grows")
  func copyOnWrite() throws {
    var a = HistoryBuilder(itemCount: 200)
    let u = a.userSlot("u")
    for item in 0..<30 { a.add(user: u, item: Int32(item), swipe: .left, day: 1) }
    var b = a
    for item in 0..<100 { b.add(user: u, item: Int32(item), swipe: .right, day: 2) }
    let v = b.userSlot("v")
    b.add(user: v, item: 7, swipe: .right, day: 3)
    a.add(user: u, item: 150, swipe: .right, day: 9)
    let ha = try a.build()
    let hb = try b.build()
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
    #expect(try c.build().users["u"]?.records.count == 200)
    #expect(try b.build().users["u"]?.records.count == 100)
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

  // MARK: - Packed counts and days

  /// Where a diner's pairs are when the swipes under test arrive.
  enum Layout: String, CaseIterable, CustomTestStringConvertible {
    /// A hash table (the catalog is large next to the diner's pairs).
    case table
    /// A direct array from the first swipe (a catalog of 8 items).
    case array
    /// A table for the first half of the swipes, then an array (49 pairs in a 500-item catalog).
    case movedToArray

    var itemCount: Int {
      switch self {
      case .table: 10_000
      case .array: 8
      case .movedToArray: 500
      }
    }

    var testDescription: String { rawValue }
  }

  static func isArray(_ b: HistoryBuilder, _ user: Int32) -> Bool {
    b.storage.state.pointee.users[Int(user)].isArray
  }

  static func spillCount(_ b: HistoryBuilder) -> Int { b.storage.state.pointee.spills.count }

  /// Adds `swipes` to item 0 of one diner in `layout`: for `movedToArray`, the first `before`
  /// of them (half by default) while the diner has a table, then 48 left swipes on items 1...48
  /// (day 5) that turn it into an array, then the rest.
  static func addInLayout(
    _ layout: Layout, _ swipes: [(SwipeDirection, Int32)], before: Int? = nil
  ) -> (HistoryBuilder, Int32) {
    var b = HistoryBuilder(itemCount: layout.itemCount)
    let u = b.userSlot("u")
    let half = layout == .movedToArray ? before ?? swipes.count / 2 : swipes.count
    for (swipe, day) in swipes[..<half] { b.add(user: u, item: 0, swipe: swipe, day: day) }
    if layout == .movedToArray {
      #expect(!isArray(b, u))
      for item in 1...48 { b.add(user: u, item: Int32(item), swipe: .left, day: 5) }
    }
    for (swipe, day) in swipes[half...] { b.add(user: u, item: 0, swipe: swipe, day: day) }
    #expect(isArray(b, u) == (layout != .table))
    #expect(b.pairCount == (layout == .movedToArray ? 49 : 1))
    return (b, u)
  }

  @Test(
    "counts are exact one below, at and above the 16-bit packed limit, and past it twice",
    arguments: Layout.allCases, [65_534, 65_535, 65_536, 65_537, 131_072, 131_073])
  func countsPastSixteenBits(layout: Layout, count: Int) throws {
    // `count` right swipes and `count - 1` left swipes on one pair, days rising.
    var swipes: [(SwipeDirection, Int32)] = []
    for k in 0..<count {
      swipes.append((.right, Int32(20_000 + k % 7)))
      if k > 0 { swipes.append((.left, Int32(20_000 + k % 5))) }
    }
    let (b, _) = HistoryTests.addInLayout(layout, swipes)
    // A spill per pair only once a 16-bit count has wrapped.
    #expect(HistoryTests.spillCount(b) == (count > 65_535 ? 1 : 0))
    let h = try b.build()
    let user = try #require(h.users["u"])
    let extra: Int32 = layout == .movedToArray ? 48 : 0
    #expect(user.right == Int32(count) && user.left == Int32(count - 1) + extra)
    #expect(
      user.record(for: 0)
        == UserItemRecord(
          item: 0, right: Int32(count), left: Int32(count - 1), lastRight: 20_006,
          lastLeft: 20_004))
    #expect(h.itemRight[0] == Int32(count) && h.itemLeft[0] == Int32(count - 1))
    #expect(user.records.count == (layout == .movedToArray ? 49 : 1))
  }

  @Test(
    "each day keeps its value exactly, inside and outside the 16-bit day codes",
    arguments: Layout.allCases,
    [.min, .min + 1, -2, -1, 0, 1, 65_532, 65_533, 65_534, 65_535, .max] as [Int32])
  func dayCodeBoundaries(layout: Layout, day: Int32) throws {
    // Two swipes (one of them on day 3) so that the moved layout has one before and one after.
    let (b, _) = HistoryTests.addInLayout(layout, [(.right, 3), (.right, day)])
    let (c, _) = HistoryTests.addInLayout(layout, [(.left, day), (.left, 3)])
    // Cells code days 0...65,533; any other day of an array goes to a spill.
    let coded = (0...65_533).contains(day)
    #expect(HistoryTests.spillCount(b) == (layout == .table || coded ? 0 : 1))
    #expect(HistoryTests.spillCount(c) == (layout == .table || coded ? 0 : 1))
    let latest = max(day, 3)
    #expect(
      try b.build().users["u"]?.record(for: 0)
        == UserItemRecord(item: 0, right: 2, left: 0, lastRight: latest, lastLeft: History.never))
    #expect(
      try c.build().users["u"]?.record(for: 0)
        == UserItemRecord(item: 0, right: 0, left: 2, lastRight: History.never, lastLeft: latest))
  }

  @Test(
    "a pair swiped only on the day History.never is kept, with its count and no day",
    arguments: Layout.allCases)
  func swipedOnlyOnTheNeverDay(layout: Layout) throws {
    // All of them before the move: the cell must not look empty.
    let (b, u) = HistoryTests.addInLayout(layout, [(.right, .min), (.right, .min)], before: 2)
    var d = b
    d.add(user: u, item: 1, swipe: .left, day: .min)
    #expect(d.pairCount == (layout == .movedToArray ? 49 : 2))
    let h = try d.build()
    #expect(
      h.users["u"]?.record(for: 0)
        == UserItemRecord(
          item: 0, right: 2, left: 0, lastRight: History.never, lastLeft: History.never))
    // Item 1: one more left swipe on day .min (after the 48 of day 5 in the moved layout).
    #expect(
      h.users["u"]?.record(for: 1)
        == UserItemRecord(
          item: 1, right: 0, left: layout == .movedToArray ? 2 : 1, lastRight: History.never,
          lastLeft: layout == .movedToArray ? 5 : History.never))
    #expect(h.users["u"]?.records.count == (layout == .movedToArray ? 49 : 2))
  }

  @Test(
    "the latest day wins whatever the order of coded and uncoded days, in every layout",
    arguments: Layout.allCases,
    [
      [-1, 0, 65_533, 65_534, .max, .min], [.max, 65_534, 65_533, 0, -1, .min],
      [65_534, 0, .min, 65_533, -1, 7], [.min, -5, -1], [65_534, 70_000, 65_534],
      [3, 1, 65_533, 2],
    ] as [[Int32]])
  func latestDayWhateverTheCodes(layout: Layout, days: [Int32]) throws {
    var swipes: [(SwipeDirection, Int32)] = []
    for day in days {
      swipes.append((.right, day))
      swipes.append((.left, day))
    }
    let (b, _) = HistoryTests.addInLayout(layout, swipes)
    let n = Int32(days.count)
    #expect(
      try b.build().users["u"]?.record(for: 0)
        == UserItemRecord(item: 0, right: n, left: n, lastRight: days.max()!, lastLeft: days.max()!)
    )
  }

  @Test(
    "a diner's table becomes an array when the array is no larger than the table's next size",
    arguments: [(8, 0), (60, 12), (500, 48), (600, 192), (4096, 768)])
  func tableBecomesArray(itemCount: Int, lastTablePairs: Int) throws {
    // 8 items: 64 bytes of cells, the size of the first table. 60 items: 480 bytes, rounded to
    // 512, once the 16-slot table (256 bytes) would grow to 64 slots (1,024). 500: 4,032 bytes
    // against 256 slots (4,096). 600: 4,800 bytes, more than 256 slots, less than 512 (8,192).
    // 4096: 32,768 bytes, exactly 2,048 slots.
    var b = HistoryBuilder(itemCount: itemCount)
    let u = b.userSlot("u")
    #expect(HistoryTests.isArray(b, u) == (lastTablePairs == 0))
    let pairs = min(itemCount, lastTablePairs + 3)
    for k in 0..<pairs {
      // Items spread over the catalog, every one swiped twice (once each way).
      let item = Int32(k * 7919 % itemCount)
      b.add(user: u, item: item, swipe: .right, day: Int32(100 + k))
      b.add(user: u, item: item, swipe: .left, day: Int32(50 + k))
      #expect(HistoryTests.isArray(b, u) == (k + 1 > lastTablePairs), "after \(k + 1) pairs")
    }
    #expect(b.pairCount == pairs)
    let expected = (0..<pairs).map { k in
      UserItemRecord(
        item: Int32(k * 7919 % itemCount), right: 1, left: 1, lastRight: Int32(100 + k),
        lastLeft: Int32(50 + k))
    }.sorted { $0.item < $1.item }
    #expect(try b.build().users["u"].map { Array($0.records) } == expected)
  }

  @Test("copies are independent with spills on either side")
  func copiesWithSpills() throws {
    var a = HistoryBuilder(itemCount: 8)
    let u = a.userSlot("u")
    for _ in 0..<65_536 { a.add(user: u, item: 2, swipe: .right, day: 1) }
    a.add(user: u, item: 3, swipe: .left, day: -4)
    var b = a
    b.add(user: u, item: 2, swipe: .right, day: 70_000)
    a.add(user: u, item: 3, swipe: .left, day: -3)
    #expect(
      try a.build().users["u"]?.records == [
        UserItemRecord(item: 2, right: 65_536, left: 0, lastRight: 1, lastLeft: History.never),
        UserItemRecord(item: 3, right: 0, left: 2, lastRight: History.never, lastLeft: -3),
      ])
    #expect(
      try b.build().users["u"]?.records == [
        UserItemRecord(
          item: 2, right: 65_537, left: 0, lastRight: 70_000, lastLeft: History.never),
        UserItemRecord(item: 3, right: 0, left: 1, lastRight: History.never, lastLeft: -4),
      ])
  }

  /// The diners of a history are the builder's byte table of ids: a diner is its id's bytes,
  /// the histories compare as sets of diners, the ids list in byte order, and histories of
  /// parts that share no diner combine while parts that share one do not.
  @Test("a history's diners: by their bytes, compared as sets, combined only when disjoint")
  func diners() throws {
    // Precomposed and decomposed "café": equal as Swift strings, two diners here.
    let ids = ["caf\u{E9}", "cafe\u{301}", "b", "", "a10", "a9"]
    func build(_ order: [String], offset: Int32 = 0) throws -> History {
      var b = HistoryBuilder(itemCount: 3)
      for (k, id) in order.enumerated() {
        b.add(user: b.userSlot(id), item: Int32(k % 3), swipe: .right, day: 10 + offset)
      }
      return try b.build()
    }
    let h = try build(ids)
    #expect(h.users.count == ids.count)
    for (k, id) in ids.enumerated() {
      let user = try #require(h.users[id])
      #expect(Array(user.id.utf8) == Array(id.utf8))
      #expect(user.records.map(\.item) == [Int32(k % 3)])
    }
    #expect(h.users["caf\u{E9}"]?.id.utf8.count == 5)
    #expect(h.users["cafe\u{301}"]?.id.utf8.count == 6)
    #expect(h.users["c"] == nil)
    #expect(
      h.userIDs.map { Array($0.utf8) }
        == ids.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) })
    // The same diners and records built in another order: equal; one record more: not.
    var reversed = HistoryBuilder(itemCount: 3)
    for (k, id) in ids.enumerated().reversed() {
      reversed.add(user: reversed.userSlot(id), item: Int32(k % 3), swipe: .right, day: 10)
    }
    #expect(try reversed.build().users == h.users)
    #expect(try build(ids + ["b"]).users != h.users)
    #expect(try build(ids, offset: 1).users != h.users)
    // Parts that share no diner combine into the whole; a shared diner refuses.
    let first = try build(Array(ids.prefix(3)))
    var rest = HistoryBuilder(itemCount: 3)
    for (k, id) in ids.enumerated().dropFirst(3) {
      rest.add(user: rest.userSlot(id), item: Int32(k % 3), swipe: .right, day: 10)
    }
    let combined = try #require(History.combining([first, try rest.build()]))
    #expect(combined.users == h.users)
    #expect(combined.itemRight == h.itemRight)
    #expect(History.combining([first, try build(["b"])]) == nil)
  }
}
