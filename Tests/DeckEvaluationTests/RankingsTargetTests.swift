import DeckCore
import DeckStrategies
import Testing

@testable import DeckEvaluation

/// A strategy that gives a finite distribution over orders (as a plugin's `rankings` policy)
/// where the deck rules keep its order: a c (0.5), b c (0.25), c (0.25) of the catalog's first
/// three dishes, its own order a, b, c, ...
private final class RankingsStub: RankingStrategy {
  let description = StrategyDescription(identifier: "rankings-stub", summary: "a stub")

  func learn(catalog: Catalog, history: History) throws(StrategyError) {}

  func score(_ batch: inout [ScoringContext]) throws(StrategyError) -> [Scores] {
    batch.map { context in
      let n = context.candidates.count
      let values = (0..<n).map { Double(n - $0) }
      guard context.wantsPolicy && context.deck == nil else { return Scores(values) }
      let policy = RankingPolicy.rankings(
        RankingDistribution(
          candidateCount: n,
          [
            WeightedRanking(order: [1, 2], probability: 0.25),
            WeightedRanking(order: [0, 2], probability: 0.5),
            WeightedRanking(order: [2], probability: 0.25),
          ]))
      return Scores(values, policy: policy)
    }
  }
}

@Suite("Off-policy evaluation: finite distributions over orders")
struct RankingsTargetTests {
  /// In the setting of `ExactTargetTests` (five candidates, decks of 3), along each session's
  /// logged cards ([a, b, c], [d, a, e], [b, c, d]) the prefix probabilities and conditionals
  /// of the orders, by hand; the slots are the orders' marginals.
  @Test func aFiniteDistributionIsEvaluatedExactly() throws {
    let s = try ExactTargetTests.setting()
    let (targets, oneDeck, _) = try LogEvaluation.exactTargets(
      [("stub", RankingsStub())], log: s.log, profiles: [:], history: s.history,
      builder: s.builder, seed: 1, positions: 3, draws: 10)
    #expect(oneDeck == [0])
    let target = targets[0]
    #expect(!target.isDeterministic && target.hasPrefixProbabilities)
    let first = SlotDistribution([(0, 0.5), (1, 0.25), (2, 0.25)])
    let cOnly = SlotDistribution([(2, 1)])
    let none = SlotDistribution([])
    for session in 0..<3 {
      #expect(target.slot(session: session, position: 1) == first)
      #expect(target.slot(session: session, position: 2) == SlotDistribution([(2, 0.75)]))
      #expect(target.slot(session: session, position: 3) == none)
    }
    let expected: [[(Double, SlotDistribution)]] = [
      // a, then b (no order), then c after a prefix of probability 0.
      [(0.5, first), (0, cOnly), (0, none)],
      // d: no order begins with it.
      [(0, first), (0, none), (0, none)],
      // b, c: the order b c, after which the deck ends.
      [(0.25, first), (0.25, cOnly), (0, none)],
    ]
    for session in 0..<3 {
      let logged = s.log.sessions[session].cards.map(\.item)
      for k in 1...3 {
        let path = target.path(session: session, position: k, logged: logged)
        #expect(path.prefix == expected[session][k - 1].0, "session \(session), position \(k)")
        // Where the prefix above has probability 0 the conditional is not used (and empty).
        #expect(path.conditional == expected[session][k - 1].1, "session \(session), \(k)")
      }
    }
  }

  /// Equal distributions share a key however their orders were listed; different ones never
  /// do, even where a naive concatenation of the orders would read the same.
  @Test func policyKeysAreDeterministicAndCollisionFree() {
    func rankings(_ n: Int, _ list: [([Int], Double)]) -> RankingPolicy {
      .rankings(
        RankingDistribution(
          candidateCount: n, list.map { WeightedRanking(order: $0.0, probability: $0.1) }))
    }
    let candidates: [Int32] = [4, 5]
    let a = rankings(2, [([0, 1], 0.5), ([1], 0.25)])
    let b = rankings(2, [([1], 0.25), ([0, 1], 0.5)])
    #expect(
      LogEvaluation.policyKey(a, candidates, 2) == LogEvaluation.policyKey(b, candidates, 2))
    let policies: [RankingPolicy] = [
      a,
      rankings(2, [([0], 0.5), ([1], 0.25)]),
      rankings(2, [([0], 0.5), ([1, 0], 0.25)]),
      rankings(2, [([0, 1], 0.5), ([1], 0.125)]),
      rankings(2, [([0, 1], 0.5)]),
      rankings(2, [([], 0.5), ([0, 1], 0.5)]),
      rankings(2, []),
      .uniform(count: 2),
      .epsilonGreedy(greedy: [0, 1], epsilon: 0),
      .plackettLuce(logits: [0, 0]),
    ]
    var keys: Set<[UInt64]> = []
    for policy in policies {
      keys.insert(LogEvaluation.policyKey(policy, candidates, 2))
      keys.insert(LogEvaluation.policyKey(policy, candidates, 1))
      keys.insert(LogEvaluation.policyKey(policy, [5, 4], 2))
    }
    #expect(keys.count == policies.count * 3)
  }
}
