import DeckCore
import Foundation
import Testing

@testable import DeckStrategies

/// Every sequence of distinct candidates of 0..<n, of every length 0...n (the empty one first).
private func allPrefixes(_ n: Int) -> [[Int]] {
  var out: [[Int]] = [[]]
  var frontier: [[Int]] = [[]]
  for _ in 0..<n {
    frontier = frontier.flatMap { q in (0..<n).filter { !q.contains($0) }.map { q + [$0] } }
    out += frontier
  }
  return out
}

/// What a finite distribution says by its definition, summed over its orders directly.
private struct BruteForce {
  let n: Int
  let rankings: [WeightedRanking]

  /// P(the order begins with q): the sum over the orders that do (the empty prefix: all).
  func prefix(_ q: [Int]) -> Double {
    rankings.filter { $0.order.starts(with: q) }.reduce(0) { $0 + $1.probability }
  }

  /// P(c next | q), over the orders that begin with q; 1 is the base of the empty prefix.
  func next(_ q: [Int]) -> [Double] {
    let base = q.isEmpty ? 1 : prefix(q)
    return (0..<n).map { c in base > 0 && !q.contains(c) ? prefix(q + [c]) / base : 0 }
  }

  func marginals(_ places: Int) -> [[Double]] {
    (0..<places).map { k in
      (0..<n).map { c in
        rankings.filter { $0.order.count > k && $0.order[k] == c }.reduce(0) { $0 + $1.probability }
      }
    }
  }
}

/// A random finite distribution over orders of n candidates: some distinct sequences (of any
/// length, the empty one included), with random probabilities scaled to sum to `total`, a few
/// of them 0 or tiny.
private func randomDistribution(_ n: Int, total: Double, random: inout RandomStream)
  -> [WeightedRanking]
{
  let pool = allPrefixes(n)
  var chosen: [[Int]] = []
  for q in pool where random.nextDouble() < 0.4 { chosen.append(q) }
  if chosen.isEmpty { chosen = [pool.last!] }
  var weights = chosen.map { _ in random.nextDouble() + 0.01 }
  let sum = weights.reduce(0, +)
  weights = weights.map { $0 / sum * total }
  if weights.count > 2 {
    weights[0] = 0
    weights[1] = 1e-13
  }
  // Shuffled: the distribution sorts its orders itself.
  var rankings = zip(chosen, weights).map { WeightedRanking(order: $0, probability: $1) }
  for i in stride(from: rankings.count - 1, to: 0, by: -1) {
    rankings.swapAt(i, random.nextInt(below: i + 1))
  }
  return rankings
}

@Suite("finite ranking distributions")
struct RankingDistributionTests {
  /// next, prefix probabilities and marginals of `.rankings` against the sums over its orders,
  /// for every prefix of every length, to 1e-12 (and relatively for tiny prefixes).
  @Test(
    "rankings: next, prefix probabilities and marginals match brute force, n up to 5, totals 1 and 0.7",
    arguments: [1.0, 0.7])
  func matchesBruteForce(_ total: Double) {
    var random = RandomStream(seed: 31)
    for n in 0...5 {
      for _ in 0..<6 {
        let rankings = randomDistribution(n, total: total, random: &random)
        let truth = BruteForce(n: n, rankings: rankings)
        let policy = RankingPolicy.rankings(RankingDistribution(candidateCount: n, rankings))
        #expect(policy.candidateCount == n)
        #expect(policy.isExact)
        var prefixError = 0.0
        var relativeError = 0.0
        var nextError = 0.0
        for q in allPrefixes(n) {
          let probabilities = policy.prefixProbabilities(q)
          #expect(probabilities.count == q.count)
          for k in q.indices {
            let p = truth.prefix(Array(q.prefix(k + 1)))
            prefixError = max(prefixError, abs(probabilities[k] - p))
            if p > 0 { relativeError = max(relativeError, abs(probabilities[k] - p) / p) }
          }
          let next = policy.next(after: q)
          let exact = truth.next(q)
          #expect(next.count == n)
          for c in 0..<n { nextError = max(nextError, abs(next[c] - exact[c])) }
        }
        #expect(prefixError < 1e-12, "\(rankings)")
        #expect(relativeError < 1e-12, "\(rankings)")
        #expect(nextError < 1e-12, "\(rankings)")
        var stream = RandomStream(seed: 4)
        var untouched = stream
        for positions in [0, 1, 3, n, n + 4] {
          let m = policy.marginals(positions: positions, samples: 1, random: &stream)
          let exact = truth.marginals(min(positions, n))
          #expect(m.count == exact.count)
          var worst = 0.0
          for (row, truthRow) in zip(m, exact) {
            #expect(row.count == n)
            for c in 0..<n { worst = max(worst, abs(row[c] - truthRow[c])) }
          }
          #expect(worst < 1e-12, "\(rankings), \(positions) places")
        }
        #expect(stream.next() == untouched.next(), "exact marginals take no draws")
      }
    }
  }

