import DeckBase
import DeckCore

/// UCB1 (Auer, Cesa-Bianchi and Fischer, 2002) on each dish's pick rate over all diners: the
/// observed rate plus a bonus that shrinks as the dish is shown more.
///
/// A dish picked `r` times out of `n` showings, in a history of `N` showings of all dishes,
/// scores
///
///     r / n + exploration * sqrt(ln(N) / n)
///
/// (`exploration` = sqrt(2) is the classic UCB1). In theory a dish never shown has an infinite
/// bound; here it scores `2 + exploration * sqrt(ln(max(N, 1)))`, which is finite (the deck
/// pipeline refuses non-finite scores) yet above any shown dish, whose score is at most
/// `1 + exploration * sqrt(ln(N))`. Never-shown dishes tie, so the deck keeps them in catalog
/// order. Deterministic and the same for every diner.
///
/// Explanation: the terms `rate` (r / n; `unshown`, 2, for a dish never shown) and `bonus`,
/// which sum to the score, and the inputs `likes`, `shown`, `all_shown` (N) and `exploration`.
package final class UCBStrategy: BuiltinStrategy, ExplainingStrategy {
  package static let description = StrategyDescription(
    identifier: "ucb",
    summary:
      "UCB1: pick rate + exploration * sqrt(ln(all showings) / showings); unshown dishes first",
    options: [
      OptionSpec(
        "exploration", .double, default: .double(2.0.squareRoot()), range: 0...1000,
        tuning: [.double(0), .double(0.5), .double(2.0.squareRoot()), .double(3)],
        "weight c of the confidence bonus c * sqrt(ln N / n); sqrt(2) is classic UCB1, 0 is greedy"
      )
    ],
    examples: [
      catalogOrderExample(
        "with no history every dish is unshown and ties, so catalog order stands"),
      StrategyExample(
        "never shown comes first, even before 5 picks of 5; then 1 of 1 (bonus) before 5 of 5",
        items: ["oyakodon:rice", "zaru-soba:noodles", "miso-soup:soup"],
        events: exampleSwipes("zaru-soba", right: 5, left: 0)
          + exampleSwipes("oyakodon", right: 1, left: 0),
        expected: ["miso-soup", "oyakodon", "zaru-soba"]),
      StrategyExample(
        "3 of 4 outranks 9 of 10: 0.75 + 1.149 against 0.9 + 0.727 (N = 14)",
        items: ["oyakodon:rice", "zaru-soba:noodles"],
        events: nineOfTenThreeOfFour,
        expected: ["zaru-soba", "oyakodon"]),
      StrategyExample(
        "exploration 0 is greedy on the observed rate: 9 of 10 beats 3 of 4",
        items: ["oyakodon:rice", "zaru-soba:noodles"],
        events: nineOfTenThreeOfFour,
        options: ["exploration": "0"],
        expected: ["oyakodon", "zaru-soba"]),
    ])

  /// Oyakodon liked 9 of 10 times, zaru-soba 3 of 4 (N = 14).
  private static let nineOfTenThreeOfFour =
    exampleSwipes("oyakodon", right: 9, left: 1) + exampleSwipes("zaru-soba", right: 3, left: 1)

  private let exploration: Double
  /// Score per catalog item, from the last `learn`.
  private var bounds: [Double] = []
  /// Right swipes and showings per catalog item, all showings N and ln N (0 for N <= 1).
  private var rights: [Double] = []
  private var shown: [Double] = []
  private var allShown = 0.0
  private var logTotal = 0.0

  package init(options: StrategyOptions) throws(StrategyError) {
    exploration = options.double("exploration")
  }

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {
    try PopularityStrategy.checkCoverage(
      catalog: catalog, history: history, strategy: Self.description.identifier)
    var total = 0.0
    for i in 0..<history.itemCount { total += Double(history.shown(Int32(i))) }
    allShown = total
    logTotal = total > 1 ? log(total) : 0
    rights = history.itemRight.map(Double.init)
    shown = (0..<history.itemCount).map { Double(history.shown(Int32($0))) }
    bounds = shown.indices.map {
      let (rate, bonus) = bound($0)
      return rate + bonus
    }
  }

  /// A dish's bound as its two terms: the observed rate r / n (2 for a dish never shown) and
  /// the bonus exploration * sqrt(ln N / n) (exploration * sqrt(ln N) for one never shown).
  @inline(__always)
  private func bound(_ i: Int) -> (rate: Double, bonus: Double) {
    let n = shown[i]
    guard n > 0 else { return (2, exploration * logTotal.squareRoot()) }
    return (rights[i] / n, exploration * (logTotal / n).squareRoot())
  }

  package func score(_ context: inout ScoringContext) -> Scores {
    guard let scores = gatherScores(bounds, at: context.candidates) else {
      preconditionFailure(
        "ucb: score called before learn, or with a candidate outside the learned catalog")
    }
    return Scores(scores)
  }

  package func explain(_ context: inout ScoringContext, positions: [Int]) -> [ScoreExplanation] {
    positions.map { k in
      let i = Int(context.candidates[k])
      let (rate, bonus) = bound(i)
      return ScoreExplanation(
        score: bounds[i],
        terms: [ScorePart(shown[i] > 0 ? "rate" : "unshown", rate), ScorePart("bonus", bonus)],
        inputs: [
          ScorePart("likes", rights[i]), ScorePart("shown", shown[i]),
          ScorePart("all_shown", allShown), ScorePart("exploration", exploration),
        ],
        formula: ScoreExplanation.sumOfTerms)
    }
  }
}
