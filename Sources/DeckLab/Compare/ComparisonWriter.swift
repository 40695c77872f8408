import DeckBase
import DeckCore
import DeckIO

/// Output formats of `menudeck compare` (the HTML report is `HTMLReport`).
public enum ComparisonFormat: String, Sendable, CaseIterable {
  /// Aligned text for people: header lines, an estimates table, a differences table, notes.
  case table
  /// GitHub-flavoured Markdown: the same content as `table`, as Markdown tables.
  case markdown
  /// One JSON document (layout in `ComparisonWriter`).
  case json
  /// CSV in long format, one row per (arm, metric), difference and day (layout in
  /// `ComparisonWriter`).
  case csv
}

/// Writes a `ComparisonReport` as aligned text, Markdown, JSON or CSV.
///
/// Numbers are formatted by menudeck itself, never by the locale, as `StatsWriter` does: counts
/// (metrics whose form is `.total`) as whole numbers, everything else with a fixed number of
/// digits after the point (`decimals` in JSON and CSV, `textDecimals` in the table, Markdown and
/// HTML), rounded half away from zero, with no exponent below 9e9 (9e15 for whole counts). A
/// count that is not whole (an interpolated interval bound) keeps `decimals` digits in JSON and
/// CSV and is rounded to a whole number for people. An undefined value (nil, or not finite) is `null` in JSON, an empty field in
/// CSV and `-` in the table and Markdown. For people, differences carry an explicit sign (`+0.0210`)
/// and a p-value below 0.00005 is written `<0.0001`. The same report is always the same bytes.
///
/// JSON: one object, keys in this order, one arm, difference or series per line:
///
///     {"title":"...",
///     "parameters":{"seed":"42",...},            parameter values are strings, in report order
///     "units":1000,"level":0.950000,"resamples":1000,"baseline":"popularity",   (or null)
///     "metrics":[
///     {"name":"decks","definition":"...","form":"total","count":true},
///     {"name":"catalog_coverage","definition":"...","form":"coverage","count":false,
///      "catalog_items":120},                      (only coverage metrics carry catalog_items)
///     ...],
///     "arms":[
///     {"arm":"popularity","estimates":{"decks":{"value":14000,"lower":13870,"upper":14122},
///      "like_rate":{"value":0.312000,"lower":0.301000,"upper":0.323000},...}},
///     ...],
///     "differences":[                              arm minus baseline; [] without a baseline
///     {"arm":"affinity","baseline":"popularity","estimates":{"like_rate":{"value":0.021000,
///      "lower":0.010000,"upper":0.032000,"p_value":0.001000},...}},
///     ...],
///     "daily":[                                    per-day curves; [] for logs
///     {"arm":"popularity","metric":"like_rate","points":[{"day":"2026-11-01","value":0.300000},...]},
///     ...],
///     "notes":["..."]}
///
/// `form` is `ratio`, `total` or `coverage` (see `MetricForm`); every metric of `metrics` has an
/// entry in every `estimates` object, in `metrics` order.
///
/// CSV: RFC 4180 (a field is quoted when it holds a comma, quote, CR or LF; quotes doubled), LF
/// line ends, the header `kind,arm,baseline,metric,day,value,lower,upper,p_value`, then
/// - `estimate` rows: one per arm and metric (arm order, then metric order); `baseline`, `day` and
///   `p_value` empty;
/// - `difference` rows: one per non-baseline arm and metric: arm minus `baseline` with its
///   interval and p-value; `day` empty;
/// - `daily` rows: one per series and day: `value` is the day's value; `baseline`, `lower`,
///   `upper` and `p_value` empty.
/// The title, parameters and notes are not in the CSV (use JSON for them).
///
/// Table and Markdown: the title; the parameters, units, level, resamples and baseline; the
/// estimates (a row per metric, a column per arm, each cell `value [lower, upper]`); with a
/// baseline, the differences (a row per metric, per other arm a column `arm - baseline` with
/// `difference [lower, upper]` and a column `p`); the notes. An interval with an undefined bound
/// shows `-` for it; a cell whose value and bounds are all undefined is just `-`. The table splits
/// its arm columns into panels (each repeating the metric column) when a line would be wider than
/// `tableWidth` display columns; control characters in names become spaces. Markdown escapes
/// backslash, `` ` ``, `*`, `[`, `]`, `~`, `|` (`\|`) and an underscore that is not between two
/// letters or digits with a backslash, writes `&`, `<`, `>` as character references, line
/// breaks as `<br>`, and escapes a leading `#`, `+`, `-`, `=` or list number of a note.
public enum ComparisonWriter {
  /// Digits after the point in JSON and CSV.
  public static let decimals = StatsWriter.decimals
  /// Digits after the point in the table, Markdown and HTML.
  public static let textDecimals = StatsWriter.tableDecimals
  /// The widest table line, in display columns, before the arms are split into panels: wider
  /// than `StatsWriter.tableWidth`, so that three arms of `value [lower, upper]` cells fit
  /// beside the longest metric name (101 columns).
  public static let tableWidth = 120

