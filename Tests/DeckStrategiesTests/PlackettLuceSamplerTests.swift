import DeckCore
import Foundation
import Testing

@testable import DeckStrategies

/// The exact Plackett-Luce probability of `order` (a full ranking) under `logits`, by the
/// product of each place's softmax over the candidates left.
private func probability(of order: [Int], _ logits: [Double]) -> Double {
  var p = 1.0
  var left = Set(order)
  for i in order {
    let total = left.reduce(0.0) { $0 + exp(logits[$1]) }
    p *= exp(logits[i]) / total
    left.remove(i)
  }
  return p
}

/// Every ordering of 0..<n.
private func permutations(_ n: Int) -> [[Int]] {
  guard n > 0 else { return [[]] }
  return permutations(n - 1).flatMap { p in
    (0...p.count).map {
      var q = p
      q.insert(n - 1, at: $0)
      return q
    }
  }
}

/// Whether `count` hits in `trials` agree with probability `p` to five binomial standard errors
/// (fixed seeds make each check deterministic; the bound says how far noise could carry it).
private func agrees(_ count: Int, _ trials: Int, _ p: Double) -> Bool {
  let frequency = Double(count) / Double(trials)
  return abs(frequency - p) <= 5 * (p * (1 - p) / Double(trials)).squareRoot() + 1e-12
}

/// A full ranking of the members of `tree`, drawn card by card from `stream`.
private func drawAll(_ tree: inout WeightTree, _ stream: inout RandomStream) -> [Int] {
  var out: [Int] = []
  while tree.remaining > 0 { out.append(tree.members[tree.draw(stream.nextDouble())]) }
  return out
}

@Suite("PlackettLuce sampler: the tree of weights")
struct PlackettLuceWeightTreeTests {
  static let logits = [0, -0.5, -1, -2, -3.5, 0.3, -0.2]

  @Test("first-place frequencies are the softmax, within five binomial standard errors")
  func firstPlace() {
    let n = Self.logits.count
    var tree = WeightTree(members: Array(0..<n), logits: Self.logits)
    var random = RandomStream(seed: 2026)
    let trials = 60_000
    var count = [Int](repeating: 0, count: n)
    for _ in 0..<trials {
      count[tree.members[tree.draw(random.nextDouble())]] += 1
      tree.restore()
    }
    let total = Self.logits.reduce(0) { $0 + exp($1) }
    for i in 0..<n {
      #expect(agrees(count[i], trials, exp(Self.logits[i]) / total), "candidate \(i): \(count[i])")
    }
  }

  @Test("whole rankings of four follow the Plackett-Luce probabilities of all 24 orders")
  func wholeRankings() {
    let logits = [0.4, -0.3, -1.1, 0]
    var tree = WeightTree(members: [0, 1, 2, 3], logits: logits)
    var random = RandomStream(seed: 7)
    let trials = 48_000
    var count: [[Int]: Int] = [:]
    for _ in 0..<trials {
      count[drawAll(&tree, &random), default: 0] += 1
      tree.restore()
    }
    let orders = permutations(4)
    #expect(orders.count == 24)
    #expect(abs(orders.reduce(0) { $0 + probability(of: $1, logits) } - 1) < 1e-12)
    for order in orders {
      let p = probability(of: order, logits)
      #expect(agrees(count[order] ?? 0, trials, p), "\(order): \(count[order] ?? 0) against \(p)")
    }
  }

