import DeckBase
import DeckCore

/// Linear Thompson sampling (Agrawal and Goyal, 2013) on `linucb`'s model: each diner's deck
/// ranks the dishes by their expected reward under one draw of the parameters from the
/// Gaussian posterior N(fitted, v^2 A^-1) of the ridge regression (`LinearBanditModel`),
/// drawn from the diner's own random stream.
///
/// The draw, hybrid: beta~ = beta + v L^-T e with S = L L^T (beta's marginal posterior), one
/// standard normal e per cross in S in index order; then one normal per (dish feature, diner
/// feature of this diner) in index order, v / sqrt(lambda) times it for a cross no swipe
/// touched (its prior); then per catalog index up to the last candidate one normal e_a for
/// x . theta~_a, which given beta~ is Gaussian with mean x . A_a^-1 (b_a - B_a beta~) and
/// variance v^2 x' A_a^-1 x (for a dish with no swipes: mean 0, variance v^2 |x|^2 / lambda).
/// Disjoint: x . theta_a + v sqrt(x' A_a^-1 x) e_a. A dish's draw does not depend on which
/// dishes are candidates. Its score is z_a . beta~ + x . theta~_a (see
/// `LinearBanditModel.DrawPlan`).
///
/// Propensities: the probability of the draw putting the card at its slot has no closed form
/// (the dishes' sampled scores are correlated through beta~), so it is estimated by Monte
/// Carlo: `samples` further draws, each from a stream of its own seeded by the next number of
/// the diner's stream (`PlackettLuceStrategy.sampleStream`), plus the deck's own draw; a card's
/// propensity is the share of them that put it at the slot the deck has it in (through the
/// deck rules when `ScoringContext.deck` is set, else the rank). Unbiased but for 1 / (samples
/// + 1) towards the realised deck, with the binomial error of `samples` draws. Exact (1) when
/// v = 0 or there is one candidate. When the deck rules keep the ranking's order, the prefix
/// propensity of the card at position k is the share of the draws whose first k cards are the
/// deck's first k, in order. Only the places the deck shows (`ScoringContext.places`) get
/// propensities; the others carry 0.
package final class LinTSStrategy: BuiltinStrategy, ExplainingStrategy {
  package static let description = StrategyDescription(
    identifier: "lints",
    summary:
      "a draw from the ridge regression's Gaussian posterior (scale v) per diner, per-card propensities",
    options: [
      OptionSpec(
        "v", .double, default: .double(0.15), range: 0...1000,
        tuning: [.double(0.1), .double(0.15), .double(0.25), .double(0.5)],
        "the posterior scale: parameters are drawn from N(fitted, v^2 A^-1); 0 is greedy"),
      OptionSpec(
        "samples", .int, default: .int(100), range: 1...1_000_000,
        "further draws per diner to estimate the propensities (more is slower but more precise)"),
    ] + LinearBanditCore.options,
    examples: [
      StrategyExample(
        "v 0 is the posterior mean: cold start puts kake-soba (noodles, no swipes) above "
          + "katsu-curry (fried, like the passed tonkatsu)",
        items: LinearBanditCore.exampleMenu, events: LinearBanditCore.exampleLikes,
        options: ["v": "0"],
        expected: ["zaru-soba", "kake-soba", "katsu-curry", "tonkatsu"]),
      StrategyExample(
        "seed 42, the defaults (pins the sampler: a change of algorithm fails here)",
        items: LinearBanditCore.exampleMenu, events: LinearBanditCore.exampleLikes,
        expected: ["zaru-soba", "kake-soba", "katsu-curry", "tonkatsu"]),
      StrategyExample(
        "with no history the draws alone order the dishes (v 1)",
        items: exampleMenu,
        options: ["v": "1"],
        expected: ["miso-soup", "tonkatsu", "oyakodon", "zaru-soba"]),
    ])

  private let v: Double
  private let samples: Int
  private var core: LinearBanditCore

  package init(options: StrategyOptions) throws(StrategyError) {
    v = options.double("v")
    samples = options.int("samples")
    core = try LinearBanditCore(options)
  }

  package func prepare(profiles: [UserProfile]) { core.prepare(profiles: profiles) }

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {
    try core.learn(
      catalog: catalog, history: history, strategy: Self.description.identifier, factors: true)
  }

  package func score(_ context: inout ScoringContext) -> Scores {
    let model = core.fitted(Self.description.identifier)
    let candidates = context.candidates
    guard let last = candidates.max() else { return Scores([], propensities: []) }
    let x = model.encoding.diner(context.user)
    let view = model.dinerView(id: context.user.id, history: context.userHistory)
    let plan = model.plan(x: x, upTo: Int(last), diner: view)
    let drawn = model.draw(plan, v: v, &context.random)
    let values = candidates.map { drawn[Int($0)] }
    let n = values.count
    let order = context.deck?.order(values) ?? Self.rank(values)
    let places = context.deck == nil ? min(n, max(0, context.places ?? n)) : order.count
    var hits = [Int](repeating: 1, count: n)
    var prefixHits = [Int](repeating: 1, count: places)
    let exact = v == 0 || n == 1
    if !exact {
      for _ in 0..<samples {
        var stream = PlackettLuceStrategy.sampleStream(&context.random)
        let again = model.draw(plan, v: v, &stream)
        let other =
          context.deck?.order(candidates.map { again[Int($0)] })
          ?? Self.rank(candidates.map { again[Int($0)] })
        var same = true
        for j in 0..<min(places, order.count, other.count) {
          if other[j] == order[j] { hits[order[j]] += 1 } else { same = false }
          if same { prefixHits[j] += 1 }
        }
      }
    }
    let total = Double(exact ? 1 : samples + 1)
    var propensities = [Double](repeating: 0, count: n)
    for j in 0..<min(places, order.count) {
      propensities[order[j]] = Double(hits[order[j]]) / total
    }
    guard context.deck == nil else { return Scores(values, propensities: propensities) }
    var prefix = [Double](repeating: 0, count: n)
    for j in 0..<places { prefix[order[j]] = Double(prefixHits[j]) / total }
    return Scores(values, propensities: propensities, prefixPropensities: prefix)
  }

  /// Candidate positions by score descending, then candidate (catalog) order.
  static func rank(_ values: [Double]) -> [Int] {
    values.indices.sorted { values[$0] != values[$1] ? values[$0] > values[$1] : $0 < $1 }
  }

  /// Terms: the posterior mean's "feature" terms (as `linucb`'s), then "exploration", the
  /// draw minus the posterior mean; inputs: "v" and "mean".
  package func explain(_ context: inout ScoringContext, positions: [Int]) -> [ScoreExplanation] {
    let model = core.fitted(Self.description.identifier)
    let values = score(&context).values
    let x = model.encoding.diner(context.user)
    let view = model.dinerView(id: context.user.id, history: context.userHistory)
    return positions.map { k in
      let item = Int(context.candidates[k])
      let p = model.predict(x: x, item: item, diner: view)
      let terms = LinearBanditCore.featureTerms(
        p, model: model, dish: model.encoding.itemIDs[item],
        diner: context.user.id)
      return ScoreExplanation(
        score: values[k], terms: terms + [ScorePart("exploration", values[k] - p.mean)],
        inputs: [ScorePart("v", v), ScorePart("mean", p.mean)],
        formula: ScoreExplanation.sumOfTerms)
    }
  }
}
