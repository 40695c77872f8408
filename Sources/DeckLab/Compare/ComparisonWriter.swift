import DeckBase
import DeckCore
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
    var s = "{"
    if let run = report.run { s += "\"run\":" + run.json() + ",\n" }
    s += "\"title\":" + JSONText.string(report.title) + ",\n\"parameters\":{"
    s += report.parameters.map { JSONText.string($0.name) + ":" + $0.json }
      .joined(separator: ",")
    s += "},\n\"units\":\(report.units),\"level\":" + jsonNumber(report.level, count: false)
    s += ",\"resamples\":\(report.resamples),\"baseline\":"
    s += report.baseline.map(JSONText.string) ?? "null"
    s += ",\n\"significance\":" + (report.significance?.json ?? "null")
    s += ",\n\"logging_bias\":" + (report.loggingBias?.json ?? "null")
    s += ",\n\"metrics\":" + jsonList(report.metrics.map(jsonMetric))
    s += ",\n\"arms\":"
    s += jsonList(
      report.arms.map { arm in
        "{\"arm\":" + JSONText.string(arm.arm) + ",\"estimates\":"
          + jsonEstimates(report.metrics, arm.estimates, difference: nil) + "}"
      })
    s += ",\n\"differences\":"
    s += jsonList(
      report.differences.map { d in
        "{\"arm\":" + JSONText.string(d.arm) + ",\"baseline\":" + JSONText.string(d.baseline)
          + ",\"estimates\":" + jsonEstimates(report.metrics, d.estimates, difference: d)
          + "}"
      })
    s += ",\n\"daily\":"
    s += jsonList(
      report.daily.map { series in
        let count = report.metrics.first { $0.name == series.metric }?.isCount ?? false
        let points = series.points.map { p in
          "{\"day\":\"\(p.day)\",\"value\":" + jsonNumber(p.value, count: count)
            + ",\"lower\":" + jsonNumber(p.lower, count: count) + ",\"upper\":"
            + jsonNumber(p.upper, count: count) + "}"
        }
        return "{\"arm\":" + JSONText.string(series.arm) + ",\"metric\":"
          + JSONText.string(series.metric) + ",\"points\":[" + points.joined(separator: ",") + "]}"
      })
    s += ",\n\"top_dishes\":"
    s += jsonList(
      report.topDishes.map { top in
        let dishes = top.dishes.map { d in
          "{\"id\":" + JSONText.string(d.id) + ",\"name\":" + JSONText.string(d.name)
            + ",\"category\":" + JSONText.string(d.category) + ",\"count\":\(d.count)}"
        }
        return "{\"arm\":" + JSONText.string(top.arm) + ",\"dishes\":["
          + dishes.joined(separator: ",") + "]}"
      })
    s += ",\n\"notes\":[" + report.allNotes.map(JSONText.string).joined(separator: ",") + "]}\n"
    return s
  }

  /// `[]`, or `[` + one item per line + `]`.
  private static func jsonList(_ items: [String]) -> String {
    items.isEmpty ? "[]" : "[\n" + items.joined(separator: ",\n") + "\n]"
  }

  private static func jsonMetric(_ m: MetricSpec) -> String {
    var s = "{\"name\":" + JSONText.string(m.name) + ",\"definition\":"
    s += JSONText.string(m.definition) + ",\"form\":"
    switch m.form {
    case .ratio: s += "\"ratio\",\"count\":false"
    case .total: s += "\"total\",\"count\":true"
    case .coverage(let items): s += "\"coverage\",\"count\":false,\"catalog_items\":\(items)"
    }
    s += ",\"direction\":" + JSONText.string(m.direction.rawValue)
    return s + ",\"unit\":" + JSONText.string(m.unit) + "}"
  }

  private static func jsonEstimates(
    _ metrics: [MetricSpec], _ estimates: [Estimate], difference: ArmDifference?
  ) -> String {
    var parts: [String] = []
    for (n, m) in metrics.enumerated() {
      let e = ReportText.estimate(estimates, n)
      var s = JSONText.string(m.name) + ":{\"value\":" + jsonNumber(e.value, count: m.isCount)
      s += ",\"lower\":" + jsonNumber(e.lower, count: m.isCount)
      s += ",\"upper\":" + jsonNumber(e.upper, count: m.isCount)
      if let difference {
        for (key, p) in ReportText.pValueColumns(difference, n) {
          s += ",\"" + key + "\":" + (ReportText.pValueNumber(p) ?? "null")
        }
      }
      parts.append(s + "}")
    }
    return "{" + parts.joined(separator: ",") + "}"
  }

  private static func jsonNumber(_ x: Double?, count: Bool) -> String {
    ReportText.machineNumber(x, count: count) ?? "null"
  }

  // MARK: - CSV

  /// The columns of the tidy forms (CSV and JSON Lines), in order.
  package static let tidyColumns =
    ["kind", "arm", "baseline", "metric", "day", "value", "lower", "upper"]
    + ReportText.pValueKeys + ["min_p_holm", "significance_attainable"]

  /// The CSV's header line.
  package static let csvHeader = tidyColumns.joined(separator: ",") + "\n"

  /// The rows of the tidy forms, each field already written for its form (`json`: JSON text;
  /// else a CSV field, empty when undefined). Numbers are floating point throughout (`99.0`),
  /// counts too, so each column has one type for loaders.
  private static func tidy(_ report: ComparisonReport, json: Bool) -> String {
    let null = json ? "null" : ""
    func text(_ x: String?) -> String {
      guard let x else { return null }
      return json ? JSONText.string(x) : ReportText.csvField(x)
    }
    func number(_ x: Double?) -> String {
      x.flatMap { $0.isFinite ? Text.roundTrip($0) : nil } ?? null
    }
    var s = json ? "" : csvHeader
    func row(_ fields: [String]) {
      if json {
        s += "{"
        for (n, (key, field)) in zip(tidyColumns, fields).enumerated() {
          s += (n > 0 ? ",\"" : "\"") + key + "\":" + field
        }
        s += "}\n"
      } else {
        s += fields.joined(separator: ",") + "\n"
      }
    }
    let noPValues = [String](repeating: null, count: ReportText.pValueKeys.count + 2)
    let significance =
      report.significance.map { [number($0.smallestHolm), $0.attainable ? "true" : "false"] }
      ?? [null, null]
    for arm in report.arms {
      for (n, m) in report.metrics.enumerated() {
        let e = ReportText.estimate(arm.estimates, n)
        row(
          [
            text("estimate"), text(arm.arm), null, text(m.name), null, number(e.value),
            number(e.lower), number(e.upper),
          ] + noPValues)
      }
    }
    for d in report.differences {
      for (n, m) in report.metrics.enumerated() {
        let e = ReportText.estimate(d.estimates, n)
        row(
          [
            text("difference"), text(d.arm), text(d.baseline), text(m.name), null,
            number(e.value), number(e.lower), number(e.upper),
          ] + ReportText.pValueColumns(d, n).map { number($0.value) } + significance)
      }
    }
    for series in report.daily {
      for p in series.points {
        row(
          [
            text("daily"), text(series.arm), null, text(series.metric), text(p.day.description),
            number(p.value), number(p.lower), number(p.upper),
          ] + noPValues)
      }
    }
    return s
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
