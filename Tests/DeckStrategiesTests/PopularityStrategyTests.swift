import DeckCore
import DeckStrategies
import Testing

@Suite("popularity strategy")
struct PopularityStrategyTests {
  /// a: 1 of 1, b: 8 of 10, c: never shown, d: 0 of 3, e: 3 of 3.
  static func history() throws -> ExampleRunner.Fixture {
    var events = ["u9 a right 2026-01-02"]
    for k in 0..<10 { events.append("u\(k) b \(k < 8 ? "right" : "left") 2026-01-03") }
    for k in 0..<3 { events.append("u\(k) d left 2026-01-04") }
    for k in 0..<3 { events.append("u\(k) e right 2026-01-05") }
    return try fixture(
      items: ["a:soup", "b:rice", "c:noodles", "d:soup", "e:fish"], events: events)
  }

  @Test("fixed Beta(1, 1): scores are (right + 1) / (shown + 2)")
  func laplacePrior() throws {
    let f = try Self.history()
    let s = try learned("popularity", ["prior": "fixed"], on: f)
    let expected: [Double] = [2.0 / 3, 9.0 / 12, 0.5, 1.0 / 5, 4.0 / 5]
    #expect(scores(s, f) == expected)
    #expect(ranking(scores(s, f), f) == ["e", "b", "a", "c", "d"])
  }

  @Test("the prior decides 1 of 1 against 8 of 10")
  func smoothing() throws {
    let f = try Self.history()
    // Laplace: 2/3 < 9/12, the long record wins.
    #expect(
      try ranking(scores(learned("popularity", ["prior": "fixed"], on: f), f), f)
        .firstIndex(of: "b")! < 2)
    // A weak prior is nearly the raw rate: 1.1/1.2 > 8.1/10.2.
    let weak = try learned("popularity", ["prior_likes": "0.1", "prior_passes": "0.1"], on: f)
    let w = scores(weak, f)
    #expect(w[0] == 1.1 / 1.2)
    #expect(w[1] == 8.1 / 10.2)
    #expect(w[0] > w[1])
    // A pessimistic prior (1, 9): an unseen dish starts at 1/10.
    let cautious = try learned("popularity", ["prior_likes": "1", "prior_passes": "9"], on: f)
    let pessimistic: [Double] = [2.0 / 11, 9.0 / 20, 0.1, 1.0 / 13, 4.0 / 13]
    #expect(scores(cautious, f) == pessimistic)
    // prior_likes 0 is allowed when prior_passes carries the weight.
    let zero = try learned("popularity", ["prior_likes": "0", "prior_passes": "1"], on: f)
    let noLikes: [Double] = [0.5, 8.0 / 11, 0, 0, 0.75]
    #expect(scores(zero, f) == noLikes)
  }

  @Test("a well-liked dish ranks above a disliked one, and the diner does not matter")
  func likedAboveDisliked() throws {
    let f = try Self.history()
    let s = try learned("popularity", on: f)
    let r = ranking(scores(s, f), f)
    #expect(r.firstIndex(of: "e")! < r.firstIndex(of: "d")!)
    #expect(scores(s, f, user: "u0") == scores(s, f, user: "nobody"))
    #expect(scores(s, f, date: "2027-05-05", seed: 7) == scores(s, f))
  }

  @Test("no history: every dish ties at prior_likes / (prior_likes + prior_passes)")
  func noHistory() throws {
    let f = try fixture(items: ["a:soup", "b:rice", "c:noodles"])
    #expect(try scores(learned("popularity", on: f), f) == [0.5, 0.5, 0.5])
    let s = try learned("popularity", ["prior_likes": "3", "prior_passes": "1"], on: f)
    #expect(scores(s, f) == [0.75, 0.75, 0.75])
  }

  @Test("with no history the deck builder keeps catalog order")
  func deckKeepsCatalogOrder() throws {
    let f = try fixture(items: ["a:soup", "b:soup", "c:rice", "d:soup", "e:rice", "f:fish"])
    let s = try learned("popularity", on: f)
    var rules = DeckRules()
    rules.size = 5
    rules.maxPerCategory = nil
    rules.avoidAdjacentCategory = false
    let builder = try DeckBuilder(catalog: f.catalog, rules: rules)
    let user = UserProfile(id: "u1")
    let candidates = builder.candidates(for: user, history: nil, date: f.date)
    var context = ScoringContext(
      user: user, userHistory: nil, date: f.date, candidates: candidates.items, seed: 1)
    let deck = builder.assemble(
      user: "u1", date: f.date, candidates: candidates, scores: s.score(&context).values)
    #expect(deck.cards.map { f.catalog[$0.item].id } == ["a", "b", "c", "d", "e"])
  }

  @Test("per=diner: a diner's chance to pick the dish, (likers + a) / (diners + a + b)")
  func perDiner() throws {
    let f = try Self.history()  // ten diners, u0 to u9; likers 1, 8, 0, 0, 3
    let s = try learned("popularity", ["per": "diner", "prior": "fixed"], on: f)
    let likers: [Double] = [1, 8, 0, 0, 3]
    #expect(scores(s, f) == likers.map { ($0 + 1) / 12 })
    // The order of the count of likers; c and d tie and keep catalog order.
    #expect(ranking(scores(s, f), f) == ["b", "e", "a", "c", "d"])
    // The fitted prior is fitted to the likers among the ten diners of the dishes with a swipe
    // (a, b, d, e), and ranks as the count does whatever it is.
    let fitted = try learned("popularity", ["per": "diner"], on: f)
    let values = Dictionary(uniqueKeysWithValues: fitted.fitted.map { ($0.name, $0.value) })
    let a = try #require(values["prior_likes"]?.number)
    let b = try #require(values["prior_passes"]?.number)
    #expect(values["prior_dishes"]?.number == 4)
    for (got, l) in zip(scores(fitted, f), likers) {
      #expect(abs(got - (l + a) / (10 + a + b)) < 1e-15)
    }
    #expect(ranking(scores(fitted, f), f) == ["b", "e", "a", "c", "d"])
    // No history, no diners: every dish ties at the prior's mean.
    let lone = try fixture(items: ["a:soup"])
    #expect(try scores(learned("popularity", ["per": "diner"], on: lone), lone) == [0.5])
    #expect(
      message { _ = try StrategyRegistry.make("popularity", options: ["per": "everyone"]) }
        == "strategy 'popularity' option 'per': 'everyone' is not showing or diner")
  }

  @Test("learning again replaces what was learned")
  func relearn() throws {
    let empty = try fixture(items: ["a:soup", "b:rice"])
    let later = try fixture(items: ["a:soup", "b:rice"], events: ["u1 b right 2026-01-09"])
    let s = try learned("popularity", on: empty)
    #expect(scores(s, empty) == [0.5, 0.5])
    try s.learn(catalog: later.catalog, history: later.history)
    #expect(scores(s, later) == [0.5, 2.0 / 3])
  }
}
