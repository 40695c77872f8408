import DeckCore
import Testing

@testable import DeckStrategies

@Suite("itemknn strategy")
struct ItemKNNStrategyTests {
  /// Likes: a {u1, u2, u3}, b {u2, u3}, c {u3, u4}, d {u4}, e {u1}; u1 passed on c.
  /// With the pass as an interaction (the default): a {u1, u2, u3}, b {u2, u3},
  /// c {u1, u3, u4}, d {u4}, e {u1}, so co-interactions a-b 2, a-c 2, a-e 1, b-c 1, c-d 1,
  /// c-e 1. Likes only: a-b 2, a-c 1, a-e 1, b-c 1, c-d 1.
  static func history() throws -> ExampleRunner.Fixture {
    try fixture(
      items: ["a:soup", "b:rice", "c:noodles", "d:fried", "e:fish", "f:side"],
      events: [
        "u1 a right 2026-01-08", "u1 e right 2026-01-02", "u1 c left 2026-01-09",
        "u2 a right 2026-01-03", "u2 b right 2026-01-03",
        "u3 a right 2026-01-04", "u3 b right 2026-01-04", "u3 c right 2026-01-04",
        "u4 c right 2026-01-05", "u4 d right 2026-01-05",
      ])
  }

  static func make(_ options: [String: String] = [:]) throws -> ItemKNNStrategy {
    try #require(try StrategyRegistry.make("itemknn", options: options) as? ItemKNNStrategy)
  }

  static let r3 = 3.0.squareRoot()
  static let r6 = 6.0.squareRoot()
  /// The popularity term of each dish at the default weight: 0.01 x likers / 3.
  static let term = [1, 2.0 / 3, 2.0 / 3, 1.0 / 3, 1.0 / 3, 0].map { 0.01 * $0 }

  @Test("learned neighbours: cosine of the interaction vectors, best first, ties by catalog order")
  func neighbours() throws {
    let f = try Self.history()
    let s = try Self.make()
    try s.learn(catalog: f.catalog, history: f.history)
    let a = s.neighbours(of: 0)
    #expect(a.map(\.item) == [1, 2, 4])
    #expect(a.map(\.similarity) == [2 / Self.r6, 2 / 3, 1 / Self.r3])
    // c: a 2/3, then d and e tie at 1/sqrt(3) (catalog order), then b 1/sqrt(6).
    #expect(s.neighbours(of: 2).map(\.item) == [0, 3, 4, 1])
    #expect(
      s.neighbours(of: 2).map(\.similarity) == [2 / 3, 1 / Self.r3, 1 / Self.r3, 1 / Self.r6])
    #expect(s.neighbours(of: 5).isEmpty)

    // left_swipes ignore: likes only, c's likers are u3 and u4.
    let likes = try Self.make(["left_swipes": "ignore"])
    try likes.learn(catalog: f.catalog, history: f.history)
    #expect(likes.neighbours(of: 0).map(\.item) == [1, 4, 2])
    #expect(likes.neighbours(of: 0).map(\.similarity) == [2 / Self.r6, 1 / Self.r3, 1 / Self.r6])
    #expect(likes.neighbours(of: 2).map(\.item) == [3, 1, 0])

