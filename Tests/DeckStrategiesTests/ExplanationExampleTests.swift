import DeckCore
import Foundation
import Testing

@testable import DeckStrategies

/// One worked example per strategy: the explanation of a few dishes of one of the strategy's own
/// examples, with parts checked by hand.
@Suite("Explanations of the strategies' examples")
struct ExplanationExampleTests {
  /// The explanations of every dish of `type`'s example whose summary starts with `summary`
  /// (with `options` over the example's own), by dish id.
  static func explained(
    _ type: any BuiltinStrategy.Type, _ summary: String, options: [String: String] = [:]
  ) throws -> [String: ScoreExplanation] {
    let example = try #require(type.description.examples.first { $0.summary.hasPrefix(summary) })
    let f = try ExampleRunner.fixture(example, strategy: type.description.identifier)
    let strategy = try #require(
      try StrategyRegistry.make(
        type.description.identifier,
        options: example.options.merging(options) { $1 }) as? any ExplainingStrategy)
    strategy.prepare(seed: f.seed, jobs: 1)
    try strategy.learn(catalog: f.catalog, history: f.history)
    var context = ScoringContext(
      user: f.user, userHistory: f.history.users[f.user.id], date: f.date,
      candidates: (0..<Int32(f.catalog.count)).map { $0 }, seed: f.seed)
    let explanations = strategy.explain(&context, positions: Array(0..<f.catalog.count))
    return Dictionary(
      uniqueKeysWithValues: zip(f.catalog.items.map(\.id), explanations))
  }

  static func near(_ a: Double?, _ b: Double, _ tolerance: Double = 1e-12) -> Bool {
    a.map { abs($0 - b) <= tolerance } ?? false
  }

  @Test("random: the draw is the k-th uniform of the diner's stream")
  func random() throws {
    let e = try Self.explained(RandomStrategy.self, "seed 42")
    var stream = RandomStream(seed: 42, date: DeckDate.parse("2026-01-10")!, user: "u1")
    let draws = (0..<6).map { _ in stream.nextDouble() }
    let ids = ["miso-soup", "oyakodon", "zaru-soba", "tonkatsu", "saba-miso", "hiyayakko"]
    for (k, id) in ids.enumerated() {
      #expect(e[id]?.input("draw") == draws[k])
      #expect(e[id]?.input("stream_index") == Double(k))
      #expect(e[id]?.score == draws[k])
    }
  }

  @Test("popularity: 8 of 10 under Beta(1, 1) is (8 + 1) / (10 + 2)")
  func popularity() throws {
    let e = try Self.explained(PopularityStrategy.self, "fixed Beta(1, 1)")
    let zaru = try #require(e["zaru-soba"])
    #expect(zaru.inputs.map(\.name) == ["likes", "shown", "prior_a", "prior_b"])
    #expect(zaru.inputs.map(\.value) == [8, 10, 1, 1])
    #expect(zaru.score == 0.75)
    #expect(zaru.formula == "(likes + prior_a) / (shown + prior_a + prior_b)")
    #expect(e["tonjiru"]?.inputs.map(\.value) == [0, 3, 1, 1])
    #expect(e["miso-soup"]?.score == 0.5)
    let perDiner = try Self.explained(PopularityStrategy.self, "per=diner")
    // 6 likers among 11 diners: (6 + 1) / (11 + 2).
    #expect(perDiner["zaru-soba"]?.inputs.map(\.value) == [6, 11, 1, 1])
    #expect(perDiner["zaru-soba"]?.input("likers") == 6)
    #expect(Self.near(perDiner["zaru-soba"]?.score, 7.0 / 13))
  }

  @Test("affinity: a liked tag's rate lifts mabo-tofu; the four terms sum to 0.525")
  func affinity() throws {
    // Fixed Beta(1, 1): mabo-tofu (never shown) has popularity 1/2; u1 liked hiyayakko (tofu)
    // twice, so the tofu rate is (2 + 5 x 1/2) / (2 + 5) = 4.5/7; spicy and chinese, never
    // swiped, stay at 1/2.
    let e = try Self.explained(AffinityStrategy.self, "a liked tag", options: ["prior": "fixed"])
    let mabo = try #require(e["mabo-tofu"])
    #expect(mabo.terms.map(\.name) == ["popularity", "category", "tag", "tag"])
    #expect(mabo.terms.map(\.about) == [nil, "chinese", "tofu", "spicy"])
    #expect(Self.near(mabo.term("popularity"), 0.3 * 0.5))
    #expect(Self.near(mabo.term("category"), 0.7 * 0.5 * 0.5))
    #expect(Self.near(mabo.term("tag", about: "tofu"), 0.7 * 0.25 * 4.5 / 7))
    #expect(Self.near(mabo.term("tag", about: "spicy"), 0.7 * 0.25 * 0.5))
    #expect(Self.near(mabo.score, 0.525))
    #expect(mabo.input("tag_right", about: "tofu") == 2)
    #expect(mabo.input("tag_shown", about: "tofu") == 2)
    #expect(Self.near(mabo.input("tag_rate", about: "tofu"), 4.5 / 7))
    #expect(mabo.input("category_shown", about: "chinese") == 0)
  }

  @Test("thompson: the warm prior (2, 8) and 9 of 10 make Beta(11, 9); the draw is the score")
  func thompson() throws {
    let e = try Self.explained(ThompsonStrategy.self, "a warm prior")
    let zaru = try #require(e["zaru-soba"])
    #expect(zaru.input("alpha") == 11)
    #expect(zaru.input("beta") == 9)
    #expect(zaru.input("likes") == 9 && zaru.input("passes") == 1)
    #expect(zaru.input("prior_a") == 2 && zaru.input("prior_b") == 8)
    #expect(zaru.input("draw") == zaru.score)
    #expect(e["oyakodon"]?.input("alpha") == 3 && e["oyakodon"]?.input("beta") == 17)
  }

  @Test("ucb: 3 of 4 is 0.75 + 1.149, 9 of 10 is 0.9 + 0.727 (N = 14)")
  func ucb() throws {
    let e = try Self.explained(UCBStrategy.self, "3 of 4")
    let zaru = try #require(e["zaru-soba"])
    #expect(zaru.terms.map(\.name) == ["rate", "bonus"])
    #expect(zaru.term("rate") == 0.75)
    #expect(Self.near(zaru.term("bonus"), 1.149, 5e-4))
    #expect(zaru.term("bonus") == 2.0.squareRoot() * (log(14.0) / 4).squareRoot())
    #expect(zaru.input("all_shown") == 14 && zaru.input("shown") == 4)
    #expect(e["oyakodon"]?.term("rate") == 0.9)
    #expect(Self.near(e["oyakodon"]?.term("bonus"), 0.727, 5e-4))
  }

  @Test("epsilon-greedy: epsilon 0 takes the best left at every slot; epsilon 1 explores all")
  func epsilonGreedy() throws {
    let greedy = try Self.explained(
      EpsilonGreedyStrategy.self, "epsilon 0 is", options: ["prior": "fixed"])
    let zaru = try #require(greedy["zaru-soba"])
    #expect(zaru.score == 4 && zaru.input("place") == 1 && zaru.input("candidates") == 4)
    #expect(zaru.input("greedy_score") == 0.75 && zaru.input("greedy_rank") == 1)
    #expect(zaru.input("explored") == 0 && zaru.input("choice_probability") == 1)
    #expect(greedy["tonkatsu"]?.input("place") == 4 && greedy["tonkatsu"]?.score == 1)
    #expect(greedy["tonkatsu"]?.input("greedy_score") == 0.25)
    // Every slot explores: a card at place p was one of the 5 - p left, each as likely.
    let uniform = try Self.explained(EpsilonGreedyStrategy.self, "epsilon 1")
    for e in uniform.values {
      #expect(e.input("explored") == 1)
      #expect(Self.near(e.input("choice_probability"), 1 / (5 - e.input("place")!)))
    }
  }

  @Test("itemknn: katsudon is 2 / sqrt(4 x 2) from tonkatsu plus 0.01 x 2/4")
  func itemKNN() throws {
    let e = try Self.explained(ItemKNNStrategy.self, "tonkatsu liked")
    let katsudon = try #require(e["katsudon"])
    #expect(katsudon.terms.map(\.name) == ["neighbour", "popularity"])
    #expect(katsudon.terms.first?.about == "tonkatsu")
    #expect(katsudon.term("neighbour") == 2 / 8.0.squareRoot())
    #expect(katsudon.term("popularity") == 0.01 * 0.5)
    #expect(katsudon.input("reached") == 1)
    #expect(e["miso-soup"]?.term("neighbour", about: "tonkatsu") == 0.5)
    // zaru-soba is nobody's neighbour of tonkatsu: its popularity (3 of 4 likers) alone.
    #expect(e["zaru-soba"]?.terms.map(\.name) == ["popularity"])
    #expect(e["zaru-soba"]?.score == 0.01 * 0.75)
  }

  @Test("blend 3:1: katsudon is 3 x 1 / 4 from popularity plus 1 x 0.5 / 4 from ucb")
  func blend() throws {
    let e = try Self.explained(BlendStrategy.self, "popularity ranks")
    let katsudon = try #require(e["katsudon"])
    #expect(katsudon.terms.map(\.about) == ["popularity", "ucb"])
    #expect(katsudon.term("component", about: "popularity") == 0.75)
    #expect(katsudon.term("component", about: "ucb") == 0.125)
    #expect(katsudon.score == 0.875)
    #expect(katsudon.input("normalised", about: "ucb") == 0.5)
    #expect(katsudon.input("weight", about: "popularity") == 3)
    #expect(
      katsudon.input("raw", about: "ucb") == 0.9 + 2.0.squareRoot() * (log(12.0) / 10).squareRoot())
    #expect(e["gyudon"]?.score == 0.625 && e["tonjiru"]?.score == 0)
    // Then each component's own reasons: katsudon was liked 9 times of 10.
    #expect(katsudon.input("popularity.likes") == 9 && katsudon.input("popularity.shown") == 10)
    #expect(katsudon.input("ucb.likes") == 9 && katsudon.input("ucb.all_shown") == 12)
    #expect(katsudon.input("ucb.rate") == 0.9)
  }

  @Test(
    "diversify: oyakodon pays 0.5 for sharing katsudon's category, hiyayakko for miso soup's tag")
  func diversify() throws {
    let e = try Self.explained(DiversifyStrategy.self, "lambda 0.5")
    let oyakodon = try #require(e["oyakodon"])
    #expect(oyakodon.input("place") == 3 && oyakodon.score == 3)
    #expect(oyakodon.input("penalty") == 0.5)
    #expect(oyakodon.inputs.first { $0.name == "penalty" }?.about == "katsudon")
    #expect(oyakodon.input("mmr") == 0.5 * oyakodon.input("relevance")! - 0.25)
    #expect(oyakodon.inputs.first { $0.name == "base_score" }?.about == "popularity")
    #expect(e["miso-soup"]?.input("place") == 2 && e["miso-soup"]?.input("penalty") == 0)
    let hiyayakko = try #require(e["hiyayakko"])
    #expect(hiyayakko.input("penalty") == 0.5)
    #expect(hiyayakko.inputs.first { $0.name == "penalty" }?.about == "miso-soup")
    #expect(e["katsudon"]?.input("relevance") == 1 && e["katsudon"]?.input("penalty") == 0)
    // The base's own reasons: oyakodon was liked 2 times of 2.
    #expect(oyakodon.input("popularity.likes") == 2 && oyakodon.input("popularity.shown") == 2)
  }

  @Test(
    "plackett-luce at temperature 0.001: zaru-soba has utility 0 and almost all the first place")
  func plackettLuce() throws {
    let e = try Self.explained(PlackettLuceStrategy.self, "a low temperature")
    let zaru = try #require(e["zaru-soba"])
    #expect(zaru.input("place") == 1 && zaru.score == 4)
    #expect(zaru.input("utility") == 0)
    #expect(zaru.input("key") == zaru.input("utility")! + zaru.input("gumbel")!)
    // The softmax of the utilities: the first place is zaru-soba's but for about 2e-6.
    let total = e.values.reduce(0) { $0 + exp($1.input("utility")!) }
    #expect(Self.near(zaru.input("first_place_probability"), 1 / total, 1e-15))
    #expect(Self.near(zaru.input("first_place_probability"), 1, 1e-5))
    #expect(Self.near(e.values.reduce(0) { $0 + $1.input("first_place_probability")! }, 1))
    #expect(zaru.input("temperature") == 0.001)
    #expect(zaru.input("popularity.likes") == 3 && zaru.input("popularity.shown") == 4)
    // oyakodon's base score is below zaru-soba's: its utility is their difference / 0.001.
    let oyakodon = try #require(e["oyakodon"])
    #expect(
      Self.near(
        oyakodon.input("utility"),
        (oyakodon.input("base_score")! - zaru.input("base_score")!) / 0.001, 1e-9))
  }

  @Test("als: a diner without a like gets the likes; with factors, 64 terms sum to the score")
  func als() throws {
    let fallback = try Self.explained(ALSStrategy.self, "a diner without a like")
    #expect(fallback["oyakodon"]?.inputs == [ScorePart("likes", 2)])
    #expect(fallback["oyakodon"]?.score == 2 && fallback["oyakodon"]?.formula == "likes")
    let e = try Self.explained(ALSStrategy.self, "light regularization")
    let katsudon = try #require(e["katsudon"])
    #expect(katsudon.terms.count == 64)
    #expect(katsudon.terms.map(\.about) == (1...64).map { String($0) })
    #expect(katsudon.input("folded_in") == 0)
    let size = katsudon.terms.reduce(0) { $0 + abs($1.value) }
    #expect(abs(katsudon.termSum - katsudon.score) <= 1e-6 * max(1, size))
  }

  @Test("ease, lambda 1: katsudon is B(tonkatsu, katsudon) = 1/3, zaru-soba -1/8, miso soup 0")
  func ease() throws {
    let e = try Self.explained(EASEStrategy.self, "lambda 1")
    let katsudon = try #require(e["katsudon"])
    #expect(katsudon.terms.map(\.name) == ["liked"] && katsudon.terms[0].about == "tonkatsu")
    #expect(Self.near(katsudon.term("liked"), 1.0 / 3))
    #expect(Self.near(e["zaru-soba"]?.term("liked", about: "tonkatsu"), -1.0 / 8))
    #expect(e["tonkatsu"]?.term("liked", about: "tonkatsu") == 0)
    #expect(e["miso-soup"]?.terms == [] && e["miso-soup"]?.score == 0)
    #expect(e["miso-soup"]?.input("in_model") == 0)
  }
}
