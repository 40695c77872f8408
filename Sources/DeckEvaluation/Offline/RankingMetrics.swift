import Foundation

/// The accuracy of one diner's ranked list against the items the diner swiped right in the
/// evaluation period (the *relevant* items, R), at a cutoff k.
///
/// The list is taken in the order given: rank 1 is the first element. Ties between strategy scores
/// were already broken by whoever built the list (the deck builder's deterministic tie-break), so
/// nothing here reorders. A list may be shorter than k (the diner had fewer eligible dishes) or
/// even empty; it must not hold an item twice (a precondition: the deck builder never repeats a
/// card, and a TREC run may not list a doc twice for a query). Relevance is binary: an item is
/// relevant (gain 1) when it is in R, else 0; with binary gains every relevant item ties with every
/// other, so the ideal ordering needs no tie rule.
///
/// With `hits(n)` = relevant items among the first n of the list (n beyond the list's end counts
/// to its end) and `rank(i)` = the 1-based place of item i in the list:
/// - `precision` (precision@k) = hits(k) / k. It divides by k even when the list is shorter than
///   k, or k is larger than the catalog: a short list is not excused (trec_eval `P_k`).
/// - `recall` (recall@k) = hits(k) / |R| (trec_eval `recall_k`).
/// - `ndcg` (NDCG@k) = DCG@k / IDCG@k, DCG@k = Σ over relevant items with rank r ≤ k of
///   1 / log2(r + 1); IDCG@k = Σ for r = 1 ... min(k, |R|) of 1 / log2(r + 1), the DCG of a list
///   that puts all relevant items first, cut at k (trec_eval `ndcg_cut_k`).
/// - `averagePrecision` (AP@k) = Σ over relevant items with rank r ≤ k of hits(r) / r, divided
///   by |R|, not by the hits: relevant items the list misses count as precision 0
///   (trec_eval `map_cut_k`).
/// - `reciprocalRank` = 1 / the rank of the first relevant item anywhere in the list (not cut at
///   k), 0 when the list holds none (trec_eval `recip_rank`).
/// - `hit` (hit@k) = 1 when hits(k) ≥ 1, else 0.
///
/// Every value lies in [0, 1]. A diner with no relevant item (R empty) has no recall, NDCG or AP
/// (0 / 0): such diners are not scored at all (the failable initialiser returns nil), as trec_eval
/// leaves out queries without relevant judgements.
package struct RankingMetrics: Sendable, Equatable {
  package var precision: Double
  package var recall: Double
  package var ndcg: Double
  package var averagePrecision: Double
  package var reciprocalRank: Double
  package var hit: Double

  package init(
    precision: Double, recall: Double, ndcg: Double, averagePrecision: Double,
    reciprocalRank: Double, hit: Double
  ) {
    self.precision = precision
    self.recall = recall
    self.ndcg = ndcg
    self.averagePrecision = averagePrecision
    self.reciprocalRank = reciprocalRank
    self.hit = hit
  }

  /// Scores `ranking` (catalog indices, rank 1 first, no item twice) against `relevant` at
  /// cutoff `k` (≥ 1). nil when `relevant` is empty: the diner cannot be scored.
  package init?(ranking: [Int32], relevant: Set<Int32>, k: Int) {
    guard let one = Self.at(cutoffs: [k], ranking: ranking, relevant: relevant) else {
      return nil
    }
    self = one[0]
  }

  /// Stops unless `cutoffs` are ascending, distinct and each ≥ 1 (and there is one).
  static func checkCutoffs(_ cutoffs: [Int]) {
    precondition(!cutoffs.isEmpty, "at least one cutoff")
    precondition(cutoffs[0] >= 1, "the cutoff k must be at least 1, got \(cutoffs[0])")
    precondition(
      zip(cutoffs, cutoffs.dropFirst()).allSatisfy { $0 < $1 },
      "cutoffs must be ascending and distinct: \(cutoffs)")
  }

  /// Scores `ranking` against `relevant` at every cutoff of `cutoffs` (ascending, distinct, each
  /// ≥ 1) in one pass over the list: the scores in `cutoffs` order, each the same number, bit
  /// for bit, as `init(ranking:relevant:k:)` gives at that cutoff (the sums run in the same
  /// order). nil when `relevant` is empty. The reciprocal rank is the same at every cutoff (it
  /// looks at the whole list). Items no catalog holds (negative indices, e.g. a run's unknown
  /// docs) are never relevant: they take their rank like any other non-relevant item.
  package static func at(cutoffs: [Int], ranking: [Int32], relevant: Set<Int32>)
    -> [RankingMetrics]?
  {
    checkCutoffs(cutoffs)
    precondition(
      Set(ranking).count == ranking.count, "a ranking must not hold an item twice: \(ranking)")
    guard !relevant.isEmpty else { return nil }
    let relevantCount = Double(relevant.count)
    var scores: [RankingMetrics] = []
    scores.reserveCapacity(cutoffs.count)
    var hits = 0
    var dcg = 0.0
    var precisionSum = 0.0
    var firstHit = 0
    // The cutoffs below `next` are recorded.
    var next = 0
    func record(_ k: Int) {
      scores.append(
        RankingMetrics(
          precision: Double(hits) / Double(k), recall: Double(hits) / relevantCount,
          ndcg: dcg / idealDCG(relevantCount: relevant.count, k: k),
          averagePrecision: precisionSum / relevantCount, reciprocalRank: 0,
          hit: hits > 0 ? 1 : 0))
    }
    for (offset, item) in ranking.enumerated() where relevant.contains(item) {
      let rank = offset + 1
      if firstHit == 0 { firstHit = rank }
      while next < cutoffs.count && cutoffs[next] < rank {
        record(cutoffs[next])
        next += 1
      }
      // Below the largest cutoff only the first hit (for the reciprocal rank) matters.
      if next == cutoffs.count { break }
      hits += 1
      dcg += discount(rank: rank)
      precisionSum += Double(hits) / Double(rank)
    }
    while next < cutoffs.count {
      record(cutoffs[next])
      next += 1
    }
    let reciprocalRank = firstHit == 0 ? 0 : 1 / Double(firstHit)
    for i in scores.indices { scores[i].reciprocalRank = reciprocalRank }
    return scores
  }

  /// The DCG discount of 1-based rank `rank`: 1 / log2(rank + 1), so 1 at rank 1, 0.6309 at 2.
  @inline(__always)
  package static func discount(rank: Int) -> Double {
    1 / log2(Double(rank + 1))
  }

  /// The DCG at cutoff `k` of a list that starts with all `relevantCount` relevant items:
  /// Σ for r = 1 ... min(k, relevantCount) of 1 / log2(r + 1). 0 when either is 0.
  package static func idealDCG(relevantCount: Int, k: Int) -> Double {
    var sum = 0.0
    var rank = 1
    while rank <= min(k, relevantCount) {
      sum += discount(rank: rank)
      rank += 1
    }
    return sum
  }
}
