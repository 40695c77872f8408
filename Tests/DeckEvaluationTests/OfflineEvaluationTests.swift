import DeckBase
import DeckCore
import DeckIO
import Foundation
import Testing

@testable import DeckEvaluation

private func close(_ a: Double?, _ b: Double, within tolerance: Double = 1e-12) -> Bool {
  guard let a else { return false }
  return abs(a - b) <= tolerance
}

/// 1 / log2(3) without `log2`.
private let inverseLog2Of3 = log(2) / log(3.0)

/// Six dishes in three categories; training right swipes 5, 3, 0, 0, 1, 1, so that
/// p(i) = (pop + 1) / 16 = 6/16, 4/16, 1/16, 1/16, 2/16, 2/16 and the mid-rank percentiles are
/// 11/12, 3/4, 1/6, 1/6, 1/2, 1/2.
private let handEvaluation = OfflineEvaluation(
  k: 3, itemCategory: [0, 0, 1, 1, 2, 2], trainingPopularity: [5, 3, 0, 0, 1, 1])

/// ben has no right swipe in the evaluation period; dan gets an empty list from "popular".
private let handResult = handEvaluation.evaluate(
  users: ["ann", "ben", "cat", "dan"],
  relevant: [[3, 0], [], [5], [2]],
  arms: [
    OfflineArm(name: "popular", rankings: [[0, 1, 4, 2], [0, 1, 4], [0, 1, 4, 5], []]),
    OfflineArm(name: "fresh", rankings: [[3, 2, 5], [2], [5], [2, 3]]),
  ])

@Suite("Offline evaluation: metric list")
struct OfflineMetricListTests {
  @Test func namesAreStableSnakeCaseAndDefinitionsOneLineWithK() {
    #expect(
      OfflineMetric.allCases.map { $0.name(k: 5) } == [
        "precision_at_5", "recall_at_5", "ndcg_at_5", "map_at_5", "mrr", "hit_rate_at_5",
        "catalog_coverage", "novelty", "intra_list_diversity", "popularity_bias",
      ])
    #expect(
      OfflineMetric.allCases.map(\.pattern) == [
        "precision_at_<k>", "recall_at_<k>", "ndcg_at_<k>", "map_at_<k>", "mrr",
        "hit_rate_at_<k>", "catalog_coverage", "novelty", "intra_list_diversity",
        "popularity_bias",
      ])
    for metric in OfflineMetric.allCases {
      let definition = metric.definition(k: 7)
      #expect(!definition.contains("\n"))
      #expect(!definition.hasSuffix("."))
      #expect(definition.contains("k = 7") == (metric != .mrr), "\(metric.name)")
    }
  }

  @Test func formsAndOrder() {
    let specs = handEvaluation.metrics
    #expect(specs.map(\.name) == OfflineMetric.allCases.map { $0.name(k: 3) })
    #expect(specs.map(\.definition) == OfflineMetric.allCases.map { $0.definition(k: 3) })
    for (spec, metric) in zip(specs, OfflineMetric.allCases) {
      #expect(spec.form == (metric == .catalogCoverage ? .coverage(catalogItems: 6) : .ratio))
    }
    #expect(handEvaluation.catalogSize == 6)
  }
}

@Suite("Offline evaluation: hand-computed case")
struct OfflineEvaluationTests {
  @Test func smoothedNoveltyAndPercentiles() {
    let bits = handEvaluation.noveltyBits
    #expect(close(bits[0], log(16.0 / 6) / log(2)))
    #expect(bits[1...] == [2, 4, 4, 3, 3])
    let sixth = 1.0 / 6
    let percentiles: [Double] = [11.0 / 12, 0.75, sixth, sixth, 0.5, 0.5]
    #expect(handEvaluation.popularityPercentile == percentiles)
    // Without training data every item is equally likely and at the middle.
    let blank = OfflineEvaluation(
      k: 1, itemCategory: [0, 0, 0, 0], trainingPopularity: [0, 0, 0, 0])
    #expect(blank.noveltyBits == [2, 2, 2, 2])
    #expect(blank.popularityPercentile == [0.5, 0.5, 0.5, 0.5])
  }

