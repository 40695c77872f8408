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
}
