import DeckBase
import DeckCore

// Numerical helpers shared by several built-in strategies. Every random draw comes from a
// `RandomStream`, so results depend only on the stream's seed.

extension RandomStream {
  /// Uniform in the open interval (0, 1), on the midpoints of a 2^-52 grid: never 0 (so its
  /// logarithm is finite) and at most 1 - 2^-53 (53 bits would round the top midpoint to 1).
  mutating func nextOpenDouble() -> Double {
    (Double(next() >> 12) + 0.5) * 0x1.0p-52
  }

  /// A standard normal draw (Marsaglia's polar method; the second value of each pair is
  /// dropped so that every call consumes whole pairs and the stream stays easy to follow).
  mutating func nextNormal() -> Double {
    while true {
      let u = 2 * nextDouble() - 1
      let v = 2 * nextDouble() - 1
      let s = u * u + v * v
      if s > 0 && s < 1 { return u * sqrt(-2 * log(s) / s) }
    }
  }

  /// The natural logarithm of a Gamma(`shape`, 1) draw, by Marsaglia and Tsang's method
  /// ("A simple method for generating gamma variables", 2000). Shapes below 1 use
  /// Gamma(a) = Gamma(a + 1) * U^(1/a), kept in log space so that tiny shapes do not underflow
  /// to 0. `shape` must be positive and finite.
  mutating func nextLogGamma(shape: Double) -> Double {
    precondition(shape > 0 && shape.isFinite, "gamma shape must be positive and finite")
    if shape < 1 {
      let boosted = nextLogGamma(shape: shape + 1)
      return boosted + log(nextOpenDouble()) / shape
    }
    let d = shape - 1.0 / 3
    let c = 1 / sqrt(9 * d)
    while true {
      let x = nextNormal()
      let t = 1 + c * x
      if t <= 0 { continue }
      let v = t * t * t
      let u = nextOpenDouble()
      let x2 = x * x
      // The cheap squeeze first, then the exact test.
      if u < 1 - 0.0331 * x2 * x2 || log(u) < 0.5 * x2 + d * (1 - v + log(v)) {
        return log(d) + log(v)
      }
    }
  }

  /// A Beta(`alpha`, `beta`) draw as X / (X + Y) with X ~ Gamma(alpha), Y ~ Gamma(beta),
  /// computed as 1 / (1 + exp(log Y - log X)). A zero parameter is the degenerate limit: alpha 0
  /// gives 0 and beta 0 gives 1 (and consumes no draws). Both may not be 0.
  mutating func nextBeta(alpha: Double, beta: Double) -> Double {
    precondition(alpha >= 0 && beta >= 0 && alpha + beta > 0, "beta parameters out of range")
    if alpha == 0 { return 0 }
    if beta == 0 { return 1 }
    let x = nextLogGamma(shape: alpha)
    let y = nextLogGamma(shape: beta)
    return 1 / (1 + exp(y - x))
  }
}

/// Scores from an order: the first of `order` (indices into the candidates) gets `n`, the next
/// `n - 1`, and so on down to 1, so that sorting by score gives back the order.
func scoresAlong(_ order: [Int]) -> [Double] {
  var values = [Double](repeating: 0, count: order.count)
  for (position, k) in order.enumerated() { values[k] = Double(order.count - position) }
  return values
}

/// The formula of a score from `scoresAlong`, with the inputs `candidates` and `place`
/// (1-based) in its explanation.
let scoreAlongFormula = "candidates + 1 - place"

/// A component's reasons as a composite gives them (blend's components, the base of diversify
/// and plackett-luce): per position, the parts of `strategy`'s own explanation, its terms and
/// inputs alike, named `prefix.name` (they are inputs of the composite's score, not terms of
/// it). `context` is the one the component scores with (its stream in the state its score
/// starts from); none for a component that does not explain itself.
func componentParts(
  _ strategy: any BuiltinStrategy, _ context: ScoringContext, positions: [Int], prefix: String
) -> [[ScorePart]] {
  guard let explaining = strategy as? any ExplainingStrategy else {
    return positions.map { _ in [] }
  }
  var own = context
  return explaining.explain(&own, positions: positions).map { e in
    (e.terms + e.inputs).map { ScorePart(prefix + "." + $0.name, $0.value, about: $0.about) }
  }
}

/// Rank-normalised scores: the best candidate gets 1, the worst 0, evenly spaced in between by
/// rank; tied scores share the mean of their ranks. A single candidate gets 1.
func rankNormalised(_ values: [Double]) -> [Double] {
  let n = values.count
  guard n > 1 else { return Array(repeating: 1, count: n) }
  let order = values.indices.sorted { values[$0] != values[$1] ? values[$0] > values[$1] : $0 < $1 }
  var out = [Double](repeating: 0, count: n)
  var start = 0
  while start < n {
    var end = start + 1
    while end < n && values[order[end]] == values[order[start]] { end += 1 }
    // Ranks start..<end (0 = best) share their mean.
    let rank = Double(start + end - 1) / 2
    for k in start..<end { out[order[k]] = (Double(n - 1) - rank) / Double(n - 1) }
    start = end
  }
  return out
}

/// A built-in that ranks from one other built-in, the one its `base` option names (diversify
/// re-ranks the base's order, plackett-luce samples from its scores): the base is made, prepared
/// and learned with it, and what the base fitted is reported under the base's name.
package protocol BaseRanking: BuiltinStrategy {
  /// The built-in the `base` option names, with its default options.
  var base: any BuiltinStrategy { get }
}

extension BaseRanking {
  /// The built-in the `base` option of `options` names.
  static func base(_ options: StrategyOptions) throws(StrategyError) -> any BuiltinStrategy {
    let name = options.string("base")
    return try makeComponent(name, for: options.strategy, option: "base", value: name)
  }

