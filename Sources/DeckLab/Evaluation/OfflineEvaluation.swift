import Foundation

/// The metrics of offline evaluation on logs, in table column order, with their stable names.
///
/// Terms used in the definitions:
/// - logs are split in time at the split date: strategies learn from the events before it (the
///   *training* period) and are scored on the events from it on (the *evaluation* period).
/// - a diner's *relevant* items are the items they swiped right in the evaluation period; the
///   diner's *list* is the ranking a strategy built for them from the training history, in the
///   deck builder's order (its deterministic tie-break: the list is never reordered here); the
///   *top k* is the list's first k cards (fewer when the list is shorter).
/// - an *evaluated* diner has at least one relevant item. Diners without one cannot be scored by
///   the accuracy metrics (recall, NDCG and AP divide by the number of relevant items) and are
///   left out of every metric, so that all metrics describe the same diners; trec_eval leaves such
///   queries out too. `OfflineEvaluation.Result.usersWithoutRelevant` lists them for a note.
/// - an evaluated diner whose list is empty still counts, with 0 for every accuracy metric
///   (trec_eval counts such a query only with `-c`).
/// - the *training popularity* of an item is its right swipes before the split date (every right
///   swipe, by any diner, `History.itemRight`). Right swipes, not shows: shows say what the old
///   logging strategy chose to put on top, and a dish shown often and swiped left is not popular;
///   right swipes are the diners' own choices, the signal that also defines relevance.
///
/// Choices, and why:
/// - `novelty` smooths with add-one (Laplace) over the catalog, p(i) = (pop(i) + 1) / (Σ pop + N)
///   for a catalog of N items: every item, also one never picked in training, has a finite
///   novelty, the p(i) still sum to 1, and without any training data every item has
///   log2(N) bits.
/// - `intra_list_diversity` is the classic intra-list diversity with a category distance (0 for
///   two cards of one category, 1 otherwise): the share of pairs of top-k cards in different
///   categories. It lies in [0, 1] (0: one category; 1: every card its own), does not reward a
///   long list for its length, and does not give a single card full marks, as distinct categories
///   / list length would. Lists with fewer than two cards have no pairs and are left out of it.
/// - `popularity_bias` is the mean popularity percentile of the recommended cards, with mid-ranks
///   for ties: pct(i) = (items less popular than i + items as popular as i, i included, / 2) / N.
///   Over the whole catalog pct averages exactly 0.5, so 0.5 reads "as popular as a random catalog
///   item", above 0.5 leans to popular dishes, below to the long tail; it needs no scale and is
///   comparable between data sets.
/// - `novelty` and `popularity_bias` average over recommended cards (every top-k card of every
///   evaluated diner weighs the same, like `novelty` in `stats`); the accuracy metrics and
///   `intra_list_diversity` average over diners (each diner weighs the same).
package enum OfflineMetric: Int, Sendable, CaseIterable {
  case precisionAtK
  case recallAtK
  case ndcgAtK
  case mapAtK
  case mrr
  case hitRateAtK
  case catalogCoverage
  case novelty
  case intraListDiversity
  case popularityBias

  /// The stable snake_case name (k is not part of it: it is a report parameter).
  package var name: String {
    switch self {
    case .precisionAtK: "precision_at_k"
    case .recallAtK: "recall_at_k"
    case .ndcgAtK: "ndcg_at_k"
    case .mapAtK: "map_at_k"
    case .mrr: "mrr"
    case .hitRateAtK: "hit_rate_at_k"
    case .catalogCoverage: "catalog_coverage"
    case .novelty: "novelty"
    case .intraListDiversity: "intra_list_diversity"
    case .popularityBias: "popularity_bias"
    }
  }

  /// One line saying exactly how the metric is computed, with the cutoff `k` written in.
  package func definition(k: Int) -> String {
    let cut = "k = \(k)"
    switch self {
    case .precisionAtK:
      return "mean over evaluated diners of (relevant items in the top k) / k, also when the list"
        + " is shorter; \(cut) (trec_eval P_k)"
    case .recallAtK:
      return "mean over evaluated diners of (relevant items in the top k) / (relevant items);"
        + " \(cut) (trec_eval recall_k)"
    case .ndcgAtK:
      return "mean over evaluated diners of DCG@k / ideal DCG@k, gain 1 for a relevant item,"
        + " discount 1/log2(rank+1), ideal = all relevant items first, cut at k; \(cut)"
        + " (trec_eval ndcg_cut_k)"
    case .mapAtK:
      return "mean over evaluated diners of the sum over relevant items at rank r <= k of"
        + " precision@r, / (relevant items); \(cut) (trec_eval map_cut_k)"
    case .mrr:
      return "mean over evaluated diners of 1 / rank of the first relevant item in the whole list,"
        + " 0 when there is none (trec_eval recip_rank)"
    case .hitRateAtK:
      return "share of evaluated diners with at least one relevant item in the top k; \(cut)"
    case .catalogCoverage:
      return "distinct items in the top k of evaluated diners / catalog items; \(cut)"
    case .novelty:
      return "mean over top-k cards of -log2 p(i), p(i) = (training right swipes of i + 1) /"
        + " (training right swipes + catalog items); \(cut)"
    case .intraListDiversity:
      return "mean over evaluated diners with at least 2 cards in the top k of the share of pairs"
        + " of those cards in different categories; \(cut)"
    case .popularityBias:
      return "mean over top-k cards of the item's training-popularity percentile in the catalog"
        + " (mid-rank for ties; 0.5 = a random catalog item); \(cut)"
    }
  }
}

