import DeckCore
import DeckIO
import DeckTestSupport
import Foundation
import Testing

@testable import DeckEvaluation
@testable import DeckReports

/// A realistic comparison: 3 arms (popularity the baseline), 15 metrics, 14 days of like_rate,
/// pick_rate and mean_swipes_to_pick. Values come from a fixed LCG. Includes an undefined
/// estimate (repeat_pick_rate of thompson), an undefined day, a zero-width interval
/// (catalog_coverage of popularity) and negative differences.
func exampleComparison() -> ComparisonReport {
  var state: UInt64 = 0x5EED
  func next() -> Double {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return Double(state >> 11) / Double(1 << 53)
  }
  let arms = ["popularity", "affinity", "thompson"]
  let metrics = StatsMetric.allCases.prefix(15).map { m in
    MetricSpec(
      name: m.name, definition: m.definition,
      form: m.isCount
        ? .total : m == .catalogCoverage ? .coverage(catalogItems: 120) : .ratio)
  }
  // Per metric: a typical value and a spread.
  func base(_ m: MetricSpec) -> (Double, Double) {
    switch m.name {
    case "decks": (14_000, 0)
    case "cards_shown": (98_000, 2_500)
    case "right_swipes": (27_000, 2_000)
    case "left_swipes": (71_000, 2_500)
    case "mean_swipes_to_pick": (3.2, 0.5)
    case "intra_deck_diversity": (3.1, 0.4)
    case "novelty": (6.8, 0.6)
    case "mean_pick_utility": (0.45, 0.2)
    case "mean_regret": (0.3, 0.15)
    default: (0.3, 0.15)
    }
  }
  var summaries: [ArmSummary] = []
  for (a, arm) in arms.enumerated() {
    var estimates: [Estimate] = []
    for m in metrics {
      let (center, spread) = base(m)
      let v = center + spread * (Double(a) * 0.35 + next() * 0.3 - 0.2)
      let half = m.isCount ? (v * 0.02).rounded() : spread * (0.05 + next() * 0.1)
      if m.name == "repeat_pick_rate" && arm == "thompson" {
        estimates.append(Estimate(value: nil, lower: nil, upper: nil))
      } else if m.name == "catalog_coverage" && a == 0 {
        estimates.append(Estimate(value: 0.25, lower: 0.25, upper: 0.25))
      } else if m.name == "decks" {
        estimates.append(Estimate(value: 14_000, lower: 14_000, upper: 14_000))
      } else {
        let value = m.isCount ? v.rounded() : v
        estimates.append(Estimate(value: value, lower: value - half, upper: value + half * 1.1))
      }
    }
    summaries.append(ArmSummary(arm: arm, estimates: estimates))
  }
  var differences: [ArmDifference] = []
  for summary in summaries.dropFirst() {
    var estimates: [Estimate] = []
    var pValues: [Double?] = []
    for (n, m) in metrics.enumerated() {
      guard let v = summary.estimates[n].value, let b = summaries[0].estimates[n].value else {
        estimates.append(Estimate(value: nil, lower: nil, upper: nil))
        pValues.append(nil)
        continue
      }
      let d = v - b
      let half = abs(d) * (0.3 + next()) + (m.isCount ? 10 : 0.002)
      estimates.append(Estimate(value: d, lower: d - half, upper: d + half * 0.9))
      // A normal approximation, so that p < 0.05 goes with an interval without 0.
      let z = abs(d) / ((d - estimates[n].lower!) / 1.96)
      pValues.append(d == 0 ? 1 : max(0.001, erfc(z / 2.0.squareRoot())))
    }
    differences.append(
      ArmDifference(
        arm: summary.arm, baseline: "popularity", estimates: estimates, pValues: pValues))
  }
  var daily: [DailySeries] = []
  for (metric, center, spread) in [
    ("like_rate", 0.27, 0.08), ("pick_rate", 0.6, 0.2), ("mean_swipes_to_pick", 3.4, 0.8),
  ] {
    for (a, arm) in arms.enumerated() {
      let points = (0..<14).map { d in
        let learning = Double(a) * Double(d) / 14 * 0.5
        let value = center + spread * (learning + next() * 0.3 - 0.1)
        let half = spread * (0.08 + next() * 0.06)
        guard !(arm == "thompson" && d == 6) else {
          return DailyPoint(day: nov(1).adding(days: d), value: nil)
        }
        return DailyPoint(
          day: nov(1).adding(days: d), value: value, lower: value - half, upper: value + half)
      }
      daily.append(DailySeries(arm: arm, metric: metric, points: points))
    }
  }
  var report = ComparisonReport(
    title: "simulation: 1000 diners x 14 days from 2026-11-01",
    parameters: [
      ReportParameter(name: "seed", value: "42"),
      ReportParameter(name: "deck size", value: "10"),
      ReportParameter(name: "mode", value: "pick"),
      ReportParameter(name: "strategies", value: arms.joined(separator: ", ")),
    ],
    metrics: metrics, arms: summaries, baseline: "popularity", differences: differences,
    daily: daily, level: 0.95, resamples: 1000, units: 1000,
    notes: [
      "repeat_pick_rate is undefined for thompson: no right swipes repeat an earlier pick",
      "thompson has no sessions on 2026-11-07",
    ])
  report.run = RunRecord(
    version: "0.1.0", command: "compare",
    arguments: [
      "menudeck", "compare", "-s", "popularity", "-s", "affinity", "-s", "thompson",
      "--baseline", "popularity", "--users", "1000", "--days", "14", "--report", "r.html",
    ],
    inputs: [
      RunInput(
        role: "config", path: "Config/menudeck.json",
        sha256: "ba92f0c4d2e1a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3"),
      RunInput(
        role: "catalog", path: "Data/catalog.json",
        sha256: "b27b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b"),
    ])
  return report
}

