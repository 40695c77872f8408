import DeckCore
import DeckStrategies
import Foundation
import Testing

@Suite("fitted Beta prior (empirical Bayes)")
struct FittedPriorTests {
  /// Per-dish counts as two aligned arrays.
  static func counts(_ pairs: [(Int32, Int32)]) -> (right: [Int32], left: [Int32]) {
    (pairs.map(\.0), pairs.map(\.1))
  }

  static func fit(_ pairs: [(Int32, Int32)]) -> FittedPrior {
    let (r, l) = counts(pairs)
    return FittedPrior(right: r, left: l)
  }

  /// ln L(a, b) of the beta-binomial, summed directly over the dishes (no grouping), with the
  /// library's log-gamma: the function the fit maximises.
  static func logLikelihood(_ pairs: [(Int32, Int32)], _ a: Double, _ b: Double) -> Double {
    var total = 0.0
    for (r, l) in pairs where r + l > 0 {
      total +=
        SpecialFunctions.logGamma(Double(r) + a) - SpecialFunctions.logGamma(a)
        + SpecialFunctions.logGamma(Double(l) + b) - SpecialFunctions.logGamma(b)
        - SpecialFunctions.logGamma(Double(r + l) + a + b) + SpecialFunctions.logGamma(a + b)
    }
    return total
  }

  /// `count` dishes with pick rates drawn from Beta(alpha, beta) and `shown(k)` swipes each,
  /// seeded.
  static func simulated(
    count: Int, alpha: Double, beta: Double, seed: UInt64, shown: (Int) -> Int32
  ) -> [(Int32, Int32)] {
    var random = RandomStream(seed: seed)
    return (0..<count).map { k in
      // A Beta(alpha, beta) draw as X / (X + Y), X and Y Gamma draws of whole shapes.
      let x = gammaDraw(alpha, &random)
      let y = gammaDraw(beta, &random)
      let p = x / (x + y)
      let n = shown(k)
      var r: Int32 = 0
      for _ in 0..<n where random.nextDouble() < p { r += 1 }
      return (r, n - r)
    }
  }

  /// A Gamma(shape) draw for a whole shape: the sum of `shape` standard exponentials.
  static func gammaDraw(_ shape: Double, _ random: inout RandomStream) -> Double {
    precondition(shape == shape.rounded() && shape >= 1)
    var total = 0.0
    for _ in 0..<Int(shape) { total -= log(1 - random.nextDouble()) }
    return total
  }

  @Test("special functions: known values to 1e-13")
  func specialFunctions() {
    let euler = 0.577_215_664_901_532_9
    var harmonic = 0.0
    for j in 1...9 { harmonic += 1 / Double(j) }
    let pi2: Double = Double.pi * Double.pi
    let cases: [(Double, Double)] = [
      (SpecialFunctions.digamma(1), -euler),
      (SpecialFunctions.digamma(0.5), -euler - 2 * log(2.0)),
      (SpecialFunctions.digamma(10), harmonic - euler),
      (SpecialFunctions.trigamma(1), pi2 / 6),
      (SpecialFunctions.trigamma(0.5), pi2 / 2),
      (SpecialFunctions.logGamma(0.5), 0.5 * log(Double.pi)),
      (SpecialFunctions.logGamma(1), 0),
      (SpecialFunctions.logGamma(10), log(362_880.0)),
      (SpecialFunctions.logGamma(20), log(121_645_100_408_832_000.0)),
    ]
    for (k, (got, want)) in cases.enumerated() {
      #expect(abs(got - want) <= 1e-13 * max(1, abs(want)), "case \(k): \(got) against \(want)")
    }
  }

