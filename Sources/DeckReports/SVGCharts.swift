import DeckCore
import DeckEvaluation

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

/// The line charts of the HTML report (per day, per position), as inline SVG. Every string from
/// the input is escaped with `ReportText.html`; coordinates are written with one decimal. The
/// text is sized for the chart's `viewBox`, which the page scales to its column: the report's
/// CSS keeps that scale near 1 (never below about 0.9 at 390 px), so 12.5-unit text stays
/// legible on a phone.
enum SVGChart {
  /// One point of a line: its place on the x axis (days since the first day, or a position),
  /// its value and interval.
  struct Point {
    var x: Int
    var value: Double?
    var lower: Double?
    var upper: Double?
  }

  /// One curve of a line chart.
  struct Series {
    var label: String
    var style: ArmStyle
    var points: [Point]
    /// Draw the points' intervals as a translucent band.
    var band: Bool = true
    /// Drawn in grey behind the others: the baseline in an arm's panel.
    var muted: Bool = false
  }

  /// The x axis of a line chart: its title, and the label of each x.
  struct XAxis {
    var title: String
    var label: (Int) -> String
    /// Room per label, in viewBox units: fewer labels when they would crowd.
    var labelWidth: Double
  }

  /// Long series draw fewer markers.
  static let markerDays = 31

  /// The grey of a muted series.
  static let mutedColour = "#8C8C8C"

  /// Per-day points, as days since `first`.
  static func points(_ daily: [DailyPoint], since first: DeckDate) -> [Point] {
    daily.map { p in
      Point(x: p.day.days(since: first), value: p.value, lower: p.lower, upper: p.upper)
    }
  }

  /// The x axis of days from `first` to `last`: dates as MM-DD when both are in one year (named
  /// in the axis title), else whole.
  static func dayAxis(first: DeckDate, last: DeckDate) -> XAxis {
    let oneYear = first.description.prefix(4) == last.description.prefix(4)
    return XAxis(
      title: oneYear ? "day (" + first.description.prefix(4) + ")" : "day",
      label: { d in
        let day = first.adding(days: d).description
        return oneYear ? String(day.dropFirst(5)) : day
      }, labelWidth: oneYear ? 50 : 84)
  }

