import DeckCore
import Foundation
import Testing

@testable import DeckEvaluation

// Reference values: scipy 1.17.1 and statsmodels 0.15.0 (numpy 2.4.6, Python 3.11), installed
// with pip into a virtual environment (/tmp/menudeck-stats-venv), printed with repr() from
//   scipy.stats.t.sf, scipy.special.betainc, scipy.stats.norm.sf,
//   scipy.stats.ttest_rel(d, numpy.zeros_like(d)).pvalue and scipy.stats.wilcoxon(d).pvalue
//   (default options: zero_method="wilcox", correction=False, method="auto").
// The data of the larger samples is made by the same integer formulas in Python (`generated`).

/// `|a - b| <= tolerance`; false when `a` is nil.
private func close(_ a: Double?, _ b: Double, _ tolerance: Double = 1e-12) -> Bool {
  guard let a else { return false }
  return abs(a - b) <= tolerance
}

/// The larger samples of the Wilcoxon and t-test cases, from integer formulas that Python
/// evaluates to the same doubles (one division and one subtraction each, correctly rounded).
private func generated(_ name: String) -> [Double] {
  /// (i * a + b) % m - c, over i = 1 ... n, divided by d (Python: ((i*a + b) % m - c) / d).
  func sample(_ n: Int, _ a: Int, _ b: Int, _ m: Int, _ c: Int, _ d: Double) -> [Double] {
    (1...n).map { i -> Double in
      let k: Int = (i * a + b) % m - c
      return Double(k) / d
    }
  }
  /// (i * a) % m / d - c (Python: ((i*a) % m) / d - c).
  func shifted(_ n: Int, _ a: Int, _ m: Int, _ d: Double, _ c: Double) -> [Double] {
    (1...n).map { i -> Double in
      let k: Int = (i * a) % m
      return Double(k) / d - c
    }
  }
  switch name {
  // 60 values, no ties, no zeros: more than 50, so the normal approximation.
  case "asym60": return shifted(60, 7919, 1009, 97, 3.0)
  // 50 values, no ties, no zeros: the exact distribution.
  case "exact50": return shifted(50, 4567, 1013, 89, 4.5)
  // 30 values, 1 zero, 16 tied: the normal approximation with the tie correction.
  case "asym30ties": return sample(30, 37, 11, 23, 9, 2)
  // 40 values, 4 zeros, 30 tied.
  case "asym40zeros": return sample(40, 29, 5, 11, 4, 1)
  // 14 values, 2 zeros, ties: one more than the 13 that are enumerated.
  case "asym14ties": return sample(14, 5, 3, 7, 2, 1)
  default: fatalError("no sample \(name)")
  }
}

@Suite("Compare: distributions of the paired tests")
struct DistributionsTests {
  @Test(arguments: [
    // (t, df, scipy: 2 * stats.t.sf(|t|, df))
    (2.0, 5.0, 0.10193947882985835), (0.5, 1.0, 0.7048327646991335),
    (10.0, 3.0, 0.0021283990584141503), (1.96, 1000.0, 0.050273184955748736),
    (3.0, 99_999.0, 0.002700460890713429), (0.0, 7.0, 1.0), (-2.5, 12.0, 0.02791539957132524),
    (40.0, 2.0, 0.0006244146721847406), (0.01, 250_000.0, 0.9920212953499774),
  ])
  func studentT(t: Double, df: Double, expected: Double) {
    let p = Distributions.studentTTwoSided(t, df: df)
    #expect(close(p, expected, 1e-13), "t \(t) df \(df): \(p ?? .nan)")
  }

  @Test func studentTEdges() {
    #expect(Distributions.studentTTwoSided(.infinity, df: 3) == 0)
    #expect(Distributions.studentTTwoSided(.nan, df: 3) == nil)
    #expect(Distributions.studentTTwoSided(1, df: 0) == nil)
    // With 1 degree of freedom t is Cauchy: P(|T| >= 1) = 1/2 exactly.
    #expect(close(Distributions.studentTTwoSided(1, df: 1), 0.5, 1e-15))
  }

