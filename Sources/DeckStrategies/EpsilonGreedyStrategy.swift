import DeckCore

/// Epsilon-greedy over popularity: card by card, usually the most popular dish left, sometimes
/// (with probability `epsilon`) a dish chosen uniformly among those left.
///
/// The base score is the `popularity` strategy's posterior mean pick rate
/// `(right + a) / (shown + a + b)`, with its prior options (by default Beta(a, b) fitted to every
/// dish's swipes). The strategy builds an order slot by slot: for each slot it draws `u`,
/// uniform in [0, 1), from the diner's random stream
/// (derived from seed, date and user id); if `u < epsilon` it draws a second number and takes
/// a uniformly chosen remaining candidate, else the remaining candidate with the best base score
/// (ties by catalog order). The order is returned as scores `n, n - 1, ..., 1` along it, so the
/// deck follows it wherever the deck rules allow.
///
/// `epsilon` 0 is exactly the popularity order; `epsilon` 1 is a uniform shuffle. The chance
/// that the first card is the most popular dish is `(1 - epsilon) + epsilon / n`.
///
/// When the deck rules keep the order (`ScoringContext.deck` is nil), the scores carry what is
/// known exactly about it, all computed without a draw (the stream is used as above only):
/// - the distribution of the order, `RankingPolicy.epsilonGreedy` with the candidates by base
///   score (ties by catalog order, as the order takes them) and `epsilon`, when the context
///   `wantsPolicy`;
/// - propensities: each card's exact marginal probability of the place the order gives it,
///   P(dish at place k), by the dynamic programme of `GreedyPlaces`, for the first
///   `ScoringContext.places` places (the deck's cards; O(places^2) per diner, or O(n^2) for
///   every place of n candidates), 0 after them. With `epsilon` 0 every card carries 1;
/// - prefix propensities: per card, the probability of the order up to and including it,
///   the product over the places so far of `1 - epsilon (r - 1) / r` where the order took the
///   best of the r dishes left and `epsilon / r` where it took another.
/// When the rules may move cards, none of these: the marginals are of the order's places, not
/// of the deck's slots.
///
/// Explanation: the inputs `place` (1-based) and `candidates` (the score is
/// candidates + 1 - place), the dish's `greedy_score` (its popularity) and `greedy_rank`,
/// whether its slot `explored`, `epsilon`, and `choice_probability`, the chance that its slot
/// took it given the slots before: 1 - epsilon (r - 1) / r for the best of the r dishes left,
/// epsilon / r for another.
package final class EpsilonGreedyStrategy: BuiltinStrategy, ExplainingStrategy {
  package static let description = StrategyDescription(
    identifier: "epsilon-greedy",
    summary:
      "per card, the most popular dish left, or with probability epsilon a uniformly random one",
    options: [
      OptionSpec(
        "epsilon", .double, default: .double(0.1), range: 0...1,
        tuning: [.double(0), .double(0.05), .double(0.1), .double(0.2)],
        "probability that a card slot takes a uniformly random remaining dish instead of the best"
      )
    ] + PriorChoice.options("per dish in the popularity score, as in the popularity strategy"),
    // The same menu and swipes at three values of epsilon.
    examples: [
      (
        "epsilon 0 is the popularity order (3/4, 2/3, 1/2, 1/4)", "0",
        ["zaru-soba", "oyakodon", "miso-soup", "tonkatsu"]
      ),
      (
        "seed 42, epsilon 0.5 (pins the stream: a change of algorithm fails here)", "0.5",
        ["zaru-soba", "miso-soup", "oyakodon", "tonkatsu"]
      ),
      (
        "epsilon 1 ignores popularity: a seeded uniform shuffle", "1",
        ["oyakodon", "miso-soup", "zaru-soba", "tonkatsu"]
      ),
    ].map { summary, epsilon, expected in
      StrategyExample(
        summary, items: exampleMenu, events: exampleMenuSwipes, options: ["epsilon": epsilon],
        expected: expected)
    })

  private let epsilon: Double
  private var prior: LearnedPrior
  /// Popularity per catalog item, from the last `learn`.
  private var rates: [Double] = []

  package init(options: StrategyOptions) throws(StrategyError) {
    epsilon = options.double("epsilon")
    prior = try LearnedPrior(options)
  }

  package var fitted: [FittedValue] { prior.fitted }

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {
    let prior = try self.prior.learn(
      history, catalog: catalog, strategy: Self.description.identifier)
    rates = PopularityStrategy.pickRates(history, prior: prior)
  }

  package func score(_ context: inout ScoringContext) -> Scores {
    let (greedy, order, _) = ranking(&context)
    guard context.deck == nil else { return Scores(scoresAlong(order)) }
    let policy = RankingPolicy.epsilonGreedy(greedy: greedy, epsilon: epsilon)
    // The exact marginals of the places the deck shows (the dynamic programme costs the square
    // of the places it covers).
    let shown = min(order.count, max(0, context.places ?? order.count))
    let places = policy.placeProbabilities(Array(order.prefix(shown)))
    let prefix = policy.prefixProbabilities(order)
    var propensities = [Double](repeating: 0, count: order.count)
    var prefixPropensities = propensities
    for (p, k) in order.enumerated() {
      if p < shown { propensities[k] = min(1, places[p]) }  // a sum may round above 1
      prefixPropensities[k] = prefix[p]
    }
    return Scores(
      scoresAlong(order), propensities: propensities,
      prefixPropensities: order.isEmpty ? nil : prefixPropensities,
      policy: context.wantsPolicy ? policy : nil)
  }

  package func explain(_ context: inout ScoringContext, positions: [Int]) -> [ScoreExplanation] {
    let (greedy, order, explored) = ranking(&context)
    let values = scoresAlong(order)
    let n = order.count
    var place = [Int](repeating: 0, count: n)
    for (p, k) in order.enumerated() { place[k] = p }
    var rank = [Int](repeating: 0, count: n)
    for (r, k) in greedy.enumerated() { rank[k] = r }
    // Whether each place took the best dish left: all those ranked above it came earlier.
    var best = [Bool](repeating: false, count: n)
    var firstLeft = 0  // the best greedy rank not placed yet
    var placed = [Bool](repeating: false, count: n)
    for (p, k) in order.enumerated() {
      best[p] = rank[k] == firstLeft
      placed[rank[k]] = true
      while firstLeft < n && placed[firstLeft] { firstLeft += 1 }
    }
    return positions.map { k in
      let p = place[k]
      let left = Double(n - p)
      return ScoreExplanation(
        score: values[k],
        inputs: [
          ScorePart("place", Double(p + 1)), ScorePart("candidates", Double(n)),
          ScorePart("greedy_score", rates[Int(context.candidates[k])]),
          ScorePart("greedy_rank", Double(rank[k] + 1)),
          ScorePart("explored", explored[p] ? 1 : 0), ScorePart("epsilon", epsilon),
          ScorePart(
            "choice_probability", best[p] ? 1 - epsilon * (left - 1) / left : epsilon / left),
        ],
        formula: scoreAlongFormula)
    }
  }

  /// One diner's order: the candidate positions by base score (`greedy`, best first, ties by
  /// catalog order), the order drawn slot by slot, and per slot whether it explored.
  private func ranking(_ context: inout ScoringContext) -> (
    greedy: [Int], order: [Int], explored: [Bool]
  ) {
    let candidates = context.candidates
    precondition(
      candidates.allSatisfy { Int($0) < rates.count },
      "epsilon-greedy: score called before learn, or with a candidate outside the learned catalog")
    let base = candidates.map { rates[Int($0)] }
    // Remaining candidate positions, best first (ties by catalog order, as candidates are).
    let greedy = base.indices.sorted { base[$0] != base[$1] ? base[$0] > base[$1] : $0 < $1 }
    // The ranks of `greedy` not yet placed, to take the j-th of them in O(log n).
    var remaining = RemainingRanks(count: greedy.count)
    var order: [Int] = []
    var explored: [Bool] = []
    order.reserveCapacity(greedy.count)
    explored.reserveCapacity(greedy.count)
    for left in stride(from: greedy.count, to: 0, by: -1) {
      // Explore when u < epsilon: probability epsilon (to within 2^-53, the grid of u), then
      // every candidate left equally likely (`nextInt` is unbiased), as the policy says.
      let explore = context.random.nextDouble() < epsilon
      let pick = explore ? context.random.nextInt(below: left) : 0
      order.append(greedy[remaining.take(pick)])
      explored.append(explore)
    }
    return (greedy, order, explored)
  }
}