  /// The whole output of `report` in `format`.
  public static func render(_ report: ComparisonReport, format: ComparisonFormat) -> [UInt8] {
    switch format {
    case .json: return Array(json(report).utf8)
    case .csv: return Array(csv(report).utf8)
    case .table: return Array(table(report).utf8)
    case .markdown: return Array(markdown(report).utf8)
    }
  }

  /// Writes the whole output of `report` in `format` to `output`.
  public static func write(
    _ report: ComparisonReport, format: ComparisonFormat, to output: ByteOutput
  ) throws(DeckIOError) {
    try output.write(render(report, format: format))
  }

  // MARK: - JSON

  private static func json(_ report: ComparisonReport) -> String {
    var s = "{\"title\":" + JSONText.string(report.title) + ",\n\"parameters\":{"
    s += report.parameters.map { JSONText.string($0.name) + ":" + JSONText.string($0.value) }
      .joined(separator: ",")
    s += "},\n\"units\":\(report.units),\"level\":" + jsonNumber(report.level, count: false)
    s += ",\"resamples\":\(report.resamples),\"baseline\":"
    s += report.baseline.map(JSONText.string) ?? "null"
    s += ",\n\"metrics\":" + jsonList(report.metrics.map(jsonMetric))
    s += ",\n\"arms\":"
    s += jsonList(
      report.arms.map { arm in
        "{\"arm\":" + JSONText.string(arm.arm) + ",\"estimates\":"
          + jsonEstimates(report.metrics, arm.estimates, pValues: nil) + "}"
      })
    s += ",\n\"differences\":"
    s += jsonList(
      report.differences.map { d in
        "{\"arm\":" + JSONText.string(d.arm) + ",\"baseline\":" + JSONText.string(d.baseline)
          + ",\"estimates\":" + jsonEstimates(report.metrics, d.estimates, pValues: d.pValues)
          + "}"
      })
    s += ",\n\"daily\":"
    s += jsonList(
      report.daily.map { series in
        let count = report.metrics.first { $0.name == series.metric }?.isCount ?? false
        let points = series.points.map { p in
          "{\"day\":\"\(p.day)\",\"value\":" + jsonNumber(p.value, count: count) + "}"
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
    s += ",\n\"notes\":[" + report.notes.map(JSONText.string).joined(separator: ",") + "]}\n"
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
    case .ratio: s += "\"ratio\",\"count\":false}"
    case .total: s += "\"total\",\"count\":true}"
    case .coverage(let items): s += "\"coverage\",\"count\":false,\"catalog_items\":\(items)}"
    }
    return s
  }

  private static func jsonEstimates(
    _ metrics: [MetricSpec], _ estimates: [Estimate], pValues: [Double?]?
  ) -> String {
    var parts: [String] = []
    for (n, m) in metrics.enumerated() {
      let e = ReportText.estimate(estimates, n)
      var s = JSONText.string(m.name) + ":{\"value\":" + jsonNumber(e.value, count: m.isCount)
      s += ",\"lower\":" + jsonNumber(e.lower, count: m.isCount)
      s += ",\"upper\":" + jsonNumber(e.upper, count: m.isCount)
      if let pValues {
        s +=
          ",\"p_value\":"
          + (ReportText.pValueNumber(n < pValues.count ? pValues[n] : nil) ?? "null")
      }
      parts.append(s + "}")
    }
    return "{" + parts.joined(separator: ",") + "}"
  }

  private static func jsonNumber(_ x: Double?, count: Bool) -> String {
    ReportText.machineNumber(x, count: count) ?? "null"
  }

  // MARK: - CSV

  private static func csv(_ report: ComparisonReport) -> String {
    var s = "kind,arm,baseline,metric,day,value,lower,upper,p_value\n"
    func row(_ fields: [String]) {
      s += fields.joined(separator: ",") + "\n"
    }
    func number(_ x: Double?, _ count: Bool) -> String {
      ReportText.machineNumber(x, count: count) ?? ""
    }
    for arm in report.arms {
      for (n, m) in report.metrics.enumerated() {
        let e = ReportText.estimate(arm.estimates, n)
        row([
          "estimate", ReportText.csvField(arm.arm), "", ReportText.csvField(m.name), "",
          number(e.value, m.isCount), number(e.lower, m.isCount), number(e.upper, m.isCount), "",
        ])
      }
    }
    for d in report.differences {
      for (n, m) in report.metrics.enumerated() {
        let e = ReportText.estimate(d.estimates, n)
        row([
          "difference", ReportText.csvField(d.arm), ReportText.csvField(d.baseline),
          ReportText.csvField(m.name), "", number(e.value, m.isCount),
          number(e.lower, m.isCount), number(e.upper, m.isCount),
          ReportText.pValueNumber(n < d.pValues.count ? d.pValues[n] : nil) ?? "",
        ])
      }
    }
    for series in report.daily {
      let count = report.metrics.first { $0.name == series.metric }?.isCount ?? false
      for p in series.points {
        row([
          "daily", ReportText.csvField(series.arm), "", ReportText.csvField(series.metric),
          p.day.description, number(p.value, count), "", "", "",
        ])
      }
    }
    return s
  }

  // MARK: - Table

  private static func table(_ report: ComparisonReport) -> String {
    let clean = ReportText.plain
    var s = clean(report.title) + "\n\n"
    let header = ReportText.headerFields(report)
    let nameWidth = header.map { TextLayout.displayWidth(clean($0.name)) }.max() ?? 0
    for field in header {
      s +=
        TextLayout.padRight(clean(field.name) + ":", nameWidth + 1) + " " + clean(field.value)
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
    if !report.notes.isEmpty {
      s += "\nnotes:\n"
      for note in report.notes { s += "- " + clean(note) + "\n" }
    }
    return s
  }

  /// Aligned columns: the first left-aligned, the others right-aligned, two spaces apart; the
  /// column groups after the first column are split into panels that fit `tableWidth` (at least
  /// one group each), each panel repeating the first column, panels separated by a blank line.
  private static func renderGrid(_ header: [String], _ rows: [[String]], groups: [[Int]])
    -> String
  {
    var widths = header.map(TextLayout.displayWidth)
    for row in rows {
      for (n, field) in row.enumerated() {
        widths[n] = max(widths[n], TextLayout.displayWidth(field))
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
        var text = panel.isEmpty ? line[0] : TextLayout.padRight(line[0], widths[0])
        for n in panel { text += "  " + TextLayout.padLeft(line[n], widths[n]) }
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
    if !report.notes.isEmpty {
      s += "\n## Notes\n\n"
      for note in report.notes { s += "- " + ReportText.markdown(note, lineStart: true) + "\n" }
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

/// Text shared by the comparison writers and the HTML report: number formats, escaping and the
/// cells of the estimates and differences tables.
enum ReportText {
  /// Estimate `n`, or an undefined one when the list is short.
  static func estimate(_ estimates: [Estimate], _ n: Int) -> Estimate {
    n < estimates.count ? estimates[n] : Estimate(value: nil, lower: nil, upper: nil)
  }

  /// A number for JSON and CSV, nil when undefined: a whole count as an integer, anything else
  /// with `ComparisonWriter.decimals` digits.
  static func machineNumber(_ x: Double?, count: Bool) -> String? {
    guard let x, x.isFinite else { return nil }
    if count && x == x.rounded() && abs(x) < 9.0e15 { return fixed(x, decimals: 0) }
    return fixed(x, decimals: ComparisonWriter.decimals)
  }

  /// A number for people, nil when undefined: counts whole, others with
  /// `ComparisonWriter.textDecimals` digits; `signed` adds `+` to a positive number that does
  /// not round to zero.
  static func humanNumber(_ x: Double?, count: Bool, signed: Bool = false) -> String? {
    guard let x, x.isFinite else { return nil }
    let text = fixed(x, decimals: count ? 0 : ComparisonWriter.textDecimals)
    if signed && x > 0 && text.utf8.contains(where: { $0 >= 0x31 && $0 <= 0x39 }) {
      return "+" + text
    }
    return text
  }

  /// `value [lower, upper]` for people; `-` for an undefined part; just `-` when all are.
  static func estimateText(_ e: Estimate, count: Bool, signed: Bool = false) -> String {
    let v = humanNumber(e.value, count: count, signed: signed)
    let l = humanNumber(e.lower, count: count, signed: signed)
    let u = humanNumber(e.upper, count: count, signed: signed)
    if v == nil && l == nil && u == nil { return "-" }
    return (v ?? "-") + " [" + (l ?? "-") + ", " + (u ?? "-") + "]"
  }

  /// A p-value for people: 4 digits, `<0.0001` below 0.00005, `-` when undefined; rounded so
  /// that it never reads smaller than it is (see `pValueNumber`).
  static func pValueText(_ p: Double?) -> String {
    guard let p, p.isFinite else { return "-" }
    if p < 0.000_05 { return "<0.0001" }
    return fixed(notBelow(p, decimals: 4), decimals: 4)
  }

  /// A p-value for machines: `decimals` digits, rounded up when rounding to the nearest would
  /// print it below its value (a p-value is never below 1/(N+1); 1/400001 must not print as
  /// 0.000002); nil when undefined.
  static func pValueNumber(_ p: Double?) -> String? {
    guard let p, p.isFinite else { return nil }
    return fixed(
      notBelow(p, decimals: ComparisonWriter.decimals), decimals: ComparisonWriter.decimals)
  }

  /// `p` rounded to `decimals` digits, one unit up when the nearest would be below `p`.
  static func notBelow(_ p: Double, decimals: Int) -> Double {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let nearest = (p * scale).rounded() / scale
    // A tolerance for the binary representation of values like 0.001.
    return nearest < p * (1 - 1e-9) ? nearest + 1 / scale : nearest
  }

  /// `level` as a percentage without trailing zeros: 0.95 -> `95%`, 0.975 -> `97.5%`.
  static func percent(_ level: Double) -> String {
    guard level.isFinite else { return "-" }
    var text = fixed(level * 100, decimals: 4)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text + "%"
  }

  /// `value` with exactly `decimals` digits after the point, rounded half away from zero, never
  /// an exponent below 9e15 (the same rule as DeckIO's writers); `value` must be finite.
  static func fixed(_ value: Double, decimals: Int) -> String {
    TextLayout.fixed(value, decimals: decimals)
  }

  /// The header lines of the table, Markdown and HTML: the report's parameters, then units,
  /// level, resamples and baseline (`none` without one).
  static func headerFields(_ report: ComparisonReport) -> [ReportParameter] {
    report.parameters + [
      ReportParameter(name: "units", value: String(report.units)),
      ReportParameter(name: "level", value: percent(report.level)),
      ReportParameter(name: "resamples", value: String(report.resamples)),
      ReportParameter(name: "baseline", value: report.baseline ?? "none"),
    ]
  }

  static func dishesCaption(_ report: ComparisonReport) -> String {
    "the dishes each strategy showed most, with the times shown (simulation: cards swiped; logs:"
      + " decks that ranked them in the top k)"
  }

  /// Rank, then per strategy "name (category) count"; cells are cleaned by `clean`.
  static func dishesGrid(_ report: ComparisonReport, clean: (String) -> String)
    -> (header: [String], rows: [[String]])
  {
    let depth = report.topDishes.map(\.dishes.count).max() ?? 0
    let header = ["rank"] + report.topDishes.map { clean($0.arm) }
    let rows = (0..<depth).map { r in
      ["\(r + 1)"]
        + report.topDishes.map { top in
          guard r < top.dishes.count else { return "" }
          let d = top.dishes[r]
          return clean("\(d.name) (\(d.category)) \(d.count)")
        }
    }
    return (header, rows)
  }

  static func estimatesCaption(_ report: ComparisonReport) -> String {
    "estimates: value [lower, upper], " + percent(report.level) + " confidence interval"
  }

  static func differencesCaption(_ report: ComparisonReport) -> String {
    "differences: arm - baseline, value [lower, upper] at " + percent(report.level)
      + "; p: two-sided paired randomization"
  }

  /// The header and rows of the estimates table (a row per metric, a column per arm), strings
  /// passed through `clean`; each arm column is its own panel group.
  static func estimatesGrid(_ report: ComparisonReport, clean: (String) -> String)
    -> (header: [String], rows: [[String]], groups: [[Int]])
  {
    let header = ["metric"] + report.arms.map { clean($0.arm) }
    let rows = report.metrics.enumerated().map { n, m in
      [clean(m.name)]
        + report.arms.map { estimateText(estimate($0.estimates, n), count: m.isCount) }
    }
    return (header, rows, report.arms.indices.map { [$0 + 1] })
  }

  /// The header and rows of the differences table (a row per metric; per difference a column
  /// `arm - baseline` and a column `p`); each pair is one panel group.
  static func differencesGrid(_ report: ComparisonReport, clean: (String) -> String)
    -> (header: [String], rows: [[String]], groups: [[Int]])
  {
    var header = ["metric"]
    for d in report.differences { header += [clean(d.arm) + " - " + clean(d.baseline), "p"] }
    let rows = report.metrics.enumerated().map { n, m in
      var row = [clean(m.name)]
      for d in report.differences {
        row.append(estimateText(estimate(d.estimates, n), count: m.isCount, signed: true))
        row.append(clean(pValueText(n < d.pValues.count ? d.pValues[n] : nil)))
      }
      return row
    }
    return (header, rows, report.differences.indices.map { [2 * $0 + 1, 2 * $0 + 2] })
  }

  /// `s` cut to at most `length` characters, ending with "…" when cut.
  static func truncated(_ s: String, _ length: Int) -> String {
    s.count <= length ? s : String(s.prefix(max(0, length - 1))) + "…"
  }

  // MARK: Escaping

  /// `s` for a terminal: every control character (C0, DEL) becomes a space.
  static func plain(_ s: String) -> String {
    guard s.unicodeScalars.contains(where: isControl) else { return s }
    var out = String.UnicodeScalarView()
    for scalar in s.unicodeScalars { out.append(isControl(scalar) ? " " : scalar) }
    return String(out)
  }

  private static func isControl(_ c: Unicode.Scalar) -> Bool { c.value < 0x20 || c.value == 0x7F }

  /// `s` as a CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF.
  static func csvField(_ s: String) -> String { TextLayout.csvField(s) }

  /// `s` as inline Markdown text that renders as itself (see `ComparisonWriter`). `lineStart`:
  /// the text starts a line (a list item's content), where a leading `#`, `+`, `-`, `=` or
  /// list number would start a block and is escaped too.
  static func markdown(_ s: String, lineStart: Bool) -> String {
    let scalars = Array(s.unicodeScalars)
    var out = ""
    func isWordCharacter(_ i: Int) -> Bool {
      guard i >= 0 && i < scalars.count else { return false }
      let c = scalars[i]
      return c.properties.isAlphabetic || c.properties.numericType != nil
    }
    // A leading block marker: `#`, `+`, `-`, `=`, or digits followed by `.` or `)`.
    var escapeAt = -1
    if !lineStart {
      // Table cells and headings hold inline content only.
    } else if let first = scalars.first, "#+-=".unicodeScalars.contains(first) {
      escapeAt = 0
    } else {
      var i = 0
      while i < scalars.count && ("0"..."9").contains(scalars[i]) { i += 1 }
      if i > 0 && i < scalars.count && (scalars[i] == "." || scalars[i] == ")") { escapeAt = i }
    }
    var i = 0
    while i < scalars.count {
      let c = scalars[i]
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\r":
        out += "<br>"
        if i + 1 < scalars.count && scalars[i + 1] == "\n" { i += 1 }
      case "\n": out += "<br>"
      case "\\", "`", "*", "[", "]", "~", "|":
        out += "\\" + String(c)
      case "_":
        out += isWordCharacter(i - 1) && isWordCharacter(i + 1) ? "_" : "\\_"
      default:
        if i == escapeAt { out += "\\" }
        if c.value < 0x20 || c.value == 0x7F {
          out += " "
        } else {
          out.unicodeScalars.append(c)
        }
      }
      i += 1
    }
    return out
  }

  /// `s` as HTML text or attribute value: `&`, `<`, `>`, `"` and `'` as character references;
  /// control characters other than tab, LF and CR as U+FFFD.
  static func html(_ s: String) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for c in s.unicodeScalars {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      case "\t", "\n", "\r": out.unicodeScalars.append(c)
      default:
        if c.value < 0x20 || c.value == 0x7F {
          out += "\u{FFFD}"
        } else {
          out.unicodeScalars.append(c)
        }
      }
    }
    return out
  }
}