/// A report with hostile strings in every place a string can be.
private func hostileComparison() -> ComparisonReport {
  var report = smallComparison(
    arms: [hostileName, punctuatedName], notes: [hostileName, punctuatedName + "\n'quoted'"])
  report.title = "<script>alert(1)</script> & 'title'"
  report.parameters.append(ReportParameter(name: "<script>", value: "\"a\" <b>"))
  report.metrics[1].name = "<script>alert(1)</script>"
  report.metrics[1].definition = "<b onmouseover=alert(1)>bold</b>"
  report.daily[0].metric = report.metrics[1].name
  report.daily[1].metric = report.metrics[1].name
  report.run = RunRecord(
    version: "<b>1</b>", command: "compare",
    arguments: ["menudeck", "compare", "--report", "<script>x</script>.html", "it's"],
    inputs: [RunInput(role: "catalog", path: "/tmp/<img onerror=x>\"q\".json", sha256: "ab'cd")])
  return report
}

/// A simulated comparison of `count` arms (the first the baseline): like_rate and
/// mean_swipes_to_pick, with per-day bands, differences and Holm p-values.
func manyArmsComparison(_ count: Int) -> ComparisonReport {
  let names = (0..<count).map { "arm\($0)" }
  let metrics = [
    MetricSpec(name: "like_rate", definition: "right_swipes / cards_shown", form: .ratio),
    MetricSpec(name: "mean_swipes_to_pick", definition: "swipes to the pick", form: .ratio),
  ]
  let arms = names.enumerated().map { a, name in
    ArmSummary(
      arm: name,
      estimates: [
        Estimate(value: 0.2 + 0.01 * Double(a), lower: 0.19, upper: 0.3),
        Estimate(value: 3 - 0.1 * Double(a), lower: 2, upper: 3.2),
      ])
  }
  let differences = names.dropFirst().enumerated().map { a, name in
    ArmDifference(
      arm: name, baseline: names[0],
      estimates: [
        Estimate(value: 0.01 * Double(a + 1), lower: 0, upper: 0.05),
        Estimate(value: -0.1 * Double(a + 1), lower: -0.5, upper: 0),
      ],
      pValues: [0.001, 0.001], pHolm: [0.02, 0.02])
  }
  let daily = names.enumerated().map { a, name in
    DailySeries(
      arm: name, metric: "like_rate",
      points: (0..<3).map { d in
        let v = 0.2 + 0.01 * Double(a + d)
        return DailyPoint(day: nov(1).adding(days: d), value: v, lower: v - 0.02, upper: v + 0.02)
      })
  }
  var report = ComparisonReport(
    title: "simulation: \(count) arms", parameters: [], metrics: metrics, arms: arms,
    baseline: names[0], differences: differences, daily: daily, level: 0.95, resamples: 1000,
    units: 100, notes: [])
  report.significance = PermutationCount.choose(
    tests: 2 * (count - 1), alpha: 0.05, units: 100, given: 1000)
  return report
}

