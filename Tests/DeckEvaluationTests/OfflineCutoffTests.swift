import DeckCore
import DeckIO
import Foundation
import Testing

@testable import DeckEvaluation

/// Several cut-offs in one evaluation (`compare --k 1,5,10`), the evaluated depth, and items no
/// catalog holds (a TREC run's unknown docs).
@Suite("Offline evaluation: several cut-offs")
struct OfflineCutoffTests {
  static let cutoffs = [1, 3, 5, 10]

  /// One pass over the list gives, at every cut-off, the very bits of a pass at that cut-off.
  @Test(arguments: [11, 12] as [UInt64])
  func oneScoreAtManyCutoffsIsTheScoreAtEach(seed: UInt64) {
    let c = RandomOfflineCase(seed: seed, users: 200)
    for arm in c.arms {
      for (ranking, relevant) in zip(arm.rankings, c.relevant) {
        let set = Set(relevant)
        guard let all = RankingMetrics.at(cutoffs: Self.cutoffs, ranking: ranking, relevant: set)
        else {
          #expect(relevant.isEmpty)
          continue
        }
        #expect(all.count == Self.cutoffs.count)
        for (k, score) in zip(Self.cutoffs, all) {
          #expect(score == RankingMetrics(ranking: ranking, relevant: set, k: k)!)
        }
      }
    }
  }

