import DeckBase
import DeckCore
import Testing

@testable import DeckEvaluation
@testable import DeckReports

private func html(_ report: ComparisonReport) -> String {
  String(decoding: HTMLReport.render(report), as: UTF8.self)
}

/// The leaderboard row of `arm` (its `<tr>` up to the next).
private func leaderboardRow(_ out: String, _ arm: String) -> Substring {
  let board = out.components(separatedBy: "<table class=\"leaderboard\">")[1]
    .components(separatedBy: "</table>")[0]
  let start = board.range(of: "<span class=\"armname\">" + arm + "</span>")!
  let rest = board[start.upperBound...]
  return rest[..<(rest.range(of: "</tr>")?.lowerBound ?? rest.endIndex)]
}

@Suite("Compare: arm styles, metric meanings and the report's summary")
struct ReportSummaryTests {
  @Test func twelveArmsGetTwelveDistinctColourAndMarkerPairs() {
    let twelve = (0..<12).map { ArmStyle(index: $0) }
    #expect(Set(twelve.map { "\($0.colour) \($0.shape)" }).count == 12)
    // The first seven differ in colour and in shape; every pair is unique up to 49 arms.
    #expect(Set(twelve.prefix(7).map(\.colour)).count == 7)
    #expect(Set(twelve.prefix(7).map(\.shape)).count == 7)
    let all = (0..<ArmStyle.distinct).map { ArmStyle(index: $0) }
    #expect(ArmStyle.distinct == 49)
    #expect(Set(all.map { "\($0.colour) \($0.shape)" }).count == 49)
    // A reused colour also comes hollow and dashed; beyond 49 the styles repeat.
    #expect(twelve[7].colour == twelve[0].colour && twelve[7].hollow && twelve[7].dash != nil)
    #expect(!twelve[0].hollow && twelve[0].dash == nil)
    #expect(ArmStyle(index: 49) == ArmStyle(index: 0))
    #expect(ArmStyle(index: 60) == ArmStyle(index: 11))
    // Okabe-Ito without its yellow.
    #expect(!ArmStyle.colours.contains("#F0E442"))
  }

  @Test func everyArmKeepsItsStyleInEveryChartAndTable() {
    let report = manyArmsComparison(12)
    let out = html(report)
    for (a, arm) in report.arms.enumerated() {
      let swatch = ArmStyle(index: a).swatch()
      // The leaderboard, the per-day legend and the estimates table (and the differences
      // table's header for the other arms).
      let label = "<span class=\"armlabel\" title=\"\(arm.arm)\">" + swatch
      #expect(out.components(separatedBy: label).count - 1 >= 3, "\(arm.arm)")
      let marker = ArmStyle(index: a).markerSVG()
      #expect(out.contains(marker + "<span class=\"arm\">\(arm.arm)</span>"), "\(arm.arm)")
    }
    // Twelve different swatches.
    #expect(Set((0..<12).map { ArmStyle(index: $0).swatch() }).count == 12)
  }

