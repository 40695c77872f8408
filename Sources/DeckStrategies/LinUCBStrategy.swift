import DeckBase
import DeckCore

/// LinUCB (Li, Chu, Langford and Schapire, 2010): a ridge regression of the swipes (right = 1,
/// left = 0) on the features of the diner and the dish (`FeatureEncoding`), ranking by the
/// upper confidence bound
///
///     mean + alpha * sqrt(s)
///
/// where mean and s are the fitted model's prediction and its variance (`LinearBanditModel`:
/// the hybrid model of the paper's Algorithm 2 by default, or `model=disjoint`, one ridge
/// regression per dish over the diner features, which is Open Bandit Pipeline's `LinUCB`).
/// The model after day d uses every swipe up to d: `learn` fits it once to the history up to
/// the deck date, which is what updating it day by day in batches gives (every statistic is a
/// sum of counts). A dish with no swipes is scored from its features by the shared part: a new
/// noodle dish starts where the noodle dishes stand. Deterministic; ties in catalog order.
package final class LinUCBStrategy: BuiltinStrategy, ExplainingStrategy {
  package static let description = StrategyDescription(
    identifier: "linucb",
    summary:
      "ridge regression of swipes on dish and diner features + alpha * its standard error",
    options: [
      OptionSpec(
        "alpha", .double, default: .double(0.2), range: 0...1000,
        tuning: [.double(0), .double(0.1), .double(0.2), .double(0.5), .double(1)],
        "the width of the confidence bound: mean + alpha * sqrt(variance); 0 is greedy")
    ] + LinearBanditCore.options,
    examples: [
      catalogOrderExample("with no history every dish has the same features' worth and ties"),
      StrategyExample(
        "cold start: kake-soba (no swipes, a noodle dish) comes before katsu-curry (no swipes, "
          + "fried, like tonkatsu which was passed 6 times); zaru-soba (liked 6 times) first",
        items: LinearBanditCore.exampleMenu, events: LinearBanditCore.exampleLikes,
        options: ["alpha": "0.1", "model": "hybrid", "lambda": "1"],
        expected: ["zaru-soba", "kake-soba", "katsu-curry", "tonkatsu"]),
      StrategyExample(
        "a wide bound (alpha 3, lambda 1) puts the unswiped dishes first, in catalog order",
        items: LinearBanditCore.exampleMenu, events: LinearBanditCore.exampleLikes,
        options: ["alpha": "3", "model": "hybrid", "lambda": "1"],
        expected: ["kake-soba", "katsu-curry", "zaru-soba", "tonkatsu"]),
      StrategyExample(
        "disjoint: no shared part, so the two new dishes tie (catalog order) whatever their "
          + "category",
        items: LinearBanditCore.exampleMenu, events: LinearBanditCore.exampleLikes,
        options: ["alpha": "0.1", "model": "disjoint"],
        expected: ["zaru-soba", "katsu-curry", "kake-soba", "tonkatsu"]),
    ])

  private let alpha: Double
  private var core: LinearBanditCore

  package init(options: StrategyOptions) throws(StrategyError) {
    alpha = options.double("alpha")
    core = try LinearBanditCore(options)
  }

  package func prepare(profiles: [UserProfile]) { core.prepare(profiles: profiles) }

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {
    try core.learn(
      catalog: catalog, history: history, strategy: Self.description.identifier, factors: false)
  }

  package func score(_ context: inout ScoringContext) -> Scores {
    let model = core.fitted(Self.description.identifier)
    let x = model.encoding.diner(context.user)
    let view = model.dinerView(id: context.user.id, history: context.userHistory)
    return Scores(
      context.candidates.map { item in
        let p = model.predict(x: x, item: Int(item), diner: view)
        return p.mean + alpha * p.variance.squareRoot()
      })
  }

  /// Terms: one "feature" per cross of the dish's and the diner's features that a swipe
  /// touched (its beta) and per diner feature of the dish's own part (theta_a), then
  /// "exploration", alpha * sqrt(s); inputs: "alpha" and "width" (sqrt(s)).
  package func explain(_ context: inout ScoringContext, positions: [Int]) -> [ScoreExplanation] {
    let model = core.fitted(Self.description.identifier)
    let x = model.encoding.diner(context.user)
    let view = model.dinerView(id: context.user.id, history: context.userHistory)
    return positions.map { k in
      let item = Int(context.candidates[k])
      let p = model.predict(x: x, item: item, diner: view)
      let width = p.variance.squareRoot()
      let terms = LinearBanditCore.featureTerms(
        p, model: model, dish: model.encoding.itemIDs[item],
        diner: context.user.id)
      return ScoreExplanation(
        score: p.mean + alpha * width,
        terms: terms + [ScorePart("exploration", alpha * width)],
        inputs: [ScorePart("alpha", alpha), ScorePart("width", width)],
        formula: ScoreExplanation.sumOfTerms)
    }
  }
}
