import DeckEvaluation

/// One row of an interval chart: an arm with its estimate.
struct IntervalRow {
  var label: String
  var style: ArmStyle
  var estimate: Estimate
  /// The numbers beside the plot (`value [lower, upper]`).
  var text: String
  /// The p-values of a difference (`p 0.0010`, `Holm 0.0160`), one line each; empty for values.
  var pValues: [String] = []
  /// The baseline's row: its name in bold, tagged "baseline".
  var marked: Bool = false
  /// The Holm-adjusted p is below the report's alpha: the p-values are highlighted.
  var significant: Bool = false
}

/// The dot-and-whisker charts of the HTML report, in HTML and CSS rather than SVG: names,
/// numbers and tick labels are HTML text, so they keep their size on a phone however narrow the
/// plot gets, and long names are cut by the browser (`text-overflow`) with the whole name in a
/// tooltip. The plot is a box in which the whiskers, markers and grid lines are placed at
/// percentages of its width; lines are borders, so they print. The CSS is in `HTMLReportStyle`.
enum IntervalChart {
  /// Per row the arm's marker and name, the plot (a whisker from lower to upper with end caps,
  /// so a zero-width interval still shows, and the arm's marker at the value), the numbers and,
  /// for differences, the p-values; then the axis with its ticks and `axisTitle`. `zeroLine`: a
  /// solid line at 0, always on the axis; `reference`: a dashed line (the baseline's value)
  /// labelled `referenceLabel`. An undefined value draws nothing but the word "undefined".
  static func render(
    _ rows: [IntervalRow], zeroLine: Bool, reference: Double?, referenceLabel: String,
    axisTitle: String, label: String
  ) -> String {
    let h = ReportText.html
    var values: [Double] = []
    for row in rows {
      let e = row.estimate
      guard e.value.map(\.isFinite) == true else { continue }
      values += [e.value, e.lower, e.upper].compactMap { $0 }.filter(\.isFinite)
    }
    let reference = reference.flatMap { $0.isFinite ? $0 : nil }
    if let reference { values.append(reference) }
    let axis = SVGAxis(values: values, includeZero: zeroLine, targetTicks: 4)
    func at(_ x: Double) -> String {
      guard let axis else { return "0%" }
      return ReportText.fixed(axis.position(x, from: 0, to: 100), decimals: 2) + "%"
    }
    // The lines every row's plot repeats, so that they run through the whole chart.
    var lines = ""
    if let axis {
      for tick in axis.ticks { lines += "<span class=\"grid\" style=\"left:\(at(tick))\"></span>" }
      if zeroLine { lines += "<span class=\"zero\" style=\"left:\(at(0))\"></span>" }
      if let reference {
        lines += "<span class=\"reference\" style=\"left:\(at(reference))\"></span>"
      }
    }
    let hasP = rows.contains { !$0.pValues.isEmpty }
    // Column widths from the longest texts, so that every row's plot has the same width: the
    // label holds the marker and name over the numbers.
    let nameWidth = rows.map { $0.label.count + ($0.marked ? 11 : 0) + 3 }.max() ?? 0
    let labelWidth = min(26, max(10, nameWidth, rows.map(\.text.count).max() ?? 0))
    let pWidth = max(6, rows.flatMap(\.pValues).map(\.count).max() ?? 0)
    var s = "<div class=\"ichart\(hasP ? " has-p" : "")\" role=\"img\" aria-label=\"" + h(label)
    s += "\" style=\"--label:\(labelWidth)ch;--p:\(pWidth)ch\">\n"
    if let reference, axis != nil {
      s += "<div class=\"irow ihead\"><div class=\"iplot\"><span class=\"reflabel\" style=\"left:"
      s += at(reference) + "\">" + h(referenceLabel) + "</span></div></div>\n"
    }
    for row in rows {
      let e = row.estimate
      s += "<div class=\"irow\(row.marked ? " marked" : "")\" title=\""
      s += h(row.label + (row.marked ? " (baseline)" : "") + ": " + row.text) + "\">"
      s += "<div class=\"ilabel\"><div class=\"iname\">" + row.style.markerSVG()
      s += "<span class=\"arm\">" + h(row.label) + "</span>"
      s += (row.marked ? "<span class=\"tag\">baseline</span>" : "") + "</div>"
      s += "<div class=\"inum\">" + h(row.text) + "</div></div>"
      s += "<div class=\"iplot\">" + lines
      if let axis, let value = e.value, value.isFinite {
        if let lo = e.lower, let hi = e.upper, lo.isFinite, hi.isFinite {
          let width = axis.position(hi, from: 0, to: 100) - axis.position(lo, from: 0, to: 100)
          s += "<span class=\"whisker\" style=\"left:\(at(lo));width:"
          s +=
            ReportText.fixed(max(0, width), decimals: 2) + "%;color:\(row.style.colour)\"></span>"
        }
        s += "<span class=\"dot\" style=\"left:\(at(value))\">" + row.style.markerSVG() + "</span>"
      } else {
        s += "<span class=\"undefined\">undefined</span>"
      }
      s += "</div>"
      if hasP {
        s += "<div class=\"ip\(row.significant ? " significant" : "")\">"
        s += row.pValues.map(h).joined(separator: "<br>") + "</div>"
      }
      s += "</div>\n"
    }
    if let axis {
      s += "<div class=\"irow iaxis\"><div class=\"iplot\">"
      for tick in axis.ticks {
        s += "<span class=\"tick\" style=\"left:\(at(tick))\">" + h(axis.label(tick)) + "</span>"
      }
      s += "</div></div>\n<div class=\"irow ititle\"><div class=\"iplot\">" + h(axisTitle)
      s += "</div></div>\n"
    }
    return s + "</div>\n"
  }
}
