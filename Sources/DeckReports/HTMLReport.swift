import DeckBase
import DeckCore
import DeckEvaluation
import DeckIO
import Foundation

/// The `--report FILE.html` of `menudeck compare`: one self-contained HTML5 file.
///
/// Nothing is loaded from anywhere (no scripts, external styles, fonts or images; the CSS is
/// inline, the charts are inline SVG or HTML, no JavaScript), so the file reads the same offline,
/// in a mail attachment or printed. Contents, top to bottom:
/// - the title, a one-line account of what was compared, and links to the sections;
/// - **Summary**: a leaderboard of every arm on the headline metrics (`ReportSummary`), each cell
///   `value [lower, upper]`, the best arm per metric marked by the metric's direction, and the
///   differences from the baseline that are significant after Holm's adjustment marked; then
///   the note on multiple comparisons (the family's size, the correction, what the p-values
///   shown are, the permutations of the randomization test and whether they let any test reach
///   significance); on logs evaluated without `--ope`, the note on what the log showed
///   (`LoggingBias`);
/// - the notes;
/// - per metric its name, direction, unit and definition, a dot-and-whisker chart of every arm's
///   value with its interval (the baseline's value as a dashed line) and, with a baseline, a
///   chart of each other arm's difference with its interval, a line at zero, the p-value and
///   the Holm-adjusted p-value (`IntervalChart`);
/// - per-day charts of every metric of `daily` with bands for the days' intervals (`SVGChart`):
///   one chart when there are at most `bandedArms` arms, else one of every line and a panel
///   per arm against the baseline;
/// - the dishes each arm showed most; the estimates and differences tables;
/// - the footer: the version, command line and inputs with their SHA-256 (`report.run`, when
///   recorded), and the parameters.
///
/// Every arm has one `ArmStyle` (colour, marker, dash) in every chart, legend and table. Every
/// string from the input (title, parameters, arm and metric names, definitions, notes, paths,
/// arguments) is escaped (`&`, `<`, `>`, `"`, `'`), in HTML text, SVG text and attributes
/// alike. Numbers have fixed decimals (`ComparisonWriter.textDecimals`; counts whole); an
/// undefined value draws nothing and says "undefined". The output holds no date or random
/// number: the same report is always the same bytes.
package enum HTMLReport {
  /// Up to this many arms a per-day chart draws every arm's band; with more, the bands go to
  /// one panel per arm (beside the baseline), as a dozen overlapping bands hide each other.
  static let bandedArms = 4

  /// The whole HTML file.
  package static func render(_ report: ComparisonReport) -> [UInt8] {
    let h = ReportText.html
    var s = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    s += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    s += "<meta name=\"generator\" content=\"menudeck compare\">\n"
    s += "<title>" + h(report.title) + "</title>\n<style>\n" + HTMLReportStyle.css
    s += "</style>\n</head>\n<body>\n"
    s += header(report)
    s += summarySection(report)
    if !report.notes.isEmpty {
      s += "<section id=\"notes\" class=\"notes\">\n<h2>Notes</h2>\n<ul>\n"
      for note in report.notes { s += "<li>" + h(note) + "</li>\n" }
      s += "</ul>\n</section>\n"
    }
    s += metricsSection(report)
    s += positionsSection(report)
    s += dailySection(report)
    s += dishesSection(report)
    s += tablesSection(report)
    s += footer(report)
    s += "</body>\n</html>\n"
    return Array(s.utf8)
  }

  // MARK: - Arms

  /// The style of the arm named `arm`: by its place in `report.arms` (an unknown name after
  /// them all).
  static func style(_ report: ComparisonReport, _ arm: String) -> ArmStyle {
    ArmStyle(index: report.arms.firstIndex { $0.arm == arm } ?? report.arms.count)
  }

  /// The arm's swatch and name, for a table's header or row header; the whole name in a tooltip.
  private static func armLabel(_ report: ComparisonReport, _ arm: String, suffix: String = "")
    -> String
  {
    let h = ReportText.html
    return "<span class=\"armlabel\" title=\"" + h(arm + suffix) + "\">"
      + style(report, arm).swatch() + "<span class=\"armname\">" + h(arm + suffix)
      + "</span></span>"
  }

  /// A metric's name with a break opportunity after each underscore, so that a long name wraps
  /// between its words in a narrow column header.
  private static func breakable(_ name: String) -> String {
    ReportText.html(name).replacingOccurrences(of: "_", with: "_<wbr>")
  }

  /// `↑ higher is better · likes per card`, in a span classed by the direction.
  private static func meaning(_ metric: MetricSpec, short: Bool = false) -> String {
    let h = ReportText.html
    let d = metric.direction
    var s = "<span class=\"dir \(d.rawValue)\" title=\"" + h(d.phrase) + "\">" + d.arrow
    if !short { s += " " + h(d.phrase) }
    s += "</span>"
    if !metric.unit.isEmpty {
      s += short ? " <span class=\"unit\">" : " · <span class=\"unit\">"
      s += h(metric.unit) + "</span>"
    }
    return s
  }

  // MARK: - Header and summary

  private static func header(_ report: ComparisonReport) -> String {
    let h = ReportText.html
    var s = "<header>\n<h1>" + h(report.title) + "</h1>\n<p class=\"lede\">"
    let arms = report.arms.count
    s += "\(arms) arm\(arms == 1 ? "" : "s") compared on \(report.units) diner"
    s += report.units == 1 ? "" : "s"
    if let baseline = report.baseline { s += ", against the baseline " + h(baseline) }
    s += "; " + ReportText.percent(report.level) + " confidence intervals from "
    s += "\(report.resamples) bootstrap resamples of diners"
    if let significance = report.significance {
      s +=
        significance.source == .exact
        ? "; randomization tests over all \(significance.permutations) swaps of the diners"
        : "; randomization tests with "
          + TextLayout.plural(significance.permutations, "permutation") + " each"
    }
    s += ".</p>\n<nav><ul>"
    var links = [("summary", "Summary")]
    if !report.notes.isEmpty { links.append(("notes", "Notes")) }
    links.append(("metrics", "Metrics"))
    if report.metrics.contains(where: { positionMetric($0.name) != nil }) {
      links.append(("positions", "By position"))
    }
    if !report.daily.isEmpty { links.append(("daily", "Per day")) }
    if report.topDishes.contains(where: { !$0.dishes.isEmpty }) {
      links.append(("dishes", "Dishes"))
    }
    links += [("tables", "Tables"), ("run", "Run")]
    for (id, name) in links { s += "<li><a href=\"#\(id)\">\(name)</a></li>" }
    return s + "</ul></nav>\n</header>\n"
  }

  private static func summarySection(_ report: ComparisonReport) -> String {
    let h = ReportText.html
    let headline = ReportSummary.headlineMetrics(report)
    let level = ReportText.percent(report.level)
    let alpha = ReportText.fixed(ReportSummary.alpha(report), decimals: 2)
    var s = "<section id=\"summary\">\n<h2>Summary</h2>\n<p class=\"help\">The headline metrics,"
    s += " value [" + level + " interval] per arm. Every metric is in the charts and tables"
    s += " below.</p>\n"
    let differenceOf = Dictionary(
      report.differences.map { ($0.arm, $0) }, uniquingKeysWith: { first, _ in first })
    s += "<div class=\"table-wrap\">\n<table class=\"leaderboard\">\n<thead>\n<tr>"
    s += "<th scope=\"col\">arm</th>"
    for m in headline {
      let metric = report.metrics[m]
      s += "<th scope=\"col\" title=\"" + h(metric.name + ": " + metric.definition) + "\">"
      s += "<span class=\"mname\">" + breakable(metric.name) + "</span>"
      s += "<span class=\"meaning\">" + meaning(metric, short: true) + "</span></th>"
    }
    s += "</tr>\n</thead>\n<tbody>\n"
    let best = headline.map { ReportSummary.best(report, metric: $0) }
    for (a, arm) in report.arms.enumerated() {
      let isBaseline = arm.arm == report.baseline
      s += "<tr\(isBaseline ? " class=\"baseline\"" : "")><th scope=\"row\">"
      s += armLabel(report, arm.arm)
      if isBaseline { s += "<span class=\"tag\">baseline</span>" }
      s += "</th>"
      for (column, m) in headline.enumerated() {
        let metric = report.metrics[m]
        let e = ReportText.estimate(arm.estimates, m)
        var classes: [String] = []
        var title: [String] = []
        let isBest = best[column].contains(a)
        if isBest {
          classes.append("best")
          title.append("best " + metric.name)
        }
        var arrow = ""
        if let d = differenceOf[arm.arm] {
          let verdict = ReportSummary.verdict(report, d, metric: m)
          if verdict != .notSignificant {
            let better = verdict.isBetter(metric.direction)
            classes.append(better == true ? "better" : better == false ? "worse" : "differs")
            arrow = verdict == .higher ? " ▲" : " ▼"
            let diff = ReportText.estimate(d.estimates, m)
            title.append(
              (verdict == .higher ? "above" : "below") + " the baseline: "
                + ReportText.estimateText(diff, count: metric.isCount, signed: true) + ", Holm p "
                + PValue.text(ArmDifference.at(d.pHolm, m)))
          }
        }
        s += "<td"
        if !classes.isEmpty { s += " class=\"" + classes.joined(separator: " ") + "\"" }
        if !title.isEmpty { s += " title=\"" + h(title.joined(separator: "; ")) + "\"" }
        s += ">"
        let value = ReportText.humanNumber(e.value, count: metric.isCount)
        s += "<span class=\"v\">" + (isBest ? "<span class=\"star\">★</span>" : "")
        s += h(value ?? "-") + arrow + "</span>"
        if e.lower != nil || e.upper != nil {
          let lower = ReportText.humanNumber(e.lower, count: metric.isCount) ?? "-"
          let upper = ReportText.humanNumber(e.upper, count: metric.isCount) ?? "-"
          s += "<span class=\"ci\">[" + h(lower) + ", " + h(upper) + "]</span>"
        }
        s += "</td>"
      }
      s += "</tr>\n"
    }
    s += "</tbody>\n</table>\n</div>\n<p class=\"key\"><span class=\"star\">★</span> best point"
    s += " estimate by the metric's direction (↑ higher is better, ↓ lower is better; · neither,"
    s += " none is marked)."
    if !report.differences.isEmpty {
      s += " ▲ ▼ significantly above or below the baseline: the paired randomization test's"
      s += " p-value adjusted by Holm's method is below " + alpha + " (1 − the " + level
      s += " level); <span class=\"swatch-key better\">better</span>"
      s += " <span class=\"swatch-key worse\">worse</span>"
      s += " <span class=\"swatch-key differs\">no better direction</span>."
    }
    s += "</p>\n" + multipleComparisons(report)
    if let bias = report.loggingBias {
      s += "<div class=\"callout\">\n<p class=\"warning\"><strong>What the log showed.</strong> "
      s += h(bias.note.prefix(1).uppercased() + bias.note.dropFirst()) + ".</p>\n</div>\n"
    }
    return s + "</section>\n"
  }

  /// The note on multiple comparisons: the family, the correction, what the shown p-values are,
  /// the permutations and the smallest adjusted p-value they allow, and a warning when no test
  /// can reach significance (`Significance.unattainable`).
  private static func multipleComparisons(_ report: ComparisonReport) -> String {
    guard !report.differences.isEmpty else { return "" }
    let h = ReportText.html
    let tests = ReportSummary.familyTests(report)
    let arms = report.differences.count
    let metrics = report.metrics.count
    let alpha = ReportSummary.alpha(report)
    let alphaText = Text.roundTrip(alpha)
    var s = "<div class=\"callout\">\n<p><strong>Multiple comparisons.</strong> Against the"
    s += " baseline this report makes \(tests) test\(tests == 1 ? "" : "s") (\(arms) arm"
    s += "\(arms == 1 ? "" : "s") × \(metrics) metric\(metrics == 1 ? "" : "s")"
    let identical = report.differences.reduce(0) { sum, d in
      sum
        + (0..<metrics).filter { d.isIdentical($0) && ArmDifference.at(d.pValues, $0) != nil }
        .count
    }
    let undefined = arms * metrics - tests - identical
    var left: [String] = []
    if undefined > 0 { left.append("\(undefined) undefined") }
    if identical > 0 { left.append("\(identical) identical for every diner") }
    s += left.isEmpty ? ")" : ", " + left.joined(separator: " and ") + " left out)"
    s += ", one per arm and metric, so some small p-values are expected by chance alone."
    s += " Significance is called on the p-values adjusted by Holm's step-down method over"
    s += " that whole family (<em>Holm</em> in the charts and tables): calling only those below "
    s += alphaText + " keeps the chance of even one false positive in the report at "
    s += ReportText.percent(alpha) + " or less, however the tests depend on each other. The"
    s += " unadjusted p-values (<em>p</em>, the paired randomization test) are shown for"
    s += " reference only. The JSON and CSV outputs add the Benjamini-Hochberg adjustment, a"
    s += " paired t-test and a Wilcoxon signed-rank test.</p>\n"
    if let significance = report.significance {
      s += "<p>Permutations of the randomization test: " + h(significance.summary) + ".</p>\n"
      if let unattainable = significance.unattainable {
        s += "<p class=\"warning\">"
        s += h(unattainable.prefix(1).uppercased() + unattainable.dropFirst()) + ".</p>\n"
      }
    }
    return s + "</div>\n"
  }

  // MARK: - Metrics

  private static func metricsSection(_ report: ComparisonReport) -> String {
    let h = ReportText.html
    let level = ReportText.percent(report.level)
    var s = "<section id=\"metrics\">\n<h2>Metrics</h2>\n<p class=\"help\">Markers are values,"
    s += " whiskers " + level + " confidence intervals."
    if let baseline = report.baseline {
      s += " Right (below on a phone): each arm minus the baseline (" + h(baseline) + ") with its"
      s += " " + level + " interval and a line at zero; p is the two-sided paired"
      s += " randomization-test p-value, Holm the same adjusted for multiple comparisons"
      s += " (highlighted below " + ReportText.fixed(ReportSummary.alpha(report), decimals: 2)
      s += ").</p>\n"
    } else {
      s += "</p>\n"
    }
    let baselineIndex = report.baseline.flatMap { b in report.arms.firstIndex { $0.arm == b } }
    let minus = Set(report.differences.map(\.baseline)).sorted()
    let minusName = minus.count == 1 ? minus[0] : "baseline"
    for (n, metric) in report.metrics.enumerated() where positionMetric(metric.name) == nil {
      s += "<section class=\"metric\" id=\"metric-\(n + 1)\">\n<h3>" + h(metric.name) + "</h3>\n"
      s += "<p class=\"meta\">" + meaning(metric) + "</p>\n"
      s += "<p class=\"definition\">" + h(metric.definition) + "</p>\n<div class=\"charts\">\n"
      let rows = report.arms.map { arm in
        let e = ReportText.estimate(arm.estimates, n)
        return IntervalRow(
          label: arm.arm, style: style(report, arm.arm), estimate: e,
          text: ReportText.estimateText(e, count: metric.isCount),
          marked: arm.arm == report.baseline)
      }
      let reference = baselineIndex.flatMap {
        ReportText.estimate(report.arms[$0].estimates, n).value
      }
      s += "<figure>\n<figcaption>value [" + level + " interval]</figcaption>\n"
      s += IntervalChart.render(
        rows, zeroLine: false, reference: reference, referenceLabel: "baseline",
        axisTitle: metric.unit.isEmpty ? metric.name : metric.unit,
        label: metric.name + ": value per arm")
      s += "</figure>\n"
      if !report.differences.isEmpty {
        let rows = report.differences.map { d in
          let e = ReportText.estimate(d.estimates, n)
          return IntervalRow(
            label: d.arm, style: style(report, d.arm), estimate: e,
            text: ReportText.estimateText(e, count: metric.isCount, signed: true),
            pValues: [
              "p " + PValue.text(ArmDifference.at(d.pValues, n)),
              "Holm " + PValue.text(ArmDifference.at(d.pHolm, n)),
            ],
            significant: ReportSummary.verdict(report, d, metric: n) != .notSignificant)
        }
        s += "<figure>\n<figcaption>arm − " + h(minusName) + " [" + level
        s += " interval]</figcaption>\n"
        s += IntervalChart.render(
          rows, zeroLine: true, reference: nil, referenceLabel: "",
          axisTitle: "arm − " + minusName + (metric.unit.isEmpty ? "" : ", " + metric.unit),
          label: metric.name + ": difference to " + minusName)
        s += "</figure>\n"
      }
      s += "</div>\n</section>\n"
    }
    return s + "</section>\n"
  }

  // MARK: - Curves (per day, per position)

  /// One metric's curves, one per arm: a chart of every arm (with bands when there are at most
  /// `bandedArms` arms), in a wide variant for screens and print and a narrow one for phones
  /// (the CSS shows one, so that neither is scaled far from its size); with more arms and
  /// intervals, one panel per non-baseline arm with its band beside the baseline's (grey), the
  /// panels on one y axis.
  private static func curves(
    _ report: ComparisonReport, _ curves: [(arm: String, points: [SVGChart.Point])],
    title: String, unit: String, x: SVGChart.XAxis, empty: String, undefined: String
  ) -> String {
    let panels = curves.count > bandedArms
    let hasBands = curves.contains { $0.points.contains { $0.lower != nil && $0.upper != nil } }
    let series = curves.map { c in
      SVGChart.Series(label: c.arm, style: style(report, c.arm), points: c.points, band: !panels)
    }
    func chart(_ series: [SVGChart.Series], width: Double, height: Double, scale: [Double] = [])
      -> String
    {
      SVGChart.lines(
        series, title: title, unit: unit, x: x, width: width, height: height, scale: scale,
        empty: empty, undefined: undefined)
    }
    var s = "<figure class=\"curve-chart\">\n<div class=\"for-wide\">"
    s += chart(series, width: 640, height: 290) + "</div>\n<div class=\"for-narrow\">"
    s += chart(series, width: 400, height: 236) + "</div>\n</figure>\n"
    guard panels && hasBands else { return s }
    let scale = curves.flatMap { $0.points.flatMap { [$0.value, $0.lower, $0.upper] } }
      .compactMap { $0 }
    let baseline = curves.first { $0.arm == report.baseline }
    s += "<div class=\"panels\">\n"
    for c in curves where c.arm != report.baseline {
      var pair: [SVGChart.Series] = []
      if let baseline {
        pair.append(
          SVGChart.Series(
            label: baseline.arm, style: style(report, baseline.arm), points: baseline.points,
            muted: true))
      }
      pair.append(SVGChart.Series(label: c.arm, style: style(report, c.arm), points: c.points))
      s += "<figure class=\"panel\">\n<figcaption>" + armLabel(report, c.arm) + "</figcaption>\n"
      s += SVGChart.lines(
        pair, title: title + ": " + c.arm, unit: unit, x: x, width: 290, height: 190,
        scale: scale, empty: empty, undefined: undefined)
      s += "</figure>\n"
    }
    return s + "</div>\n"
  }

  /// The help sentence of a section of curves: what the bands are, and where they go with many
  /// arms.
  private static func curvesHelp(
    _ report: ComparisonReport, arms: Int, hasBands: Bool, bands: String
  ) -> String {
    guard hasBands else { return "" }
    var s = " Bands: " + bands
    if arms > bandedArms {
      s += " With \(arms) arms the bands would hide each other: the first chart of each metric"
      s += " draws every line, the panels below it each arm with its band"
      s += report.baseline.map { " beside the baseline (" + ReportText.html($0) + ", grey)" } ?? ""
      s += "."
    }
    return s
  }

  /// The heading, meaning and definition of a metric's section.
  private static func metricHeading(_ name: String, _ spec: MetricSpec?) -> String {
    let h = ReportText.html
    let spec = spec ?? MetricSpec(name: name, definition: "", form: .ratio)
    var s = "<h3>" + h(name) + "</h3>\n<p class=\"meta\">" + meaning(spec) + "</p>\n"
    if !spec.definition.isEmpty { s += "<p class=\"definition\">" + h(spec.definition) + "</p>\n" }
    return s
  }

  private static func dailySection(_ report: ComparisonReport) -> String {
    guard !report.daily.isEmpty else { return "" }
    var metrics: [String] = []
    for series in report.daily where !metrics.contains(series.metric) {
      metrics.append(series.metric)
    }
    let arms =
      report.arms.map(\.arm).filter { arm in report.daily.contains { $0.arm == arm } }
      + report.daily.map(\.arm).filter { arm in !report.arms.contains { $0.arm == arm } }
    let hasBands = report.daily.contains { $0.points.contains { $0.lower != nil } }
    var s = "<section id=\"daily\">\n<h2>Per day</h2>\n<p class=\"help\">Lines: each day's value."
    s += curvesHelp(
      report, arms: Set(arms).count, hasBands: hasBands,
      bands: "its " + ReportText.percent(report.level)
        + " interval, a bootstrap over the diners with a session that day.")
    s += "</p>\n" + legend(report, arms)
    let days = report.daily.flatMap { $0.points.map(\.day) }
    // With few arms (no panels) two charts fit side by side.
    let grid = Set(arms).count <= bandedArms
    if grid { s += "<div class=\"curve-grid\">\n" }
    for name in metrics {
      let spec = report.metrics.first { $0.name == name }
      s += "<section class=\"metric daily\">\n" + metricHeading(name, spec)
      let all = report.daily.filter { $0.metric == name }
      if let first = days.min(), let last = days.max() {
        let points = all.map { (arm: $0.arm, points: SVGChart.points($0.points, since: first)) }
        s += curves(
          report, points, title: name + " per day", unit: spec?.unit ?? "",
          x: SVGChart.dayAxis(first: first, last: last), empty: "no days",
          undefined: "undefined on every day")
      } else {
        s += curves(
          report, all.map { (arm: $0.arm, points: []) }, title: name + " per day",
          unit: spec?.unit ?? "",
          x: SVGChart.XAxis(title: "day", label: { _ in "" }, labelWidth: 50),
          empty: "no days", undefined: "undefined on every day")
      }
      s += "</section>\n"
    }
    if grid { s += "</div>\n" }
    return s + "</section>\n"
  }

  /// A legend of `arms`: swatch and name.
  private static func legend(_ report: ComparisonReport, _ arms: [String]) -> String {
    var s = "<ul class=\"legend\">"
    for arm in arms { s += "<li>" + armLabel(report, arm) + "</li>" }
    return s + "</ul>\n"
  }

  /// Metric `name`'s estimator and position when it is an off-policy estimate at a position
  /// (`ips_p3`: ips, 3), nil otherwise.
  static func positionMetric(_ name: String) -> (estimator: String, position: Int)? {
    guard let p = name.range(of: "_p", options: .backwards),
      let position = Int(name[p.upperBound...]), position >= 1,
      name[p.upperBound...].allSatisfy({ $0.isASCII && $0.isNumber })
    else { return nil }
    let estimator = String(name[..<p.lowerBound])
    guard OffPolicy.Estimator(rawValue: estimator) != nil else { return nil }
    return (estimator, position)
  }

  /// The off-policy estimates per position, one chart per estimator with a curve per arm over
  /// the positions (their differences and p-values are in the tables).
  private static func positionsSection(_ report: ComparisonReport) -> String {
    var estimators: [String] = []
    var byEstimator: [String: [(position: Int, metric: Int)]] = [:]
    for (m, metric) in report.metrics.enumerated() {
      guard let (estimator, position) = positionMetric(metric.name) else { continue }
      if byEstimator[estimator] == nil { estimators.append(estimator) }
      byEstimator[estimator, default: []].append((position, m))
    }
    guard !estimators.isEmpty else { return "" }
    let hasBands = report.arms.contains { arm in
      byEstimator.values.joined().contains {
        ReportText.estimate(arm.estimates, $0.metric).lower != nil
      }
    }
    var s = "<section id=\"positions\">\n<h2>By position</h2>\n<p class=\"help\">The off-policy"
    s += " estimates at each logged position (metrics <code>NAME_pP</code>), one curve per arm."
    s += curvesHelp(
      report, arms: report.arms.count, hasBands: hasBands,
      bands: "each position's " + ReportText.percent(report.level) + " interval.")
    s += " Their differences from the baseline, with p-values, are in the tables.</p>\n"
    s += legend(report, report.arms.map(\.arm))
    let x = SVGChart.XAxis(title: "position", label: { "\($0)" }, labelWidth: 26)
    let grid = report.arms.count <= bandedArms
    if grid { s += "<div class=\"curve-grid\">\n" }
    for estimator in estimators {
      let columns = byEstimator[estimator]!.sorted { $0.position < $1.position }
      let overall = report.metrics.first { $0.name == estimator }
      let spec = report.metrics[columns[0].metric]
      s += "<section class=\"metric positions\">\n"
      s += metricHeading(
        estimator + "_pP",
        overall.map { o in
          MetricSpec(
            name: estimator + "_pP", definition: o.definition + "; per position",
            form: spec.form, direction: spec.direction, unit: spec.unit)
        } ?? spec)
      let points = report.arms.map { arm in
        (
          arm: arm.arm,
          points: columns.map { c in
            let e = ReportText.estimate(arm.estimates, c.metric)
            return SVGChart.Point(x: c.position, value: e.value, lower: e.lower, upper: e.upper)
          }
        )
      }
      s += curves(
        report, points, title: estimator + " per position", unit: spec.unit, x: x,
        empty: "no positions", undefined: "undefined at every position")
      s += "</section>\n"
    }
    if grid { s += "</div>\n" }
    return s + "</section>\n"
  }

  // MARK: - Tables

  /// The dishes each strategy showed most: rank, then a column per strategy.
  private static func dishesSection(_ report: ComparisonReport) -> String {
    guard report.topDishes.contains(where: { !$0.dishes.isEmpty }) else { return "" }
    let h = ReportText.html
    var s = "<section id=\"dishes\">\n<h2>Dishes shown most</h2>\n"
    s += "<p class=\"help\">" + h(ReportText.dishesCaption(report)) + "</p>\n"
    s += "<div class=\"table-wrap\">\n<table class=\"data dishes\">\n<thead>\n<tr>"
    s += "<th scope=\"col\">rank</th>"
    for top in report.topDishes { s += "<th scope=\"col\">" + armLabel(report, top.arm) + "</th>" }
    s += "</tr>\n</thead>\n<tbody>\n"
    let depth = report.topDishes.map(\.dishes.count).max() ?? 0
    for r in 0..<depth {
      s += "<tr><th scope=\"row\">\(r + 1)</th>"
      for top in report.topDishes {
        guard r < top.dishes.count else {
          s += "<td></td>"
          continue
        }
        let d = top.dishes[r]
        s += "<td><span class=\"dish\">" + h(d.name) + "</span> <span class=\"category\">"
        s += h(d.category) + "</span> <span class=\"count\">\(d.count)</span></td>"
      }
      s += "</tr>\n"
    }
    s += "</tbody>\n</table>\n</div>\n"
    return s + "</section>\n"
  }

  private static func tablesSection(_ report: ComparisonReport) -> String {
    let h = ReportText.html
    var s = "<section id=\"tables\">\n<h2>Tables</h2>\n<h3>Estimates</h3>\n"
    s += "<p class=\"help\">" + h(ReportText.estimatesCaption(report)) + "</p>\n"
    s += "<div class=\"table-wrap\">\n<table class=\"data\">\n<thead>\n<tr>"
    s += "<th scope=\"col\">metric</th>"
    for arm in report.arms {
      s += "<th scope=\"col\">" + armLabel(report, arm.arm)
      if arm.arm == report.baseline { s += "<span class=\"tag\">baseline</span>" }
      s += "</th>"
    }
    s += metricRows(report, report.arms) { arm, n, metric in
      let e = ReportText.estimate(arm.estimates, n)
      return "<td>" + h(ReportText.estimateText(e, count: metric.isCount)) + "</td>"
    }
    if !report.differences.isEmpty {
      s += "<h3>Differences</h3>\n"
      s += "<p class=\"help\">Each arm minus the baseline, value [lower, upper] at "
      s += ReportText.percent(report.level) + "; p: the two-sided paired randomization test;"
      s += " Holm: p adjusted by Holm's step-down method over the report's "
      s += "\(ReportSummary.familyTests(report)) tests (in bold where below "
      s += ReportText.fixed(ReportSummary.alpha(report), decimals: 2) + ").</p>\n"
      s += "<div class=\"table-wrap\">\n<table class=\"data differences\">\n<thead>\n<tr>"
      s += "<th scope=\"col\" rowspan=\"2\">metric</th>"
      for d in report.differences {
        s += "<th scope=\"colgroup\" colspan=\"3\" class=\"group\">"
        s += armLabel(report, d.arm, suffix: " − " + d.baseline) + "</th>"
      }
      s += "</tr>\n<tr>"
      for _ in report.differences {
        s += "<th scope=\"col\" class=\"group\">difference</th><th scope=\"col\">p</th>"
        s += "<th scope=\"col\">Holm</th>"
      }
      s += metricRows(report, report.differences) { d, n, metric in
        let e = ReportText.estimate(d.estimates, n)
        let significant = ReportSummary.verdict(report, d, metric: n) != .notSignificant
        return "<td class=\"group\">"
          + h(ReportText.estimateText(e, count: metric.isCount, signed: true)) + "</td>"
          + "<td>" + h(PValue.text(ArmDifference.at(d.pValues, n))) + "</td>"
          + (significant ? "<td class=\"significant\">" : "<td>")
          + h(PValue.text(ArmDifference.at(d.pHolm, n))) + "</td>"
      }
    }
    return s + "</section>\n"
  }

  /// The rest of a table whose header row is written: its body, a row per metric (its label,
  /// then the `cells` of each of `columns` for it), and the table's end.
  private static func metricRows<C>(
    _ report: ComparisonReport, _ columns: [C], _ cells: (C, Int, MetricSpec) -> String
  ) -> String {
    var s = "</tr>\n</thead>\n<tbody>\n"
    for (n, metric) in report.metrics.enumerated() {
      s += "<tr><th scope=\"row\">" + metricLabel(metric) + "</th>"
      for column in columns { s += cells(column, n, metric) }
      s += "</tr>\n"
    }
    return s + "</tbody>\n</table>\n</div>\n"
  }

  /// A metric's name in a row header, with its direction's arrow and its definition in a
  /// tooltip.
  private static func metricLabel(_ metric: MetricSpec) -> String {
    let h = ReportText.html
    return "<span class=\"mname\" title=\"" + h(metric.name + ": " + metric.definition) + "\">"
      + h(metric.name) + "</span> <span class=\"dir \(metric.direction.rawValue)\" title=\""
      + h(metric.direction.phrase) + "\">" + metric.direction.arrow + "</span>"
  }

  // MARK: - Footer

  private static func footer(_ report: ComparisonReport) -> String {
    let h = ReportText.html
    var s = "<footer id=\"run\">\n<h2>Run</h2>\n"
    if let run = report.run {
      s += "<dl class=\"run\">\n<dt>version</dt><dd>menudeck " + h(run.version) + "</dd>\n"
      s += "<dt>command</dt><dd><code class=\"command\">"
      // An argument breaks across lines only when it is wider than the line.
      s += run.arguments.map { "<span class=\"arg\">" + h(TextLayout.shellWord($0)) + "</span>" }
        .joined(separator: " ")
      s += "</code></dd>\n</dl>\n"
      if !run.inputs.isEmpty {
        s += "<div class=\"table-wrap\">\n<table class=\"data inputs\">\n<thead>\n<tr>"
        s += "<th scope=\"col\">input</th><th scope=\"col\">path</th>"
        s += "<th scope=\"col\">SHA-256</th></tr>\n</thead>\n<tbody>\n"
        for input in run.inputs {
          s += "<tr><th scope=\"row\">" + h(input.role) + "</th><td class=\"path\">"
          s += h(input.path).replacingOccurrences(of: "/", with: "/<wbr>")
          s += "</td><td class=\"hash\">" + h(input.sha256) + "</td></tr>\n"
        }
        s += "</tbody>\n</table>\n</div>\n"
      }
    } else {
      s += "<p class=\"help\">The version, command line and inputs of this report were not"
      s += " recorded.</p>\n"
    }
    s += "<h3>Parameters</h3>\n<div class=\"table-wrap\">\n<table class=\"parameters\">\n<tbody>\n"
    for field in ReportText.headerFields(report) {
      s += "<tr><th scope=\"row\">" + h(field.name) + "</th><td>" + h(field.value) + "</td></tr>\n"
    }
    s += "</tbody>\n</table>\n</div>\n"
    return s + "</footer>\n"
  }
}