  @Test func everyMetricHasADirectionAndAUnit() {
    var names = StatsMetric.allCases.map(\.name)
    for k in [1, 5, 10] { names += OfflineMetric.allCases.map { $0.name(k: k) } }
    let options = OffPolicyOptions(clip: 10, crossFitFolds: 5, slates: true)
    names += OffPolicy.metrics(positions: 3, options: options).map(\.name)
    for name in Set(names) {
      let meaning = MetricMeaning.of(name)
      #expect(meaning != nil, "\(name) has no direction")
      #expect(meaning?.unit.isEmpty == false, "\(name) has no unit")
      let spec = MetricSpec(name: name, definition: "", form: .ratio)
      #expect(spec.direction == meaning?.direction && spec.unit == meaning?.unit)
    }
    let direction = { (name: String) in MetricMeaning.of(name)?.direction }
    #expect(direction("like_rate") == .higher)
    #expect(direction("mean_swipes_to_pick") == .lower)
    #expect(direction("abandon_rate") == .lower)
    #expect(direction("finished_without_pick_rate") == .lower)
    #expect(direction("mean_regret") == .lower)
    #expect(direction("repeat_pick_rate") == .neither)
    #expect(direction("catalog_coverage") == .neither)
    #expect(direction("decks") == .neither)
    #expect(direction("precision_at_5") == .higher)
    #expect(direction("ips_p3") == .higher)
    #expect(direction("replay_matches_p2") == .neither)
    #expect(MetricMeaning.of("novelty")?.unit == "bits per card")
    #expect(MetricMeaning.of("cascade_dr_p1")?.unit == "likes per logged deck")
    #expect(MetricMeaning.of("dr")?.unit == "likes per logged card")
    // Names menudeck does not define have none; a spec then has no direction.
    for name in ["precision_at_", "precision_at_k5", "foo_p2", "ips_p", "unknown"] {
      #expect(MetricMeaning.of(name) == nil, "\(name)")
    }
    #expect(MetricSpec(name: "x", definition: "", form: .total).direction == .neither)
    #expect(
      MetricSpec(name: "x", definition: "", form: .total, direction: .lower, unit: "u").unit
        == "u")
  }

  @Test func headlineMetricsPerKindOfComparison() {
    func headline(_ names: [String]) -> [String] {
      var report = manyArmsComparison(2)
      report.metrics = names.map { MetricSpec(name: $0, definition: "", form: .ratio) }
      return ReportSummary.headlineMetrics(report).map { report.metrics[$0].name }
    }
    #expect(
      headline(StatsMetric.allCases.map(\.name)) == [
        "like_rate", "pick_rate", "mean_swipes_to_pick", "abandon_rate", "mean_regret",
        "ndcg_at_k",
      ])
    var logs: [String] = []
    for k in [1, 5, 10] { logs += OfflineMetric.allCases.map { $0.name(k: k) } }
    #expect(headline(logs) == ["ndcg_at_10", "precision_at_10", "recall_at_10", "mrr"])
    let ope = OffPolicy.metrics(positions: 2, options: OffPolicyOptions(slates: true)).map(\.name)
    #expect(
      headline(logs + ope) == [
        "ndcg_at_10", "precision_at_10", "recall_at_10", "mrr", "ips", "snips", "dr", "cascade_dr",
      ])
    // None of them: the first metrics with a direction.
    #expect(headline(["decks", "novelty", "replay_p1", "x"]) == ["replay_p1"])
    #expect(headline(["decks", "x"]) == ["decks", "x"])
  }

  /// Only a Holm-adjusted p below 1 - level marks a difference; an unadjusted p below it does
  /// not. Better and worse follow the metric's direction.
  @Test func leaderboardMarksOnlyDifferencesSignificantAfterHolm() {
    var report = manyArmsComparison(5)
    // like_rate (higher is better) and mean_swipes_to_pick (lower is better).
    report.differences[0].pValues = [0.001, 0.001]
    report.differences[0].pHolm = [0.04, 0.049]
    report.differences[0].estimates[0].value = 0.02
    report.differences[0].estimates[1].value = -0.3
    report.differences[1].pValues = [0.001, 0.01]
    report.differences[1].pHolm = [0.06, 0.2]
    report.differences[2].pValues = [0.0001, 0.0001]
    report.differences[2].pHolm = [0.002, 0.002]
    report.differences[2].estimates[0].value = -0.05
    report.differences[2].estimates[1].value = 0.4
    report.differences[3].pHolm = [nil, 0.05]
    let out = html(report)
    let arm1 = leaderboardRow(out, "arm1")
    #expect(arm1.contains("<td class=\"better\""))
    #expect(arm1.components(separatedBy: "class=\"better\"").count - 1 == 2)
    #expect(arm1.contains("0.2100 ▲</span>") && arm1.contains("2.9000 ▼</span>"))
    let arm2 = leaderboardRow(out, "arm2")
    #expect(!arm2.contains("▲") && !arm2.contains("▼") && !arm2.contains("better"))
    let arm3 = leaderboardRow(out, "arm3")
    #expect(arm3.components(separatedBy: "class=\"worse\"").count - 1 == 2)
    #expect(arm3.contains("▼") && arm3.contains("▲"))
    // Holm exactly at alpha is not below it; an undefined Holm p marks nothing.
    let arm4 = leaderboardRow(out, "arm4")
    #expect(!arm4.contains("▲") && !arm4.contains("▼"))
    #expect(!leaderboardRow(out, "arm0").contains("▲"))
    // The rule and the test are stated.
    #expect(
      out.contains("adjusted by Holm&#39;s method is below 0.05")
        || out.contains(
          "adjusted by Holm's method is below 0.05")
    )
    // At a 90% level the threshold is 0.10: arm2's like_rate (Holm 0.06) is marked too.
    report.level = 0.9
    let lenient = leaderboardRow(html(report), "arm2")
    #expect(lenient.components(separatedBy: "class=\"better\"").count - 1 == 1)
    #expect(ReportSummary.alpha(report) > 0.0999 && ReportSummary.alpha(report) < 0.1001)
    // The charts and the differences table highlight the same p-values.
    #expect(out.components(separatedBy: "<td class=\"significant\">").count - 1 == 4)
    #expect(out.components(separatedBy: "class=\"ip significant\"").count - 1 == 4)
  }

  @Test func bestArmByTheMetricsDirection() {
    let report = manyArmsComparison(4)
    // like_rate grows with the arm, mean_swipes_to_pick falls: arm3 is best at both.
    #expect(ReportSummary.best(report, metric: 0) == [3])
    #expect(ReportSummary.best(report, metric: 1) == [3])
    let row = leaderboardRow(html(report), "arm3")
    #expect(row.components(separatedBy: "<span class=\"star\">★</span>").count - 1 == 2)
    var tied = report
    tied.arms[0].estimates[0].value = tied.arms[3].estimates[0].value
    #expect(ReportSummary.best(tied, metric: 0) == [0, 3])
    var neutral = report
    neutral.metrics[0] = MetricSpec(name: "novelty", definition: "", form: .ratio)
    #expect(ReportSummary.best(neutral, metric: 0).isEmpty)
  }

  @Test func theMultipleComparisonsNoteStatesTheFamilyAndWhatThePermutationsAllow() {
    var report = manyArmsComparison(4)
    let out = html(report)
    #expect(out.contains("makes 6 tests (3 arms × 2 metrics)"))
    #expect(out.contains("Holm&#39;s step-down") || out.contains("Holm's step-down"))
    #expect(out.contains("shown for reference only"))
    // 6 tests x 1/1001 = 0.006: the permutations are enough, no warning.
    #expect(
      out.contains(
        "Permutations of the randomization test: 1000 per difference (--permutations): over 6"
          + " tests the smallest Holm-adjusted p-value is 0.0060."))
    #expect(out.contains("randomization tests with 1000 permutations each."))
    #expect(!out.contains("class=\"warning\""))
    report.significance = PermutationCount.choose(tests: 6, alpha: 0.05, units: 100, given: 99)
    let few = html(report)
    #expect(
      few.contains(
        "<p class=\"warning\">No difference can be significant at 0.05: with 99 permutations the"
          + " smallest p-value is 1 / 100, so over 6 tests the smallest Holm-adjusted p-value is"
          + " 0.0600; give --permutations 2000 or more (or leave --permutations out: the default"
          + " chooses enough).</p>"))
    report.differences[0].pValues = [nil, 0.5]
    #expect(html(report).contains("5 tests (3 arms × 2 metrics, 1 undefined left out)"))
    report.differences[1].identical = [true, false]
    #expect(
      html(report).contains(
        "4 tests (3 arms × 2 metrics, 1 undefined and 1 identical for every diner left out)"))
  }

  @Test func fewDinersSayTheyNeedMoreDinersNotPermutations() {
    var report = manyArmsComparison(4)
    report.units = 6
    report.significance = PermutationCount.choose(tests: 6, alpha: 0.05, units: 6, given: nil)
    let out = html(report)
    #expect(out.contains("randomization tests over all 64 swaps of the diners."))
    #expect(
      out.contains(
        "No difference can be significant at 0.05: with 6 diners the randomization test"
          + " enumerates all 2^6 swaps and its smallest p-value is 2 / 2^6, so over 6 tests the"
          + " smallest Holm-adjusted p-value is 0.1875; more diners are needed."))
  }

  @Test func theLoggingBiasIsInTheSummaryOfAComparisonOnLogs() {
    var report = manyArmsComparison(3)
    #expect(!html(report).contains("What the log showed"))
    report.loggingBias = LoggingBias(evaluationEvents: 10, withPropensity: 10, byDate: true)
    let out = html(report)
    #expect(out.contains("<strong>What the log showed.</strong> The ranking metrics favour the"))
    #expect(out.contains("add --ope for off-policy estimates"))
    // In the summary, not twice in the notes.
    #expect(!out.contains("<li>the ranking metrics favour"))
  }

  @Test func shellQuotingOfArguments() {
    #expect(TextLayout.shellWord("--users") == "--users")
    #expect(TextLayout.shellWord("Data/swipes.jsonl") == "Data/swipes.jsonl")
    #expect(TextLayout.shellWord("a b") == "'a b'")
    #expect(TextLayout.shellWord("it's") == "'it'\\''s'")
    #expect(TextLayout.shellWord("") == "''")
    #expect(TextLayout.shellWord("$HOME") == "'$HOME'")
  }
}
