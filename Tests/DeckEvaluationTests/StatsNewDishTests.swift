import DeckCore
import DeckTestSupport
import Testing

@testable import DeckEvaluation

/// `new_dish_like_rate`: the like rate of the cards of dishes in their first days on the menu.
@Suite("Stats: new dishes")
struct StatsNewDishTests {
  /// "n" arrives on 2026-11-03 (available.from); "o" has always been there.
  static let catalog = try! Catalog(items: [
    MenuItem(id: "o", name: "Old", category: "soup"),
    MenuItem(
      id: "n", name: "New", category: "soup",
      availability: Availability(from: DeckDate(year: 2026, month: 11, day: 3)!)),
  ])

  static func report(days: Int?) -> StatsReport {
    var stats = StatsAccumulator(
      catalog: catalog, options: StatsOptions(deckSize: 2, newDishDays: days))
    // Day 3 (age 0): n right; day 4 (age 1): n left, o right; day 5 (age 2): n right, n left
    // (two diners); day 6 (age 3): n right.
    let events = [
      statsSwipe("u1", "n", .right, day: 3, position: 1),
      statsSwipe("u1", "n", .left, day: 4, position: 1),
      statsSwipe("u1", "o", .right, day: 4, position: 2),
      statsSwipe("u1", "n", .right, day: 5, position: 1),
      statsSwipe("u2", "n", .left, day: 5, position: 1),
      statsSwipe("u2", "n", .right, day: 6, position: 1),
    ]
    for e in events { stats.add(e) }
    return stats.report()
  }

  @Test func countsOnlyTheCardsOfDishesInTheirFirstDays() throws {
    let report = Self.report(days: 3)
    #expect(report.metrics.last == .newDishLikeRate)
    let byDay = report.rows.map { $0[.newDishLikeRate] }
    // Ages 0, 1, 2 count; day 6 (age 3) does not; "o" never does.
    #expect(byDay == [1, 0, 0.5, nil, 0.5])
    let all = try #require(report.rows.last)
    #expect(all[.likeRate] == 4.0 / 6)
  }

  @Test func notWrittenUnlessAskedFor() {
    #expect(!Self.report(days: nil).metrics.contains(.newDishLikeRate))
    #expect(
      StatsMetric.written(groundTruth: true, newDishes: false)
        == StatsMetric.allCases.filter { $0 != .newDishLikeRate })
  }

  @Test func perDinerUnitsSumTheSameCards() throws {
    var stats = StatsAccumulator(
      catalog: Self.catalog, options: StatsOptions(deckSize: 2, newDishDays: 3))
    stats.add(statsSwipe("u1", "n", .right, day: 3, position: 1))
    stats.add(statsSwipe("u2", "n", .left, day: 4, position: 1))
    stats.add(statsSwipe("u2", "n", .left, day: 5, position: 1))
    let table = stats.unitTable(strategies: ["(all)"])
    let column = try #require(table.metrics.firstIndex { $0.name == "new_dish_like_rate" })
    #expect(table.value(arm: 0, metric: column) == 1.0 / 3)
  }
}
