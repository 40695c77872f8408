import DeckBase
import DeckCore

/// A strategy's ranking of its candidates as a probability distribution over orders, for
/// off-policy evaluation: a randomising strategy is the distribution it draws its ranking from,
/// not the one ranking it happened to draw.
///
/// Candidates are indices `0..<n` into `ScoringContext.candidates`; a ranking (or its beginning,
/// a prefix) lists distinct candidates, first place first. Each case is a sequential rule: given
/// the candidates already placed, `next(after:)` is the distribution of the next one, and the
/// probability of a prefix is the product of those conditionals along it.
///
/// What is exact: `next` and `prefixProbabilities` always. `marginals` (P(candidate c at place
/// k)) is exact for `uniform`, for `epsilonGreedy` (a dynamic programme, below), for
/// `rankings` (a sum over its orders) and for `plackettLuce` at the first place and with at
/// most two candidates; for Plackett-Luce's later places with more candidates it is a Monte
/// Carlo estimate, as exact marginals cost time exponential in n in general. `isExact` says
/// which.
///
/// The first three cases rank every candidate, so their probabilities of the next place sum
/// to 1 while candidates remain. `rankings` may end an order early (the deck ends there) and
/// may leave probability to no order at all (no deck): its probabilities of the next place,
/// and its marginals at a place, sum to at most 1, the rest being the deck ending before.
package enum RankingPolicy: Sendable, Equatable {
  /// Every order of `count` candidates equally likely (the random strategy).
  case uniform(count: Int)
  /// Plackett-Luce: candidate c has weight exp(logits[c]); each place takes a remaining
  /// candidate in proportion to its weight (the plackett-luce strategy). Logits are finite; they
  /// may span e^±700 and more, as every sum of weights is taken in log space.
  case plackettLuce(logits: [Double])
  /// Per place: with probability 1 - epsilon the first remaining candidate of `greedy` (a
  /// permutation of 0..<n, best first), else (epsilon) one chosen uniformly among those left
  /// (the epsilon-greedy strategy).
  case epsilonGreedy(greedy: [Int], epsilon: Double)
  /// A finite distribution over orders (a plugin's `rankings` policy): each order of
  /// `RankingDistribution` has its probability, and the rest of 1 is no deck.
  case rankings(RankingDistribution)

  /// The number of candidates n.
  package var candidateCount: Int {
    switch self {
    case .uniform(let count): count
    case .plackettLuce(let logits): logits.count
    case .epsilonGreedy(let greedy, _): greedy.count
    case .rankings(let d): d.candidateCount
    }
  }

  /// Whether `marginals` is exact for every number of places: false only for Plackett-Luce
  /// with more than two candidates, whose places after the first are estimated. (With two, the
  /// second place is the first one's complement.)
  package var isExact: Bool {
    if case .plackettLuce(let logits) = self { return logits.count <= 2 }
    return true
  }

  /// The distribution of the next place given that the ranking starts with `placed` (distinct
  /// candidates): n entries, P(candidate c comes next | the prefix), 0 for the placed ones,
  /// summing to 1 (to rounding) while candidates remain and all 0 when none do; for
  /// `rankings`, to at most 1 (the rest: the deck ends after the prefix), and all 0 after a
  /// prefix of probability 0 (see `RankingDistribution.next`).
  ///
  /// With r candidates left: uniform gives each 1/r; Plackett-Luce gives c
  /// exp(logits[c]) / (sum of exp(logits) over those left); epsilon-greedy gives the first of
  /// `greedy` left 1 - epsilon (r - 1) / r and every other one epsilon / r. That is the rule
  /// for any prefix, so it is defined even after a prefix of probability 0 (epsilon 0 and a
  /// prefix off the greedy order: the greedy choice among those left gets 1).
  package func next(after placed: [Int]) -> [Double] {
    let n = candidateCount
    let isPlaced = Self.placedMask(placed, count: n)
    let left = n - placed.count
    var out = [Double](repeating: 0, count: n)
    guard left > 0 else { return out }
    switch self {
    case .uniform:
      for c in 0..<n where !isPlaced[c] { out[c] = 1 / Double(left) }
    case .plackettLuce(let logits):
      var total = -Double.infinity
      for c in 0..<n where !isPlaced[c] { total = logAddExp(total, logits[c]) }
      for c in 0..<n where !isPlaced[c] { out[c] = exp(logits[c] - total) }
    case .epsilonGreedy(let greedy, let epsilon):
      Self.checkPermutation(greedy)
      for c in 0..<n where !isPlaced[c] { out[c] = epsilon / Double(left) }
      let best = greedy.first { !isPlaced[$0] }!
      out[best] = Self.greedyPick(epsilon, left: left)
    case .rankings(let d):
      for (c, p) in d.next(after: placed) { out[c] = p }
    }
    return out
  }

  /// For each k, the probability that the ranking starts with `ranking[0...k]` (distinct
  /// candidates, any number up to n): the running product of `next` along the prefix, in
  /// O(n) for the whole prefix.
  ///
  /// Plackett-Luce is summed in log space: with T_k the log of the total weight of the
  /// candidates not among `ranking[0..<k]` (a log-sum-exp from the end of the prefix, over the
  /// candidates it leaves out first), log P(prefix to k) = sum over k' <= k of
  /// logits[ranking[k']] - T_k'. Only the final exp can underflow, to the 0 that the
  /// probability rounds to. Epsilon-greedy walks a pointer along `greedy` past the placed
  /// candidates, to know the greedy choice at each place. `rankings` narrows its sorted orders
  /// to those that begin with the prefix, one place at a time, in O(n log m) for m orders.
  package func prefixProbabilities(_ ranking: [Int]) -> [Double] {
    let n = candidateCount
    let isPlaced = Self.placedMask(ranking, count: n)
    var out: [Double] = []
    out.reserveCapacity(ranking.count)
    switch self {
    case .uniform:
      var p = 1.0
      for k in ranking.indices {
        p /= Double(n - k)
        out.append(p)
      }
    case .plackettLuce(let logits):
      // tail[k] = T_k: the candidates left out of the prefix, then ranking[k...].
      var rest = -Double.infinity
      for c in 0..<n where !isPlaced[c] { rest = logAddExp(rest, logits[c]) }
      var tail = [Double](repeating: rest, count: ranking.count + 1)
      for k in stride(from: ranking.count - 1, through: 0, by: -1) {
        tail[k] = logAddExp(tail[k + 1], logits[ranking[k]])
      }
      var logP = 0.0
      for (k, c) in ranking.enumerated() {
        logP += logits[c] - tail[k]
        out.append(exp(logP))
      }
    case .epsilonGreedy(let greedy, let epsilon):
      Self.checkPermutation(greedy)
      var done = [Bool](repeating: false, count: n)
      var best = 0  // index into greedy of the first candidate not yet placed
      var p = 1.0
      for (k, c) in ranking.enumerated() {
        while done[greedy[best]] { best += 1 }
        let left = n - k
        p *= c == greedy[best] ? Self.greedyPick(epsilon, left: left) : epsilon / Double(left)
        done[c] = true
        out.append(p)
      }
    case .rankings(let d):
      out = d.prefixProbabilities(ranking)
    }
    return out
  }

  /// The marginal matrix: `result[k][c]` = P(candidate c at place k), for k in
  /// 0..<min(positions, n). Every row sums to 1 (to rounding), or for `rankings` to the
  /// probability of an order that reaches place k.
  ///
  /// - uniform: 1/n everywhere. No draws.
  /// - plackettLuce: place 0 exactly, the softmax of the logits; with two candidates place 1
  ///   exactly (the other one's first-place probability). Later places with more candidates:
  ///   the Rao-Blackwellised Monte Carlo estimate of `PlackettLuceStrategy.marginals` from
  ///   `samples` rankings drawn from `random` (the mean over draws of each candidate's
  ///   conditional probability of coming at place k given the draw's first k cards). Draws are
  ///   taken only when such a place is asked for.
  /// - epsilonGreedy: exact, by the dynamic programme of `GreedyPlaces` in O(K^2 + K n) for
  ///   K places. No draws.
  /// - rankings: exact, the sum over its orders of each one's probability at the candidate it
  ///   has at each place, in O(K m) for m orders. No draws.
  package func marginals(positions: Int, samples: Int, random: inout RandomStream) -> [[Double]] {
    let n = candidateCount
    let places = max(0, min(positions, n))
    switch self {
    case .uniform:
      return [[Double]](repeating: [Double](repeating: 1 / Double(n), count: n), count: places)
    case .plackettLuce(let logits):
      return PlackettLuceStrategy.marginals(
        logits, positions: places, samples: samples, &random)
    case .epsilonGreedy(let greedy, let epsilon):
      var dp = GreedyPlaces(greedy: greedy, epsilon: epsilon)
      var rows: [[Double]] = []
      rows.reserveCapacity(places)
      for k in 0..<places {
        if k > 0 { dp.advance() }
        rows.append(dp.row())
      }
      return rows
    case .rankings(let d):
      return d.marginals(places: places)
    }
  }

  /// For an exact policy, the probability of each candidate of `ranking` at the place it has
  /// there: P(ranking[k] at place k), from the exact marginals, in O(n^2) time and O(n) memory
  /// for a whole ranking of n. (What the epsilon-greedy strategy gives as propensities.)
  func placeProbabilities(_ ranking: [Int]) -> [Double] {
    precondition(isExact, "placeProbabilities: the marginals of this policy are estimates")
    _ = Self.placedMask(ranking, count: candidateCount)
    switch self {
    case .epsilonGreedy(let greedy, let epsilon):
      var rank = [Int](repeating: 0, count: greedy.count)
      for (i, c) in greedy.enumerated() { rank[c] = i }
      var dp = GreedyPlaces(greedy: greedy, epsilon: epsilon)
      var out: [Double] = []
      out.reserveCapacity(ranking.count)
      for (k, c) in ranking.enumerated() {
        if k > 0 { dp.advance() }
        out.append(dp.probability(ofRank: rank[c]))
      }
      return out
    default:
      // Uniform, rankings, or Plackett-Luce with at most two candidates: no draws are taken.
      var unused = RandomStream(seed: 0)
      let rows = marginals(positions: ranking.count, samples: 1, random: &unused)
      return ranking.enumerated().map { k, c in rows[k][c] }
    }
  }

  /// P(epsilon-greedy takes the best of `left` remaining candidates): exploit, or explore and
  /// hit it, (1 - epsilon) + epsilon / left, written as 1 - epsilon (left - 1) / left so that it
  /// is exactly 1 for the last candidate and never above 1.
  static func greedyPick(_ epsilon: Double, left: Int) -> Double {
    1 - epsilon * Double(left - 1) / Double(left)
  }

  /// Which of `count` candidates `placed` holds; a precondition that they are distinct and in
  /// range.
  private static func placedMask(_ placed: [Int], count: Int) -> [Bool] {
    precondition(placed.count <= count, "more placed candidates than candidates")
    var mask = [Bool](repeating: false, count: count)
    for c in placed {
      precondition(c >= 0 && c < count && !mask[c], "placed candidates must be distinct, in 0..<n")
      mask[c] = true
    }
    return mask
  }

  private static func checkPermutation(_ greedy: [Int]) {
    _ = placedMask(greedy, count: greedy.count)
  }
}

