/// Weighted orders (distinct keys, first place first, each with a probability) sorted
/// lexicographically, an order before the longer ones it begins: the orders that begin with any
/// prefix are then consecutive, found one place at a time by binary search, and their total
/// probability is a range sum. The one table behind a finite distribution over orders, both a
/// plugin's (`RankingPolicy.rankings`, keys are candidate indices) and a deck-distribution policy
/// file's (`LogEvaluation.DeckTable`, keys are catalog indices).
///
/// Range sums come from a sum tree, not from differences of running sums: the probabilities
/// are non-negative, so a sum of O(log m) tree nodes, each a sum of its orders, is within a few
/// log2(m) rounding errors of the exact sum relatively, however small it is, where a difference of two running sums near 1
/// could lose every digit of a prefix of probability 1e-12 (or make it negative). Memory: the
/// orders, and two doubles per order.
package struct SortedOrders: Sendable, Equatable {
  /// The orders, sorted (see above).
  package let orders: [[Int32]]
  /// The sum tree over the orders' probabilities: `tree[count + i]` is the probability of
  /// `orders[i]`, and `tree[i]` = `tree[2i]` + `tree[2i + 1]` for the inner nodes.
  private let tree: [Double]

  /// Sorts `orders` (each with its probability, non-negative and finite; the caller has
  /// checked that every order is distinct): O(m log m) comparisons of orders, once.
  package init(orders: [[Int32]], probabilities: [Double]) {
    precondition(orders.count == probabilities.count, "one probability per order")
    let sorted = orders.indices.sorted { orders[$0].lexicographicallyPrecedes(orders[$1]) }
    self.init(sorted: sorted.map { orders[$0] }, probabilities: sorted.map { probabilities[$0] })
  }

  /// Orders already sorted (a deck-distribution policy file sorts its decks as it reads them).
  package init(sorted orders: [[Int32]], probabilities: [Double]) {
    precondition(orders.count == probabilities.count, "one probability per order")
    precondition(
      probabilities.allSatisfy { $0 >= 0 && $0.isFinite }, "a probability is finite, at least 0")
    self.orders = orders
    let m = orders.count
    var tree = [Double](repeating: 0, count: 2 * m)
    for i in 0..<m { tree[m + i] = probabilities[i] }
    for i in stride(from: m - 1, to: 0, by: -1) { tree[i] = tree[2 * i] + tree[2 * i + 1] }
    self.tree = tree
  }

  /// The number of orders m.
  package var count: Int { orders.count }

  /// Every order: the range of the empty prefix.
  package var all: Range<Int> { 0..<orders.count }

  /// The probability of `orders[i]`.
  package func probability(at i: Int) -> Double { tree[orders.count + i] }

  /// The total probability of the orders of `range`, in O(log m).
  package func mass(_ range: Range<Int>) -> Double {
    let m = orders.count
    var low = range.lowerBound + m
    var high = range.upperBound + m
    // Left and right halves kept apart so that the nodes are added in order.
    var left = 0.0
    var right = 0.0
    while low < high {
      if low & 1 == 1 {
        left += tree[low]
        low += 1
      }
      if high & 1 == 1 {
        high -= 1
        right = tree[high] + right
      }
      low >>= 1
      high >>= 1
    }
    return left + right
  }

  /// The orders of `range` (which all begin with the same j keys) that have `key` at j.
  package func narrow(_ range: Range<Int>, at j: Int, to key: Int32) -> Range<Int> {
    // In the range, orders of exactly j keys come first, then by their key at j.
    func before(_ i: Int, _ inclusive: Bool) -> Bool {
      let order = orders[i]
      guard order.count > j else { return true }
      return inclusive ? order[j] <= key : order[j] < key
    }
    func partition(_ inclusive: Bool) -> Int {
      var low = range.lowerBound
      var high = range.upperBound
      while low < high {
        let mid = (low + high) / 2
        if before(mid, inclusive) { low = mid + 1 } else { high = mid }
      }
      return low
    }
    return partition(false)..<partition(true)
  }

  /// The orders that begin with `prefix`, narrowed one key at a time: O(|prefix| log m).
  package func range(beginningWith prefix: [Int32]) -> Range<Int> {
    var range = all
    for (j, key) in prefix.enumerated() {
      range = narrow(range, at: j, to: key)
      if range.isEmpty { break }
    }
    return range
  }

  /// The orders of `range` (which all begin with the same j keys) by their key at j: each key
  /// that some order of the range has there, ascending, with the total probability of those
  /// orders. The orders of exactly j keys (which end there) are left out. O(d log m) for d
  /// distinct keys.
  package func following(_ range: Range<Int>, at j: Int) -> [(key: Int32, probability: Double)] {
    var out: [(key: Int32, probability: Double)] = []
    var i = range.lowerBound
    // The orders that end at j come first.
    while i < range.upperBound && orders[i].count <= j { i += 1 }
    while i < range.upperBound {
      let key = orders[i][j]
      let group = narrow(i..<range.upperBound, at: j, to: key)
      out.append((key, mass(group)))
      i = group.upperBound
    }
    return out
  }
}
