import DeckCore

/// EASE (Steck 2019, "Embarrassingly shallow autoencoders for sparse data"): a linear
/// item-item model fitted in closed form.
///
/// X is the diners x dishes matrix of the history: 1 where the diner swiped the dish right, and
/// for a dish they only swiped left what `left` says (`ignore`: 0, `interaction`: 1,
/// `negative`: -1). With G = X'X + lambda I and P = G^-1 the weights are
///
///     B = I - P diag(1 / diag P),  i.e.  B_ij = -P_ij / P_jj for i != j,  B_ii = 0
///
/// (the ridge regression of each dish's column of X on the other dishes' columns), and a dish j
/// scores X_u B_j = sum over the diner's dishes i of X_ui B_ij.
///
/// Only the dishes with a non-zero column in X (the model's dishes) are fitted: for any other
/// dish G's row and column are lambda on the diagonal and 0 elsewhere, so its weights are 0 and
/// leaving it out changes no other weight; it scores 0. The fit holds one n x n matrix of
/// doubles for n model dishes (8 n^2 bytes) and costs n^3 floating-point operations
/// (`SymmetricMatrix.invertPositiveDefinite`); more than `max_dishes` model dishes is an error
/// naming the option. A diner with no non-zero entry in X (no swipes, or only left swipes that
/// `left` ignores) gets each dish's number of right swipes instead (the most-popular count).
///
/// Explanation: one term `liked` per dish of the diner's row of X (about that dish), X_ui B_ij,
/// which sum to the score (in the order the score adds them: bit for bit), and the inputs
/// `in_model` (0 for a dish outside the model, which scores 0) and `lambda`. A diner outside X:
/// the input `likes`, the score.
///
/// A dish with no swipes at all scores, with `cold=features`, the similarity-weighted mean of
/// the diner's scores of the `cold_neighbours` swiped dishes most like it by features
/// (`FeatureFallback`, explained there). `cold=none`, the default here, leaves it its score
/// above: on MovieLens the fallback puts many rarely seen films in EASE's top 10 and costs
/// nDCG@10 (docs/strategies.md, "A dish with no swipes").
package final class EASEStrategy: BuiltinStrategy, ExplainingStrategy {
  /// The uses of left swipes in X (the `left` option).
  package enum LeftSwipes: String, Sendable, CaseIterable {
    case ignore, interaction, negative
  }

  package static let description = StrategyDescription(
    identifier: "ease",
    summary:
      "EASE: sum of the weights B = I - P diag(1/diag P), P = (X'X + lambda I)^-1, of the diner's dishes",
    options: [
      OptionSpec(
        "lambda", .double, default: .double(100), range: 0.001...1_000_000_000,
        tuning: [.double(30), .double(100), .double(300), .double(1000)],
        "L2 regularisation added to the diagonal of X'X; larger trusts co-occurrences less"),
      OptionSpec(
        "left", .string, default: .string("ignore"),
        tuning: [.string("ignore"), .string("interaction")],
        "what a left swipe (without a right swipe of the same dish) is in X: ignore (0), "
          + "interaction (1, as a right swipe) or negative (-1)"),
      OptionSpec(
        "max_dishes", .int, default: .int(10_000), range: 1...40_000,
        "most dishes with swipes the fit takes; it holds 8 x n^2 bytes for n dishes (10,000: "
          + "800 MB)"),
    ] + FeatureFallback.options(default: .none),
    examples: [
      StrategyExample(
        "a diner without swipes gets the dishes by their number of right swipes",
        items: ["tonkatsu:fried", "katsudon:rice", "zaru-soba:noodles"],
        events: [
          "u2 katsudon right 2026-01-05", "u3 katsudon right 2026-01-06",
          "u3 zaru-soba right 2026-01-06", "u4 tonkatsu left 2026-01-07",
        ],
        expected: ["katsudon", "zaru-soba", "tonkatsu"]),
      StrategyExample(
        "lambda 1: tonkatsu liked, katsudon weighs 1/3, never-swiped miso soup 0, zaru-soba "
          + "-1/8 (its likers like katsudon, not tonkatsu); new oyakodon, a rice dish like "
          + "katsudon, takes katsudon's 1/3",
        items: likesMenu + ["oyakodon:rice"],
        events: exampleLikes,
        options: ["lambda": "1", "left": "ignore", "cold": "features"],
        expected: ["katsudon", "oyakodon", "tonkatsu", "miso-soup", "zaru-soba"]),
      StrategyExample(
        "left=interaction: u3's left swipe on tonkatsu counts as a swipe: zaru-soba (1/5) "
          + "passes katsudon (2/11)",
        items: likesMenu,
        events: exampleLikes + exampleLeft,
        options: ["lambda": "1", "left": "interaction"],
        expected: ["zaru-soba", "katsudon", "tonkatsu", "miso-soup"]),
      StrategyExample(
        "left=negative: it counts -1: katsudon 4/11, zaru-soba -1/3 (below never-swiped miso "
          + "soup)",
        items: likesMenu,
        events: exampleLikes + exampleLeft,
        options: ["lambda": "1", "left": "negative"],
        expected: ["katsudon", "tonkatsu", "miso-soup", "zaru-soba"]),
    ])

  /// The examples' swipes: tonkatsu liked by u1 and u2, katsudon by u2 and u4, zaru-soba by u3
  /// and u4; then (the `left` examples) u3 passes tonkatsu and u5 likes katsudon.
  private static let exampleLikes = [
    "u1 tonkatsu right 2026-01-02", "u2 tonkatsu right 2026-01-03",
    "u2 katsudon right 2026-01-03", "u3 zaru-soba right 2026-01-04",
    "u4 zaru-soba right 2026-01-05", "u4 katsudon right 2026-01-05",
  ]
  /// The menu of those examples: miso soup is never swiped.
  private static let likesMenu = [
    "tonkatsu:fried", "katsudon:rice", "zaru-soba:noodles", "miso-soup:soup",
  ]
  private static let exampleLeft = ["u3 tonkatsu left 2026-01-06", "u5 katsudon right 2026-01-07"]

  package let lambda: Double
  package let left: LeftSwipes
  package let maxDishes: Int
  /// The model's dish of each catalog dish, -1 for a dish outside the model.
  private var modelIndex: [Int32] = []
  /// B, n x n row-major over the model's dishes (row i: the weights of dish i's swipes).
  private var weights: [Double] = []
  private var modelCount = 0
  /// Right swipes per catalog dish: the scores of a diner outside X.
  private var likes: [Double] = []
  /// The catalog's dish ids, to name the liked dishes in explanations.
  private var itemIDs: [String] = []
  /// The cold dishes' feature neighbours.
  private var fallback: FeatureFallback

  package init(options: StrategyOptions) throws(StrategyError) {
    lambda = options.double("lambda")
    maxDishes = options.int("max_dishes")
    left = try options.choice("left", LeftSwipes.self)
    fallback = try FeatureFallback(options: options)
  }

  /// X's entry for one record: 1 for a right swipe, the `left` use for a left swipe only.
  @inline(__always)
  private func entry(_ record: UserItemRecord) -> Double {
    if record.right > 0 { return 1 }
    guard record.left > 0 else { return 0 }
    switch left {
    case .ignore: return 0
    case .interaction: return 1
    case .negative: return -1
    }
  }

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {
    try PopularityStrategy.checkCoverage(
      catalog: catalog, history: history, strategy: Self.description.identifier)
    let items = history.itemCount
    likes = history.itemRight.map(Double.init)
    itemIDs = catalog.items.map(\.id)

    // X by diner (dishes in catalog order) and the model's dishes.
    var rowStart: [Int] = [0]
    var rowItems: [Int32] = []
    var rowValues: [Double] = []
    var inModel = [Bool](repeating: false, count: items)
    for user in history.userIDs {
      for record in history.users[user]!.records {
        let x = entry(record)
        guard x != 0 else { continue }
        rowItems.append(record.item)
        rowValues.append(x)
        inModel[Int(record.item)] = true
      }
      rowStart.append(rowItems.count)
    }
    var index = [Int32](repeating: -1, count: items)
    var n = 0
    for i in 0..<items where inModel[i] {
      index[i] = Int32(n)
      n += 1
    }
    guard n <= maxDishes else {
      let bytes = 8 * Double(n) * Double(n)
      throw .invalidOption(
        strategy: Self.description.identifier, key: "max_dishes", value: String(maxDishes),
        expected:
          "enough for the \(n) dishes with swipes in the history: give at least \(n) (the fit "
          + "holds 8 x \(n)^2 bytes: \(Self.size(bytes)))")
    }
    for k in rowItems.indices { rowItems[k] = index[Int(rowItems[k])] }

    var matrix = Self.gram(
      n: n, rowStart: rowStart, rowItems: rowItems, rowValues: rowValues)
    for i in 0..<n { matrix.storage[i * n + i] += lambda }
    guard matrix.invertPositiveDefinite() else {
      // X'X + lambda I is positive definite in exact arithmetic; in doubles it can fail to be
      // only when lambda is tiny against X'X.
      throw .invalidOption(
        strategy: Self.description.identifier, key: "lambda", value: String(lambda),
        expected:
          "large enough for X'X + lambda I over these \(n) dishes to be positive definite in "
          + "double precision; give a larger lambda")
    }
    matrix.mirrorLower()
    // B_ij = -P_ij / P_jj, B_ii = 0, in place.
    var diagonal = [Double](repeating: 0, count: n)
    for j in 0..<n { diagonal[j] = matrix.storage[j * n + j] }
    let scale = diagonal.map { -1 / $0 }
    matrix.storage.withUnsafeMutableBufferPointer { b in
      for i in 0..<n {
        for j in 0..<n { b[i * n + j] *= scale[j] }
        b[i * n + i] = 0
      }
    }
    modelIndex = index
    modelCount = n
    weights = matrix.storage
    fallback.learn(catalog: catalog, history: history)
  }

  /// The lower triangle of X'X for X given by rows (diners), with model dish indices ascending
  /// in each row. Dish by dish, so that the row being summed stays in the cache; the sums are of
  /// whole numbers, exact in any order.
  static func gram(n: Int, rowStart: [Int], rowItems: [Int32], rowValues: [Double])
    -> SymmetricMatrix
  {
    // The diners (rows) of each dish, with the position of the dish in the row.
    var count = [Int](repeating: 0, count: n + 1)
    for i in rowItems { count[Int(i) + 1] += 1 }
    for i in 0..<n { count[i + 1] += count[i] }
    var entries = [Int](repeating: 0, count: rowItems.count)
    var fill = count
    for k in rowItems.indices {
      let i = Int(rowItems[k])
      entries[fill[i]] = k
      fill[i] += 1
    }
    // Each entry's row, to find where the row starts.
    var rowOf = [Int](repeating: 0, count: rowItems.count)
    for r in 0..<(rowStart.count - 1) {
      for k in rowStart[r]..<rowStart[r + 1] { rowOf[k] = r }
    }
    var matrix = SymmetricMatrix(n: n)
    matrix.storage.withUnsafeMutableBufferPointer { g in
      for i in 0..<n {
        let row = i * n
        for e in count[i]..<count[i + 1] {
          let k = entries[e]
          let x = rowValues[k]
          // The row's dishes up to and including i (ascending, i is at k).
          for m in rowStart[rowOf[k]]...k {
            g[row + Int(rowItems[m])] += x * rowValues[m]
          }
        }
      }
    }
    return matrix
  }

  /// A size in bytes as people read it: "72 bytes", "80 MB", "1.3 GB" (rounded up).
  static func size(_ bytes: Double) -> String {
    if bytes < 1e6 { return "\(Int(bytes)) bytes" }
    if bytes < 1e9 { return "\(Int((bytes / 1e6).rounded(.up))) MB" }
    return "\((bytes / 1e8).rounded(.up) / 10) GB"
  }

  package func score(_ context: inout ScoringContext) -> Scores {
    let candidates = context.candidates
    precondition(
      candidates.allSatisfy { Int($0) < modelIndex.count },
      "ease: score called before learn, or with a candidate outside the learned catalog")
    let own = scorer(query(context.userHistory))
    var values = candidates.map(own)
    fallback.apply(candidates, &values, own: own)
    return Scores(values)
  }

  /// The diner's score of any catalog dish, by the model alone: X_u B_j from the diner's row of
  /// X (`query`), or the dish's likes for a diner outside X.
  private func scorer(_ query: [(model: Int, x: Double, item: Int32)]) -> (Int32) -> Double {
    guard !query.isEmpty else {
      let likes = self.likes
      return { likes[Int($0)] }
    }
    let n = modelCount
    var sums = [Double](repeating: 0, count: n)
    weights.withUnsafeBufferPointer { b in
      sums.withUnsafeMutableBufferPointer { s in
        for (i, x, _) in query {
          Self.addRow(b.baseAddress! + i * n, times: x, into: s.baseAddress!, count: n)
        }
      }
    }
    let modelIndex = self.modelIndex
    return { c in
      let m = modelIndex[Int(c)]
      return m >= 0 ? sums[Int(m)] : 0
    }
  }

  package func explain(_ context: inout ScoringContext, positions: [Int]) -> [ScoreExplanation] {
    let query = self.query(context.userHistory)
    let own = scorer(query)
    let scores = score(&context).values
    return positions.map { k in
      let item = context.candidates[k]
      return fallback.explain(item, own: own) {
        explainOwn(Int(item), score: scores[k], query: query)
      }
    }
  }

  /// The model's own explanation of catalog dish `c`.
  private func explainOwn(
    _ c: Int, score: Double, query: [(model: Int, x: Double, item: Int32)]
  ) -> ScoreExplanation {
    guard !query.isEmpty else {
      return ScoreExplanation(
        score: score, inputs: [ScorePart("likes", likes[c])], formula: "likes")
    }
    let m = Int(modelIndex[c])
    // The diner's dishes' weights on this one, in the order the score adds them.
    let terms =
      m < 0
      ? []
      : query.map { j, x, item in
        ScorePart("liked", x * weights[j * modelCount + m], about: itemIDs[Int(item)])
      }
    return ScoreExplanation(
      score: score, terms: terms,
      inputs: [ScorePart("in_model", m < 0 ? 0 : 1), ScorePart("lambda", lambda)],
      formula: ScoreExplanation.sumOfTerms)
  }

  /// The diner's row of X over the model's dishes, in catalog order: the model index, the
  /// entry and the catalog index of each dish.
  private func query(_ history: UserHistory?) -> [(model: Int, x: Double, item: Int32)] {
    var query: [(model: Int, x: Double, item: Int32)] = []
    guard let records = history?.records else { return query }
    for record in records {
      let i = Int(record.item)
      guard i < modelIndex.count, modelIndex[i] >= 0 else { continue }
      let x = entry(record)
      if x != 0 { query.append((Int(modelIndex[i]), x, record.item)) }
    }
    return query
  }

  /// s += x * row, for x 1 or -1 (exact either way).
  @inline(__always)
  private static func addRow(
    _ row: UnsafePointer<Double>, times x: Double, into s: UnsafeMutablePointer<Double>,
    count n: Int
  ) {
    let rowRaw = UnsafeRawPointer(row)
    let sumRaw = UnsafeMutableRawPointer(s)
    var j = 0
    if x == 1 {
      while j + 4 <= n {
        let v =
          sumRaw.loadUnaligned(fromByteOffset: j * 8, as: SIMD4<Double>.self)
          + rowRaw.loadUnaligned(fromByteOffset: j * 8, as: SIMD4<Double>.self)
        sumRaw.storeBytes(of: v, toByteOffset: j * 8, as: SIMD4<Double>.self)
        j += 4
      }
      while j < n {
        s[j] += row[j]
        j += 1
      }
    } else {
      while j + 4 <= n {
        let v =
          sumRaw.loadUnaligned(fromByteOffset: j * 8, as: SIMD4<Double>.self)
          - rowRaw.loadUnaligned(fromByteOffset: j * 8, as: SIMD4<Double>.self)
        sumRaw.storeBytes(of: v, toByteOffset: j * 8, as: SIMD4<Double>.self)
        j += 4
      }
      while j < n {
        s[j] -= row[j]
        j += 1
      }
    }
  }

  /// The learned weight B_ij between catalog dishes i and j (0 when either is outside the
  /// model), for tests.
  func weight(_ i: Int32, _ j: Int32) -> Double {
    let a = modelIndex[Int(i)]
    let b = modelIndex[Int(j)]
    guard a >= 0, b >= 0 else { return 0 }
    return weights[Int(a) * modelCount + Int(b)]
  }

  /// The number of dishes in the model (with a non-zero column in X).
  package var dishes: Int { modelCount }
}
