import DeckCore
import DeckStrategies
import Testing

@testable import DeckEvaluation

/// `LogEvaluation.exactTargets`: the randomising strategies as the distributions they draw
/// from, against the general path (`sampledTargets`, the share of many seeded decks).
@Suite("Off-policy evaluation: exact strategy distributions")
struct ExactTargetTests {
  static let day = DeckDate(year: 2026, month: 1, day: 10)!

  /// Five dishes, a little history, deck rules that keep the ranking's order, decks of 3.
  static func setting() throws -> (
    catalog: Catalog, history: History, builder: DeckBuilder, log: OffPolicyLog
  ) {
    let f = try ExampleRunner.fixture(
      StrategyExample(
        "setting", items: ["a:soup", "b:rice", "c:soup", "d:noodles", "e:rice"],
        events: [
          "u1 a right 2026-01-08", "u2 b right 2026-01-08", "u2 c left 2026-01-09",
          "u3 d right 2026-01-09", "u3 a right 2026-01-09",
        ], expected: ["a", "b", "c", "d", "e"]), strategy: "test")
    var rules = DeckRules()
    rules.size = 3
    rules.maxPerCategory = nil
    rules.avoidAdjacentCategory = false
    rules.repeatPickDays = 0
    rules.cooldownDays = 0
    rules.reshowDays = 0
    let builder = try DeckBuilder(catalog: f.catalog, rules: rules)
    // Three sessions of three logged cards (the propensities do not matter here).
    let decks: [[Int32]] = [[0, 1, 2], [3, 0, 4], [1, 2, 3]]
    let sessions = decks.enumerated().map { d, deck in
      LoggedSession(
        diner: d, day: day,
        cards: deck.enumerated().map { k, item in
          LoggedCard(
            item: item, position: Int32(k + 1), liked: k == 1, propensity: 0.2,
            prefixPropensity: 0.2 / Double(k + 1))
        })
    }
    let log = OffPolicyLog(diners: ["u1", "u2", "u3"], sessions: sessions, itemCount: 5)
    return (f.catalog, f.history, builder, log)
  }

  static func arm(_ name: String, _ options: [String: String] = [:]) throws -> LogEvaluation.Arm {
    (name, try StrategyRegistry.make(name, options: options))
  }

  /// The random strategy over five candidates and a deck of three: 1/5 everywhere, and along
  /// the logged cards prefix probabilities 1/5, 1/20, 1/60 and uniform conditionals.
  @Test func randomIsUniformExactly() throws {
    let s = try Self.setting()
    let arms = [try Self.arm("random")]
    try arms[0].strategy.learn(catalog: s.catalog, history: s.history)
    let (targets, oneDeck, _) = try LogEvaluation.exactTargets(
      arms, log: s.log, profiles: [:], history: s.history, builder: s.builder, seed: 1,
      positions: 3, draws: 10)
    #expect(oneDeck == [0])
    let target = targets[0]
    #expect(!target.isDeterministic && target.hasPrefixProbabilities)
    for session in 0..<3 {
      for p in 1...3 {
        let slot = target.slot(session: session, position: p)
        #expect(slot.items == [0, 1, 2, 3, 4])
        #expect(slot.probabilities.allSatisfy { abs($0 - 0.2) < 1e-15 })
        let logged = s.log.sessions[session].cards.map(\.item)
        let path = target.path(session: session, position: p, logged: logged)
        #expect(abs(path.prefix - [0.2, 0.05, 1.0 / 60][p - 1]) < 1e-15)
        #expect(path.conditional.items.count == 6 - p)
        #expect(
          path.conditional.probabilities.allSatisfy { abs($0 - 1 / Double(6 - p)) < 1e-15 })
      }
    }
  }

  /// Epsilon-greedy and plackett-luce, exact, against 4,000 seeded decks per session: every
  /// marginal and every prefix probability along the logged cards within 4.5 standard errors
  /// of the share of decks (seeded, so the check is deterministic), and the estimates close.
  @Test(arguments: ["epsilon-greedy", "plackett-luce"])
  func exactDistributionsAgreeWithSampling(strategy: String) throws {
    let s = try Self.setting()
    let options = strategy == "epsilon-greedy" ? ["epsilon": "0.6"] : ["temperature": "0.3"]
    let arms = [try Self.arm(strategy, options)]
    try arms[0].strategy.learn(catalog: s.catalog, history: s.history)
    let exact = try LogEvaluation.exactTargets(
      arms, log: s.log, profiles: [:], history: s.history, builder: s.builder, seed: 5,
      positions: 3, draws: 4000
    ).targets[0]
    let n = 4_000
    let sampled = try LogEvaluation.sampledTargets(
      arms, log: s.log, profiles: [:], history: s.history, builder: s.builder, seed: 5,
      samples: n)[0]
    func close(_ a: Double, _ b: Double, _ what: String) {
      let se = max((a * (1 - a) / Double(n)).squareRoot(), 1 / Double(n))
      #expect(abs(a - b) <= 4.5 * se, "\(strategy) \(what): exact \(a), sampled \(b)")
    }
    for session in 0..<3 {
      let logged = s.log.sessions[session].cards.map(\.item)
      for p in 1...3 {
        let a = exact.slot(session: session, position: p)
        let b = sampled.slot(session: session, position: p)
        for item in Int32(0)..<5 {
          close(a.probability(of: item), b.probability(of: item), "π(\(item), \(p)) s\(session)")
        }
        close(
          exact.path(session: session, position: p, logged: logged).prefix,
          sampled.path(session: session, position: p, logged: logged).prefix,
          "prefix \(p) s\(session)")
      }
    }
  }
}
