import DeckCore

/// Maximal marginal relevance (Carbonell and Goldstein, 1998) re-ranking of another strategy's
/// scores, so that a deck does not open with five rice bowls.
///
/// The `base` strategy (a built-in with its default options) scores the candidates; its scores
/// are min-max scaled to relevance in [0, 1] (all 0 when they are all equal). The order is built
/// greedily: each next card is the remaining candidate with the highest
///
///     lambda * relevance(i) - (1 - lambda) * max over already placed j of sim(i, j)
///
/// (ties: higher relevance, then catalog order); the first card is the most relevant. Dish
/// similarity is half category, half tags:
///
///     sim(i, j) = 0.5 * [same category] + 0.5 * |tags(i) & tags(j)| / |tags(i) | tags(j)|
///
/// with the Jaccard term 0 when neither dish has tags; it lies in [0, 1]. `lambda` 1 is the base
/// order; lower values trade relevance for variety. The order is returned as scores
/// `n, n - 1, ..., 1` along it. The base strategy sees the diner's context (and stream) as if it
/// ran alone.
///
/// Only the `depth` most relevant candidates (ties by catalog order) are re-ranked; the rest
/// follow them in base order. Decks are short, so the cards a diner sees come from the
/// re-ranked head, and the cost per diner stays O(depth^2 + n log n) for n candidates.
///
/// Explanation: the inputs `place` and `candidates` (the score is candidates + 1 - place), the
/// `base_score` (about the base strategy), `relevance`, `lambda`, `reranked` (1 in the head),
/// and for the head the `penalty` (its largest similarity to a card placed before it, about
/// that card) and `mmr`, lambda x relevance - (1 - lambda) x penalty, the value it was placed by;
/// then the base's own parts, named `<base>.<part>` (`popularity.likes`).
package final class DiversifyStrategy: BuiltinStrategy, ExplainingStrategy, BaseRanking {
  package static let description = StrategyDescription(
    identifier: "diversify",
    summary:
      "maximal-marginal-relevance re-ranking of a base strategy by category and tag similarity",
    options: [
      OptionSpec(
        "base", .string, default: .string("popularity"),
        "the built-in strategy whose scores are re-ranked (with its default options)"),
      OptionSpec(
        "lambda", .double, default: .double(0.5), range: 0...1,
        tuning: [.double(0.25), .double(0.5), .double(0.75), .double(1)],
        "weight of relevance against similarity to the cards already placed; 1 keeps the base order"
      ),
      OptionSpec(
        "depth", .int, default: .int(100), range: 1...100_000,
        "how many of the most relevant candidates are re-ranked; the rest keep the base order"),
    ],
    examples: [
      StrategyExample(
        "lambda 1 keeps the base (popularity) order: three rice bowls first",
        items: bowlMenu,
        events: bowlSwipes,
        options: ["lambda": "1"],
        expected: ["katsudon", "oyakodon", "gyudon", "miso-soup", "hiyayakko"]),
      StrategyExample(
        "lambda 0.5: miso soup (another category) moves up to second; hiyayakko shares its tag",
        items: bowlMenu,
        events: bowlSwipes,
        expected: ["katsudon", "miso-soup", "oyakodon", "gyudon", "hiyayakko"]),
    ])

  /// The examples' menu and swipes: three rice bowls liked 3, 2 and 1 times, miso soup (the
  /// tofu tag) liked once of twice, hiyayakko (tofu too) passed three times.
  private static let bowlMenu = [
    "katsudon:rice:pork", "oyakodon:rice:egg", "gyudon:rice:beef", "miso-soup:soup:tofu",
    "hiyayakko:side:tofu",
  ]
  private static let bowlSwipes =
    exampleSwipes("katsudon", right: 3, left: 0) + exampleSwipes("oyakodon", right: 2, left: 0)
    + exampleSwipes("gyudon", right: 1, left: 0) + exampleSwipes("miso-soup", right: 1, left: 1)
    + exampleSwipes("hiyayakko", right: 0, left: 3)

  package let base: any BuiltinStrategy
  private let lambda: Double
  private let depth: Int
  private var itemCategory: [Int32] = []
  /// Sorted tag indices per catalog item.
  private var itemTags: [[Int32]] = []
  /// The catalog's dish ids, to name the card a penalty came from.
  private var itemIDs: [String] = []

  package init(options: StrategyOptions) throws(StrategyError) {
    base = try Self.base(options)
    lambda = options.double("lambda")
    depth = options.int("depth")
  }

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {
    try learnBase(catalog: catalog, history: history)
    itemCategory = catalog.itemCategory
    itemIDs = catalog.items.map(\.id)
    itemTags = catalog.itemTags.map { Array(Set($0)).sorted() }
  }

  package func score(_ context: inout ScoringContext) -> Scores {
    Scores(scoresAlong(rerank(&context).order))
  }

  package func explain(_ context: inout ScoringContext, positions: [Int]) -> [ScoreExplanation] {
    var own = context
    own.deck = nil  // as the base scores in `rerank`
    let baseParts = componentParts(
      base, own, positions: positions, prefix: base.description.identifier)
    let r = rerank(&context)
    let n = r.order.count
    let values = scoresAlong(r.order)
    var place = [Int](repeating: 0, count: n)
    for (p, k) in r.order.enumerated() { place[k] = p }
    let baseName = base.description.identifier
    return zip(positions, baseParts).map { k, baseParts in
      let reranked = r.penalty[k] != nil
      var inputs = [
        ScorePart("place", Double(place[k] + 1)), ScorePart("candidates", Double(n)),
        ScorePart("base_score", r.values[k], about: baseName),
        ScorePart("relevance", r.relevance[k]), ScorePart("lambda", lambda),
        ScorePart("reranked", reranked ? 1 : 0),
      ]
      if let (penalty, from) = r.penalty[k] {
        inputs += [
          ScorePart(
            "penalty", penalty,
            about: from.map { itemIDs[Int(context.candidates[$0])] }),
          ScorePart("mmr", lambda * r.relevance[k] - (1 - lambda) * penalty),
        ]
      }
      return ScoreExplanation(
        score: values[k], inputs: inputs + baseParts, formula: scoreAlongFormula)
    }
  }

  /// One diner's re-ranking: the base's scores, their relevance, the order, and per candidate
  /// of the re-ranked head the penalty it was placed with (its largest similarity to a card
  /// placed before it) and that card (nil for none: the penalty is 0); nil for the tail.
  private func rerank(_ context: inout ScoringContext) -> (
    values: [Double], relevance: [Double], order: [Int], penalty: [(Double, Int?)?]
  ) {
    let candidates = context.candidates
    precondition(
      candidates.allSatisfy { Int($0) < itemCategory.count },
      "diversify: score called before learn, or with a candidate outside the learned catalog")
    // The base's scores only (its propensities would not be of this order): without the deck
    // rules, which a stochastic base would otherwise build decks with for nothing.
    let deck = context.deck
    context.deck = nil
    let values = base.score(&context).values
    context.deck = deck
    let n = values.count
    let low = values.min() ?? 0
    let high = values.max() ?? 0
    let relevance = values.map { high > low ? ($0 - low) / (high - low) : 0 }
    // The head to re-rank, in relevance order (so ties below resolve by catalog order).
    let byRelevance = (0..<n).sorted {
      relevance[$0] != relevance[$1] ? relevance[$0] > relevance[$1] : $0 < $1
    }
    var remaining = Array(byRelevance.prefix(depth)).sorted()
    var maxSimilarity = [Double](repeating: 0, count: n)
    var penalty = [(Double, Int?)?](repeating: nil, count: n)
    var mostSimilar = [Int?](repeating: nil, count: n)
    var order: [Int] = []
    order.reserveCapacity(n)
    while !remaining.isEmpty {
      var best = 0
      var bestValue = -Double.infinity
      for (r, k) in remaining.enumerated() {
        let value = lambda * relevance[k] - (1 - lambda) * maxSimilarity[k]
        let b = remaining[best]
        if value > bestValue || (value == bestValue && relevance[k] > relevance[b]) {
          best = r
          bestValue = value
        }
      }
      let placed = remaining.remove(at: best)
      order.append(placed)
      penalty[placed] = (maxSimilarity[placed], mostSimilar[placed])
      for k in remaining {
        let s = similarity(candidates[placed], candidates[k])
        if s > maxSimilarity[k] {
          maxSimilarity[k] = s
          mostSimilar[k] = placed
        }
      }
    }
    order.append(contentsOf: byRelevance.dropFirst(depth))
    return (values, relevance, order, penalty)
  }

  /// 0.5 x same category + 0.5 x Jaccard similarity of the tag sets (0 when both are empty).
  func similarity(_ a: Int32, _ b: Int32) -> Double {
    let sameCategory = itemCategory[Int(a)] == itemCategory[Int(b)] ? 0.5 : 0
    let ta = itemTags[Int(a)]
    let tb = itemTags[Int(b)]
    guard !ta.isEmpty || !tb.isEmpty else { return sameCategory }
    var i = 0
    var j = 0
    var shared = 0
    while i < ta.count && j < tb.count {
      if ta[i] == tb[j] {
        shared += 1
        i += 1
        j += 1
      } else if ta[i] < tb[j] {
        i += 1
      } else {
        j += 1
      }
    }
    return sameCategory + 0.5 * Double(shared) / Double(ta.count + tb.count - shared)
  }
}
