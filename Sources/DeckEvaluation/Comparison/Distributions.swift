import DeckBase

/// The distribution functions the paired tests need: Student's t and the normal distribution
/// (two-sided tail probabilities), the regularized incomplete beta function behind the t
/// distribution, and the exact null distribution of the Wilcoxon signed-rank statistic.
///
/// Written from the textbook formulas (no code taken from a library): the incomplete beta by its
/// continued fraction, evaluated with the modified Lentz method, and log B(a, b) by Stirling's
/// series when an argument is large, where lgamma(a) + lgamma(b) − lgamma(a + b) would lose
/// digits to cancellation. Accurate to about 1e-14 relative for the arguments the tests give.
package enum Distributions {
  /// P(|T| ≥ |t|) for Student's t with `df` degrees of freedom: I_x(df/2, 1/2) with
  /// x = df / (df + t²). 0 for an infinite t; nil for a t that is not a number or df ≤ 0.
  package static func studentTTwoSided(_ t: Double, df: Double) -> Double? {
    guard !t.isNaN, df > 0, df.isFinite else { return nil }
    if t.isInfinite { return 0 }
    let t2 = t * t
    // x and 1 − x, each computed without cancellation.
    let x = df / (df + t2)
    let y = t2 / (df + t2)
    return regularizedIncompleteBeta(a: df / 2, b: 0.5, x: x, complement: y)
  }

  /// P(|Z| ≥ |z|) for a standard normal Z: erfc(|z| / √2).
  package static func normalTwoSided(_ z: Double) -> Double? {
    guard !z.isNaN else { return nil }
    return erfc(abs(z) / 2.0.squareRoot())
  }

  /// The regularized incomplete beta function I_x(a, b) = B(x; a, b) / B(a, b), for a, b > 0 and
  /// x in [0, 1]; `complement` is 1 − x, given by the caller when it can compute it more
  /// accurately than `1 - x` (defaults to that).
  ///
  /// Uses the continued fraction I_x(a, b) = x^a (1 − x)^b / (a B(a, b)) · 1 / (1 + d₁ / (1 +
  /// d₂ / (1 + ...))) with d₂ₘ₊₁ = −(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) and d₂ₘ =
  /// m (b − m) x / ((a + 2m − 1)(a + 2m)), which converges fast for x < (a + 1) / (a + b + 2);
  /// above that it evaluates 1 − I_{1−x}(b, a).
  package static func regularizedIncompleteBeta(
    a: Double, b: Double, x: Double, complement: Double? = nil
  ) -> Double {
    precondition(a > 0 && b > 0, "the incomplete beta needs a, b > 0")
    let y = complement ?? (1 - x)
    if x <= 0 { return 0 }
    if y <= 0 { return 1 }
    let logX = y < 0.5 ? log1p(-y) : log(x)
    let logY = x < 0.5 ? log1p(-x) : log(y)
    // x^a (1 − x)^b / B(a, b), the same for I_x(a, b) and I_{1−x}(b, a).
    let front = exp(a * logX + b * logY - logBeta(a, b))
    if x < (a + 1) / (a + b + 2) {
      return min(1, front * continuedFraction(a: a, b: b, x: x) / a)
    }
    return max(0, 1 - front * continuedFraction(a: b, b: a, x: y) / b)
  }

  /// The continued fraction of I_x(a, b) (see `regularizedIncompleteBeta`), by the modified
  /// Lentz method: the convergents as products of the ratios C_j = f_j / f_{j−1} and
  /// D_j = f_{j−1}' / f_j', stopping when a step changes the value by less than 1e-16.
  static func continuedFraction(a: Double, b: Double, x: Double) -> Double {
    let tiny = 1e-300
    func guarded(_ v: Double) -> Double { abs(v) < tiny ? tiny : v }
    var c = 1.0
    var d = 1 / guarded(1 - (a + b) * x / (a + 1))
    var value = d
    // Enough for a up to about 1e10: the fraction needs O(√max(a, b)) steps near its edge.
    for m in 1...200_000 {
      let mm = Double(m)
      let even = mm * (b - mm) * x / ((a + 2 * mm - 1) * (a + 2 * mm))
      d = 1 / guarded(1 + even * d)
      c = guarded(1 + even / c)
      value *= d * c
      let odd = -(a + mm) * (a + b + mm) * x / ((a + 2 * mm) * (a + 2 * mm + 1))
      d = 1 / guarded(1 + odd * d)
      c = guarded(1 + odd / c)
      let step = d * c
      value *= step
      if abs(step - 1) < 1e-16 { break }
    }
    return value
  }

  /// log B(a, b) = log Γ(a) + log Γ(b) − log Γ(a + b). When the larger argument is 15 or more,
  /// log Γ(a) − log Γ(a + b) (a the larger) comes from Stirling's series
  /// log Γ(x) = (x − ½) log x − x + ½ log 2π + δ(x): it is
  /// −(a − ½) log1p(b / a) − b log(a + b) + b + δ(a) − δ(a + b), with no large terms to cancel.
  package static func logBeta(_ p: Double, _ q: Double) -> Double {
    let a = max(p, q)
    let b = min(p, q)
    guard a >= 15 else { return lgamma(a) + lgamma(b) - lgamma(a + b) }
    return lgamma(b) - (a - 0.5) * log1p(b / a) - b * log(a + b) + b
      + stirlingCorrection(a) - stirlingCorrection(a + b)
  }

  /// δ(x) = log Γ(x) − ((x − ½) log x − x + ½ log 2π) by its asymptotic series
  /// 1/(12x) − 1/(360x³) + 1/(1260x⁵) − 1/(1680x⁷) + 1/(1188x⁹), for x ≥ 15 (error below 1e-16).
  static func stirlingCorrection(_ x: Double) -> Double {
    let r = 1 / x
    let r2 = r * r
    return r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680 - r2 / 1188))))
  }

  // MARK: - Wilcoxon signed-rank

  /// The largest n whose exact signed-rank distribution `signedRankCounts` gives: every count
  /// is below 2^50 and exact in a UInt64.
  package static let signedRankLimit = 60

  /// The null distribution of the signed-rank statistic T⁺ (the sum of the ranks of the positive
  /// values) for n values without ties or zeros: element k is the number of the 2^n sign
  /// patterns with T⁺ = k, for k = 0 ... n(n + 1)/2 (the subsets of {1, ..., n} summing to k).
  package static func signedRankCounts(_ n: Int) -> [UInt64] {
    precondition(n >= 0 && n <= signedRankLimit, "exact signed-rank counts up to n = 60")
    return subsetSumCounts(weights: n == 0 ? [] : Array(1...n))
  }

  /// For whole-number weights w_i, element k is the number of subsets whose weights sum to k,
  /// for k = 0 ... Σ w_i: the null distribution of Σ w_i·[value i positive] when each sign is
  /// + or − with probability 1/2.
  static func subsetSumCounts(weights: [Int]) -> [UInt64] {
    var counts = [UInt64](repeating: 0, count: weights.reduce(0, +) + 1)
    counts[0] = 1
    var top = 0
    for w in weights {
      var k = top
      while k >= 0 {
        if counts[k] != 0 { counts[k + w] += counts[k] }
        k -= 1
      }
      top += w
    }
    return counts
  }
}