/// One strategy's rankings for an offline evaluation: per diner, catalog indices with rank 1
/// first and no item twice, in the order of the diners given to `OfflineEvaluation.evaluate`.
package struct OfflineArm: Sendable, Equatable {
  package var name: String
  package var rankings: [[Int32]]

  package init(name: String, rankings: [[Int32]]) {
    self.name = name
    self.rankings = rankings
  }
}

/// Offline ranking metrics on logs with a temporal split, as per-diner sums for the bootstrap
/// (`UnitTable`). See `OfflineMetric` for the definitions and `RankingMetrics` for the accuracy
/// metrics of one diner.
///
/// Every metric of a diner is (numerator, denominator) with the diner's value and weight, so
/// that the table's value (Σ numerators / Σ denominators) is the mean the definition names:
/// - accuracy metrics: (the diner's value, 1);
/// - `novelty`, `popularity_bias`: (sum over the diner's top-k cards, number of those cards);
/// - `intra_list_diversity`: (the diner's share, 1), or (0, 0) for fewer than two cards;
/// - `catalog_coverage`: `ArmUnits.items` holds the diner's top-k items, sorted.
package struct OfflineEvaluation: Sendable {
  /// The cutoff of every @k metric and of the top k the other metrics look at.
  package let k: Int
  /// Per catalog index, its category index (`Catalog.itemCategory`).
  package let itemCategory: [Int32]
  /// Per catalog index, its right swipes before the split date (`History.itemRight` of the
  /// training history).
  package let trainingPopularity: [Int32]
  /// Per catalog index, -log2 of its smoothed training popularity (see `OfflineMetric.novelty`).
  package let noveltyBits: [Double]
  /// Per catalog index, its mid-rank popularity percentile (see `OfflineMetric.popularityBias`).
  package let popularityPercentile: [Double]

  /// The diner-level sums, and the diners that were left out.
  package struct Result: Sendable, Equatable {
    /// One unit per evaluated diner, in the order given; the metrics in `OfflineMetric` order.
    package var table: UnitTable
    /// Diners left out because they have no relevant item, in the order given.
    package var usersWithoutRelevant: [String]

    package init(table: UnitTable, usersWithoutRelevant: [String]) {
      self.table = table
      self.usersWithoutRelevant = usersWithoutRelevant
    }
  }

  /// An evaluation at cutoff `k` (≥ 1) over a catalog of `itemCategory.count` items;
  /// `trainingPopularity` has one non-negative count per catalog item.
  package init(k: Int, itemCategory: [Int32], trainingPopularity: [Int32]) {
    precondition(k >= 1, "the cutoff k must be at least 1, got \(k)")
    precondition(
      trainingPopularity.count == itemCategory.count,
      "one training popularity per catalog item: \(trainingPopularity.count) for"
        + " \(itemCategory.count) items")
    precondition(trainingPopularity.allSatisfy { $0 >= 0 }, "popularity counts are non-negative")
    self.k = k
    self.itemCategory = itemCategory
    self.trainingPopularity = trainingPopularity
    noveltyBits = Self.noveltyBits(trainingPopularity)
    popularityPercentile = Self.midRankPercentiles(trainingPopularity)
  }

  /// Catalog items.
  package var catalogSize: Int { itemCategory.count }

  /// The metric list of the table, in `OfflineMetric` order, with k written into the definitions.
  package var metrics: [MetricSpec] {
    OfflineMetric.allCases.map { metric in
      let form: MetricForm =
        metric == .catalogCoverage ? .coverage(catalogItems: catalogSize) : .ratio
      return MetricSpec(name: metric.name, definition: metric.definition(k: k), form: form)
    }
  }

  /// Scores every arm on every diner with at least one relevant item.
  ///
  /// - Parameters:
  ///   - users: diner ids, distinct, ascending by UTF-8 bytes (the `UnitTable` order).
  ///   - relevant: per diner (same order), the catalog indices they swiped right in the
  ///     evaluation period (any order; repeats count once).
  ///   - arms: per strategy, one ranking per diner (same order). Rankings of diners without a
  ///     relevant item are not looked at.
  package func evaluate(users: [String], relevant: [[Int32]], arms: [OfflineArm]) -> Result {
    precondition(relevant.count == users.count, "one relevant list per user")
    precondition(
      zip(users, users.dropFirst()).allSatisfy { $0.utf8.lexicographicallyPrecedes($1.utf8) },
      "users must be distinct and ascending by UTF-8 bytes")
    precondition(arms.allSatisfy { $0.rankings.count == users.count }, "one ranking per user")
    for list in relevant { checkIndices(list) }

    var evaluated: [Int] = []
    var relevantSets: [Set<Int32>] = []
    var leftOut: [String] = []
    for (u, list) in relevant.enumerated() {
      if list.isEmpty {
        leftOut.append(users[u])
      } else {
        evaluated.append(u)
        relevantSets.append(Set(list))
      }
    }

    let metricCount = OfflineMetric.allCases.count
    var tables: [ArmUnits] = []
    for arm in arms {
      var units = ArmUnits(arm: arm.name, units: evaluated.count, metrics: metricCount)
      for (unit, u) in evaluated.enumerated() {
        let ranking = arm.rankings[u]
        checkIndices(ranking)
        score(ranking, relevant: relevantSets[unit], unit: unit, into: &units)
      }
      tables.append(units)
    }
    let table = UnitTable(metrics: metrics, units: evaluated.map { users[$0] }, arms: tables)
    return Result(table: table, usersWithoutRelevant: leftOut)
  }

  private func score(
    _ ranking: [Int32], relevant: Set<Int32>, unit: Int, into units: inout ArmUnits
  ) {
    // `relevant` is not empty here, so the diner has scores.
    let accuracy = RankingMetrics(ranking: ranking, relevant: relevant, k: k)!
    let top = ranking.prefix(k)
    func add(_ metric: OfflineMetric, _ numerator: Double, _ denominator: Double) {
      units.add(unit: unit, metric: metric.rawValue, numerator: numerator, denominator: denominator)
    }
    add(.precisionAtK, accuracy.precision, 1)
    add(.recallAtK, accuracy.recall, 1)
    add(.ndcgAtK, accuracy.ndcg, 1)
    add(.mapAtK, accuracy.averagePrecision, 1)
    add(.mrr, accuracy.reciprocalRank, 1)
    add(.hitRateAtK, accuracy.hit, 1)
    units.items[unit] = top.sorted()

    var bits = 0.0
    var percentiles = 0.0
    for item in top {
      bits += noveltyBits[Int(item)]
      percentiles += popularityPercentile[Int(item)]
    }
    add(.novelty, bits, Double(top.count))
    add(.popularityBias, percentiles, Double(top.count))
    if let share = Self.differentCategoryShare(top.map { itemCategory[Int($0)] }) {
      add(.intraListDiversity, share, 1)
    }
  }

  private func checkIndices(_ items: [Int32]) {
    for item in items {
      precondition(
        item >= 0 && Int(item) < catalogSize,
        "catalog index \(item) out of range for \(catalogSize) items")
    }
  }

  /// -log2((pop(i) + 1) / (Σ pop + N)) per item.
  static func noveltyBits(_ popularity: [Int32]) -> [Double] {
    let total = popularity.reduce(0) { $0 + Double($1) } + Double(popularity.count)
    return popularity.map { -log2((Double($0) + 1) / total) }
  }

  /// (items with a smaller count + items with an equal count, itself included, / 2) / N per
  /// item: the mid-rank percentile, whose mean over all items is exactly 0.5.
  static func midRankPercentiles(_ popularity: [Int32]) -> [Double] {
    let sorted = popularity.sorted()
    let n = Double(popularity.count)
    return popularity.map { count in
      let below = sorted.partitioningIndex { $0 >= count }
      let upTo = sorted.partitioningIndex { $0 > count }
      return (Double(below) + Double(upTo - below) / 2) / n
    }
  }

  /// The share of unordered pairs of `categories` whose two values differ; nil for fewer than two.
  static func differentCategoryShare(_ categories: [Int32]) -> Double? {
    let n = categories.count
    guard n >= 2 else { return nil }
    let sorted = categories.sorted()
    var samePairs = 0
    var run = 1
    for i in 1...n {
      if i < n && sorted[i] == sorted[i - 1] {
        run += 1
      } else {
        samePairs += run * (run - 1) / 2
        run = 1
      }
    }
    let pairs = n * (n - 1) / 2
    return Double(pairs - samePairs) / Double(pairs)
  }
}

extension Array {
  /// The first index whose element satisfies `belongs`, for an array partitioned so that every
  /// element that does comes after every element that does not (binary search).
  fileprivate func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
    var low = 0
    var high = count
    while low < high {
      let mid = (low + high) / 2
      if belongs(self[mid]) { high = mid } else { low = mid + 1 }
    }
    return low
  }
}
