import DeckCore
import Foundation
import Testing

@testable import DeckStrategies

/// Brute force: every prefix of every order of n candidates, with its probability under a
/// sequential rule `step(prefix, c)` = P(c next | prefix), written here independently of
/// `RankingPolicy`. `visit` sees each prefix (the empty one too), the probabilities of its
/// own prefixes along the way (one per card), and the full orders once more at the end.
private func enumerate(
  _ n: Int, step: ([Int], Int) -> Double, visit: (_ prefix: [Int], _ path: [Double]) -> Void
) {
  func walk(_ prefix: [Int], _ path: [Double]) {
    visit(prefix, path)
    guard prefix.count < n else { return }
    for c in 0..<n where !prefix.contains(c) {
      walk(prefix + [c], path + [(path.last ?? 1) * step(prefix, c)])
    }
  }
  walk([], [])
}

/// The rules of the three policies, from their definitions.
private func uniformStep(_ n: Int) -> ([Int], Int) -> Double {
  { prefix, _ in 1 / Double(n - prefix.count) }
}

private func plackettLuceStep(_ logits: [Double]) -> ([Int], Int) -> Double {
  let w = logits.map { exp($0) }
  return { prefix, c in
    let left = w.indices.filter { !prefix.contains($0) }
    return w[c] / left.reduce(0) { $0 + w[$1] }
  }
}

private func epsilonGreedyStep(_ greedy: [Int], _ epsilon: Double) -> ([Int], Int) -> Double {
  { prefix, c in
    let left = greedy.filter { !prefix.contains($0) }
    return (c == left[0] ? 1 - epsilon : 0) + epsilon / Double(left.count)
  }
}

/// What enumeration says of a policy: P(prefix) for every prefix (summed over the full orders
/// that start with it, not multiplied along it) and the marginal matrix.
private struct Enumerated {
  var prefix: [[Int]: Double] = [:]
  var marginals: [[Double]]

  init(_ n: Int, step: ([Int], Int) -> Double) {
    marginals = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
    var prefix: [[Int]: Double] = [:]
    var marginals = self.marginals
    enumerate(n, step: step) { order, path in
      guard order.count == n else { return }
      let p = path.last ?? 1
      for k in 0...n { prefix[Array(order.prefix(k)), default: 0] += p }
      for (k, c) in order.enumerated() { marginals[k][c] += p }
    }
    self.prefix = prefix
    self.marginals = marginals
  }
}

/// The greedy orders tried: the identity and a scrambled one.
private func greedyOrders(_ n: Int) -> [[Int]] {
  let scrambled = (0..<n).map { (n - 1 - $0 + 2) % n }
  return n > 1 ? [Array(0..<n), scrambled] : [Array(0..<n)]
}

/// The largest deviation of `estimate` from `truth` in standard errors, for rows `rows` of
/// frequencies from `draws` draws (plus, when given, the Monte Carlo noise of `truth` itself
/// from `truthSamples` samples; per-sample terms lie in [0, 1], so their variance is at most
/// q (1 - q)). Entries with q 0 or 1 must match to 1e-12.
private func largestZ(
  _ estimate: [[Double]], _ truth: [[Double]], draws: Int, truthSamples: Int? = nil
) -> Double {
  var worst = 0.0
  for (k, row) in truth.enumerated() {
    for (c, q) in row.enumerated() {
      let variance =
        q * (1 - q) / Double(draws) + (truthSamples.map { q * (1 - q) / Double($0) } ?? 0)
      let gap = abs(estimate[k][c] - q)
      let z = variance > 1e-15 ? gap / variance.squareRoot() : (gap < 1e-12 ? 0 : .infinity)
      worst = max(worst, z)
    }
  }
  return worst
}

@Suite("ranking policy")
struct RankingPolicyTests {
  static let epsilons = [0, 0.1, 0.5, 1]

