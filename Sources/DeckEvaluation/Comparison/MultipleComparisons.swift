import DeckBase

/// Adjusted p-values for the many tests of one report: with 9 arms against a baseline and 16
/// metrics, `compare` tests 144 differences at once, and at p < 0.05 about 7 of them would come
/// out "significant" by chance alone when no arm differs from the baseline.
///
/// **The family** is every randomization-test p-value of the report's differences (every
/// non-baseline arm x every metric) that is defined, except those of two arms identical for
/// every diner. An undefined one (no estimate on either side) is not a test and is left out. An
/// identical one (`Resampling.identical`: `decks` in a simulation, where common random numbers
/// give every strategy the same sessions) cannot reject whatever the data: every permutation
/// gives the observed 0 and p = 1. Left in, it would only raise every other test's Holm factor;
/// left out, the family's error rate is unchanged (it is never rejected: its p-value and both
/// adjusted ones are 1), and the others stay valid, as being identical is not changed by any
/// swap of a diner's two arms, so conditioning on it leaves each test's permutation distribution
/// as it was. The t-test and Wilcoxon p-values are not adjusted: they test the same hypotheses
/// again, as a check of the randomization test, not as more tests.
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

  /// The significance level of a report at confidence level `level`: 1 − level, rounded to 12
  /// decimals (1 − 0.95 is 0.05000000000000004 in binary, and a Holm p of exactly 0.05 must not
  /// count as below 0.05), so that a difference called significant is one whose interval and
  /// adjusted test agree on the same level.
  package static func alpha(level: Double) -> Double {
    ((1 - level) * 1e12).rounded() / 1e12
  }

  /// Whether difference `d`'s metric `n` is in the report's family: its randomization p-value
  /// is defined and its two arms are not identical for every diner.
  package static func inFamily(_ d: ArmDifference, _ n: Int) -> Bool {
    guard let p = ArmDifference.at(d.pValues, n), p.isFinite else { return false }
    return !d.isIdentical(n)
  }

  /// The tests of the family of `report` (see the type's documentation).
  package static func familyTests(_ report: ComparisonReport) -> Int {
    report.differences.reduce(0) { sum, d in
      sum + report.metrics.indices.filter { inFamily(d, $0) }.count
    }
  }

  /// The name of the report parameter that states the family.
  package static let familyParameter = "p_adjust_family"
  /// The name of the report parameter that states the adjustments.
  package static let methodParameter = "p_adjust"
  package static let methodDescription =
    "p_holm: Holm step-down; p_bh: Benjamini-Hochberg; of the randomization p-values"

  /// The family's definition for `report`: "arm x metric: N tests (K arms x M metrics, U
  /// undefined and I identical for every diner left out)".
  package static func familyDescription(tests: Int, arms: Int, metrics: Int, identical: Int = 0)
    -> String
  {
    let undefined = arms * metrics - tests - identical
    var left: [String] = []
    if undefined > 0 { left.append("\(undefined) undefined") }
    if identical > 0 { left.append("\(identical) identical for every diner") }
    return "arm x metric: \(tests) test\(tests == 1 ? "" : "s") (\(arms) arm\(arms == 1 ? "" : "s")"
      + " x \(metrics) metric\(metrics == 1 ? "" : "s")"
      + (left.isEmpty ? ")" : ", " + left.joined(separator: " and ") + " left out)")
  }

  /// Fills `pHolm` and `pBH` of every difference of `report` over the family of its defined
  /// randomization p-values (an identical one gets 1 for both, outside the family), states the
  /// family and the methods in its parameters (replacing earlier ones), and sets the family's
  /// size in `report.significance`. A report without differences is left as it is.
  package static func adjust(_ report: inout ComparisonReport) {
    guard !report.differences.isEmpty else { return }
    let metrics = report.metrics.count
    var family: [Double] = []
    var places: [(difference: Int, metric: Int)] = []
    var identical: [(arm: String, metric: String)] = []
    for (d, difference) in report.differences.enumerated() {
      for m in 0..<metrics {
        guard let p = ArmDifference.at(difference.pValues, m), p.isFinite else { continue }
        if difference.isIdentical(m) {
          identical.append((difference.arm, report.metrics[m].name))
          continue
        }
        family.append(p)
        places.append((d, m))
      }
    }
    let holm = holm(family)
    let bh = benjaminiHochberg(family)
    for d in report.differences.indices {
      let difference = report.differences[d]
      report.differences[d].pHolm = (0..<metrics).map { m -> Double? in
        guard let p = ArmDifference.at(difference.pValues, m), p.isFinite,
          difference.isIdentical(m)
        else { return nil }
        return 1
      }
      report.differences[d].pBH = report.differences[d].pHolm
    }
    for (i, place) in places.enumerated() {
      report.differences[place.difference].pHolm[place.metric] = holm[i]
      report.differences[place.difference].pBH[place.metric] = bh[i]
    }
    report.parameters.removeAll {
      $0.name == familyParameter || $0.name == methodParameter
    }
    let description = familyDescription(
      tests: family.count, arms: report.differences.count, metrics: metrics,
      identical: identical.count)
    let arms = report.differences.count
    report.parameters.append(
      ReportParameter(
        name: familyParameter, value: description,
        json: JSONWriter.text { w in
          w.beginObject()
          w.field("tests", int: family.count)
          w.field("arms", int: arms)
          w.field("metrics", int: metrics)
          w.key("identical")
          w.arrayOfObjects(identical) { w, pair in
            w.field("arm", pair.arm)
            w.field("metric", pair.metric)
          }
          w.field("description", description)
          w.endObject()
        }))
    report.parameters.append(ReportParameter(name: methodParameter, value: methodDescription))
    report.significance?.tests = family.count
  }
}
