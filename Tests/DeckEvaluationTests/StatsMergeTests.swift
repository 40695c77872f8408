import DeckCore
import DeckIO
import DeckTestSupport
import Foundation
import Testing

@testable import DeckEvaluation

/// `StatsAccumulator.report(of:)`: the swipes split by diner into accumulators of their own
/// report what one accumulator fed everything reports (what `stats --jobs` relies on).
@Suite("Stats: the reports of accumulators that share no diner")
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
    _ events: [(SwipeEvent, String?)], _ truth: [GroundTruthSession], expect: Bool
  ) -> StatsAccumulator {
    var stats = StatsAccumulator(
      catalog: statsCatalog, options: StatsOptions(deckSize: 3, repeatWindowDays: 2))
    if expect { stats.expectGroundTruth() }
    for (e, s) in events { stats.add(e, strategy: s) }
    for g in truth { stats.add(g) }
    return stats
  }

  @Test("diners split into 1 to 5 parts in any way: the same report", arguments: 0..<8)
  func anySplitByDinerGivesTheSameReport(seed: Int) {
    let (events, truth) = Self.input(seed: UInt64(seed))
    let expect = seed % 2 == 0
    let whole = Self.fed(events, truth, expect: expect)
    var random = RandomStream(seed: UInt64(1000 + seed))
    let parts = 1 + seed % 5
    var partOf: [String: Int] = [:]
    for u in 0..<12 { partOf["u\(u)"] = random.nextInt(below: parts) }
    let accumulators = (0..<parts).map { k in
      Self.fed(
        events.filter { partOf[$0.0.user] == k }, truth.filter { partOf[$0.user] == k },
        expect: expect && k == 0)
    }
    #expect(StatsAccumulator.report(of: accumulators) == whole.report())
    #expect(StatsAccumulator.report(of: [whole]) == whole.report())
  }
}
