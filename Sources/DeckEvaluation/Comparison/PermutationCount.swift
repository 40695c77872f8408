import DeckBase

/// How many permutations the randomization test draws, chosen from the report's family of tests
/// so that the adjusted p-values can say something.
///
/// With B permutations the smallest p-value the test can give is 1 / (B + 1), and Holm's
/// adjustment multiplies the smallest p-value of a family of m tests by m, so no difference of
/// the report can have a Holm-adjusted p-value below m / (B + 1). With the old fixed 1,000 and
/// 8 arms x 20 metrics (160 tests) that is 0.16: nothing could be significant at 0.05.
///
/// **The rule.** By default B is the least multiple of `step`, at least `minimum`, with
/// m / (B + 1) ≤ α / `margin`, α = 1 − the confidence level: B ≥ margin·m/α − 1. The margin of
/// 10 leaves the test room below Holm's first threshold α/m: a difference is called significant
/// there when fewer than about 10 permutations in B + 1 are as extreme as it (the p-value's
/// resolution is then 10 steps, not 1, so the Monte Carlo draw decides little). 144 tests at
/// 95% take 29,000 permutations; 30 tests 6,000; up to 5 tests the `minimum`, 1,000 (the old
/// default). `cap` bounds the work: a permutation adds about half the units' sums of every
/// metric for one arm, a bootstrap resample all of them for every arm, so at the cap the
/// permutations cost about as much as 50,000 resamples (the count, never the clock, decides:
/// results stay the same on any machine). The cap still lets Holm reach α/10 for 500 tests at
/// 95% and α for 5,000.
///
/// With at most `Resampling.exactUnits` diners the test enumerates all 2^n swaps instead: its
/// smallest p-value is 2 / 2^n (the identity and the swap of every diner tie), whatever B.
package enum PermutationCount {
  /// The smallest attainable Holm-adjusted p-value is at most α / margin by default.
  package static let margin = 10
  /// The fewest permutations drawn by default (the default before issue 26).
  package static let minimum = 1_000
  /// Default counts are multiples of this, so that they read as round numbers.
  package static let step = 1_000
  /// The most permutations drawn by default, whatever the family.
  package static let cap = 100_000
  /// The most permutations `--permutations` takes.
  package static let maximum = 1_000_000

  /// The permutations the rule asks for `tests` tests at significance level `alpha` (before
  /// the cap): the least multiple of `step`, at least `minimum`, with tests / (B + 1) ≤
  /// alpha / margin.
  package static func needed(tests: Int, alpha: Double) -> Int {
    guard tests > 0, alpha > 0 else { return minimum }
    let least = Double(margin) * Double(tests) / alpha - 1
    // A tolerance for the binary representation: 10 x 5 / 0.05 - 1 must be 999, not 999.0001.
    let steps = ((least - 1e-6) / Double(step)).rounded(.up)
    guard steps < 1e12 else { return Int(1e12) * step }
    return max(minimum, Int(steps) * step)
  }

  /// The permutations of a report with `tests` tests in its family at significance level
  /// `alpha` over `units` diners: all 2^n swaps for a few diners, else `given`
  /// (`--permutations`) when there is one, else the rule's count up to `cap`.
  package static func choose(tests: Int, alpha: Double, units: Int, given: Int?) -> Significance {
    let needed = needed(tests: tests, alpha: alpha)
    if units <= Resampling.exactUnits {
      let all = 1 << max(units, 0)
      return Significance(
        permutations: all, source: .exact, tests: tests, alpha: alpha, needed: needed,
        smallestP: min(1, 2 / Double(all)), units: units)
    }
    if let given {
      return Significance(
        permutations: given, source: .option, tests: tests, alpha: alpha, needed: needed,
        smallestP: 1 / Double(given + 1), units: units)
    }
    let permutations = min(needed, cap)
    return Significance(
      permutations: permutations, source: needed > cap ? .cap : .family, tests: tests,
      alpha: alpha, needed: needed, smallestP: 1 / Double(permutations + 1), units: units)
  }
}