  @Test func differentCategoryShare() {
    #expect(OfflineEvaluation.differentCategoryShare([]) == nil)
    #expect(OfflineEvaluation.differentCategoryShare([4]) == nil)
    #expect(OfflineEvaluation.differentCategoryShare([4, 4]) == 0)
    #expect(OfflineEvaluation.differentCategoryShare([4, 1]) == 1)
    #expect(OfflineEvaluation.differentCategoryShare([0, 2, 0]) == 2.0 / 3)
    #expect(OfflineEvaluation.differentCategoryShare([0, 1, 2, 3]) == 1)
    // 2 + 2 + 1 cards: 10 pairs, 2 within a category.
    #expect(OfflineEvaluation.differentCategoryShare([3, 1, 3, 1, 0]) == 0.8)
  }

  @Test func dinersWithoutARelevantItemAreLeftOut() {
    #expect(handResult.usersWithoutRelevant == ["ben"])
    #expect(handResult.table.units == ["ann", "cat", "dan"])
    #expect(handResult.table.arms.map(\.arm) == ["popular", "fresh"])
    #expect(handResult.table.metrics == handEvaluation.metrics)
  }

  @Test func perDinerSums() {
    let popular = handResult.table.arms[0]
    func cell(_ unit: Int, _ metric: OfflineMetric) -> (Double, Double) {
      (
        popular.numerator(unit: unit, metric: metric.rawValue),
        popular.denominator(unit: unit, metric: metric.rawValue)
      )
    }
    // ann: [0, 1, 4] in the top 3, relevant {0, 3}: a hit at rank 1.
    #expect(cell(0, .precisionAtK) == (1.0 / 3, 1))
    #expect(cell(0, .recallAtK) == (0.5, 1))
    #expect(close(cell(0, .ndcgAtK).0, 1 / (1 + inverseLog2Of3)))
    #expect(cell(0, .mapAtK) == (0.5, 1))
    #expect(cell(0, .mrr) == (1, 1))
    #expect(cell(0, .hitRateAtK) == (1, 1))
    #expect(close(cell(0, .novelty).0, log(16.0 / 6) / log(2) + 2 + 3))
    #expect(cell(0, .novelty).1 == 3)
    #expect(close(cell(0, .popularityBias).0, 11.0 / 12 + 0.75 + 0.5))
    #expect(cell(0, .popularityBias).1 == 3)
    #expect(cell(0, .intraListDiversity) == (2.0 / 3, 1))
    #expect(cell(0, .catalogCoverage) == (0, 0))
    // cat: the relevant item is 4th, below k = 3: only the reciprocal rank sees it.
    #expect(cell(1, .precisionAtK) == (0, 1))
    #expect(cell(1, .ndcgAtK) == (0, 1))
    #expect(cell(1, .mrr) == (0.25, 1))
    #expect(cell(1, .hitRateAtK) == (0, 1))
    // dan: an empty list scores 0 and has no cards for the card-level means.
    for metric in [OfflineMetric.precisionAtK, .recallAtK, .ndcgAtK, .mapAtK, .mrr, .hitRateAtK] {
      #expect(cell(2, metric) == (0, 1), "\(metric.name)")
    }
    for metric in [OfflineMetric.novelty, .popularityBias, .intraListDiversity] {
      #expect(cell(2, metric) == (0, 0), "\(metric.name)")
    }
    #expect(popular.items == [[0, 1, 4], [0, 1, 4], []])
    #expect(handResult.table.arms[1].items == [[2, 3, 5], [5], [2, 3]])
  }

