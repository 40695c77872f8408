import DeckBase
import DeckCore

/// A Beta(`likes`, `passes`) prior on a dish's pick rate: `likes` pseudo right swipes and
/// `passes` pseudo left swipes that every dish starts with. Its mean `likes / (likes + passes)`
/// is what a dish never shown scores; its weight `likes + passes` is how many swipes a dish needs
/// before its own record counts as much as the prior.
package struct BetaPrior: Sendable, Equatable {
  package var likes: Double
  package var passes: Double

  /// Laplace's rule, Beta(1, 1): the prior when the swipes cannot fit one.
  package static let laplace = BetaPrior(likes: 1, passes: 1)

  package var weight: Double { likes + passes }
}

/// A Beta prior fitted to the swipes of every dish by empirical Bayes: the maximum of the
/// beta-binomial marginal likelihood.
///
/// Each dish `i` with `r_i` right swipes out of `n_i = r_i + l_i` is taken as `n_i` draws of a
/// pick rate `p_i ~ Beta(a, b)`; with `p_i` integrated out, the swipes of all dishes have the
/// likelihood
///
///     L(a, b) = sum over dishes with n_i > 0 of
///               ln B(r_i + a, l_i + b) - ln B(a, b)      (B: the Beta function)
///
/// and the fit is the (a, b) that maximises it. Unlike the method of moments on the raw rates
/// (which takes the binomial noise of a dish shown twice for real differences between dishes:
/// on all of MovieLens small it gives a prior of weight 0.48, the likelihood 2.7), it weighs
/// each dish by how much its swipes say. Dishes never shown add nothing to `L`.
///
/// It is found by Newton's method on (ln a, ln b) from the pooled rate `R / N` with weight 2,
/// each step halved until `L` does not fall, the digamma and trigamma sums over the distinct
/// (r, l) pairs in ascending order (so the result depends only on the counts, never on the
/// catalog's order or the number of threads). The weight `a + b` is kept between
/// `minimumWeight` and the number of swipes `N`: when dishes differ no more than binomial noise
/// says, `L` grows without end as the weight does (every dish the same rate), and the fit stops
/// at weight `N` (a prior never outweighs the whole history) with the mean that maximises `L`
/// there. When the swipes cannot say how dishes differ, the prior is Beta(1, 1): fewer than two
/// dishes swiped, swipes all right or all left, or no dish swiped twice.
package struct FittedPrior: Sendable, Equatable {
  /// How the prior came about.
  package enum Outcome: String, Sendable, Equatable {
    /// The maximum of the marginal likelihood.
    case likelihood
    /// The maximum on a bound of the weight (a + b = N or `minimumWeight`), the mean fitted.
    case weightBound = "weight_bound"
    /// Beta(1, 1): the swipes cannot fit a prior.
    case laplace
  }

  package var prior: BetaPrior
  package var outcome: Outcome
  /// The dishes with a swipe, whose swipes the fit used.
  package var dishes: Int

  /// The smallest weight the fit gives: a prior of weight 0 would leave a dish never shown
  /// at 0 / 0.
  package static let minimumWeight = 0.001

  package init(prior: BetaPrior, outcome: Outcome, dishes: Int) {
    self.prior = prior
    self.outcome = outcome
    self.dishes = dishes
  }

  /// The fit to the swipes of `history`'s dishes.
  package init(_ history: History) {
    self.init(right: history.itemRight, left: history.itemLeft)
  }

  /// The fit to per-dish right and left swipe counts (aligned; negative counts are not swipes).
  package init(right: [Int32], left: [Int32]) {
    precondition(right.count == left.count, "one right and one left count per dish")
    let counts = SwipeCounts(right: right, left: left)
    let dishes = Int(counts.dishes)
    guard
      counts.dishes >= 2, counts.rightTotal > 0, counts.rightTotal < counts.swipes, counts.repeated
    else {
      self.init(prior: .laplace, outcome: .laplace, dishes: dishes)
      return
    }
    let (prior, onBound) = counts.maximumLikelihood()
    self.init(prior: prior, outcome: onBound ? .weightBound : .likelihood, dishes: dishes)
  }

  /// The values a strategy reports in the run header (`RankingStrategy.fitted`).
  package var reported: [FittedValue] {
    [
      FittedValue("prior_likes", .double(prior.likes)),
      FittedValue("prior_passes", .double(prior.passes)),
      FittedValue("prior_fit", .string(outcome.rawValue)),
      FittedValue("prior_dishes", .int(dishes)),
    ]
  }
}

