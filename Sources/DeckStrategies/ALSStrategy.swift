import DeckCore

/// Implicit-feedback matrix factorisation by alternating least squares (Hu, Koren and Volinsky
/// 2008), each least-squares step solved by a few conjugate-gradient steps (Takács, Pilászy and
/// Tikk 2011).
///
/// Every diner u and dish i get `factors` numbers, x_u and y_i, that minimise
///
///     sum over all (u, i) of c_ui (p_ui - x_u . y_i)^2
///       + regularization (sum |x_u|^2 + sum |y_i|^2)
///
/// over every cell of the diners x dishes matrix, with
///
/// - a dish the diner swiped right r > 0 times: p = 1, c = 1 + alpha r;
/// - a dish the diner only swiped left, l times: p = 0, c = 1 + alpha_left l (with `alpha_left`
///   0 such a dish is like one never shown);
/// - every other cell: p = 0, c = 1.
///
/// The fit starts from factors uniform in [0, 0.01), drawn from a stream derived from the run's
/// seed (`prepare`), dishes first, then diners; each of `iterations` solves every diner with
/// the dishes fixed and then every dish with the diners fixed, each row by `cg_steps` CG steps
/// warm-started from its previous value (`ALSSolver`). A dish scores x_u . y_i.
///
/// A diner with swipes but no row (not in the history the strategy learned from) is folded in:
/// their x_u is solved against the learned dishes by the same equations, from zero, to
/// convergence (at most `factors` CG steps). A diner with no right swipe at all has nothing to
/// solve for (x_u = 0 scores every dish 0) and gets the dishes by their count of right swipes,
/// most liked first.
///
/// Explanation: one term `factor` per latent factor f (about f, 1-based), x_uf y_if, which sum
/// to the score (the score adds them in float32, so to float32 rounding: about 1e-7 of the sum
/// of their sizes), and the inputs `factors` and `folded_in` (1 for a diner folded in). A diner
/// without a like: the input `likes`, the score.
///
/// A dish with no swipes at all (`cold=features`, the default) scores the similarity-weighted
/// mean of the diner's scores of the `cold_neighbours` swiped dishes most like it by features
/// (`FeatureFallback`, explained there); `cold=none` leaves it its score above.
package final class ALSStrategy: BuiltinStrategy, ExplainingStrategy {
  package static let description = StrategyDescription(
    identifier: "als",
    summary:
      "implicit ALS: diner and dish factors fit to likes with confidence 1 + alpha * likes; x_u . y_i",
    options: [
      OptionSpec(
        "factors", .int, default: .int(32), range: 1...1_024,
        "latent factors per diner and per dish (k)"),
      OptionSpec(
        "regularization", .double, default: .double(30), range: 0...1_000_000,
        tuning: [.double(3), .double(10), .double(30), .double(100)],
        "weight of the squared length of every factor vector (lambda)"),
      OptionSpec(
        "alpha", .double, default: .double(10), range: 0...1_000_000,
        tuning: [.double(1), .double(10), .double(40)],
        "confidence of a liked dish is 1 + alpha * (the diner's right swipes on it)"),
      OptionSpec(
        "alpha_left", .double, default: .double(1), range: 0...1_000_000,
        "confidence that a dish the diner only passed is not preferred: 1 + alpha_left * "
          + "(left swipes); 0 treats it as never shown"),
      OptionSpec(
        "iterations", .int, default: .int(15), range: 1...1_000,
        "alternations of solving every diner, then every dish"),
      OptionSpec(
        "cg_steps", .int, default: .int(3), range: 1...1_000,
        "conjugate-gradient steps per row and half iteration (warm-started)"),
    ] + FeatureFallback.options(default: .features),
    examples: [
      StrategyExample(
        "a diner without a like gets the dishes by their likes: oyakodon (2), tonkatsu (1)",
        items: ["miso-soup:soup", "tonkatsu:fried", "oyakodon:rice"],
        events: [
          "u2 oyakodon right 2026-01-05", "u3 oyakodon right 2026-01-06",
          "u3 tonkatsu right 2026-01-06", "u1 miso-soup left 2026-01-07",
        ],
        expected: ["oyakodon", "tonkatsu", "miso-soup"]),
      StrategyExample(
        "light regularization on a tiny log: tonkatsu liked, so katsudon (liked with it by 2) before miso soup (1) before zaru-soba (0)",
        items: exampleCoLikeMenu,
        events: exampleCoLikes,
        options: ["factors": "64", "regularization": "0.05"],
        expected: ["tonkatsu", "katsudon", "miso-soup", "zaru-soba"]),
      StrategyExample(
        "a new dish with no swipes, hire-katsu (fried, like tonkatsu), takes tonkatsu's score: "
          + "above zaru-soba, which only diners unlike u1 like",
        items: exampleCoLikeMenu + ["hire-katsu:fried"],
        events: exampleCoLikes,
        options: ["factors": "64", "regularization": "0.05"],
        expected: ["tonkatsu", "hire-katsu", "katsudon", "miso-soup", "zaru-soba"]),
    ])

  private let factorCount: Int
  private let regularization: Double
  private let alpha: Double
  private let alphaLeft: Double
  private let iterations: Int
  private let cgSteps: Int
  private var seed: UInt64 = 0
  private var jobs = 1

  /// The learned model, nil before `learn`.
  private var model: Model?
  /// The cold dishes' feature neighbours.
  private var fallback: FeatureFallback

  struct Model: Sendable {
    /// Diner id -> row of `users`.
    var rows: [String: Int]
    var users: ALSFactors
    var items: ALSFactors
    /// Y'Y + regularization I of the learned dishes (for fold-in).
    var itemGram: [ALSGroup]
    /// Right swipes per dish (the order of diners without a like).
    var likes: [Int32]
  }

  package init(options: StrategyOptions) throws(StrategyError) {
    factorCount = options.int("factors")
    regularization = options.double("regularization")
    alpha = options.double("alpha")
    alphaLeft = options.double("alpha_left")
    iterations = options.int("iterations")
    cgSteps = options.int("cg_steps")
    fallback = try FeatureFallback(options: options)
  }

  package func prepare(seed: UInt64, jobs: Int) {
    self.seed = seed
    self.jobs = max(1, jobs)
  }

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {
    try PopularityStrategy.checkCoverage(
      catalog: catalog, history: history, strategy: Self.description.identifier)
    let ids = history.userIDs
    var observations = ALSObservations()
    var rows: [String: Int] = [:]
    rows.reserveCapacity(ids.count)
    for (row, id) in ids.enumerated() {
      rows[id] = row
      appendRow(history.users[id]!, to: &observations)
    }
    let byItem = observations.transposed(columns: history.itemCount)
    var random = RandomStream(seed: Self.initialSeed(seed))
    var items = ALSFactors(
      rows: history.itemCount, factors: factorCount, random: &random, scale: Self.initialScale)
    var users = ALSFactors(
      rows: ids.count, factors: factorCount, random: &random, scale: Self.initialScale)
    for _ in 0..<iterations {
      ALSSolver.solve(
        &users, fixed: items, observations: observations, regularization: regularization,
        steps: cgSteps, jobs: jobs)
      ALSSolver.solve(
        &items, fixed: users, observations: byItem, regularization: regularization,
        steps: cgSteps, jobs: jobs)
    }
    model = Model(
      rows: rows, users: users, items: items,
      itemGram: ALSSolver.gram(items, regularization: regularization, jobs: jobs),
      likes: history.itemRight)
    fallback.learn(catalog: catalog, history: history)
  }

  package func score(_ context: inout ScoringContext) -> Scores {
    guard let model else { preconditionFailure("als: score called before learn") }
    let candidates = context.candidates
    precondition(
      candidates.allSatisfy { Int($0) < model.items.rows },
      "als: score called with a candidate outside the learned catalog")
    let own = scorer(diner(context, model), model)
    var values = candidates.map(own)
    fallback.apply(candidates, &values, own: own)
    return Scores(values)
  }

  package func explain(_ context: inout ScoringContext, positions: [Int]) -> [ScoreExplanation] {
    guard let model else { preconditionFailure("als: explain called before learn") }
    let user = diner(context, model)
    let own = scorer(user, model)
    let folded = model.rows[context.user.id] == nil
    return positions.map { k in
      let item = context.candidates[k]
      return fallback.explain(item, own: own) {
        guard let user else {
          let likes = own(item)
          return ScoreExplanation(
            score: likes, inputs: [ScorePart("likes", likes)], formula: "likes")
        }
        let row = Int(item) * model.items.lanes
        let terms = (0..<factorCount).map { f in
          ScorePart(
            "factor",
            Double(user[f / 4][f % 4]) * Double(model.items.values[row + f / 4][f % 4]),
            about: String(f + 1))
        }
        return ScoreExplanation(
          score: own(item), terms: terms,
          inputs: [
            ScorePart("factors", Double(factorCount)), ScorePart("folded_in", folded ? 1 : 0),
          ],
          formula: ScoreExplanation.sumOfTerms)
      }
    }
  }

  /// The diner's factors, nil for a diner without a right swipe (who gets the dishes by their
  /// likes).
  private func diner(_ context: ScoringContext, _ model: Model) -> [ALSGroup]? {
    guard let history = context.userHistory, history.right > 0 else { return nil }
    return diner(context.user.id, history, model)
  }

  /// The diner's score of any catalog dish, by the model alone: x_u . y_i in float32
  /// (`ALSVector.dot`), or the dish's likes for a diner without factors.
  private func scorer(_ user: [ALSGroup]?, _ model: Model) -> (Int32) -> Double {
    guard let user else {
      let likes = model.likes
      return { Double(likes[Int($0)]) }
    }
    let items = model.items
    let lanes = items.lanes
    return { i in
      user.withUnsafeBufferPointer { u in
        items.values.withUnsafeBufferPointer { v in
          Double(ALSVector.dot(u.baseAddress!, v.baseAddress! + Int(i) * lanes, lanes))
        }
      }
    }
  }

  /// The diner's factors: their learned row, or folded in from their history.
  func diner(_ id: String, _ history: UserHistory, _ model: Model) -> [ALSGroup] {
    let lanes = model.users.lanes
    if let row = model.rows[id] {
      return Array(model.users.values[(row * lanes)..<((row + 1) * lanes)])
    }
    let observations = observations(of: history)
    return ALSSolver.solveRow(
      gram: model.itemGram, y: model.items, columns: observations.column[...],
      excess: observations.excess[...], target: observations.target[...],
      steps: max(cgSteps, factorCount))
  }

  /// One diner's observed cells.
  func observations(of history: UserHistory) -> ALSObservations {
    var observations = ALSObservations()
    appendRow(history, to: &observations)
    return observations
  }

  /// One diner's observed cells, in dish order (so that every sum runs in the same order).
  private func appendRow(_ history: UserHistory, to observations: inout ALSObservations) {
    for record in history.records.sorted(by: { $0.item < $1.item }) {
      if record.right > 0 {
        observations.append(
          column: record.item, confidence: 1 + alpha * Double(record.right), preference: 1)
      } else if record.left > 0, alphaLeft > 0 {
        observations.append(
          column: record.item, confidence: 1 + alphaLeft * Double(record.left), preference: 0)
      }
    }
    observations.endRow()
  }

  /// Initial factors are uniform in [0, this) (as implicit's are).
  static let initialScale = 0.01

  /// The seed of the initial factors' stream: derived from the run's seed, the same for every
  /// diner and date.
  static func initialSeed(_ seed: UInt64) -> UInt64 {
    var h = StableHash()
    h.combine(seed)
    h.combine("als-initial-factors")
    return h.finalized
  }

  // MARK: - For tests

  /// The learned model (tests).
  var learned: Model? { model }
}
