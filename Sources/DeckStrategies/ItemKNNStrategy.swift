import DeckCore

/// Item-to-item collaborative filtering: dishes liked by the same diners as the dishes this
/// diner liked lately.
///
/// At `learn`, for every pair of dishes the strategy counts the diners who swiped right on both
/// (`co(i, j)`) and scores the pair with the cosine similarity of the dishes' binary "liked by"
/// vectors:
///
///     sim(i, j) = co(i, j) / sqrt(likers(i) * likers(j))
///
/// and keeps for each dish its `neighbours` most similar other dishes (ties by catalog order; a
/// dish is never its own neighbour; pairs nobody liked together are not neighbours).
///
/// At scoring, the query is the diner's recent likes: the dishes they swiped right on within
/// `recent_days` days before the deck date (last right swipe on or after date - recent_days),
/// at most the `recent_likes` most recent of them (ties by catalog order). A dish scores
///
///     sum over query dishes q with i among q's neighbours of sim(q, i)
///       + weight_popularity * popularity(i)
///
/// with `popularity` the `popularity` strategy's default Beta(1, 1) posterior mean pick rate.
/// The small popularity term breaks ties between dishes the query does not reach, and it is the
/// whole score for a diner without recent likes, who gets the popularity order.
package final class ItemKNNStrategy: BuiltinStrategy {
  package static let description = StrategyDescription(
    identifier: "itemknn",
    summary:
      "sum of cosine similarities (co-liked by the same diners) to the diner's recent likes",
    options: [
      OptionSpec(
        "neighbours", .int, default: .int(20), range: 1...10_000,
        tuning: [.int(10), .int(20), .int(50), .int(100)],
        "most similar dishes kept per dish (top-k of the cosine similarity)"),
      OptionSpec(
        "recent_days", .int, default: .int(30), range: 1...36_500,
        tuning: [.int(30), .int(365), .int(36_500)],
        "likes whose last right swipe is at most this many days before the deck date are the query"
      ),
      OptionSpec(
        "recent_likes", .int, default: .int(10), range: 1...10_000,
        "at most this many of the diner's most recent likes are the query"),
      OptionSpec(
        "weight_popularity", .double, default: .double(0.01), range: 0...1_000,
        "weight of the dish's popularity (0...1) added to its similarity sum; breaks ties"),
    ],
    examples: [
      StrategyExample(
        "a diner without likes gets the popularity order",
        items: ["oyakodon:rice", "tonkatsu:fried", "miso-soup:soup"],
        events: ["u2 tonkatsu right 2026-01-05", "u3 oyakodon left 2026-01-06"],
        expected: ["tonkatsu", "miso-soup", "oyakodon"]),
      StrategyExample(
        "tonkatsu liked: katsudon (2 co-likers, 0.71) before miso soup (1, 0.50) before zaru-soba",
        items: ["zaru-soba:noodles", "miso-soup:soup", "katsudon:rice", "tonkatsu:fried"],
        events: [
          "u1 tonkatsu right 2026-01-09", "u2 tonkatsu right 2026-01-02",
          "u2 katsudon right 2026-01-02", "u3 tonkatsu right 2026-01-03",
          "u3 katsudon right 2026-01-03", "u4 tonkatsu right 2026-01-04",
          "u4 miso-soup right 2026-01-04", "u5 zaru-soba right 2026-01-05",
          "u6 zaru-soba right 2026-01-06", "u7 zaru-soba right 2026-01-07",
        ],
        expected: ["katsudon", "miso-soup", "tonkatsu", "zaru-soba"]),
      StrategyExample(
        "two recent likes lift the neighbours of both",
        items: ["oyakodon:rice", "tamagoyaki:side", "tonkatsu:fried", "katsudon:rice"],
        events: [
          "u1 oyakodon right 2026-01-01", "u1 tonkatsu right 2026-01-08",
          "u2 oyakodon right 2026-01-02", "u2 tamagoyaki right 2026-01-02",
          "u3 tonkatsu right 2026-01-03", "u3 katsudon right 2026-01-03",
        ],
        expected: ["tamagoyaki", "katsudon", "oyakodon", "tonkatsu"]),
      StrategyExample(
        "recent_days 5 forgets the oyakodon like of 2026-01-01: tamagoyaki is not lifted",
        items: ["oyakodon:rice", "tamagoyaki:side", "tonkatsu:fried", "katsudon:rice"],
        events: [
          "u1 oyakodon right 2026-01-01", "u1 tonkatsu right 2026-01-08",
          "u2 oyakodon right 2026-01-02", "u2 tamagoyaki right 2026-01-02",
          "u3 tonkatsu right 2026-01-03", "u3 katsudon right 2026-01-03",
        ],
        options: ["recent_days": "5"],
        expected: ["katsudon", "oyakodon", "tonkatsu", "tamagoyaki"]),
    ])

  private let neighbourCount: Int
  private let recentDays: Int
  private let recentLikes: Int
  private let weightPopularity: Double
  /// Neighbours of item i are `neighbourItems[neighbourStart[i]..<neighbourStart[i + 1]]`, with
  /// their similarities alongside, most similar first.
  private var neighbourStart: [Int] = [0]
  private var neighbourItems: [Int32] = []
  private var neighbourSimilarity: [Double] = []
  private var popularity: [Double] = []

  package init(options: StrategyOptions) throws(StrategyError) {
    neighbourCount = options.int("neighbours")
    recentDays = options.int("recent_days")
    recentLikes = options.int("recent_likes")
    weightPopularity = options.double("weight_popularity")
  }

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {
    try PopularityStrategy.checkCoverage(
      catalog: catalog, history: history, strategy: Self.description.identifier)
    let n = history.itemCount
    popularity = PopularityStrategy.pickRates(history, priorLikes: 1, priorPasses: 1)

    // Each diner's liked items (a diner-major list), and per item the diners who liked it.
    var likedStart: [Int] = [0]
    var liked: [Int32] = []
    var likers = [Int](repeating: 0, count: n)
    for user in history.userIDs {
      for record in history.users[user]!.records where record.right > 0 {
        liked.append(record.item)
        likers[Int(record.item)] += 1
      }
      likedStart.append(liked.count)
    }
    var itemUserStart = [Int](repeating: 0, count: n + 1)
    for i in 0..<n { itemUserStart[i + 1] = itemUserStart[i] + likers[i] }
    var itemUsers = [Int32](repeating: 0, count: liked.count)
    var fill = itemUserStart
    for u in 0..<(likedStart.count - 1) {
      for k in likedStart[u]..<likedStart[u + 1] {
        let i = Int(liked[k])
        itemUsers[fill[i]] = Int32(u)
        fill[i] += 1
      }
    }

    // Co-like counts of one item against all others in a dense scratch row, then its top k.
    var co = [Int32](repeating: 0, count: n)
    var touched: [Int32] = []
    var start: [Int] = [0]
    var items: [Int32] = []
    var similarity: [Double] = []
    for i in 0..<n {
      for k in itemUserStart[i]..<itemUserStart[i + 1] {
        let u = Int(itemUsers[k])
        for m in likedStart[u]..<likedStart[u + 1] {
          let j = liked[m]
          guard Int(j) != i else { continue }
          if co[Int(j)] == 0 { touched.append(j) }
          co[Int(j)] += 1
        }
      }
      var row = touched.map { j in
        (j, Double(co[Int(j)]) / (Double(likers[i]) * Double(likers[Int(j)])).squareRoot())
      }
      for j in touched { co[Int(j)] = 0 }
      touched.removeAll(keepingCapacity: true)
      row.sort { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
      for (j, s) in row.prefix(neighbourCount) {
        items.append(j)
        similarity.append(s)
      }
      start.append(items.count)
    }
    neighbourStart = start
    neighbourItems = items
    neighbourSimilarity = similarity
  }

  package func score(_ context: inout ScoringContext) -> Scores {
    let candidates = context.candidates
    precondition(
      candidates.allSatisfy { Int($0) < popularity.count },
      "itemknn: score called before learn, or with a candidate outside the learned catalog")
    let query = recentLikes(context.userHistory, before: context.date)
    guard !query.isEmpty else {
      return Scores(candidates.map { weightPopularity * popularity[Int($0)] })
    }
    var sums = [Double](repeating: 0, count: popularity.count)
    for q in query {
      for k in neighbourStart[Int(q)]..<neighbourStart[Int(q) + 1] {
        sums[Int(neighbourItems[k])] += neighbourSimilarity[k]
      }
    }
    return Scores(candidates.map { sums[Int($0)] + weightPopularity * popularity[Int($0)] })
  }

  /// The query: liked items within the window, the most recent `recent_likes` of them, in
  /// catalog order (so that sums add up in a fixed order).
  private func recentLikes(_ history: UserHistory?, before date: DeckDate) -> [Int32] {
    guard let history else { return [] }
    let first = Int64(date.daysSinceEpoch) - Int64(recentDays)
    var likes: [(item: Int32, day: Int32)] = history.records.compactMap { r in
      guard r.right > 0, let day = r.lastRightDay, Int64(day) >= first else { return nil }
      return (r.item, day)
    }
    if likes.count > recentLikes {
      likes.sort { $0.day != $1.day ? $0.day > $1.day : $0.item < $1.item }
      likes.removeLast(likes.count - recentLikes)
    }
    return likes.map(\.item).sorted()
  }

  /// The learned neighbours of catalog item `item`, most similar first (for tests).
  func neighbours(of item: Int32) -> [(item: Int32, similarity: Double)] {
    (neighbourStart[Int(item)]..<neighbourStart[Int(item) + 1]).map {
      (neighbourItems[$0], neighbourSimilarity[$0])
    }
  }
}
