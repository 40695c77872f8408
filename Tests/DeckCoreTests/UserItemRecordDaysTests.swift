import DeckCore
import Testing

/// The public face of a record's days: optional days, never the packed sentinel (this file
/// imports DeckCore without `@testable`, as a client outside the package would see it, except
/// for `package` members).
@Suite("A record's last days as optional days")
struct UserItemRecordDaysTests {
  @Test("a direction never swiped has no day; the shown day is the later of the two")
  func optionalDays() {
    let picked = UserItemRecord(item: 1, right: 2, left: 0, lastRightDay: 20_000, lastLeftDay: nil)
    #expect(picked.lastRightDay == 20_000)
    #expect(picked.lastLeftDay == nil)
    #expect(picked.lastShownDay == 20_000)
    let both = UserItemRecord(item: 1, right: 1, left: 1, lastRightDay: 5, lastLeftDay: 9)
    #expect(both.lastShownDay == 9)
    let none = UserItemRecord(item: 1, right: 0, left: 0, lastRightDay: nil, lastLeftDay: nil)
    #expect(none.lastRightDay == nil && none.lastLeftDay == nil && none.lastShownDay == nil)
  }

  @Test("the builder's records read the same through the optional accessors")
  func fromBuilder() throws {
    var b = HistoryBuilder(itemCount: 3)
    let u = b.userSlot("ana")
    b.add(user: u, item: 0, swipe: .right, day: 10, position: 1)
    b.add(user: u, item: 0, swipe: .right, day: 12, position: 2)
    b.add(user: u, item: 2, swipe: .left, day: 11)
    let records = try #require(b.build().users["ana"]).records
    #expect(records.map(\.lastRightDay) == [12, nil])
    #expect(records.map(\.lastLeftDay) == [nil, 11])
    #expect(records.map(\.lastShownDay) == [12, 11])
  }
}
