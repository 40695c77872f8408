import DeckCore

/// The `--report FILE.html` of `menudeck compare`: one self-contained HTML5 file.
///
/// Nothing is loaded from anywhere (no scripts, external styles, fonts or images; the CSS is
/// inline, the charts are inline SVG, no JavaScript), so the file reads the same offline, in a
/// mail attachment or printed. Contents, top to bottom:
/// - the title and a table of the parameters, units, level, resamples and baseline; the notes;
/// - per metric (in report order) its name and definition, a dot-and-whisker chart of every arm's
///   value with its confidence interval (the baseline arm's row in bold, its value as a dashed
///   line) and, with a baseline, a chart of each other arm's difference to it with its interval,
///   a line at zero, the p-value and the Holm-adjusted p-value, after a note on the family of
///   tests the adjustment is over;
/// - per-day line charts of every metric of `daily` (one line per arm, a legend, a marker per
///   defined day, the line broken where a day is undefined);
/// - the estimates and differences tables (the content of the Markdown output).
///
/// Every string from the input (title, parameters, arm and metric names, definitions, notes) is
/// escaped (`&`, `<`, `>`, `"`, `'`), in HTML text, SVG text and attributes alike. Numbers have
/// fixed decimals (`ComparisonWriter.textDecimals`; counts whole); an undefined value draws
/// nothing and says "undefined". The output holds no date or random number: the same report is
/// always the same bytes. Arm colours are the Okabe–Ito palette (safe for colour-blind readers)
/// in arm order; the per-day lines also differ by marker shape, so they read in grey print.
package enum HTMLReport {
  /// The whole HTML file.
  package static func render(_ report: ComparisonReport) -> [UInt8] {
    let h = ReportText.html
    var s = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    s += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    s += "<meta name=\"generator\" content=\"menudeck compare\">\n"
    s += "<title>" + h(report.title) + "</title>\n<style>\n" + css + "</style>\n</head>\n<body>\n"
    s += "<header>\n<h1>" + h(report.title) + "</h1>\n<table class=\"parameters\">\n<tbody>\n"
    for field in ReportText.headerFields(report) {
      s += "<tr><th scope=\"row\">" + h(field.name) + "</th><td>" + h(field.value) + "</td></tr>\n"
    }
    s += "</tbody>\n</table>\n</header>\n"
    if !report.notes.isEmpty {
      s += "<section class=\"notes\">\n<h2>Notes</h2>\n<ul>\n"
      for note in report.notes { s += "<li>" + h(note) + "</li>\n" }
      s += "</ul>\n</section>\n"
    }
    s += metricsSection(report)
    s += dailySection(report)
    s += dishesSection(report)
    s += tablesSection(report)
    s += "</body>\n</html>\n"
    return Array(s.utf8)
  }

  private static func colour(_ report: ComparisonReport, _ arm: String) -> String {
    let n = report.arms.firstIndex { $0.arm == arm } ?? report.arms.count
    return SVGChart.palette[n % SVGChart.palette.count]
  }

  private static func metricsSection(_ report: ComparisonReport) -> String {
    let h = ReportText.html
    let level = ReportText.percent(report.level)
    var s = "<section>\n<h2>Metrics</h2>\n<p class=\"help\">Dots are values, whiskers " + level
    s += " confidence intervals."
    if let baseline = report.baseline {
      s += " Right: each arm minus the baseline (" + h(baseline) + ") with its " + level
      s += " interval, a line at zero, the two-sided paired randomization-test p-value (p) and"
      s += " the same adjusted for multiple comparisons (Holm)."
    }
    s += "</p>\n"
    if !report.differences.isEmpty {
      s +=
        "<p class=\"help\">Multiple comparisons: this report tests "
        + h(ReportText.familySize(report))
      s += " at once, so some small p-values are expected by chance alone. Holm is the"
      s += " p-value adjusted by Holm's step-down method over that family (every defined"
      s += " randomization p-value of a non-baseline arm and a metric): taking as real only the"
      s += " differences whose Holm value is below 0.05 keeps the chance of even one false"
      s += " positive in the whole report at 5% or less, however the tests depend on each other."
      s += " The JSON and"
      s += " CSV outputs also give the Benjamini-Hochberg adjustment (false discovery rate), a"
      s += " paired t-test and a Wilcoxon signed-rank test.</p>\n"
    }
    let baselineIndex = report.baseline.flatMap { b in report.arms.firstIndex { $0.arm == b } }
    for (n, metric) in report.metrics.enumerated() {
      s += "<section class=\"metric\">\n<h3>" + h(metric.name) + "</h3>\n"
      s += "<p class=\"definition\">" + h(metric.definition) + "</p>\n<div class=\"charts\">\n"
      let rows = report.arms.map { arm in
        let e = ReportText.estimate(arm.estimates, n)
        let marked = arm.arm == report.baseline
        return SVGIntervalRow(
          label: arm.arm, suffix: marked ? " (baseline)" : "", colour: colour(report, arm.arm),
          estimate: e, text: ReportText.estimateText(e, count: metric.isCount), side: nil,
          marked: marked)
      }
      let reference = baselineIndex.flatMap {
        ReportText.estimate(report.arms[$0].estimates, n).value
      }
      s += "<figure>\n<figcaption>value [" + level + " interval]</figcaption>\n"
      s += SVGChart.intervals(
        rows, zeroLine: false, reference: reference, referenceLabel: "baseline",
        title: metric.name + ": value per arm")
      s += "</figure>\n"
      if !report.differences.isEmpty {
        let rows = report.differences.map { d in
          let e = ReportText.estimate(d.estimates, n)
          return SVGIntervalRow(
            label: d.arm, colour: colour(report, d.arm), estimate: e,
            text: ReportText.estimateText(e, count: metric.isCount, signed: true),
            side: "p " + ReportText.pValueText(ArmDifference.at(d.pValues, n)),
            sideBelow: "Holm " + ReportText.pValueText(ArmDifference.at(d.pHolm, n)),
            marked: false)
        }
        let baselines = Set(report.differences.map(\.baseline)).sorted()
        let minus = baselines.count == 1 ? baselines[0] : "baseline"
        s += "<figure>\n<figcaption>arm - " + h(minus) + " [" + level + " interval]</figcaption>\n"
        s += SVGChart.intervals(
          rows, zeroLine: true, reference: nil, referenceLabel: "",
          title: metric.name + ": difference to " + minus)
        s += "</figure>\n"
      }
      s += "</div>\n</section>\n"
    }
    return s + "</section>\n"
  }

  private static func dailySection(_ report: ComparisonReport) -> String {
    guard !report.daily.isEmpty else { return "" }
    let h = ReportText.html
    var metrics: [String] = []
    for series in report.daily where !metrics.contains(series.metric) {
      metrics.append(series.metric)
    }
    var s = "<section>\n<h2>Per day</h2>\n<div class=\"charts\">\n"
    for name in metrics {
      let spec = report.metrics.first { $0.name == name }
      s += "<figure class=\"metric\">\n<h3>" + h(name) + "</h3>\n"
      if let spec { s += "<p class=\"definition\">" + h(spec.definition) + "</p>\n" }
      let series = report.daily.filter { $0.metric == name }.map { d in
        let n = report.arms.firstIndex { $0.arm == d.arm } ?? report.arms.count
        return SVGChart.Series(
          label: d.arm, colour: colour(report, d.arm), marker: n, points: d.points)
      }
      s += SVGChart.daily(series, title: name + " per day") + "</figure>\n"
    }
    return s + "</div>\n</section>\n"
  }

  /// The dishes each strategy showed most: rank, then a column per strategy.
  private static func dishesSection(_ report: ComparisonReport) -> String {
    guard report.topDishes.contains(where: { !$0.dishes.isEmpty }) else { return "" }
    let h = ReportText.html
    var s = "<section>\n<h2>Dishes shown most</h2>\n"
    s += "<p class=\"help\">" + h(ReportText.dishesCaption(report)) + "</p>\n"
    let grid = ReportText.dishesGrid(report, clean: h)
    s += table(grid.header, grid.rows)
    return s + "</section>\n"
  }

  private static func tablesSection(_ report: ComparisonReport) -> String {
    let h = ReportText.html
    var s = "<section>\n<h2>Tables</h2>\n<h3>Estimates</h3>\n"
    s += "<p class=\"help\">" + h(ReportText.estimatesCaption(report)) + "</p>\n"
    let estimates = ReportText.estimatesGrid(report, clean: h)
    s += table(estimates.header, estimates.rows)
    if !report.differences.isEmpty {
      s += "<h3>Differences</h3>\n"
      s += "<p class=\"help\">" + h(ReportText.differencesCaption(report)) + "</p>\n"
      let diffs = ReportText.differencesGrid(report, clean: h)
      s += table(diffs.header, diffs.rows)
    }
    return s + "</section>\n"
  }

  /// A table of already escaped cells; the first column holds row headers.
  private static func table(_ header: [String], _ rows: [[String]]) -> String {
    var s = "<div class=\"table-wrap\">\n<table>\n<thead>\n<tr>"
    for cell in header { s += "<th scope=\"col\">" + cell + "</th>" }
    s += "</tr>\n</thead>\n<tbody>\n"
    for row in rows {
      s += "<tr><th scope=\"row\">" + row[0] + "</th>"
      for cell in row.dropFirst() { s += "<td>" + cell + "</td>" }
      s += "</tr>\n"
    }
    return s + "</tbody>\n</table>\n</div>\n"
  }

  private static let css = """
    body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
      sans-serif; color: #1a1a1a; background: #fff; max-width: 1220px; margin: 0 auto;
      padding: 20px 24px; line-height: 1.4; }
    h1 { font-size: 1.45rem; margin: 0 0 .6rem; overflow-wrap: anywhere; }
    h2 { font-size: 1.2rem; border-bottom: 1px solid #ccc; padding-bottom: .2rem;
      margin: 1.8rem 0 .6rem; }
    h3 { font-size: 1rem; margin: 0; overflow-wrap: anywhere;
      font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
    .definition, .help, figcaption { color: #555; font-size: .82rem; margin: .1rem 0 .35rem; }
    .metric { margin: 1rem 0 1.4rem; break-inside: avoid; page-break-inside: avoid; }
    .charts { display: flex; flex-wrap: wrap; gap: 6px 24px; }
    figure { margin: 0; max-width: 570px; }
    svg { display: block; max-width: 100%; height: auto; }
    svg text { font-size: 12px; fill: #1a1a1a; }
    svg .marked { font-weight: bold; }
    svg .numbers { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace;
      font-size: 10.5px; fill: #444; }
    svg .tick, svg .note { font-size: 10px; fill: #555; }
    svg .undefined { font-style: italic; fill: #767676; }
    svg .legend { font-size: 11.5px; }
    svg .grid { stroke: #e6e6e6; stroke-width: 1; }
    svg .axis { stroke: #888; stroke-width: 1; }
    svg .zero { stroke: #222; stroke-width: 1.5; }
    svg .reference { stroke: #555; stroke-width: 1.2; stroke-dasharray: 4 3; }
    svg .whisker, svg .series { stroke-width: 2; fill: none; }
    table { border-collapse: collapse; font-size: .85rem; margin: .3rem 0 1rem; }
    th, td { border: 1px solid #d4d4d4; padding: 3px 8px; text-align: right;
      font-variant-numeric: tabular-nums; white-space: nowrap; }
    th[scope="row"], thead th:first-child, .parameters td { text-align: left; }
    thead th { background: #f2f2f2; white-space: normal; overflow-wrap: anywhere; }
    .parameters th { background: #f7f7f7; font-weight: 600; }
    .notes li { overflow-wrap: anywhere; }
    .table-wrap { overflow-x: auto; }
    @media print {
      body { max-width: none; padding: 0; }
      figure, table { break-inside: avoid; page-break-inside: avoid; }
      .table-wrap { overflow: visible; }
    }

    """
}
