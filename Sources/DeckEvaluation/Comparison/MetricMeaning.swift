/// Which way a metric is better, for a reader who wants to rank the arms.
package enum MetricDirection: String, Sendable, Equatable, CaseIterable {
  /// More is better (like rate, NDCG, an off-policy estimate of likes).
  case higher
  /// Less is better (swipes to the pick, abandoned sessions, regret).
  case lower
  /// Neither is better by itself: a volume (sessions, cards), or a trait whose right amount is
  /// the analyst's choice (coverage, novelty, diversity, repeat picks, popularity bias).
  case neither

  /// `↑`, `↓` or `·`.
  package var arrow: String {
    switch self {
    case .higher: "↑"
    case .lower: "↓"
    case .neither: "·"
    }
  }

  package var phrase: String {
    switch self {
    case .higher: "higher is better"
    case .lower: "lower is better"
    case .neither: "neither higher nor lower is better"
    }
  }
}

/// The direction and unit of every metric menudeck reports, keyed by its name: what a chart's
/// axis is titled, and which arm a leaderboard calls best. The one table; docs/metrics.md
/// ("Directions and units") lists the same.
package struct MetricMeaning: Sendable, Equatable {
  package var direction: MetricDirection
  /// What one unit of the value is, for an axis title: `likes per card`, `bits per card`.
  package var unit: String

  package init(_ direction: MetricDirection, _ unit: String) {
    self.direction = direction
    self.unit = unit
  }

  /// The meaning of the metric named `name`, nil for a name menudeck does not define. A
  /// per-cutoff ranking metric is found by its stem (`precision_at_5` as `precision_at_`), a
  /// per-position off-policy one by its estimator (`ips_p3` as `ips`).
  package static func of(_ name: String) -> MetricMeaning? {
    if let exact = byName[name] { return exact }
    if let cut = name.range(of: "_at_", options: .backwards) {
      let k = name[cut.upperBound...]
      if !k.isEmpty && k.allSatisfy(\.isASCIIDigit) {
        return byStem[String(name[..<cut.upperBound])]
      }
    }
    if let p = name.range(of: "_p", options: .backwards) {
      let position = name[p.upperBound...]
      let estimator = String(name[..<p.lowerBound])
      if !position.isEmpty && position.allSatisfy(\.isASCIIDigit),
        OffPolicy.Estimator(rawValue: estimator) != nil
      {
        return byName[estimator]
      }
    }
    return nil
  }

  private static let perCard = "likes per logged card"
  private static let perDeck = "likes per logged deck"
  private static let ofSessions = "share of sessions"

  /// The metrics by their exact names.
  static let byName: [String: MetricMeaning] = [
    // Stats metrics (stats, simulate, compare in a simulation).
    "decks": MetricMeaning(.neither, "sessions"),
    "cards_shown": MetricMeaning(.neither, "cards"),
    "right_swipes": MetricMeaning(.neither, "right swipes"),
    "left_swipes": MetricMeaning(.neither, "left swipes"),
    "like_rate": MetricMeaning(.higher, "likes per card"),
    "new_dish_like_rate": MetricMeaning(.higher, "likes per card of a dish in its first days"),
    "pick_rate": MetricMeaning(.higher, ofSessions),
    "mean_swipes_to_pick": MetricMeaning(.lower, "swipes"),
    "abandon_rate": MetricMeaning(.lower, ofSessions),
    "finished_without_pick_rate": MetricMeaning(.lower, ofSessions),
    "catalog_coverage": MetricMeaning(.neither, "share of the catalog"),
    "intra_deck_diversity": MetricMeaning(.neither, "categories per session"),
    "novelty": MetricMeaning(.neither, "bits per card"),
    "repeat_pick_rate": MetricMeaning(.neither, "share of picks"),
    "mean_pick_utility": MetricMeaning(.higher, "true utility"),
    "mean_regret": MetricMeaning(.lower, "true utility"),
    "ndcg_at_k": MetricMeaning(.higher, "NDCG, 0 to 1"),
    // Ranking metrics (compare on logs); the per-cutoff ones are in `byStem`.
    "mrr": MetricMeaning(.higher, "reciprocal rank"),
    "intra_list_diversity": MetricMeaning(.neither, "share of card pairs"),
    "popularity_bias": MetricMeaning(.neither, "popularity percentile"),
    // Off-policy estimates (compare --ope).
    "replay": MetricMeaning(.higher, "likes per matched card"),
    "ips": MetricMeaning(.higher, perCard),
    "snips": MetricMeaning(.higher, perCard),
    "dm": MetricMeaning(.higher, perCard),
    "dr": MetricMeaning(.higher, perCard),
    "ips_clip": MetricMeaning(.higher, perCard),
    "dr_clip": MetricMeaning(.higher, perCard),
    "switch_dr": MetricMeaning(.higher, perCard),
    "dm_cf": MetricMeaning(.higher, perCard),
    "dr_cf": MetricMeaning(.higher, perCard),
    "iips": MetricMeaning(.higher, perDeck),
    "rips": MetricMeaning(.higher, perDeck),
    "sips": MetricMeaning(.higher, perDeck),
    "cascade_dr": MetricMeaning(.higher, perDeck),
    "replay_matches": MetricMeaning(.neither, "cards"),
    "evaluated_cards": MetricMeaning(.neither, "cards"),
  ]

  /// The per-cutoff ranking metrics, by their name up to the cut-off (`precision_at_5`).
  static let byStem: [String: MetricMeaning] = [
    "precision_at_": MetricMeaning(.higher, "share of the top k"),
    "recall_at_": MetricMeaning(.higher, "share of relevant dishes"),
    "ndcg_at_": MetricMeaning(.higher, "NDCG, 0 to 1"),
    "map_at_": MetricMeaning(.higher, "AP, 0 to 1"),
    "hit_rate_at_": MetricMeaning(.higher, "share of diners"),
  ]
}

extension Character {
  fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
