import DeckCore

/// A linear axis with "nice" ticks (steps of 1, 2 or 5 times a power of ten) over the values it
/// must show. Arithmetic only (no libm), so the same values give the same ticks everywhere.
struct SVGAxis: Equatable {
  var lower: Double
  var upper: Double
  var step: Double
  /// Digits after the point of the tick labels.
  var decimals: Int

  /// An axis covering every finite value of `values` (and 0 when `includeZero`), nil when there
  /// is none. A single value (a zero-width interval) is widened by 10% of its size (1 at 0).
  init?(values: [Double], includeZero: Bool, targetTicks: Int = 5) {
    var finite = values.filter(\.isFinite)
    if includeZero { finite.append(0) }
    guard var lo = finite.min(), var hi = finite.max() else { return nil }
    if hi - lo <= 1e-12 * max(abs(lo), abs(hi)) {
      let pad = lo == 0 ? 1 : abs(lo) * 0.1
      lo -= pad
      hi += pad
    }
    let raw = (hi - lo) / Double(max(1, targetTicks))
    // magnitude = 10^exponent, the largest power of ten not above raw.
    var magnitude = 1.0
    var exponent = 0
    while magnitude > raw && exponent > -300 {
      magnitude /= 10
      exponent -= 1
    }
    while magnitude * 10 <= raw && exponent < 300 {
      magnitude *= 10
      exponent += 1
    }
    let norm = raw / magnitude
    let factor: Double = norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10
    if factor == 10 { exponent += 1 }
    step = factor * magnitude
    // A bound within a billionth of a step of a tick is on it (0.44 / 0.02 is 22.000000000000004).
    lower = (lo / step + 1e-9).rounded(.down) * step
    upper = (hi / step - 1e-9).rounded(.up) * step
    decimals = max(0, -exponent)
  }

  var ticks: [Double] {
    let count = Int(((upper - lower) / step).rounded())
    return (0...count).map { lower + Double($0) * step }
  }

  /// The position of `x` between `from` (at `lower`) and `to` (at `upper`).
  func position(_ x: Double, from: Double, to: Double) -> Double {
    from + (x - lower) / (upper - lower) * (to - from)
  }

  func label(_ x: Double) -> String {
    // Avoid "-0.00" for a tick computed as a tiny negative number.
    ReportText.fixed(abs(x) < step * 1e-9 ? 0 : x, decimals: decimals)
  }
}

/// One row of an interval chart: an arm with its estimate.
struct SVGIntervalRow {
  var label: String
  /// Written after the label (which is cut to fit first), e.g. " (baseline)".
  var suffix: String = ""
  var colour: String
  var estimate: Estimate
  /// The numbers written under the label (`value [lower, upper]`).
  var text: String
  /// Written right of the plot (the p-value of a difference), or nil.
  var side: String?
  /// A second line under `side` (the adjusted p-value), or nil.
  var sideBelow: String? = nil
  var marked: Bool
}

