import DeckCore

/// The learned strategies' cold start (`als`, `ease`, `itemknn`, option `cold=features`): a dish
/// nobody swiped in the history the strategy learned from (a cold dish: no right and no left
/// swipe) has an empty column, so the model alone scores it 0 or whatever it gives an unknown
/// dish. Instead it gets the mean of the diner's own scores of the warm dishes most like it by
/// their features, weighted by how alike they are.
///
/// F_a is dish a's feature set in `FeatureEncoding` without the intercept (every dish has it):
/// its category, tags, price band, allergens, diets and weekdays. Two dishes are as similar as
/// the cosine of their indicator vectors,
///
///     sim(a, j) = |F_a ∩ F_j| / sqrt(|F_a| |F_j|),
///
/// and cold dish a's neighbours are the `cold_neighbours` warm dishes (at least one swipe) with
/// the largest sim > 0, ties by catalog order (never a hash). They depend on the catalog and on
/// which dishes are warm only, so they are found once at `learn` (through an index of the warm
/// dishes by feature, so that the cost is the pairs that share a feature). Per diner u,
///
///     score(a) = Σ_j sim(a, j) s(u, j) / Σ_j sim(a, j)
///
/// over the neighbours in that order, s(u, j) the strategy's own score of j for u (whether or
/// not j is a candidate): a weighted mean of the diner's own scores, on the strategy's scale,
/// the same mechanism for every strategy. A cold dish with no neighbour (no feature in common
/// with a warm dish) keeps the strategy's own score, and so does every dish with `cold=none`.
/// Warm dishes are never touched: their scores are bit for bit those of `cold=none`.
///
/// Explanation of a cold dish with neighbours: one term `feature_neighbour` per neighbour j
/// (about j), sim_j s_j / Σ sim, which sum to the score, and the inputs `cold` (1),
/// `cold_neighbours` (k), and per neighbour `similarity` and `neighbour_score` (about j). A
/// cold dish without neighbours: the strategy's own explanation with the inputs `cold` (1) and
/// `feature_neighbours` (0).
package struct FeatureFallback: Sendable {
  /// The `cold` option.
  package enum Mode: String, Sendable, CaseIterable {
    /// A cold dish scores the mean of its feature neighbours' scores.
    case features
    /// A cold dish scores what the strategy gives it (no fallback).
    case none
  }

  /// The options the three strategies share, `cold` defaulting to `mode` (the strategy's: the
  /// one its ranking on real data favours, docs/strategies.md).
  static func options(default mode: Mode, neighbours: Int = 10) -> [OptionSpec] {
    [
      OptionSpec(
        "cold", .string, default: .string(mode.rawValue),
        "a dish with no swipes: features (the similarity-weighted mean of the diner's scores of "
          + "the warm dishes most like it by features) or none (the model's own score)"),
      OptionSpec(
        "cold_neighbours", .int, default: .int(neighbours), range: 1...1_000,
        "warm dishes most like a dish with no swipes (by features) whose scores it takes"),
    ]
  }

  /// The formula of a cold dish's explanation.
  package static let formula =
    "score = Σ sim_j s_j / Σ sim_j over the k warm dishes most like it by features (cold dish: "
    + "no swipes)"

  package let mode: Mode
  /// k, the neighbours kept per cold dish.
  package let neighbourCount: Int
  /// Per catalog dish: whether it is cold (empty unless `mode` is `features`).
  private var cold: [Bool] = []
  /// The neighbours of dish a are `items[start[a]..<start[a + 1]]` (empty for a warm dish),
  /// most similar first, with their similarities in `similarity`.
  private var start: [Int] = [0]
  private var items: [Int32] = []
  private var similarity: [Double] = []
  /// The catalog's dish ids, to name neighbours in explanations.
  private var itemIDs: [String] = []

  init(options: StrategyOptions) throws(StrategyError) {
    mode = try options.choice("cold", Mode.self)
    neighbourCount = options.int("cold_neighbours")
  }

  /// Finds every cold dish's neighbours (nothing with `cold=none`).
  mutating func learn(catalog: Catalog, history: History) {
    cold = []
    start = [0]
    items = []
    similarity = []
    itemIDs = []
    guard mode == .features else { return }
    let n = min(catalog.count, history.itemCount)
    cold = (0..<n).map { history.shown(Int32($0)) == 0 }
    guard cold.contains(true) else { return }
    itemIDs = catalog.items.map(\.id)
    let features = FeatureEncoding(catalog: catalog, profiles: []).itemFeatures.map { all in
      all.filter { $0 != 0 }
    }
    let index = Self.warmByFeature(features, cold: cold)
    var shared = [Int32](repeating: 0, count: n)
    var touched: [Int32] = []
    var row: [(item: Int32, similarity: Double)] = []
    for a in 0..<n {
      defer { start.append(items.count) }
      guard cold[a], !features[a].isEmpty else { continue }
      for f in features[a] {
        for k in index.start[Int(f)]..<index.start[Int(f) + 1] {
          let j = index.items[k]
          if shared[Int(j)] == 0 { touched.append(j) }
          shared[Int(j)] += 1
        }
      }
      row.removeAll(keepingCapacity: true)
      let size = Double(features[a].count)
      for j in touched {
        let s = Double(shared[Int(j)]) / (size * Double(features[Int(j)].count)).squareRoot()
        row.append((j, s))
        shared[Int(j)] = 0
      }
      touched.removeAll(keepingCapacity: true)
      ItemKNNStrategy.keepBest(&row, neighbourCount)
      for (j, s) in row {
        items.append(j)
        similarity.append(s)
      }
    }
  }

  /// The warm dishes of each feature, ascending: feature f's are `items[start[f]..<start[f + 1]]`.
  private static func warmByFeature(_ features: [[Int32]], cold: [Bool]) -> (
    start: [Int], items: [Int32]
  ) {
    let p = Int(features.lazy.compactMap(\.last).max() ?? 0) + 1
    var start = [Int](repeating: 0, count: p + 1)
    for a in features.indices where !cold[a] {
      for f in features[a] { start[Int(f) + 1] += 1 }
    }
    for f in 0..<p { start[f + 1] += start[f] }
    var items = [Int32](repeating: 0, count: start[p])
    var fill = start
    for a in features.indices where !cold[a] {
      for f in features[a] {
        items[fill[Int(f)]] = Int32(a)
        fill[Int(f)] += 1
      }
    }
    return (start, items)
  }

  /// The neighbours of `item` (empty for a warm dish, a cold dish without any, or `cold=none`).
  private func range(_ item: Int32) -> Range<Int> {
    let a = Int(item)
    guard a + 1 < start.count else { return 0..<0 }
    return start[a]..<start[a + 1]
  }

  /// Whether `item` is a cold dish (always false with `cold=none`).
  package func isCold(_ item: Int32) -> Bool {
    Int(item) < cold.count && cold[Int(item)]
  }

  /// The neighbours of `item`, most similar first (for tests).
  func neighbours(of item: Int32) -> [(item: Int32, similarity: Double)] {
    range(item).map { (items[$0], similarity[$0]) }
  }

  /// Replaces the score of every cold candidate with neighbours by the weighted mean of the
  /// diner's scores of its neighbours; `own` is the strategy's score of any dish for this diner.
  func apply(_ candidates: [Int32], _ scores: inout [Double], own: (Int32) -> Double) {
    guard !items.isEmpty else { return }
    for k in candidates.indices {
      let r = range(candidates[k])
      if !r.isEmpty { scores[k] = mean(r, own) }
    }
  }

  /// Σ sim_j s_j / Σ sim_j over `r`, in neighbour order.
  private func mean(_ r: Range<Int>, _ own: (Int32) -> Double) -> Double {
    var sum = 0.0
    var weight = 0.0
    for e in r {
      sum += similarity[e] * own(items[e])
      weight += similarity[e]
    }
    return sum / weight
  }

  /// The explanation of `item`: the fallback's for a cold dish with neighbours, else `otherwise`
  /// (the strategy's own), marked as a cold dish without neighbours when it is one.
  func explain(
    _ item: Int32, own: (Int32) -> Double, otherwise: () -> ScoreExplanation
  ) -> ScoreExplanation {
    let r = range(item)
    guard !r.isEmpty else {
      var e = otherwise()
      if isCold(item) {
        e.inputs += [ScorePart("cold", 1), ScorePart("feature_neighbours", 0)]
      }
      return e
    }
    var weight = 0.0
    for e in r { weight += similarity[e] }
    var terms: [ScorePart] = []
    var inputs = [ScorePart("cold", 1), ScorePart("cold_neighbours", Double(neighbourCount))]
    for e in r {
      let id = itemIDs[Int(items[e])]
      let s = own(items[e])
      terms.append(ScorePart("feature_neighbour", similarity[e] * s / weight, about: id))
      inputs += [
        ScorePart("similarity", similarity[e], about: id),
        ScorePart("neighbour_score", s, about: id),
      ]
    }
    return ScoreExplanation(
      score: mean(r, own), terms: terms, inputs: inputs, formula: Self.formula)
  }
}
