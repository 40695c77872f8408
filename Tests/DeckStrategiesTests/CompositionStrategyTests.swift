import DeckCore
import Foundation
import Testing

@testable import DeckStrategies

@Suite("rank normalisation")
struct RankNormalisationTests {
  @Test("best 1, worst 0, evenly spaced; ties share the mean rank; one candidate gets 1")
  func values() {
    #expect(rankNormalised([3, 1, 2]) == [1, 0, 0.5])
    #expect(rankNormalised([2, 2, 1]) == [0.75, 0.75, 0])
    #expect(rankNormalised([0.1, 0.4, 0.4, 0.4, -7]) == [0.25, 0.75, 0.75, 0.75, 0])
    #expect(rankNormalised([4, 4]) == [0.5, 0.5])
    #expect(rankNormalised([5]) == [1])
    #expect(rankNormalised([]) == [])
  }

  @Test("scores along an order: n for the first down to 1")
  func along() {
    #expect(scoresAlong([2, 0, 1]) == [2, 1, 3])
    #expect(scoresAlong([]) == [])
  }
}

@Suite("blend strategy")
struct BlendStrategyTests {
  /// Popularity: a 3/4, b 2/3, c 1/2 (unshown), d 1/4. UCB puts c first.
  static func history() throws -> ExampleRunner.Fixture {
    try fixture(
      items: ["a:soup", "b:rice", "c:noodles", "d:fried"],
      events: [
        "u2 a right 2026-01-02", "u3 a right 2026-01-03", "u4 b right 2026-01-04",
        "u5 d left 2026-01-05", "u6 d left 2026-01-06",
      ])
  }

  @Test("the blend is the weighted mean of the components' rank-normalised scores")
  func formula() throws {
    let f = try Self.history()
    let one = scores(try learned("blend", ["components": "popularity:1"], on: f), f)
    #expect(one == [1, 2.0 / 3, 1.0 / 3, 0])
    let two = scores(try learned("blend", ["components": "popularity:1,ucb:3"], on: f), f)
    let ucb = rankNormalised(scores(try learned("ucb", on: f), f))
    let expected = (0..<4).map { (one[$0] + 3 * ucb[$0]) / 4 }
    #expect(zip(two, expected).allSatisfy { abs($0 - $1) < 1e-15 })
    // A zero weight is allowed and leaves the component out.
    let zero = scores(try learned("blend", ["components": "popularity:1,ucb:0"], on: f), f)
    #expect(zero == one)
  }

  @Test("a stochastic component draws from its own stream, the same per (seed, date, diner)")
  func streams() throws {
    let f = try Self.history()
    let blend = try learned("blend", ["components": "random:1,thompson:1"], on: f)
    let random = try learned("random", on: f)
    var context = ScoringContext(
      user: UserProfile(id: "u1"), userHistory: nil, date: f.date,
      candidates: [0, 1, 2, 3], seed: 42)
    context.random = RandomStream(seed: 42, date: f.date, user: "u1", purpose: "blend:random")
    let ownRandom = rankNormalised(random.score(&context).values)
    let single = try learned("blend", ["components": "random:1"], on: f)
    #expect(scores(single, f) == ownRandom)

    let base = scores(blend, f)
    #expect(scores(blend, f) == base)
    let users = ["u1", "u2", "u3", "x"]
    let alone = users.map { scores(blend, f, user: $0) }
    var batch = users.reversed().map {
      ScoringContext(
        user: UserProfile(id: $0), userHistory: f.history.users[$0], date: f.date,
        candidates: [0, 1, 2, 3], seed: 42)
    }
    #expect(try blend.score(&batch).map(\.values) == alone.reversed())
    #expect(alone.allSatisfy { $0.allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1 } })
  }

