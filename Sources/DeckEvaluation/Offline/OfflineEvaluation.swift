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
/// - *cutoffs*: the accuracy metrics at k (precision, recall, NDCG, AP, hit rate) are computed at
///   every cutoff asked for (`precision_at_1`, `precision_at_5`, ...); the reciprocal rank looks
///   at the whole list; coverage, novelty, diversity and popularity bias look at the top k of the
///   largest cutoff, once: they describe what the diner is shown, and one value each keeps the
///   report short (at a single cutoff this is the top k, as it always was).
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

  /// Whether the metric is reported at every cutoff (`precision_at_5`, `precision_at_10`, ...);
  /// the others are reported once: `mrr` over the whole list, the beyond-accuracy metrics
  /// (coverage, novelty, diversity, popularity bias) at the largest cutoff.
  package var isPerCutoff: Bool {
    switch self {
    case .precisionAtK, .recallAtK, .ndcgAtK, .mapAtK, .hitRateAtK: true
    case .mrr, .catalogCoverage, .novelty, .intraListDiversity, .popularityBias: false
    }
  }

  /// The stable snake_case name at cutoff `k`: `precision_at_5`, `ndcg_at_10`; a metric that is
  /// not per cutoff has one name whatever `k` is (`mrr`, `catalog_coverage`).
  package func name(k: Int) -> String {
    isPerCutoff ? "\(stem)_at_\(k)" : stem
  }

  /// The name with `<k>` for the cutoff, as the documentation lists it: `precision_at_<k>`.
  package var pattern: String { isPerCutoff ? "\(stem)_at_<k>" : stem }

  private var stem: String {
    switch self {
    case .precisionAtK: "precision"
    case .recallAtK: "recall"
    case .ndcgAtK: "ndcg"
    case .mapAtK: "map"
    case .mrr: "mrr"
    case .hitRateAtK: "hit_rate"
    case .catalogCoverage: "catalog_coverage"
    case .novelty: "novelty"
    case .intraListDiversity: "intra_list_diversity"
    case .popularityBias: "popularity_bias"
    }
  }

  /// One line saying exactly how the metric is computed, with the cutoff `k` written in (for
  /// the beyond-accuracy metrics: the largest cutoff).
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
      return "mean over evaluated diners of 1 / rank of the first relevant item in the whole list"
        + " (the deck; a run's docs down to the deck size), 0 when there is none (trec_eval"
        + " recip_rank)"
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
/// A negative index is an item no catalog holds (a TREC run's unknown doc, distinct negative
/// numbers for distinct docs): never relevant, it takes its rank like a non-relevant dish and is
/// left out of coverage, novelty, diversity and popularity bias (it has no category or
/// popularity).
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
  /// The cutoffs of the @k metrics, ascending and distinct; the largest is also the top k of
  /// coverage, novelty, diversity and popularity bias.
  package let cutoffs: [Int]
  /// How many ranks of each list are evaluated (the deck size; ranks below it are not looked
  /// at, as `trec_eval -M`); nil: the whole list. It matters only for the reciprocal rank, and
  /// is at least the largest cutoff.
  package let depth: Int?
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
    /// One unit per evaluated diner, in the order given; the metrics in `metrics` order.
    package var table: UnitTable
    /// Diners left out because they have no relevant item, in the order given.
    package var usersWithoutRelevant: [String]
  }

  /// The most cutoffs one evaluation takes (`compare --k`): each adds five metrics to every
  /// strategy's report.
  package static let maxCutoffs = 20

  /// An evaluation at `cutoffs` (ascending, distinct, each ≥ 1) over a catalog of
  /// `itemCategory.count` items, looking at the first `depth` ranks of each list (nil: all of
  /// them; else at least the largest cutoff); `trainingPopularity` has one non-negative count
  /// per catalog item.
  package init(
    cutoffs: [Int], depth: Int? = nil, itemCategory: [Int32], trainingPopularity: [Int32]
  ) {
    RankingMetrics.checkCutoffs(cutoffs)
    precondition(
      depth.map { $0 >= cutoffs.last! } ?? true,
      "the depth \(depth ?? 0) must hold the largest cutoff \(cutoffs.last!)")
    precondition(
      trainingPopularity.count == itemCategory.count,
      "one training popularity per catalog item: \(trainingPopularity.count) for"
        + " \(itemCategory.count) items")
    precondition(trainingPopularity.allSatisfy { $0 >= 0 }, "popularity counts are non-negative")
    self.cutoffs = cutoffs
    self.depth = depth
    self.itemCategory = itemCategory
    self.trainingPopularity = trainingPopularity
    noveltyBits = Self.noveltyBits(trainingPopularity)
    popularityPercentile = Self.midRankPercentiles(trainingPopularity)
  }

  /// An evaluation at the single cutoff `k` (≥ 1) of whole lists.
  package init(k: Int, itemCategory: [Int32], trainingPopularity: [Int32]) {
    self.init(cutoffs: [k], itemCategory: itemCategory, trainingPopularity: trainingPopularity)
  }

  /// The largest cutoff: the top k of coverage, novelty, diversity and popularity bias.
  package var largestCutoff: Int { cutoffs[cutoffs.count - 1] }

  /// Catalog items.
  package var catalogSize: Int { itemCategory.count }

  /// The table's columns, in order: each metric of `OfflineMetric` in its order, a per-cutoff
  /// one once per cutoff (ascending), the others once at the largest cutoff. With one cutoff the
  /// column of a metric is its `rawValue`.
  package var columns: [(metric: OfflineMetric, k: Int)] {
    OfflineMetric.allCases.flatMap { metric in
      metric.isPerCutoff ? cutoffs.map { (metric, $0) } : [(metric, largestCutoff)]
    }
  }

  /// The column of `metric` at cutoff `k` (a per-cutoff metric; default the largest cutoff),
  /// or of a metric reported once.
  package func column(_ metric: OfflineMetric, k: Int? = nil) -> Int {
    let n = cutoffs.count
    // Per-cutoff metrics before this one take n columns each, the others one.
    let before = OfflineMetric.allCases.prefix(metric.rawValue).reduce(0) {
      $0 + ($1.isPerCutoff ? n : 1)
    }
    guard metric.isPerCutoff else { return before }
    let cut = k ?? largestCutoff
    guard let i = cutoffs.firstIndex(of: cut) else {
      preconditionFailure("\(cut) is not a cutoff of \(cutoffs)")
    }
    return before + i
  }

  /// The metric list of the table (`columns`), with each column's k in its definition.
  package var metrics: [MetricSpec] {
    columns.map { metric, k in
      let form: MetricForm =
        metric == .catalogCoverage ? .coverage(catalogItems: catalogSize) : .ratio
      return MetricSpec(name: metric.name(k: k), definition: metric.definition(k: k), form: form)
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

    let specs = metrics
    let columnOf = ScoreColumns(self)
    var tables: [ArmUnits] = []
    for arm in arms {
      var units = ArmUnits(arm: arm.name, units: evaluated.count, metrics: specs.count)
      for (unit, u) in evaluated.enumerated() {
        let ranking = arm.rankings[u]
        checkIndices(ranking, unknownAllowed: true)
        score(ranking, relevant: relevantSets[unit], unit: unit, columns: columnOf, into: &units)
      }
      tables.append(units)
    }
    let table = UnitTable(metrics: specs, units: evaluated.map { users[$0] }, arms: tables)
    return Result(table: table, usersWithoutRelevant: leftOut)
  }

  /// The columns `score` adds to, looked up once per evaluation.
  private struct ScoreColumns {
    var precision: Int
    var recall: Int
    var ndcg: Int
    var map: Int
    var mrr: Int
    var hitRate: Int
    var novelty: Int
    var intraListDiversity: Int
    var popularityBias: Int

    init(_ evaluation: OfflineEvaluation) {
      let first = evaluation.cutoffs[0]
      precision = evaluation.column(.precisionAtK, k: first)
      recall = evaluation.column(.recallAtK, k: first)
      ndcg = evaluation.column(.ndcgAtK, k: first)
      map = evaluation.column(.mapAtK, k: first)
      mrr = evaluation.column(.mrr)
      hitRate = evaluation.column(.hitRateAtK, k: first)
      novelty = evaluation.column(.novelty)
      intraListDiversity = evaluation.column(.intraListDiversity)
      popularityBias = evaluation.column(.popularityBias)
    }
  }

  private func score(
    _ fullRanking: [Int32], relevant: Set<Int32>, unit: Int, columns c: ScoreColumns,
    into units: inout ArmUnits
  ) {
    let ranking =
      depth.map { fullRanking.count > $0 ? Array(fullRanking.prefix($0)) : fullRanking }
      ?? fullRanking
    // `relevant` is not empty here, so the diner has scores.
    let accuracy = RankingMetrics.at(cutoffs: cutoffs, ranking: ranking, relevant: relevant)!
    func add(_ column: Int, _ numerator: Double, _ denominator: Double) {
      units.add(unit: unit, metric: column, numerator: numerator, denominator: denominator)
    }
    for (i, s) in accuracy.enumerated() {
      add(c.precision + i, s.precision, 1)
      add(c.recall + i, s.recall, 1)
      add(c.ndcg + i, s.ndcg, 1)
      add(c.map + i, s.averagePrecision, 1)
      add(c.hitRate + i, s.hit, 1)
    }
    add(c.mrr, accuracy[0].reciprocalRank, 1)
    // The catalog dishes of the top k (largest cutoff); unknown items have no category or
    // popularity.
    let top = ranking.prefix(largestCutoff).filter { $0 >= 0 }
    units.items[unit] = top.sorted()

    var bits = 0.0
    var percentiles = 0.0
    for item in top {
      bits += noveltyBits[Int(item)]
      percentiles += popularityPercentile[Int(item)]
    }
    add(c.novelty, bits, Double(top.count))
    add(c.popularityBias, percentiles, Double(top.count))
    if let share = Self.differentCategoryShare(top.map { itemCategory[Int($0)] }) {
      add(c.intraListDiversity, share, 1)
    }
  }

  private func checkIndices(_ items: [Int32], unknownAllowed: Bool = false) {
    for item in items {
      precondition(
        (unknownAllowed || item >= 0) && Int(item) < catalogSize,
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