  @Test(arguments: [
    // (a, b, x, scipy.special.betainc(a, b, x))
    (2.0, 3.0, 0.4, 0.5247999999999999), (0.5, 0.5, 0.1, 0.20483276469913345),
    (50.0, 0.5, 0.98, 0.1562435078668179), (100_000.0, 0.5, 0.99999, 0.15729868816242573),
    (3.5, 120.0, 0.02, 0.3277023596760399), (0.5, 40.0, 0.9, 1.0),
  ])
  func incompleteBeta(a: Double, b: Double, x: Double, expected: Double) {
    let value = Distributions.regularizedIncompleteBeta(a: a, b: b, x: x)
    #expect(close(value, expected, 1e-13), "I(\(x); \(a), \(b)) = \(value)")
  }

  @Test func incompleteBetaByHand() {
    // I_x(1, 1) = x; I_x(a, 1) = x^a; I_x(1, b) = 1 - (1 - x)^b; the ends are 0 and 1.
    #expect(close(Distributions.regularizedIncompleteBeta(a: 1, b: 1, x: 0.3), 0.3, 1e-15))
    #expect(close(Distributions.regularizedIncompleteBeta(a: 3, b: 1, x: 0.5), 0.125, 1e-15))
    #expect(close(Distributions.regularizedIncompleteBeta(a: 1, b: 2, x: 0.5), 0.75, 1e-15))
    #expect(Distributions.regularizedIncompleteBeta(a: 2, b: 2, x: 0) == 0)
    #expect(Distributions.regularizedIncompleteBeta(a: 2, b: 2, x: 1) == 1)
    // Symmetry: I_x(a, b) = 1 - I_{1-x}(b, a).
    let left = Distributions.regularizedIncompleteBeta(a: 2.5, b: 7, x: 0.3)
    let right = Distributions.regularizedIncompleteBeta(a: 7, b: 2.5, x: 0.7)
    #expect(abs(left + right - 1) < 1e-14)
  }

  @Test func logBetaByStirlingAgreesWithLogGamma() {
    // Where lgamma loses nothing yet, the two forms agree.
    for (a, b) in [(15.0, 0.5), (20.0, 3.0), (40.0, 40.0), (100.0, 0.25)] {
      let direct = lgamma(a) + lgamma(b) - lgamma(a + b)
      #expect(abs(Distributions.logBeta(a, b) - direct) < 1e-12, "B(\(a), \(b))")
      #expect(Distributions.logBeta(a, b) == Distributions.logBeta(b, a))
    }
  }

  @Test(arguments: [
    // (z, scipy: 2 * stats.norm.sf(|z|))
    (1.959963984540054, 0.05), (0.0, 1.0), (5.0, 5.733031437583866e-07),
    (-2.5, 0.012419330651552265),
  ])
  func normal(z: Double, expected: Double) {
    #expect(close(Distributions.normalTwoSided(z), expected, 1e-15))
  }

  @Test func signedRankCountsByHand() {
    // The subsets of {1, 2, 3, 4} by their sum: 3 = 3 = 1 + 2, 4 = 4 = 1 + 3, ...
    #expect(Distributions.signedRankCounts(4) == [1, 1, 1, 2, 2, 2, 2, 2, 1, 1, 1])
    #expect(Distributions.signedRankCounts(0) == [1])
    #expect(Distributions.signedRankCounts(1) == [1, 1])
    // 2^n sign patterns, symmetric about n(n + 1)/4.
    let counts = Distributions.signedRankCounts(50)
    #expect(counts.count == 50 * 51 / 2 + 1)
    #expect(counts.reduce(0, +) == 1 << 50)
    #expect(counts == counts.reversed())
    // Mid-ranks doubled: weights 3, 3 (two tied at ranks 1 and 2) and 6.
    #expect(
      Distributions.subsetSumCounts(weights: [3, 3, 6]) == [1, 0, 0, 2, 0, 0, 2, 0, 0, 2, 0, 0, 1])
  }
}

