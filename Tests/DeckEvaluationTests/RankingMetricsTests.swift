import Foundation
import Testing

@testable import DeckEvaluation

/// 1 / log2(n), written without `log2` so that the expectations do not share the code's formula.
private func inverseLog2(_ n: Double) -> Double { log(2) / log(n) }

private func expectScores(
  _ scores: RankingMetrics?, precision: Double, recall: Double, ndcg: Double, ap: Double,
  rr: Double, hit: Double, sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  guard let scores else {
    Issue.record("no scores", sourceLocation: sourceLocation)
    return
  }
  let pairs: [(String, Double, Double)] = [
    ("precision", scores.precision, precision), ("recall", scores.recall, recall),
    ("ndcg", scores.ndcg, ndcg), ("ap", scores.averagePrecision, ap),
    ("rr", scores.reciprocalRank, rr), ("hit", scores.hit, hit),
  ]
  for (name, got, expected) in pairs {
    #expect(
      abs(got - expected) < 1e-12, "\(name): \(got) != \(expected)",
      sourceLocation: sourceLocation)
  }
}

@Suite("Ranking metrics of one diner")
struct RankingMetricsTests {
  @Test func discountAndIdealDCG() {
    #expect(RankingMetrics.discount(rank: 1) == 1)
    #expect(RankingMetrics.discount(rank: 3) == 0.5)
    #expect(abs(RankingMetrics.discount(rank: 2) - 0.630_929_753_571_457_4) < 1e-15)
    #expect(RankingMetrics.idealDCG(relevantCount: 0, k: 5) == 0)
    #expect(RankingMetrics.idealDCG(relevantCount: 3, k: 1) == 1)
    #expect(RankingMetrics.idealDCG(relevantCount: 1, k: 5) == 1)
    // Cut at k, however many items are relevant.
    #expect(
      RankingMetrics.idealDCG(relevantCount: 9, k: 3)
        == RankingMetrics.idealDCG(relevantCount: 3, k: 3))
    #expect(abs(RankingMetrics.idealDCG(relevantCount: 3, k: 5) - 2.130_929_753_571_457) < 1e-12)
  }

  /// Hits at ranks 2 and 5 of 7, a third relevant item at rank 7 (below k = 5).
  @Test func handComputedList() {
    let scores = RankingMetrics(
      ranking: [10, 11, 12, 13, 14, 15, 16], relevant: [11, 14, 16], k: 5)
    let dcg = inverseLog2(3) + inverseLog2(6)
    let ideal = 1 + inverseLog2(3) + 0.5
    expectScores(
      scores, precision: 0.4, recall: 2.0 / 3, ndcg: dcg / ideal, ap: (1.0 / 2 + 2.0 / 5) / 3,
      rr: 0.5, hit: 1)
    // The values trec_eval prints for the same list (P_5, recall_5, ndcg_cut_5, map_cut_5).
    #expect(abs(scores!.ndcg - 0.4776) < 0.000_05)
    #expect(abs(scores!.averagePrecision - 0.3) < 1e-15)
  }

  @Test func noRelevantItemCannotBeScored() {
    #expect(RankingMetrics(ranking: [1, 2, 3], relevant: [], k: 5) == nil)
    #expect(RankingMetrics(ranking: [], relevant: [], k: 1) == nil)
  }

  @Test func anEmptyListScoresZero() {
    expectScores(
      RankingMetrics(ranking: [], relevant: [4], k: 5), precision: 0, recall: 0, ndcg: 0, ap: 0,
      rr: 0, hit: 0)
  }

  /// Precision divides by k, not by the list's length; the rest do not see the shortfall.
  @Test func aListShorterThanK() {
    expectScores(
      RankingMetrics(ranking: [1, 2], relevant: [2], k: 5), precision: 0.2, recall: 1,
      ndcg: inverseLog2(3), ap: 0.5, rr: 0.5, hit: 1)
  }

  /// A catalog of three items, all ranked and all relevant, k = 10: everything is perfect but
  /// precision, which cannot exceed 3 / 10.
  @Test func kLargerThanTheCatalog() {
    expectScores(
      RankingMetrics(ranking: [2, 0, 1], relevant: [0, 1, 2], k: 10), precision: 0.3, recall: 1,
      ndcg: 1, ap: 1, rr: 1, hit: 1)
  }

  /// Binary gains tie every relevant item: the order among them changes nothing.
  @Test func tiesInRelevance() {
    let a = RankingMetrics(ranking: [7, 3, 5, 9], relevant: [3, 5], k: 3)
    let b = RankingMetrics(ranking: [7, 5, 3, 9], relevant: [5, 3], k: 3)
    #expect(a == b)
    expectScores(
      a, precision: 2.0 / 3, recall: 1, ndcg: (inverseLog2(3) + 0.5) / (1 + inverseLog2(3)),
      ap: (1.0 / 2 + 2.0 / 3) / 2, rr: 0.5, hit: 1)
    expectScores(
      RankingMetrics(ranking: [5, 3], relevant: [3, 5], k: 2), precision: 1, recall: 1, ndcg: 1,
      ap: 1, rr: 1, hit: 1)
  }

  /// The one relevant item at rank 8: the @k metrics see it only from k = 8 on, the reciprocal
  /// rank always.
  @Test(arguments: [1, 5, 7, 8, 9, 20])
  func aRelevantItemAroundTheCutoff(k: Int) {
    let scores = RankingMetrics(ranking: Array(0..<8), relevant: [7], k: k)
    if k < 8 {
      expectScores(scores, precision: 0, recall: 0, ndcg: 0, ap: 0, rr: 0.125, hit: 0)
    } else {
      expectScores(
        scores, precision: 1 / Double(k), recall: 1, ndcg: inverseLog2(9), ap: 0.125, rr: 0.125,
        hit: 1)
    }
  }

  /// More relevant items than k: recall and AP cannot reach 1, NDCG (ideal cut at k) can.
  @Test func moreRelevantItemsThanK() {
    expectScores(
      RankingMetrics(ranking: [1, 2, 3, 4, 5, 6], relevant: [1, 2, 3, 4, 5, 9, 10], k: 5),
      precision: 1, recall: 5.0 / 7, ndcg: 1, ap: 5.0 / 7, rr: 1, hit: 1)
  }

  /// Relevant items the catalog ranks nowhere still count in the denominators.
  @Test func relevantItemsOutsideTheList() {
    expectScores(
      RankingMetrics(ranking: [0, 1], relevant: [1, 40, 41, 42], k: 1), precision: 0, recall: 0,
      ndcg: 0, ap: 0, rr: 0.5, hit: 0)
    expectScores(
      RankingMetrics(ranking: [0, 1], relevant: [0, 40, 41, 42], k: 1), precision: 1,
      recall: 0.25, ndcg: 1, ap: 0.25, rr: 1, hit: 1)
  }

  @Test func aRankingWithAnItemTwiceIsRefused() async {
    await #expect(processExitsWith: .failure) {
      _ = RankingMetrics(ranking: [1, 2, 1], relevant: [1], k: 5)
    }
  }

  @Test func aCutoffBelowOneIsRefused() async {
    await #expect(processExitsWith: .failure) {
      _ = RankingMetrics(ranking: [1], relevant: [1], k: 0)
    }
  }
}