  @Test("a subset's tree ranks its members only, by their own weights")
  func subset() {
    let logits = [5.0, -1, 0, 9, -0.5]
    var tree = WeightTree(members: [1, 2, 4], logits: logits)
    var random = RandomStream(seed: 8)
    let trials = 30_000
    var first = [Int: Int]()
    for _ in 0..<trials {
      let order = drawAll(&tree, &random)
      #expect(order.sorted() == [1, 2, 4])
      first[order[0], default: 0] += 1
      tree.restore()
    }
    let total = exp(-1.0) + exp(0.0) + exp(-0.5)
    for i in [1, 2, 4] { #expect(agrees(first[i] ?? 0, trials, exp(logits[i]) / total), "\(i)") }
  }

  /// Taking members zeroes leaves and adds the sums again: the weight left is that of the
  /// members left however small it is beside what was taken (a running total less the taken
  /// weights would have lost it), and a restore gives back the first tree bit for bit.
  @Test("no drift: the weight left is summed afresh, and restore gives the first tree back")
  func noDrift() {
    // Two heavy members and a light tail 1e-13 of them.
    let logits = [0.0, 0.0] + (0..<50).map { -30 - Double($0) / 10 }
    var tree = WeightTree(members: Array(logits.indices), logits: logits)
    let first = tree.logRemaining()
    tree.take(0)
    tree.take(1)
    let tail = logits.dropFirst(2).reduce(-Double.infinity, logAddExp)
    #expect(abs(tree.logRemaining() - tail) <= 1e-14 * abs(tail))
    tree.restore()
    #expect(tree.logRemaining() == first)
    // Many rounds of draws and restores: the tree and its draws are as a fresh tree's.
    var random = RandomStream(seed: 9)
    for _ in 0..<2000 {
      for _ in 0..<random.nextInt(below: logits.count + 1) { _ = tree.draw(random.nextDouble()) }
      tree.restore()
    }
    var fresh = WeightTree(members: Array(logits.indices), logits: logits)
    var a = RandomStream(seed: 10)
    var b = RandomStream(seed: 10)
    #expect(drawAll(&tree, &a) == drawAll(&fresh, &b))
    tree.restore()
    #expect(tree.logRemaining() == first)
  }

  /// Logits 800 apart: after the heavy members, the weights left underflow to 0 at the first
  /// shift; the tree shifts again to the largest logit left and still draws in proportion.
  @Test("logits that underflow: the tree shifts to the weight left and still draws in proportion")
  func reshift() {
    let logits = [0.0, -800, -1600, -1601, -1600.5]
    var tree = WeightTree(members: Array(logits.indices), logits: logits)
    var random = RandomStream(seed: 11)
    let trials = 30_000
    var third = [Int: Int]()
    for _ in 0..<trials {
      let order = drawAll(&tree, &random)
      #expect(Array(order.prefix(2)) == [0, 1])
      third[order[2], default: 0] += 1
      tree.restore()
    }
    let total = exp(0.0) + exp(-1.0) + exp(-0.5)
    #expect(agrees(third[2] ?? 0, trials, 1 / total))
    #expect(agrees(third[3] ?? 0, trials, exp(-1.0) / total))
    #expect(agrees(third[4] ?? 0, trials, exp(-0.5) / total))
    // The log of the weight left stays exact in log space through the shift.
    tree.take(0)
    tree.take(1)
    let left = logits.dropFirst(2).reduce(-Double.infinity, logAddExp)
    #expect(abs(tree.logRemaining() - left) <= 1e-14 * abs(left))
    tree.restore()
    var fresh = WeightTree(members: [0, 1, 2, 3, 4], logits: logits)
    #expect(tree.logRemaining() == fresh.logRemaining())
  }

  @Test("one member, and none")
  func small() {
    var one = WeightTree(members: [3], logits: [1, 2, 3, -4])
    #expect(one.remaining == 1)
    #expect(one.logRemaining() == -4)
    #expect(one.members[one.draw(0.999)] == 3)
    #expect(one.remaining == 0)
    #expect(one.logRemaining() == -.infinity)
    one.restore()
    #expect(one.remaining == 1)
    var none = WeightTree(members: [], logits: [1])
    #expect(none.remaining == 0)
    #expect(none.logRemaining() == -.infinity)
  }
}

@Suite("PlackettLuce sampler: the propensities")
struct PlackettLuceEstimatorTests {
  /// Eight dishes in three categories; every swipe right, so that popularity's prior is Beta(1,
  /// 1). Diner u1 swiped b and e left yesterday: with no cooldown they are shown again, behind
  /// the rest (recently shown).
  static func menu() throws -> ExampleRunner.Fixture {
    try fixture(
      items: [
        "a:soup", "b:soup", "c:rice", "d:rice", "e:noodles", "f:noodles", "g:soup", "h:rice",
      ],
      events: [
        "u2 a right 2026-01-02", "u3 a right 2026-01-03", "u4 a right 2026-01-04",
        "u4 c right 2026-01-05", "u5 c right 2026-01-05", "u6 e right 2026-01-06",
        "u7 g right 2026-01-06", "u1 b left 2026-01-09", "u1 e left 2026-01-09",
      ])
  }

  /// The logits as the strategy computes them for these candidates (default every dish).
  static func logits(
    _ f: ExampleRunner.Fixture, temperature: Double, candidates: [Int32]? = nil
  ) throws -> [Double] {
    let base = try scores(learned("popularity", on: f), f, candidates: candidates)
    return PlackettLuceStrategy.logits(base, temperature: temperature)
  }

