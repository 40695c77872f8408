import DeckBase
import DeckCore
import DeckEvaluation
import DeckIO

/// Writes a `ComparisonReport` as aligned text, Markdown, JSON or CSV.
///
/// Numbers are formatted by menudeck itself, never by the locale, as `StatsWriter` does: counts
/// (metrics whose form is `.total`) as whole numbers; everything else in full precision in JSON
/// and CSV (the shortest text that reads back as the same double: `0.3125`, `1.0`, `2.5e-07`)
/// and with `textDecimals` digits after the point in the table, Markdown and HTML, rounded half
/// away from zero. A count that is not whole (an interpolated interval bound) is written in full
/// precision in JSON and CSV and rounded to a whole number for people. An undefined value (nil, or not finite) is `null` in JSON, an empty field in
/// CSV and `-` in the table and Markdown. For people, differences carry an explicit sign (`+0.0210`)
/// and a p-value below 0.00005 is written `<0.0001`. The same report is always the same bytes.
///
/// JSON: one object, keys in this order, one arm, difference or series per line:
///
///     {"title":"...",
///     "parameters":{"seed":"42",...},            parameter values are strings, in report order
///     "units":1000,"level":0.95,"resamples":1000,"baseline":"popularity",   (or null)
///     "significance":{"alpha":0.05,"tests":32,"permutations":7000,"source":"family",
///      "needed":7000,"min_p_value":0.000142836737608913,"min_p_holm":0.004570775603485216,
///      "attainable":true},                        null without a baseline (`Significance`)
///     "logging_bias":{"propensities":"none","evaluation_events":1439,"with_propensity":0,
///      "note":"..."},                             logs without --ope; else null (`LoggingBias`)
///     "metrics":[
///     {"name":"decks","definition":"...","form":"total","count":true},
///     {"name":"catalog_coverage","definition":"...","form":"coverage","count":false,
///      "catalog_items":120},                      (only coverage metrics carry catalog_items)
///     ...],
///     "arms":[
///     {"arm":"popularity","estimates":{"decks":{"value":14000,"lower":13870,"upper":14122},
///      "like_rate":{"value":0.312,"lower":0.301,"upper":0.323},...}},
///     ...],
///     "differences":[                              arm minus baseline; [] without a baseline
///     {"arm":"affinity","baseline":"popularity","estimates":{"like_rate":{"value":0.021,
///      "lower":0.01,"upper":0.032,"p_value":0.000999000999000999,"p_holm":0.01598401598401598,
///      "p_bh":0.002664002664002664,"p_t":2.1e-05,"p_wilcoxon":3.4e-05},...}},
///     ...],
///     "daily":[                                    per-day curves; [] for logs
///     {"arm":"popularity","metric":"like_rate","points":[{"day":"2026-11-01","value":0.3,
///      "lower":0.27,"upper":0.33},...]},           the day's interval; null when undefined
///     ...],
///     "notes":["..."]}
///
/// `form` is `ratio`, `total` or `coverage` (see `MetricForm`); every metric of `metrics` has an
/// entry in every `estimates` object, in `metrics` order. A difference's p-values (see
/// `ArmDifference`): `p_value` the randomization test, `p_holm` and `p_bh` it adjusted over the
/// report's family (`MultipleComparisons`), `p_t` the paired t-test, `p_wilcoxon` the Wilcoxon
/// signed-rank test (`PairedTests`); each null when undefined.
///
/// CSV: RFC 4180 (a field is quoted when it holds a comma, quote, CR or LF; quotes doubled), LF
/// line ends, the header `kind,arm,baseline,metric,day,value,lower,upper,p_value,p_holm,p_bh,p_t,
/// p_wilcoxon,min_p_holm,significance_attainable`, then
/// - `estimate` rows: one per arm and metric (arm order, then metric order); `baseline`, `day`,
///   the p-values and the last two columns empty;
/// - `difference` rows: one per non-baseline arm and metric: arm minus `baseline` with its
///   interval and p-values (as in JSON; empty when undefined), and the report's smallest
///   attainable Holm-adjusted p-value and whether it is below 1 − level (`true`/`false`: can any
///   difference be significant), the same on every difference row; `day` empty;
/// - `daily` rows: one per series and day: `value` is the day's value, `lower` and `upper` its
///   interval (empty when undefined); `baseline`, the p-values and the last two columns empty.
/// The title, parameters and notes are not in the CSV (use JSON for them).
///
/// Table and Markdown: the title; the parameters, units, level, resamples and baseline; the
/// estimates (a row per metric, a column per arm, each cell `value [lower, upper]`); with a
/// baseline, the differences (a row per metric, per other arm a column `arm - baseline` with
/// `difference [lower, upper]`, a column `p` and a column `Holm`, the Holm-adjusted p; the
/// other p-values are in JSON and CSV only); the notes. An interval with an undefined bound
/// shows `-` for it; a cell whose value and bounds are all undefined is just `-`. The table splits
/// its arm columns into panels (each repeating the metric column) when a line would be wider than
/// `tableWidth` display columns; control characters in names become spaces. Markdown escapes
/// backslash, `` ` ``, `*`, `[`, `]`, `~`, `|` (`\|`) and an underscore that is not between two
/// letters or digits with a backslash, writes `&`, `<`, `>` as character references, line
/// breaks as `<br>`, and escapes a leading `#`, `+`, `-`, `=` or list number of a note.
package enum ComparisonWriter {
  /// Digits after the point in the table, Markdown and HTML.
  package static let textDecimals = StatsWriter.tableDecimals
  /// The widest table line, in display columns, before the arms are split into panels: wider
  /// than `StatsWriter.tableWidth`, so that three arms of `value [lower, upper]` cells fit
  /// beside the longest metric name (101 columns).
  package static let tableWidth = 120

  /// The whole output of `report` in `format`.
  package static func render(_ report: ComparisonReport, format: ComparisonFormat) -> [UInt8] {
    switch format {
    case .json: return Array(json(report).utf8)
    case .csv: return Array(tidy(report, json: false).utf8)
    case .jsonl: return Array(tidy(report, json: true).utf8)
    case .table: return Array(table(report).utf8)
    case .markdown: return Array(markdown(report).utf8)
    }
  }

  /// Writes the whole output of `report` in `format` to `output`.
  package static func write(
    _ report: ComparisonReport, format: ComparisonFormat, to output: ByteOutput
  ) throws(DeckIOError) {
    try output.write(render(report, format: format))
  }

  // MARK: - JSON

  private static func json(_ report: ComparisonReport) -> String {
    var w = JSONWriter(capacity: 4096)
    w.beginObject()
    if let run = report.run {
      w.key("run")
      run.write(to: &w)
      w.layout("\n")
    }
    w.field("title", report.title)
    w.layout("\n")
    w.key("parameters")
    w.beginObject()
    for p in report.parameters {
      w.key(p.name)
      // Each parameter's value was written by a JSONWriter (ReportParameter), as its type asks.
      w.fragment(p.json)
    }
    w.endObject()
    w.layout("\n")
    w.field("units", int: report.units)
    w.key("level")
    writeNumber(report.level, count: false, to: &w)
    w.field("resamples", int: report.resamples)
    w.field("baseline", report.baseline)
    w.layout("\n")
    w.key("significance")
    if let significance = report.significance { significance.write(to: &w) } else { w.null() }
    w.layout("\n")
    w.key("logging_bias")
    if let bias = report.loggingBias { bias.write(to: &w) } else { w.null() }
    w.layout("\n")
    w.key("metrics")
    w.arrayOfLines(report.metrics) { w, m in writeMetric(m, to: &w) }
    w.layout("\n")
    perArm("arms", report.arms, \.arm, to: &w) { w, arm in
      w.key("estimates")
      writeEstimates(report.metrics, arm.estimates, difference: nil, to: &w)
    }
    w.layout("\n")
    perArm("differences", report.differences, \.arm, to: &w) { w, d in
      w.field("baseline", d.baseline)
      w.key("estimates")
      writeEstimates(report.metrics, d.estimates, difference: d, to: &w)
    }
    w.layout("\n")
    perArm("daily", report.daily, \.arm, to: &w) { w, series in
      let count = report.metrics.first { $0.name == series.metric }?.isCount ?? false
      w.field("metric", series.metric)
      w.key("points")
      w.arrayOfObjects(series.points) { w, p in
        w.field("day", p.day.description)
        w.key("value")
        writeNumber(p.value, count: count, to: &w)
        w.key("lower")
        writeNumber(p.lower, count: count, to: &w)
        w.key("upper")
        writeNumber(p.upper, count: count, to: &w)
      }
    }
    w.layout("\n")
    perArm("top_dishes", report.topDishes, \.arm, to: &w) { w, top in
      w.key("dishes")
      w.arrayOfObjects(top.dishes) { w, d in
        w.field("id", d.id)
        w.field("name", d.name)
        w.field("category", d.category)
        w.field("count", int: d.count)
      }
    }
    w.layout("\n")
    w.key("notes")
    w.strings(report.allNotes)
    w.endObject()
    w.layout("\n")
    return w.text
  }

  /// The member `key`: an array of one object per line, each an arm's: `"arm"` first, then
  /// what `members` writes.
  private static func perArm<S: Sequence>(
    _ key: String, _ elements: S, _ arm: KeyPath<S.Element, String>, to w: inout JSONWriter,
    _ members: (inout JSONWriter, S.Element) -> Void
  ) {
    w.key(key)
    w.arrayOfLines(elements) { w, e in
      w.beginObject()
      w.field("arm", e[keyPath: arm])
      members(&w, e)
      w.endObject()
    }
  }

  private static func writeMetric(_ m: MetricSpec, to w: inout JSONWriter) {
    w.beginObject()
    w.field("name", m.name)
    w.field("definition", m.definition)
    switch m.form {
    case .ratio:
      w.field("form", "ratio")
      w.field("count", bool: false)
    case .total:
      w.field("form", "total")
      w.field("count", bool: true)
    case .coverage(let items):
      w.field("form", "coverage")
      w.field("count", bool: false)
      w.field("catalog_items", int: items)
    }
    w.field("direction", m.direction.rawValue)
    w.field("unit", m.unit)
    w.endObject()
  }

  private static func writeEstimates(
    _ metrics: [MetricSpec], _ estimates: [Estimate], difference: ArmDifference?,
    to w: inout JSONWriter
  ) {
    w.beginObject()
    for (n, m) in metrics.enumerated() {
      let e = ReportText.estimate(estimates, n)
      w.key(m.name)
      w.beginObject()
      w.key("value")
      writeNumber(e.value, count: m.isCount, to: &w)
      w.key("lower")
      writeNumber(e.lower, count: m.isCount, to: &w)
      w.key("upper")
      writeNumber(e.upper, count: m.isCount, to: &w)
      if let difference {
        for (key, p) in ReportText.pValueColumns(difference, n) {
          w.key(key)
          if let p { w.roundTrip(p) } else { w.null() }
        }
      }
      w.endObject()
    }
    w.endObject()
  }

  /// `ReportText.machineNumber`: a count whole (`12`), others in their round-trip form, an
  /// undefined value `null`.
  private static func writeNumber(_ x: Double?, count: Bool, to w: inout JSONWriter) {
    guard let x, x.isFinite else { return w.null() }
    if count && x == x.rounded() && abs(x) < 9.0e15 {
      w.int(Int64(x))
    } else {
      w.roundTrip(x)
    }
  }

  // MARK: - CSV

  /// The columns of the tidy forms (CSV and JSON Lines), in order.
  package static let tidyColumns =
    ["kind", "arm", "baseline", "metric", "day", "value", "lower", "upper"]
    + ReportText.pValueKeys + ["min_p_holm", "significance_attainable"]

  /// The CSV's header line.
  package static let csvHeader = tidyColumns.joined(separator: ",") + "\n"

  /// A cell of the tidy forms.
  private enum TidyCell {
    case text(String?)
    case number(Double?)
    case bool(Bool?)
  }

  /// The rows of the tidy forms: JSON Lines objects through the JSON writer, or CSV fields
  /// (empty when undefined). Numbers are floating point throughout (`99.0`), counts too, so each
  /// column has one type for loaders.
  private static func tidy(_ report: ComparisonReport, json: Bool) -> String {
    var w = JSONWriter()
    var s = json ? "" : csvHeader
    func row(_ cells: [TidyCell]) {
      if json {
        w.beginObject()
        for (key, cell) in zip(tidyColumns, cells) {
          w.key(key)
          switch cell {
          case .text(let x): w.string(x)
          // A non-finite number is null, as in every JSON output.
          case .number(let x): if let x { w.roundTrip(x) } else { w.null() }
          case .bool(let b): if let b { w.bool(b) } else { w.null() }
          }
        }
        w.endObject()
        w.layout("\n")
      } else {
        s +=
          cells.map { cell -> String in
            switch cell {
            case .text(let x): return x.map(ReportText.csvField) ?? ""
            case .number(let x): return x.flatMap { $0.isFinite ? Text.roundTrip($0) : nil } ?? ""
            case .bool(let b): return b.map { $0 ? "true" : "false" } ?? ""
            }
          }.joined(separator: ",") + "\n"
      }
    }
    let noPValues = [TidyCell](
      repeating: .number(nil), count: ReportText.pValueKeys.count + 2)
    let significance: [TidyCell] =
      report.significance.map { [.number($0.smallestHolm), .bool($0.attainable)] }
      ?? [.number(nil), .bool(nil)]
    for arm in report.arms {
      for (n, m) in report.metrics.enumerated() {
        let e = ReportText.estimate(arm.estimates, n)
        row(
          [
            .text("estimate"), .text(arm.arm), .text(nil), .text(m.name), .text(nil),
            .number(e.value), .number(e.lower), .number(e.upper),
          ] + noPValues)
      }
    }
    for d in report.differences {
      for (n, m) in report.metrics.enumerated() {
        let e = ReportText.estimate(d.estimates, n)
        row(
          [
            .text("difference"), .text(d.arm), .text(d.baseline), .text(m.name), .text(nil),
            .number(e.value), .number(e.lower), .number(e.upper),
          ] + ReportText.pValueColumns(d, n).map { .number($0.value) } + significance)
      }
    }
    for series in report.daily {
      for p in series.points {
        row(
          [
            .text("daily"), .text(series.arm), .text(nil), .text(series.metric),
            .text(p.day.description), .number(p.value), .number(p.lower), .number(p.upper),
          ] + noPValues)
      }
    }
    return json ? w.text : s
  }

  // MARK: - Table

  private static func table(_ report: ComparisonReport) -> String {
    let clean = ReportText.plain
    var s = clean(report.title) + "\n\n"
    let header = ReportText.headerFields(report)
    let nameWidth = header.map { Text.displayWidth(clean($0.name)) }.max() ?? 0
    for field in header {
      s +=
        Text.padRight(clean(field.name) + ":", nameWidth + 1) + " " + clean(field.value)
        + "\n"
    }
    s += "\n" + ReportText.estimatesCaption(report) + "\n"
    let estimates = ReportText.estimatesGrid(report, clean: clean)
    s += renderGrid(estimates.header, estimates.rows, groups: estimates.groups)
    if !report.differences.isEmpty {
      s += "\n" + ReportText.differencesCaption(report) + "\n"
      let diffs = ReportText.differencesGrid(report, clean: clean)
      s += renderGrid(diffs.header, diffs.rows, groups: diffs.groups)
    }
    if report.topDishes.contains(where: { !$0.dishes.isEmpty }) {
      s += "\n" + clean(ReportText.dishesCaption(report)) + "\n"
      let grid = ReportText.dishesGrid(report, clean: clean)
      s += renderGrid(grid.header, grid.rows, groups: report.topDishes.indices.map { [$0 + 1] })
    }
    if !report.allNotes.isEmpty {
      s += "\nnotes:\n"
      for note in report.allNotes { s += "- " + clean(note) + "\n" }
    }
    return s
  }

  /// Aligned columns: the first left-aligned, the others right-aligned, two spaces apart; the
  /// column groups after the first column are split into panels that fit `tableWidth` (at least
  /// one group each), each panel repeating the first column, panels separated by a blank line.
  private static func renderGrid(_ header: [String], _ rows: [[String]], groups: [[Int]])
    -> String
  {
    var widths = header.map(Text.displayWidth)
    for row in rows {
      for (n, field) in row.enumerated() {
        widths[n] = max(widths[n], Text.displayWidth(field))
      }
    }
    var panels: [[Int]] = []
    var current: [Int] = []
    var width = widths[0]
    for group in groups {
      let groupWidth = group.reduce(0) { $0 + 2 + widths[$1] }
      if !current.isEmpty && width + groupWidth > tableWidth {
        panels.append(current)
        current = []
        width = widths[0]
      }
      current += group
      width += groupWidth
    }
    panels.append(current)
    var s = ""
    for (p, panel) in panels.enumerated() {
      if p > 0 { s += "\n" }
      for line in [header] + rows {
        var text = panel.isEmpty ? line[0] : Text.padRight(line[0], widths[0])
        for n in panel { text += "  " + Text.padLeft(line[n], widths[n]) }
        s += text + "\n"
      }
    }
    return s
  }

  // MARK: - Markdown

  private static func markdown(_ report: ComparisonReport) -> String {
    let md = { ReportText.markdown($0, lineStart: false) }
    var s = "# " + md(report.title) + "\n\n| parameter | value |\n| --- | --- |\n"
    for field in ReportText.headerFields(report) {
      s += "| " + md(field.name) + " | " + md(field.value) + " |\n"
    }
    s += "\n## Estimates\n\n" + ReportText.estimatesCaption(report) + "\n\n"
    let estimates = ReportText.estimatesGrid(report, clean: md)
    s += markdownTable(estimates.header, estimates.rows)
    if !report.differences.isEmpty {
      s += "\n## Differences\n\n" + ReportText.differencesCaption(report) + "\n\n"
      let diffs = ReportText.differencesGrid(report, clean: md)
      s += markdownTable(diffs.header, diffs.rows)
    }
    if report.topDishes.contains(where: { !$0.dishes.isEmpty }) {
      s += "\n## Dishes shown most\n\n" + md(ReportText.dishesCaption(report)) + "\n\n"
      let grid = ReportText.dishesGrid(report, clean: md)
      s += markdownTable(grid.header, grid.rows)
    }
    if !report.allNotes.isEmpty {
      s += "\n## Notes\n\n"
      for note in report.allNotes {
        s += "- " + ReportText.markdown(note, lineStart: true) + "\n"
      }
    }
    return s
  }

  private static func markdownTable(_ header: [String], _ rows: [[String]]) -> String {
    var s = "| " + header.joined(separator: " | ") + " |\n|"
    s += header.indices.map { $0 == 0 ? " --- |" : " ---: |" }.joined() + "\n"
    for row in rows { s += "| " + row.joined(separator: " | ") + " |\n" }
    return s
  }
}