  static let bad: [(String, String)] = [
    ("affinity", "'affinity' is not name:weight"),
    ("affinity:0.5,", "an empty entry"),
    ("affinity:0.5:1", "'affinity:0.5:1' is not name:weight"),
    ("affinity:-1", "weight '-1' of 'affinity' is not a number 0 or more"),
    ("affinity:x", "weight 'x' of 'affinity' is not a number 0 or more"),
    ("affinity:inf", "weight 'inf' of 'affinity' is not a number 0 or more"),
    ("affinity:1,affinity:2", "'affinity' appears twice"),
    ("affinity:0,popularity:0", "at least one weight must be above 0"),
  ]

  @Test("a malformed components option names the option and the problem", arguments: bad)
  func badComponents(_ value: String, _ problem: String) {
    #expect(
      message { _ = try StrategyRegistry.make("blend", options: ["components": value]) }
        == "strategy 'blend' option 'components': '\(value)' is not a comma-separated list of "
        + "name:weight (\(problem))")
  }

  @Test("an unknown component names the option and suggests the closest built-in")
  func unknownComponent() {
    #expect(
      message {
        _ = try StrategyRegistry.make("blend", options: ["components": "afinity:1,popularity:1"])
      }
        == "strategy 'blend' option 'components': 'afinity:1,popularity:1' is not a built-in "
        + "strategy (no 'afinity' (did you mean 'affinity'?); valid: "
        + StrategyRegistry.identifiers.joined(separator: ", ") + ")")
  }
}

@Suite("diversify strategy")
struct DiversifyStrategyTests {
  @Test("similarity: half same category, half Jaccard of the tags")
  func similarity() throws {
    let f = try fixture(
      items: ["a:rice", "b:rice", "c:soup:x|y", "d:rice:y|z", "e:soup:y|x", "f:side"])
    let s = try #require(try learned("diversify", on: f) as? DiversifyStrategy)
    #expect(s.similarity(0, 1) == 0.5)
    #expect(s.similarity(0, 5) == 0)
    #expect(s.similarity(2, 4) == 1)
    #expect(s.similarity(2, 3) == 0.5 / 3)
    #expect(s.similarity(3, 1) == 0.5)
    #expect(s.similarity(3, 3) == 1)
  }

  @Test("lambda 1 keeps the base order, stream included; lambda 0 spreads categories")
  func lambdaEnds() throws {
    let items = ["a:rice", "b:rice", "c:rice", "d:soup", "e:soup", "f:side"]
    let f = try fixture(items: items)
    let random = scores(try learned("random", on: f), f)
    let kept = scores(try learned("diversify", ["base": "random", "lambda": "1"], on: f), f)
    #expect(ranking(kept, f) == ranking(random, f))
    // Base: popularity ties everywhere (no history), so lambda 0 takes the least similar in
    // catalog order: a, then d (soup), then f (side); then b, c and e all at 0.5 from a card
    // placed, so catalog order again.
    let spread = scores(try learned("diversify", ["lambda": "0"], on: f), f)
    #expect(ranking(spread, f) == ["a", "d", "f", "b", "c", "e"])
    #expect(spread == [6, 3, 2, 5, 1, 4])
  }

  @Test("depth re-ranks only the most relevant head; the rest keep the base order")
  func depth() throws {
    // Popularity a 3/4, b 2/3, c 2/3, d 1/2 (unshown), e 1/3, f 1/3.
    let f = try fixture(
      items: ["a:rice", "b:rice", "c:soup", "d:rice", "e:soup", "f:side"],
      events: [
        "u1 a right 2026-01-02", "u2 a right 2026-01-02", "u1 b right 2026-01-03",
        "u1 c right 2026-01-03", "u1 e left 2026-01-04", "u1 f left 2026-01-04",
      ])
    // Full MMR at lambda 0: a, c (soup), f (side), then b, d, e (all at 0.5).
    let full = scores(try learned("diversify", ["lambda": "0"], on: f), f)
    #expect(ranking(full, f) == ["a", "c", "f", "b", "d", "e"])
    // depth 3: the head a, b, c becomes a, c, b; then d, e, f by popularity (e, f tie).
    let head = scores(try learned("diversify", ["lambda": "0", "depth": "3"], on: f), f)
    #expect(ranking(head, f) == ["a", "c", "b", "d", "e", "f"])
    // depth 1 is the base order.
    let one = scores(try learned("diversify", ["lambda": "0", "depth": "1"], on: f), f)
    #expect(ranking(one, f) == ["a", "b", "c", "d", "e", "f"])
  }