  @Test func tableValuesAreTheMeans() {
    let table = handResult.table
    func value(_ arm: Int, _ metric: OfflineMetric) -> Double? {
      table.value(arm: arm, metric: metric.rawValue)
    }
    let ndcgAnn = 1 / (1 + inverseLog2Of3)
    // popular: ann, cat, dan.
    #expect(close(value(0, .precisionAtK), 1.0 / 9))
    #expect(close(value(0, .recallAtK), 1.0 / 6))
    #expect(close(value(0, .ndcgAtK), ndcgAnn / 3))
    #expect(close(value(0, .mapAtK), 1.0 / 6))
    #expect(close(value(0, .mrr), 5.0 / 12))
    #expect(close(value(0, .hitRateAtK), 1.0 / 3))
    #expect(value(0, .catalogCoverage) == 0.5)
    #expect(close(value(0, .novelty), (2 * (log(16.0 / 6) / log(2) + 5)) / 6))
    #expect(close(value(0, .popularityBias), 2 * (11.0 / 12 + 1.25) / 6))
    #expect(close(value(0, .intraListDiversity), 2.0 / 3))
    // fresh: ann [3, 2, 5] hit at 1; cat [5] hit at 1; dan [2, 3] hit at 1.
    #expect(close(value(1, .precisionAtK), 1.0 / 3))
    #expect(close(value(1, .recallAtK), 2.5 / 3))
    #expect(close(value(1, .ndcgAtK), (ndcgAnn + 2) / 3))
    #expect(close(value(1, .mapAtK), 2.5 / 3))
    #expect(value(1, .mrr) == 1)
    #expect(value(1, .hitRateAtK) == 1)
    #expect(value(1, .catalogCoverage) == 0.5)
    #expect(close(value(1, .novelty), (4 + 4 + 3 + 3 + 4 + 4) / 6.0))
    #expect(close(value(1, .popularityBias), (1.0 / 6 * 4 + 0.5 * 2) / 6))
    // ann [1, 1, 2] has 2/3 of its pairs across categories, dan [1, 1] none; cat has no pair.
    #expect(close(value(1, .intraListDiversity), 1.0 / 3))
  }

  @Test func noArmsAndNoEvaluatedDiners() {
    let result = handEvaluation.evaluate(users: ["x", "y"], relevant: [[], []], arms: [])
    #expect(result.usersWithoutRelevant == ["x", "y"])
    #expect(result.table.units.isEmpty)
    let empty = handEvaluation.evaluate(
      users: ["x"], relevant: [[]], arms: [OfflineArm(name: "a", rankings: [[1, 2]])])
    #expect(empty.table.arms[0].unitCount == 0)
    #expect(empty.table.value(arm: 0, metric: OfflineMetric.precisionAtK.rawValue) == nil)
  }

  @Test func unsortedUsersAreRefused() async {
    await #expect(processExitsWith: .failure) {
      _ = OfflineEvaluation(k: 1, itemCategory: [0], trainingPopularity: [0])
        .evaluate(users: ["b", "a"], relevant: [[0], [0]], arms: [])
    }
  }

  @Test func anIndexOutsideTheCatalogIsRefused() async {
    await #expect(processExitsWith: .failure) {
      _ = OfflineEvaluation(k: 1, itemCategory: [0], trainingPopularity: [0])
        .evaluate(users: ["a"], relevant: [[0]], arms: [OfflineArm(name: "a", rankings: [[1]])])
    }
  }
}

/// A seeded random case: catalog, popularity, diners, relevant items and two arms.
struct RandomOfflineCase {
  var itemCategory: [Int32]
  var popularity: [Int32]
  var users: [String]
  var relevant: [[Int32]]
  var arms: [OfflineArm]

  init(seed: UInt64, users userCount: Int = 400, items: Int = 60, maxList: Int = 15) {
    var random = RandomStream(seed: seed)
    itemCategory = (0..<items).map { _ in Int32(random.nextInt(below: 7)) }
    popularity = (0..<items).map { _ in
      Int32(random.nextInt(below: 4) == 0 ? 0 : random.nextInt(below: 50))
    }
    users = (0..<userCount).map { String(format: "u%04d", $0) }
    var relevant: [[Int32]] = []
    var rankingsA: [[Int32]] = []
    var rankingsB: [[Int32]] = []
    for _ in 0..<userCount {
      var catalog = (0..<items).map(Int32.init)
      random.shuffle(&catalog)
      rankingsA.append(Array(catalog.prefix(random.nextInt(below: maxList + 1))))
      random.shuffle(&catalog)
      rankingsB.append(Array(catalog.prefix(random.nextInt(below: maxList + 1))))
      // Relevant items drawn mostly from the first arm's list, so that there are hits.
      var picks = Set<Int32>()
      let wanted = random.nextInt(below: 6)
      while picks.count < wanted {
        let list = rankingsA.last!
        if !list.isEmpty && random.nextInt(below: 3) > 0 {
          picks.insert(list[random.nextInt(below: list.count)])
        } else {
          picks.insert(Int32(random.nextInt(below: items)))
        }
      }
      relevant.append(picks.sorted())
    }
    self.relevant = relevant
    arms = [OfflineArm(name: "a", rankings: rankingsA), OfflineArm(name: "b", rankings: rankingsB)]
  }
}

