/// How an arm is drawn in every chart and beside its name in every table of the HTML report: a
/// colour, a marker shape, filled or hollow, and a line dash for its per-day curve.
///
/// The colours are Okabe and Ito's palette for readers with the common colour-vision
/// deficiencies, without its yellow (too light on white). Arm n takes colour n mod 7 and shape
/// (n mod 7 + n / 7) mod 7, so the first 7 arms differ in both, and no two of the first 49 arms
/// share a (colour, shape) pair; from the 8th arm on a reused colour also comes hollow and
/// dashed. Beyond 49 arms the styles repeat (arm n as arm n mod 49). A style depends on the
/// arm's place alone, so the same report always draws the same way.
struct ArmStyle: Equatable, Hashable {
  /// Okabe–Ito: blue, vermillion, bluish green, reddish purple, orange, sky blue, black.
  static let colours = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000",
  ]
  /// Circle, square, triangle, diamond, triangle pointing down, plus, cross.
  static let shapeNames = [
    "circle", "square", "triangle", "diamond", "triangle-down", "plus", "cross",
  ]
  /// How many arms get a (colour, shape) pair of their own.
  static let distinct = colours.count * shapeNames.count

  var colour: String
  /// An index into `shapeNames`.
  var shape: Int
  /// A white marker with a coloured outline.
  var hollow: Bool
  /// The SVG `stroke-dasharray` of its line, nil for a solid one.
  var dash: String?

  /// The style of the arm at `index` (0-based, in report order).
  init(index: Int) {
    let n = max(0, index) % ArmStyle.distinct
    let cycle = n / ArmStyle.colours.count
    colour = ArmStyle.colours[n % ArmStyle.colours.count]
    shape = (n % ArmStyle.colours.count + cycle) % ArmStyle.shapeNames.count
    hollow = cycle % 2 == 1
    dash = [nil, "7 4", "2 3", "9 3 2 3"][cycle % 4]
  }

  var shapeName: String { ArmStyle.shapeNames[shape] }

  /// The marker centred on (x, y), about 2·r across.
  func marker(x: Double, y: Double, r: Double = 4.5) -> String {
    let paint =
      hollow
      ? "fill=\"#fff\" stroke=\"\(colour)\" stroke-width=\"1.6\""
      : "fill=\"\(colour)\""
    func p(_ dx: Double, _ dy: Double) -> String { f(x + dx * r) + " " + f(y + dy * r) }
    func polygon(_ points: [(Double, Double)]) -> String {
      "<path d=\"M" + points.map { p($0.0, $0.1) }.joined(separator: "L") + "Z\" \(paint)/>"
    }
    switch shape {
    case 0: return "<circle cx=\"\(f(x))\" cy=\"\(f(y))\" r=\"\(f(r * 0.85))\" \(paint)/>"
    case 1: return polygon([(-0.8, -0.8), (0.8, -0.8), (0.8, 0.8), (-0.8, 0.8)])
    case 2: return polygon([(0, -1.05), (0.95, 0.7), (-0.95, 0.7)])
    case 3: return polygon([(0, -1.05), (1.05, 0), (0, 1.05), (-1.05, 0)])
    case 4: return polygon([(0, 1.05), (0.95, -0.7), (-0.95, -0.7)])
    case 5:
      let a = 0.34
      return polygon([
        (-a, -1), (a, -1), (a, -a), (1, -a), (1, a), (a, a), (a, 1), (-a, 1), (-a, a), (-1, a),
        (-1, -a), (-a, -a),
      ])
    default:
      // The plus turned by 45 degrees.
      let a = 0.25
      let b = 0.95
      return polygon([
        (-b + a, -b), (0, -2 * a), (b - a, -b), (b, -b + a), (2 * a, 0), (b, b - a), (b - a, b),
        (0, 2 * a), (-b + a, b), (-b, b - a), (-2 * a, 0), (-b, -b + a),
      ])
    }
  }

  /// A small inline SVG of the marker on a short line in the arm's dash: the swatch beside its
  /// name in the tables and legends.
  func swatch() -> String {
    var s =
      "<svg class=\"swatch\" width=\"26\" height=\"14\" viewBox=\"0 0 26 14\" aria-hidden=\"true\">"
    s += "<line x1=\"1\" y1=\"7\" x2=\"25\" y2=\"7\" stroke=\"\(colour)\" stroke-width=\"2\""
    if let dash { s += " stroke-dasharray=\"\(dash)\"" }
    s += "/>" + marker(x: 13, y: 7, r: 5) + "</svg>"
    return s
  }

  /// A bare marker as an inline SVG of `size` px, for the interval charts.
  func markerSVG(size: Double = 12) -> String {
    let half = size / 2
    return
      "<svg class=\"mk\" width=\"\(f(size))\" height=\"\(f(size))\" viewBox=\"0 0 \(f(size)) \(f(size))\""
      + " aria-hidden=\"true\">" + marker(x: half, y: half, r: half - 1) + "</svg>"
  }

  private func f(_ x: Double) -> String { ReportText.fixed(x, decimals: 1) }
}
