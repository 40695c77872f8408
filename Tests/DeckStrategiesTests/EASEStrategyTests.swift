import DeckCore
import Testing

@testable import DeckStrategies

@Suite("ease strategy")
struct EASEStrategyTests {
  /// The worked example: likers a {u1, u2}, b {u2, u4}, c {u3, u4}; d never swiped.
  static func worked(extra: [String] = []) throws -> ExampleRunner.Fixture {
    try fixture(
      items: ["a:fried", "b:rice", "c:noodles", "d:soup"],
      events: [
        "u1 a right 2026-01-02", "u2 a right 2026-01-03", "u2 b right 2026-01-03",
        "u3 c right 2026-01-04", "u4 c right 2026-01-05", "u4 b right 2026-01-05",
      ] + extra)
  }

  static func make(_ options: [String: String]) throws -> EASEStrategy {
    try #require(try StrategyRegistry.make("ease", options: options) as? EASEStrategy)
  }

  @Test("the weights of the worked example, computed by hand")
  func workedWeights() throws {
    // G + I = [[3, 1, 0], [1, 3, 1], [0, 1, 3]], P = [[8, -3, 1], [-3, 9, -3], [1, -3, 8]] / 21,
    // B_ij = -P_ij / P_jj.
    let f = try Self.worked()
    let s = try Self.make(["lambda": "1"])
    try s.learn(catalog: f.catalog, history: f.history)
    #expect(s.dishes == 3)
    let expected: [[Double]] = [
      [0, 1.0 / 3, -1.0 / 8, 0], [3.0 / 8, 0, 3.0 / 8, 0], [-1.0 / 8, 1.0 / 3, 0, 0],
      [0, 0, 0, 0],
    ]
    for i in 0..<4 {
      for j in 0..<4 {
        #expect(abs(s.weight(Int32(i), Int32(j)) - expected[i][j]) < 1e-15, "B[\(i)][\(j)]")
      }
    }
    // u1 swiped a right: the scores are row a of B.
    let u1 = scores(s, f)
    for j in 0..<4 { #expect(abs(u1[j] - expected[0][j]) < 1e-15) }
    // u4 swiped b and c: rows b + c.
    let u4 = scores(s, f, user: "u4")
    for j in 0..<4 { #expect(abs(u4[j] - (expected[1][j] + expected[2][j])) < 1e-15) }
    // Only the candidates asked for, in their order.
    let some = scores(s, f, candidates: [3, 1])
    #expect(some.count == 2)
    #expect(some[0] == 0)
    #expect(abs(some[1] - 1.0 / 3) < 1e-15)
  }

  @Test("a diner outside X gets the right-swipe counts")
  func outsideX() throws {
    let f = try Self.worked(extra: ["u5 d left 2026-01-06"])
    let s = try Self.make([:])
    try s.learn(catalog: f.catalog, history: f.history)
    #expect(scores(s, f, user: "nobody") == [2, 2, 2, 0])
    // u5 swiped only left, which `ignore` leaves out of X.
    #expect(scores(s, f, user: "u5") == [2, 2, 2, 0])
    // With left swipes as interactions u5 is in X, and d in the model.
    let interaction = try Self.make(["left": "interaction"])
    try interaction.learn(catalog: f.catalog, history: f.history)
    #expect(interaction.dishes == 4)
    #expect(scores(interaction, f, user: "u5") != [2, 2, 2, 0])
  }

  /// X dense, G = X'X + lambda I inverted by plain Gauss-Jordan, B, and X_u B for every diner.
  static func naiveScores(
    _ f: ExampleRunner.Fixture, lambda: Double, left: EASEStrategy.LeftSwipes
  ) -> [String: [Double]] {
    let n = f.catalog.count
    let users = f.history.userIDs
    var x = [[Double]](repeating: [Double](repeating: 0, count: n), count: users.count)
    for (u, id) in users.enumerated() {
      for r in f.history.users[id]!.records {
        if r.right > 0 {
          x[u][Int(r.item)] = 1
        } else if r.left > 0 {
          x[u][Int(r.item)] = [.ignore: 0, .interaction: 1, .negative: -1][left]!
        }
      }
    }
    var g = [Double](repeating: 0, count: n * n)
    for row in x {
      for i in 0..<n {
        for j in 0..<n { g[i * n + j] += row[i] * row[j] }
      }
    }
    for i in 0..<n { g[i * n + i] += lambda }
    let p = SymmetricMatrixTests.naiveInverse(g, n: n)
    var out: [String: [Double]] = [:]
    for (u, id) in users.enumerated() {
      out[id] = (0..<n).map { j in
        var s = 0.0
        for i in 0..<n where i != j { s += x[u][i] * (-p[i * n + j] / p[j * n + j]) }
        return s
      }
    }
    return out
  }

  /// 60 diners over 90 dishes, 10 of them never swiped, with rights and lefts.
  static func randomFixture(seed: UInt64) throws -> ExampleRunner.Fixture {
    var random = RandomStream(seed: seed)
    let items = (0..<90).map { "d\($0):c\($0 % 7)" }
    var events: [String] = []
    for u in 0..<60 {
      for _ in 0..<(1 + random.nextInt(below: 25)) {
        let item = random.nextInt(below: 80)
        let swipe = random.nextDouble() < 0.6 ? "right" : "left"
        events.append("u\(u) d\(item) \(swipe) 2026-01-0\(1 + random.nextInt(below: 9))")
      }
    }
    return try fixture(items: items, events: events)
  }

  @Test(
    "scores equal a naive dense EASE to 1e-9 for every use of left swipes",
    arguments: EASEStrategy.LeftSwipes.allCases)
  func againstNaive(left: EASEStrategy.LeftSwipes) throws {
    let f = try Self.randomFixture(seed: 31)
    for lambda in [0.5, 20.0] {
      // The model alone (cold=none): the never-swiped dishes score 0 as in the naive fit.
      let s = try Self.make(["lambda": String(lambda), "left": left.rawValue, "cold": "none"])
      try s.learn(catalog: f.catalog, history: f.history)
      let expected = Self.naiveScores(f, lambda: lambda, left: left)
      var checked = 0
      for id in f.history.userIDs {
        let got = scores(s, f, user: id)
        // A diner outside X gets counts, not X_u B (0 everywhere).
        guard expected[id]!.contains(where: { $0 != 0 }) else { continue }
        for j in got.indices {
          let e = expected[id]![j]
          #expect(abs(got[j] - e) <= 1e-9 * max(1, abs(e)), "\(id) d\(j) lambda \(lambda)")
        }
        checked += 1
      }
      #expect(checked > 40)
    }
  }

  @Test("the fit gives the same bits every time")
  func deterministic() throws {
    let f = try Self.randomFixture(seed: 8)
    let a = try Self.make(["lambda": "3"])
    let b = try Self.make(["lambda": "3"])
    try a.learn(catalog: f.catalog, history: f.history)
    try b.learn(catalog: f.catalog, history: f.history)
    try b.learn(catalog: f.catalog, history: f.history)
    for id in f.history.userIDs { #expect(scores(a, f, user: id) == scores(b, f, user: id)) }
  }

  @Test("more dishes with swipes than max_dishes is an error naming the option and the memory")
  func ceiling() throws {
    let f = try Self.worked()
    let s = try Self.make(["max_dishes": "2"])
    #expect(
      message { try s.learn(catalog: f.catalog, history: f.history) }
        == "strategy 'ease' option 'max_dishes': '2' is not enough for the 3 dishes with swipes"
        + " in the history: give at least 3 (the fit holds 8 x 3^2 bytes: 72 bytes)")
    #expect(EASEStrategy.size(8 * 9742 * 9742) == "760 MB")
    #expect(EASEStrategy.size(8 * 12345 * 12345) == "1.3 GB")
    let fits = try Self.make(["max_dishes": "3"])
    try fits.learn(catalog: f.catalog, history: f.history)
  }

  @Test("options: left takes three words, lambda and max_dishes their ranges")
  func options() {
    #expect(
      message { _ = try StrategyRegistry.make("ease", options: ["left": "drop"]) }
        == "strategy 'ease' option 'left': 'drop' is not one of ignore, interaction, negative")
    #expect(
      message { _ = try StrategyRegistry.make("ease", options: ["lambda": "0"]) }
        == "strategy 'ease' option 'lambda': '0' is out of range: give a number from 0.001 to"
        + " 1000000000.0")
    #expect(
      message { _ = try StrategyRegistry.make("ease", options: ["max_dishes": "50000"]) }
        == "strategy 'ease' option 'max_dishes': '50000' is out of range: give a whole number"
        + " from 1 to 40000")
  }

  @Test("the Gram matrix of sparse rows equals X'X")
  func gram() {
    // Rows: {0: 1, 2: -1}, {1: 1, 2: 1}, {0: 1, 1: 1, 2: 1}.
    let g = EASEStrategy.gram(
      n: 3, rowStart: [0, 2, 4, 7], rowItems: [0, 2, 1, 2, 0, 1, 2],
      rowValues: [1, -1, 1, 1, 1, 1, 1])
    let expected: [[Double]] = [[2, 1, 0], [1, 2, 2], [0, 2, 3]]
    for i in 0..<3 {
      for j in 0...i { #expect(g[i, j] == expected[i][j], "\(i) \(j)") }
    }
  }
}