  package func prepare(seed: UInt64, jobs: Int) { base.prepare(seed: seed, jobs: jobs) }
  package func prepare(profiles: [UserProfile]) { base.prepare(profiles: profiles) }

  /// Learns the base (a failure is named as this strategy's component's).
  func learnBase(catalog: Catalog, history: History) throws(StrategyError) {
    try learnComponent(base, catalog: catalog, history: history, for: Self.description.identifier)
  }

  /// What the base fitted, under its name (`popularity.prior_likes`).
  package var fitted: [FittedValue] {
    base.fitted.map { $0.prefixed(base.description.identifier) }
  }
}

/// Creates the built-in `name` (default options) as a component of `strategy`; a name that is not
/// a built-in is an error naming `option`.
func makeComponent(_ name: String, for strategy: String, option: String, value: String)
  throws(StrategyError) -> any BuiltinStrategy
{
  guard StrategyRegistry.description(of: name) != nil else {
    throw .invalidOption(
      strategy: strategy, key: option, value: value,
      expected: "a built-in strategy (\(name.isEmpty ? "empty name" : "no '\(name)'")"
        + "\(didYouMean(name, StrategyRegistry.identifiers)); valid: "
        + StrategyRegistry.identifiers.joined(separator: ", ") + ")")
  }
  return try StrategyRegistry.make(name)
}

/// Forwards `learn` to a component; its failure names the composite strategy first.
func learnComponent(
  _ component: any BuiltinStrategy, catalog: Catalog, history: History, for strategy: String
) throws(StrategyError) {
  do throws(StrategyError) {
    try component.learn(catalog: catalog, history: history)
  } catch {
    guard case .failed(let inner, let message) = error else { throw error }
    throw .failed(strategy: strategy, message: "component '\(inner)': \(message)")
  }
}

/// Example events: `right` right swipes then `left` left swipes of one dish by distinct diners
/// (v1, v2, ...) on the first nine days of 2026, for examples that need a long record.
func exampleSwipes(_ item: String, right: Int, left: Int) -> [String] {
  (0..<(right + left)).map { k in
    "v\(k + 1) \(item) \(k < right ? "right" : "left") 2026-01-0\(k % 9 + 1)"
  }
}

/// The four-dish menu of the examples of the rate-based strategies, a dish per category.
let exampleMenu = ["miso-soup:soup", "oyakodon:rice", "zaru-soba:noodles", "tonkatsu:fried"]

/// Swipes on `exampleMenu`: zaru-soba liked twice, oyakodon once, tonkatsu passed twice, miso
/// soup never shown.
let exampleMenuSwipes =
  exampleSwipes("zaru-soba", right: 2, left: 0) + exampleSwipes("oyakodon", right: 1, left: 0)
  + exampleSwipes("tonkatsu", right: 0, left: 2)

/// The menu of the co-like examples (item-knn, als): a dish per category.
let exampleCoLikeMenu = ["zaru-soba:noodles", "miso-soup:soup", "katsudon:rice", "tonkatsu:fried"]

/// Swipes on `exampleCoLikeMenu`: u1 likes tonkatsu; of its other likers two (u2, u3) like
/// katsudon and one (u4) miso soup; three diners who never swiped tonkatsu like zaru-soba.
let exampleCoLikes = [
  "u1 tonkatsu right 2026-01-09", "u2 tonkatsu right 2026-01-02",
  "u2 katsudon right 2026-01-02", "u3 tonkatsu right 2026-01-03",
  "u3 katsudon right 2026-01-03", "u4 tonkatsu right 2026-01-04",
  "u4 miso-soup right 2026-01-04", "u5 zaru-soba right 2026-01-05",
  "u6 zaru-soba right 2026-01-06", "u7 zaru-soba right 2026-01-07",
]

/// The example of a strategy that scores every dish alike when there are no swipes: three
/// dishes and no history, so the catalog order stands.
func catalogOrderExample(_ summary: String) -> StrategyExample {
  StrategyExample(
    summary, items: ["miso-soup:soup", "oyakodon:rice", "zaru-soba:noodles"],
    expected: ["miso-soup", "oyakodon", "zaru-soba"])
}

/// `values[Int(c)]` for each candidate `c`, in candidate order: a catalog-wide score per
/// candidate, the one gather every diner's deck pays for. Nil when a candidate is outside
/// `values` (a strategy asked to score before it learned, or for another catalog): the caller
/// says so. The range check is one predictable comparison per candidate in the gather itself.
func gatherScores(_ values: [Double], at candidates: [Int32]) -> [Double]? {
  candidates.withUnsafeBufferPointer { c in
    values.withUnsafeBufferPointer { v -> [Double]? in
      var inRange = true
      let gathered = [Double](unsafeUninitializedCapacity: c.count) { out, done in
        for k in 0..<c.count {
          // Unsigned, so that a negative index is out of range too.
          let i = Int(UInt32(bitPattern: c[k]))
          guard i < v.count else {
            inRange = false
            done = k
            return
          }
          out[k] = v[i]
        }
        done = c.count
      }
      return inRange ? gathered : nil
    }
  }
}

/// Whether every value is a finite number: the check of every score a strategy returns, on
/// each diner's candidates, as a loop without an early exit that vectorizes. x - x is +0.0 for
/// every finite x and NaN for an infinity or a NaN, so the OR of their bits is 0 exactly when
/// all are finite.
func allFinite(_ values: [Double]) -> Bool {
  values.withUnsafeBufferPointer { v in
    var bits: UInt64 = 0
    for i in 0..<v.count { bits |= (v[i] - v[i]).bitPattern }
    return bits == 0
  }
}
