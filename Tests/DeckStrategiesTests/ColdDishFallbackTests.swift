import DeckCore
import Testing

@testable import DeckStrategies

/// A dish with no swipes takes, in als, ease and itemknn (`cold=features`), the
/// similarity-weighted mean of the diner's scores of the warm dishes most like it by features
/// (`FeatureFallback`); warm dishes and `cold=none` are untouched.
@Suite("a dish with no swipes falls back to its features")
struct ColdDishFallbackTests {
  static let learnedStrategies = ["als", "ease", "itemknn"]

  /// a, b, c, d are swiped; n (rice, egg) and m (soup, warm, tofu) never are, x (fried) shares
  /// no feature with a swiped dish.
  static func small() throws -> ExampleRunner.Fixture {
    try fixture(
      items: [
        "a:rice:egg|warm", "b:rice:tofu", "n:rice:egg", "c:soup:warm", "d:noodles", "x:fried",
        "m:soup:warm|tofu",
      ],
      events: [
        "u1 a right 2026-01-02", "u1 c left 2026-01-02", "u2 a right 2026-01-03",
        "u2 b right 2026-01-03", "u3 c right 2026-01-04", "u3 d right 2026-01-04",
        "u4 b right 2026-01-05", "u4 d left 2026-01-05", "u5 c right 2026-01-06",
        "u5 a right 2026-01-06",
      ])
  }

  static func index(_ f: ExampleRunner.Fixture, _ id: String) -> Int {
    f.catalog.items.firstIndex { $0.id == id }!
  }

  @Test(
    "a cold dish's score is Σ sim_j s_j / Σ sim_j, recomputed by hand", arguments: learnedStrategies
  )
  func handFormula(_ identifier: String) throws {
    let f = try Self.small()
    let (a, b, c, n, m) = (
      Self.index(f, "a"), Self.index(f, "b"), Self.index(f, "c"), Self.index(f, "n"),
      Self.index(f, "m")
    )
    // n = {rice, egg}: a = {rice, egg, warm} shares 2 (2 / sqrt 6), b = {rice, tofu} 1
    // (1 / sqrt 4). m = {soup, warm, tofu}: c = {soup, warm} 2 / sqrt 6, a and b 1 / sqrt 9 and
    // 1 / sqrt 6 (b before a), d nothing.
    let (simNA, simNB) = (2 / 6.0.squareRoot(), 1 / 4.0.squareRoot())
    let (simMC, simMB, simMA) = (2 / 6.0.squareRoot(), 1 / 6.0.squareRoot(), 1 / 9.0.squareRoot())
    for user in ["u1", "u2", "u3", "u4", "nobody"] {
      let own = scores(try learned(identifier, ["cold": "none"], on: f), f, user: user)
      let cold = scores(try learned(identifier, ["cold": "features"], on: f), f, user: user)
      let expectedN = (simNA * own[a] + simNB * own[b]) / (simNA + simNB)
      let expectedM =
        (simMC * own[c] + simMB * own[b] + simMA * own[a]) / (simMC + simMB + simMA)
      #expect(abs(cold[n] - expectedN) <= 1e-12 * max(1, abs(expectedN)), "\(identifier) \(user)")
      #expect(abs(cold[m] - expectedM) <= 1e-12 * max(1, abs(expectedM)), "\(identifier) \(user)")
      // One neighbour: the score of the most similar warm dish.
      let one = scores(
        try learned(identifier, ["cold": "features", "cold_neighbours": "1"], on: f), f, user: user)
      // (sim s / sim: s to rounding.)
      #expect(abs(one[n] - own[a]) <= 1e-15 * max(1, abs(own[a])), "\(identifier) \(user)")
      #expect(abs(one[m] - own[c]) <= 1e-15 * max(1, abs(own[c])), "\(identifier) \(user)")
    }
  }

  @Test("the neighbours: top k by similarity, ties by catalog order, the intercept left out")
  func neighbours() throws {
    let f = try Self.small()
    var fallback = try FeatureFallback(
      options: StrategyOptions(
        raw: ["cold": "features", "cold_neighbours": "2"], for: EASEStrategy.description))
    fallback.learn(catalog: f.catalog, history: f.history)
    let ids = { (list: [(item: Int32, similarity: Double)]) in
      list.map { f.catalog[$0.item].id }
    }
    #expect(ids(fallback.neighbours(of: Int32(Self.index(f, "n")))) == ["a", "b"])
    #expect(ids(fallback.neighbours(of: Int32(Self.index(f, "m")))) == ["c", "b"])
    #expect(fallback.neighbours(of: Int32(Self.index(f, "x"))).isEmpty)
    #expect(fallback.neighbours(of: Int32(Self.index(f, "a"))).isEmpty)
    #expect(fallback.isCold(Int32(Self.index(f, "x"))))
    #expect(!fallback.isCold(Int32(Self.index(f, "c"))))
  }

