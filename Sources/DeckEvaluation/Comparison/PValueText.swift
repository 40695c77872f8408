import DeckBase

/// P-values for people, one form for every output that shows one: the significance notes and
/// every report's table, Markdown and HTML.
package enum PValue {
  /// A p-value for people: 4 digits, `<0.0001` below 0.00005, `-` when undefined; rounded so
  /// that it never reads smaller than it is (machines get the full precision instead).
  package static func text(_ p: Double?) -> String {
    guard let p, p.isFinite else { return "-" }
    if p < 0.000_05 { return "<0.0001" }
    return Text.fixed(notBelow(p, decimals: 4), decimals: 4)
  }

  /// `p` rounded to `decimals` digits, one unit up when the nearest would be below `p`.
  package static func notBelow(_ p: Double, decimals: Int) -> Double {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let nearest = (p * scale).rounded() / scale
    // A tolerance for the binary representation of values like 0.001.
    return nearest < p * (1 - 1e-9) ? nearest + 1 / scale : nearest
  }
}
