import DeckCore
import Testing

@testable import DeckLab

@Suite struct LogEvaluationTests {
  /// One diner, one session: dish 0 at position 1 (propensity 0.5), dish 1 at position 2 (0.25).
  static let log = OffPolicyLog(
    diners: ["u1"],
    sessions: [
      LoggedSession(
        diner: 0, day: DeckDate(daysSinceEpoch: 20_000),
        cards: [
          LoggedCard(item: 0, position: 1, liked: true, propensity: 0.5),
          LoggedCard(item: 1, position: 2, liked: false, propensity: 0.25),
        ])
    ], itemCount: 2)

  @Test func effectiveSampleSizeIsSquaredSumOverSumOfSquares() {
    // Both cards match: w = 2 and 4, (2 + 4)² / (4 + 16) = 1.8.
    let same = OffPolicyTarget(name: "same", rankings: [[0, 1]])
    #expect(abs(LogEvaluation.effectiveSampleSize(same, log: Self.log) - 1.8) < 1e-12)
    // One card matches: a single weight is one effective card.
    let first = OffPolicyTarget(name: "first", rankings: [[0]])
    #expect(LogEvaluation.effectiveSampleSize(first, log: Self.log) == 1)
    let none = OffPolicyTarget(name: "none", rankings: [[1, 0]])
    #expect(LogEvaluation.effectiveSampleSize(none, log: Self.log) == 0)
  }

  @Test func positionsAreTheLargestLoggedOne() {
    let (positions, beyond) = LogEvaluation.positions(of: Self.log)
    #expect(positions == 2)
    #expect(beyond == 0)
  }

  @Test func aSmallEffectiveSampleIsSaidInTheNotes() {
    let part = LogEvaluation.offPolicy(
      [OffPolicyTarget(name: "same", rankings: [[0, 1]])], log: Self.log,
      from: DeckDate(daysSinceEpoch: 20_000))
    #expect(
      part.notes.contains {
        $0.hasPrefix(
          "the off-policy estimates of same rest on an effective sample of 1.8 logged cards")
      })
    #expect(
      part.parameters.map(\.name) == [
        "ope_sessions", "ope_diners", "ope_positions", "ope_effective_cards",
      ])
    #expect(part.parameters.last?.value == "same 1.8")
  }

  @Test func theTargetSeedIsDerivedNotTheRunSeed() {
    #expect(LogEvaluation.targetSeed(runSeed: 42) == LogEvaluation.targetSeed(runSeed: 42))
    #expect(LogEvaluation.targetSeed(runSeed: 42) != 42)
    #expect(LogEvaluation.targetSeed(runSeed: 42) != LogEvaluation.targetSeed(runSeed: 43))
  }

  @Test func splitsDescribeThemselves() {
    let day = DeckDate(daysSinceEpoch: 20_000)
    #expect(LogSplit.date(day).describe(day) == "split at \(day)")
    #expect(
      LogSplit.holdout(0.2).describe(day)
        == "hold-out of 0.2 of the (diner, dish) pairs, decks for \(day)")
  }
}
