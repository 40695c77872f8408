import DeckCore
import DeckStrategies
import Foundation
import Testing

@Suite("ucb strategy")
struct UCBStrategyTests {
  /// a: 3 of 4, b: 9 of 10, c: never shown, d: 0 of 2, e: never shown. N = 16.
  static func history() throws -> ExampleRunner.Fixture {
    try fixture(
      items: ["a:soup", "b:rice", "c:noodles", "d:fried", "e:fish"],
      events: exampleSwipes("a", right: 3, left: 1) + exampleSwipes("b", right: 9, left: 1)
        + exampleSwipes("d", right: 0, left: 2))
  }

  /// The same strings as the module's example helper (it is internal there).
  static func exampleSwipes(_ item: String, right: Int, left: Int) -> [String] {
    (0..<(right + left)).map { k in
      "v\(k + 1) \(item) \(k < right ? "right" : "left") 2026-01-0\(k % 9 + 1)"
    }
  }

  @Test("scores follow r / n + c sqrt(ln N / n); unshown dishes get 2 + c sqrt(ln N)")
  func formula() throws {
    let f = try Self.history()
    let c = 2.0.squareRoot()
    let lnN = log(16.0)
    let s = scores(try learned("ucb", on: f), f)
    #expect(abs(s[0] - (0.75 + c * (lnN / 4).squareRoot())) < 1e-12)
    #expect(abs(s[1] - (0.9 + c * (lnN / 10).squareRoot())) < 1e-12)
    #expect(abs(s[2] - (2 + c * lnN.squareRoot())) < 1e-12)
    #expect(abs(s[3] - c * (lnN / 2).squareRoot()) < 1e-12)
    #expect(s[4] == s[2])
    // a 0.75 + 1.177, d 0 + 1.665, b 0.9 + 0.745.
    #expect(ranking(s, f) == ["c", "e", "a", "d", "b"])

    let greedy = scores(try learned("ucb", ["exploration": "0"], on: f), f)
    #expect(greedy == [0.75, 0.9, 2, 0, 2])
  }

  @Test("an unshown dish outranks the best possible shown dish at every history size")
  func unshownAbove() throws {
    for shown in [1, 2, 3, 50] {
      let f = try fixture(
        items: ["a:soup", "b:rice"], events: Self.exampleSwipes("a", right: shown, left: 0))
      for c in ["0", "1", "1000"] {
        let s = scores(try learned("ucb", ["exploration": c], on: f), f)
        #expect(s[1] > s[0], "\(shown) shown, exploration \(c): \(s)")
        #expect(s.allSatisfy { $0.isFinite })
      }
    }
  }

  @Test("no history: every dish scores 2 and catalog order stands")
  func empty() throws {
    let f = try fixture(items: ["a:soup", "b:rice", "c:fish"])
    #expect(scores(try learned("ucb", on: f), f) == [2, 2, 2])
  }

  @Test("the same for every diner and date; exploration out of range names the option")
  func sameForAll() throws {
    let f = try Self.history()
    let s = try learned("ucb", on: f)
    #expect(scores(s, f, user: "u2", date: "2026-02-01", seed: 1) == scores(s, f))
    #expect(
      message { _ = try StrategyRegistry.make("ucb", options: ["exploration": "-0.1"]) }
        == "strategy 'ucb' option 'exploration': '-0.1' is out of range: give a number from 0.0 to 1000.0"
    )
  }
}

@Suite("epsilon-greedy strategy")
struct EpsilonGreedyStrategyTests {
  /// Popularity (Beta(1, 1)): a 1/2, b 2/3, c 3/4, d 1/4, e 1/2, f 1/3.
  static func history() throws -> ExampleRunner.Fixture {
    try fixture(
      items: ["a:soup", "b:rice", "c:noodles", "d:fried", "e:fish", "f:side"],
      events: UCBStrategyTests.exampleSwipes("b", right: 1, left: 0)
        + UCBStrategyTests.exampleSwipes("c", right: 2, left: 0)
        + UCBStrategyTests.exampleSwipes("d", right: 0, left: 2)
        + UCBStrategyTests.exampleSwipes("f", right: 0, left: 1))
  }

  @Test("epsilon 0 is the popularity order, with scores n ... 1 along it")
  func greedy() throws {
    let f = try Self.history()
    let s = scores(try learned("epsilon-greedy", ["epsilon": "0"], on: f), f)
    #expect(s == [4, 5, 6, 1, 3, 2])
    let popularity = try learned("popularity", on: f)
    #expect(ranking(s, f) == ranking(scores(popularity, f), f))
  }

  @Test("the order follows the documented draws from the diner's stream")
  func stream() throws {
    let f = try Self.history()
    let s = scores(try learned("epsilon-greedy", ["epsilon": "0.5"], on: f), f)
    var r = RandomStream(seed: 42, date: f.date, user: "u1")
    var remaining = [2, 1, 0, 4, 5, 3]
    var order: [Int] = []
    while !remaining.isEmpty {
      let pick = r.nextDouble() < 0.5 ? r.nextInt(below: remaining.count) : 0
      order.append(remaining.remove(at: pick))
    }
    var expected = [Double](repeating: 0, count: 6)
    for (p, k) in order.enumerated() { expected[k] = Double(6 - p) }
    #expect(s == expected)
  }

  @Test(
    "the first card is the most popular dish with probability (1 - e) + e / n",
    arguments: [0.1, 0.5, 1])
  func exploreRate(_ epsilon: Double) throws {
    let f = try Self.history()
    let s = try learned("epsilon-greedy", ["epsilon": String(epsilon)], on: f)
    let n = 6000
    var best = 0
    for k in 0..<n where scores(s, f, user: "d\(k)")[2] == 6 { best += 1 }
    let p = (1 - epsilon) + epsilon / 6
    let se = (p * (1 - p) / Double(n)).squareRoot()
    #expect(abs(Double(best) / Double(n) - p) < 5 * se, "\(best) of \(n)")
  }

  @Test("deterministic per (seed, date, diner), independent of batch order; scores finite")
  func determinism() throws {
    let f = try Self.history()
    let s = try learned("epsilon-greedy", ["epsilon": "0.7"], on: f)
    let base = scores(s, f)
    let again = try learned("epsilon-greedy", ["epsilon": "0.7"], on: f)
    #expect(scores(again, f) == base)
    let others = [
      scores(s, f, user: "u2"), scores(s, f, date: "2026-01-11"), scores(s, f, seed: 7),
    ]
    #expect(others.contains { $0 != base })
    let users = ["u1", "u2", "u3", "u4"]
    let single = users.map { scores(s, f, user: $0) }
    var batch = users.reversed().map {
      ScoringContext(
        user: UserProfile(id: $0), userHistory: nil, date: f.date,
        candidates: (0..<6).map { $0 }, seed: 42)
    }
    #expect(try s.score(&batch).map(\.values) == single.reversed())
    #expect(Set(base) == [1, 2, 3, 4, 5, 6])
    #expect(scores(s, f, candidates: []) == [])
  }

  @Test("epsilon outside 0...1 is rejected, naming the option")
  func badEpsilon() {
    #expect(
      message { _ = try StrategyRegistry.make("epsilon-greedy", options: ["epsilon": "1.5"]) }
        == "strategy 'epsilon-greedy' option 'epsilon': '1.5' is out of range: give a number from 0.0 to 1.0"
    )
  }
}
