import DeckCore
import DeckIO
import Foundation
import Testing

@testable import DeckLab

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
        return DailyPoint(
          day: nov(1).adding(days: d), value: arm == "thompson" && d == 6 ? nil : value)
      }
      daily.append(DailySeries(arm: arm, metric: metric, points: points))
    }
  }
  return ComparisonReport(
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
    // Inside SVG: the arm label text, its tooltip and the chart's aria-label attribute.
    #expect(out.contains(">a,b&quot;c|d</text>"))
    #expect(out.contains("<title>&lt;script&gt;alert(1)&lt;/script&gt; (baseline): "))
    #expect(out.contains("aria-label=\"&lt;script&gt;alert(1)&lt;/script&gt;: value per arm\""))
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

  @Test func structure() {
    let out = html(exampleComparison())
    // 15 estimate charts, 15 difference charts, 3 per-day charts.
    #expect(out.components(separatedBy: "<svg ").count - 1 == 33)
    #expect(out.components(separatedBy: ": value per arm\"").count - 1 == 15)
    #expect(out.components(separatedBy: ": difference to popularity\"").count - 1 == 15)
    #expect(out.contains("aria-label=\"like_rate per day\""))
    #expect(out.contains("aria-label=\"pick_rate per day\""))
    #expect(out.contains("aria-label=\"mean_swipes_to_pick per day\""))
    // The undefined estimate and its difference.
    #expect(out.components(separatedBy: ">undefined</text>").count - 1 == 2)
    #expect(out.contains("<h3>Differences</h3>"))
    #expect(out.contains("<li>thompson has no sessions on 2026-11-07</li>"))
    #expect(!out.contains("nan") && !out.contains("inf"))
  }

  @Test func oneArmWithoutBaselineOrDays() {
    var report = smallComparison()
    report.arms.removeLast()
    report.baseline = nil
    report.differences = []
    report.daily = []
    report.notes = []
    let out = html(report)
    #expect(out.components(separatedBy: "<svg ").count - 1 == 3)
    #expect(!out.contains("difference"))
    #expect(!out.contains("Per day"))
    #expect(!out.contains("Notes"))
    #expect(!out.contains("class=\"reference\""))
    #expect(!out.contains("class=\"zero\""))
    #expect(out.contains("<tr><th scope=\"row\">baseline</th><td>none</td></tr>"))
    // catalog_coverage is undefined for the one arm: no axis, no dot, the word.
    let coverage = section(out, after: "<h3>catalog_coverage</h3>")
    #expect(coverage.contains(">undefined</text>"))
    #expect(!coverage.contains("<circle"))
    #expect(!coverage.contains("class=\"tick\""))
  }

  @Test func longArmNamesAreCutInChartsOnly() {
    let long = "a-strategy-with-a-very-long-name"
    let out = html(smallComparison(arms: [long, "b"]))
    // 25 - 11 characters for the name (13 and "…"), then the suffix; whole in the tooltip and the tables.
    #expect(out.contains(">a-strategy-wi… (baseline)</text>"))
    #expect(
      out.contains("<title>a-strategy-with-a-very-long-name (baseline): 120 [110, 131]</title>"))
    #expect(out.contains("<th scope=\"col\">a-strategy-with-a-very-long-name</th>"))
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
    let svg = SVGChart.daily(
      [SVGChart.Series(label: "x", colour: "#000000", marker: 0, points: points)], title: "t")
    let start = try #require(svg.range(of: "<path class=\"series\" stroke=\"#000000\" d=\""))
    let d = String(svg[start.upperBound...].prefix { $0 != "\"" })
    // Three runs: day 1 alone, days 3-4, day 6 alone; a marker on every defined day.
    #expect(d.filter { $0 == "M" }.count == 3)
    #expect(d.filter { $0 == "L" }.count == 1)
    #expect(svg.components(separatedBy: "<circle").count - 1 == 4 + 1)  // + the legend's
    #expect(svg.contains(">2026-11-01</text>"))
  }

  @Test func longSeriesHaveFewerMarkers() {
    // 62 days: a marker every 2nd day (31), plus day 11, alone between undefined days 10 and 12.
    let points = (0..<62).map { d in
      DailyPoint(day: nov(1).adding(days: d), value: d == 10 || d == 12 ? nil : Double(d % 7))
    }
    let svg = SVGChart.daily(
      [SVGChart.Series(label: "x", colour: "#000000", marker: 0, points: points)], title: "t")
    // Even days but 10 and 12 (29), day 11, the legend's.
    #expect(svg.components(separatedBy: "<circle").count - 1 == 29 + 1 + 1)
  }

  @Test func zeroWidthIntervalAndNegativeDifferences() {
    let rows = [
      SVGIntervalRow(
        label: "a", colour: "#000000", estimate: Estimate(value: -2, lower: -2, upper: -2),
        text: "-2 [-2, -2]", side: "p 1.0000", marked: false)
    ]
    let svg = SVGChart.intervals(
      rows, zeroLine: true, reference: nil, referenceLabel: "", title: "t")
    // The axis runs from -2 to 0 (zero is always on it); a whisker of zero length still has
    // its end caps; the zero line is at the right end.
    #expect(svg.contains(">-2.0</text>"))
    #expect(svg.contains(">0.0</text>"))
    #expect(
      svg.contains(
        "<path class=\"whisker\" stroke=\"#000000\" d=\"M212.0 40.0H212.0M212.0 34.0V46.0M212.0 34.0V46.0\"/>"
      ))
    #expect(svg.contains("<line class=\"zero\" x1=\"496.0\""))
    #expect(svg.contains(">p 1.0000</text>"))
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

/// The part of `text` from `marker` to the next metric section.
private func section(_ text: String, after marker: String) -> Substring {
  guard let start = text.range(of: marker) else { return "" }
  let rest = text[start.upperBound...]
  let end = rest.range(of: "<section")?.lowerBound ?? rest.endIndex
  return rest[..<end]
}
