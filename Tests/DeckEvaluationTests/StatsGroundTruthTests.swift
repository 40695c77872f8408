import DeckCore
import DeckIO
import DeckTestSupport
import Foundation
import Testing

@testable import DeckEvaluation

private func sigmoid(_ u: Double) -> Double { 1 / (1 + exp(-u)) }

@Suite("Stats: ground truth")
struct StatsGroundTruthTests {
  /// deck [1, 0, -1], pick at 2, oracle [2, 1, 0.5] (given unsorted).
  let first = GroundTruthSession(
    strategy: "s", user: "u1", day: nov(1), deck: [1, 0, -1], pickedPosition: 2,
    oracle: [0.5, 2, 1])
  /// deck [0.5], no pick, oracle [0.5, -2].
  let second = GroundTruthSession(
    strategy: "s", user: "u2", day: nov(1), deck: [0.5], pickedPosition: nil, oracle: [-2, 0.5])

  @Test func gainIsTheLogistic() {
    #expect(GroundTruthSession.gain(0) == 0.5)
    #expect(abs(GroundTruthSession.gain(2) - 0.8807970779778823) < 1e-15)
    #expect(abs(GroundTruthSession.gain(-2) - 0.11920292202211755) < 1e-15)
  }

  @Test func dcgDiscountsByLog2OfRankPlusOne() {
    let dcg = GroundTruthSession.dcg([1, 0, -1], k: 3)
    #expect(abs(dcg - (sigmoid(1) + sigmoid(0) / log2(3) + sigmoid(-1) / 2)) < 1e-15)
    #expect(GroundTruthSession.dcg([1, 0, -1], k: 1) == sigmoid(1))
    #expect(GroundTruthSession.dcg([], k: 3) == 0)
  }

  @Test func perSessionValues() {
    #expect(first.pickUtility == 0)
    #expect(first.regret == 1)
    #expect(abs(first.ndcg(k: 3)! - 0.7143369028223012) < 1e-12)
    #expect(abs(first.ndcg(k: 1)! - sigmoid(1) / sigmoid(2)) < 1e-15)
    #expect(second.pickUtility == nil)
    #expect(second.regret == 0)
    #expect(abs(second.ndcg(k: 3)! - 0.8921999144814969) < 1e-12)
    #expect(second.ndcg(k: 1) == 1)
  }

  @Test func theOraclesOwnOrderingScoresOne() {
    let g = GroundTruthSession(
      user: "u", day: nov(1), deck: [3, 2, 1], pickedPosition: 1, oracle: [1, 2, 3])
    #expect(g.ndcg(k: 3) == 1)
    #expect(g.ndcg(k: 10) == 1)
    #expect(g.regret == 0)
  }

  @Test func anEmptyDeckOrOracleHasNoRegretOrNDCG() {
    let empty = GroundTruthSession(
      user: "u", day: nov(1), deck: [], pickedPosition: nil, oracle: [1])
    #expect(empty.regret == nil)
    #expect(empty.ndcg(k: 3) == nil)
    let noOracle = GroundTruthSession(
      user: "u", day: nov(1), deck: [1], pickedPosition: 1, oracle: [])
    #expect(noOracle.regret == nil)
    #expect(noOracle.ndcg(k: 3) == nil)
    #expect(noOracle.pickUtility == 1)
  }

  @Test func reportAveragesOverSessions() {
    var stats = StatsAccumulator(catalog: statsCatalog, options: StatsOptions(deckSize: 3))
    stats.add(first)
    stats.add(second)
    stats.add(
      GroundTruthSession(
        strategy: "s", user: "u3", day: nov(2), deck: [], pickedPosition: nil, oracle: [4]))
    let report = stats.report()
    #expect(report.hasGroundTruth)
    #expect(report.metrics.suffix(3) == [.meanPickUtility, .meanRegret, .ndcgAtK])
    #expect(report.rows.map(\.dayLabel) == ["2026-11-01", "2026-11-02", "all"])
    let day1 = report.rows[0]
    #expect(day1[.decks] == 0)  // no events: ground truth alone
    #expect(day1[.meanPickUtility] == 0)
    #expect(day1[.meanRegret] == 0.5)
    #expect(abs(day1[.ndcgAtK]! - 0.8032684086518991) < 1e-12)
    let day2 = report.rows[1]
    #expect(day2[.meanPickUtility] == nil)
    #expect(day2[.meanRegret] == nil)
    #expect(day2[.ndcgAtK] == nil)
    #expect(report.rows[2][.meanRegret] == 0.5)
  }

  @Test func ndcgKComesFromTheOptions() {
    var stats = StatsAccumulator(
      catalog: statsCatalog, options: StatsOptions(deckSize: 3, ndcgK: 1))
    stats.add(first)
    stats.add(second)
    let all = stats.report().rows.last!
    #expect(abs(all[.ndcgAtK]! - (sigmoid(1) / sigmoid(2) + 1) / 2) < 1e-15)
    #expect(StatsOptions(deckSize: 7).ndcgK == 7)
  }

  @Test func truthLabelledAllIsNotDroppedBesideOtherStrategies() {
    var stats = StatsAccumulator(catalog: statsCatalog, options: StatsOptions(deckSize: 3))
    stats.add(statsSwipe("u1", "b", .right, day: 1, position: 1), strategy: "x")
    stats.add(
      GroundTruthSession(
        strategy: "(all)", user: "u1", day: nov(1), deck: [1], pickedPosition: nil, oracle: [3]))
    let rows = stats.report().rows
    #expect(rows.map(\.strategy) == ["(all)", "(all)", "x", "x"])
    #expect(rows.map { $0[.meanRegret] } == [2, 2, nil, nil])
  }

  @Test func unlabelledTruthJoinsUnlabelledEvents() {
    var stats = StatsAccumulator(catalog: statsCatalog, options: StatsOptions(deckSize: 3))
    stats.add(statsSwipe("u1", "b", .right, day: 1, position: 1))
    stats.add(
      GroundTruthSession(user: "u1", day: nov(1), deck: [2, 1], pickedPosition: 1, oracle: [2, 1]))
    let rows = stats.report().rows
    #expect(rows.map(\.strategy) == ["(all)", "(all)"])
    #expect(rows[0][.decks] == 1)
    #expect(rows[0][.meanPickUtility] == 2)
    #expect(rows[0][.ndcgAtK] == 1)
  }
}