/// The distinct (right, left) pairs of the swiped dishes, with how many dishes have each, in
/// ascending order: the sums of the fit run over these.
struct SwipeCounts {
  var right: [Double] = []
  var left: [Double] = []
  var dishCount: [Double] = []
  /// Totals over the dishes: dishes swiped, right swipes, swipes.
  var dishes = 0.0
  var rightTotal = 0.0
  var swipes = 0.0
  /// Whether some dish has two swipes or more (else the spread between dishes is not seen).
  var repeated = false

  init(right r: [Int32], left l: [Int32]) {
    var keys: [UInt64] = []
    keys.reserveCapacity(r.count)
    for i in r.indices where r[i] > 0 || l[i] > 0 {
      keys.append(UInt64(UInt32(max(0, r[i]))) << 32 | UInt64(UInt32(max(0, l[i]))))
    }
    keys.sort()
    var k = 0
    while k < keys.count {
      var end = k + 1
      while end < keys.count && keys[end] == keys[k] { end += 1 }
      let rr = Double(keys[k] >> 32)
      let ll = Double(keys[k] & 0xFFFF_FFFF)
      let m = Double(end - k)
      right.append(rr)
      left.append(ll)
      dishCount.append(m)
      dishes += m
      rightTotal += m * rr
      swipes += m * (rr + ll)
      if rr + ll >= 2 { repeated = true }
      k = end
    }
  }

  /// ln L(a, b), the beta-binomial log marginal likelihood, without the binomial coefficients
  /// (they do not depend on a and b).
  func logLikelihood(_ a: Double, _ b: Double) -> Double {
    let s = a + b
    var total = 0.0
    for k in right.indices {
      let term =
        SpecialFunctions.logGammaRatio(a, right[k]) + SpecialFunctions.logGammaRatio(b, left[k])
        - SpecialFunctions.logGammaRatio(s, right[k] + left[k])
      total += dishCount[k] * term
    }
    return total
  }

  /// The gradient of ln L in (a, b) and its Hessian (aa, bb, ab).
  func derivatives(_ a: Double, _ b: Double) -> (
    ga: Double, gb: Double, haa: Double, hbb: Double, hab: Double
  ) {
    let s = a + b
    var (ga, gb, haa, hbb, hab) = (0.0, 0.0, 0.0, 0.0, 0.0)
    for k in right.indices {
      let m = dishCount[k]
      let n = right[k] + left[k]
      let gs = SpecialFunctions.digammaDifference(s, n)
      let hs = SpecialFunctions.trigammaDifference(s, n)
      ga += m * (SpecialFunctions.digammaDifference(a, right[k]) - gs)
      gb += m * (SpecialFunctions.digammaDifference(b, left[k]) - gs)
      haa += m * (SpecialFunctions.trigammaDifference(a, right[k]) - hs)
      hbb += m * (SpecialFunctions.trigammaDifference(b, left[k]) - hs)
      hab -= m * hs
    }
    return (ga, gb, haa, hbb, hab)
  }

  /// The d ln L / d mu at weight s, divided by s: decreasing in mu (ln L is concave in the mean
  /// at a fixed weight).
  func meanSlope(_ mu: Double, weight s: Double) -> Double {
    var total = 0.0
    for k in right.indices {
      total +=
        dishCount[k]
        * (SpecialFunctions.digammaDifference(mu * s, right[k])
          - SpecialFunctions.digammaDifference((1 - mu) * s, left[k]))
    }
    return total
  }

  /// The mean that maximises ln L at weight `s`, by bisection of its slope (which is +infinity
  /// at 0 and -infinity at 1 when there are swipes of both kinds).
  func bestMean(weight s: Double) -> Double {
    var lo = 0.0
    var hi = 1.0
    for _ in 0..<200 {
      let mid = 0.5 * (lo + hi)
      if mid <= lo || mid >= hi { break }
      if meanSlope(mid, weight: s) > 0 { lo = mid } else { hi = mid }
    }
    return 0.5 * (lo + hi)
  }