@Suite("Compare: paired t-test and Wilcoxon signed-rank test")
struct PairedTestsTests {
  @Test(
    arguments: [
      // (values, scipy ttest_rel p, scipy wilcoxon p); nil: scipy gives nan or refuses.
      ([1.5, -0.2, 3.1, 0.7, 2.2, -1.1], 0.16369678705963384, 0.21875),  // exact, n = 6
      ([1, 1, 2, -3, 4, -4, 5], 0.5222364406374199, 0.46875),  // ties: all 2^7 sign patterns
      ([0, 0, 1, 2, -3, 4, 5, 6], 0.12011999049279042, 0.15625),  // zeros: all 2^8
      ([1, -1, 2, -2], 1.0, 1.0),  // symmetric: p exactly 1 for both
      ([1.0, 3.0], 0.2951672353008665, 0.5),
    ] as [([Double], Double, Double)])
  func smallSamples(values: [Double], t: Double, wilcoxon: Double) {
    #expect(close(PairedTests.tTest(values), t, 1e-13), "t: \(values)")
    #expect(close(PairedTests.wilcoxon(values), wilcoxon, 1e-15), "wilcoxon: \(values)")
  }

  @Test(arguments: [
    ("asym60", 2.317730399911654e-07, 5.569421613489575e-06),
    ("exact50", 0.0858749794178109, 0.08226751834101265),
    ("asym30ties", 0.11150226907346647, 0.11662366473849281),
    ("asym40zeros", 0.07274117638293355, 0.07334023055225815),
    ("asym14ties", 0.09464234394064142, 0.09661420844785218),
  ])
  func largerSamples(name: String, t: Double, wilcoxon: Double) {
    let values = generated(name)
    #expect(close(PairedTests.tTest(values), t, 1e-12), "t: \(name)")
    #expect(close(PairedTests.wilcoxon(values), wilcoxon, 1e-12), "wilcoxon: \(name)")
  }

  @Test func edgeCasesFollowScipy() {
    // n = 1: no t-test (no variance); Wilcoxon's exact distribution gives 1.
    #expect(PairedTests.tTest([2.0]) == nil)
    #expect(PairedTests.wilcoxon([2.0]) == 1)
    #expect(PairedTests.wilcoxon([-1.5]) == 1)
    // No value at all, and one 0 (scipy refuses it).
    #expect(PairedTests.tTest([]) == nil)
    #expect(PairedTests.wilcoxon([]) == nil)
    #expect(PairedTests.wilcoxon([0]) == nil)
    // All 0: t = 0/0; Wilcoxon 1 over the enumerated sign patterns (n <= 13), undefined in
    // the normal approximation (n > 13) where scipy divides 0 by 0.
    #expect(PairedTests.tTest([0, 0, 0]) == nil)
    #expect(PairedTests.wilcoxon([0, 0, 0]) == 1)
    #expect(PairedTests.wilcoxon([Double](repeating: 0, count: 13)) == 1)
    #expect(PairedTests.wilcoxon([Double](repeating: 0, count: 20)) == nil)
    // All equal and not 0: t is infinite (p = 0); Wilcoxon exact: 2 / 2^5.
    #expect(PairedTests.tTest([0.5, 0.5, 0.5, 0.5, 0.5]) == 0)
    #expect(PairedTests.wilcoxon([0.5, 0.5, 0.5, 0.5, 0.5]) == 0.0625)
    // scipy: 9.6e-33 (its mean of 0.1 x 3 is not 0.1 exactly); 0 here: the same to 1e-9.
    #expect(PairedTests.tTest([0.1, 0.1, 0.1])! < 1e-30)
    // Not finite: nothing.
    #expect(PairedTests.tTest([1, .nan]) == nil)
    #expect(PairedTests.wilcoxon([1, .infinity]) == nil)
    // All positive, n = 10, no ties: only 1 of 2^10 patterns is as extreme on each side.
    #expect(PairedTests.wilcoxon((1...10).map(Double.init)) == 2.0 / 1024)
  }

