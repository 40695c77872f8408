import DeckBase
import DeckCore

/// One option's value in a candidate setting of a tuning, as text (the form `--option` and the
/// config give it, checked by the strategy when it is made).
package struct OptionSetting: Sendable, Equatable {
  package var key: String
  package var value: String

  package init(_ key: String, _ value: String) {
    self.key = key
    self.value = value
  }
}

/// The search space of a tuning: per option, a list of values (a grid tries every combination)
/// or a range (a seeded random search draws from it).
package struct TuningGrid: Sendable, Equatable {
  package enum Values: Sendable, Equatable {
    /// Values as text, tried in this order.
    case list([String])
    /// Values from `low` to `high` (both included), drawn uniformly, or log-uniformly with
    /// `logScale` (both bounds above 0); `integer`: whole numbers only.
    case range(low: Double, high: Double, integer: Bool, logScale: Bool)
  }

  package struct Dimension: Sendable, Equatable {
    package var key: String
    package var values: Values

    package init(key: String, values: Values) {
      self.key = key
      self.values = values
    }
  }

  /// In the order given: the grid varies the last fastest, and its settings list them in this
  /// order.
  package var dimensions: [Dimension]

  /// The most candidates one tuning evaluates: each learns and ranks a deck for every validation
  /// diner.
  package static let maxCandidates = 1000

  package init(_ dimensions: [Dimension]) {
    self.dimensions = dimensions
  }

  /// Whether every dimension is a list, so that the grid can be enumerated.
  package var isEnumerable: Bool {
    dimensions.allSatisfy {
      if case .list = $0.values { return true }
      return false
    }
  }

  /// How many settings the whole grid holds; nil when a dimension is a range or the count is
  /// beyond any Int.
  package var size: Int? {
    var n = 1
    for d in dimensions {
      guard case .list(let values) = d.values else { return nil }
      let (product, overflow) = n.multipliedReportingOverflow(by: values.count)
      if overflow { return nil }
      n = product
    }
    return n
  }

  /// Every setting of the grid, the first dimension varying slowest (as nested loops in the
  /// order given). With no dimension: one empty setting (the strategy as it is).
  package func settings() -> [[OptionSetting]] {
    var out: [[OptionSetting]] = [[]]
    for d in dimensions {
      guard case .list(let values) = d.values else {
        preconditionFailure("a range cannot be enumerated; draw from it")
      }
      out = out.flatMap { prefix in values.map { prefix + [OptionSetting(d.key, $0)] } }
    }
    return out
  }

  /// `count` settings drawn from the space by a stream seeded with `seed`, each dimension in
  /// turn; a setting drawn before is dropped (so fewer may come back: `duplicates` says how
  /// many), and the order is the order drawn.
  package func draw(_ count: Int, seed: UInt64) -> (settings: [[OptionSetting]], duplicates: Int) {
    var stream = RandomStream(seed: seed)
    var out: [[OptionSetting]] = []
    var duplicates = 0
    for _ in 0..<count {
      let setting = dimensions.map { d in OptionSetting(d.key, Self.draw(d.values, &stream)) }
      if out.contains(setting) {
        duplicates += 1
      } else {
        out.append(setting)
      }
    }
    return (out, duplicates)
  }

  /// The seed of a random search: the run's seed, derived, so that the search is not the
  /// strategies' own stream.
  package static func searchSeed(runSeed: UInt64) -> UInt64 {
    var h = StableHash()
    h.combine(runSeed)
    h.combine("tune-search")
    return h.finalized
  }

  private static func draw(_ values: Values, _ stream: inout RandomStream) -> String {
    switch values {
    case .list(let list):
      return list[stream.nextInt(below: list.count)]
    case .range(let low, let high, let integer, let logScale):
      let u = stream.nextDouble()
      if integer {
        let lo = low.rounded(.up)
        let hi = high.rounded(.down)
        let v: Double
        if logScale {
          // Log-uniform over [lo, hi + 1), floored: each whole number gets the mass of its
          // interval on the log scale.
          let a = log(lo)
          let b = log(hi + 1)
          v = exp(a + u * (b - a)).rounded(.down)
        } else {
          v = (lo + u * (hi - lo + 1)).rounded(.down)
        }
        return String(Int(Swift.min(Swift.max(v, lo), hi)))
      }
      let v: Double
      if logScale {
        let a = log(low)
        let b = log(high)
        v = exp(a + u * (b - a))
      } else {
        v = low + u * (high - low)
      }
      return Text.number(Swift.min(Swift.max(significant(v, digits: 3), low), high))
    }
  }

  /// `v` rounded to `digits` significant digits (0.123456 -> 0.123, 1234.5 -> 1230): drawn
  /// values that read well in settings and configs, and that differ where it matters.
  package static func significant(_ v: Double, digits: Int) -> Double {
    guard v != 0, v.isFinite else { return v }
    let exponent = Int(log10(Swift.abs(v)).rounded(.down)) - (digits - 1)
    // Dividing by a power of ten that is exact (10^k, k >= 0) keeps the result the nearest
    // double to the decimal: 123 / 1000 is 0.123, where 123 * 0.001 is not.
    if exponent < 0 {
      let scale = pow(10, Double(-exponent))
      return (v * scale).rounded() / scale
    }
    let scale = pow(10, Double(exponent))
    return (v / scale).rounded() * scale
  }
}