  @Test("the MMR choice at each step follows the documented value")
  func steps() throws {
    // Popularity a 4/5, b 3/4, c 1/2, d 1/3: relevance 1, 15/14 * 0.5 ... (min-max over 1/3..4/5).
    let f = try fixture(
      items: ["a:rice:pork", "b:rice:pork", "c:soup", "d:side:pork"],
      events: [
        "u1 a right 2026-01-02", "u2 a right 2026-01-02", "u3 a right 2026-01-02",
        "u1 b right 2026-01-03", "u2 b right 2026-01-03", "u1 d left 2026-01-04",
      ])
    let low = 1.0 / 3
    let span = 0.8 - low
    let relevance = [1, (0.75 - low) / span, (0.5 - low) / span, 0]
    // lambda 0.6. Step 2: b 0.6 r_b - 0.4 (0.5 + 0.5), c 0.6 r_c, d 0.6 * 0 - 0.4 * 0.5.
    let b2 = 0.6 * relevance[1] - 0.4
    let c2 = 0.6 * relevance[2]
    #expect(c2 > b2)
    let s = scores(try learned("diversify", ["lambda": "0.6"], on: f), f)
    // Step 3: b still -0.4 + 0.6 r_b (0.118); d -0.2: b, then d.
    #expect(ranking(s, f) == ["a", "c", "b", "d"])
  }

  @Test("an unknown base names the option; scores are finite and deterministic")
  func baseOption() throws {
    #expect(
      message { _ = try StrategyRegistry.make("diversify", options: ["base": "popular"]) }
        == "strategy 'diversify' option 'base': 'popular' is not a built-in strategy "
        + "(no 'popular' (did you mean 'popularity'?); valid: "
        + StrategyRegistry.identifiers.joined(separator: ", ") + ")")
    #expect(
      message { _ = try StrategyRegistry.make("diversify", options: ["lambda": "1.5"]) }
        == "strategy 'diversify' option 'lambda': '1.5' is out of range: give a number from 0.0 to 1.0"
    )
    let f = try fixture(items: ["a:rice:x", "b:rice", "c:soup:x|y", "d:soup"])
    let s = try learned("diversify", ["base": "thompson"], on: f)
    let users = ["u1", "u2", "u3"]
    let alone = users.map { scores(s, f, user: $0) }
    var batch = users.reversed().map {
      ScoringContext(
        user: UserProfile(id: $0), userHistory: nil, date: f.date, candidates: [0, 1, 2, 3],
        seed: 42)
    }
    #expect(try s.score(&batch).map(\.values) == alone.reversed())
    #expect(alone.allSatisfy { Set($0) == [1, 2, 3, 4] })
    #expect(scores(s, f, candidates: []) == [])
  }
}

@Suite("plackett-luce strategy")
struct PlackettLuceStrategyTests {
  /// Every swipe right, so popularity's fitted prior is Beta(1, 1) (the swipes cannot fit one):
  /// a 4/5, b 3/4, c 2/3, d 1/2; temperature 0.25 gives logits 0, -0.2, -8/15, -1.2.
  static func history() throws -> ExampleRunner.Fixture {
    try fixture(
      items: ["a:soup", "b:rice", "c:noodles", "d:fried"],
      events: [
        "u2 a right 2026-01-02", "u3 a right 2026-01-03", "u4 a right 2026-01-03",
        "u4 b right 2026-01-04", "u5 b right 2026-01-05", "u6 c right 2026-01-06",
      ])
  }

