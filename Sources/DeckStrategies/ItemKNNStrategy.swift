import DeckCore

/// Item-to-item collaborative filtering in the manner of LensKit's implicit-feedback item-item
/// scorer (Deshpande and Karypis 2004; LensKit's `ItemKNNScorer` with `feedback="implicit"`).
///
/// At `learn`, every diner's interactions are a binary vector over the dishes: the dishes they
/// swiped right on, and with `left_swipes` `similarity` or `interactions` also those they swiped
/// left on (a diner who swiped on two dishes either way links them). Two dishes are as similar
/// as the cosine of their "interacted with by" vectors over the diners:
///
///     sim(i, j) = co(i, j) / sqrt(n(i) * n(j))
///
/// with `co(i, j)` the diners who interacted with both and `n(i)` those who interacted with `i`.
/// A dish keeps as neighbours the `saved_neighbours` most similar other dishes whose similarity
/// is at least `min_similarity` (ties by catalog order; a dish is never its own neighbour;
/// pairs nobody shares are not neighbours). This is computed once per `learn`, sparse: each
/// dish's row comes from the diners who interacted with it.
///
/// At scoring, the query is the diner's own dishes: their likes, and with `left_swipes`
/// `interactions` also their passes. A candidate `i` is scored by the dishes `j` of the query
/// that have it among their neighbours: the `neighbours` most similar of them count, and
///
///     score(i) = sum of the neighbours largest sim(j, i), j in the query
///                + weight_popularity * popularity(i)
///
/// when at least `min_neighbours` query dishes reach it, else only the popularity term.
/// `popularity` is the diners who liked the dish over those who liked the most liked one
/// (`popularity` `likers`, the most-popular count), or the `popularity` strategy's Beta(1, 1)
/// posterior mean pick rate (`pick_rate`): the small term breaks ties between dishes the query
/// does not reach, and it is the whole score for a diner without history, who gets the
/// popularity order.
///
/// `recent_days` and `recent_likes` (both 0, off, by default) narrow the query to the dishes
/// swiped within that many days before the deck date, or to the most recent of them: on a log
/// that spans years a short window sees almost nothing.
///
/// Explanation: one term `neighbour` per query dish counted in the sum (about that dish, its
/// similarity to the candidate) and the term `popularity` (weight_popularity x popularity),
/// which sum to the score; the inputs `reached` (query dishes that reach the candidate),
/// `min_neighbours`, `neighbours`, `popularity` and `weight_popularity`.
///
/// A dish with no swipes at all (`cold=features`, the default) scores the similarity-weighted
/// mean of the diner's scores of the `cold_neighbours` swiped dishes most like it by features
/// (`FeatureFallback`, explained there); `cold=none` leaves it its score above.
package final class ItemKNNStrategy: BuiltinStrategy, ExplainingStrategy {
  /// How left swipes enter the model.
  enum LeftSwipes: String, CaseIterable {
    /// Left swipes play no part.
    case ignore
    /// A left swipe is an interaction for the similarities; the query is the likes.
    case similarity
    /// A left swipe is an interaction for the similarities and in the query (LensKit's
    /// implicit feedback: every rating is an interaction).
    case interactions
  }

  /// What the popularity term is.
  enum PopularityTerm: String, CaseIterable {
    /// The diners who liked the dish over those who liked the most liked dish (0...1): the
    /// "most popular" count.
    case likers
    /// The popularity strategy's Beta(1, 1) posterior mean pick rate.
    case pickRate = "pick_rate"
  }

  package static let description = StrategyDescription(
    identifier: "itemknn",
    summary:
      "item-item kNN: sum of the cosine similarities of a dish to the diner's most similar dishes",
    options: [
      OptionSpec(
        "neighbours", .int, default: .int(200), range: 1...1_000_000,
        tuning: [.int(20), .int(50), .int(200), .int(1000)],
        "at most this many of the diner's dishes most similar to a candidate are summed"),
      OptionSpec(
        "saved_neighbours", .int, default: .int(0), range: 0...1_000_000,
        "most similar dishes kept per dish at learn (top-k of the cosine similarity); 0: all"),
      OptionSpec(
        "min_similarity", .double, default: .double(0), range: 0...1,
        "pairs of dishes less similar than this are not neighbours"),
      OptionSpec(
        "min_neighbours", .int, default: .int(1), range: 1...1_000_000,
        "a candidate reached by fewer of the diner's dishes gets only the popularity term"),
      OptionSpec(
        "left_swipes", .string, default: .string("similarity"),
        tuning: [.string("ignore"), .string("similarity"), .string("interactions")],
        "ignore: left swipes play no part; similarity: a left swipe is an interaction for the"
          + " similarities; interactions: also a query dish"),
      OptionSpec(
        "recent_days", .int, default: .int(0), range: 0...36_500,
        "only dishes swiped at most this many days before the deck date are the query; 0: all"
      ),
      OptionSpec(
        "recent_likes", .int, default: .int(0), range: 0...1_000_000,
        "at most this many of the diner's most recently swiped dishes are the query; 0: all"),
      OptionSpec(
        "weight_popularity", .double, default: .double(0.01), range: 0...1_000,
        "weight of the dish's popularity (0...1) added to its similarity sum; breaks ties"),
      OptionSpec(
        "popularity", .string, default: .string("likers"),
        "likers: diners who liked the dish / those who liked the most liked dish; pick_rate:"
          + " the popularity strategy's Beta(1, 1) pick rate"),
    ] + FeatureFallback.options(default: .features, neighbours: 100),
    examples: [
      StrategyExample(
        "tonkatsu liked: katsudon (2 co-likers, 2 / sqrt(4 x 2) = 0.71) before miso soup (0.50); "
          + "new oyakodon, a rice dish like katsudon, takes katsudon's 0.71",
        items: exampleCoLikeMenu + ["oyakodon:rice"],
        events: exampleCoLikes,
        expected: ["katsudon", "oyakodon", "miso-soup", "tonkatsu", "zaru-soba"]),
      StrategyExample(
        "passes link dishes too: two diners swiped on tonkatsu and liked katsudon (0.71)",
        items: passMenu,
        events: passSwipes,
        expected: ["katsudon", "oyakodon", "tonkatsu", "tamagoyaki"]),
      StrategyExample(
        "left_swipes ignore: only u2 liked tonkatsu with another dish, so oyakodon comes first",
        items: passMenu,
        events: passSwipes,
        options: ["left_swipes": "ignore"],
        expected: ["oyakodon", "katsudon", "tonkatsu", "tamagoyaki"]),
      StrategyExample(
        "a diner without history gets the dishes by how many diners liked them",
        items: ["oyakodon:rice", "tonkatsu:fried", "miso-soup:soup"],
        events: [
          "u2 tonkatsu right 2026-01-05", "u3 tonkatsu right 2026-01-06",
          "u3 miso-soup right 2026-01-06", "u4 oyakodon left 2026-01-07",
        ],
        expected: ["tonkatsu", "miso-soup", "oyakodon"]),
    ])

  /// The passes examples' swipes: u1 and u2 like tonkatsu, u2 oyakodon with it; u3 and u4 pass
  /// tonkatsu and like katsudon.
  private static let passMenu = [
    "oyakodon:rice", "katsudon:rice", "tonkatsu:fried", "tamagoyaki:side",
  ]
  private static let passSwipes = [
    "u1 tonkatsu right 2026-01-09", "u2 tonkatsu right 2026-01-02",
    "u2 oyakodon right 2026-01-02", "u3 tonkatsu left 2026-01-03",
    "u3 katsudon right 2026-01-03", "u4 tonkatsu left 2026-01-04",
    "u4 katsudon right 2026-01-04", "u5 tamagoyaki right 2026-01-05",
  ]

  private let neighbourCount: Int
  private let savedNeighbours: Int
  private let minSimilarity: Double
  private let minNeighbours: Int
  private let leftSwipes: LeftSwipes
  private let recentDays: Int
  private let recentLikes: Int
  private let weightPopularity: Double
  private let popularityTerm: PopularityTerm
  /// Neighbours of item i are `neighbourItems[neighbourStart[i]..<neighbourStart[i + 1]]`, with
  /// their similarities alongside, most similar first.
  private var neighbourStart: [Int] = [0]
  private var neighbourItems: [Int32] = []
  private var neighbourSimilarity: [Double] = []
  private var popularity: [Double] = []
  /// The catalog's dish ids, to name neighbours in explanations.
  private var itemIDs: [String] = []
  /// The cold dishes' feature neighbours.
  private var fallback: FeatureFallback

  package init(options: StrategyOptions) throws(StrategyError) {
    neighbourCount = options.int("neighbours")
    savedNeighbours = options.int("saved_neighbours")
    minSimilarity = options.double("min_similarity")
    minNeighbours = options.int("min_neighbours")
    leftSwipes = try options.choice("left_swipes", LeftSwipes.self)
    recentDays = options.int("recent_days")
    recentLikes = options.int("recent_likes")
    weightPopularity = options.double("weight_popularity")
    popularityTerm = try options.choice("popularity", PopularityTerm.self)
    fallback = try FeatureFallback(options: options)
  }

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {
    try PopularityStrategy.checkCoverage(
      catalog: catalog, history: history, strategy: Self.description.identifier)
    let n = history.itemCount
    let withLeft = leftSwipes != .ignore
    itemIDs = catalog.items.map(\.id)

    // Each diner's dishes (a diner-major list), and per dish the diners (a dish-major list).
    var userStart: [Int] = [0]
    var userItems: [Int32] = []
    var interacted = [Int](repeating: 0, count: n)
    var likers = [Int](repeating: 0, count: n)
    for user in history.userIDs {
      for record in history.users[user]!.records
      where record.right > 0 || (withLeft && record.left > 0) {
        userItems.append(record.item)
        interacted[Int(record.item)] += 1
        if record.right > 0 { likers[Int(record.item)] += 1 }
      }
      userStart.append(userItems.count)
    }
    switch popularityTerm {
    case .pickRate:
      popularity = PopularityStrategy.pickRates(history, priorLikes: 1, priorPasses: 1)
    case .likers:
      let most = Double(likers.max() ?? 0)
      popularity = likers.map { most > 0 ? Double($0) / most : 0 }
    }
    var itemStart = [Int](repeating: 0, count: n + 1)
    for i in 0..<n { itemStart[i + 1] = itemStart[i] + interacted[i] }
    var itemUsers = [Int32](repeating: 0, count: userItems.count)
    var fill = itemStart
    for u in 0..<(userStart.count - 1) {
      for k in userStart[u]..<userStart[u + 1] {
        let i = Int(userItems[k])
        itemUsers[fill[i]] = Int32(u)
        fill[i] += 1
      }
    }

    // Co-interaction counts of one dish against all others in a dense scratch row, then its
    // best neighbours. Counts are whole numbers and each similarity is one division of them,
    // so the result does not depend on the order of the diners.
    var co = [Int32](repeating: 0, count: n)
    var touched: [Int32] = []
    var row: [(item: Int32, similarity: Double)] = []
    var start: [Int] = [0]
    var items: [Int32] = []
    var similarity: [Double] = []
    for i in 0..<n {
      for k in itemStart[i]..<itemStart[i + 1] {
        let u = Int(itemUsers[k])
        for m in userStart[u]..<userStart[u + 1] {
          let j = userItems[m]
          guard Int(j) != i else { continue }
          if co[Int(j)] == 0 { touched.append(j) }
          co[Int(j)] += 1
        }
      }
      row.removeAll(keepingCapacity: true)
      let ni = Double(interacted[i])
      for j in touched {
        let s = Double(co[Int(j)]) / (ni * Double(interacted[Int(j)])).squareRoot()
        if s >= minSimilarity { row.append((j, s)) }
        co[Int(j)] = 0
      }
      touched.removeAll(keepingCapacity: true)
      Self.keepBest(&row, savedNeighbours > 0 ? savedNeighbours : row.count)
      for (j, s) in row {
        items.append(j)
        similarity.append(s)
      }
      start.append(items.count)
    }
    neighbourStart = start
    neighbourItems = items
    neighbourSimilarity = similarity
    fallback.learn(catalog: catalog, history: history)
  }

  /// Keeps the `k` most similar entries of `row` (ties by catalog order), most similar first.
  static func keepBest(_ row: inout [(item: Int32, similarity: Double)], _ k: Int) {
    func better(_ a: (item: Int32, similarity: Double), _ b: (item: Int32, similarity: Double))
      -> Bool
    { a.similarity != b.similarity ? a.similarity > b.similarity : a.item < b.item }
    if row.count > 2 * k {
      // Far more entries than are kept: a sorted buffer of the best k so far, each better
      // entry inserted by binary search, costs less than sorting the whole row.
      var heap = Array(row.prefix(k))
      heap.sort(by: better)
      var worst = heap[k - 1]
      for e in row.dropFirst(k) where better(e, worst) {
        var lo = 0
        var hi = k - 1
        while lo < hi {
          let mid = (lo + hi) / 2
          if better(heap[mid], e) { lo = mid + 1 } else { hi = mid }
        }
        heap.removeLast()
        heap.insert(e, at: lo)
        worst = heap[k - 1]
      }
      row = heap
    } else {
      row.sort(by: better)
      if row.count > k { row.removeLast(row.count - k) }
    }
  }

  package func score(_ context: inout ScoringContext) -> Scores {
    let candidates = context.candidates
    checkLearned(candidates)
    let own = scorer(query(context.userHistory, before: context.date))
    var values = candidates.map(own)
    fallback.apply(candidates, &values, own: own)
    return Scores(values)
  }

  /// The diner's score of any catalog dish, by the similarities alone: its neighbour sum over
  /// the query plus the popularity term, or the term alone for an empty query.
  private func scorer(_ query: [Int32]) -> (Int32) -> Double {
    guard !query.isEmpty else { return { self.popularityTerm($0) } }
    let reach = self.reach(query, sources: false)
    var order: [Int] = []
    return { self.neighbourSum(Int($0), reach, &order) + self.popularityTerm($0) }
  }

  package func explain(_ context: inout ScoringContext, positions: [Int]) -> [ScoreExplanation] {
    let candidates = context.candidates
    checkLearned(candidates)
    let query = self.query(context.userHistory, before: context.date)
    let own = scorer(query)
    let reach = self.reach(query, sources: true)
    var order: [Int] = []
    return positions.map { k in
      fallback.explain(candidates[k], own: own) {
        explainOwn(Int(candidates[k]), query: query, reach: reach, order: &order)
      }
    }
  }

  /// The similarities' own explanation of catalog dish `i`.
  private func explainOwn(_ i: Int, query: [Int32], reach: Reach, order: inout [Int])
    -> ScoreExplanation
  {
    var terms: [ScorePart] = []
    var sum = 0.0
    if !query.isEmpty {
      sum = neighbourSum(i, reach, &order)
      terms = order.map {
        ScorePart("neighbour", reach.similarity[$0], about: itemIDs[Int(reach.source[$0])])
      }
    }
    let term = popularityTerm(Int32(i))
    return ScoreExplanation(
      score: query.isEmpty ? term : sum + term,
      terms: terms + [ScorePart("popularity", term)],
      inputs: [
        ScorePart("reached", Double(reach.count.isEmpty ? 0 : reach.count[i])),
        ScorePart("min_neighbours", Double(minNeighbours)),
        ScorePart("neighbours", Double(neighbourCount)),
        ScorePart("popularity", popularity[i]),
        ScorePart("weight_popularity", weightPopularity),
      ],
      formula: ScoreExplanation.sumOfTerms)
  }

  private func checkLearned(_ candidates: [Int32]) {
    precondition(
      candidates.allSatisfy { Int($0) < popularity.count },
      "itemknn: score called before learn, or with a candidate outside the learned catalog")
  }

  @inline(__always)
  private func popularityTerm(_ candidate: Int32) -> Double {
    weightPopularity * popularity[Int(candidate)]
  }

  /// Every (query dish, neighbour) pair of one diner grouped by the neighbour: dish i's group,
  /// `start[i]..<start[i + 1]`, holds its similarities to the query dishes that reach it (and
  /// with `sources` those dishes), in query order; `count[i]` is its size.
  private struct Reach {
    var count: [Int32] = []
    var start: [Int] = []
    var similarity: [Double] = []
    var source: [Int32] = []
  }

  /// The diner's reach (a counting sort of the query dishes' neighbour lists by neighbour).
  private func reach(_ query: [Int32], sources: Bool) -> Reach {
    guard !query.isEmpty else { return Reach() }
    let n = popularity.count
    var reach = Reach()
    reach.count = [Int32](repeating: 0, count: n)
    var total = 0
    for q in query {
      let range = neighbourStart[Int(q)]..<neighbourStart[Int(q) + 1]
      total += range.count
      for k in range { reach.count[Int(neighbourItems[k])] += 1 }
    }
    reach.start = [Int](repeating: 0, count: n + 1)
    for i in 0..<n { reach.start[i + 1] = reach.start[i] + Int(reach.count[i]) }
    reach.similarity = [Double](repeating: 0, count: total)
    if sources { reach.source = [Int32](repeating: 0, count: total) }
    var fill = reach.start
    for q in query {
      for k in neighbourStart[Int(q)]..<neighbourStart[Int(q) + 1] {
        let i = Int(neighbourItems[k])
        reach.similarity[fill[i]] = neighbourSimilarity[k]
        if sources { reach.source[fill[i]] = q }
        fill[i] += 1
      }
    }
    return reach
  }

  /// Dish i's similarity sum: 0 when fewer than `min_neighbours` query dishes reach it, else
  /// the sum of its group, or of the `neighbours` largest of it added largest first (ties in
  /// query order). `order` is left holding the group entries added, in the order added.
  private func neighbourSum(_ i: Int, _ reach: Reach, _ order: inout [Int]) -> Double {
    order.removeAll(keepingCapacity: true)
    let reached = Int(reach.count[i])
    guard reached >= minNeighbours else { return 0 }
    let group = reach.start[i]..<reach.start[i + 1]
    order.append(contentsOf: group)
    if reached > neighbourCount {
      let similarity = reach.similarity
      order.sort { similarity[$0] != similarity[$1] ? similarity[$0] > similarity[$1] : $0 < $1 }
      order.removeLast(reached - neighbourCount)
    }
    var sum = 0.0
    for k in order { sum += reach.similarity[k] }
    return sum
  }

  /// The query: the diner's dishes (likes, and passes when they are interactions) within the
  /// window, the most recent `recent_likes` of them, in catalog order (so that sums add up in a
  /// fixed order).
  func query(_ history: UserHistory?, before date: DeckDate) -> [Int32] {
    guard let history else { return [] }
    let withLeft = leftSwipes == .interactions
    let first = recentDays > 0 ? Int64(date.daysSinceEpoch) - Int64(recentDays) : Int64.min
    var dishes: [(item: Int32, day: Int32)] = []
    for r in history.records {
      let day: Int32?
      if withLeft {
        day = r.lastShownDay
      } else {
        day = r.right > 0 ? r.lastRightDay : nil
      }
      guard r.right > 0 || (withLeft && r.left > 0) else { continue }
      if recentDays > 0 {
        guard let day, Int64(day) >= first else { continue }
      }
      dishes.append((r.item, day ?? Int32.min))
    }
    if recentLikes > 0 && dishes.count > recentLikes {
      dishes.sort { $0.day != $1.day ? $0.day > $1.day : $0.item < $1.item }
      dishes.removeLast(dishes.count - recentLikes)
      dishes.sort { $0.item < $1.item }
    }
    return dishes.map(\.item)
  }

  /// The learned neighbours of catalog item `item`, most similar first (for tests).
  func neighbours(of item: Int32) -> [(item: Int32, similarity: Double)] {
    (neighbourStart[Int(item)]..<neighbourStart[Int(item) + 1]).map {
      (neighbourItems[$0], neighbourSimilarity[$0])
    }
  }
}
