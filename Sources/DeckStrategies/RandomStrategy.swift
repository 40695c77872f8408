import DeckCore

/// A seeded shuffle: every dish gets a uniform draw in [0, 1) from the diner's own random stream,
/// which is derived from (seed, deck date, user id) only.
///
/// The k-th draw of the stream belongs to the dish at catalog index k, whichever dishes are
/// candidates, so holding one dish back (an allergen, a cooldown) leaves the relative order of the
/// others unchanged. The same seed, date and diner always give the same order; another date or
/// diner gives an independent one. The history is ignored.
///
/// Propensities: every candidate is equally likely at every position of the shuffle, so when the
/// deck rules keep its order (`ScoringContext.deck` is nil) each card carries exactly
/// 1 / (number of candidates). When the rules can move cards (pins, recently shown dishes,
/// category caps, spacing), that figure would be wrong for the slot a card ends up in, so there
/// is none: `plackett-luce` at a high temperature is a near-uniform ranking that knows the
/// propensities of the deck's slots.
///
/// Under rules that keep its order the scores also carry its distribution over orders,
/// `RankingPolicy.uniform` (when the context `wantsPolicy`), and always the prefix
/// propensities: the card at position k (1-based) of n candidates carries
/// 1 / (n (n - 1) ... (n - k + 1)), the probability of the first k cards in their order. Why
/// every order of the candidates is equally likely: the candidates' draws are independent and
/// identically distributed (uniform on the same 2^-53 grid), whichever catalog indices they
/// belong to, as each index has its own draw of the stream. Their joint distribution is then
/// unchanged by any permutation of the candidates, so every strict order of the draws has the
/// same probability, 1 / n!. Only ties, of probability below n^2 2^-54, depart from that: they
/// go by candidate order, as in the deck. Neither figure takes a draw.
///
/// Explanation: the input `draw`, the candidate's uniform (the score itself), and
/// `stream_index`, the catalog index k whose draw of the stream it is.
package final class RandomStrategy: BuiltinStrategy, ExplainingStrategy {
  package static let description = StrategyDescription(
    identifier: "random",
    summary: "a seeded shuffle, the same for the same (seed, date, user) and independent otherwise",
    options: [],
    examples: [
      StrategyExample(
        "seed 42 on 2026-01-10 for u1 (pins the stream: a change of algorithm fails here)",
        items: exampleMenu + ["saba-miso:fish", "hiyayakko:side"],
        expected: ["miso-soup", "zaru-soba", "tonkatsu", "oyakodon", "hiyayakko", "saba-miso"]),
      StrategyExample(
        "the history is ignored: the same diner, date and seed give the same order",
        items: exampleMenu + ["saba-miso:fish", "hiyayakko:side"],
        events: ["u1 tonkatsu right 2026-01-08", "u2 miso-soup left 2026-01-09"],
        expected: ["miso-soup", "zaru-soba", "tonkatsu", "oyakodon", "hiyayakko", "saba-miso"]),
      StrategyExample(
        "another diner on the same date gets another order",
        items: exampleMenu + ["saba-miso:fish", "hiyayakko:side"],
        user: "u2",
        expected: ["hiyayakko", "miso-soup", "tonkatsu", "saba-miso", "oyakodon", "zaru-soba"]),
      StrategyExample(
        "the same diner the next day gets another order",
        items: exampleMenu + ["saba-miso:fish", "hiyayakko:side"],
        date: "2026-01-11",
        expected: ["saba-miso", "zaru-soba", "hiyayakko", "oyakodon", "miso-soup", "tonkatsu"]),
    ])

  package init(options: StrategyOptions) throws(StrategyError) {}

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {}

  package func score(_ context: inout ScoringContext) -> Scores {
    let candidates = context.candidates
    let policy = RankingPolicy.uniform(count: candidates.count)
    let wanted = context.deck == nil && context.wantsPolicy ? policy : nil
    let values = Self.draws(&context)
    guard !values.isEmpty else { return Scores([], propensities: [], policy: wanted) }
    guard context.deck == nil else { return Scores(values) }
    let propensity = 1 / Double(candidates.count)
    // The shuffle's order, as the deck takes it: by draw, ties by candidate order.
    let order = values.indices.sorted {
      values[$0] != values[$1] ? values[$0] > values[$1] : $0 < $1
    }
    let prefix = policy.prefixProbabilities(order)
    var prefixPropensities = [Double](repeating: 0, count: candidates.count)
    for (p, k) in order.enumerated() { prefixPropensities[k] = prefix[p] }
    return Scores(
      values, propensities: Array(repeating: propensity, count: candidates.count),
      prefixPropensities: prefixPropensities, policy: wanted)
  }

  package func explain(_ context: inout ScoringContext, positions: [Int]) -> [ScoreExplanation] {
    let draws = Self.draws(&context)
    return positions.map { k in
      ScoreExplanation(
        score: draws[k],
        inputs: [
          ScorePart("draw", draws[k]), ScorePart("stream_index", Double(context.candidates[k])),
        ],
        formula: "draw")
    }
  }

  /// Each candidate's draw: one draw per catalog index up to the last candidate, so a dish's
  /// score does not depend on which other dishes are candidates.
  private static func draws(_ context: inout ScoringContext) -> [Double] {
    guard let last = context.candidates.max() else { return [] }
    var draws = [Double](repeating: 0, count: Int(last) + 1)
    for k in draws.indices { draws[k] = context.random.nextDouble() }
    return context.candidates.map { draws[Int($0)] }
  }
}