/// The ranks 0..<count, from which `take(j)` removes and returns the j-th (0-based) of those
/// left, in O(log count): a Fenwick tree of 1 per rank left, searched by binary lifting. (The
/// array it replaces cost O(count) per removal, O(count^2) per ranking.)
struct RemainingRanks {
  /// tree[i] (1-based) counts the ranks left in (i - lowbit(i), i].
  private var tree: [Int32]
  private let top: Int

  init(count: Int) {
    tree = [Int32](repeating: 0, count: count + 1)
    for i in 1...max(1, count) where i <= count {
      tree[i] += 1
      let parent = i + (i & -i)
      if parent <= count { tree[parent] += tree[i] }
    }
    var top = 1
    while top * 2 <= count { top *= 2 }
    self.top = count == 0 ? 0 : top
  }

  /// Removes and returns the `j`-th rank left, counting from 0 in ascending order.
  mutating func take(_ j: Int) -> Int {
    var position = 0
    var rest = Int32(j)
    var step = top
    let count = tree.count - 1
    while step > 0 {
      let next = position + step
      if next <= count && tree[next] <= rest {
        position = next
        rest -= tree[next]
      }
      step /= 2
    }
    // position + 1 is the rank's 1-based index: the first whose prefix count exceeds j.
    var i = position + 1
    precondition(i <= count, "no rank left at that place")
    while i <= count {
      tree[i] -= 1
      i += i & -i
    }
    return position
  }
}
