/// The paired t-test and the Wilcoxon signed-rank test of an arm against the baseline, per
/// metric, on one paired value per diner: the two classical tests beside the randomization test
/// (`Resampling`), which needs no distributional assumption and stays the report's main
/// p-value.
///
/// **The paired value of a diner** (`pairedValues`), arm a minus baseline b, with N_u and D_u
/// the diner's numerator and denominator sums of the metric (see `UnitTable`):
/// - a count (`.total`): z_u = N_au − N_bu, for every diner (a diner with nothing on either side
///   has z_u = 0, as the count's difference is a sum over every diner);
/// - a ratio: z_u = (N_au − N_bu) − R₀·(D_au − D_bu), where R₀ = (ΣN_a + ΣN_b) / (ΣD_a + ΣD_b)
///   is the ratio of both arms pooled (sums over the diners in unit order). A diner with no
///   denominator on either side (no card, no session with a pick, no relevant dish...) has no
///   value of the metric under either arm and is left out.
/// - coverage: none (it counts distinct dishes over all diners, not a sum of per-diner parts):
///   no t-test or Wilcoxon p-value, only the randomization test's.
///
/// Why this value: the report's estimate of a ratio metric is a ratio of sums over diners
/// (ΣN / ΣD, e.g. `like_rate` is all right swipes over all cards), and its bootstrap interval is
/// an interval for the difference of two such pooled ratios. N_u − R·D_u is a diner's linearised
/// contribution to ΣN/ΣD (the delta method: ΣN/ΣD − R ≈ Σ_u (N_u − R·D_u) / ΣD), so testing
/// that the z_u have mean 0 tests that the two pooled ratios are equal, the same question the
/// interval answers. A test of the per-diner ratios N_u/D_u would answer another one (is the
/// average diner's like rate the same?), weighting a diner with 2 cards like one with 200.
/// R₀ pools both arms, the value both share under the null hypothesis, so swapping a diner's two
/// arms turns z_u into exactly −z_u: the tests' null hypothesis (z symmetric about 0) follows
/// from the randomization test's (the two arms exchangeable within a diner). A diner with the
/// same sums under both arms has z_u = 0 exactly. For a mean over diners (every diner's
/// denominator 1, e.g. `ndcg_at_k`) z_u is the difference of the diner's two values, the
/// textbook paired test; for a count it is the difference of the diner's counts. The delta
/// method's 1/ΣD scale is left out: both tests are unchanged by scaling the values.
///
/// **t-test** (`tTest`): t = mean(z) / (s(z) / √n) with s the sample standard deviation
/// (n − 1), two-sided against Student's t with n − 1 degrees of freedom: scipy's
/// `ttest_rel(z, zeros)` (= `ttest_1samp(z, 0)`).
///
/// **Wilcoxon** (`wilcoxon`): scipy's `wilcoxon(z)` with its defaults (scipy 1.17:
/// `zero_method="wilcox"`, `correction=False`, `alternative="two-sided"`, `method="auto"`):
/// zeros are dropped before ranking, ties get mid-ranks, the statistic is T⁺ (the sum of the ranks
/// of the positive values), and the p-value comes from
/// - the exact null distribution when n ≤ 50 and there are no ties and no zeros;
/// - otherwise, when n ≤ 13, every one of the 2^n sign patterns (exact for ties and zeros);
/// - otherwise the normal approximation z = (T⁺ − m(m + 1)/4) / σ, m the nonzero values,
///   σ² = (m(m + 1)(2m + 1) − Σ(t³ − t)/2) / 24 over the tie groups t, without continuity
///   correction;
/// where n counts the zeros too, as scipy does.
package enum PairedTests {
  /// The paired values of arm `arm` minus arm `baseline` for metric `metric`, one per diner that
  /// carries the metric, in unit order (see the type's documentation); nil for coverage and when
  /// no diner has a denominator.
  package static func pairedValues(_ table: UnitTable, arm: Int, baseline: Int, metric: Int)
    -> [Double]?
  {
    let x = table.arms[arm]
    let y = table.arms[baseline]
    let n = table.units.count
    switch table.metrics[metric].form {
    case .coverage: return nil
    case .total:
      return (0..<n).map { u in
        x.numerator(unit: u, metric: metric) - y.numerator(unit: u, metric: metric)
      }
    case .ratio:
      var numX = 0.0
      var numY = 0.0
      var denX = 0.0
      var denY = 0.0
      for u in 0..<n {
        numX += x.numerator(unit: u, metric: metric)
        numY += y.numerator(unit: u, metric: metric)
        denX += x.denominator(unit: u, metric: metric)
        denY += y.denominator(unit: u, metric: metric)
      }
      let pooled = (numX + numY) / (denX + denY)
      guard denX + denY != 0, pooled.isFinite else { return nil }
      var values: [Double] = []
      values.reserveCapacity(n)
      for u in 0..<n {
        let dx = x.denominator(unit: u, metric: metric)
        let dy = y.denominator(unit: u, metric: metric)
        guard dx != 0 || dy != 0 else { continue }
        let dn = x.numerator(unit: u, metric: metric) - y.numerator(unit: u, metric: metric)
        values.append(dn - pooled * (dx - dy))
      }
      return values
    }
  }

  /// The two-sided p-value of the one-sample t-test of mean 0 (scipy's
  /// `ttest_1samp(values, 0)`); nil for fewer than 2 values, a value that is not finite, or
  /// values all 0 (t = 0/0). Values all equal and not 0 give t = ±∞ and p = 0.
  package static func tTest(_ values: [Double]) -> Double? {
    let n = values.count
    guard n >= 2, values.allSatisfy(\.isFinite) else { return nil }
    var sum = 0.0
    for v in values { sum += v }
    let mean = sum / Double(n)
    var squares = 0.0
    for v in values { squares += (v - mean) * (v - mean) }
    let variance = squares / Double(n - 1)
    guard variance.isFinite else { return nil }
    if variance == 0 { return mean == 0 ? nil : 0 }
    let t = mean / (variance / Double(n)).squareRoot()
    return Distributions.studentTTwoSided(t, df: Double(n - 1))
  }

  /// Up to this many values (zeros included) a sample with ties or zeros is tested over all
  /// 2^n sign patterns (scipy's `method="auto"` does the same: 2^13 is below its 9,999
  /// resamples).
  package static let enumeratedLimit = 13
  /// Up to this many values a sample without ties or zeros uses the exact distribution.
  package static let exactLimit = 50

  /// The two-sided p-value of the Wilcoxon signed-rank test of symmetry about 0, as scipy's
  /// `wilcoxon(values)` with its defaults (see the type's documentation); nil when there is no
  /// value, a value is not finite, or scipy gives none: a single value that is 0 (scipy refuses
  /// it) and more than 13 values all 0 (its normal approximation is 0/0). At most 13 values all
  /// 0 give p = 1.
  package static func wilcoxon(_ values: [Double]) -> Double? {
    let n = values.count
    guard n >= 1, values.allSatisfy(\.isFinite) else { return nil }
    // The nonzero values by |v|, each with its sign: ties are then neighbours.
    var sorted: [(magnitude: Double, positive: Bool)] = []
    sorted.reserveCapacity(n)
    for v in values where v != 0 { sorted.append((abs(v), v > 0)) }
    sorted.sort { $0.magnitude < $1.magnitude }
    let m = sorted.count
    let zeros = n - m
    // Ranks of |v|, doubled so that mid-ranks are whole numbers; T⁺ doubled.
    var doubledRanks = [Int](repeating: 0, count: m)
    var observed = 0
    var tieTerm = 0.0
    var hasTies = false
    var start = 0
    while start < m {
      var end = start + 1
      while end < m && sorted[end].magnitude == sorted[start].magnitude { end += 1 }
      // Positions start..<end hold ranks start + 1 ... end: their mean, doubled.
      for i in start..<end {
        doubledRanks[i] = start + 1 + end
        if sorted[i].positive { observed += start + 1 + end }
      }
      let t = Double(end - start)
      if end - start > 1 {
        hasTies = true
        tieTerm += t * t * t - t
      }
      start = end
    }

    if n <= exactLimit && !hasTies && zeros == 0 {
      let counts = Distributions.signedRankCounts(n)
      return twoSided(counts, observed: observed / 2)
    }
    if n <= enumeratedLimit {
      guard n >= 2 else { return nil }
      let counts = Distributions.subsetSumCounts(weights: doubledRanks)
      return twoSided(counts, observed: observed)
    }
    guard m > 0 else { return nil }
    let mm = Double(m)
    let mean = mm * (mm + 1) / 4
    let sigma = ((mm * (mm + 1) * (2 * mm + 1) - tieTerm / 2) / 24).squareRoot()
    return Distributions.normalTwoSided((Double(observed) / 2 - mean) / sigma)
  }

  /// 2 · min(P(T ≤ t), P(T ≥ t)), at most 1, for T distributed as `counts` (element k: the
  /// sign patterns with T = k).
  private static func twoSided(_ counts: [UInt64], observed: Int) -> Double {
    var total: UInt64 = 0
    var below: UInt64 = 0
    var above: UInt64 = 0
    for (k, c) in counts.enumerated() {
      total += c
      if k <= observed { below += c }
      if k >= observed { above += c }
    }
    return min(1, 2 * Double(min(below, above)) / Double(total))
  }
}
