import DeckCore

/// Ranks dishes by how often all diners picked them, smoothed with a Beta prior.
///
/// A dish swiped right `r` times out of `n` showings scores the posterior mean of its pick rate
/// under a Beta(`prior_likes`, `prior_passes`) prior:
///
///     (r + prior_likes) / (n + prior_likes + prior_passes)
///
/// With the default Beta(1, 1) (Laplace's rule) a dish never shown scores 1/2, one picked 1 of 1
/// scores 2/3 and one picked 8 of 10 scores 3/4: a single lucky swipe does not outrank a dish with
/// a long record. The posterior mean is the expected pick probability, which is what a deck that
/// wants picks should sort by; to be more cautious about dishes with few showings, raise
/// `prior_passes` (a pessimistic prior) rather than switching to a lower bound. The score is
/// the same for every diner; with no history every dish ties and the deck keeps catalog order.
package final class PopularityStrategy: BuiltinStrategy {
  package static let description = StrategyDescription(
    identifier: "popularity",
    summary:
      "dishes by pick rate over all diners: (right + prior_likes) / (shown + prior_likes + prior_passes)",
    options: [
      OptionSpec(
        "prior_likes", .double, default: .double(1), range: 0...1_000_000,
        "pseudo right swipes every dish starts with (the Beta prior's alpha)"),
      OptionSpec(
        "prior_passes", .double, default: .double(1), range: 0...1_000_000,
        tuning: [.double(1), .double(10), .double(100), .double(1000)],
        "pseudo left swipes every dish starts with (the Beta prior's beta); raise it to trust "
          + "dishes shown only a few times less"),
    ],
    examples: [
      StrategyExample(
        "with no history every dish scores 1/2, so catalog order stands",
        items: ["miso-soup:soup", "oyakodon:rice", "zaru-soba:noodles"],
        expected: ["miso-soup", "oyakodon", "zaru-soba"]),
      StrategyExample(
        "8 picks of 10 (9/12) beat 1 of 1 (2/3); never shown (1/2) beats 0 of 3 (1/5)",
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
        expected: ["zaru-soba", "oyakodon", "miso-soup", "tonjiru"]),
      StrategyExample(
        "a weak prior (0.1, 0.1) is close to the raw rate: 1 of 1 now beats 8 of 10",
        items: ["oyakodon:rice", "zaru-soba:noodles"],
        events: [
          "u2 oyakodon right 2026-01-05",
          "u1 zaru-soba right 2026-01-01", "u2 zaru-soba right 2026-01-01",
          "u3 zaru-soba right 2026-01-02", "u4 zaru-soba right 2026-01-02",
          "u1 zaru-soba right 2026-01-03", "u2 zaru-soba right 2026-01-03",
          "u3 zaru-soba right 2026-01-04", "u4 zaru-soba right 2026-01-04",
          "u1 zaru-soba left 2026-01-05", "u2 zaru-soba left 2026-01-06",
        ],
        options: ["prior_likes": "0.1", "prior_passes": "0.1"],
        expected: ["oyakodon", "zaru-soba"]),
    ])

  private let priorLikes: Double
  private let priorPasses: Double
  /// Score per catalog item, from the last `learn`.
  private var rates: [Double] = []

  package init(options: StrategyOptions) throws(StrategyError) {
    priorLikes = options.double("prior_likes")
    priorPasses = options.double("prior_passes")
    try Self.checkPrior(likes: priorLikes, passes: priorPasses, strategy: options.strategy)
  }

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {
    try Self.checkCoverage(
      catalog: catalog, history: history, strategy: Self.description.identifier)
    rates = Self.pickRates(history, priorLikes: priorLikes, priorPasses: priorPasses)
  }

  package func score(_ context: inout ScoringContext) -> Scores {
    precondition(
      context.candidates.allSatisfy { Int($0) < rates.count },
      "popularity: score called before learn, or with a candidate outside the learned catalog")
    return Scores(context.candidates.map { rates[Int($0)] })
  }

  // MARK: - Shared with AffinityStrategy

  /// The smoothed pick rate of every item: (right + likes) / (shown + likes + passes).
  static func pickRates(_ history: History, priorLikes: Double, priorPasses: Double) -> [Double] {
    let prior = priorLikes + priorPasses
    var rates = [Double](repeating: 0, count: history.itemCount)
    for i in 0..<history.itemCount {
      let right = Double(history.itemRight[i])
      let shown = right + Double(history.itemLeft[i])
      rates[i] = (right + priorLikes) / (shown + prior)
    }
    return rates
  }

  /// A Beta prior needs some weight, or a dish never shown would score 0 / 0.
  static func checkPrior(likes: Double, passes: Double, strategy: String) throws(StrategyError) {
    guard likes + passes > 0 else {
      throw .invalidOption(
        strategy: strategy, key: "prior_passes", value: String(passes),
        expected: "above 0 when prior_likes is 0 (a dish never shown would score 0/0)")
    }
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