@Suite("Offline evaluation: seeded random cases")
struct OfflineEvaluationRandomTests {
  @Test(arguments: [1, 2, 3] as [UInt64])
  func tableValuesEqualPerDinerMeans(seed: UInt64) {
    let c = RandomOfflineCase(seed: seed, users: 120)
    let k = 5
    let evaluation = OfflineEvaluation(
      k: k, itemCategory: c.itemCategory, trainingPopularity: c.popularity)
    let result = evaluation.evaluate(users: c.users, relevant: c.relevant, arms: c.arms)
    let evaluated = c.users.indices.filter { !c.relevant[$0].isEmpty }
    #expect(result.table.units == evaluated.map { c.users[$0] })
    #expect(
      result.usersWithoutRelevant
        == c.users.indices.filter { c.relevant[$0].isEmpty }.map { c.users[$0] })
    #expect(!result.usersWithoutRelevant.isEmpty)

    for (a, arm) in c.arms.enumerated() {
      let scores = evaluated.map {
        RankingMetrics(ranking: arm.rankings[$0], relevant: Set(c.relevant[$0]), k: k)!
      }
      func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }
      let accuracy: [(OfflineMetric, Double)] = [
        (.precisionAtK, mean(scores.map(\.precision))), (.recallAtK, mean(scores.map(\.recall))),
        (.ndcgAtK, mean(scores.map(\.ndcg))), (.mapAtK, mean(scores.map(\.averagePrecision))),
        (.mrr, mean(scores.map(\.reciprocalRank))), (.hitRateAtK, mean(scores.map(\.hit))),
      ]
      for (metric, expected) in accuracy {
        #expect(close(result.table.value(arm: a, metric: metric.rawValue), expected, within: 1e-12))
      }
      let cards = evaluated.flatMap { arm.rankings[$0].prefix(k) }
      #expect(
        close(
          result.table.value(arm: a, metric: OfflineMetric.novelty.rawValue),
          mean(cards.map { evaluation.noveltyBits[Int($0)] })))
      #expect(
        close(
          result.table.value(arm: a, metric: OfflineMetric.popularityBias.rawValue),
          mean(cards.map { evaluation.popularityPercentile[Int($0)] })))
      #expect(
        result.table.value(arm: a, metric: OfflineMetric.catalogCoverage.rawValue)
          == Double(Set(cards).count) / Double(c.itemCategory.count))
      // Diversity by brute force over pairs.
      var shares: [Double] = []
      for u in evaluated {
        let top = Array(arm.rankings[u].prefix(k))
        guard top.count >= 2 else { continue }
        var different = 0
        var pairs = 0
        for i in 0..<top.count {
          for j in (i + 1)..<top.count {
            pairs += 1
            if c.itemCategory[Int(top[i])] != c.itemCategory[Int(top[j])] { different += 1 }
          }
        }
        shares.append(Double(different) / Double(pairs))
      }
      #expect(
        close(
          result.table.value(arm: a, metric: OfflineMetric.intraListDiversity.rawValue),
          mean(shares)))
    }
  }

  /// Over the whole catalog the mid-rank percentile averages 0.5 exactly, whatever the counts.
  @Test(arguments: [4, 5, 6, 7] as [UInt64])
  func percentilesAverageOneHalfAndProbabilitiesSumToOne(seed: UInt64) {
    let c = RandomOfflineCase(seed: seed, users: 1, items: 37)
    let evaluation = OfflineEvaluation(
      k: 1, itemCategory: c.itemCategory, trainingPopularity: c.popularity)
    let mean = evaluation.popularityPercentile.reduce(0, +) / 37
    #expect(abs(mean - 0.5) < 1e-12)
    let total = evaluation.noveltyBits.map { pow(2, -$0) }.reduce(0, +)
    #expect(abs(total - 1) < 1e-12)
    // More popular never means a lower percentile or more bits.
    for i in 0..<37 {
      for j in 0..<37 where c.popularity[i] < c.popularity[j] {
        #expect(evaluation.popularityPercentile[i] < evaluation.popularityPercentile[j])
        #expect(evaluation.noveltyBits[i] > evaluation.noveltyBits[j])
      }
    }
  }
}

