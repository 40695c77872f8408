import DeckCore

/// Thompson sampling with a Beta-Bernoulli model per dish: each diner's deck on each date ranks
/// dishes by one draw from each dish's posterior pick rate.
///
/// A dish swiped right `r` times and left `l` times over all diners has the posterior
/// Beta(`r + a`, `l + b`) under the prior Beta(a, b): by default (`prior=fitted`) the prior fitted
/// to every dish's swipes when the strategy learns (empirical Bayes, see `FittedPrior`), so that
/// a dish with few showings is drawn from the spread of pick rates the dishes really show; with
/// `prior=fixed` (or `prior_likes`/`prior_passes` given) Beta(`prior_likes`, `prior_passes`). For every (diner, date) the strategy draws one
/// sample per dish from the diner's own random stream (derived from seed, date and user id) and
/// scores the dish with it. Dishes with a long good record almost always come first; dishes with
/// few showings spread widely, so different diners see them at different depths and the ones that
/// do well rise (exploration in proportion to the chance of being the best).
///
/// The k-th sample of the stream belongs to the dish at catalog index k, whichever dishes are
/// candidates, so holding a dish back leaves the others' scores unchanged. Beta draws are
/// X / (X + Y) with X, Y Gamma draws by Marsaglia and Tsang's method, computed in log space.
/// A "ts-warm" configuration with prior (2, 8) starts every dish at a 20% expected pick rate.
///
/// Explanation: the input `draw` (the score), the posterior's `alpha` and `beta`, and the
/// `likes`, `passes`, `prior_a` and `prior_b` they are made of.
package final class ThompsonStrategy: BuiltinStrategy, ExplainingStrategy {
  package static let description = StrategyDescription(
    identifier: "thompson",
    summary:
      "one draw per dish from its Beta(right + a, left + b) posterior, Beta(a, b) fitted or fixed",
    options: PriorChoice.options("every dish starts with"),
    examples: [
      StrategyExample(
        "seed 42 on 2026-01-10 for u1 with no history (pins the sampler: a change fails here)",
        items: exampleMenu,
        expected: ["miso-soup", "oyakodon", "tonkatsu", "zaru-soba"]),
      StrategyExample(
        "another diner the same day draws again: an unproven dish can come first",
        items: exampleMenu,
        user: "u2",
        expected: ["tonkatsu", "miso-soup", "zaru-soba", "oyakodon"]),
      StrategyExample(
        "a long record decides: 40 of 40 picked beats 20 of 40 beats 0 of 40",
        items: ["oyakodon:rice", "zaru-soba:noodles", "tonkatsu:fried"],
        events: exampleSwipes("tonkatsu", right: 40, left: 0)
          + exampleSwipes("zaru-soba", right: 20, left: 20)
          + exampleSwipes("oyakodon", right: 0, left: 40),
        expected: ["tonkatsu", "zaru-soba", "oyakodon"]),
      StrategyExample(
        "a warm prior (2, 8) with a strong record: 9 of 10 beats 1 of 10",
        items: ["oyakodon:rice", "zaru-soba:noodles"],
        events: exampleSwipes("oyakodon", right: 1, left: 9)
          + exampleSwipes("zaru-soba", right: 9, left: 1),
        options: ["prior_likes": "2", "prior_passes": "8"],
        expected: ["zaru-soba", "oyakodon"]),
    ])

  private var prior: LearnedPrior
  /// Posterior (alpha, beta) per catalog item, from the last `learn`.
  private var alpha: [Double] = []
  private var beta: [Double] = []
  /// The counts and the prior of the posteriors, for `explain`.
  private var rights: [Double] = []
  private var lefts: [Double] = []
  private var learnedPrior = BetaPrior.laplace

  package init(options: StrategyOptions) throws(StrategyError) {
    prior = try LearnedPrior(options)
  }

  package var fitted: [FittedValue] { prior.fitted }

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {
    let prior = try self.prior.learn(
      history, catalog: catalog, strategy: Self.description.identifier)
    learnedPrior = prior
    rights = history.itemRight.map(Double.init)
    lefts = history.itemLeft.map(Double.init)
    alpha = rights.map { $0 + prior.likes }
    beta = lefts.map { $0 + prior.passes }
  }

  package func score(_ context: inout ScoringContext) -> Scores {
    Scores(samples(&context))
  }

  package func explain(_ context: inout ScoringContext, positions: [Int]) -> [ScoreExplanation] {
    let samples = samples(&context)
    return positions.map { k in
      let i = Int(context.candidates[k])
      return ScoreExplanation(
        score: samples[k],
        inputs: [
          ScorePart("draw", samples[k]), ScorePart("alpha", alpha[i]), ScorePart("beta", beta[i]),
          ScorePart("likes", rights[i]), ScorePart("passes", lefts[i]),
          ScorePart("prior_a", learnedPrior.likes), ScorePart("prior_b", learnedPrior.passes),
        ],
        formula: "draw ~ Beta(alpha, beta), alpha = likes + prior_a, beta = passes + prior_b")
    }
  }

  /// Each candidate's draw: one sample per catalog index up to the last candidate, in index
  /// order, so a dish's sample does not depend on which other dishes are candidates.
  private func samples(_ context: inout ScoringContext) -> [Double] {
    let candidates = context.candidates
    precondition(
      candidates.allSatisfy { Int($0) < alpha.count },
      "thompson: score called before learn, or with a candidate outside the learned catalog")
    guard let last = candidates.max() else { return [] }
    var samples = [Double](repeating: 0, count: Int(last) + 1)
    for i in samples.indices {
      samples[i] = context.random.nextBeta(alpha: alpha[i], beta: beta[i])
    }
    return candidates.map { samples[Int($0)] }
  }
}
