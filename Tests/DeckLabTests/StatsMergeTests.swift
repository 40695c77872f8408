import DeckCore
import DeckIO
import Foundation
import Testing

@testable import DeckLab

/// `StatsAccumulator.merge`: an input cut anywhere into parts, each part into an accumulator of
/// its own, merged in order, reports what one accumulator fed everything reports (what
/// `stats --jobs` relies on).
@Suite("Stats: merging the accumulators of parts")
struct StatsMergeTests {
  /// Swipes of 12 diners under 3 strategies over 4 days, sessions cut across parts, some
  /// without positions, some on dishes not in the catalog; and ground-truth records.
  static func input(seed: UInt64) -> ([(SwipeEvent, String?)], [GroundTruthSession]) {
    var random = RandomStream(seed: seed)
    let items = ["a", "b", "c", "d", "e", "zz"]
    var events: [(SwipeEvent, String?)] = []
    for k in 0..<400 {
      let user = "u\(random.nextInt(below: 12))"
      let item = items[random.nextInt(below: items.count)]
      let swipe: SwipeDirection = random.nextDouble() < 0.3 ? .right : .left
      let day = 1 + random.nextInt(below: 4)
      let position = random.nextDouble() < 0.1 ? nil : 1 + random.nextInt(below: 5)
      let strategy = [nil, "alpha", "beta"][random.nextInt(below: 3)]
      events.append(
        (
          statsSwipe(
            user, item, swipe, day: day, second: Int64(k), position: position,
            deck: random.nextDouble() < 0.8), strategy
        ))
    }
    let truth = (0..<30).map { k in
      GroundTruthSession(
        strategy: ["alpha", "beta"][k % 2], user: "u\(k % 7)", day: nov(1 + k % 4),
        deck: [Double(k % 3), -1], pickedPosition: k % 3 == 0 ? nil : 1, oracle: [1, 0.5, -1])
    }
    return (events, truth)
  }

  static func fed(
    _ events: ArraySlice<(SwipeEvent, String?)>, _ truth: ArraySlice<GroundTruthSession>,
    expect: Bool
  ) -> StatsAccumulator {
    var stats = StatsAccumulator(
      catalog: statsCatalog, options: StatsOptions(deckSize: 3, repeatWindowDays: 2))
    if expect { stats.expectGroundTruth() }
    for (e, s) in events { stats.add(e, strategy: s) }
    for g in truth { stats.add(g) }
    return stats
  }

  @Test("cut into 1 to 5 parts anywhere: the same report and per-diner table", arguments: 0..<8)
  func anyCutGivesTheSameReport(seed: Int) {
    let (events, truth) = Self.input(seed: UInt64(seed))
    let whole = Self.fed(events[...], truth[...], expect: seed % 2 == 0)
    var random = RandomStream(seed: UInt64(1000 + seed))
    let parts = 1 + seed % 5
    var cuts = (1..<parts).map { _ in random.nextInt(below: events.count) }.sorted()
    cuts = [0] + cuts + [events.count]
    var truthCuts = (1..<parts).map { _ in random.nextInt(below: truth.count) }.sorted()
    truthCuts = [0] + truthCuts + [truth.count]
    var merged = Self.fed(
      events[cuts[0]..<cuts[1]], truth[truthCuts[0]..<truthCuts[1]], expect: seed % 2 == 0)
    for k in 1..<parts {
      merged.merge(
        Self.fed(
          events[cuts[k]..<cuts[k + 1]], truth[truthCuts[k]..<truthCuts[k + 1]], expect: false))
    }
    #expect(merged.report() == whole.report())
    let labels = ["(all)", "alpha", "beta"]
    #expect(merged.unitTable(strategies: labels) == whole.unitTable(strategies: labels))
    // Events after a merge go where they would have gone.
    let more = statsSwipe("u1", "a", .right, day: 2, second: 99_999, position: 1)
    var a = whole
    var b = merged
    a.add(more, strategy: "alpha")
    b.add(more, strategy: "alpha")
    #expect(a.report() == b.report())
  }
}