@Suite("TREC run and qrels files")
struct TrecFilesTests {
  @Test func runFileLines() throws {
    let text = try TrecFiles.run(
      users: ["u1", "u2", "u3"], rankings: [["a", "b", "c"], [], ["z"]], tag: "pop")
    #expect(text == "u1 Q0 a 1 3 pop\nu1 Q0 b 2 2 pop\nu1 Q0 c 3 1 pop\nu3 Q0 z 1 1 pop\n")
    let indexed = try TrecFiles.run(
      users: ["u1", "u2", "u3"], rankings: [[0, 1, 2], [], [3]], itemIDs: ["a", "b", "c", "z"],
      tag: "pop")
    #expect(indexed == text)
  }

  @Test func qrelsFileLines() throws {
    let text = try TrecFiles.qrels(users: ["u1", "u2", "u3"], relevant: [["b"], [], ["z", "a"]])
    #expect(text == "u1 0 b 1\nu3 0 z 1\nu3 0 a 1\n")
    let indexed = try TrecFiles.qrels(
      users: ["u1", "u2", "u3"], relevant: [[1], [], [2, 0]], itemIDs: ["a", "b", "z"])
    #expect(indexed == text)
  }

  @Test(arguments: ["a b", "a\tb", "a\nb", "a\r\nb", "", "a\u{00A0}b", " a"])
  func idsWithWhitespaceAreRefused(id: String) {
    #expect(throws: TrecIDError(kind: "item", id: id)) {
      _ = try TrecFiles.run(users: ["u"], rankings: [["ok", id]], tag: "t")
    }
    #expect(throws: TrecIDError(kind: "user", id: id)) {
      _ = try TrecFiles.qrels(users: [id], relevant: [["ok"]])
    }
    #expect(throws: TrecIDError(kind: "run tag", id: id)) {
      _ = try TrecFiles.run(users: ["u"], rankings: [["ok"]], tag: id)
    }
  }

  @Test func refusalMessages() {
    #expect(
      TrecIDError(kind: "item", id: "pad thai").description
        == "item id \"pad thai\" contains whitespace; TREC files separate fields by whitespace"
        + " and have no escape: rename the item or leave out the TREC export")
    #expect(
      TrecIDError(kind: "user", id: "").description
        == "user id \"\" is empty; TREC files need a non-empty id in every field")
  }

  @Test func writtenFilesReadBack() throws {
    let c = RandomOfflineCase(seed: 9, users: 30)
    let ids = (0..<c.itemCategory.count).map { "dish-\($0)" }
    let run = try TrecFiles.run(
      users: c.users, rankings: c.arms[0].rankings, itemIDs: ids, tag: "a")
    let readRankings = try TrecFiles.readRun(run, name: "run")
    for (user, ranking) in zip(c.users, c.arms[0].rankings) {
      #expect(
        readRankings[IDKey(user)] == (ranking.isEmpty ? nil : ranking.map { IDKey(ids[Int($0)]) }))
    }
    let qrels = try TrecFiles.qrels(users: c.users, relevant: c.relevant, itemIDs: ids)
    let readRelevant = try TrecFiles.readQrels(qrels, name: "qrels")
    for (user, relevant) in zip(c.users, c.relevant) {
      #expect(
        readRelevant[IDKey(user)]
          == (relevant.isEmpty ? nil : Set(relevant.map { IDKey(ids[Int($0)]) })))
    }
  }

  /// Dishes swiped left only are 0-judgements after the relevant ones; a diner without a
  /// relevant dish has no line, and one swiped both ways is relevant.
  @Test func qrelsJudgeLeftSwipesNotRelevant() throws {
    var held = HeldOutSwipes(catalog: Self.qrelsCatalog, split: DeckDate(daysSinceEpoch: 0))
    held.add(user: "u1", item: 0, right: true)
    held.add(user: "u1", item: 1, right: false)
    held.add(user: "u1", item: 2, right: false)
    held.add(user: "u1", item: 2, right: true)
    held.add(user: "u2", item: 1, right: false)
    #expect(held.nonRelevant(for: "u1") == [1])
    #expect(held.nonRelevant(for: "u2") == [1])
    #expect(held.nonRelevant(for: "nobody") == [])
    let judged = held.judged
    #expect(judged.map(\.user) == ["u1"])
    let qrels = try TrecFiles.qrels(
      users: judged.map(\.user), relevant: judged.map(\.relevant),
      nonRelevant: judged.map { held.nonRelevant(for: $0.user) }, itemIDs: ["a", "b", "c"])
    #expect(qrels == "u1 0 a 1\nu1 0 c 1\nu1 0 b 0\n")
    #expect(try TrecFiles.readQrels(qrels, name: "q") == ["u1": ["a", "c"]])
  }

  /// The evaluation side matches dishes and diners by their ids' bytes, as the training history
  /// does: a decomposed "café" in the log is an unknown dish of a precomposed catalog (never a
  /// judgement on it), and two spellings of a diner are two diners.
  @Test func heldOutSwipesMatchIDsByTheirBytes() throws {
    let (nfc, nfd) = ("caf\u{E9}", "cafe\u{301}")
    let catalog = try Catalog(items: [
      MenuItem(id: nfc, name: "Café", category: "x"),
      MenuItem(id: "tea", name: "Tea", category: "x"),
    ])
    let split = DeckDate(year: 2026, month: 11, day: 10)!
    var held = HeldOutSwipes(catalog: catalog, split: split)
    let at = Int64(split.daysSinceEpoch) * 86_400 + 3600
    func event(_ user: String, _ item: String) -> SwipeEvent {
      SwipeEvent(user: user, item: item, swipe: .right, at: at)
    }
    var dispositions: [EventDisposition] = []
    for (user, item) in [("d1", nfd), ("d1", "tea"), (nfc, nfc), (nfd, "tea")] {
      dispositions.append(held.event(event(user, item)))
    }
    #expect(dispositions == [.unknownItem, .accepted, .accepted, .accepted])
    #expect(held.events == 3)
    let judged = held.judged
    #expect(judged.map { Array($0.user.utf8) } == [nfd, nfc, "d1"].map { Array($0.utf8) })
    #expect(judged.map(\.relevant) == [[1], [0], [1]])
    let qrels = try TrecFiles.qrels(
      users: judged.map(\.user), relevant: judged.map(\.relevant), itemIDs: [nfc, "tea"])
    #expect(Array(qrels.utf8) == Array("\(nfd) 0 tea 1\n\(nfc) 0 \(nfc) 1\nd1 0 tea 1\n".utf8))
    let read = try TrecFiles.readQrels(qrels, name: "q")
    #expect(read.count == 3)
    #expect(read[IDKey(nfd)] == [IDKey("tea")] && read[IDKey(nfc)] == [IDKey(nfc)])
    #expect(read[IDKey("d1")]?.contains(IDKey(nfd)) == false)
  }

  static let qrelsCatalog = try! Catalog(items: [
    MenuItem(id: "a", name: "A", category: "x"), MenuItem(id: "b", name: "B", category: "x"),
    MenuItem(id: "c", name: "C", category: "y"),
  ])

  /// trec_eval orders by score, then by doc id in descending byte order; the rank is not used.
  @Test func readingOrdersByScoreThenDocIDDescending() throws {
    let run = try TrecFiles.readRun(
      "q Q0 b 1 2.0 t\nq Q0 c 2 2 t\n\nq Q0 a 3 7e-1 t\r\nq Q0 z 4 -1 t\nr Q0 a 9 0 t\n",
      name: "run")
    #expect(run == ["q": ["c", "b", "a", "z"], "r": ["a"]])
    let qrels = try TrecFiles.readQrels("q 0 a 1\nq 0 b 0\nq 0 c 2\nr 0 a -1\n", name: "qrels")
    #expect(qrels == ["q": ["a", "c"], "r": []])
  }

  @Test(arguments: [
    (
      "q Q0 a 1 1 t\nq Q0 b 2 1\n",
      "run.txt:2:11: expected 6 fields (query Q0 doc rank score tag), found 5: fix the line"
    ),
    ("q Q0 a one 1 t\n", "run.txt:1:8: rank \"one\" is not a whole number"),
    ("q Q0 a 1 nan t\n", "run.txt:1:10: score \"nan\" is not a finite number"),
    (
      "q Q0 a 1 1 t\n\nq Q0 a 2 0 t\n",
      "run.txt:3:6: doc \"a\" is listed twice for query \"q\": keep one line"
    ),
  ])
  func malformedRunLines(text: String, message: String) {
    #expect {
      _ = try TrecFiles.readRun(text, name: "run.txt")
    } throws: { error in
      (error as? DeckIOError)?.description == message
    }
  }

  /// Qrels lines end at LF (a CR before it dropped) and fields part at spaces and tabs, as
  /// trec_eval and the run reader read them: a line or paragraph separator, a next-line
  /// character or a no-break space is part of an id, not a line or field break.
  @Test func qrelsLinesEndOnlyAtLineFeeds() throws {
    let text =
      "q 0 a\u{2028}b 1\r\nq 0 c\u{85}d 1\nq\t0 e\u{A0}f 1\r\n\r\nr 0 g\u{2029}h 1"
    #expect(
      try TrecFiles.readQrels(text, name: "qrels.txt")
        == [
          "q": [IDKey("a\u{2028}b"), IDKey("c\u{85}d"), IDKey("e\u{A0}f")],
          "r": [IDKey("g\u{2029}h")],
        ])
  }

  /// A carriage return not followed by a line feed is an error at its line and column, as in
  /// every reader of line records, not a line end.
  @Test func qrelsLoneCarriageReturnIsAnError() {
    #expect {
      _ = try TrecFiles.readQrels("q 0 a 1\nq 0 bé\rq 0 c 1\n", name: "qrels.txt")
    } throws: { error in
      (error as? DeckIOError)?.description == "qrels.txt:2:7: " + loneCarriageReturnMessage
    }
  }

  @Test func malformedQrelsLines() {
    #expect {
      _ = try TrecFiles.readQrels("q 0 a 1\nq 0 b yes\n", name: "qrels.txt")
    } throws: { error in
      (error as? DeckIOError)?.description == "qrels.txt:2: relevance \"yes\" is not a whole number"
    }
    #expect {
      _ = try TrecFiles.readQrels("q 0 a\n", name: "qrels.txt")
    } throws: { error in
      (error as? DeckIOError)?.description
        == "qrels.txt:1: expected 4 fields (query iteration doc relevance), found 3: fix the line"
    }
  }
}

