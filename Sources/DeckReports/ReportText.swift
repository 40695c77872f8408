import DeckBase
import DeckCore
import DeckEvaluation
import DeckIO

/// Text shared by the comparison writers and the HTML report: number formats, escaping and the
/// cells of the estimates and differences tables.
enum ReportText {
  /// Estimate `n`, or an undefined one when the list is short.
  static func estimate(_ estimates: [Estimate], _ n: Int) -> Estimate {
    n < estimates.count ? estimates[n] : Estimate(value: nil, lower: nil, upper: nil)
  }

  /// A number for JSON and CSV, nil when undefined: a whole count as an integer, anything else
  /// in full precision (`Text.roundTrip`: the shortest text that reads back as the same double).
  static func machineNumber(_ x: Double?, count: Bool) -> String? {
    guard let x, x.isFinite else { return nil }
    if count && x == x.rounded() && abs(x) < 9.0e15 { return fixed(x, decimals: 0) }
    return Text.roundTrip(x)
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

  /// A p-value for machines: in full precision (`Text.roundTrip`); nil when undefined.
  static func pValueNumber(_ p: Double?) -> String? {
    guard let p, p.isFinite else { return nil }
    return Text.roundTrip(p)
  }

  /// The p-values of a difference in JSON and CSV, in this order: the randomization test, Holm
  /// and Benjamini-Hochberg adjusted, the paired t-test, the Wilcoxon signed-rank test.
  static let pValueKeys = ["p_value", "p_holm", "p_bh", "p_t", "p_wilcoxon"]

  /// Metric `n`'s p-values of `d`, keyed as `pValueKeys`.
  static func pValueColumns(_ d: ArmDifference, _ n: Int) -> [(key: String, value: Double?)] {
    let values = [d.pValues, d.pHolm, d.pBH, d.pT, d.pWilcoxon].map { ArmDifference.at($0, n) }
    return Array(zip(pValueKeys, values)).map { (key: $0.0, value: $0.1) }
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
    Text.fixed(value, decimals: decimals)
  }

  /// The header lines of the table, Markdown and HTML: the report's parameters, then units,
  /// level, resamples, the randomization test's permutations (with a baseline) and baseline
  /// (`none` without one).
  static func headerFields(_ report: ComparisonReport) -> [ReportParameter] {
    report.parameters + [
      ReportParameter(name: "units", value: String(report.units)),
      ReportParameter(name: "level", value: percent(report.level)),
      ReportParameter(name: "resamples", value: String(report.resamples)),
    ]
      + (report.significance.map {
        [ReportParameter(name: "permutations", value: $0.summary)]
      } ?? [])
      + [ReportParameter(name: "baseline", value: report.baseline ?? "none")]
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
      + "; p: two-sided paired randomization\nHolm: p adjusted by Holm's step-down method over"
      + " the family of the report's " + familySize(report)
  }

  /// "32 tests of every arm x metric": the size of the family the adjusted p-values are over.
  static func familySize(_ report: ComparisonReport) -> String {
    let tests = MultipleComparisons.familyTests(report)
    return "\(tests) test\(tests == 1 ? "" : "s") of every arm x metric"
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
  /// `arm - baseline`, a column `p` and a column `Holm`, the Holm-adjusted p); each triple is
  /// one panel group.
  static func differencesGrid(_ report: ComparisonReport, clean: (String) -> String)
    -> (header: [String], rows: [[String]], groups: [[Int]])
  {
    var header = ["metric"]
    for d in report.differences {
      header += [clean(d.arm) + " - " + clean(d.baseline), "p", "Holm"]
    }
    let rows = report.metrics.enumerated().map { n, m in
      var row = [clean(m.name)]
      for d in report.differences {
        row.append(estimateText(estimate(d.estimates, n), count: m.isCount, signed: true))
        row.append(clean(PValue.text(ArmDifference.at(d.pValues, n))))
        row.append(clean(PValue.text(ArmDifference.at(d.pHolm, n))))
      }
      return row
    }
    return (header, rows, report.differences.indices.map { [3 * $0 + 1, 3 * $0 + 2, 3 * $0 + 3] })
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
