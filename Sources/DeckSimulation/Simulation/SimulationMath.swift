import DeckCore

/// The few functions the simulation needs beyond + - * /, written from basic IEEE arithmetic only
/// (no C library `exp` or `log`, whose last bit may differ between platforms), so a seed gives
/// the same bits everywhere.
enum SimulationMath {
  /// ln 2 split into a part with trailing zero bits (so `k * ln2High` is exact for |k| < 2^11)
  /// and the rest.
  private static let ln2High = 6.931_471_803_691_238_164_9e-1
  private static let ln2Low = 1.908_214_929_270_587_700_02e-10
  private static let log2e = 1.442_695_040_888_963_407_4

  /// e^x, within a couple of units in the last place: x = k ln 2 + r with |r| <= ln 2 / 2, e^r by its
  /// Taylor polynomial to degree 14 (Horner), then scaled by 2^k exactly.
  static func exp(_ x: Double) -> Double {
    if x.isNaN { return x }
    if x > 709.7 { return .infinity }
    if x < -745.1 { return 0 }
    let k = (x * log2e).rounded(.toNearestOrEven)
    let r = (x - k * ln2High) - k * ln2Low
    var p = 1.0
    var n = 14.0
    while n >= 1 {
      p = 1 + r / n * p
      n -= 1
    }
    let e = Int(k)
    // Two steps keep 2^e representable when e is below the normal range.
    if e < -1000 {
      return p * Double(sign: .plus, exponent: -1000, significand: 1)
        * Double(sign: .plus, exponent: e + 1000, significand: 1)
    }
    return p * Double(sign: .plus, exponent: e, significand: 1)
  }

  /// The logistic function 1 / (1 + e^-x), computed on the side that does not overflow.
  static func logistic(_ x: Double) -> Double {
    if x >= 0 { return 1 / (1 + exp(-x)) }
    let e = exp(x)
    return e / (1 + e)
  }

  /// 2^(-days / halfLife): what is left of satiation after `days` days; for a half-life of 0,
  /// 1 on the same day and 0 from the next day on. Whole halvings are exact powers of two; the
  /// rest is e^(-f ln 2) for the fraction f.
  static func halfLifeDecay(days: Int, halfLife: Double) -> Double {
    if days <= 0 { return 1 }
    if halfLife == 0 { return 0 }
    let halvings = Double(days) / halfLife
    if halvings > 1100 { return 0 }
    let whole = halvings.rounded(.down)
    let fraction = halvings - whole
    let rest = fraction == 0 ? 1 : exp(-fraction / log2e)
    return rest * Double(sign: .plus, exponent: -Int(whole), significand: 1)
  }

  /// An approximately standard normal draw: the sum of 12 uniforms minus 6 (Irwin-Hall; mean 0,
  /// variance 1, range -6...6). Twelve draws from the stream, always.
  static func normal(_ stream: inout RandomStream) -> Double {
    var sum = 0.0
    for _ in 0..<12 { sum += stream.nextDouble() }
    return sum - 6
  }
}
