import DeckBase

/// Adjusted p-values for the many tests of one report: with 9 arms against a baseline and 16
/// metrics, `compare` tests 144 differences at once, and at p < 0.05 about 7 of them would come
/// out "significant" by chance alone when no arm differs from the baseline.
///
/// **The family** is every randomization-test p-value of the report's differences (every
/// non-baseline arm x every metric) that is defined; an undefined one (no estimate on either
/// side) is not a test and is left out. The t-test and Wilcoxon p-values are not adjusted: they
/// test the same hypotheses again, as a check of the randomization test, not as more tests.
///
/// Both adjustments give, per test, the smallest level at which the procedure would reject it,
/// capped at 1, as statsmodels' `multipletests(p, method="holm")` and `method="fdr_bh"` do
/// (p sorted ascending, p₍₁₎ ≤ ... ≤ p₍ₘ₎, for m tests):
/// - **Holm** (step-down, controls the family-wise error rate: the chance of any false positive):
///   p̃₍ᵢ₎ = min(1, max_{j ≤ i} (m − j + 1)·p₍ⱼ₎).
/// - **Benjamini-Hochberg** (controls the false discovery rate: the expected share of false
///   positives among the rejected): p̃₍ᵢ₎ = min(1, min_{j ≥ i} p₍ⱼ₎ / (j / m)).
/// Both are monotone in p and never below it. Tied p-values get the same adjusted value.
package enum MultipleComparisons {
  /// Holm's step-down adjusted p-values, in the order of `p`.
  package static func holm(_ p: [Double]) -> [Double] {
    let m = p.count
    let order = p.indices.sorted { p[$0] < p[$1] }
    var adjusted = [Double](repeating: 0, count: m)
    var running = 0.0
    for (i, index) in order.enumerated() {
      running = max(running, p[index] * Double(m - i))
      adjusted[index] = min(1, running)
    }
    return adjusted
  }

  /// Benjamini-Hochberg adjusted p-values (the false discovery rate), in the order of `p`.
  package static func benjaminiHochberg(_ p: [Double]) -> [Double] {
    let m = p.count
    let order = p.indices.sorted { p[$0] < p[$1] }
    var adjusted = [Double](repeating: 0, count: m)
    var running = Double.infinity
    for i in stride(from: m - 1, through: 0, by: -1) {
      let index = order[i]
      // p / (rank / m), the division statsmodels does, so that results agree to the last bit.
      running = min(running, p[index] / (Double(i + 1) / Double(m)))
      adjusted[index] = min(1, running)
    }
    return adjusted
  }

  /// The name of the report parameter that states the family.
  package static let familyParameter = "p_adjust_family"
  /// The name of the report parameter that states the adjustments.
  package static let methodParameter = "p_adjust"
  package static let methodDescription =
    "p_holm: Holm step-down; p_bh: Benjamini-Hochberg; of the randomization p-values"

  /// The family's definition for `report`: "arm x metric: N tests (K arms x M metrics, U
  /// undefined left out)".
  package static func familyDescription(tests: Int, arms: Int, metrics: Int) -> String {
    let left = arms * metrics - tests
    return "arm x metric: \(tests) test\(tests == 1 ? "" : "s") (\(arms) arm\(arms == 1 ? "" : "s")"
      + " x \(metrics) metric\(metrics == 1 ? "" : "s")"
      + (left > 0 ? ", \(left) undefined left out)" : ")")
  }

  /// Fills `pHolm` and `pBH` of every difference of `report` over the family of its defined
  /// randomization p-values, and states the family and the methods in its parameters (replacing
  /// earlier ones). A report without differences is left as it is.
  package static func adjust(_ report: inout ComparisonReport) {
    guard !report.differences.isEmpty else { return }
    let metrics = report.metrics.count
    var family: [Double] = []
    var places: [(difference: Int, metric: Int)] = []
    for (d, difference) in report.differences.enumerated() {
      for m in 0..<metrics {
        guard m < difference.pValues.count, let p = difference.pValues[m], p.isFinite else {
          continue
        }
        family.append(p)
        places.append((d, m))
      }
    }
    let holm = holm(family)
    let bh = benjaminiHochberg(family)
    for d in report.differences.indices {
      report.differences[d].pHolm = [Double?](repeating: nil, count: metrics)
      report.differences[d].pBH = [Double?](repeating: nil, count: metrics)
    }
    for (i, place) in places.enumerated() {
      report.differences[place.difference].pHolm[place.metric] = holm[i]
      report.differences[place.difference].pBH[place.metric] = bh[i]
    }
    report.parameters.removeAll {
      $0.name == familyParameter || $0.name == methodParameter
    }
    let description = familyDescription(
      tests: family.count, arms: report.differences.count, metrics: metrics)
    report.parameters.append(
      ReportParameter(
        name: familyParameter, value: description,
        json: "{\"tests\":\(family.count),\"arms\":\(report.differences.count),"
          + "\"metrics\":\(metrics),\"description\":" + JSONText.string(description) + "}"))
    report.parameters.append(ReportParameter(name: methodParameter, value: methodDescription))
  }
}