  /// A line chart: per series a translucent band from each point's lower to upper bound (where
  /// both are defined, broken where not), a line with markers (on every defined point up to
  /// `markerDays` points), broken where a value is undefined; a y axis with ticks and `unit` as
  /// its title; the x axis labelled by `x`. `scale`: values the y axis must cover besides the
  /// series' own (the other panels', so that panels share one axis). `empty`, `undefined`: the
  /// message when there is no point at all, and when no point has a value.
  static func lines(
    _ series: [Series], title: String, unit: String, x xAxis: XAxis, width: Double = 400,
    height: Double = 236, scale: [Double] = [], empty: String = "no points",
    undefined: String = "undefined everywhere"
  ) -> String {
    let left = 50.0
    let right = width - 14
    let top = 26.0
    let bottom = height - 42
    var s = open(width: width, height: height, title: title)
    s += text(4, 14, unit, "axis-title", anchor: "start")
    let xs = series.flatMap { $0.points.map(\.x) }
    let values =
      series.flatMap { item in
        item.points.flatMap { p in [p.value] + (item.band ? [p.lower, p.upper] : []) }
          .compactMap { $0 }
      } + scale
    guard let first = xs.min(), let last = xs.max(),
      let axis = SVGAxis(values: values, includeZero: false)
    else {
      let message = xs.isEmpty ? empty : undefined
      s += text((left + right) / 2, (top + bottom) / 2, message, "undefined", anchor: "middle")
      return s + "</svg>\n"
    }
    let span = Double(last - first)
    func x(_ v: Int) -> Double {
      span == 0 ? (left + right) / 2 : left + Double(v - first) / span * (right - left)
    }
    func y(_ v: Double) -> Double { axis.position(v, from: bottom, to: top) }
    for tick in axis.ticks {
      s += line(left, y(tick), right, y(tick), "grid")
      s += line(left - 4, y(tick), left, y(tick), "axis")
      s += text(left - 7, y(tick) + 4, axis.label(tick), "tick", anchor: "end")
    }
    s += line(left, bottom, right, bottom, "axis") + line(left, top, left, bottom, "axis")
    // At most one label per `labelWidth` units, every k-th x from the first.
    let maxLabels = max(1, Int((right - left) / xAxis.labelWidth))
    let k = max(1, (Int(span) + maxLabels) / maxLabels)
    var d = first
    while d <= last {
      s += line(x(d), bottom, x(d), bottom + 4, "axis")
      s += text(x(d), bottom + 17, xAxis.label(d), "tick", anchor: "middle")
      d += k
    }
    s += text((left + right) / 2, height - 6, xAxis.title, "axis-title", anchor: "middle")
    // Muted series first, so the others draw over them; all bands before any line.
    let ordered = series.filter(\.muted) + series.filter { !$0.muted }
    for item in ordered where item.band {
      let colour = item.muted ? mutedColour : item.style.colour
      for run in runs(item.points.sorted { $0.x < $1.x }, banded: true) {
        let upper = run.map { f(x($0.x)) + " " + f(y($0.upper!)) }
        let lower = run.reversed().map { f(x($0.x)) + " " + f(y($0.lower!)) }
        s +=
          "<path class=\"band\" fill=\"\(colour)\" d=\"M" + (upper + lower).joined(separator: "L")
        s += "Z\"/>"
      }
    }
    s += "\n"
    for item in ordered {
      let points = item.points.sorted { $0.x < $1.x }
      var style = item.style
      if item.muted {
        style.colour = mutedColour
        style.hollow = false
        style.dash = "5 3"
      }
      var path = ""
      var markers = ""
      // Up to `markerDays` points, a marker on every defined one; beyond, on every k-th one (to
      // tell the lines apart in grey) and on every isolated one (which has no line).
      let every = points.count <= markerDays ? 1 : (points.count + markerDays - 1) / markerDays
      for run in runs(points, banded: false) {
        path += "M" + run.map { f(x($0.x)) + " " + f(y($0.value!)) }.joined(separator: "L")
      }
      for (n, p) in points.enumerated() {
        guard let v = p.value, v.isFinite else { continue }
        let isolated =
          (n == 0 || points[n - 1].value.map(\.isFinite) != true)
          && (n + 1 == points.count || points[n + 1].value.map(\.isFinite) != true)
        if n % every == 0 || isolated {
          markers += style.marker(x: x(p.x), y: y(v), r: width < 320 ? 3.4 : 4)
        }
      }
      s += "<g><title>" + ReportText.html(item.label) + "</title>"
      if !path.isEmpty {
        s += "<path class=\"series\(item.muted ? " muted" : "")\" stroke=\"\(style.colour)\""
        if let dash = style.dash { s += " stroke-dasharray=\"\(dash)\"" }
        s += " d=\"\(path)\"/>"
      }
      s += markers + "</g>\n"
    }
    return s + "</svg>\n"
  }

  /// The runs of consecutive defined points: values, or with `banded` both bounds.
  private static func runs(_ points: [Point], banded: Bool) -> [[Point]] {
    var runs: [[Point]] = []
    var current: [Point] = []
    for p in points {
      let defined =
        banded
        ? p.lower.map(\.isFinite) == true && p.upper.map(\.isFinite) == true
          && p.value.map(\.isFinite) == true
        : p.value.map(\.isFinite) == true
      if defined {
        current.append(p)
      } else if !current.isEmpty {
        runs.append(current)
        current = []
      }
    }
    if !current.isEmpty { runs.append(current) }
    return runs
  }

  // MARK: Pieces

  private static func open(width: Double, height: Double, title: String) -> String {
    "<svg class=\"chart\" viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\" aria-label=\""
      + ReportText.html(title) + "\">\n"
  }

  private static func line(
    _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ cls: String
  ) -> String {
    "<line class=\"\(cls)\" x1=\"\(f(x0))\" y1=\"\(f(y0))\" x2=\"\(f(x1))\" y2=\"\(f(y1))\"/>"
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
