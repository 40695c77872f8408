import DeckCore
import Foundation
import Testing

@testable import DeckStrategies

/// The stochastic rankers on many candidates: the O(log n) removal of epsilon-greedy and the
/// propensities of only the deck's places give what the quadratic computations gave, and
/// plackett-luce's lazily dealt draws the decks of the whole draws.
@Suite("stochastic rankers on large catalogs")
struct LargeCatalogRankingTests {
  /// A catalog of `count` dishes in four categories, and a history over it: dish k is shown
  /// `k % 7` times and picked `k % 3` of them (at most), by distinct diners.
  static func catalog(_ count: Int) throws -> ExampleRunner.Fixture {
    let items = (0..<count).map { "d\($0):c\($0 % 4)" }
    var events: [String] = []
    for k in 0..<count {
      let shown = k % 7
      for j in 0..<shown {
        events.append("v\(j) d\(k) \(j < k % 3 ? "right" : "left") 2026-01-0\(j % 9 + 1)")
      }
    }
    return try fixture(items: items, events: events)
  }

  static func context(_ f: ExampleRunner.Fixture, user: String, places: Int?) -> ScoringContext {
    var c = ScoringContext(
      user: UserProfile(id: user), userHistory: nil, date: f.date,
      candidates: (0..<Int32(f.catalog.count)).map { $0 }, seed: 42)
    c.places = places
    return c
  }

  @Test(
    "taking the j-th rank left agrees with removing it from an array",
    arguments: [0, 1, 2, 7, 64, 1000])
  func remainingRanks(_ count: Int) {
    var random = RandomStream(seed: UInt64(count) + 1)
    var ranks = RemainingRanks(count: count)
    var array = Array(0..<count)
    while !array.isEmpty {
      let j = random.nextInt(below: array.count)
      #expect(ranks.take(j) == array.remove(at: j))
    }
  }

  /// The order epsilon-greedy drew before it used `RemainingRanks`: an array of the greedy
  /// order, the pick removed from it, with the same draws from the diner's stream.
  static func quadraticOrder(greedy: [Int], epsilon: Double, _ random: inout RandomStream)
    -> [Int]
  {
    var remaining = greedy
    var order: [Int] = []
    while !remaining.isEmpty {
      let explore = random.nextDouble() < epsilon
      let pick = explore ? random.nextInt(below: remaining.count) : 0
      order.append(remaining.remove(at: pick))
    }
    return order
  }

  @Test(
    "epsilon-greedy draws the same order as with an array", arguments: ["0", "0.1", "0.5", "1"])
  func epsilonGreedyOrder(_ epsilon: String) throws {
    let f = try Self.catalog(300)
    let s = try learned("epsilon-greedy", ["epsilon": epsilon, "prior": "fixed"], on: f)
    let base = try scores(learned("popularity", ["prior": "fixed"], on: f), f)
    let greedy = base.indices.sorted { base[$0] != base[$1] ? base[$0] > base[$1] : $0 < $1 }
    for user in ["u1", "u2", "u3"] {
      var c = Self.context(f, user: user, places: nil)
      var random = c.random
      let order = Self.quadraticOrder(greedy: greedy, epsilon: Double(epsilon)!, &random)
      #expect(s.score(&c).values == scoresAlong(order), "\(user)")
    }
  }

  @Test("epsilon-greedy's propensities of the deck's places are those of every place, bit for bit")
  func epsilonGreedyPlaces() throws {
    let f = try Self.catalog(400)
    let s = try learned("epsilon-greedy", ["epsilon": "0.3"], on: f)
    for user in ["u1", "u2"] {
      var all = Self.context(f, user: user, places: nil)
      var deck = Self.context(f, user: user, places: 10)
      let full = s.score(&all)
      let some = s.score(&deck)
      #expect(some.values == full.values)
      #expect(some.prefixPropensities == full.prefixPropensities)
      let order = full.values.indices.sorted { full.values[$0] > full.values[$1] }
      for (p, k) in order.enumerated() {
        #expect(some.propensities![k] == (p < 10 ? full.propensities![k] : 0))
      }
    }
  }

