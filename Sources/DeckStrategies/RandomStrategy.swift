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
package final class RandomStrategy: BuiltinStrategy {
  package static let description = StrategyDescription(
    identifier: "random",
    summary: "a seeded shuffle, the same for the same (seed, date, user) and independent otherwise",
    options: [],
    examples: [
      StrategyExample(
        "seed 42 on 2026-01-10 for u1 (pins the stream: a change of algorithm fails here)",
        items: [
          "miso-soup:soup", "oyakodon:rice", "zaru-soba:noodles", "tonkatsu:fried",
          "saba-miso:fish", "hiyayakko:side",
        ],
        expected: ["miso-soup", "zaru-soba", "tonkatsu", "oyakodon", "hiyayakko", "saba-miso"]),
      StrategyExample(
        "the history is ignored: the same diner, date and seed give the same order",
        items: [
          "miso-soup:soup", "oyakodon:rice", "zaru-soba:noodles", "tonkatsu:fried",
          "saba-miso:fish", "hiyayakko:side",
        ],
        events: ["u1 tonkatsu right 2026-01-08", "u2 miso-soup left 2026-01-09"],
        expected: ["miso-soup", "zaru-soba", "tonkatsu", "oyakodon", "hiyayakko", "saba-miso"]),
      StrategyExample(
        "another diner on the same date gets another order",
        items: [
          "miso-soup:soup", "oyakodon:rice", "zaru-soba:noodles", "tonkatsu:fried",
          "saba-miso:fish", "hiyayakko:side",
        ],
        user: "u2",
        expected: ["hiyayakko", "miso-soup", "tonkatsu", "saba-miso", "oyakodon", "zaru-soba"]),
      StrategyExample(
        "the same diner the next day gets another order",
        items: [
          "miso-soup:soup", "oyakodon:rice", "zaru-soba:noodles", "tonkatsu:fried",
          "saba-miso:fish", "hiyayakko:side",
        ],
        date: "2026-01-11",
        expected: ["saba-miso", "zaru-soba", "hiyayakko", "oyakodon", "miso-soup", "tonkatsu"]),
    ])

  package init(options: StrategyOptions) throws(StrategyError) {}

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {}

  package func score(_ context: inout ScoringContext) -> Scores {
    let candidates = context.candidates
    guard let last = candidates.max() else { return Scores([], propensities: []) }
    // One draw per catalog index up to the last candidate, so a dish's score does not depend on
    // which other dishes are candidates.
    var draws = [Double](repeating: 0, count: Int(last) + 1)
    for k in draws.indices { draws[k] = context.random.nextDouble() }
    let values = candidates.map { draws[Int($0)] }
    guard context.deck == nil else { return Scores(values) }
    let propensity = 1 / Double(candidates.count)
    return Scores(values, propensities: Array(repeating: propensity, count: candidates.count))
  }
}
