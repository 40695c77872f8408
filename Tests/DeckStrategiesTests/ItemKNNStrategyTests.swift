import DeckCore
import Testing

@testable import DeckStrategies

@Suite("itemknn strategy")
struct ItemKNNStrategyTests {
  /// Likers: a {u1, u2, u3}, b {u2, u3}, c {u3, u4}, d {u4}, e {u1}; u1 passed on c.
  /// Co-likes: a-b 2, a-c 1, a-e 1, b-c 1, c-d 1.
  static func history() throws -> ExampleRunner.Fixture {
    try fixture(
      items: ["a:soup", "b:rice", "c:noodles", "d:fried", "e:fish", "f:side"],
      events: [
        "u1 a right 2026-01-08", "u1 e right 2026-01-02", "u1 c left 2026-01-09",
        "u2 a right 2026-01-03", "u2 b right 2026-01-03",
        "u3 a right 2026-01-04", "u3 b right 2026-01-04", "u3 c right 2026-01-04",
        "u4 c right 2026-01-05", "u4 d right 2026-01-05",
      ])
  }

  @Test("learned neighbours are the cosine similarities of co-likes, best first")
  func neighbours() throws {
    let f = try Self.history()
    let s = try #require(try StrategyRegistry.make("itemknn") as? ItemKNNStrategy)
    try s.learn(catalog: f.catalog, history: f.history)
    let a = s.neighbours(of: 0)
    #expect(a.map(\.item) == [1, 4, 2])
    #expect(abs(a[0].similarity - 2 / 6.0.squareRoot()) < 1e-15)
    #expect(abs(a[1].similarity - 1 / 3.0.squareRoot()) < 1e-15)
    #expect(abs(a[2].similarity - 1 / 6.0.squareRoot()) < 1e-15)
    #expect(s.neighbours(of: 3).map(\.item) == [2])
    #expect(s.neighbours(of: 5).isEmpty)

    // neighbours 1 keeps only the best: c's are d (1/sqrt(2)), b (1/2) and a (1/sqrt(6)).
    let one = try #require(
      try StrategyRegistry.make("itemknn", options: ["neighbours": "1"]) as? ItemKNNStrategy)
    try one.learn(catalog: f.catalog, history: f.history)
    #expect(one.neighbours(of: 0).map(\.item) == [1])
    #expect(one.neighbours(of: 2).map(\.item) == [3])
  }

  @Test("scores: the similarity sum over the recent likes plus 0.01 x popularity")
  func formula() throws {
    let f = try Self.history()
    let s = scores(try learned("itemknn", on: f), f)
    // u1's query: a and e. Popularity (Beta(1, 1)): a 4/5, b 3/4, c 3/5, d 2/3, e 2/3, f 1/2.
    let expected = [
      1 / 3.0.squareRoot() + 0.008,
      2 / 6.0.squareRoot() + 0.0075,
      1 / 6.0.squareRoot() + 0.006,
      0.01 * 2 / 3,
      1 / 3.0.squareRoot() + 0.01 * 2 / 3,
      0.005,
    ]
    for k in 0..<6 { #expect(abs(s[k] - expected[k]) < 1e-15, "\(k)") }
    // a and e tie on similarity; a is more popular.
    #expect(ranking(s, f) == ["b", "a", "e", "c", "d", "f"])
  }

  @Test("recent_likes keeps the most recent likes; recent_days the window before the date")
  func query() throws {
    let f = try Self.history()
    // recent_likes 1: only a (2026-01-08); e (2026-01-02) is dropped, so nothing lifts a.
    let latest = scores(try learned("itemknn", ["recent_likes": "1"], on: f), f)
    #expect(abs(latest[0] - 0.008) < 1e-15)
    #expect(abs(latest[4] - (1 / 3.0.squareRoot() + 0.01 * 2 / 3)) < 1e-15)
    #expect(abs(latest[1] - (2 / 6.0.squareRoot() + 0.0075)) < 1e-15)
    // recent_days 8: 2026-01-02 is the first day in the window, so e still counts; 7 drops it.
    let eight = scores(try learned("itemknn", ["recent_days": "8"], on: f), f)
    let seven = scores(try learned("itemknn", ["recent_days": "7"], on: f), f)
    #expect(eight == scores(try learned("itemknn", on: f), f))
    #expect(seven == latest)
    // recent_days 1: nothing liked on 2026-01-09 (c was a pass), so popularity only.
    let none = scores(try learned("itemknn", ["recent_days": "1"], on: f), f)
    let popularity = scores(try learned("popularity", ["prior": "fixed"], on: f), f)
    #expect(zip(none, popularity).allSatisfy { abs($0 - 0.01 * $1) < 1e-15 })
  }

  @Test("a diner without likes gets the popularity order; weight 0 leaves catalog order")
  func noLikes() throws {
    let f = try Self.history()
    let s = try learned("itemknn", on: f)
    let popularity = try learned("popularity", ["prior": "fixed"], on: f)
    #expect(ranking(scores(s, f, user: "nobody"), f) == ranking(scores(popularity, f), f))
    let flat = try learned("itemknn", ["weight_popularity": "0"], on: f)
    #expect(scores(flat, f, user: "nobody") == [0, 0, 0, 0, 0, 0])
  }

  @Test("deterministic, independent of batch order, finite; learning again replaces")
  func determinism() throws {
    let f = try Self.history()
    let s = try learned("itemknn", on: f)
    let users = ["u1", "u2", "u3", "u4", "nobody"]
    let single = users.map { scores(s, f, user: $0) }
    var batch = users.reversed().map {
      ScoringContext(
        user: UserProfile(id: $0), userHistory: f.history.users[$0], date: f.date,
        candidates: (0..<6).map { $0 }, seed: 1)
    }
    #expect(try s.score(&batch).map(\.values) == single.reversed())
    #expect(single.allSatisfy { $0.allSatisfy { $0.isFinite } })
    let empty = try fixture(items: ["a:soup", "b:rice", "c:noodles", "d:fried", "e:fish", "f:side"])
    try s.learn(catalog: empty.catalog, history: empty.history)
    #expect(scores(s, f) == [0.005, 0.005, 0.005, 0.005, 0.005, 0.005])
  }

  @Test("options out of range name the option")
  func badOptions() {
    #expect(
      message { _ = try StrategyRegistry.make("itemknn", options: ["neighbours": "0"]) }
        == "strategy 'itemknn' option 'neighbours': '0' is out of range: give a whole number from 1 to 10000"
    )
    #expect(
      message { _ = try StrategyRegistry.make("itemknn", options: ["recent_days": "2.5"]) }
        == "strategy 'itemknn' option 'recent_days': '2.5' is not a whole number; give a whole number from 1 to 36500"
    )
  }
}
