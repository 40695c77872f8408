import DeckCore

/// A weighted sum of other built-in strategies' rank-normalised scores.
///
/// `components` names built-ins with weights, e.g. `affinity:0.7,popularity:0.3`; each component
/// runs with its default options and learns from the same history. For one diner each component
/// scores the candidates, and its scores are replaced by their rank-normalised values: the best
/// candidate 1, the worst 0, evenly spaced by rank in between, tied scores sharing the mean of
/// their ranks (a single candidate gets 1). The blend's score is
///
///     sum_k weight_k * normalised_k / sum_k weight_k
///
/// so it lies in [0, 1] whatever the components' scales. Ranks, not raw scores, make components
/// with different scales (pick rates, similarity sums, UCB bounds) comparable.
///
/// A stochastic component draws from its own stream, derived from (seed, date, user) and
/// "blend:<name>", so that two components never share draws; the result is still the same for
/// the same (seed, date, diner).
///
/// Explanation: one term `component` per component of weight above 0 (about its name:
/// weight x normalised / total weight), which sum to the score, and per component the inputs
/// `raw` (its own score), `normalised` and `weight`, with `total_weight`; then each component's
/// own parts, named `<component>.<part>` (`popularity.likes`).
package final class BlendStrategy: BuiltinStrategy, ExplainingStrategy {
  package static let description = StrategyDescription(
    identifier: "blend",
    summary: "weighted sum of other built-ins' rank-normalised scores (best 1, worst 0)",
    options: [
      OptionSpec(
        "components", .string, default: .string("affinity:0.7,popularity:0.3"),
        "comma-separated name:weight pairs of built-in strategies (default options each); "
          + "weights 0 or more, at least one above 0")
    ],
    examples: [
      StrategyExample(
        "a diner with no history: affinity and popularity agree, so the blend keeps their order",
        items: ["miso-soup:soup", "oyakodon:rice", "zaru-soba:noodles"],
        events: ["u2 oyakodon right 2026-01-05", "u3 miso-soup left 2026-01-06"],
        expected: ["oyakodon", "zaru-soba", "miso-soup"]),
      StrategyExample(
        "popularity ranks katsudon, gyudon, tonjiru; ucb puts unshown gyudon first; 3:1 favours popularity",
        items: weighingMenu,
        events: weighingSwipes,
        options: ["components": "popularity:3,ucb:1"],
        expected: ["katsudon", "gyudon", "tonjiru"]),
      StrategyExample(
        "the same components 1:3 favour ucb: gyudon (never shown) first",
        items: weighingMenu,
        events: weighingSwipes,
        options: ["components": "popularity:1, ucb:3"],
        expected: ["gyudon", "katsudon", "tonjiru"]),
    ])

  /// The weighing examples' menu and swipes: katsudon liked 9 of 10, tonjiru passed twice,
  /// gyudon never shown.
  private static let weighingMenu = ["katsudon:rice", "gyudon:rice", "tonjiru:soup"]
  private static let weighingSwipes =
    exampleSwipes("katsudon", right: 9, left: 1) + exampleSwipes("tonjiru", right: 0, left: 2)

  private let components: [(name: String, weight: Double, strategy: any BuiltinStrategy)]
  private let totalWeight: Double

  package init(options: StrategyOptions) throws(StrategyError) {
    let text = options.string("components")
    let parsed = try Self.parse(text, strategy: options.strategy)
    var components: [(name: String, weight: Double, strategy: any BuiltinStrategy)] = []
    for (name, weight) in parsed {
      let strategy = try makeComponent(
        name, for: options.strategy, option: "components", value: text)
      components.append((name, weight, strategy))
    }
    self.components = components
    totalWeight = parsed.reduce(0) { $0 + $1.weight }
  }

  /// Parses "name:weight,name:weight" (spaces around parts allowed).
  static func parse(_ text: String, strategy: String) throws(StrategyError)
    -> [(name: String, weight: Double)]
  {
    func bad(_ detail: String) -> StrategyError {
      .invalidOption(
        strategy: strategy, key: "components", value: text,
        expected: "a comma-separated list of name:weight (\(detail))")
    }
    var out: [(name: String, weight: Double)] = []
    for rawPart in text.split(separator: ",", omittingEmptySubsequences: false) {
      let part = rawPart.trimmingSpaces
      let fields = part.split(separator: ":", omittingEmptySubsequences: false)
      guard fields.count == 2 else {
        throw bad(part.isEmpty ? "an empty entry" : "'\(part)' is not name:weight")
      }
      let name = String(fields[0]).trimmingSpaces
      let weightText = String(fields[1]).trimmingSpaces
      guard let weight = Double(weightText), weight.isFinite, weight >= 0 else {
        throw bad("weight '\(weightText)' of '\(name)' is not a number 0 or more")
      }
      guard !out.contains(where: { $0.name == name }) else {
        throw bad("'\(name)' appears twice")
      }
      out.append((name, weight))
    }
    guard out.contains(where: { $0.weight > 0 }) else {
      throw bad("at least one weight must be above 0")
    }
    return out
  }

  package func prepare(seed: UInt64, jobs: Int) {
    for c in components { c.strategy.prepare(seed: seed, jobs: jobs) }
  }

  package func prepare(profiles: [UserProfile]) {
    for c in components { c.strategy.prepare(profiles: profiles) }
  }

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {
    for c in components {
      try learnComponent(
        c.strategy, catalog: catalog, history: history, for: Self.description.identifier)
    }
  }

  /// What the components fitted, each under its name (`affinity.prior_likes`), in component
  /// order.
  package var fitted: [FittedValue] {
    components.flatMap { c in c.strategy.fitted.map { $0.prefixed(c.name) } }
  }

  package func score(_ context: inout ScoringContext) -> Scores {
    Scores(combine(componentScores(context)))
  }

  package func explain(_ context: inout ScoringContext, positions: [Int]) -> [ScoreExplanation] {
    let scored = componentScores(context)
    let values = combine(scored)
    let weighted = components.filter { $0.weight > 0 }
    let parts = weighted.map {
      componentParts(
        $0.strategy, componentContext(context, $0.name), positions: positions, prefix: $0.name)
    }
    return positions.indices.map { p in
      let k = positions[p]
      var terms: [ScorePart] = []
      var inputs: [ScorePart] = []
      for (c, own) in zip(weighted, scored) {
        terms.append(
          ScorePart("component", c.weight * own.normalised[k] / totalWeight, about: c.name))
        inputs += [
          ScorePart("raw", own.raw[k], about: c.name),
          ScorePart("normalised", own.normalised[k], about: c.name),
          ScorePart("weight", c.weight, about: c.name),
        ]
      }
      inputs.append(ScorePart("total_weight", totalWeight))
      return ScoreExplanation(
        score: values[k], terms: terms, inputs: inputs + parts.flatMap { $0[p] },
        formula: ScoreExplanation.sumOfTerms)
    }
  }

  /// Each component's raw scores for one diner and their rank-normalised values, for the
  /// components of weight above 0, in component order.
  private func componentScores(_ context: ScoringContext) -> [(
    raw: [Double], normalised: [Double]
  )] {
    components.filter { $0.weight > 0 }.map { c in
      var own = componentContext(context, c.name)
      let values = c.strategy.score(&own).values
      precondition(
        values.count == context.candidates.count, "blend: \(c.name) returned the wrong count")
      return (values, rankNormalised(values))
    }
  }

  /// The context a component scores in: its own stream, derived from (seed, date, user) and
  /// "blend:<name>", and no deck (scores only: a component's propensities are not the blend's).
  private func componentContext(_ context: ScoringContext, _ name: String) -> ScoringContext {
    var own = context
    own.random = RandomStream(
      seed: context.seed, date: context.date, user: context.user.id, purpose: "blend:" + name)
    own.deck = nil
    return own
  }

  /// sum_k weight_k * normalised_k / sum_k weight_k, per candidate, from `componentScores`.
  private func combine(_ scored: [(raw: [Double], normalised: [Double])]) -> [Double] {
    var total = [Double](repeating: 0, count: scored.first?.raw.count ?? 0)
    for (c, own) in zip(components.filter { $0.weight > 0 }, scored) {
      for (k, v) in own.normalised.enumerated() { total[k] += c.weight * v }
    }
    return total.map { $0 / totalWeight }
  }
}

extension StringProtocol {
  /// The text without leading and trailing spaces and tabs.
  var trimmingSpaces: String {
    var s = Substring(self)
    while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
    while let l = s.last, l == " " || l == "\t" { s.removeLast() }
    return String(s)
  }
}
