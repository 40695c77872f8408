import Testing

@testable import DeckCore

@Suite("A diner's records, in one block shared by a history")
struct UserItemRecordsTests {
  static func record(_ item: Int32, right: Int32 = 1) -> UserItemRecord {
    UserItemRecord(item: item, right: right, left: 0, lastRight: 7, lastLeft: History.never)
  }

  @Test("a collection indexed from zero, equal and hashed by its records")
  func collection() {
    let a: UserItemRecords = [Self.record(3), Self.record(5, right: 2)]
    let b = UserItemRecords([Self.record(3), Self.record(5, right: 2)])
    #expect(a.count == 2)
    #expect(a.indices == 0..<2)
    #expect(a[1].item == 5)
    #expect(a.last?.right == 2)
    #expect(a == b)
    #expect(a.hashValue == b.hashValue)
    #expect(a != [Self.record(3)])
    #expect(a != [Self.record(3), Self.record(5)])
    #expect(UserItemRecords([]).isEmpty)
    #expect(a.withContiguousStorageIfAvailable { Array($0) } == Array(a))
    #expect(a.description == Array(a).description)
  }

  /// A view of one diner in a shared block must start at index 0 and end at its own last
  /// record, whatever the diners before and after it hold.
  @Test("each diner of a built history sees exactly its records", arguments: [3, 1500])
  func sharedBlock(users: Int) throws {
    // With 1,500 diners of 300 dishes (about 165,000 records, 3.3 MB), the block takes more than a huge page (mapped memory).
    let items = 300
    var b = HistoryBuilder(itemCount: items)
    var expected: [String: [Int32]] = [:]
    for u in 0..<users {
      let slot = b.userSlot("u\(u)")
      // Diner u swipes every (u % 7 + 1)-th dish, so that diners hold different numbers of
      // records, some in tables and some in arrays.
      let step = u % 7 + 1
      let mine = stride(from: Int32(u % step), to: Int32(items), by: step).map { $0 }
      for item in mine.reversed() {
        b.add(user: slot, item: item, swipe: item % 2 == 0 ? .right : .left, day: 20_000 + item)
      }
      expected["u\(u)"] = mine
    }
    let history = try b.build()
    if users > 3 {
      let bytes = expected.values.reduce(0) { $0 + $1.count } * MemoryLayout<UserItemRecord>.stride
      #expect(bytes >= HistoryState.hugePage, "the test is meant to cover mapped memory")
    }
    b = HistoryBuilder(itemCount: items)  // the history keeps its block alive on its own
    for (id, mine) in expected {
      let user = try #require(history.users[id])
      #expect(user.records.map(\.item) == mine, "\(id)")
      #expect(user.records.indices == 0..<mine.count)
      #expect(user.records.allSatisfy { $0.shown == 1 && $0.lastShown == 20_000 + $0.item })
      #expect(user.right == Int32(mine.filter { $0 % 2 == 0 }.count))
      #expect(user.record(for: mine[mine.count / 2])?.item == mine[mine.count / 2])
    }
  }
}