  /// The documented estimate, computed from the realised rankings in full: the deck's own
  /// ranking and each further draw, dealt to the end from its own stream, each contributing
  /// [i not among the draw's first k] * w_i / (sum of w over the draw from place k on), with
  /// the sums taken in log space over the whole ranking. The strategy deals each draw only as
  /// far as the deck's places: the same numbers.
  @Test("the estimate is the documented mean of terms over the draws, dealt to the end or not")
  func documentedFormula() throws {
    let f = try Self.menu()
    let n = f.catalog.count
    let samples = 9
    let s = try learned(
      "plackett-luce", ["temperature": "0.3", "samples": "\(samples)"], on: f)
    let logits = try Self.logits(f, temperature: 0.3)
    for (user, places) in [("d1", 1), ("d2", 3), ("d3", 5), ("d4", n)] {
      var c = ScoringContext(
        user: UserProfile(id: user), userHistory: nil, date: f.date,
        candidates: Array(0..<Int32(n)), seed: 42)
      c.places = places
      let got = try #require(s.score(&c).propensities)
      var random = RandomStream(seed: 42, date: f.date, user: user, purpose: "plackett-luce")
      let own = PlackettLuceStrategy.draw(logits, &random)
      var rankings = [own]
      for _ in 0..<samples {
        var stream = RandomStream(seed: random.next())
        var tree = WeightTree(members: Array(0..<n), logits: logits)
        rankings.append(drawAll(&tree, &stream))
      }
      var want = [Double](repeating: 0, count: n)
      for m in rankings {
        let tails = PlackettLuceStrategy.tails(logits, order: m)
        for k in 0..<places {
          let i = own[k]
          if !m.prefix(k).contains(i) { want[i] += exp(logits[i] - tails[k]) }
        }
      }
      for i in 0..<n {
        let w = want[i] / Double(samples + 1)
        #expect(abs(got[i] - w) <= 1e-13 * w, "\(user), dish \(i): \(got[i]) against \(w)")
        if !own.prefix(places).contains(i) { #expect(got[i] == 0) }
      }
      // Position 1 is exact: the softmax.
      #expect(abs(got[own[0]] - exp(logits[own[0]] - tailsTotal(logits))) < 1e-14)
    }
  }

  private func tailsTotal(_ logits: [Double]) -> Double {
    logits.reduce(-Double.infinity, logAddExp)
  }

  /// Under rules that move cards (a pin, two recently shown dishes, a category cap, no two
  /// neighbours alike): each further draw is dealt lazily, in the deck's key order, from the
  /// trees of the dishes not shown recently and of those shown recently. Given the same draw in
  /// full (dealt to the end), the general path of the deck builder, from scores along the whole
  /// ranking, gives the same decks: the propensities are the share of those decks.
  @Test("under rules that move cards, the lazily dealt decks are the decks of the full rankings")
  func lazyDecksAreFullDecks() throws {
    let f = try Self.menu()
    var rules = DeckRules()
    rules.size = 4
    rules.maxPerCategory = 1
    rules.cooldownDays = 0
    rules.pinned = ["h"]
    let builder = try DeckBuilder(catalog: f.catalog, rules: rules)
    let samples = 25
    let s = try learned(
      "plackett-luce", ["temperature": "0.2", "samples": "\(samples)"], on: f)
    let diner = UserProfile(id: "u1")
    let set = builder.candidates(for: diner, history: f.history.users["u1"], date: f.date)
    let candidateLogits = try Self.logits(f, temperature: 0.2, candidates: set.items)
    #expect(set.recentlyShown.filter { $0 }.count == 2)
    #expect(set.pinned.count == 1)
    let slots = try #require(builder.slots(set))
    var c = ScoringContext(
      user: diner, userHistory: f.history.users["u1"], date: f.date, candidates: set.items,
      seed: 42)
    c.deck = slots
    let got = try #require(s.score(&c).propensities)

    var random = RandomStream(seed: 42, date: f.date, user: "u1", purpose: "plackett-luce")
    let own = PlackettLuceStrategy.draw(candidateLogits, &random)
    var slot = [Int](repeating: -1, count: set.items.count)
    for (j, k) in slots.order(scoresAlong(own)).enumerated() { slot[k] = j }
    var hits = [Int](repeating: 1, count: set.items.count)
    var moved = 0
    for _ in 0..<samples {
      var stream = RandomStream(seed: random.next())
      var (unseen, recent) = PlackettLuceStrategy.keyTrees(candidateLogits, set)
      // The whole draw: the unseen dishes ranked, then the recent ones, the pin last (the
      // deck places it first whatever its score).
      let pins = set.items.indices.filter { set.pinned.contains(set.items[$0]) }
      let full = drawAll(&unseen, &stream) + drawAll(&recent, &stream) + pins
      #expect(full.count == set.items.count)
      let deck = slots.order(scoresAlong(full))
      if deck != Array(pins + full.prefix(rules.size - 1)) { moved += 1 }
      for (j, k) in deck.enumerated() where slot[k] == j { hits[k] += 1 }
    }
    #expect(moved > samples / 4, "the rules must move cards for this test to mean anything")
    #expect(got == hits.map { Double($0) / Double(samples + 1) })
  }

  /// As the strategy's third example pins its ranking, this pins its further draws: the
  /// propensities of seed 42, for the three places of a deck that keeps the order and for the
  /// cards of one that moves them. A change in how the draws use the stream fails here.
  @Test("seed 42 pins the further draws (a change of algorithm fails here)")
  func pinned() throws {
    let f = try Self.menu()
    let s = try learned("plackett-luce", ["samples": "20", "temperature": "0.5"], on: f)
    var c = ScoringContext(
      user: UserProfile(id: "u9"), userHistory: nil, date: f.date, candidates: Array(0..<8),
      seed: 42)
    c.places = 3
    let kept = s.score(&c)
    let values: [Double] = [2, 4, 6, 8, 7, 1, 5, 3]
    let propensities: [Double] = [
      0, 0, 0.13680216548274068, 0.12456739064154237, 0.11105473506187118, 0, 0, 0,
    ]
    #expect(kept.values == values)
    #expect(kept.propensities == propensities)
    var rules = DeckRules()
    rules.size = 3
    rules.maxPerCategory = 1
    rules.cooldownDays = 0
    let builder = try DeckBuilder(catalog: f.catalog, rules: rules)
    let diner = UserProfile(id: "u1")
    let set = builder.candidates(for: diner, history: f.history.users["u1"], date: f.date)
    var d = ScoringContext(
      user: diner, userHistory: f.history.users["u1"], date: f.date, candidates: set.items,
      seed: 42)
    d.deck = builder.slots(set)
    let moved = s.score(&d)
    let deck = builder.assemble(
      user: "u1", date: f.date, candidates: set, scores: moved.values,
      propensities: moved.propensities)
    #expect(deck.cards.map { f.catalog[$0.item].id } == ["g", "f", "c"])
    let shares: [Double?] = [2.0 / 21, 4.0 / 21, 1.0 / 21]
    #expect(deck.cards.map(\.propensity) == shares)
  }

  /// The deck of the deck's own draw, handed over in key order, is the deck of its scores
  /// (a pin and two dishes shown recently among the candidates).
  @Test("the own draw's deck, handed over in key order, is that of its scores")
  func ownDeck() throws {
    let f = try Self.menu()
    var rules = DeckRules()
    rules.size = 4
    rules.maxPerCategory = 1
    rules.cooldownDays = 0
    rules.pinned = ["c"]
    let builder = try DeckBuilder(catalog: f.catalog, rules: rules)
    let set = builder.candidates(
      for: UserProfile(id: "u1"), history: f.history.users["u1"], date: f.date)
    #expect(set.recentlyShown.filter { $0 }.count == 2)
    let slots = try #require(builder.slots(set))
    let logits = try Self.logits(f, temperature: 0.4, candidates: set.items)
    var random = RandomStream(seed: 14)
    for _ in 0..<300 {
      let order = PlackettLuceStrategy.draw(logits, &random)
      #expect(PlackettLuceStrategy.deckOrder(of: order, slots) == slots.order(scoresAlong(order)))
    }
  }

  /// The lazily dealt deck has the distribution of the deck of a Plackett-Luce ranking: over
  /// every one of the 8! rankings of the menu, each with its exact probability, the decks the
  /// rules make of them; against the frequencies of 40,000 lazily dealt decks.
  @Test("the lazily dealt decks follow the exact distribution of decks over all rankings")
  func deckDistribution() throws {
    let f = try Self.menu()
    var rules = DeckRules()
    rules.size = 3
    rules.maxPerCategory = 1
    rules.cooldownDays = 0
    let builder = try DeckBuilder(catalog: f.catalog, rules: rules)
    let set = builder.candidates(
      for: UserProfile(id: "u1"), history: f.history.users["u1"], date: f.date)
    let slots = try #require(builder.slots(set))
    let candidateLogits = try Self.logits(f, temperature: 0.5, candidates: set.items)
    let n = set.items.count
    #expect(n == 8)
    var exact: [[Int]: Double] = [:]
    for order in permutations(n) {
      exact[slots.order(scoresAlong(order)), default: 0] += probability(of: order, candidateLogits)
    }
    #expect(abs(exact.values.reduce(0, +) - 1) < 1e-9)
    var (unseen, recent) = PlackettLuceStrategy.keyTrees(candidateLogits, set)
    var random = RandomStream(seed: 12)
    let trials = 40_000
    var count: [[Int]: Int] = [:]
    for _ in 0..<trials {
      let deck = slots.order(keyOrder: {
        PlackettLuceStrategy.nextInKeyOrder(&unseen, &recent, &random)
      })
      count[deck, default: 0] += 1
      unseen.restore()
      recent.restore()
    }
    #expect(Set(count.keys).isSubset(of: Set(exact.keys)))
    var checked = 0
    for (deck, p) in exact where p > 0.002 {
      #expect(agrees(count[deck] ?? 0, trials, p), "\(deck): \(count[deck] ?? 0) against \(p)")
      checked += 1
    }
    #expect(checked >= 20)
  }
}
