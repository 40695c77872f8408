import DeckCore
import DeckEvaluation

/// Three metrics (a count, a rate, a coverage), two arms, `popularity` the baseline. The count
/// has a non-whole lower bound, coverage is undefined for `popularity` and so is its difference,
/// like_rate is undefined on 2026-11-02 for `popularity`.
package func smallComparison(
  arms names: [String] = ["popularity", "affinity"],
  notes: [String] = [
    "catalog_coverage: undefined for popularity"
  ]
) -> ComparisonReport {
  let undefined = Estimate(value: nil, lower: nil, upper: nil)
  var report = ComparisonReport(
    title: "simulation: 40 diners x 2 days from 2026-11-01",
    parameters: [
      ReportParameter(name: "seed", value: "7"),
      ReportParameter(name: "strategies", value: names.joined(separator: ", ")),
    ],
    metrics: [
      MetricSpec(name: "decks", definition: "sessions", form: .total),
      MetricSpec(name: "like_rate", definition: "right_swipes / cards_shown", form: .ratio),
      MetricSpec(
        name: "catalog_coverage", definition: "distinct items shown / catalog items",
        form: .coverage(catalogItems: 10)),
    ],
    arms: [
      ArmSummary(
        arm: names[0],
        estimates: [
          Estimate(value: 120, lower: 110, upper: 131),
          Estimate(value: 0.25, lower: 0.2, upper: 0.3125),
          undefined,
        ]),
      ArmSummary(
        arm: names[1],
        estimates: [
          Estimate(value: 118, lower: 108.5, upper: 129),
          Estimate(value: 0.3125, lower: 0.25, upper: 0.375),
          Estimate(value: 0.4, lower: 0.4, upper: 0.4),
        ]),
    ],
    baseline: names[0],
    differences: [
      ArmDifference(
        arm: names[1], baseline: names[0],
        estimates: [
          Estimate(value: -2, lower: -6, upper: 3),
          Estimate(value: 0.0625, lower: 0.01, upper: 0.115),
          undefined,
        ],
        pValues: [0.52, 0.000_01, nil], pHolm: [0.52, 0.000_02, nil],
        pBH: [0.52, 0.000_02, nil], pT: [0.5, 3.125e-06, nil], pWilcoxon: [0.625, 0.000_125, nil])
    ],
    daily: [
      DailySeries(
        arm: names[0], metric: "like_rate",
        points: [DailyPoint(day: nov(1), value: 0.25), DailyPoint(day: nov(2), value: nil)]),
      DailySeries(
        arm: names[1], metric: "like_rate",
        points: [
          DailyPoint(day: nov(1), value: 0.3, lower: 0.25, upper: 0.375),
          DailyPoint(day: nov(2), value: 0.325),
        ]),
    ],
    level: 0.95, resamples: 1000, units: 40, notes: notes)
  // Two tests (decks and like_rate; coverage is undefined), 999 permutations given.
  report.significance = PermutationCount.choose(tests: 2, alpha: 0.05, units: 40, given: 999)
  return report
}