  @Test(
    "warm dishes score the same with cold=features and none; cold=none is the model's own score",
    arguments: learnedStrategies)
  func warmUnchanged(_ identifier: String) throws {
    var coldWithNeighbours = 0
    for seed: UInt64 in 1...40 {
      let f = try ExplanationTests.randomFixture(seed)
      let features = try learned(identifier, ["cold": "features"], on: f)
      let none = try learned(identifier, ["cold": "none"], on: f)
      var pick = RandomStream(seed: seed)
      let all = (0..<Int32(f.catalog.count)).map { $0 }
      let some = all.filter { _ in pick.nextDouble() < 0.5 }
      for user in ["u1", "u2", "u3", "u6", "nobody"] {
        for candidates in [all, some] {
          let with = scores(features, f, user: user, candidates: candidates)
          let without = scores(none, f, user: user, candidates: candidates)
          for (k, item) in candidates.enumerated() where f.history.shown(item) > 0 {
            #expect(with[k].bitPattern == without[k].bitPattern, "\(identifier) \(seed) \(user)")
          }
          let explained = explanations(none, f, user: user, candidates: candidates)
          for (k, e) in explained.enumerated() {
            #expect(e.score.bitPattern == without[k].bitPattern)
            #expect(e.formula != FeatureFallback.formula && e.input("cold") == nil)
          }
          let coldOnes = explanations(features, f, user: user, candidates: candidates)
          coldWithNeighbours += coldOnes.filter { $0.formula == FeatureFallback.formula }.count
        }
      }
    }
    // The random histories of ExplanationTests have cold dishes with neighbours.
    #expect(coldWithNeighbours > 100, "\(identifier): \(coldWithNeighbours)")
  }

  @Test(
    "a cold dish that shares no feature with a warm dish keeps the model's score",
    arguments: learnedStrategies)
  func noNeighbour(_ identifier: String) throws {
    let f = try Self.small()
    let x = Self.index(f, "x")
    for user in ["u1", "u3", "nobody"] {
      let own = scores(try learned(identifier, ["cold": "none"], on: f), f, user: user)
      let strategy = try learned(identifier, ["cold": "features"], on: f)
      let cold = scores(strategy, f, user: user)
      #expect(cold[x].bitPattern == own[x].bitPattern, "\(identifier) \(user)")
      let e = try #require(explanations(strategy, f, user: user, candidates: [Int32(x)]).first)
      #expect(e.input("cold") == 1 && e.input("feature_neighbours") == 0)
      #expect(e.formula != FeatureFallback.formula)
    }
  }

  @Test(
    "a cold dish's explanation: its neighbours' shares, similarities and scores",
    arguments: learnedStrategies)
  func explanation(_ identifier: String) throws {
    let f = try Self.small()
    let n = Int32(Self.index(f, "n"))
    let strategy = try learned(identifier, ["cold": "features"], on: f)
    let own = scores(try learned(identifier, ["cold": "none"], on: f), f, user: "u2")
    let e = try #require(explanations(strategy, f, user: "u2", candidates: [n]).first)
    #expect(e.formula == FeatureFallback.formula)
    #expect(e.score.bitPattern == scores(strategy, f, user: "u2")[Int(n)].bitPattern)
    #expect(e.terms.map(\.name) == ["feature_neighbour", "feature_neighbour"])
    #expect(e.terms.map(\.about) == ["a", "b"])
    #expect(e.input("neighbour_score", about: "a") == own[Self.index(f, "a")])
    #expect(e.input("similarity", about: "b") == 0.5)
    // The default k: 100 for itemknn (what its ranking check favours), 10 for als and ease.
    #expect(e.input("cold_neighbours") == (identifier == "itemknn" ? 100 : 10))
    #expect(abs(e.termSum - e.score) <= 1e-12 * max(1, abs(e.score)))
  }

  @Test("the same scores for any number of jobs (als learns in parallel)")
  func jobs() throws {
    let f = try Self.small()
    var values: [[Double]] = []
    for jobs in [1, 4] {
      let strategy = try StrategyRegistry.make("als", options: [:])
      strategy.prepare(seed: 7, jobs: jobs)
      try strategy.learn(catalog: f.catalog, history: f.history)
      values.append(scores(strategy, f, user: "u2"))
    }
    #expect(values[0].map(\.bitPattern) == values[1].map(\.bitPattern))
  }

  @Test("cold is a choice and cold_neighbours a bounded count", arguments: learnedStrategies)
  func options(_ identifier: String) throws {
    #expect(
      message { _ = try StrategyRegistry.make(identifier, options: ["cold": "tags"]) }?
        .contains("one of features, none") == true)
    #expect(
      message { _ = try StrategyRegistry.make(identifier, options: ["cold_neighbours": "0"]) }
        != nil)
  }

  func explanations(
    _ strategy: any BuiltinStrategy, _ f: ExampleRunner.Fixture, user: String, candidates: [Int32]
  ) -> [ScoreExplanation] {
    guard let explaining = strategy as? any ExplainingStrategy else { return [] }
    var context = ScoringContext(
      user: UserProfile(id: user), userHistory: f.history.users[user], date: f.date,
      candidates: candidates, seed: f.seed)
    return explaining.explain(&context, positions: Array(candidates.indices))
  }
}