  @Test("the differences agree with the functions they shortcut, for small and large steps")
  func differences() {
    for x in [0.001, 0.3, 1, 7.5, 1234.5] {
      for k in [1.0, 2, 15, 16, 17, 300] {
        let digamma = SpecialFunctions.digamma(x + k) - SpecialFunctions.digamma(x)
        let trigamma = SpecialFunctions.trigamma(x + k) - SpecialFunctions.trigamma(x)
        let logGamma = SpecialFunctions.logGamma(x + k) - SpecialFunctions.logGamma(x)
        #expect(
          abs(SpecialFunctions.digammaDifference(x, k) - digamma) <= 1e-12 * max(1, abs(digamma)))
        #expect(
          abs(SpecialFunctions.trigammaDifference(x, k) - trigamma)
            <= 1e-12 * max(1, abs(trigamma)))
        #expect(
          abs(SpecialFunctions.logGammaRatio(x, k) - logGamma) <= 1e-12 * max(1, abs(logGamma)))
      }
    }
    #expect(SpecialFunctions.digammaDifference(2, 0) == 0)
    #expect(SpecialFunctions.logGammaRatio(2, 0) == 0)
  }

  @Test("worked example: 4 dishes each swiped twice, 2, 2, 1 and 0 right, fit Beta(5/7, 3/7)")
  func workedExample() {
    // Every dish has n = 2, so the likelihood is that of the shares of dishes with 0, 1 and 2
    // right swipes (1/4, 1/4, 1/2), which a Beta(a, b) matches exactly: its mean is the share of
    // right swipes, 5/8, and P(1 of 2) = 2 mu (1 - mu) s / (s + 1) = 1/4 gives s = 8/7.
    let fit = Self.fit([(2, 0), (2, 0), (1, 1), (0, 2)])
    #expect(fit.outcome == .likelihood)
    #expect(fit.dishes == 4)
    #expect(abs(fit.prior.likes - 5.0 / 7) < 1e-12)
    #expect(abs(fit.prior.passes - 3.0 / 7) < 1e-12)
    // Dishes never shown do not change it.
    let padded = Self.fit([(0, 0), (2, 0), (0, 0), (2, 0), (1, 1), (0, 2), (0, 0)])
    #expect(padded == fit)
  }

  @Test(
    "the fit is the maximum of the likelihood: the gradient vanishes and no neighbour is higher")
  func maximum() {
    let pairs = Self.simulated(count: 300, alpha: 2, beta: 5, seed: 7) { Int32(1 + $0 % 20) }
    let fit = Self.fit(pairs)
    #expect(fit.outcome == .likelihood)
    let (a, b) = (fit.prior.likes, fit.prior.passes)
    let best = Self.logLikelihood(pairs, a, b)
    for (da, db) in [(1.001, 1.0), (0.999, 1.0), (1.0, 1.001), (1.0, 0.999), (1.001, 1.001)] {
      #expect(Self.logLikelihood(pairs, a * da, b * db) < best)
    }
    // Numerical gradient, relative to the curvature of ln L: about 0.
    let h = 1e-5
    let ga = (Self.logLikelihood(pairs, a + h, b) - Self.logLikelihood(pairs, a - h, b)) / (2 * h)
    let gb = (Self.logLikelihood(pairs, a, b + h) - Self.logLikelihood(pairs, a, b - h)) / (2 * h)
    #expect(abs(ga) < 1e-4 && abs(gb) < 1e-4, "gradient \(ga), \(gb)")
  }

  @Test("on many dishes drawn from Beta(2, 6) the fit comes back near (2, 6)")
  func recovery() {
    let pairs = Self.simulated(count: 3000, alpha: 2, beta: 6, seed: 11) { _ in 40 }
    let fit = Self.fit(pairs)
    #expect(fit.outcome == .likelihood)
    #expect(abs(fit.prior.likes / fit.prior.weight - 0.25) < 0.01, "\(fit.prior)")
    #expect(abs(fit.prior.weight - 8) < 1.2, "\(fit.prior)")
  }

  @Test("the fit depends on the counts only: the order of the dishes does not change a bit")
  func orderFree() {
    let pairs = Self.simulated(count: 200, alpha: 3, beta: 2, seed: 5) { Int32(1 + $0 % 7) }
    let forward = Self.fit(pairs)
    let backward = Self.fit(pairs.reversed())
    var shuffled = pairs
    var random = RandomStream(seed: 3)
    for k in stride(from: shuffled.count - 1, to: 0, by: -1) {
      shuffled.swapAt(k, random.nextInt(below: k + 1))
    }
    #expect(forward == backward)
    #expect(forward == Self.fit(shuffled))
  }

  @Test(
    "swipes that cannot fit a prior give Beta(1, 1)",
    arguments: [
      ("no history", [(Int32, Int32)]()),
      ("no dish swiped", [(0, 0), (0, 0)]),
      ("one dish", [(3, 1)]),
      ("every swipe right", [(3, 0), (1, 0)]),
      ("every swipe left", [(0, 3), (0, 1)]),
      ("no dish swiped twice", [(1, 0), (0, 1), (1, 0)]),
    ] as [(String, [(Int32, Int32)])])
  func laplace(_ name: String, _ pairs: [(Int32, Int32)]) {
    let fit = Self.fit(pairs)
    #expect(fit.prior == .laplace, "\(name)")
    #expect(fit.outcome == .laplace, "\(name)")
    #expect(fit.dishes == pairs.filter { $0.0 + $0.1 > 0 }.count, "\(name)")
  }

  @Test("dishes no more different than binomial noise: the weight stops at the number of swipes")
  func noSpread() {
    // Every dish 5 of 10: the likelihood grows as the weight does; the fit stops at N = 200.
    let fit = Self.fit(Array(repeating: (5, 5), count: 20))
    #expect(fit.outcome == .weightBound)
    #expect(abs(fit.prior.weight - 200) < 1e-9)
    #expect(abs(fit.prior.likes - 100) < 1e-6)
  }

  @Test("dishes all liked or all passed: the weight stops at its floor, the mean fitted")
  func allOrNothing() {
    let fit = Self.fit([(10, 0), (10, 0), (10, 0), (0, 10)])
    #expect(fit.outcome == .weightBound)
    #expect(abs(fit.prior.weight - FittedPrior.minimumWeight) < 1e-12)
    #expect(abs(fit.prior.likes / fit.prior.weight - 0.75) < 0.01, "\(fit.prior)")
  }

  @Test("the reported values name the prior, how it was fitted and on how many dishes")
  func reported() {
    let fit = Self.fit([(2, 0), (2, 0), (1, 1), (0, 2)])
    #expect(
      fit.reported.map(\.name) == ["prior_likes", "prior_passes", "prior_fit", "prior_dishes"])
    #expect(fit.reported[2].value == .string("likelihood"))
    #expect(fit.reported[3].value == .int(4))
  }
}