/// The randomization test's permutations of a report, why that many, and the smallest p-values
/// they allow: what every output says about whether a difference can be significant.
package struct Significance: Sendable, Equatable {
  /// Why the test drew `permutations`.
  package enum Source: String, Sendable {
    /// `PermutationCount`'s rule for the family.
    case family
    /// The rule asked for more than `PermutationCount.cap`.
    case cap
    /// `--permutations N`.
    case option
    /// Few diners: all 2^n swaps, exact.
    case exact
  }

  /// Per difference: drawn, or all 2^n when `source` is `.exact`.
  package var permutations: Int
  package var source: Source
  /// The tests of the family the adjusted p-values are over (`MultipleComparisons`).
  package var tests: Int
  /// The significance level: 1 − the confidence level (`MultipleComparisons.alpha`).
  package var alpha: Double
  /// The permutations `PermutationCount`'s rule asks for (more than `permutations` when capped).
  package var needed: Int
  /// The smallest p-value the test can give: 1 / (permutations + 1), or 2 / 2^n when exact.
  package var smallestP: Double
  /// The diners (units).
  package var units: Int

  /// The smallest Holm-adjusted p-value any test of the family can get: tests × `smallestP`, at
  /// most 1 (1 with no test).
  package var smallestHolm: Double { tests > 0 ? min(1, Double(tests) * smallestP) : 1 }

  /// Whether a difference can be significant at all: `smallestHolm` below `alpha`. False with
  /// no test in the family.
  package var attainable: Bool { tests > 0 && smallestHolm < alpha }

  /// `alpha` for people: the shortest decimal (0.05, 0.025).
  package var alphaText: String { Text.roundTrip(alpha) }

  private var testsText: String { "\(tests) test\(tests == 1 ? "" : "s")" }

  /// The value of the `permutations` line of the table, Markdown and HTML.
  package var summary: String {
    let holm = PValue.text(smallestHolm)
    switch source {
    case .family:
      return "\(permutations) per difference, chosen for \(testsText) at alpha \(alphaText):"
        + " the smallest Holm-adjusted p-value is \(holm)"
    case .cap:
      return "\(permutations) per difference, the cap: \(testsText) at alpha \(alphaText) would"
        + " take \(needed) for a smallest Holm-adjusted p-value of alpha / 10; it is \(holm)"
    case .option:
      return "\(permutations) per difference (--permutations): over \(testsText) the smallest"
        + " Holm-adjusted p-value is \(holm)"
    case .exact:
      return "all \(permutations) swaps of \(units) diner\(units == 1 ? "" : "s") (exact): over"
        + " \(testsText) the smallest Holm-adjusted p-value is \(holm)"
    }
  }

  /// The note (and warning) when no difference can be significant; nil when one can, or when
  /// the family has no test.
  package var unattainable: String? {
    guard tests > 0, !attainable else { return nil }
    let holm = PValue.text(smallestHolm)
    var s = "no difference can be significant at \(alphaText): "
    if source == .exact {
      s += "with \(units) diner\(units == 1 ? "" : "s") the randomization test enumerates all"
      s += " 2^\(units) swaps and its smallest p-value is 2 / 2^\(units), so over \(testsText)"
      s += " the smallest Holm-adjusted p-value is \(holm); more diners are needed"
    } else {
      s += "with \(TextLayout.plural(permutations, "permutation")) the smallest p-value is"
      s += " 1 / \(permutations + 1),"
      s += " so over \(testsText) the smallest Holm-adjusted p-value is \(holm); "
      // The rule's count when the option takes it, else the most it takes when that is enough.
      let most = PermutationCount.maximum
      if needed <= most {
        s += "give --permutations \(needed) or more"
        if source == .option && needed <= PermutationCount.cap {
          s += " (or leave --permutations out: the default chooses enough)"
        }
      } else if Double(tests) / Double(most + 1) < alpha {
        s += "give --permutations \(most)"
      } else {
        s += "even --permutations \(most) is too few for so many tests: compare fewer"
        s += " strategies or metrics"
      }
    }
    return s
  }

  /// The note when the default was capped but a difference can still be significant.
  package var capped: String? {
    guard source == .cap, attainable else { return nil }
    return "the randomization test drew \(TextLayout.plural(permutations, "permutation")),"
      + " the cap: \(testsText) at alpha \(alphaText) would take \(needed) for a smallest"
      + " Holm-adjusted p-value of alpha / 10; it is \(PValue.text(smallestHolm)) (give --permutations"
      + " \(needed) for more, at more cost)"
  }

  /// The JSON object of the report's `significance`.
  package var json: String { JSONWriter.text { write(to: &$0) } }

  /// Writes `json` as the next value of `w`.
  package func write(to w: inout JSONWriter) {
    w.beginObject()
    w.key("alpha")
    w.roundTrip(alpha)
    w.field("tests", int: tests)
    w.field("permutations", int: permutations)
    w.field("source", source.rawValue)
    w.field("needed", int: needed)
    w.key("min_p_value")
    w.roundTrip(smallestP)
    w.key("min_p_holm")
    w.roundTrip(smallestHolm)
    w.field("attainable", bool: attainable)
    w.endObject()
  }
}