/// The exact place-by-place marginals of an epsilon-greedy ranking, by dynamic programming.
///
/// Work in greedy ranks: candidate `greedy[i]` has rank i (0 the best). After k places, let m
/// be the best rank still unplaced; every rank below m is placed, so of the k placed
/// candidates j = k - m are above m: the state is (k, m), and j follows. Symmetry: every
/// candidate above m has been treated alike so far (each earlier place's best rank was at most
/// m, so a candidate above m was only ever taken by an explore step, uniformly among the
/// others left), so relabelling the ranks above m maps each history to one of the same
/// probability with the same state. Hence, given (k, m), the j placed candidates above m are
/// a uniformly random j-subset of the A = n - m - 1 ranks above m.
///
/// With r = n - k candidates left (r - 1 = A - j of them above m), place k takes:
/// - rank m with probability 1 - epsilon (r - 1) / r (exploit, or explore and hit m), giving
///   P(rank m at place k | k, m) = that;
/// - a given unplaced rank i > m with probability epsilon / r; it is unplaced with probability
///   (A - j) / A by the uniform subset, so P(rank i at place k | k, m) = epsilon / r *
///   (r - 1) / A, for every i > m.
/// Summing over the states m of place k gives row k in O(n + k).
///
/// Transitions from (k, m) to place k + 1: an explore step that misses m, probability
/// epsilon (r - 1) / r, leaves m the best (state (k + 1, m), one more placed above it). Taking
/// m moves the best to the first unplaced rank above m: rank m + 1 + t, where ranks m + 1 ...
/// m + t are placed and m + 1 + t is not, with probability C(A - t - 1, j - t) / C(A, j) under
/// the uniform subset. Rather than that sum over t (O(j) per state), the pointer walks up one
/// rank at a time: with the best taken at place k and the pointer at rank p (every rank below
/// p placed, so k + 1 - p of the n - p ranks from p up are placed, again a uniform subset),
/// rank p is placed with probability (k + 1 - p) / (n - p), and then the pointer moves on to
/// p + 1 with the same property; otherwise p is the new best, state (k + 1, p). The product of
/// those steps is the binomial ratio above. So each place costs O(k), K places O(K^2) for the
/// states plus O(K n) for the rows: the marginals of K places of n candidates in
/// O(K^2 + K n), with O(n) memory per row.
struct GreedyPlaces {
  let greedy: [Int]
  let epsilon: Double
  /// The places done, k.
  private(set) var place = 0
  /// settled[m] = P(after `place` places the best unplaced rank is m), m in 0...place.
  private var settled: [Double]
  /// The previous layer's storage, reused for the next one.
  private var spare: [Double] = []
  /// reciprocal[j] = 1 / j (0 for j = 0): the divisions of the inner loops, once.
  private let reciprocal: [Double]