/// Inline SVG charts of the HTML report. Every string from the input is escaped with
/// `ReportText.html`; coordinates are written with one decimal.
enum SVGChart {
  /// Okabe–Ito colours (distinguishable with the common colour-vision deficiencies), without
  /// its yellow, which is too light on white.
  static let palette = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
  ]

  static let width = 570.0
  private static let labelRight = 196.0
  private static let plotLeft = 212.0
  private static let rowHeight = 36.0

  /// A horizontal dot-and-whisker chart: per row a dot at the value and a line from lower to
  /// upper (with end caps, so a zero-width interval still shows), an x axis with ticks, a
  /// dashed reference line (the baseline's value) and, when `zeroLine`, a line at 0 that is
  /// always on the axis. An undefined value draws nothing but the word "undefined".
  static func intervals(
    _ rows: [SVGIntervalRow], zeroLine: Bool, reference: Double?,
    referenceLabel: String, title: String
  ) -> String {
    let hasSide = rows.contains { $0.side != nil }
    // Two lines of side text ("Holm 0.0123", 11 characters of 10.5 px monospace) need more room.
    let sideWidth = rows.contains { $0.sideBelow != nil } ? 88.0 : 74.0
    let plotRight = width - (hasSide ? sideWidth : 30)
    let top = 22.0
    let axisY = top + Double(rows.count) * rowHeight + 4
    let height = axisY + 30
    var values: [Double] = []
    for row in rows {
      let e = row.estimate
      guard e.value.map(\.isFinite) == true else { continue }
      values += [e.value, e.lower, e.upper].compactMap { $0 }.filter(\.isFinite)
    }
    if let reference, reference.isFinite { values.append(reference) }
    let axis = SVGAxis(values: values, includeZero: zeroLine, targetTicks: 4)
    var s = open(width: width, height: height, title: title)
    if let axis {
      for tick in axis.ticks {
        let x = axis.position(tick, from: plotLeft, to: plotRight)
        s += line(x, top - 4, x, axisY, "grid")
        s += line(x, axisY, x, axisY + 4, "axis")
        s += text(x, axisY + 16, axis.label(tick), "tick", anchor: "middle")
      }
      s += line(plotLeft, axisY, plotRight, axisY, "axis")
      if zeroLine {
        let x = axis.position(0, from: plotLeft, to: plotRight)
        s += line(x, top - 4, x, axisY, "zero")
      }
      if let reference, reference.isFinite {
        let x = axis.position(reference, from: plotLeft, to: plotRight)
        s += line(x, top - 8, x, axisY, "reference")
        s += text(x, top - 11, referenceLabel, "note", anchor: "middle")
      }
    }
    for (n, row) in rows.enumerated() {
      let y = top + (Double(n) + 0.5) * rowHeight
      s += "<g><title>" + ReportText.html(row.label + row.suffix + ": " + row.text) + "</title>"
      // About 190 px hold 25 characters of bold 12 px text.
      let label = ReportText.truncated(row.label, max(8, 25 - row.suffix.count)) + row.suffix
      s += text(labelRight, y - 3, label, row.marked ? "arm marked" : "arm", anchor: "end")
      s += text(labelRight, y + 11, row.text, "numbers", anchor: "end")
      if let side = row.side {
        s += text(width - 8, row.sideBelow == nil ? y + 4 : y - 2, side, "numbers", anchor: "end")
      }
      if let below = row.sideBelow { s += text(width - 8, y + 11, below, "numbers", anchor: "end") }
      let e = row.estimate
      if let axis, let value = e.value, value.isFinite {
        if let lo = e.lower, let hi = e.upper, lo.isFinite, hi.isFinite {
          let x0 = axis.position(lo, from: plotLeft, to: plotRight)
          let x1 = axis.position(hi, from: plotLeft, to: plotRight)
          s += "<path class=\"whisker\" stroke=\"\(row.colour)\" d=\"M\(f(x0)) \(f(y))H\(f(x1))"
          s += "M\(f(x0)) \(f(y - 6))V\(f(y + 6))M\(f(x1)) \(f(y - 6))V\(f(y + 6))\"/>"
        }
        let x = axis.position(value, from: plotLeft, to: plotRight)
        s += "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"5\" fill=\"\(row.colour)\"/>"
      } else {
        s += text(plotLeft + 6, y + 4, "undefined", "undefined", anchor: "start")
      }
      s += "</g>\n"
    }
    return s + "</svg>\n"
  }

  /// One curve of a line chart.
  struct Series {
    var label: String
    var colour: String
    var marker: Int
    var points: [DailyPoint]
  }

  /// Per-day charts with more days draw fewer markers.
  static let markerDays = 31

  /// A line chart of per-day values: one line per series with markers (on every defined day up
  /// to `markerDays` days), broken where a day is undefined; a legend; a y axis with ticks; date labels on the x axis.
  static func daily(_ series: [Series], title: String) -> String {
    let left = 64.0
    let right = width - 18
    let (legend, ly) = dailyLegend(series, left: left, right: right)
    let top = ly + 16
    let bottom = top + 200
    let height = bottom + 34
    var s = open(width: width, height: height, title: title) + legend
    let days = Set(series.flatMap { $0.points.map(\.day) }).sorted()
    let values = series.flatMap { $0.points.compactMap(\.value) }
    guard let first = days.first, let last = days.last,
      let axis = SVGAxis(values: values, includeZero: false)
    else {
      let message = days.isEmpty ? "no days" : "undefined on every day"
      s += text((left + right) / 2, (top + bottom) / 2, message, "undefined", anchor: "middle")
      return s + "</svg>\n"
    }
    let span = Double(last.days(since: first))
    func x(_ day: DeckDate) -> Double {
      span == 0 ? (left + right) / 2 : left + Double(day.days(since: first)) / span * (right - left)
    }
    func y(_ v: Double) -> Double { axis.position(v, from: bottom, to: top) }
    for tick in axis.ticks {
      s += line(left, y(tick), right, y(tick), "grid")
      s += line(left - 4, y(tick), left, y(tick), "axis")
      s += text(left - 7, y(tick) + 4, axis.label(tick), "tick", anchor: "end")
    }
    s += line(left, bottom, right, bottom, "axis") + line(left, top, left, bottom, "axis")
    // Date labels: at most one per 74 px, every k-th day from the first.
    let maxLabels = max(1, Int((right - left) / 74))
    let k = max(1, (Int(span) + maxLabels) / maxLabels)
    var d = 0
    while d <= Int(span) {
      let day = first.adding(days: d)
      s += line(x(day), bottom, x(day), bottom + 4, "axis")
      s += text(x(day), bottom + 17, day.description, "tick", anchor: "middle")
      d += k
    }
    for item in series {
      let points = item.points.sorted { $0.day < $1.day }
      var path = ""
      var drawing = false
      var markers = ""
      // Up to `markerDays` days, a marker on every defined day; beyond, on every k-th one (to
      // tell the lines apart in grey) and on every isolated day (which has no line).
      let every = points.count <= markerDays ? 1 : (points.count + markerDays - 1) / markerDays
      for (n, p) in points.enumerated() {
        guard let v = p.value, v.isFinite else {
          drawing = false
          continue
        }
        path += (drawing ? "L" : "M") + f(x(p.day)) + " " + f(y(v))
        let isolated =
          !drawing && (n + 1 == points.count || points[n + 1].value.map(\.isFinite) != true)
        drawing = true
        if n % every == 0 || isolated {
          markers += marker(item.marker, x(p.day), y(v), item.colour)
        }
      }
      s += "<g><title>" + ReportText.html(item.label) + "</title>"
      if !path.isEmpty {
        s += "<path class=\"series\" stroke=\"\(item.colour)\" d=\"\(path)\"/>"
      }
      s += markers + "</g>\n"
    }
    return s + "</svg>\n"
  }

  /// The legend of a per-day chart: items left to right between `left` and `right`, wrapping;
  /// the baseline of its last row.
  private static func dailyLegend(_ series: [Series], left: Double, right: Double)
    -> (svg: String, baseline: Double)
  {
    var legend = ""
    var lx = left
    var ly = 14.0
    for item in series {
      let name = ReportText.truncated(item.label, 28)
      let itemWidth = 34 + Double(name.count) * 6.6 + 14
      if lx + itemWidth > right && lx > left {
        lx = left
        ly += 18
      }
      legend += "<g>" + line(lx, ly - 4, lx + 24, ly - 4, "series", colour: item.colour)
      legend += marker(item.marker, lx + 12, ly - 4, item.colour)
      legend += text(lx + 30, ly, name, "legend", anchor: "start") + "</g>\n"
      lx += itemWidth
    }
    return (legend, ly)
  }

  // MARK: Pieces

  private static func open(width: Double, height: Double, title: String) -> String {
    "<svg width=\"\(f(width))\" height=\"\(f(height))\""
      + " viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\""
      + ReportText.html(title) + "\">\n"
  }

  /// A marker shape: circle, square, triangle, diamond, triangle down (cycling).
  private static func marker(_ shape: Int, _ x: Double, _ y: Double, _ colour: String) -> String {
    let fill = "fill=\"\(colour)\""
    switch shape % 5 {
    case 0: return "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"3.5\" \(fill)/>"
    case 1:
      return "<rect x=\"\(f(x - 3.2))\" y=\"\(f(y - 3.2))\" width=\"6.4\" height=\"6.4\" \(fill)/>"
    case 2:
      return
        "<path d=\"M\(f(x)) \(f(y - 4.5))L\(f(x + 4)) \(f(y + 3))L\(f(x - 4)) \(f(y + 3))Z\" \(fill)/>"
    case 3:
      return
        "<path d=\"M\(f(x)) \(f(y - 4.5))L\(f(x + 4.5)) \(f(y))L\(f(x)) \(f(y + 4.5))L\(f(x - 4.5)) \(f(y))Z\" \(fill)/>"
    default:
      return
        "<path d=\"M\(f(x)) \(f(y + 4.5))L\(f(x + 4)) \(f(y - 3))L\(f(x - 4)) \(f(y - 3))Z\" \(fill)/>"
    }
  }

  private static func line(
    _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ cls: String, colour: String? = nil
  ) -> String {
    var s = "<line class=\"\(cls)\" x1=\"\(f(x0))\" y1=\"\(f(y0))\" x2=\"\(f(x1))\" y2=\"\(f(y1))\""
    if let colour { s += " stroke=\"\(colour)\"" }
    return s + "/>"
  }

  /// A text element; `content` is escaped here.
  private static func text(
    _ x: Double, _ y: Double, _ content: String, _ cls: String, anchor: String
  ) -> String {
    "<text class=\"\(cls)\" x=\"\(f(x))\" y=\"\(f(y))\" text-anchor=\"\(anchor)\">"
      + ReportText.html(content) + "</text>"
  }

  /// A coordinate with one decimal.
  private static func f(_ x: Double) -> String { ReportText.fixed(x, decimals: 1) }
}