  /// The maximum of ln L with the weight in [`FittedPrior.minimumWeight`, swipes], and whether
  /// it lies on a bound of the weight.
  func maximumLikelihood() -> (BetaPrior, onBound: Bool) {
    let lowest = FittedPrior.minimumWeight
    let highest = max(swipes, lowest)
    let start = rightTotal / swipes
    var a = 2 * start
    var b = 2 * (1 - start)
    var value = logLikelihood(a, b)

    /// (a, b) with their weight moved into the bounds, the mean kept.
    func project(_ a: Double, _ b: Double) -> (Double, Double) {
      let s = a + b
      let t = min(max(s, lowest), highest)
      return t == s ? (a, b) : (a / s * t, b / s * t)
    }

    for _ in 0..<200 {
      let d = derivatives(a, b)
      let s = a + b
      let mu = a / s
      // The slope along the weight at a fixed mean: outward on a bound means the maximum is there.
      let slope = mu * d.ga + (1 - mu) * d.gb
      if (s >= highest && slope > 0) || (s <= lowest && slope < 0) {
        let m = bestMean(weight: s)
        return (BetaPrior(likes: m * s, passes: (1 - m) * s), true)
      }
      // Newton in (u, v) = (ln a, ln b).
      let gu = a * d.ga
      let gv = b * d.gb
      let huu = gu + a * a * d.haa
      let hvv = gv + b * b * d.hbb
      let huv = a * b * d.hab
      let det = huu * hvv - huv * huv
      var du: Double
      var dv: Double
      if huu < 0 && det > 0 {
        du = -(hvv * gu - huv * gv) / det
        dv = -(huu * gv - huv * gu) / det
      } else {
        // Not concave here: up the gradient, the line search choosing the length.
        (du, dv) = (gu, gv)
      }
      let longest = max(abs(du), abs(dv))
      guard longest.isFinite, longest > 0 else { break }
      if longest > 2 {
        du *= 2 / longest
        dv *= 2 / longest
      }
      // Halve the step until ln L does not fall (to within its rounding).
      var step = 1.0
      var accepted: (Double, Double, Double)?
      let tolerance = 1e-12 * max(1, abs(value))
      for _ in 0..<60 {
        let (na, nb) = project(a * exp(step * du), b * exp(step * dv))
        let candidate = logLikelihood(na, nb)
        if candidate >= value - tolerance {
          accepted = (na, nb, candidate)
          break
        }
        step *= 0.5
      }
      guard let (na, nb, candidate) = accepted else { break }
      let moved = max(abs(log(na / a)), abs(log(nb / b)))
      (a, b, value) = (na, nb, candidate)
      if moved < 1e-12 { break }
    }
    let s = a + b
    return (BetaPrior(likes: a, passes: b), s <= lowest || s >= highest)
  }
}

/// The log-gamma, digamma and trigamma functions this file needs, in plain arithmetic (a
/// shift up by the recurrence to x >= 10, then the asymptotic series; within about 1e-14 of
/// the true values), so that a fit gives the same bits wherever it runs, whatever the C
/// library's `lgamma`.
package enum SpecialFunctions {
  /// ln Gamma(x) for x > 0 (Stirling's series from x >= 10).
  package static func logGamma(_ x: Double) -> Double {
    precondition(x > 0, "logGamma needs x > 0")
    var x = x
    var product = 1.0
    while x < 10 {
      product *= x
      x += 1
    }
    let f = 1 / (x * x)
    let series =
      (1 / x) * (1.0 / 12 - f * (1.0 / 360 - f * (1.0 / 1260 - f * (1.0 / 1680 - f / 1188))))
    return (x - 0.5) * log(x) - x + 0.918_938_533_204_672_7 + series - log(product)
  }

  /// ln Gamma(x + k) - ln Gamma(x) for x > 0 and a whole k >= 0: the log of the rising product
  /// x (x + 1) ... (x + k - 1) for small k, else a difference of `logGamma`.
  package static func logGammaRatio(_ x: Double, _ k: Double) -> Double {
    if k == 0 { return 0 }
    if k < 16 {
      var product = 1.0
      var j = 0.0
      while j < k {
        product *= x + j
        j += 1
      }
      return log(product)
    }
    return logGamma(x + k) - logGamma(x)
  }

  /// psi(x), the digamma function, for x > 0.
  package static func digamma(_ x: Double) -> Double {
    precondition(x > 0, "digamma needs x > 0")
    var x = x
    var result = 0.0
    while x < 10 {
      result -= 1 / x
      x += 1
    }
    let f = 1 / (x * x)
    return result + log(x) - 0.5 / x
      - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))))
  }

  /// psi'(x), the trigamma function, for x > 0.
  package static func trigamma(_ x: Double) -> Double {
    precondition(x > 0, "trigamma needs x > 0")
    var x = x
    var result = 0.0
    while x < 10 {
      result += 1 / (x * x)
      x += 1
    }
    let f = 1 / (x * x)
    return result + 1 / x + 0.5 * f
      + (f / x) * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f * (1.0 / 30 - f * 5 / 66))))
  }

  /// psi(x + k) - psi(x) for x > 0 and a whole k >= 0: the sum of 1 / (x + j) for small k.
  package static func digammaDifference(_ x: Double, _ k: Double) -> Double {
    if k == 0 { return 0 }
    if k < 16 {
      var total = 0.0
      var j = 0.0
      while j < k {
        total += 1 / (x + j)
        j += 1
      }
      return total
    }
    return digamma(x + k) - digamma(x)
  }

  /// psi'(x + k) - psi'(x) for x > 0 and a whole k >= 0 (0 or less).
  package static func trigammaDifference(_ x: Double, _ k: Double) -> Double {
    if k == 0 { return 0 }
    if k < 16 {
      var total = 0.0
      var j = 0.0
      while j < k {
        let y = x + j
        total -= 1 / (y * y)
        j += 1
      }
      return total
    }
    return trigamma(x + k) - trigamma(x)
  }
}