  /// `next`, `prefixProbabilities` and `marginals` of `policy` against enumeration (exact
  /// policies: marginals to 1e-12 for every number of places).
  func checkExact(_ policy: RankingPolicy, step: @escaping ([Int], Int) -> Double) {
    let n = policy.candidateCount
    let truth = Enumerated(n, step: step)
    for row in truth.marginals { #expect(abs(row.reduce(0, +) - 1) < 1e-12) }
    var random = RandomStream(seed: 9)
    var untouched = random
    for positions in [0, 1, 3, n, n + 5] {
      let m = policy.marginals(positions: positions, samples: 1, random: &random)
      #expect(m.count == min(positions, n))
      var worst = 0.0
      for (k, row) in m.enumerated() {
        #expect(row.count == n)
        worst = max(worst, abs(row.reduce(0, +) - 1))
        for c in 0..<n { worst = max(worst, abs(row[c] - truth.marginals[k][c])) }
      }
      #expect(worst < 1e-12, "\(policy), \(positions) places")
    }
    #expect(random.next() == untouched.next(), "exact marginals take no draws")
    checkSequential(policy, step: step, truth: truth)
  }

  /// `next` and `prefixProbabilities` of every prefix against enumeration and the rule: the
  /// largest deviations, with a prefix where each occurs.
  private func checkSequential(
    _ policy: RankingPolicy, step: @escaping ([Int], Int) -> Double, truth: Enumerated
  ) {
    let n = policy.candidateCount
    var prefixError = (0.0, [Int]())  // relative to the product along the prefix
    var summedError = (0.0, [Int]())  // against the sum over the orders that start with it
    var nextError = (0.0, [Int]())  // against the rule, the enumerated conditional, 0 if placed
    var prefixes = 0
    enumerate(n, step: step) { prefix, path in
      prefixes += 1
      let probabilities = policy.prefixProbabilities(prefix)
      guard probabilities.count == prefix.count else {
        prefixError = (.infinity, prefix)
        return
      }
      for (k, p) in probabilities.enumerated() {
        let e = abs(p - path[k]) / max(path[k], 1e-300)
        if e > prefixError.0 { prefixError = (e, prefix) }
        let s = abs(p - truth.prefix[Array(prefix.prefix(k + 1))]!)
        if s > summedError.0 { summedError = (s, prefix) }
      }
      let next = policy.next(after: prefix)
      guard next.count == n else {
        nextError = (.infinity, prefix)
        return
      }
      let mass = truth.prefix[prefix]!
      var e = abs(next.reduce(0, +) - (prefix.count < n ? 1 : 0))
      for c in 0..<n {
        if prefix.contains(c) {
          e = max(e, abs(next[c]))
        } else {
          e = max(e, abs(next[c] - step(prefix, c)))
          // Where the prefix can happen, the conditional of the enumerated orders.
          if mass > 0 { e = max(e, abs(next[c] - truth.prefix[prefix + [c]]! / mass)) }
        }
      }
      if e > nextError.0 { nextError = (e, prefix) }
    }
    #expect(prefixes == (0...n).reduce(0) { sum, k in sum + (0..<k).reduce(1) { $0 * (n - $1) } })
    #expect(prefixError.0 < 1e-12, "\(policy): prefix \(prefixError.1)")
    #expect(summedError.0 < 1e-12, "\(policy): prefix \(summedError.1)")
    #expect(nextError.0 < 1e-12, "\(policy): after \(nextError.1)")
  }

  @Test("uniform: next, prefix probabilities and marginals match all n! orders, n up to 7")
  func uniform() {
    for n in 0...7 { checkExact(.uniform(count: n), step: uniformStep(n)) }
    #expect(RankingPolicy.uniform(count: 7).isExact)
  }

  @Test(
    "epsilon-greedy: the dynamic programme's marginals, prefix probabilities and next match all n! orders, n up to 7",
    arguments: epsilons)
  func epsilonGreedy(_ epsilon: Double) {
    for n in 0...7 {
      for greedy in greedyOrders(n) {
        let policy = RankingPolicy.epsilonGreedy(greedy: greedy, epsilon: epsilon)
        checkExact(policy, step: epsilonGreedyStep(greedy, epsilon))
        #expect(policy.isExact)
        // The place probabilities of any order are its entries of the marginals.
        let order = Array(greedy.reversed())
        var random = RandomStream(seed: 1)
        let m = policy.marginals(positions: n, samples: 1, random: &random)
        #expect(policy.placeProbabilities(order) == order.enumerated().map { m[$0][$1] })
      }
    }
  }

  @Test("epsilon-greedy at epsilon 0 is the greedy order, and next is the rule after any prefix")
  func greedyOnly() {
    let policy = RankingPolicy.epsilonGreedy(greedy: [2, 0, 3, 1], epsilon: 0)
    var random = RandomStream(seed: 1)
    let m = policy.marginals(positions: 4, samples: 1, random: &random)
    #expect(m == [[0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0]])
    #expect(policy.prefixProbabilities([2, 0, 3, 1]) == [1, 1, 1, 1])
    #expect(policy.prefixProbabilities([2, 3, 0]) == [1, 0, 0])
    // After [2, 3], of probability 0, the rule still says: the best of those left.
    #expect(policy.next(after: [2, 3]) == [1, 0, 0, 0])
    #expect(policy.next(after: [2, 3, 0, 1]) == [0, 0, 0, 0])
  }

  @Test("Plackett-Luce: prefix probabilities and next match all orders and the formula")
  func plackettLuceSequential() {
    let logits = [0.8, -1.0 / 3, -1, 0.2, -2, 0.5]
    for n in 0...6 {
      let policy = RankingPolicy.plackettLuce(logits: Array(logits.prefix(n)))
      let step = plackettLuceStep(Array(logits.prefix(n)))
      checkSequential(policy, step: step, truth: Enumerated(n, step: step))
    }
  }

  /// log P(prefix) = sum of logit - log(sum of exp(logits) left), directly (weights up to e^700
  /// are finite doubles).
  static func logFormula(_ logits: [Double], _ ranking: [Int]) -> [Double] {
    var left = Set(logits.indices)
    var sum = 0.0
    return ranking.map { c in
      sum += logits[c] - log(left.reduce(0) { $0 + exp(logits[$1]) })
      left.remove(c)
      return sum
    }
  }

  @Test("Plackett-Luce with logits spanning e^-700 to e^700: the formula, shifted logits agree")
  func plackettLuceStable() {
    let logits = [700, -700, 0, 350, -350, 699.5]
    var orders: [[Int]] = []
    enumerate(6, step: uniformStep(6)) { prefix, _ in
      if prefix.count == 6 { orders.append(prefix) }
    }
    #expect(orders.count == 720)
    let policy = RankingPolicy.plackettLuce(logits: logits)
    var positive = 0
    for order in orders {
      let p = policy.prefixProbabilities(order)
      let formula = Self.logFormula(logits, order)
      for k in 0..<6 {
        #expect(p[k].isFinite && p[k] >= 0 && p[k] <= 1)
        #expect(abs(p[k] - exp(formula[k])) <= 1e-12 * exp(formula[k]) + 1e-300, "\(order) \(k)")
        if p[k] > 1e-300 { positive += 1 }
        // A prefix alone has the same probabilities (summed in another order).
        let alone = policy.prefixProbabilities(Array(order.prefix(k + 1)))
        #expect(abs(alone[k] - p[k]) <= 1e-12 * p[k] + 1e-300)
      }
      // Weights e^1300 and e^-1300 are out of range of a double; the log-space sums are not.
      for shift in [600.0, -600.0] {
        let shifted = RankingPolicy.plackettLuce(logits: logits.map { $0 + shift })
        for (a, b) in zip(shifted.prefixProbabilities(order), p) {
          #expect(abs(a - b) <= 1e-10 * b + 1e-300)
        }
      }
    }
    #expect(positive > 500)  // many prefixes do not underflow: the test compares numbers
    for shift in [0.0, 600, -600] {
      let next = RankingPolicy.plackettLuce(logits: logits.map { $0 + shift }).next(after: [0])
      #expect(next.allSatisfy { $0.isFinite })
      #expect(abs(next[5] - 1 / (1 + exp(-349.5))) < 1e-12)
      #expect(abs(next.reduce(0, +) - 1) < 1e-12)
    }
  }

  @Test(
    "Plackett-Luce marginals: exact first place, Monte Carlo later places within 4 standard errors of all orders, n up to 6"
  )
  func plackettLuceMarginals() {
    let logits = [0.8, -1.0 / 3, -1, 0.2, -2, 0.5]
    let samples = 20_000
    for n in 1...6 {
      let policy = RankingPolicy.plackettLuce(logits: Array(logits.prefix(n)))
      #expect(policy.isExact == (n <= 2))
      let truth = Enumerated(n, step: plackettLuceStep(Array(logits.prefix(n)))).marginals
      var random = RandomStream(seed: 2026)
      let m = policy.marginals(positions: n, samples: samples, random: &random)
      #expect(m.count == n)
      for row in m { #expect(abs(row.reduce(0, +) - 1) < 1e-9) }
      for c in 0..<n { #expect(abs(m[0][c] - truth[0][c]) < 1e-12) }
      #expect(largestZ(m, truth, draws: samples) < 4)
      if n > 2 {
        // The test has the power to tell: the uniform marginals are far outside.
        let uniform = [[Double]](
          repeating: [Double](repeating: 1 / Double(n), count: n), count: n)
        #expect(largestZ(m, uniform, draws: samples) > 8)
        // The draws are `samples` Plackett-Luce rankings of the stream.
        var again = RandomStream(seed: 2026)
        for _ in 0..<samples { _ = PlackettLuceStrategy.draw(policy.logits, &again) }
        #expect(random.next() == again.next())
      } else {
        for k in 0..<n {
          for c in 0..<n { #expect(abs(m[k][c] - truth[k][c]) < 1e-12) }
        }
        var fresh = RandomStream(seed: 2026)
        #expect(random.next() == fresh.next(), "no draws when exact")
      }
      // Only the places asked for; one place takes no draws.
      var one = RandomStream(seed: 3)
      #expect(policy.marginals(positions: 1, samples: samples, random: &one) == [m[0]])
      var three = RandomStream(seed: 3)
      #expect(one.next() == three.next())
      var two = RandomStream(seed: 2026)
      #expect(policy.marginals(positions: 2, samples: samples, random: &two) == Array(m.prefix(2)))
    }
  }

  @Test("prefix probabilities and next refuse nothing valid: empty rankings and policies")
  func empty() {
    for policy in [
      RankingPolicy.uniform(count: 0), .plackettLuce(logits: []),
      .epsilonGreedy(greedy: [], epsilon: 0.3),
    ] {
      var random = RandomStream(seed: 1)
      #expect(policy.candidateCount == 0)
      #expect(policy.next(after: []) == [])
      #expect(policy.prefixProbabilities([]) == [])
      #expect(policy.marginals(positions: 4, samples: 1, random: &random) == [])
    }
  }
}

extension RankingPolicy {
  fileprivate var logits: [Double] {
    if case .plackettLuce(let logits) = self { return logits }
    return []
  }
}

/// For each randomising strategy, the policy it returns is the distribution it draws from:
/// over many seeds, the frequencies of its first and second places are its marginals.
@Suite("strategies' ranking policies")
struct StrategyPolicyTests {
  /// Popularity a 3/4, b 2/3, c and d 1/2 (a tie, by catalog order), e 1/4.
  static func menu() throws -> ExampleRunner.Fixture {
    try fixture(
      items: ["a:soup", "b:rice", "c:noodles", "d:fried", "e:side"],
      events: [
        "u2 a right 2026-01-02", "u3 a right 2026-01-03", "u4 b right 2026-01-04",
        "u5 e left 2026-01-05", "u6 e left 2026-01-06",
      ])
  }

  static let seeds = 20_000

  /// The order the deck takes from scores: descending, ties by candidate order.
  static func order(_ values: [Double]) -> [Int] {
    values.indices.sorted { values[$0] != values[$1] ? values[$0] > values[$1] : $0 < $1 }
  }

  /// Scores the strategy for `seeds` seeds with `wantsPolicy`; checks, per diner, that the
  /// policy is the same and the prefix propensities are its prefix probabilities of the order
  /// drawn; returns the policy and the frequencies of every place.
  static func sample(
    _ strategy: any BuiltinStrategy, _ f: ExampleRunner.Fixture, candidates: [Int32],
    check: (Scores, [Int]) -> Void = { _, _ in }
  ) throws -> (policy: RankingPolicy, frequencies: [[Double]]) {
    let n = candidates.count
    var count = [[Int]](repeating: [Int](repeating: 0, count: n), count: n)
    var policy: RankingPolicy?
    for seed in 0..<UInt64(seeds) {
      var context = ScoringContext(
        user: UserProfile(id: "d"), userHistory: nil, date: f.date, candidates: candidates,
        seed: seed)
      context.wantsPolicy = true
      let scores = strategy.score(&context)
      let drawn = try #require(scores.policy)
      if policy == nil { policy = drawn }
      #expect(drawn == policy)
      let order = Self.order(scores.values)
      let prefix = drawn.prefixProbabilities(order)
      let expected = (0..<n).map { c in prefix[order.firstIndex(of: c)!] }
      #expect(scores.prefixPropensities == expected)
      for (k, c) in order.enumerated() { count[k][c] += 1 }
      check(scores, order)
    }
    let frequencies = count.map { $0.map { Double($0) / Double(seeds) } }
    return (try #require(policy), frequencies)
  }

  @Test("random: uniform over orders, also for a subset of the catalog")
  func random() throws {
    let f = try Self.menu()
    let s = try learned("random", on: f)
    for candidates: [Int32] in [[0, 1, 2, 3, 4], [1, 3, 4]] {
      let (policy, frequencies) = try Self.sample(s, f, candidates: candidates)
      #expect(policy == .uniform(count: candidates.count))
      var r = RandomStream(seed: 1)
      let m = policy.marginals(positions: 2, samples: 1, random: &r)
      #expect(m.count == 2)
      #expect(largestZ(frequencies, m, draws: Self.seeds) < 4)
      let all = policy.marginals(positions: candidates.count, samples: 1, random: &r)
      #expect(largestZ(frequencies, all, draws: Self.seeds) < 4)
      // Power: a policy that favours the first candidate is told apart.
      let skewed = RankingPolicy.epsilonGreedy(
        greedy: Array(0..<candidates.count), epsilon: 0.5
      ).marginals(positions: 2, samples: 1, random: &r)
      #expect(largestZ(frequencies, skewed, draws: Self.seeds) > 8)
    }
  }

  @Test("epsilon-greedy: its policy, ties by catalog order, and exact marginal propensities")
  func epsilonGreedy() throws {
    let f = try Self.menu()
    for epsilon in ["0.5", "0.1"] {
      let s = try learned("epsilon-greedy", ["epsilon": epsilon], on: f)
      let e = Double(epsilon)!
      let policy = RankingPolicy.epsilonGreedy(greedy: [0, 1, 2, 3, 4], epsilon: e)
      var r = RandomStream(seed: 1)
      let m = policy.marginals(positions: 5, samples: 1, random: &r)
      let (drawn, frequencies) = try Self.sample(s, f, candidates: [0, 1, 2, 3, 4]) {
        scores, order in
        let p = scores.propensities!
        for (k, c) in order.enumerated() { #expect(abs(p[c] - m[k][c]) < 1e-15) }
      }
      #expect(drawn == policy)
      #expect(largestZ(frequencies, Array(m.prefix(2)), draws: Self.seeds) < 4)
      // Exact for every place, so every place is checked too.
      #expect(largestZ(frequencies, m, draws: Self.seeds) < 4)
      let uniform = [[Double]](repeating: [Double](repeating: 0.2, count: 5), count: 2)
      #expect(largestZ(frequencies, uniform, draws: Self.seeds) > 8)
      // Ties (c and d) go by catalog order: the swapped policy is told apart at epsilon 0.1,
      // at the third and fourth places (the first two treat c and d alike).
      if e < 0.2 {
        let swapped = RankingPolicy.epsilonGreedy(greedy: [0, 1, 3, 2, 4], epsilon: e)
          .marginals(positions: 5, samples: 1, random: &r)
        #expect(largestZ(frequencies, swapped, draws: Self.seeds) > 8)
      }
    }
    // Epsilon 0: every card carries 1, and so does every prefix.
    let greedy = try learned("epsilon-greedy", ["epsilon": "0"], on: f)
    var context = ScoringContext(
      user: UserProfile(id: "u1"), userHistory: nil, date: f.date, candidates: [0, 2, 3, 4],
      seed: 42)
    let scores = greedy.score(&context)
    #expect(scores.propensities == [1, 1, 1, 1])
    #expect(scores.prefixPropensities == [1, 1, 1, 1])
    #expect(scores.policy == nil, "not asked for")
  }

  @Test("plackett-luce: its policy is the softmax of its logits, and the draws follow it")
  func plackettLuce() throws {
    let f = try Self.menu()
    let s = try learned("plackett-luce", ["temperature": "0.25", "samples": "1"], on: f)
    let (policy, frequencies) = try Self.sample(s, f, candidates: [0, 1, 2, 3, 4])
    // (popularity - its best) / 0.25, popularity as the base strategy scores the menu.
    let base = try scores(learned("popularity", on: f), f)
    let logits = base.map { ($0 - base.max()!) / 0.25 }
    guard case .plackettLuce(let got) = policy else {
      Issue.record("not a Plackett-Luce policy: \(policy)")
      return
    }
    for (a, b) in zip(got, logits) { #expect(abs(a - b) < 1e-12) }
    let samples = 200_000
    var r = RandomStream(seed: 11)
    let m = policy.marginals(positions: 2, samples: samples, random: &r)
    #expect(largestZ(frequencies, m, draws: Self.seeds, truthSamples: samples) < 4)
    let uniform = [[Double]](repeating: [Double](repeating: 0.2, count: 5), count: 2)
    #expect(largestZ(frequencies, uniform, draws: Self.seeds) > 8)
  }

  @Test("deck rules that may move cards: no policy and no prefix propensities")
  func movedCards() throws {
    let f = try Self.menu()
    let builder = try DeckBuilder(catalog: f.catalog, rules: DeckRules())
    let set = builder.candidates(for: UserProfile(id: "u1"), history: nil, date: f.date)
    let deck = try #require(builder.slots(set), "the default rules may move cards")
    for (id, options) in [
      ("random", [:]), ("epsilon-greedy", ["epsilon": "0.5"]),
      ("plackett-luce", ["samples": "3"]),
    ] {
      let s = try learned(id, options, on: f)
      var context = ScoringContext(
        user: UserProfile(id: "u1"), userHistory: nil, date: f.date, candidates: set.items,
        seed: 42)
      context.deck = deck
      var asking = context
      asking.wantsPolicy = true
      let plain = s.score(&context)
      let asked = s.score(&asking)
      #expect(asked.policy == nil, "\(id)")
      #expect(asked.prefixPropensities == nil, "\(id)")
      #expect(asked == plain, "\(id): asking for the policy changes nothing else")
      #expect(asking.random.next() == context.random.next())
      if id == "epsilon-greedy" { #expect(asked.propensities == nil) }
    }
  }

  @Test("asking for the policy changes neither the scores nor the diner's stream")
  func askingChangesNothingElse() throws {
    let f = try Self.menu()
    for (id, options) in [
      ("random", [:]), ("epsilon-greedy", ["epsilon": "0.5"]),
      ("plackett-luce", ["samples": "3"]),
    ] {
      let s = try learned(id, options, on: f)
      for user in ["u1", "u2", "zoe"] {
        var context = ScoringContext(
          user: UserProfile(id: user), userHistory: nil, date: f.date, candidates: [0, 1, 3, 4],
          seed: 7)
        var asking = context
        asking.wantsPolicy = true
        let plain = s.score(&context)
        var asked = s.score(&asking)
        #expect(plain.policy == nil)
        #expect(asked.policy != nil)
        #expect(plain.prefixPropensities != nil, "prefix propensities come without asking")
        asked.policy = nil
        if id == "plackett-luce" {
          // With the distribution at hand, plackett-luce skips estimating its propensities.
          #expect(asked.propensities == nil && plain.propensities != nil)
          asked.propensities = plain.propensities
        }
        #expect(asked == plain)
        #expect(asking.random.next() == context.random.next())
      }
    }
  }

  @Test("the three strategies' examples still give their expected orders")
  func examples() throws {
    for type in [
      RandomStrategy.self, EpsilonGreedyStrategy.self, PlackettLuceStrategy.self,
    ] as [any BuiltinStrategy.Type] {
      for example in type.description.examples {
        let outcome = try ExampleRunner.run(example, strategy: type.description.identifier)
        #expect(outcome.passed, "\(example.summary): \(outcome.mismatch ?? "")")
      }
    }
  }

  @Test("epsilon-greedy propensities stay in (0, 1] for many candidates")
  func manyCandidates() throws {
    let items = (0..<60).map { "d\($0):c\($0 % 5)" }
    let events = (0..<60).flatMap { i in
      (0..<(i % 7)).map { "v\($0) d\(i) \($0 % 2 == 0 ? "right" : "left") 2026-01-0\($0 + 1)" }
    }
    let f = try fixture(items: items, events: events)
    let s = try learned("epsilon-greedy", ["epsilon": "0.3"], on: f)
    var context = ScoringContext(
      user: UserProfile(id: "u1"), userHistory: nil, date: f.date,
      candidates: (0..<60).map { $0 }, seed: 3)
    let scores = s.score(&context)
    let p = try #require(scores.propensities)
    #expect(p.allSatisfy { $0 > 0 && $0 <= 1 })
    let prefix = try #require(scores.prefixPropensities)
    let order = Self.order(scores.values)
    // Prefix probabilities fall along the order.
    #expect(zip(order, order.dropFirst()).allSatisfy { prefix[$0] >= prefix[$1] })
  }
}