/// Writes the cases `Scripts/check-trec-eval.sh` hands to trec_eval. Runs only when
/// MENUDECK_TREC_EXPORT names a directory.
@Suite(
  "TrecEvalExport",
  .enabled(if: ProcessInfo.processInfo.environment["MENUDECK_TREC_EXPORT"] != nil))
struct TrecEvalExport {
  @Test func export() throws {
    let directory = URL(
      fileURLWithPath: ProcessInfo.processInfo.environment["MENUDECK_TREC_EXPORT"]!)
    func write(_ name: String, _ text: String) throws {
      try text.write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }
    let c = RandomOfflineCase(seed: 20_261_129)
    let ids = (0..<c.itemCategory.count).map { String(format: "item%02d", $0) }
    let arm = c.arms[0]
    try write(
      "run.txt", try TrecFiles.run(users: c.users, rankings: arm.rankings, itemIDs: ids, tag: "a"))
    try write("qrels.txt", try TrecFiles.qrels(users: c.users, relevant: c.relevant, itemIDs: ids))

    // Every cut-off in one pass per diner, and the means of one evaluation at all four at once,
    // as `compare --k 1,3,5,10` reports them.
    let cutoffs = [1, 3, 5, 10]
    var lines: [String] = []
    for (user, (ranking, relevant)) in zip(c.users, zip(arm.rankings, c.relevant)) {
      guard
        let scores = RankingMetrics.at(cutoffs: cutoffs, ranking: ranking, relevant: Set(relevant))
      else { continue }
      for (k, s) in zip(cutoffs, scores) {
        lines += [
          "P_\(k)\t\(user)\t\(s.precision)", "recall_\(k)\t\(user)\t\(s.recall)",
          "ndcg_cut_\(k)\t\(user)\t\(s.ndcg)", "map_cut_\(k)\t\(user)\t\(s.averagePrecision)",
        ]
      }
      lines.append("recip_rank\t\(user)\t\(scores[0].reciprocalRank)")
    }
    let evaluation = OfflineEvaluation(
      cutoffs: cutoffs, itemCategory: c.itemCategory, trainingPopularity: c.popularity)
    let table = evaluation.evaluate(users: c.users, relevant: c.relevant, arms: [arm]).table
    func mean(_ metric: OfflineMetric, _ k: Int? = nil) -> Double {
      table.value(arm: 0, metric: evaluation.column(metric, k: k))!
    }
    for k in cutoffs {
      lines += [
        "P_\(k)\tall\t\(mean(.precisionAtK, k))", "recall_\(k)\tall\t\(mean(.recallAtK, k))",
        "ndcg_cut_\(k)\tall\t\(mean(.ndcgAtK, k))", "map_cut_\(k)\tall\t\(mean(.mapAtK, k))",
      ]
    }
    lines.append("recip_rank\tall\t\(mean(.mrr))")
    try write("ours.tsv", lines.joined(separator: "\n") + "\n")

    try write("fixture-run.txt", TrecReference.run)
    try write("fixture-qrels.txt", TrecReference.qrels)
    try write("fixture-expected.txt", TrecReference.expected + "\n")

    // What the files hold, against the case itself: the run and qrels lines as trec_eval's
    // formats have them, and every metric computed again here from its definition.
    func read(_ name: String) throws -> String {
      try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }
    var runLines: [String] = []
    var qrelsLines: [String] = []
    for (user, (ranking, relevant)) in zip(c.users, zip(arm.rankings, c.relevant)) {
      for (r, item) in ranking.enumerated() {
        runLines.append("\(user) Q0 \(ids[Int(item)]) \(r + 1) \(ranking.count - r) a\n")
      }
      qrelsLines += relevant.map { "\(user) 0 \(ids[Int($0)]) 1\n" }
    }
    #expect(try read("run.txt") == runLines.joined())
    #expect(try read("qrels.txt") == qrelsLines.joined())

    var expected: [String: Double] = [:]
    var sums: [String: Double] = [:]
    var scored = 0
    for (user, (ranking, relevant)) in zip(c.users, zip(arm.rankings, c.relevant))
    where !relevant.isEmpty {
      scored += 1
      let judged = Set(relevant)
      var values: [String: Double] = [:]
      let first = ranking.firstIndex(where: judged.contains)
      values["recip_rank"] = first.map { 1 / Double($0 + 1) } ?? 0
      for k in cutoffs {
        var hits = 0
        var dcg = 0.0
        var precisions = 0.0
        for (i, item) in ranking.prefix(k).enumerated() where judged.contains(item) {
          hits += 1
          dcg += 1 / log2(Double(i + 2))
          precisions += Double(hits) / Double(i + 1)
        }
        let ideal = (0..<min(k, judged.count)).map { 1 / log2(Double($0 + 2)) }.reduce(0, +)
        values["P_\(k)"] = Double(hits) / Double(k)
        values["recall_\(k)"] = Double(hits) / Double(judged.count)
        values["ndcg_cut_\(k)"] = dcg / ideal
        values["map_cut_\(k)"] = precisions / Double(judged.count)
      }
      for (metric, value) in values {
        expected["\(metric)\t\(user)"] = value
        sums[metric, default: 0] += value
      }
    }
    #expect(scored > 0)
    for (metric, sum) in sums { expected["\(metric)\tall"] = sum / Double(scored) }
    let written = try read("ours.tsv").split(separator: "\n").map { $0.split(separator: "\t") }
    #expect(written.allSatisfy { $0.count == 3 })
    #expect(written.count == expected.count)
    for fields in written where fields.count == 3 {
      let key = "\(fields[0])\t\(fields[1])"
      #expect(close(Double(String(fields[2])), expected[key] ?? .nan), "\(key)")
    }
    #expect(try read("fixture-run.txt") == TrecReference.run)
    #expect(try read("fixture-qrels.txt") == TrecReference.qrels)
  }
}