/// A small case checked against trec_eval (`Scripts/check-trec-eval.sh` recomputes the
/// expected numbers with trec_eval and fails when they differ from the ones below). It covers a
/// hit below k (alice, carol), a list shorter than k (bob, erin, hank, ivy), more relevant
/// items than k (dave), a relevant item never ranked (erin), a perfect list (frank), a diner
/// without judgements (gina: neither trec_eval nor we score her), a judgement of relevance 0
/// (hank), lines out of rank order (bob) and tied scores (ivy: trec_eval puts the larger doc id
/// first, so d02 is at rank 1).
enum TrecReference {
  static let run = """
    alice Q0 d01 1 7 fixture
    alice Q0 d02 2 6 fixture
    alice Q0 d03 3 5 fixture
    alice Q0 d04 4 4 fixture
    alice Q0 d05 5 3 fixture
    alice Q0 d06 6 2 fixture
    alice Q0 d07 7 1 fixture
    bob Q0 d02 3 1 fixture
    bob Q0 d01 2 2 fixture
    bob Q0 d03 1 3 fixture
    carol Q0 d01 1 8 fixture
    carol Q0 d02 2 7 fixture
    carol Q0 d03 3 6 fixture
    carol Q0 d04 4 5 fixture
    carol Q0 d05 5 4 fixture
    carol Q0 d06 6 3 fixture
    carol Q0 d07 7 2 fixture
    carol Q0 d08 8 1 fixture
    dave Q0 d01 1 6 fixture
    dave Q0 d02 2 5 fixture
    dave Q0 d03 3 4 fixture
    dave Q0 d04 4 3 fixture
    dave Q0 d05 5 2 fixture
    dave Q0 d06 6 1 fixture
    erin Q0 d04 1 3 fixture
    erin Q0 d05 2 2 fixture
    erin Q0 d06 3 1 fixture
    frank Q0 d01 1 5 fixture
    frank Q0 d02 2 4 fixture
    frank Q0 d03 3 3 fixture
    frank Q0 d04 4 2 fixture
    frank Q0 d05 5 1 fixture
    gina Q0 d06 1 2 fixture
    gina Q0 d07 2 1 fixture
    hank Q0 d01 1 3 fixture
    hank Q0 d02 2 2 fixture
    hank Q0 d03 3 1 fixture
    ivy Q0 d01 1 1.5 fixture
    ivy Q0 d02 2 1.5 fixture
    ivy Q0 d03 3 0.5 fixture

    """