  /// The table of four cut-offs holds, column for column, the values of one evaluation per
  /// cut-off; coverage, novelty, diversity and popularity bias are those at the largest.
  @Test(arguments: [13, 14] as [UInt64])
  func manyCutoffsEqualOneEvaluationPerCutoff(seed: UInt64) {
    let c = RandomOfflineCase(seed: seed, users: 150)
    let many = OfflineEvaluation(
      cutoffs: Self.cutoffs, itemCategory: c.itemCategory, trainingPopularity: c.popularity)
    let table = many.evaluate(users: c.users, relevant: c.relevant, arms: c.arms).table
    #expect(table.metrics.count == 5 * Self.cutoffs.count + 5)
    for k in Self.cutoffs {
      let one = OfflineEvaluation(
        k: k, itemCategory: c.itemCategory, trainingPopularity: c.popularity)
      let single = one.evaluate(users: c.users, relevant: c.relevant, arms: c.arms).table
      for metric in OfflineMetric.allCases where metric.isPerCutoff || k == 10 {
        let m = many.column(metric, k: k)
        #expect(table.metrics[m] == single.metrics[metric.rawValue])
        for a in c.arms.indices {
          let x = table.arms[a]
          let y = single.arms[a]
          for u in table.units.indices {
            #expect(
              x.numerator(unit: u, metric: m) == y.numerator(unit: u, metric: metric.rawValue))
            #expect(
              x.denominator(unit: u, metric: m) == y.denominator(unit: u, metric: metric.rawValue))
          }
          #expect(table.value(arm: a, metric: m) == single.value(arm: a, metric: metric.rawValue))
        }
      }
    }
    // The reciprocal rank looks at the whole list whatever the cut-offs.
    let one = OfflineEvaluation(
      k: 1, itemCategory: c.itemCategory, trainingPopularity: c.popularity
    )
    .evaluate(users: c.users, relevant: c.relevant, arms: c.arms).table
    #expect(
      table.value(arm: 0, metric: many.column(.mrr))
        == one.value(arm: 0, metric: OfflineMetric.mrr.rawValue))
  }

  @Test func columnsNamesAndDefinitions() {
    let e = OfflineEvaluation(
      cutoffs: [1, 5, 10], itemCategory: [0, 1], trainingPopularity: [0, 0])
    #expect(
      e.metrics.map(\.name) == [
        "precision_at_1", "precision_at_5", "precision_at_10", "recall_at_1", "recall_at_5",
        "recall_at_10", "ndcg_at_1", "ndcg_at_5", "ndcg_at_10", "map_at_1", "map_at_5",
        "map_at_10", "mrr", "hit_rate_at_1", "hit_rate_at_5", "hit_rate_at_10",
        "catalog_coverage", "novelty", "intra_list_diversity", "popularity_bias",
      ])
    #expect(e.metrics[1].definition.hasSuffix("k = 5 (trec_eval P_k)"))
    #expect(e.metrics[16].definition.hasSuffix("k = 10"))
    #expect(e.column(.ndcgAtK, k: 5) == 7)
    #expect(e.column(.ndcgAtK) == 8, "the largest cut-off by default")
    #expect(e.column(.mrr) == 12)
    #expect(e.column(.popularityBias) == 19)
    for (i, column) in e.columns.enumerated() {
      #expect(e.column(column.metric, k: column.k) == i)
    }
  }

  /// Only the first `depth` ranks are looked at: a hit below them is no reciprocal rank.
  @Test func theDepthCutsTheList() {
    let e = OfflineEvaluation(
      cutoffs: [1, 2], depth: 3, itemCategory: [0, 0, 1, 1, 2], trainingPopularity: [1, 1, 1, 1, 1])
    let whole = OfflineEvaluation(
      cutoffs: [1, 2], itemCategory: [0, 0, 1, 1, 2], trainingPopularity: [1, 1, 1, 1, 1])
    let arms = [OfflineArm(name: "a", rankings: [[0, 1, 2, 3], [4, 0, 1]])]
    let cut = e.evaluate(users: ["u", "v"], relevant: [[3], [0]], arms: arms).table
    let all = whole.evaluate(users: ["u", "v"], relevant: [[3], [0]], arms: arms).table
    let mrr = e.column(.mrr)
    #expect(cut.arms[0].numerator(unit: 0, metric: mrr) == 0)
    #expect(all.arms[0].numerator(unit: 0, metric: mrr) == 0.25)
    #expect(cut.arms[0].numerator(unit: 1, metric: mrr) == 0.5)
    // The top 2 (the largest cut-off) for coverage either way.
    #expect(cut.arms[0].items == [[0, 1], [0, 4]])
    #expect(cut.value(arm: 0, metric: e.column(.precisionAtK, k: 2)) == 0.25)
  }

  /// A negative index is a doc no catalog holds: it takes its rank, is never relevant, and is
  /// left out of coverage, novelty, diversity and popularity bias.
  @Test func unknownItemsTakeTheirRankAndNothingElse() {
    let e = OfflineEvaluation(
      cutoffs: [1, 3], itemCategory: [0, 1, 2], trainingPopularity: [3, 0, 1])
    let arms = [
      OfflineArm(name: "run", rankings: [[-1, 2, -2]]),
      OfflineArm(name: "same", rankings: [[2]]),
    ]
    let t = e.evaluate(users: ["u"], relevant: [[2]], arms: arms).table
    #expect(t.value(arm: 0, metric: e.column(.precisionAtK, k: 1)) == 0)
    #expect(t.value(arm: 0, metric: e.column(.precisionAtK, k: 3)) == 1.0 / 3)
    #expect(t.value(arm: 0, metric: e.column(.mrr)) == 0.5)
    #expect(t.arms[0].items == [[2]])
    for metric in [OfflineMetric.catalogCoverage, .novelty, .popularityBias] {
      #expect(
        t.value(arm: 0, metric: e.column(metric)) == t.value(arm: 1, metric: e.column(metric)),
        "\(metric.pattern)")
    }
    #expect(t.value(arm: 0, metric: e.column(.intraListDiversity)) == nil, "one catalog card")
  }

  @Test func badCutoffsAreRefused() async {
    await #expect(processExitsWith: .failure) {
      _ = OfflineEvaluation(cutoffs: [5, 1], itemCategory: [0], trainingPopularity: [0])
    }
    await #expect(processExitsWith: .failure) {
      _ = OfflineEvaluation(cutoffs: [1, 5], depth: 4, itemCategory: [0], trainingPopularity: [0])
    }
  }
}

@Suite("TREC run files read as trec_eval reads them")
struct TrecRunReaderTests {
  static func parse(_ text: String) throws(DeckIOError) -> TrecRun {
    try TrecRun.parse(Array(text.utf8), file: "r.run")
  }

  @Test func orderTagsAndQueries() throws {
    let run = try Self.parse(
      "u2 Q0 b 1 2.5 bm25\r\nu2 Q0 a 2 2.5 other\n\n  u1\tQ0 c 7 -1 x \nu2 Q0 c 3 3 y\n")
    #expect(run.tag == "bm25")
    #expect(run.queries == ["u2", "u1"])
    // Ties by doc id, later in byte order first; the rank column is not used.
    #expect(run.rankings == [["c", "b", "a"], ["c"]])
    #expect(run.lines == 4)
    #expect(try Self.parse("").tag == nil)
    #expect(try Self.parse("\n\n").queries.isEmpty)
  }