  /// A hand example: a c (0.5), b c (0.25), c (0.125), and 0.125 no deck; candidates a, b, c,
  /// d = 0, 1, 2, 3.
  @Test("rankings: shorter orders, no deck and a prefix of probability 0, by hand")
  func byHand() {
    let d = RankingDistribution(
      candidateCount: 4,
      [
        WeightedRanking(order: [2], probability: 0.125),
        WeightedRanking(order: [1, 2], probability: 0.25),
        WeightedRanking(order: [0, 2], probability: 0.5),
        WeightedRanking(order: [3, 0], probability: 0),
      ])
    let policy = RankingPolicy.rankings(d)
    #expect(d.total == 0.875)
    // First place: the orders' own probabilities; the rest of 1 is no deck.
    #expect(policy.next(after: []) == [0.5, 0.25, 0.125, 0])
    // After a: c surely. After c: the deck ends (nothing next).
    #expect(policy.next(after: [0]) == [0, 0, 1, 0])
    #expect(policy.next(after: [2]) == [0, 0, 0, 0])
    // After d, a prefix of probability 0 though an order continues it: all zeros.
    #expect(policy.next(after: [3]) == [0, 0, 0, 0])
    #expect(policy.prefixProbabilities([1, 2, 0]) == [0.25, 0.25, 0])
    #expect(policy.prefixProbabilities([3, 0]) == [0, 0])
    var random = RandomStream(seed: 1)
    #expect(
      policy.marginals(positions: 3, samples: 1, random: &random) == [
        [0.5, 0.25, 0.125, 0], [0, 0, 0.75, 0], [0, 0, 0, 0],
      ])
    #expect(policy.placeProbabilities([0, 2]) == [0.5, 0.75])
    // Sorted once: the same distribution, whatever order it was given in.
    #expect(d.rankings.map(\.order) == [[0, 2], [1, 2], [2], [3, 0]])
    #expect(RankingDistribution(candidateCount: 4, d.rankings.reversed()) == d)
  }

  @Test("rankings: empty distributions")
  func empty() {
    for d in [
      RankingDistribution(candidateCount: 0, []),
      RankingDistribution(candidateCount: 0, [WeightedRanking(order: [], probability: 1)]),
      RankingDistribution(candidateCount: 2, []),
    ] {
      let policy = RankingPolicy.rankings(d)
      var random = RandomStream(seed: 1)
      #expect(policy.next(after: []) == [Double](repeating: 0, count: d.candidateCount))
      #expect(policy.prefixProbabilities([]) == [])
      #expect(
        policy.marginals(positions: 4, samples: 1, random: &random)
          == [[Double]](
            repeating: [Double](repeating: 0, count: d.candidateCount), count: d.candidateCount))
    }
  }

  /// The sum tree's range sums against direct sums: relatively exact even for a range of tiny
  /// probabilities among large ones, where a difference of running sums loses every digit.
  @Test("sorted orders: range sums are relatively exact, and narrowing finds each prefix")
  func sortedOrders() {
    var random = RandomStream(seed: 8)
    for m in [0, 1, 2, 3, 7, 64, 100] {
      let orders = (0..<m).map { i in [Int32(i / 10), Int32(i % 10)] }
      let probabilities = (0..<m).map { i in
        i % 3 == 1 ? 1e-15 * random.nextDouble() : random.nextDouble() / Double(m)
      }
      let table = SortedOrders(orders: orders.reversed(), probabilities: probabilities.reversed())
      #expect(table.orders == orders)
      for low in 0...m {
        for high in low...m {
          let direct = probabilities[low..<high].reduce(0, +)
          let mass = table.mass(low..<high)
          #expect(abs(mass - direct) <= 1e-13 * direct, "\(m): \(low)..<\(high)")
        }
      }
      for first in 0..<11 {
        let range = table.range(beginningWith: [Int32(first)])
        #expect(Array(range) == orders.indices.filter { orders[$0][0] == first })
        #expect(
          table.following(range, at: 1).map(\.key)
            == range.map { orders[$0][1] })
      }
    }
  }
}