@Suite("prior options: fitted by default, fixed on request")
struct PriorOptionTests {
  static let workedItems = ["a:soup", "b:rice", "c:noodles", "d:soup", "e:fish"]
  /// a, b: 2 of 2; c: 1 of 2; d: never shown; e: 0 of 2 (the fit is Beta(5/7, 3/7)).
  static let workedEvents = [
    "u1 a right 2026-01-01", "u2 a right 2026-01-01", "u1 b right 2026-01-02",
    "u2 b right 2026-01-02", "u1 c right 2026-01-03", "u2 c left 2026-01-03",
    "u1 e left 2026-01-04", "u2 e left 2026-01-04",
  ]

  @Test(
    "every strategy with a Beta prior fits it by default",
    arguments: ["popularity", "affinity", "thompson", "epsilon-greedy"])
  func fittedByDefault(_ strategy: String) throws {
    let f = try fixture(items: Self.workedItems, events: Self.workedEvents)
    let s = try learned(strategy, on: f)
    let values = Dictionary(uniqueKeysWithValues: s.fitted.map { ($0.name, $0.value) })
    guard case .double(let likes) = values["prior_likes"],
      case .double(let passes) = values["prior_passes"]
    else {
      Issue.record("\(strategy) reports \(s.fitted)")
      return
    }
    #expect(abs(likes - 5.0 / 7) < 1e-12 && abs(passes - 3.0 / 7) < 1e-12)
    #expect(values["prior_fit"] == .string("likelihood"))
  }

  @Test("popularity with the fitted prior scores (r + 5/7) / (n + 8/7): the worked example")
  func popularityScores() throws {
    let f = try fixture(items: Self.workedItems, events: Self.workedEvents)
    let got = try scores(learned("popularity", on: f), f)
    let want = [19.0 / 22, 19.0 / 22, 6.0 / 11, 5.0 / 8, 5.0 / 22]
    for (g, w) in zip(got, want) { #expect(abs(g - w) < 1e-12, "\(got)") }
    #expect(ranking(got, f) == ["a", "b", "d", "c", "e"])
    // The fixed Beta(1, 1) ties c (2/4) with d (1/2) and keeps catalog order.
    let fixed = try scores(learned("popularity", ["prior": "fixed"], on: f), f)
    #expect(fixed == [0.75, 0.75, 0.5, 0.5, 0.25])
    #expect(ranking(fixed, f) == ["a", "b", "c", "d", "e"])
  }

  @Test("prior_likes or prior_passes alone mean a fixed prior, which reports nothing fitted")
  func impliedFixed() throws {
    let f = try fixture(items: Self.workedItems, events: Self.workedEvents)
    for options in [["prior_likes": "1"], ["prior_passes": "1"], ["prior": "fixed"]] {
      let s = try learned("popularity", options, on: f)
      #expect(s.fitted.isEmpty)
      #expect(scores(s, f) == [0.75, 0.75, 0.5, 0.5, 0.25])
    }
    let options = try StrategyOptions(
      raw: ["prior_likes": "2"], for: PopularityStrategy.description)
    #expect(options.string("prior") == "fixed")
    #expect(options.all.first { $0.0 == "prior" }?.1 == .string("fixed"))
    let plain = try StrategyOptions(raw: [:], for: PopularityStrategy.description)
    #expect(plain.string("prior") == "fitted")
  }

  @Test("a fixed prior option with prior=fitted, or a prior that is neither, is refused")
  func refused() {
    #expect(
      message {
        _ = try StrategyRegistry.make(
          "popularity", options: ["prior": "fitted", "prior_likes": "2"])
      }
        == "strategy 'popularity' option 'prior_likes': '2' is not used with prior=fitted, which "
        + "fits the prior to the swipes: give prior=fixed, or drop prior_likes")
    #expect(
      message { _ = try StrategyRegistry.make("thompson", options: ["prior": "empirical"]) }
        == "strategy 'thompson' option 'prior': 'empirical' is not fitted or fixed")
  }

  @Test("composite strategies report their components' fits under the components' names")
  func composites() throws {
    let f = try fixture(items: Self.workedItems, events: Self.workedEvents)
    #expect(
      try learned("plackett-luce", on: f).fitted.map(\.name)
        == [
          "popularity.prior_likes", "popularity.prior_passes", "popularity.prior_fit",
          "popularity.prior_dishes",
        ])
    #expect(try learned("diversify", on: f).fitted.first?.name == "popularity.prior_likes")
    let blend = try learned("blend", on: f).fitted.map(\.name)
    #expect(blend.first == "affinity.prior_likes")
    #expect(blend.contains("popularity.prior_passes"))
    #expect(try learned("ucb", on: f).fitted.isEmpty)
    #expect(try learned("random", on: f).fitted.isEmpty)
  }
}