  @Test(arguments: [
    ("u Q0 a 1 1 t\nu Q0 b 2\n", "r.run:2:9: expected 6 fields (query Q0 doc rank score tag),"),
    ("u Q0 a 1 1 t x\n", "r.run:1:14: expected 6 fields (query Q0 doc rank score tag), found 7"),
    ("u Q0 a 1.5 1 t\n", "r.run:1:8: rank \"1.5\" is not a whole number"),
    ("u Q0 a 1 inf t\n", "r.run:1:10: score \"inf\" is not a finite number"),
    ("u Q0 a 1 1 t\nu Q0 a 2 0 t\n", "r.run:2:6: doc \"a\" is listed twice for query \"u\""),
    ("u Q0 a 1 1 t\rv Q0 b 1 1 t\n", "r.run:1:13: carriage return not followed by a line feed"),
    ("u Q0 \u{E9}\u{E9} 1 1 t\nu Q0 a 1 x t\n", "r.run:2:10: score \"x\""),
  ])
  func mistakesNameTheLineAndColumn(text: String, message: String) {
    #expect {
      _ = try Self.parse(text)
    } throws: { error in
      (error as? DeckIOError)?.description.hasPrefix(message) == true
    }
  }

  @Test func invalidUTF8LongLinesAndTooManyDocs() {
    var bytes = Array("u Q0 a".utf8) + [0xFF] + Array(" 1 1 t\n".utf8)
    #expect {
      _ = try TrecRun.parse(bytes, file: "r.run")
    } throws: { error in
      (error as? DeckIOError)?.description.hasPrefix("r.run:1:7: invalid UTF-8 (bytes 0xFF)")
        == true
    }
    bytes = Array("u Q0 \(String(repeating: "d", count: TrecRun.maxLineBytes)) 1 1 t\n".utf8)
    #expect {
      _ = try TrecRun.parse(bytes, file: "r.run")
    } throws: { error in
      (error as? DeckIOError)?.description.hasPrefix(
        "r.run:1:\(TrecRun.maxLineBytes + 1): the line is longer than") == true
    }
    var text = ""
    for d in 0...TrecRun.maxRanks { text += "u Q0 d\(d) 1 1 t\n" }
    #expect {
      _ = try TrecRun.parse(Array(text.utf8), file: "r.run")
    } throws: { error in
      (error as? DeckIOError)?.description
        == "r.run:\(TrecRun.maxRanks + 1):1: query \"u\" lists more than 10000 docs; a run"
        + " ranks at most 10000 per query (the longest deck)"
    }
  }

  /// The run's rankings of the evaluated diners: missing diners empty, other queries ignored,
  /// unknown docs negative, lists cut at the depth.
  @Test func runArmOfTheEvaluatedDiners() throws {
    let catalog = try Catalog(
      items: ["a", "b", "c"].map { MenuItem(id: $0, name: $0, category: "x") })
    let run = try Self.parse(
      """
      u1 Q0 a 1 9 t
      u1 Q0 zz 2 8 t
      u1 Q0 b 3 7 t
      u1 Q0 yy 4 6 t
      u3 Q0 c 1 1 t
      nobody Q0 a 1 1 t
      u4 Q0 zz 1 1 t

      """)
    let arm = RunArm(run, name: "ext", users: ["u1", "u2", "u3", "u4"], catalog: catalog, depth: 3)
    #expect(arm.rankings == [[0, -1, 1], [], [2], [-1]])
    #expect(arm.missingDiners == 1)
    #expect(arm.ignoredQueries == 1)
    #expect(arm.truncatedDiners == 1)
    #expect(arm.unknownRanks == 2)
    #expect(arm.unknownDocs == ["zz"])
    #expect(arm.unknownDocCount == 1)
    #expect(arm.shown == [1, 1, 1])
    // Another Unicode form of a dish's id is another doc, by its bytes: never the dish twice.
    let cafe = try Catalog(items: [MenuItem(id: "caf\u{E9}", name: "c", category: "x")])
    let forms = try Self.parse("u Q0 caf\u{E9} 1 2 t\nu Q0 cafe\u{301} 2 1 t\n")
    #expect(forms.rankings == [["caf\u{E9}", "cafe\u{301}"]])
    let twoForms = RunArm(forms, name: "f", users: ["u"], catalog: cafe, depth: 5)
    #expect(twoForms.rankings == [[0, -1]])
    let notes = arm.notes(evaluatedDiners: 4)
    #expect(notes.count == 4)
    #expect(notes[0].hasPrefix("the run ext (r.run) ranks nothing for 1 of the 4 evaluated diners"))
    #expect(notes[3].hasPrefix("2 evaluated ranks of the run ext name 1 doc that is not a dish"))
  }
}