    // saved_neighbours 1 keeps the best; min_similarity drops the weaker pairs.
    let one = try Self.make(["saved_neighbours": "1"])
    try one.learn(catalog: f.catalog, history: f.history)
    #expect(one.neighbours(of: 0).map(\.item) == [1])
    #expect(one.neighbours(of: 2).map(\.item) == [0])
    #expect(one.neighbours(of: 4).map(\.item) == [0])
    let strong = try Self.make(["min_similarity": "0.6"])
    try strong.learn(catalog: f.catalog, history: f.history)
    #expect(strong.neighbours(of: 0).map(\.item) == [1, 2])
    #expect(strong.neighbours(of: 3).isEmpty)
  }

  @Test("scores: the largest similarities to the diner's likes plus 0.01 x the likers' share")
  func formula() throws {
    let f = try Self.history()
    let s = scores(try learned("itemknn", on: f), f)
    // u1's query: a and e (the pass on c is not a query dish). Likers: a 3, b 2, c 2, d 1,
    // e 1, f 0 of at most 3.
    let expected = [
      1 / Self.r3 + 0.01,
      2 / Self.r6 + 0.01 * 2 / 3,
      (2 / 3 + 1 / Self.r3) + 0.01 * 2 / 3,
      0.01 / 3,
      1 / Self.r3 + 0.01 / 3,
      0,
    ]
    for k in 0..<6 { #expect(abs(s[k] - expected[k]) < 1e-15, "\(k)") }
    #expect(ranking(s, f) == ["c", "b", "a", "e", "d", "f"])

    // neighbours 1: c counts only its most similar query dish, a (2/3).
    let one = scores(try learned("itemknn", ["neighbours": "1"], on: f), f)
    #expect(abs(one[2] - (2 / 3 + 0.01 * 2 / 3)) < 1e-15)
    #expect(one[1] == s[1] && one[0] == s[0])
    // min_neighbours 2: only c is reached by two query dishes; the others keep the term only.
    let two = scores(try learned("itemknn", ["min_neighbours": "2"], on: f), f)
    #expect(two[2] == s[2])
    #expect(two[0] == Self.term[0] && two[1] == Self.term[1] && two[4] == Self.term[4])
    // saved_neighbours 1: a's row holds b only, e's row a only (a and c tie; catalog order).
    let saved = scores(try learned("itemknn", ["saved_neighbours": "1"], on: f), f)
    #expect(abs(saved[1] - s[1]) < 1e-15 && abs(saved[0] - s[0]) < 1e-15)
    #expect(saved[2] == Self.term[2] && saved[4] == Self.term[4])
  }

  @Test("left_swipes: ignore learns from likes only; interactions makes the pass a query dish")
  func leftSwipes() throws {
    let f = try Self.history()
    let ignore = scores(try learned("itemknn", ["left_swipes": "ignore"], on: f), f)
    let likesOnly = [1 / Self.r3 + 0.01, 2 / Self.r6 + 0.01 * 2 / 3, 1 / Self.r6 + 0.01 * 2 / 3]
    for k in 0..<3 { #expect(abs(ignore[k] - likesOnly[k]) < 1e-15, "\(k)") }
    // interactions: the query is a, c and e; d is reached through the pass on c.
    let all = scores(try learned("itemknn", ["left_swipes": "interactions"], on: f), f)
    let expected = [
      (2 / 3 + 1 / Self.r3) + 0.01,
      (2 / Self.r6 + 1 / Self.r6) + 0.01 * 2 / 3,
      (2 / 3 + 1 / Self.r3) + 0.01 * 2 / 3,
      1 / Self.r3 + 0.01 / 3,
      (1 / Self.r3 + 1 / Self.r3) + 0.01 / 3,
      0,
    ]
    for k in 0..<6 { #expect(abs(all[k] - expected[k]) < 1e-15, "\(k)") }
    #expect(
      message { _ = try StrategyRegistry.make("itemknn", options: ["left_swipes": "sometimes"]) }
        == "strategy 'itemknn' option 'left_swipes': 'sometimes' is not one of ignore, similarity, interactions"
    )
  }

  @Test("recent_likes keeps the most recent likes; recent_days the window before the date")
  func query() throws {
    let f = try Self.history()
    let all = scores(try learned("itemknn", on: f), f)
    // recent_likes 1: only a (2026-01-08); e (2026-01-02) is dropped, so nothing lifts a.
    let latest = scores(try learned("itemknn", ["recent_likes": "1"], on: f), f)
    #expect(latest[0] == 0.01)
    #expect(abs(latest[1] - all[1]) < 1e-15)
    #expect(abs(latest[2] - (2 / 3 + 0.01 * 2 / 3)) < 1e-15)
    // recent_days 8: 2026-01-02 is the first day in the window, so e still counts; 7 drops it.
    #expect(scores(try learned("itemknn", ["recent_days": "8"], on: f), f) == all)
    #expect(scores(try learned("itemknn", ["recent_days": "7"], on: f), f) == latest)
    // recent_days 1: nothing liked on 2026-01-09 (c was a pass), so the popularity term only.
    let none = scores(try learned("itemknn", ["recent_days": "1"], on: f), f)
    #expect(none == Self.term)
    // With the pass as a query dish, recent_days 1 keeps c (swiped 2026-01-09).
    let pass = scores(
      try learned("itemknn", ["recent_days": "1", "left_swipes": "interactions"], on: f), f)
    #expect(abs(pass[3] - (1 / Self.r3 + 0.01 / 3)) < 1e-15)
  }

  @Test("a diner without history gets the popularity order; pick_rate and weight 0 as told")
  func noHistory() throws {
    let f = try Self.history()
    let s = try learned("itemknn", on: f)
    #expect(scores(s, f, user: "nobody") == Self.term)
    let rate = try learned("itemknn", ["popularity": "pick_rate"], on: f)
    let popularity = try learned("popularity", ["prior": "fixed"], on: f)
    #expect(ranking(scores(rate, f, user: "nobody"), f) == ranking(scores(popularity, f), f))
    let flat = try learned("itemknn", ["weight_popularity": "0"], on: f)
    #expect(scores(flat, f, user: "nobody") == [0, 0, 0, 0, 0, 0])
    #expect(
      message { _ = try StrategyRegistry.make("itemknn", options: ["popularity": "count"]) }
        == "strategy 'itemknn' option 'popularity': 'count' is not one of likers, pick_rate")
  }

  /// LensKit's implicit item-item by brute force on a dense matrix: the reference the sparse
  /// learn and the grouped scoring must equal.
  static func reference(
    _ f: ExampleRunner.Fixture, user: String, left: String, neighbours: Int, saved: Int,
    minSimilarity: Double, minNeighbours: Int
  ) -> [Double] {
    let n = f.catalog.count
    var sets = [Set<String>](repeating: [], count: n)
    var likers = [Int](repeating: 0, count: n)
    for id in f.history.userIDs {
      for r in f.history.users[id]!.records {
        if r.right > 0 || left != "ignore" { sets[Int(r.item)].insert(id) }
        if r.right > 0 { likers[Int(r.item)] += 1 }
      }
    }
    var sim = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
    var rows: [[Int]] = []
    for i in 0..<n {
      var row: [Int] = []
      for j in 0..<n where j != i {
        let co = sets[i].intersection(sets[j]).count
        guard co > 0 else { continue }
        sim[i][j] = Double(co) / (Double(sets[i].count) * Double(sets[j].count)).squareRoot()
        if sim[i][j] >= minSimilarity { row.append(j) }
      }
      row.sort { sim[i][$0] != sim[i][$1] ? sim[i][$0] > sim[i][$1] : $0 < $1 }
      rows.append(saved > 0 ? Array(row.prefix(saved)) : row)
    }
    let records = f.history.users[user].map { Array($0.records) } ?? []
    let query = records.filter { $0.right > 0 || (left == "interactions" && $0.left > 0) }
      .map { Int($0.item) }
    let most = Double(likers.max()!)
    return (0..<n).map { i in
      let reached = query.filter { rows[$0].contains(i) }.map { sim[$0][i] }.sorted(by: >)
      let sum = reached.count >= minNeighbours ? reached.prefix(neighbours).reduce(0, +) : 0
      return sum + 0.01 * Double(likers[i]) / most
    }
  }

  @Test(
    "equals the dense brute force on a seeded log, for every left_swipes and neighbourhood",
    arguments: ["ignore", "similarity", "interactions"])
  func bruteForce(left: String) throws {
    let items = (0..<30).map { "d\($0):c\($0 % 4)" }
    var stream = RandomStream(seed: 27, date: DeckDate(year: 2026, month: 1, day: 1)!, user: "t")
    var events: [String] = []
    for u in 0..<60 {
      // Diners like dishes of one half of the menu more often: the similarities vary.
      let half = u % 2
      for _ in 0..<(2 + stream.nextInt(below: 9)) {
        let d = stream.nextInt(below: 15) * 2 + (stream.nextDouble() < 0.8 ? half : 1 - half)
        let dir = stream.nextDouble() < 0.7 ? "right" : "left"
        events.append("u\(u) d\(d) \(dir) 2026-01-0\(1 + stream.nextInt(below: 9))")
      }
    }
    let f = try fixture(items: items, events: events)
    let cases: [(neighbours: Int, saved: Int, minSimilarity: Double, minNeighbours: Int)] = [
      (200, 0, 0, 1), (3, 0, 0, 1), (5, 4, 0, 1), (2, 10, 0.2, 2), (1_000, 25, 0.1, 3),
    ]
    for c in cases {
      let s = try learned(
        "itemknn",
        [
          "left_swipes": left, "neighbours": "\(c.neighbours)", "saved_neighbours": "\(c.saved)",
          "min_similarity": "\(c.minSimilarity)", "min_neighbours": "\(c.minNeighbours)",
        ], on: f)
      for user in ["u0", "u1", "u7", "u30", "nobody"] {
        let got = scores(s, f, user: user)
        let want = Self.reference(
          f, user: user, left: left, neighbours: c.neighbours, saved: c.saved,
          minSimilarity: c.minSimilarity, minNeighbours: c.minNeighbours)
        for i in 0..<items.count {
          #expect(abs(got[i] - want[i]) < 1e-12, "\(c) \(user) d\(i): \(got[i]) \(want[i])")
        }
      }
    }
  }

  @Test("keepBest keeps the k best (ties by catalog order) on both of its paths")
  func keepBest() {
    var stream = RandomStream(seed: 5, date: DeckDate(year: 2026, month: 1, day: 1)!, user: "k")
    for size in [0, 1, 7, 40, 300] {
      // Few distinct values, so that ties are common.
      let row = (0..<size).map { (item: Int32($0), similarity: Double(stream.nextInt(below: 6))) }
        .shuffled(using: &stream)
      let sorted = row.sorted {
        $0.similarity != $1.similarity ? $0.similarity > $1.similarity : $0.item < $1.item
      }
      for k in [1, 3, 20, 150, 400] {
        var kept = row
        ItemKNNStrategy.keepBest(&kept, k)
        #expect(kept.map(\.item) == sorted.prefix(k).map(\.item), "\(size) \(k)")
      }
    }
  }

  @Test("deterministic, independent of batch order, finite; learning again replaces")
  func determinism() throws {
    let f = try Self.history()
    let s = try learned("itemknn", on: f)
    let users = ["u1", "u2", "u3", "u4", "nobody"]
    let single = users.map { scores(s, f, user: $0) }
    var batch = users.reversed().map {
      ScoringContext(
        user: UserProfile(id: $0), userHistory: f.history.users[$0], date: f.date,
        candidates: (0..<6).map { $0 }, seed: 1)
    }
    #expect(try s.score(&batch).map(\.values) == single.reversed())
    #expect(single.allSatisfy { $0.allSatisfy { $0.isFinite } })
    let empty = try fixture(items: ["a:soup", "b:rice", "c:noodles", "d:fried", "e:fish", "f:side"])
    try s.learn(catalog: empty.catalog, history: empty.history)
    #expect(scores(s, f) == [0, 0, 0, 0, 0, 0])
  }

  @Test("options out of range name the option")
  func badOptions() {
    #expect(
      message { _ = try StrategyRegistry.make("itemknn", options: ["neighbours": "0"]) }
        == "strategy 'itemknn' option 'neighbours': '0' is out of range: give a whole number from 1 to 1000000"
    )
    #expect(
      message { _ = try StrategyRegistry.make("itemknn", options: ["recent_days": "2.5"]) }
        == "strategy 'itemknn' option 'recent_days': '2.5' is not a whole number; give a whole number from 0 to 36500"
    )
    #expect(
      message { _ = try StrategyRegistry.make("itemknn", options: ["min_similarity": "1.5"]) }
        == "strategy 'itemknn' option 'min_similarity': '1.5' is out of range: give a number from 0.0 to 1.0"
    )
  }
}