  /// As the strategy computes them: (score - best score) / temperature.
  static let logits = [4.0 / 5, 3.0 / 4, 2.0 / 3, 1.0 / 2].map { ($0 - 4.0 / 5) / 0.25 }

  /// Exact P(item i at position k) by enumerating every ranking.
  static func exact(_ logits: [Double]) -> [[Double]] {
    let n = logits.count
    let w = logits.map { exp($0) }
    var result = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
    func visit(_ prefix: [Int], _ p: Double) {
      if prefix.count == n {
        for (k, i) in prefix.enumerated() { result[k][i] += p }
        return
      }
      let rest = (0..<n).filter { !prefix.contains($0) }
      let total = rest.reduce(0) { $0 + w[$1] }
      for i in rest { visit(prefix + [i], p * w[i] / total) }
    }
    visit([], 1)
    return result
  }

  @Test("the estimated marginals sum to 1 over items at every position and match the exact ones")
  func marginals() {
    let exact = Self.exact(Self.logits)
    for row in exact { #expect(abs(row.reduce(0, +) - 1) < 1e-12) }
    var r = RandomStream(seed: 5)
    let estimate = PlackettLuceStrategy.marginals(Self.logits, samples: 4000, &r)
    for k in 0..<4 {
      #expect(abs(estimate[k].reduce(0, +) - 1) < 1e-12, "position \(k + 1)")
      for i in 0..<4 {
        #expect(abs(estimate[k][i] - exact[k][i]) < 0.015, "item \(i) at \(k + 1)")
      }
    }
    // Position 1 is exact: w_i / sum w.
    let w = Self.logits.map { exp($0) }
    let total = w.reduce(0, +)
    for i in 0..<4 { #expect(abs(estimate[0][i] - w[i] / total) < 1e-12) }
  }

  @Test("draws and propensities match the exact marginals over many diners")
  func empirical() throws {
    let f = try Self.history()
    let s = try learned(
      "plackett-luce", ["temperature": "0.25", "samples": "100"], on: f)
    let exact = Self.exact(Self.logits)
    let n = 5000
    var count = [[Int]](repeating: [0, 0, 0, 0], count: 4)
    var propensitySum = [[Double]](repeating: [0, 0, 0, 0], count: 4)
    for d in 0..<n {
      var context = ScoringContext(
        user: UserProfile(id: "d\(d)"), userHistory: nil, date: f.date,
        candidates: [0, 1, 2, 3], seed: 42)
      let result = s.score(&context)
      let p = try #require(result.propensities)
      for i in 0..<4 {
        let k = 4 - Int(result.values[i])
        count[k][i] += 1
        propensitySum[k][i] += p[i]
        #expect(p[i] > 0 && p[i] <= 1)
      }
    }
    for k in 0..<4 {
      for i in 0..<4 {
        let q = exact[k][i]
        let frequency = Double(count[k][i]) / Double(n)
        // Five standard errors for the frequency.
        #expect(abs(frequency - q) < 5 * (q * (1 - q) / Double(n)).squareRoot() + 1e-9)
        // Mean propensity where it was drawn: the exact marginal, up to the 1 / 101 bias bound
        // and some noise.
        if count[k][i] >= 100 {
          let mean = propensitySum[k][i] / Double(count[k][i])
          #expect(abs(mean - q) < 0.02, "item \(i) at \(k + 1): \(mean) vs \(q)")
        }
      }
    }
  }

  @Test("the first card's propensity is exactly its softmax probability")
  func firstCard() throws {
    let f = try Self.history()
    let s = try learned("plackett-luce", ["temperature": "0.25", "samples": "3"], on: f)
    let w = Self.logits.map { exp($0) }
    let total = w.reduce(0, +)
    for user in ["u1", "u2", "u3", "u4", "u5"] {
      var context = ScoringContext(
        user: UserProfile(id: user), userHistory: nil, date: f.date, candidates: [0, 1, 2, 3],
        seed: 42)
      let result = s.score(&context)
      let first = try #require(result.values.firstIndex(of: 4))
      #expect(abs(result.propensities![first] - w[first] / total) < 1e-12)
    }
  }

  @Test("the ranking is the Gumbel-max draw from the diner's plackett-luce stream")
  func stream() throws {
    let f = try Self.history()
    let s = try learned("plackett-luce", ["temperature": "0.25", "samples": "1"], on: f)
    var r = RandomStream(seed: 42, date: f.date, user: "u1", purpose: "plackett-luce")
    let keys = Self.logits.map { $0 - log(-log(r.nextOpenDouble())) }
    let order = keys.indices.sorted { keys[$0] > keys[$1] }
    #expect(scores(s, f) == scoresAlong(order))
  }

  @Test("deterministic per (seed, date, diner) and independent of batch order")
  func determinism() throws {
    let f = try Self.history()
    let s = try learned("plackett-luce", ["temperature": "1", "samples": "10"], on: f)
    let users = ["u1", "u2", "u3", "u4", "u5", "u6"]
    func run(_ u: String, date: String = "2026-01-10", seed: UInt64 = 42) -> Scores {
      var c = ScoringContext(
        user: UserProfile(id: u), userHistory: f.history.users[u],
        date: DeckDate.parse(date)!, candidates: [0, 1, 2, 3], seed: seed)
      return s.score(&c)
    }
    let alone = users.map { run($0) }
    #expect(users.map { run($0) } == alone)
    var batch = users.reversed().map {
      ScoringContext(
        user: UserProfile(id: $0), userHistory: f.history.users[$0], date: f.date,
        candidates: [0, 1, 2, 3], seed: 42)
    }
    #expect(try s.score(&batch) == alone.reversed())
    let other = [run("u1", date: "2026-01-11"), run("u1", seed: 43), run("u2")]
    #expect(other.contains { $0 != alone[0] })
  }

  @Test("extreme temperatures keep scores and propensities finite")
  func extremes() throws {
    let f = try Self.history()
    for t in ["0.0001", "1000000"] {
      let s = try learned("plackett-luce", ["temperature": t, "samples": "5"], on: f)
      var c = ScoringContext(
        user: UserProfile(id: "u1"), userHistory: nil, date: f.date, candidates: [0, 1, 2, 3],
        seed: 42)
      let result = s.score(&c)
      #expect(result.values.allSatisfy { $0.isFinite })
      #expect(result.propensities!.allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1 })
    }
    let cold = try learned("plackett-luce", ["temperature": "0.0001"], on: f)
    #expect(ranking(scores(cold, f), f) == ["a", "b", "c", "d"])
    var empty = ScoringContext(
      user: UserProfile(id: "u1"), userHistory: nil, date: f.date, candidates: [], seed: 1)
    #expect(cold.score(&empty) == Scores([], propensities: []))
  }

  /// Six dishes in three categories; every swipe right, so popularity's fitted prior is
  /// Beta(1, 1): a 4/5 > c 3/4 > e 2/3 > b = d = f 1/2.
  static func menu() throws -> ExampleRunner.Fixture {
    try fixture(
      items: ["a:soup", "b:soup", "c:rice", "d:rice", "e:noodles", "f:noodles"],
      events: [
        "u1 a right 2026-01-02", "u2 a right 2026-01-03", "u3 a right 2026-01-04",
        "u4 c right 2026-01-05", "u5 c right 2026-01-05", "u6 e right 2026-01-06",
      ])
  }

  /// Decks of `diners` diners without history (one distribution for all) through the pipeline.
  static func decks(rules: DeckRules, samples: Int, diners: Int) throws -> [Deck] {
    let f = try menu()
    let s = try learned(
      "plackett-luce", ["temperature": "0.25", "samples": "\(samples)"], on: f)
    let pipeline = DeckPipeline(
      builder: try DeckBuilder(catalog: f.catalog, rules: rules), strategy: s, history: f.history,
      seed: 42, date: f.date)
    var decks: [Deck] = []
    try pipeline.build(users: (0..<diners).map { UserProfile(id: "d\($0)") }) { decks.append($0) }
    return decks
  }

  /// Under deck rules that move cards (one card per category, no two neighbours alike), a
  /// card's propensity is the probability of the whole policy putting it at its slot: over many
  /// diners, the mean propensity of (dish, slot) is how often the decks have that dish there.
  @Test("with deck rules that move cards, propensities are those of the deck's slots")
  func propensitiesOfDeckSlots() throws {
    var rules = DeckRules()
    rules.size = 3
    rules.maxPerCategory = 1
    let n = 3000
    let decks = try Self.decks(rules: rules, samples: 100, diners: n)
    var count = [[Int]](repeating: [Int](repeating: 0, count: 6), count: 3)
    var sum = [[Double]](repeating: [Double](repeating: 0, count: 6), count: 3)
    var moved = 0
    for deck in decks {
      #expect(deck.cards.count == 3)
      for (j, card) in deck.cards.enumerated() {
        let p = try #require(card.propensity)
        #expect(p > 0 && p <= 1)
        count[j][Int(card.item)] += 1
        sum[j][Int(card.item)] += p
      }
      // A card's score is 6 at the ranking's first position, 5 at its second, ...: did the
      // rules put a card at a slot other than its position?
      if deck.cards.enumerated().contains(where: { j, c in c.score != Double(6 - j) }) {
        moved += 1
      }
    }
    #expect(moved > n / 4, "the rules must move cards for this test to mean anything")
    var checked = 0
    for j in 0..<3 {
      for i in 0..<6 where count[j][i] >= 150 {
        let frequency = Double(count[j][i]) / Double(n)
        let mean = sum[j][i] / Double(count[j][i])
        // The frequency's noise (five standard errors), the estimate's own bias (at most
        // 1 / 101) and its noise, averaged over the decks that have the dish there.
        let bound = 5 * (frequency * (1 - frequency) / Double(n)).squareRoot() + 1.0 / 101 + 0.01
        #expect(
          abs(mean - frequency) < bound, "dish \(i) at slot \(j + 1): \(mean) vs \(frequency)")
        checked += 1
      }
    }
    #expect(checked >= 6)
  }

  /// When the rules keep the ranking's order, the deck's slots are the ranking's positions and
  /// the exact-at-the-top estimate stands, as for the strategy alone.
  @Test("with deck rules that keep the order, propensities are the ranking's")
  func propensitiesWhenTheOrderIsKept() throws {
    var rules = DeckRules()
    rules.size = 3
    rules.maxPerCategory = nil
    rules.avoidAdjacentCategory = false
    let decks = try Self.decks(rules: rules, samples: 10, diners: 20)
    let f = try Self.menu()
    let s = try learned("plackett-luce", ["temperature": "0.25", "samples": "10"], on: f)
    for deck in decks {
      var context = ScoringContext(
        user: UserProfile(id: deck.user), userHistory: nil, date: f.date,
        candidates: Array(0..<6), seed: 42)
      context.places = rules.size  // as the pipeline says: the deck's three places
      let alone = s.score(&context)
      for card in deck.cards {
        #expect(card.propensity == alone.propensities![Int(card.item)])
      }
    }
  }

  @Test("bad options name the option")
  func badOptions() {
    #expect(
      message { _ = try StrategyRegistry.make("plackett-luce", options: ["temperature": "0"]) }
        == "strategy 'plackett-luce' option 'temperature': '0' is out of range: give a number from 0.0001 to 1000000.0"
    )
    #expect(
      message { _ = try StrategyRegistry.make("plackett-luce", options: ["base": ""]) }
        == "strategy 'plackett-luce' option 'base': '' is not a built-in strategy (empty name; "
        + "valid: " + StrategyRegistry.identifiers.joined(separator: ", ") + ")")
  }
}