/// The prior a strategy's `prior`, `prior_likes` and `prior_passes` options choose: fitted to
/// the swipes each time the strategy learns (the default), or fixed.
package enum PriorChoice: Sendable, Equatable {
  case fitted
  case fixed(BetaPrior)

  /// The three options, for a strategy's description; `what` says where the prior acts
  /// ("every dish starts with", "per dish in the popularity score").
  static func options(_ what: String) -> [OptionSpec] {
    [
      OptionSpec(
        "prior", .string, default: .string("fitted"),
        implied: OptionImplication(keys: ["prior_likes", "prior_passes"], value: .string("fixed")),
        tuning: [.string("fitted"), .string("fixed")],
        "fitted: a Beta prior fitted to every dish's swipes when the strategy learns "
          + "(empirical Bayes, see docs/strategies.md); fixed: Beta(prior_likes, prior_passes). "
          + "Giving prior_likes or prior_passes without prior means fixed"),
      OptionSpec(
        "prior_likes", .double, default: .double(1), range: 0...1_000_000,
        "with prior=fixed, pseudo right swipes \(what) (the Beta prior's alpha)"),
      OptionSpec(
        "prior_passes", .double, default: .double(1), range: 0...1_000_000,
        "with prior=fixed, pseudo left swipes \(what) (the Beta prior's beta)"),
    ]
  }

  /// The choice the options make. `prior` is `fitted` or `fixed`; a fixed prior needs some
  /// weight (else a dish never shown would score 0 / 0); `prior_likes` or `prior_passes` with
  /// `prior=fitted` are refused, as they would be ignored.
  init(_ options: StrategyOptions) throws(StrategyError) {
    let strategy = options.strategy
    switch options.string("prior") {
    case "fitted":
      for key in ["prior_likes", "prior_passes"] {
        guard let text = options.given(key) else { continue }
        throw .invalidOption(
          strategy: strategy, key: key, value: text,
          expected: "used with prior=fitted, which fits the prior to the swipes: give "
            + "prior=fixed, or drop \(key)")
      }
      self = .fitted
    case "fixed":
      let likes = options.double("prior_likes")
      let passes = options.double("prior_passes")
      guard likes + passes > 0 else {
        throw .invalidOption(
          strategy: strategy, key: "prior_passes", value: String(passes),
          expected: "above 0 when prior_likes is 0 (a dish never shown would score 0/0)")
      }
      self = .fixed(BetaPrior(likes: likes, passes: passes))
    case let other:
      throw .invalidOption(
        strategy: strategy, key: "prior", value: other, expected: "fitted or fixed")
    }
  }
}

/// A strategy's prior: the choice its options make, and what the last `learn` fitted (the values
/// the strategy reports in the run header). Popularity, affinity, epsilon-greedy and thompson
/// hold one.
struct LearnedPrior: Sendable {
  let choice: PriorChoice
  /// The prior the last `learn` fitted, nil for a fixed one.
  private(set) var fit: FittedPrior?

  init(_ options: StrategyOptions) throws(StrategyError) {
    choice = try PriorChoice(options)
  }

  /// What the last `learn` fitted (`RankingStrategy.fitted`); nothing for a fixed prior.
  var fitted: [FittedValue] { fit?.reported ?? [] }

  /// The prior of the per-dish rates `strategy` learns from `history` (which must cover
  /// `catalog`).
  mutating func learn(_ history: History, catalog: Catalog, strategy: String)
    throws(StrategyError) -> BetaPrior
  {
    try PopularityStrategy.checkCoverage(catalog: catalog, history: history, strategy: strategy)
    return learn(history)
  }

  /// The prior for every dish's swipes in `history`.
  mutating func learn(_ history: History) -> BetaPrior {
    choose { FittedPrior(history) }
  }

  /// The prior for per-dish counts other than swipes (popularity per diner: likers and the other
  /// diners), one pair per dish with any.
  mutating func learn(right: [Int32], left: [Int32]) -> BetaPrior {
    choose { FittedPrior(right: right, left: left) }
  }

  /// The fixed prior, or the one `fitting` fits (kept as `fit`).
  private mutating func choose(fitting: () -> FittedPrior) -> BetaPrior {
    switch choice {
    case .fixed(let prior):
      fit = nil
      return prior
    case .fitted:
      let fitted = fitting()
      fit = fitted
      return fitted.prior
    }
  }
}
