import DeckBase

/// Candidates with weights exp(logit), drawn one at a time without replacement in proportion to
/// the weights of those left (the places of a Plackett-Luce ranking), each draw in O(log n): a
/// complete binary tree whose leaves hold the weights and whose every inner node holds the sum
/// of its two children.
///
/// No drift: a drawn leaf is set to 0 and the sums on its path to the root are computed again
/// from their children, never by subtracting, so the root is always the sum of the weights left
/// as a fresh tree over them would add it (to the rounding of log2(n) additions of non-negative
/// numbers, with no cancellation however small the rest is). `restore()` puts the drawn leaves
/// back the same way, which gives every node its first value bit for bit: a tree serves any
/// number of draws.
///
/// The weights are exp(logit - shift), with `shift` the largest logit, so they lie in [0, 1]
/// and the largest is 1. When the weight left is so small (below 2^-500) that the weights left
/// would lose precision, or underflow to 0, the tree is shifted again to the largest logit left
/// (O(n), for logits that span more than about 350; `restore()` then rebuilds it).
struct WeightTree {
  /// The candidate of each leaf.
  let members: [Int]
  /// The logit of each leaf.
  private let logits: [Double]
  /// The number of leaf slots, a power of two; leaf j is `sum[leaves + j]`, the root `sum[1]`.
  private let leaves: Int
  private var sum: [Double]
  /// The weight of each leaf as first built, exp(logit - `firstShift`).
  private let weights: [Double]
  private let firstShift: Double
  /// The weights in `sum` are exp(logit - shift).
  private var shift: Double
  /// The leaves drawn or removed since the last `restore()`, in order.
  private(set) var taken: [Int] = []
  private var isTaken: [Bool]
  private var shifted = false

  /// A tree over `members` (candidate indices) with `logits[member]` as their logits (finite).
  init(members: [Int], logits: [Double]) {
    self.members = members
    let own = members.map { logits[$0] }
    self.logits = own
    var leaves = 1
    while leaves < own.count { leaves *= 2 }
    self.leaves = leaves
    let top = own.max() ?? 0
    firstShift = top
    shift = top
    weights = own.map { exp($0 - top) }
    isTaken = [Bool](repeating: false, count: own.count)
    sum = [Double](repeating: 0, count: 2 * leaves)
    for (j, w) in weights.enumerated() { sum[leaves + j] = w }
    for i in stride(from: leaves - 1, through: 1, by: -1) { sum[i] = sum[2 * i] + sum[2 * i + 1] }
  }

  /// How many members are left to draw.
  var remaining: Int { members.count - taken.count }

  /// The log of the weight left, exp(logit) summed over the members not drawn (-infinity when
  /// none is left).
  mutating func logRemaining() -> Double {
    guard remaining > 0 else { return -.infinity }
    if sum[1] < 0x1p-500 { reshift() }
    return shift + log(sum[1])
  }

  /// Draws the next member with probability its weight over the weight left, from `u`, uniform
  /// in [0, 1), and takes it out: returns its leaf (the candidate is `members[leaf]`). Needs a
  /// member left. The walk down goes left while the target is below the left sum; rounding
  /// can only make it pass a subtree that has weight for one that has none, which it never
  /// enters (so a member of weight 0 is never drawn while weight is left).
  mutating func draw(_ u: Double) -> Int {
    precondition(remaining > 0, "WeightTree.draw: no member left")
    if sum[1] < 0x1p-500 { reshift() }
    var target = u * sum[1]
    var i = 1
    while i < leaves {
      let left = sum[2 * i]
      if target < left || sum[2 * i + 1] == 0 {
        i = 2 * i
      } else {
        target -= left
        i = 2 * i + 1
      }
    }
    let leaf = i - leaves
    take(leaf)
    return leaf
  }

  /// Takes out the member of `leaf` (not taken yet), as if drawn.
  mutating func take(_ leaf: Int) {
    precondition(!isTaken[leaf], "WeightTree.take: that member was taken")
    isTaken[leaf] = true
    taken.append(leaf)
    set(leaf, 0)
  }

  /// Puts back every member taken since the last restore: the tree is again as built, bit for
  /// bit.
  mutating func restore() {
    if shifted {
      for leaf in taken { isTaken[leaf] = false }
      for (j, w) in weights.enumerated() { sum[leaves + j] = w }
      for i in stride(from: leaves - 1, through: 1, by: -1) {
        sum[i] = sum[2 * i] + sum[2 * i + 1]
      }
      shift = firstShift
      shifted = false
    } else {
      for leaf in taken {
        isTaken[leaf] = false
        set(leaf, weights[leaf])
      }
    }
    taken.removeAll(keepingCapacity: true)
  }

  private mutating func set(_ leaf: Int, _ value: Double) {
    var i = leaves + leaf
    sum[i] = value
    i /= 2
    while i >= 1 {
      sum[i] = sum[2 * i] + sum[2 * i + 1]
      i /= 2
    }
  }

  /// Shifts the weights left to the largest logit left, which then weighs 1.
  private mutating func reshift() {
    var top = -Double.infinity
    for (j, l) in logits.enumerated() where !isTaken[j] { top = max(top, l) }
    shift = top
    for j in logits.indices { sum[leaves + j] = isTaken[j] ? 0 : exp(logits[j] - top) }
    for i in stride(from: leaves - 1, through: 1, by: -1) { sum[i] = sum[2 * i] + sum[2 * i + 1] }
    shifted = true
  }
}