  init(greedy: [Int], epsilon: Double) {
    self.greedy = greedy
    self.epsilon = epsilon
    settled = greedy.isEmpty ? [] : [1]
    reciprocal = (0...greedy.count).map { $0 == 0 ? 0 : 1 / Double($0) }
  }

  /// P(candidate c at place `place`), indexed by candidate. Needs a candidate left.
  func row() -> [Double] {
    let n = greedy.count
    let k = place
    precondition(k < n, "no candidate left for this place")
    let miss = epsilon * Double(n - k - 1) * reciprocal[n - k]  // explore, not the best: r - 1 ways
    let pick = RankingPolicy.greedyPick(epsilon, left: n - k)
    var out = [Double](repeating: 0, count: n)
    // Sum over the states m < i so far of P(m) / A_m; rank i > m gets `miss` times it from
    // the explore step (epsilon / r for the pick, times (r - 1) / A_m that i is unplaced).
    var below = 0.0
    for i in 0..<n {
      var p = miss * below
      if i <= k {
        p += settled[i] * pick
        below += settled[i] * reciprocal[n - i - 1]
      }
      out[greedy[i]] = p
    }
    return out
  }

  /// P(rank i at place `place`): one entry of `row()` (the same sums, in the same order), in
  /// O(min(i, place)).
  func probability(ofRank i: Int) -> Double {
    let n = greedy.count
    let k = place
    precondition(k < n && i >= 0 && i < n, "no such rank, or no candidate left for this place")
    let miss = epsilon * Double(n - k - 1) * reciprocal[n - k]
    var below = 0.0
    for m in 0..<min(i, k + 1) { below += settled[m] * reciprocal[n - m - 1] }
    let p = miss * below
    return i <= k ? p + settled[i] * RankingPolicy.greedyPick(epsilon, left: n - k) : p
  }

