/// Shared fixtures of the stats, reports and simulation tests.
import DeckCore
import DeckEvaluation
import DeckSimulation

/// Five dishes in three categories; `e` is never shown in the hand-computed cases.
package let statsCatalog = try! Catalog(items: [
  MenuItem(id: "a", name: "A", category: "soup"),
  MenuItem(id: "b", name: "B", category: "soup"),
  MenuItem(id: "c", name: "C", category: "main"),
  MenuItem(id: "d", name: "D", category: "main"),
  MenuItem(id: "e", name: "E", category: "dessert"),
])

/// 2026-11-`day`.
package func nov(_ day: Int) -> DeckDate { DeckDate(year: 2026, month: 11, day: day)! }

/// A swipe on 2026-11-`day` at 12:00 + `second`, logged with its deck date unless `deck` is false.
package func statsSwipe(
  _ user: String, _ item: String, _ direction: SwipeDirection, day: Int, second: Int64 = 0,
  position: Int? = nil, deck: Bool = true
) -> SwipeEvent {
  let date = nov(day)
  return SwipeEvent(
    user: user, item: item, swipe: direction,
    at: Int64(date.daysSinceEpoch) * 86_400 + 43_200 + second,
    position: position, deck: deck ? date : nil)
}

/// The hand-computed case (deck size 3), with sessions:
/// - 11-01 u1: a left @1, b right @2 (pick at 2; soup)
/// - 11-01 u2: c left @1, a left @2, d left @3 (3 swipes, no pick: finished; soup, main)
/// - 11-01 u3: a left @1 (1 swipe, no pick: abandoned; soup)
/// - 11-02 u1: c left, b right, no positions, no deck field: by time the pick is 2nd; b repeats
///   u1's pick of 11-01 (main, soup)
/// - 11-02 u2: a right @1, b left @2, c right @3 (all mode: two picks, first at 1; soup, main)
/// - 11-03: nothing
/// - 11-04 u1: b right @1 (repeats b again, 2 days after the last pick)
/// and one event for an item missing from the catalog.
package let handEvents: [SwipeEvent] = [
  statsSwipe("u1", "a", .left, day: 1, second: 0, position: 1),
  statsSwipe("u1", "b", .right, day: 1, second: 5, position: 2),
  statsSwipe("u2", "c", .left, day: 1, second: 0, position: 1),
  statsSwipe("u2", "a", .left, day: 1, second: 3, position: 2),
  statsSwipe("u2", "d", .left, day: 1, second: 6, position: 3),
  statsSwipe("u3", "a", .left, day: 1, second: 0, position: 1),
  statsSwipe("u1", "c", .left, day: 2, second: 0, deck: false),
  statsSwipe("u1", "b", .right, day: 2, second: 60, deck: false),
  statsSwipe("u2", "a", .right, day: 2, second: 0, position: 1),
  statsSwipe("u2", "b", .left, day: 2, second: 1, position: 2),
  statsSwipe("u2", "c", .right, day: 2, second: 2, position: 3),
  statsSwipe("u1", "b", .right, day: 4, second: 0, position: 1),
  statsSwipe("u9", "zz", .right, day: 2, second: 0, position: 1),
]

package func handReport(
  events: [SwipeEvent] = handEvents, repeatWindowDays: Int? = nil,
  days: ClosedRange<DeckDate>? = nov(1)...nov(3)
) -> StatsReport {
  var stats = StatsAccumulator(
    catalog: statsCatalog,
    options: StatsOptions(deckSize: 3, repeatWindowDays: repeatWindowDays, days: days))
  for e in events { stats.add(e) }
  return stats.report()
}

/// A permutation of `values` drawn from a seeded stream.
package func seededShuffle<T>(_ values: [T], seed: UInt64) -> [T] {
  var rng = RandomStream(seed: seed)
  var out = values
  var i = out.count - 1
  while i > 0 {
    let j = Int(rng.next() % UInt64(i + 1))
    out.swapAt(i, j)
    i -= 1
  }
  return out
}

/// The sample menu: 70-odd dishes with categories, tags, prices, diets, allergens, weekdays.
package let simulationCatalog = try! Catalog(items: SampleData.items)

/// The first day of the simulation tests' runs.
package let simulationStart = DeckDate(year: 2026, month: 11, day: 2)!
