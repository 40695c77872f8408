import DeckEvaluation

/// What the summary of the HTML report says first: the headline metrics, the best arm of each,
/// and the differences from the baseline that survive Holm's adjustment.
enum ReportSummary {
  /// The headline metrics, in this order, those the report has: in a simulation the diner's
  /// experience (like and pick rates, swipes to a pick, abandoned sessions) and the ground
  /// truth's regret and NDCG; on logs the ranking metrics at the largest cut-off (NDCG,
  /// precision, recall) and MRR, and with --ope the IPS, SNIPS and DR estimates and the
  /// cascade-DR slate estimate. `<k>` stands for the largest cut-off.
  static let headline = [
    "like_rate", "pick_rate", "mean_swipes_to_pick", "abandon_rate", "mean_regret", "ndcg_at_k",
    "ndcg_at_<k>", "precision_at_<k>", "recall_at_<k>", "mrr", "ips", "snips", "dr", "cascade_dr",
  ]

  /// The most headline columns when the report has none of `headline`: its first metrics with a
  /// direction.
  static let fallbackCount = 6

  /// The indices (in `report.metrics`) of the headline metrics.
  static func headlineMetrics(_ report: ComparisonReport) -> [Int] {
    let names = report.metrics.map(\.name)
    // The largest cut-off of the ranking metrics: the k of `ndcg_at_<k>` (every ranking metric
    // has the same cut-offs).
    let cutoffs = names.compactMap { name -> Int? in
      guard name.hasPrefix("ndcg_at_") else { return nil }
      return Int(name.dropFirst("ndcg_at_".count))
    }
    var picked: [Int] = []
    for wanted in headline {
      let name =
        wanted.hasSuffix("_<k>")
        ? cutoffs.max().map { String(wanted.dropLast(3)) + "\($0)" } : wanted
      guard let name, let m = names.firstIndex(of: name), !picked.contains(m) else { continue }
      picked.append(m)
    }
    if picked.isEmpty {
      picked = Array(
        report.metrics.indices.filter { report.metrics[$0].direction != .neither }
          .prefix(fallbackCount))
    }
    return picked.isEmpty ? Array(report.metrics.indices.prefix(fallbackCount)) : picked
  }

  /// The arms (indices in `report.arms`) with the best value of metric `m` by its direction
  /// (ties all), empty when it has no direction or fewer than two arms define it.
  static func best(_ report: ComparisonReport, metric m: Int) -> [Int] {
    let direction = report.metrics[m].direction
    guard direction != .neither else { return [] }
    let values = report.arms.indices.compactMap { a -> (Int, Double)? in
      guard let v = ReportText.estimate(report.arms[a].estimates, m).value, v.isFinite else {
        return nil
      }
      return (a, v)
    }
    guard values.count >= 2 else { return [] }
    let target =
      direction == .higher ? values.map(\.1).max()! : values.map(\.1).min()!
    return values.filter { $0.1 == target }.map(\.0)
  }

  /// The significance level of the marks: 1 − the report's confidence level (0.05 at 95%), so
  /// that a marked difference is one whose interval and adjusted test agree on the same level
  /// (`MultipleComparisons.alpha`).
  static func alpha(_ report: ComparisonReport) -> Double {
    MultipleComparisons.alpha(level: report.level)
  }

  /// How a difference compares with the baseline.
  enum Verdict: Equatable {
    /// Holm-adjusted p below `alpha`: the arm is higher (or lower) than the baseline.
    case higher, lower
    /// Not significant after Holm's adjustment, or undefined.
    case notSignificant

    /// Better or worse by the metric's direction, nil when it has none or no difference shows.
    func isBetter(_ direction: MetricDirection) -> Bool? {
      switch (self, direction) {
      case (.notSignificant, _), (_, .neither): nil
      case (.higher, .higher), (.lower, .lower): true
      default: false
      }
    }
  }

  /// Whether difference `d` on metric `m` is significant after Holm's adjustment (its `p_holm`
  /// below `alpha`), and in which direction (the sign of the difference).
  static func verdict(_ report: ComparisonReport, _ d: ArmDifference, metric m: Int) -> Verdict {
    guard let holm = ArmDifference.at(d.pHolm, m), holm.isFinite, holm < alpha(report),
      let value = ReportText.estimate(d.estimates, m).value, value.isFinite, value != 0
    else { return .notSignificant }
    return value > 0 ? .higher : .lower
  }

  /// The number of tests in the family Holm adjusted over (`MultipleComparisons.familyTests`).
  static func familyTests(_ report: ComparisonReport) -> Int {
    MultipleComparisons.familyTests(report)
  }
}