private func html(_ report: ComparisonReport) -> String {
  String(decoding: HTMLReport.render(report), as: UTF8.self)
}

@Suite("Compare: HTML report")
struct HTMLReportTests {
  /// Writes the example report to `MENUDECK_WRITE_REPORT` when set (and beside it the other
  /// formats and the hostile report), to render it with Scripts/render-report.sh and look at it.
  @Test func writeExample() throws {
    let report = exampleComparison()
    #expect(report.metrics.count == 15 && report.arms.count == 3 && report.daily.count == 9)
    let out = HTMLReport.render(report)
    #expect(out == HTMLReport.render(report))
    if let path = ProcessInfo.processInfo.environment["MENUDECK_WRITE_REPORT"] {
      try Data(out).write(to: URL(fileURLWithPath: path))
      // The small report with hostile names, to look at the edge cases too.
      try Data(HTMLReport.render(hostileComparison())).write(
        to: URL(fileURLWithPath: path + ".hostile.html"))
      for format in ComparisonFormat.allCases {
        try Data(ComparisonWriter.render(report, format: format)).write(
          to: URL(fileURLWithPath: path + "." + format.rawValue))
      }
    }
  }

  @Test func escapesEveryInputString() {
    let out = html(hostileComparison())
    #expect(!out.contains("<script"))
    #expect(!out.contains("<b "))
    #expect(!out.contains("a,b\"c"))
    #expect(!out.contains("'quoted'"))
    #expect(
      out.contains("<title>&lt;script&gt;alert(1)&lt;/script&gt; &amp; &#39;title&#39;</title>"))
    #expect(out.contains("<h3>&lt;script&gt;alert(1)&lt;/script&gt;</h3>"))
    #expect(out.contains("<th scope=\"row\">&lt;script&gt;</th><td>&quot;a&quot; &lt;b&gt;</td>"))
    #expect(out.contains("<li>a,b&quot;c|d\n&#39;quoted&#39;</li>"))
    #expect(
      out.contains("<p class=\"definition\">&lt;b onmouseover=alert(1)&gt;bold&lt;/b&gt;</p>"))
    // In the interval charts: the arm's name, its row's tooltip, the chart's aria-label.
    #expect(out.contains("<span class=\"arm\">a,b&quot;c|d</span>"))
    #expect(out.contains("title=\"&lt;script&gt;alert(1)&lt;/script&gt; (baseline): "))
    #expect(out.contains("aria-label=\"&lt;script&gt;alert(1)&lt;/script&gt;: value per arm\""))
    // Inside SVG: a per-day line's tooltip and the chart's aria-label.
    #expect(out.contains("<g><title>a,b&quot;c|d</title>"))
    #expect(out.contains("aria-label=\"&lt;script&gt;alert(1)&lt;/script&gt; per day\""))
    // The legend, the leaderboard's and the tables' arm labels (text and tooltip).
    let label =
      "<span class=\"armlabel\" title=\"&lt;script&gt;alert(1)&lt;/script&gt;\">"
    #expect(out.components(separatedBy: label).count - 1 == 3)
    #expect(out.contains("<span class=\"armname\">&lt;script&gt;alert(1)&lt;/script&gt;</span>"))
    // The leaderboard's column header: the metric's name and definition in its tooltip.
    #expect(
      out.contains(
        "title=\"&lt;script&gt;alert(1)&lt;/script&gt;: &lt;b onmouseover=alert(1)&gt;bold&lt;/b&gt;\""
      ))
    // The footer: version, arguments (shell-quoted, then escaped), paths and hashes.
    #expect(out.contains("<dd>menudeck &lt;b&gt;1&lt;/b&gt;</dd>"))
    #expect(
      out.contains(
        "<span class=\"arg\">--report</span> <span class=\"arg\">"
          + "&#39;&lt;script&gt;x&lt;/script&gt;.html&#39;</span> <span class=\"arg\">"
          + "&#39;it&#39;\\&#39;&#39;s&#39;</span></code>"))
    #expect(
      out.contains(
        "<td class=\"path\">/<wbr>tmp/<wbr>&lt;img onerror=x&gt;&quot;q&quot;.json</td>"))
    #expect(out.contains("<td class=\"hash\">ab&#39;cd</td>"))
  }

  @Test func selfContained() {
    for report in [exampleComparison(), hostileComparison()] {
      let out = html(report).lowercased()
      for needle in ["http:", "https:", "src=", "@import", "url(", "<script", "<link", "//"] {
        #expect(!out.contains(needle), "found \(needle)")
      }
      #expect(
        out.hasPrefix("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">"))
      #expect(out.hasSuffix("</body>\n</html>\n"))
    }
  }

  @Test func structure() throws {
    let out = html(exampleComparison())
    // 15 estimate charts, 15 difference charts, 3 per-day charts in a wide and a narrow variant.
    #expect(out.components(separatedBy: "<div class=\"ichart").count - 1 == 30)
    #expect(out.components(separatedBy: "<svg class=\"chart\"").count - 1 == 6)
    #expect(out.components(separatedBy: ": value per arm\"").count - 1 == 15)
    #expect(out.components(separatedBy: ": difference to popularity\"").count - 1 == 15)
    for metric in ["like_rate", "pick_rate", "mean_swipes_to_pick"] {
      #expect(out.components(separatedBy: "aria-label=\"\(metric) per day\"").count - 1 == 2)
    }
    // The summary comes first, the run record last.
    let summary = try #require(out.range(of: "<section id=\"summary\">"))
    let metrics = try #require(out.range(of: "<section id=\"metrics\">"))
    let footer = try #require(out.range(of: "<footer id=\"run\">"))
    #expect(summary.lowerBound < metrics.lowerBound && metrics.lowerBound < footer.lowerBound)
    #expect(out.contains("<dd>menudeck 0.1.0</dd>"))
    #expect(
      out.contains(
        "<td class=\"hash\">ba92f0c4d2e1a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3</td>"))
    // The undefined estimate and its difference.
    #expect(out.components(separatedBy: ">undefined</span>").count - 1 == 2)
    #expect(out.contains("<h3>Differences</h3>"))
    #expect(out.contains("<li>thompson has no sessions on 2026-11-07</li>"))
    #expect(!out.contains("nan") && !out.contains("inf"))
  }

  @Test func oneArmWithoutBaselineOrDays() {
    var report = smallComparison()
    report.arms.removeLast()
    report.baseline = nil
    report.differences = []
    report.significance = nil
    report.daily = []
    report.notes = []
    let out = html(report)
    #expect(out.components(separatedBy: "<div class=\"ichart").count - 1 == 3)
    #expect(!out.contains("<svg class=\"chart\""))
    #expect(!out.contains("difference"))
    #expect(!out.contains("Multiple comparisons"))
    #expect(out.contains("were not recorded"))
    #expect(!out.contains("Per day"))
    #expect(!out.contains("Notes"))
    #expect(!out.contains("class=\"reference\""))
    #expect(!out.contains("class=\"zero\""))
    #expect(out.contains("<tr><th scope=\"row\">baseline</th><td>none</td></tr>"))
    // catalog_coverage is undefined for the one arm: no axis, no dot, the word.
    let coverage = section(out, after: "<h3>catalog_coverage</h3>")
    #expect(coverage.contains(">undefined</span>"))
    #expect(!coverage.contains("class=\"dot\""))
    #expect(!coverage.contains("class=\"tick\""))
  }

  /// Long names are cut by the browser (`text-overflow`) where space is short: the HTML holds
  /// the whole name, and a tooltip too.
  @Test func longArmNamesStayWholeWithATooltip() {
    let long = "a-strategy-with-a-very-long-name"
    let out = html(smallComparison(arms: [long, "b"]))
    #expect(out.contains("<span class=\"arm\">a-strategy-with-a-very-long-name</span>"))
    #expect(out.contains("title=\"a-strategy-with-a-very-long-name (baseline): 120 [110, 131]\""))
    #expect(
      out.contains(
        "<span class=\"armlabel\" title=\"a-strategy-with-a-very-long-name\">"))
    // The chart's label column is capped, so the plot keeps its room.
    #expect(out.contains("--label:26ch"))
    #expect(ReportText.truncated("abcdef", 6) == "abcdef")
    #expect(ReportText.truncated("abcdefg", 6) == "abcde…")
  }

  @Test func zeroDaysAndUndefinedDays() {
    var report = smallComparison()
    report.daily = [
      DailySeries(arm: "popularity", metric: "pick_rate", points: []),
      DailySeries(
        arm: "popularity", metric: "mean_swipes_to_pick",
        points: [DailyPoint(day: nov(1), value: nil)]),
    ]
    let out = html(report)
    #expect(out.contains(">no days</text>"))
    #expect(out.contains(">undefined on every day</text>"))
  }

  @Test func linesBreakAtUndefinedDays() throws {
    let points = [0.2, nil, 0.3, 0.4, nil, 0.5].enumerated().map {
      DailyPoint(day: nov(1).adding(days: $0.offset), value: $0.element)
    }
    let svg = dailyChart(points)
    let start = try #require(svg.range(of: "<path class=\"series\" stroke=\"#0072B2\" d=\""))
    let d = String(svg[start.upperBound...].prefix { $0 != "\"" })
    // Three runs: day 1 alone, days 3-4, day 6 alone; a marker on every defined day.
    #expect(d.filter { $0 == "M" }.count == 3)
    #expect(d.filter { $0 == "L" }.count == 1)
    #expect(svg.components(separatedBy: "<circle").count - 1 == 4)
    // Dates as MM-DD, the year in the axis title; the unit titles the y axis.
    #expect(svg.contains(">11-01</text>"))
    #expect(svg.contains(">day (2026)</text>"))
    #expect(svg.contains(">likes per card</text>"))
    // No bounds, no band.
    #expect(!svg.contains("class=\"band\""))
  }

  @Test func bandsFollowTheDaysWithBothBounds() throws {
    // Bounds on days 1-2 and 4-5; day 3 has a value but no interval.
    let points = (0..<5).map { d in
      DailyPoint(
        day: nov(1).adding(days: d), value: 0.3, lower: d == 2 ? nil : 0.25,
        upper: d == 2 ? nil : 0.35)
    }
    let svg = dailyChart(points)
    #expect(svg.components(separatedBy: "<path class=\"band\" fill=\"#0072B2\"").count - 1 == 2)
    // The axis covers the bounds (ticks 0.24 to 0.36), not only the values.
    #expect(svg.contains(">0.24</text>") && svg.contains(">0.36</text>"))
  }

  @Test func dailyChartsOfFewArmsHaveBandsAndOfManyArmsPanels() {
    let few = html(manyArmsComparison(3))
    #expect(few.contains("class=\"band\""))
    #expect(!few.contains("class=\"panels\""))
    #expect(few.contains("Bands: its 95% interval"))
    // 12 arms: the first chart draws every line and no band; a panel per non-baseline arm has
    // that arm's band and the baseline's.
    let many = html(manyArmsComparison(12))
    let daily = many.components(separatedBy: "<section id=\"daily\">")[1]
    let overview = daily.components(separatedBy: "<div class=\"panels\">")[0]
    #expect(!overview.contains("class=\"band\""))
    #expect(many.components(separatedBy: "<figure class=\"panel\">").count - 1 == 11)
    #expect(many.components(separatedBy: "<path class=\"band\"").count - 1 == 22)
    #expect(many.components(separatedBy: "class=\"series muted\"").count - 1 == 11)
    // Without bounds, neither bands nor panels.
    var bare = manyArmsComparison(12)
    for s in bare.daily.indices {
      for p in bare.daily[s].points.indices {
        bare.daily[s].points[p].lower = nil
        bare.daily[s].points[p].upper = nil
      }
    }
    let out = html(bare)
    #expect(!out.contains("class=\"band\"") && !out.contains("class=\"panels\""))
  }

  @Test func longSeriesHaveFewerMarkers() {
    // 62 days: a marker every 2nd day (31), plus day 11, alone between undefined days 10 and 12.
    let points = (0..<62).map { d in
      DailyPoint(day: nov(1).adding(days: d), value: d == 10 || d == 12 ? nil : Double(d % 7))
    }
    // Even days but 10 and 12 (29), and day 11.
    #expect(dailyChart(points).components(separatedBy: "<circle").count - 1 == 29 + 1)
  }

  @Test func zeroWidthIntervalAndNegativeDifferences() {
    let rows = [
      IntervalRow(
        label: "a", style: ArmStyle(index: 6), estimate: Estimate(value: -2, lower: -2, upper: -2),
        text: "-2 [-2, -2]", pValues: ["p 1.0000", "Holm 1.0000"])
    ]
    let chart = IntervalChart.render(
      rows, zeroLine: true, reference: nil, referenceLabel: "", axisTitle: "cards", label: "t")
    // The axis runs from -2 to 0 (zero is always on it); a whisker of zero length still has
    // its end caps (CSS); the zero line is at the right end.
    #expect(chart.contains(">-2.0</span>"))
    #expect(chart.contains(">0.0</span>"))
    #expect(
      chart.contains("<span class=\"whisker\" style=\"left:0.00%;width:0.00%;color:#000000\">"))
    #expect(chart.contains("<span class=\"zero\" style=\"left:100.00%\">"))
    #expect(chart.contains(">p 1.0000<br>Holm 1.0000</div>"))
    #expect(chart.contains(">cards</div>"))
    #expect(!chart.contains("class=\"ip significant\""))
  }

  @Test(
    arguments: [
      (
        [0.2, 0.3125], false, 0.2, 0.32, 0.02,
        ["0.20", "0.22", "0.24", "0.26", "0.28", "0.30", "0.32"]
      ),
      ([0.4], false, 0.36, 0.44, 0.02, ["0.36", "0.38", "0.40", "0.42", "0.44"]),
      ([-6, 3], true, -6, 4, 2, ["-6", "-4", "-2", "0", "2", "4"]),
      ([0], true, -1, 1, 0.5, ["-1.0", "-0.5", "0.0", "0.5", "1.0"]),
      ([0, 0.4], false, 0, 0.4, 0.1, ["0.0", "0.1", "0.2", "0.3", "0.4"]),
      (
        [14_000, 14_200], false, 14_000, 14_200, 50, ["14000", "14050", "14100", "14150", "14200"]
      ),
    ] as [([Double], Bool, Double, Double, Double, [String])])
  func axisTicks(
    values: [Double], zero: Bool, lower: Double, upper: Double, step: Double, labels: [String]
  ) throws {
    let axis = try #require(SVGAxis(values: values, includeZero: zero))
    #expect(abs(axis.lower - lower) < 1e-12)
    #expect(abs(axis.upper - upper) < 1e-12)
    #expect(abs(axis.step - step) < 1e-12)
    #expect(axis.ticks.map(axis.label) == labels)
  }

  @Test func noAxisWithoutFiniteValues() {
    #expect(SVGAxis(values: [], includeZero: false) == nil)
    #expect(SVGAxis(values: [.nan, .infinity], includeZero: false) == nil)
    #expect(SVGAxis(values: [.nan], includeZero: true)?.lower == -1)
  }

  @Test func htmlEscaping() {
    #expect(ReportText.html("&<>\"'") == "&amp;&lt;&gt;&quot;&#39;")
    #expect(ReportText.html("a\u{0}b\u{1B}c\td\ne") == "a\u{FFFD}b\u{FFFD}c\td\ne")
    #expect(ReportText.html("é人気") == "é人気")
  }
}

/// A per-day chart of one series (the first arm's style) in likes per card.
private func dailyChart(_ points: [DailyPoint]) -> String {
  SVGChart.lines(
    [
      SVGChart.Series(
        label: "x", style: ArmStyle(index: 0), points: SVGChart.points(points, since: nov(1)))
    ], title: "t", unit: "likes per card",
    x: SVGChart.dayAxis(first: nov(1), last: points.map(\.day).max()!))
}

/// The part of `text` from `marker` to the next metric section.
private func section(_ text: String, after marker: String) -> Substring {
  guard let start = text.range(of: marker) else { return "" }
  let rest = text[start.upperBound...]
  let end = rest.range(of: "<section")?.lowerBound ?? rest.endIndex
  return rest[..<end]
}