  @Test(
    "plackett-luce's propensities of the deck's places are those of every place, bit for bit",
    arguments: ["0.0001", "0.05", "0.3", "1000"])
  func plackettLucePlaces(_ temperature: String) throws {
    let f = try Self.catalog(300)
    let s = try learned(
      "plackett-luce", ["temperature": temperature, "samples": "40"], on: f)
    for places in [1, 3, 10] {
      var all = Self.context(f, user: "u\(places)", places: nil)
      var deck = Self.context(f, user: "u\(places)", places: places)
      let full = s.score(&all)
      let some = s.score(&deck)
      #expect(some.values == full.values)
      #expect(some.prefixPropensities == full.prefixPropensities)
      let order = full.values.indices.sorted { full.values[$0] > full.values[$1] }
      for (p, k) in order.enumerated() {
        #expect(some.propensities![k] == (p < places ? full.propensities![k] : 0), "place \(p + 1)")
      }
    }
  }

  @Test("with the deck's places, plackett-luce's first card still carries its softmax probability")
  func plackettLuceFirstPlaceExact() throws {
    let f = try Self.catalog(200)
    let s = try learned("plackett-luce", ["temperature": "0.1", "samples": "5"], on: f)
    let base = try scores(learned("popularity", on: f), f)
    let logits = PlackettLuceStrategy.logits(base, temperature: 0.1)
    let total = logits.reduce(-.infinity, logAddExp)
    var c = Self.context(f, user: "u9", places: 5)
    let result = s.score(&c)
    let first = try #require(result.values.firstIndex(of: 200))
    #expect(abs(result.propensities![first] - exp(logits[first] - total)) < 1e-12)
  }

  @Test("under deck rules that move cards, the lazily dealt draws give the decks of the full draws")
  func plackettLuceDeckSlots() throws {
    let f = try Self.catalog(120)
    var rules = DeckRules()
    rules.size = 6
    rules.maxPerCategory = 2
    let builder = try DeckBuilder(catalog: f.catalog, rules: rules)
    let s = try learned("plackett-luce", ["temperature": "0.2", "samples": "30"], on: f)
    let base = try scores(learned("popularity", on: f), f)
    let logits = PlackettLuceStrategy.logits(base, temperature: 0.2)
    for user in ["u1", "u2", "u3"] {
      let diner = UserProfile(id: user)
      let set = builder.candidates(for: diner, history: nil, date: f.date)
      var c = ScoringContext(
        user: diner, userHistory: nil, date: f.date, candidates: set.items, seed: 42)
      let slots = try #require(builder.slots(set))
      c.deck = slots
      let result = s.score(&c)
      // Each further draw dealt to the end from its own stream, sorted into scores, then dealt
      // by the general path of the deck builder.
      var random = RandomStream(seed: 42, date: f.date, user: user, purpose: "plackett-luce")
      let order = PlackettLuceStrategy.draw(logits, &random)
      var slot = [Int](repeating: -1, count: logits.count)
      for (j, k) in slots.order(scoresAlong(order)).enumerated() { slot[k] = j }
      var hits = [Int](repeating: 1, count: logits.count)
      for _ in 0..<30 {
        var stream = RandomStream(seed: random.next())
        var tree = WeightTree(members: Array(logits.indices), logits: logits)
        var full: [Int] = []
        while tree.remaining > 0 { full.append(tree.draw(stream.nextDouble())) }
        let drawn = slots.order(scoresAlong(full))
        for (j, k) in drawn.enumerated() where slot[k] == j { hits[k] += 1 }
      }
      #expect(result.propensities == hits.map { Double($0) / 31 })
    }
  }

  @Test("a 10,000-dish catalog ranks with propensities for the deck's places")
  func tenThousand() throws {
    let f = try Self.catalog(10_000)
    for name in ["epsilon-greedy", "plackett-luce"] {
      let s = try learned(name, on: f)
      var c = Self.context(f, user: "u1", places: 10)
      let result = s.score(&c)
      #expect(Set(result.values).count == 10_000, "\(name)")
      let p = try #require(result.propensities)
      #expect(p.filter { $0 > 0 }.count == 10, "\(name)")
      #expect(p.allSatisfy { $0 >= 0 && $0 <= 1 }, "\(name)")
    }
  }
}