  /// Diner by diner (numerator, denominator), baseline b = arm0 and arm a = arm1:
  /// u0 (1, 4) (2, 4); u1 (0, 2) (1, 3); u2 (0, 0) (0, 0); u3 (3, 5) (3, 5); u4 (2, 6) (1, 2).
  /// A ratio, its denominator as a count, and coverage.
  private func table() -> UnitTable {
    let metrics = [
      MetricSpec(name: "like_rate", definition: "", form: .ratio),
      MetricSpec(name: "cards_shown", definition: "", form: .total),
      MetricSpec(name: "catalog_coverage", definition: "", form: .coverage(catalogItems: 4)),
    ]
    let b = [(1.0, 4.0), (0, 2), (0, 0), (3, 5), (2, 6)]
    let a = [(2.0, 4.0), (1, 3), (0, 0), (3, 5), (1, 2)]
    let arms = [b, a].enumerated().map { n, sums in
      var arm = ArmUnits(arm: "arm\(n)", units: 5, metrics: 3)
      for (u, (num, den)) in sums.enumerated() {
        arm.add(unit: u, metric: 0, numerator: num, denominator: den)
        arm.add(unit: u, metric: 1, numerator: den)
        arm.items[u] = den > 0 ? [Int32(u % 4)] : []
      }
      return arm
    }
    return UnitTable(metrics: metrics, units: ["u0", "u1", "u2", "u3", "u4"], arms: arms)
  }

  @Test func pairedValuesOfARatioAreLinearisedAtThePooledRatio() throws {
    let t = table()
    // R0 = (7 + 6) / (14 + 17) = 13/31; z = (N_a - N_b) - R0 (D_a - D_b); u2 has no denominator
    // on either side and is left out; u3 is the same under both arms: exactly 0.
    let z = try #require(PairedTests.pairedValues(t, arm: 1, baseline: 0, metric: 0))
    let expected = [1, 1 - 13.0 / 31, 0, -1 + 4 * 13.0 / 31]
    #expect(z.count == 4)
    for (v, e) in zip(z, expected) { #expect(abs(v - e) < 1e-15) }
    #expect(z[2] == 0)
    // Swapping the arms swaps every sign exactly (R0 pools both arms).
    let swapped = try #require(PairedTests.pairedValues(t, arm: 0, baseline: 1, metric: 0))
    #expect(swapped == z.map { -$0 })
    // Their mean has the sign of the difference of the pooled ratios, 7/14 - 6/17 > 0.
    #expect(z.reduce(0, +) > 0)
    // A count: every diner's difference, the empty one too; coverage has none.
    #expect(PairedTests.pairedValues(t, arm: 1, baseline: 0, metric: 1) == [0, 1, 0, 0, -4])
    #expect(PairedTests.pairedValues(t, arm: 1, baseline: 0, metric: 2) == nil)
  }

  @Test func analyzeCarriesBothTestsPerMetric() throws {
    let (_, differences) = Resampling.analyze(
      table(), baseline: 0, options: ResamplingOptions(resamples: 50, seed: 3))
    let d = try #require(differences.first)
    // scipy on z = [1.0, 0.5806451612903225, 0.0, 0.6774193548387097]: ttest_rel(z, zeros)
    // 0.07326464459956081, wilcoxon(z) 0.25; on the counts' differences [0, 1, 0, 0, -4]:
    // ttest_rel 0.5291333003818579, wilcoxon 1.0.
    #expect(close(d.pT[0], 0.07326464459956081, 1e-13))
    #expect(d.pWilcoxon[0] == 0.25)
    #expect(close(d.pT[1], 0.5291333003818579, 1e-13))
    #expect(d.pWilcoxon[1] == 1)
    #expect(d.pT[2] == nil && d.pWilcoxon[2] == nil)
    #expect(d.pValues[2] != nil)
    // Adjusted ones need the report's family.
    #expect(d.pHolm.isEmpty && d.pBH.isEmpty)
  }

  @Test func anUndefinedDifferenceHasNoTests() throws {
    var arm0 = ArmUnits(arm: "a", units: 3, metrics: 1)
    var arm1 = ArmUnits(arm: "b", units: 3, metrics: 1)
    arm1.add(unit: 0, metric: 0, numerator: 1, denominator: 2)
    arm0.add(unit: 1, metric: 0, numerator: 0, denominator: 0)
    let t = UnitTable(
      metrics: [MetricSpec(name: "r", definition: "", form: .ratio)], units: ["x", "y", "z"],
      arms: [arm0, arm1])
    let (_, differences) = Resampling.analyze(
      t, baseline: 0, options: ResamplingOptions(resamples: 20, seed: 1))
    // The baseline's ratio has no denominator: no difference, no p-value of any kind.
    #expect(differences[0].estimates[0].value == nil)
    #expect(differences[0].pValues == [nil])
    #expect(differences[0].pT == [nil] && differences[0].pWilcoxon == [nil])
  }
}