  static let qrels = """
    alice 0 d02 1
    alice 0 d05 1
    alice 0 d07 1
    bob 0 d03 1
    bob 0 d02 1
    carol 0 d08 1
    dave 0 d01 1
    dave 0 d02 1
    dave 0 d03 1
    dave 0 d04 1
    dave 0 d05 1
    dave 0 d09 1
    dave 0 d10 1
    erin 0 d09 1
    frank 0 d01 1
    frank 0 d02 1
    frank 0 d03 1
    frank 0 d04 1
    frank 0 d05 1
    hank 0 d01 0
    hank 0 d02 1
    ivy 0 d01 1

    """

  /// trec_eval's per-query and mean values in its `-q` layout (measure, query, value to 4
  /// decimals), k = 5.
  static let expected = """
    P_5                   	alice	0.4000
    recall_5              	alice	0.6667
    ndcg_cut_5            	alice	0.4776
    map_cut_5             	alice	0.3000
    recip_rank            	alice	0.5000
    P_5                   	bob	0.4000
    recall_5              	bob	1.0000
    ndcg_cut_5            	bob	0.9197
    map_cut_5             	bob	0.8333
    recip_rank            	bob	1.0000
    P_5                   	carol	0.0000
    recall_5              	carol	0.0000
    ndcg_cut_5            	carol	0.0000
    map_cut_5             	carol	0.0000
    recip_rank            	carol	0.1250
    P_5                   	dave	1.0000
    recall_5              	dave	0.7143
    ndcg_cut_5            	dave	1.0000
    map_cut_5             	dave	0.7143
    recip_rank            	dave	1.0000
    P_5                   	erin	0.0000
    recall_5              	erin	0.0000
    ndcg_cut_5            	erin	0.0000
    map_cut_5             	erin	0.0000
    recip_rank            	erin	0.0000
    P_5                   	frank	1.0000
    recall_5              	frank	1.0000
    ndcg_cut_5            	frank	1.0000
    map_cut_5             	frank	1.0000
    recip_rank            	frank	1.0000
    P_5                   	hank	0.2000
    recall_5              	hank	1.0000
    ndcg_cut_5            	hank	0.6309
    map_cut_5             	hank	0.5000
    recip_rank            	hank	0.5000
    P_5                   	ivy	0.2000
    recall_5              	ivy	1.0000
    ndcg_cut_5            	ivy	0.6309
    map_cut_5             	ivy	0.5000
    recip_rank            	ivy	0.5000
    P_5                   	all	0.4000
    recall_5              	all	0.6726
    ndcg_cut_5            	all	0.5824
    map_cut_5             	all	0.4810
    recip_rank            	all	0.5781
    """
}

@Suite("Ranking metrics against trec_eval's reference numbers")
struct TrecReferenceTests {
  static let k = 5

