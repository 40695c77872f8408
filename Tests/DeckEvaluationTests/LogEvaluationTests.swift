import DeckCore
import Testing

@testable import DeckEvaluation

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

  static func diagnostics(_ target: OffPolicyTarget) -> OffPolicyDiagnostics {
    OffPolicyDiagnostics(target, log: log, positions: 2)
  }

  @Test func effectiveSampleSizeIsSquaredSumOverSumOfSquares() {
    // Both cards match: w = 2 and 4, (2 + 4)² / (4 + 16) = 1.8.
    let same = Self.diagnostics(OffPolicyTarget(name: "same", rankings: [[0, 1]]))
    #expect(abs(same.effectiveCards - 1.8) < 1e-12)
    #expect(same.largestWeight == 4)
    #expect(same.unsupportedMass == 0)
    // One card matches: a single weight is one effective card.
    let first = Self.diagnostics(OffPolicyTarget(name: "first", rankings: [[0]]))
    #expect(first.effectiveCards == 1)
    #expect(first.largestWeight == 2)
    let none = Self.diagnostics(OffPolicyTarget(name: "none", rankings: [[1, 0]]))
    #expect(none.effectiveCards == 0)
    #expect(none.largestWeight == 0)
    // Dish 1 at position 1 and dish 0 at 2 were never logged: all of its mass is unsupported.
    #expect(none.unsupportedMass == 1)
  }

  @Test func stochasticDiagnosticsWeighByTheTargetsProbabilities() {
    // Position 1: dish 0 with 0.5, dish 1 with 0.25 (never logged at 1), nothing with 0.25.
    // Position 2: dish 1 with 1.
    let target = OffPolicyTarget(
      name: "mix",
      slots: [SlotDistribution([(0, 0.5), (1, 0.25)]), SlotDistribution([(1, 1)])],
      sessionSlots: [[0, 1]])
    let d = Self.diagnostics(target)
    // w = 0.5 / 0.5 = 1 at position 1, 1 / 0.25 = 4 at position 2.
    #expect(abs(d.effectiveCards - 25.0 / 17.0) < 1e-12)
    #expect(d.largestWeight == 4)
    // 0.25 of position 1's slot is on an unlogged pair, none of position 2's: 0.25 / 2 cards.
    #expect(d.unsupportedMass == 0.125)
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
        "ope_sessions", "ope_diners", "ope_positions", "ope_reward_model", "ope_effective_cards",
        "ope_largest_weight", "ope_unsupported_mass",
      ])
    #expect(part.parameters.first { $0.name == "ope_effective_cards" }?.value == "same 1.8")
    #expect(part.parameters.first { $0.name == "ope_largest_weight" }?.value == "same 4.0")
    #expect(part.warnings.isEmpty)
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
