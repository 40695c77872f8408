import DeckBase
import DeckCore

extension LinearBanditModel {
  /// The shared part of the hybrid model (see `LinearBanditModel`): the crosses some swipe
  /// touches, S over them, and beta = S^-1 c.
  struct SharedPart {
    var active: [Int32]
    var crosses: [Int]
    var beta: [Double]
    var sInverse: SymmetricMatrix
    var sFactor: [Double]

    init(
      stats: Statistics, blocks: [DishBlock], encoding: FeatureEncoding, lambda: Double,
      factor: Bool
    ) throws(LinearAlgebraFailure) {
      let d = encoding.dinerCount
      let features = encoding.itemFeatures
      var mark = [Bool](repeating: false, count: encoding.dishCount * d)
      for group in stats.groups {
        for count in group.counts {
          for f in features[count.item] {
            for g in group.x { mark[Int(f) * d + Int(g)] = true }
          }
        }
      }
      crosses = mark.indices.filter { mark[$0] }
      active = [Int32](repeating: -1, count: mark.count)
      for (c, cross) in crosses.enumerated() { active[cross] = Int32(c) }
      let k = crosses.count
      var s = SymmetricMatrix(n: k)
      var c = [Double](repeating: 0, count: k)
      for i in 0..<k { s.storage[i * k + i] = lambda }
      // lambda I + sum of n z z^T and sum of r z, by (diner features, dish): the compact
      // indices of u_a (x) x ascend with f then g, so j <= i keeps the lower triangle.
      for group in stats.groups {
        for count in group.counts {
          var index: [Int] = []
          for f in features[count.item] {
            for g in group.x { index.append(Int(active[Int(f) * d + Int(g)])) }
          }
          for i in index {
            c[i] += count.right
            for j in index where j <= i { s.storage[i * k + j] += count.shown }
          }
        }
      }
      Self.eliminateDishes(&s, &c, stats: stats, blocks: blocks, active: active, features, d)
      sFactor = []
      if factor {
        guard let l = Dense.cholesky(s.storage, k) else { throw .notPositiveDefinite }
        sFactor = l
      }
      guard s.invertPositiveDefinite() else { throw .notPositiveDefinite }
      sInverse = s
      var beta = [Double](repeating: 0, count: k)
      for i in 0..<k {
        var sum = 0.0
        for j in 0..<k { sum += s[i, j] * c[j] }
        beta[i] = sum
      }
      self.beta = beta
    }

    /// S -= sum_a B_a^T A_a^-1 B_a = (u_a u_a^T) (x) (X_a A_a^-1 X_a) and
    /// c -= sum_a B_a^T A_a^-1 b_a = u_a (x) (X_a A_a^-1 b_a), dish by dish in catalog order.
    /// theta_a = A_a^-1 (b_a - X_a w_a), w_a[g] = sum over f in u_a of beta[(f, g)].
    func solveDishes(stats: Statistics, blocks: inout [DishBlock], encoding: FeatureEncoding) {
      let d = encoding.dinerCount
      for k in blocks.indices {
        let w = LinearBanditModel.sharedWeights(
          encoding, active, item: stats.dishes[k].item, beta: beta)
        let xw = Dense.multiply(blocks[k].gram, w, d)
        let rhs = (0..<d).map { blocks[k].b[$0] - xw[$0] }
        blocks[k].theta = Dense.multiply(blocks[k].inverse, rhs, d)
      }
    }

    private static func eliminateDishes(
      _ s: inout SymmetricMatrix, _ c: inout [Double], stats: Statistics, blocks: [DishBlock],
      active: [Int32], _ features: [[Int32]], _ d: Int
    ) {
      let k = s.n
      for (n, dish) in stats.dishes.enumerated() {
        let block = blocks[n]
        let support = (0..<d).filter { block.gram[$0 * d + $0] > 0 }
        let xInv = Dense.product(block.gram, block.inverse, d)
        let w = Dense.product(xInv, block.gram, d)
        let h = Dense.multiply(xInv, block.b, d)
        var index: [(c: Int, g: Int)] = []
        for f in features[dish.item] {
          for g in support { index.append((Int(active[Int(f) * d + g]), g)) }
        }
        for (i, gi) in index {
          c[i] -= h[gi]
          for (j, gj) in index where j <= i { s.storage[i * k + j] -= w[gi * d + gj] }
        }
      }
    }
  }
}

/// Small dense linear algebra on row-major arrays (the d x d blocks, and S for `lints`'
/// factor): one thread, a fixed order of operations.
enum Dense {
  /// The lower Cholesky factor L of the symmetric positive definite n x n matrix `a` (its
  /// lower triangle is read), a = L L^T; nil when a pivot is not positive.
  static func cholesky(_ a: [Double], _ n: Int) -> [Double]? {
    var l = [Double](repeating: 0, count: n * n)
    var a = a
    let factored = a.withUnsafeMutableBufferPointer {
      SymmetricMatrix.cholesky($0, n: n, at: 0, count: n, into: &l)
    }
    return factored ? l : nil
  }

  /// A^-1 (full) from the Cholesky factor of A, column by column.
  static func inverse(factor l: [Double], _ n: Int) -> [Double] {
    var out = [Double](repeating: 0, count: n * n)
    for col in 0..<n {
      var e = [Double](repeating: 0, count: n)
      e[col] = 1
      let x = solve(factor: l, e, n)
      for row in 0..<n { out[row * n + col] = x[row] }
    }
    return out
  }

  /// x with L L^T x = b.
  static func solve(factor l: [Double], _ b: [Double], _ n: Int) -> [Double] {
    solveTransposed(factor: l, forward(factor: l, b, n), n)
  }

  /// y with L y = b.
  static func forward(factor l: [Double], _ b: [Double], _ n: Int) -> [Double] {
    var y = b
    for i in 0..<n {
      var sum = y[i]
      for p in 0..<i { sum -= l[i * n + p] * y[p] }
      y[i] = sum / l[i * n + i]
    }
    return y
  }

  /// x with L^T x = y (a draw with covariance (L L^T)^-1 when y is standard normal), by
  /// columns of L^T, that is rows of L: each x_i, once final, is taken from the entries
  /// before it, so the factor is read row by row (contiguously).
  static func solveTransposed(factor l: [Double], _ y: [Double], _ n: Int) -> [Double] {
    var x = y
    l.withUnsafeBufferPointer { l in
      x.withUnsafeMutableBufferPointer { x in
        for i in stride(from: n - 1, through: 0, by: -1) {
          let xi = x[i] / l[i * n + i]
          x[i] = xi
          let row = i * n
          for p in 0..<i { x[p] -= l[row + p] * xi }
        }
      }
    }
    return x
  }

  /// m v for an n x n matrix m.
  static func multiply(_ m: [Double], _ v: [Double], _ n: Int) -> [Double] {
    (0..<n).map { i in
      var sum = 0.0
      for j in 0..<n { sum += m[i * n + j] * v[j] }
      return sum
    }
  }

  /// a b for n x n matrices.
  static func product(_ a: [Double], _ b: [Double], _ n: Int) -> [Double] {
    var out = [Double](repeating: 0, count: n * n)
    for i in 0..<n {
      for p in 0..<n where a[i * n + p] != 0 {
        let x = a[i * n + p]
        for j in 0..<n { out[i * n + j] += x * b[p * n + j] }
      }
    }
    return out
  }
}