  struct Row: Equatable {
    var measure: String
    var query: String
    var value: Double
  }

  static func expectedRows() -> [Row] {
    TrecReference.expected.split(separator: "\n").map { line in
      let fields = line.split(separator: "\t").map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      return Row(measure: fields[0], query: fields[1], value: Double(fields[2])!)
    }
  }

  static func ours(_ scores: RankingMetrics) -> [String: Double] {
    [
      "P_5": scores.precision, "recall_5": scores.recall, "ndcg_cut_5": scores.ndcg,
      "map_cut_5": scores.averagePrecision, "recip_rank": scores.reciprocalRank,
    ]
  }

  @Test func everyPerQueryAndMeanValueMatchesToFourDecimals() throws {
    let run = try TrecFiles.readRun(TrecReference.run, name: "run")
    let qrels = try TrecFiles.readQrels(TrecReference.qrels, name: "qrels")
    // Catalog indices for the doc ids.
    let docs = Set(run.values.joined()).union(qrels.values.joined()).sorted()
    let index = Dictionary(uniqueKeysWithValues: docs.enumerated().map { ($1, Int32($0)) })
    var perQuery: [String: [String: Double]] = [:]
    for (query, relevant) in qrels {
      let ranking = (run[query] ?? []).map { index[$0]! }
      guard
        let scores = RankingMetrics(
          ranking: ranking, relevant: Set(relevant.map { index[$0]! }), k: Self.k)
      else { continue }
      perQuery[query.string] = Self.ours(scores)
    }
    #expect(
      perQuery.keys.sorted() == ["alice", "bob", "carol", "dave", "erin", "frank", "hank", "ivy"])

    let rows = Self.expectedRows()
    #expect(rows.count == 5 * (perQuery.count + 1))
    for row in rows {
      let value: Double?
      if row.query == "all" {
        let values = perQuery.values.map { $0[row.measure]! }
        value = values.reduce(0, +) / Double(values.count)
      } else {
        value = perQuery[row.query]?[row.measure]
      }
      // trec_eval rounds to 4 decimals: ours must be within half a unit of the last place.
      let shown = value.map { String($0) } ?? "none"
      let within = value.map { abs($0 - row.value) <= 0.000_050_1 } ?? false
      #expect(within, "\(row.measure) \(row.query): ours \(shown), trec_eval \(row.value)")
    }
  }

  /// The same case through `OfflineEvaluation`: its table's means are trec_eval's "all" values.
  @Test func theUnitTableMeansMatchTheMeanRow() throws {
    let run = try TrecFiles.readRun(TrecReference.run, name: "run")
    let qrels = try TrecFiles.readQrels(TrecReference.qrels, name: "qrels")
    let docs = Set(run.values.joined()).union(qrels.values.joined()).sorted()
    let index = Dictionary(uniqueKeysWithValues: docs.enumerated().map { ($1, Int32($0)) })
    let keys = Set(run.keys).union(qrels.keys).sorted()
    let users = keys.map(\.string)
    let evaluation = OfflineEvaluation(
      k: Self.k, itemCategory: Array(repeating: 0, count: docs.count),
      trainingPopularity: Array(repeating: 0, count: docs.count))
    let result = evaluation.evaluate(
      users: users,
      relevant: keys.map { (qrels[$0] ?? []).map { index[$0]! }.sorted() },
      arms: [
        OfflineArm(name: "fixture", rankings: keys.map { (run[$0] ?? []).map { index[$0]! } })
      ])
    #expect(result.usersWithoutRelevant == ["gina"])
    let columns: [String: OfflineMetric] = [
      "P_5": .precisionAtK, "recall_5": .recallAtK, "ndcg_cut_5": .ndcgAtK,
      "map_cut_5": .mapAtK, "recip_rank": .mrr,
    ]
    let means = Self.expectedRows().filter { $0.query == "all" }
    #expect(means.count == 5)
    for row in means {
      let value = result.table.value(arm: 0, metric: columns[row.measure]!.rawValue)!
      #expect(abs(value - row.value) <= 0.000_050_1, "\(row.measure): \(value) vs \(row.value)")
    }
  }
}