  /// From the states after `place` places to those after one more (needs one more candidate
  /// after this place).
  mutating func advance() {
    let n = greedy.count
    let k = place
    precondition(k + 1 < n, "no candidate left for the next place")
    let miss = epsilon * Double(n - k - 1) * reciprocal[n - k]  // explore, and not the best
    let pick = RankingPolicy.greedyPick(epsilon, left: n - k)
    var next = spare
    spare = []
    next.removeAll(keepingCapacity: true)
    next.append(contentsOf: repeatElement(0, count: k + 2))
    let unplaced = Double(n - k - 1)  // after place k, r - 1 ranks are left
    var pending = 0.0  // mass whose best was taken, its pointer at rank p
    for p in 0...(k + 1) {
      if p > 0 { pending += settled[p - 1] * pick }
      // After place k: k + 1 placed, all below p, so k + 1 - p of the n - p ranks from p up
      // are placed and r - 1 are not; rank p is one of each kind with those shares.
      next[p] += pending * unplaced * reciprocal[n - p]
      pending *= Double(k + 1 - p) * reciprocal[n - p]
      if p <= k { next[p] += settled[p] * miss }
    }
    spare = settled
    settled = next
    place = k + 1
  }
}

/// log(exp(a) + exp(b)) without overflow (and -infinity for two -infinities).
func logAddExp(_ a: Double, _ b: Double) -> Double {
  let m = max(a, b)
  guard m > -.infinity else { return -.infinity }
  return m + log(exp(a - m) + exp(b - m))
}

/// One order of a finite distribution over orders: distinct candidates (indices into
/// `ScoringContext.candidates`), first place first, possibly fewer than the candidates (the
/// deck then ends after them), and its probability.
package struct WeightedRanking: Sendable, Equatable {
  package var order: [Int]
  package var probability: Double

  package init(order: [Int], probability: Double) {
    self.order = order
    self.probability = probability
  }
}

