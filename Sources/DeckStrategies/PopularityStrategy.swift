import DeckCore

/// Ranks dishes by how often all diners picked them, smoothed with a Beta prior.
///
/// A dish swiped right `r` times out of `n` showings scores the posterior mean of its pick rate
/// under a Beta(a, b) prior:
///
///     (r + a) / (n + a + b)
///
/// By default (`prior=fitted`) a and b are fitted to every dish's swipes each time the strategy
/// learns: the maximum of the beta-binomial marginal likelihood (`FittedPrior`), so that the
/// prior is the spread of pick rates the dishes really show, and a dish with few showings is
/// pulled toward what dishes are usually like, as far as the data say dishes differ. With
/// `prior=fixed` (or `prior_likes`/`prior_passes` given) it is Beta(`prior_likes`,
/// `prior_passes`); Beta(1, 1) (Laplace's rule) makes a dish never shown score 1/2, one picked
/// 1 of 1 score 2/3 and one picked 8 of 10 score 3/4. The posterior mean is the expected pick
/// probability of a showing, which is what a deck that chooses what diners see should sort by;
/// to be more cautious about dishes with few showings, raise `prior_passes` (a pessimistic
/// prior) rather than switching to a lower bound.
///
/// With `per=diner` the score is instead the chance that a diner of the history picks the dish:
/// of the D diners with a swipe, `l` liked it (swiped it right at least once), and the score is
/// the posterior mean (l + a) / (D + a + b), the prior fitted to those counts of every dish with
/// a swipe (or fixed). That is the quantity to rank by when the diners themselves chose what to
/// swipe (ratings data, where a rating says the diner sought the dish out). D is the same for
/// every dish, so the order is that of the count of likers whatever the prior, ties in catalog
/// order: the most-popular count of the recommender literature.
///
/// The score is the same for every diner; with no history every dish ties and the deck keeps
/// catalog order.
///
/// Explanation: the inputs `likes` and `shown` (per=diner: `likers` and `diners`), `prior_a`
/// and `prior_b`, with the formula `(likes + prior_a) / (shown + prior_a + prior_b)`.
package final class PopularityStrategy: BuiltinStrategy, ExplainingStrategy {
  package static let description = StrategyDescription(
    identifier: "popularity",
    summary: "pick rate over all diners, (right + a) / (shown + a + b), with a Beta(a, b) prior "
      + "fitted or fixed",
    options: PriorChoice.options("every dish starts with") + [
      OptionSpec(
        "per", .string, default: .string("showing"),
        tuning: [.string("showing"), .string("diner")],
        "showing: the pick rate of a showing; diner: the chance that a diner picks the dish, "
          + "(likers + a) / (diners + a + b), for logs where diners chose what to rate")
    ],
    examples: [
      catalogOrderExample("with no history every dish scores 1/2, so catalog order stands"),
      StrategyExample(
        "fitted: 4 dishes each swiped twice (2, 2, 1, 0 right) fit Beta(5/7, 3/7); never shown "
          + "(5/8) beats 1 of 2 ((1 + 5/7) / (2 + 8/7) = 6/11), below 2 of 2 (19/22)",
        items: [
          "tonkatsu:fried", "zaru-soba:noodles", "oyakodon:rice", "miso-soup:soup",
          "tonjiru:soup",
        ],
        events: exampleSwipes("tonkatsu", right: 2, left: 0)
          + exampleSwipes("zaru-soba", right: 2, left: 0)
          + exampleSwipes("oyakodon", right: 1, left: 1)
          + exampleSwipes("tonjiru", right: 0, left: 2),
        expected: ["tonkatsu", "zaru-soba", "miso-soup", "oyakodon", "tonjiru"]),
      StrategyExample(
        "fixed Beta(1, 1): 8 picks of 10 (9/12) beat 1 of 1 (2/3); never shown (1/2) beats 0 of "
          + "3 (1/5)",
        items: ["miso-soup:soup", "oyakodon:rice", "zaru-soba:noodles", "tonjiru:soup"],
        events: [
          "u2 oyakodon right 2026-01-05",
          "u1 zaru-soba right 2026-01-01", "u2 zaru-soba right 2026-01-01",
          "u3 zaru-soba right 2026-01-02", "u4 zaru-soba right 2026-01-02",
          "u1 zaru-soba right 2026-01-03", "u2 zaru-soba right 2026-01-03",
          "u3 zaru-soba right 2026-01-04", "u4 zaru-soba right 2026-01-04",
          "u1 zaru-soba left 2026-01-05", "u2 zaru-soba left 2026-01-06",
          "u1 tonjiru left 2026-01-02", "u2 tonjiru left 2026-01-03",
          "u3 tonjiru left 2026-01-04",
        ],
        options: ["prior": "fixed"],
        expected: ["zaru-soba", "oyakodon", "miso-soup", "tonjiru"]),
      StrategyExample(
        "per=diner, fixed Beta(1, 1): 6 likers among 11 diners (7/13) beat 1 (2/13), which the "
          + "pick rate of a showing puts first (1 of 1 against 6 of 10)",
        items: ["oyakodon:rice", "zaru-soba:noodles"],
        events: ["u2 oyakodon right 2026-01-05"] + exampleSwipes("zaru-soba", right: 6, left: 4),
        options: ["per": "diner", "prior": "fixed"],
        expected: ["zaru-soba", "oyakodon"]),
    ])

  private var prior: LearnedPrior
  /// Whether the score is the expected picks per diner (else the pick rate of a showing).
  private let perDiner: Bool
  /// Score per catalog item, from the last `learn`.
  private var rates: [Double] = []
  /// The counts and the prior each rate came from (right swipes and showings per dish, or
  /// likers and diners with `per=diner`), from the last `learn`, for `explain`.
  private var hits: [Double] = []
  private var trials: [Double] = []
  private var learnedPrior = BetaPrior.laplace

  package init(options: StrategyOptions) throws(StrategyError) {
    prior = try LearnedPrior(options)
    switch options.string("per") {
    case "showing": perDiner = false
    case "diner": perDiner = true
    case let other:
      throw .invalidOption(
        strategy: options.strategy, key: "per", value: other, expected: "showing or diner")
    }
  }

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {
    try Self.checkCoverage(
      catalog: catalog, history: history, strategy: Self.description.identifier)
    guard perDiner else {
      learnedPrior = self.prior.learn(history)
      rates = Self.pickRates(history, prior: learnedPrior)
      hits = history.itemRight.map(Double.init)
      trials = (0..<history.itemCount).map {
        Double(history.itemRight[$0]) + Double(history.itemLeft[$0])
      }
      return
    }
    // The chance that a diner picks the dish: its likers among the diners with a swipe.
    let likers = Self.likers(history)
    let diners = Int32(clamping: history.users.count)
    var fitLikers: [Int32] = []
    var fitOthers: [Int32] = []
    for i in 0..<history.itemCount where history.itemRight[i] > 0 || history.itemLeft[i] > 0 {
      fitLikers.append(likers[i])
      fitOthers.append(diners - likers[i])
    }
    learnedPrior = self.prior.learn(right: fitLikers, left: fitOthers)
    hits = likers.map(Double.init)
    trials = [Double](repeating: Double(diners), count: likers.count)
    rates = hits.map { Self.rate($0, of: Double(diners), prior: learnedPrior) }
  }

  /// Per catalog dish, the diners who swiped it right at least once.
  private static func likers(_ history: History) -> [Int32] {
    var likers = [Int32](repeating: 0, count: history.itemCount)
    for user in history.userIDs {
      for record in history.users[user]!.records where record.right > 0 {
        likers[Int(record.item)] += 1
      }
    }
    return likers
  }

  package var fitted: [FittedValue] { prior.fitted }

  package func score(_ context: inout ScoringContext) -> Scores {
    guard let scores = gatherScores(rates, at: context.candidates) else {
      preconditionFailure(
        "popularity: score called before learn, or with a candidate outside the learned catalog")
    }
    return Scores(scores)
  }

  package func explain(_ context: inout ScoringContext, positions: [Int]) -> [ScoreExplanation] {
    let (likes, shown) = perDiner ? ("likers", "diners") : ("likes", "shown")
    return positions.map { k in
      let i = Int(context.candidates[k])
      return ScoreExplanation(
        score: rates[i],
        inputs: [
          ScorePart(likes, hits[i]), ScorePart(shown, trials[i]),
          ScorePart("prior_a", learnedPrior.likes), ScorePart("prior_b", learnedPrior.passes),
        ],
        formula: "(\(likes) + prior_a) / (\(shown) + prior_a + prior_b)")
    }
  }

  // MARK: - Shared with AffinityStrategy

  /// `pickRates(_:prior:)` with a fixed Beta(`priorLikes`, `priorPasses`).
  static func pickRates(_ history: History, priorLikes: Double, priorPasses: Double) -> [Double] {
    pickRates(history, prior: BetaPrior(likes: priorLikes, passes: priorPasses))
  }

  /// The smoothed pick rate of every item: (right + likes) / (shown + likes + passes).
  static func pickRates(_ history: History, prior: BetaPrior) -> [Double] {
    (0..<history.itemCount).map {
      let right = Double(history.itemRight[$0])
      return rate(right, of: right + Double(history.itemLeft[$0]), prior: prior)
    }
  }

  /// The posterior mean of a rate with `hits` of `trials` under `prior`:
  /// (hits + likes) / (trials + likes + passes).
  @inline(__always)
  static func rate(_ hits: Double, of trials: Double, prior: BetaPrior) -> Double {
    (hits + prior.likes) / (trials + prior.weight)
  }

  /// The history must count swipes for exactly the catalog's items.
  static func checkCoverage(catalog: Catalog, history: History, strategy: String)
    throws(StrategyError)
  {
    guard history.itemCount == catalog.count else {
      throw .failed(
        strategy: strategy,
        message:
          "the history covers \(history.itemCount) items but the catalog has \(catalog.count); "
          + "build the history from this catalog")
    }
  }
}