/// A finite distribution over orders of n candidates (`RankingPolicy.rankings`): orders with
/// their probabilities, summing to at most 1; the rest of 1 is no deck. The orders are sorted
/// once, when it is made (`SortedOrders`), so that the orders that begin with any prefix are
/// found by binary search: a prefix's probability in O(k log m) for a prefix of k and m
/// orders, the next place's distribution in O(k log m + d log m) for d candidates that follow
/// the prefix in some order.
package struct RankingDistribution: Sendable, Equatable {
  /// How far the probabilities may sum above 1 (rounding in what a plugin wrote).
  package static let sumTolerance = 1e-9

  /// The number of candidates n.
  package let candidateCount: Int
  /// The orders, sorted, with their probabilities (candidate indices as 32-bit keys).
  package let orders: SortedOrders

  /// Orders of distinct candidates in 0..<`candidateCount`, each order once, probabilities
  /// finite in [0, 1] and summing to at most 1 + `sumTolerance`: preconditions (a plugin's
  /// reply is checked before it becomes one, with a message for each fault).
  package init(candidateCount: Int, _ rankings: [WeightedRanking]) {
    precondition(candidateCount >= 0 && candidateCount <= Int(Int32.max), "a candidate count")
    var total = 0.0
    var mask = [Bool](repeating: false, count: candidateCount)
    for r in rankings {
      precondition(
        r.probability.isFinite && r.probability >= 0 && r.probability <= 1,
        "a probability is in [0, 1]")
      total += r.probability
      for c in r.order {
        precondition(c >= 0 && c < candidateCount && !mask[c], "distinct candidates, in 0..<n")
        mask[c] = true
      }
      for c in r.order { mask[c] = false }
    }
    precondition(total <= 1 + Self.sumTolerance, "the probabilities sum to at most 1")
    self.candidateCount = candidateCount
    orders = SortedOrders(
      orders: rankings.map { $0.order.map { Int32($0) } },
      probabilities: rankings.map(\.probability))
    for i in orders.all.dropFirst() {
      precondition(orders.orders[i - 1] != orders.orders[i], "each order once")
    }
  }

  /// The orders and their probabilities, sorted.
  package var rankings: [WeightedRanking] {
    orders.all.map {
      WeightedRanking(
        order: orders.orders[$0].map { Int($0) }, probability: orders.probability(at: $0))
    }
  }

  /// The probability of some deck: the sum over the orders.
  package var total: Double { orders.mass(orders.all) }

  /// P(candidate c next | the prefix `placed`) for every c that follows the prefix in some
  /// order: the probability of the orders that begin with `placed` and then c, over that of
  /// the orders that begin with `placed` (1 for the empty prefix: every outcome begins with
  /// it, no deck included, so the first place's probabilities sum to `total`). They sum to at
  /// most 1; the rest is the deck ending after the prefix. After a prefix of probability 0
  /// (no order begins with it, or only orders of probability 0) every candidate gets 0: there
  /// is no conditional to give, and no estimator uses one there.
  package func next(after placed: [Int]) -> [(candidate: Int, probability: Double)] {
    let range = orders.range(beginningWith: placed.map { Int32($0) })
    let base = placed.isEmpty ? 1 : orders.mass(range)
    guard base > 0 else { return [] }
    return orders.following(range, at: placed.count).map { key, mass in
      (Int(key), min(1, mass / base))
    }
  }

  /// For each k, the probability of the orders that begin with `ranking[0...k]`; 0 from the
  /// first place no order reaches on.
  package func prefixProbabilities(_ ranking: [Int]) -> [Double] {
    var out = [Double](repeating: 0, count: ranking.count)
    var range = orders.all
    for (j, c) in ranking.enumerated() {
      range = orders.narrow(range, at: j, to: Int32(c))
      if range.isEmpty { break }
      out[j] = min(1, orders.mass(range))
    }
    return out
  }

  /// `result[k][c]` = the probability of the orders with c at place k, for k in 0..<`places`.
  func marginals(places: Int) -> [[Double]] {
    var rows = [[Double]](
      repeating: [Double](repeating: 0, count: candidateCount), count: places)
    for i in orders.all {
      let p = orders.probability(at: i)
      for (k, c) in orders.orders[i].prefix(places).enumerated() { rows[k][Int(c)] += p }
    }
    return rows.map { $0.map { min(1, $0) } }
  }
}
