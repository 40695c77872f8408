import DeckCore
import Testing

@testable import DeckStrategies

@Suite("als strategy")
struct ALSStrategyTests {
  /// Factor rows from plain numbers.
  static func factors(_ rows: [[Double]]) -> ALSFactors {
    var f = ALSFactors(rows: rows.count, factors: rows[0].count)
    for (r, row) in rows.enumerated() {
      for (k, v) in row.enumerated() { f.values[r * f.lanes + k / 4][k % 4] = ALSScalar(v) }
    }
    return f
  }

  /// Y'Y + reg I + sum (c - 1) y y' and sum c p y, solved by Gaussian elimination with partial
  /// pivoting: the exact answer the CG solver approaches.
  static func exactSolve(
    y: [[Double]], cells: [(column: Int, confidence: Double, preference: Double)],
    regularization: Double
  ) -> [Double] {
    let k = y[0].count
    var a = [[Double]](repeating: [Double](repeating: 0, count: k), count: k)
    var b = [Double](repeating: 0, count: k)
    for row in y {
      for i in 0..<k { for j in 0..<k { a[i][j] += row[i] * row[j] } }
    }
    for i in 0..<k { a[i][i] += regularization }
    for cell in cells {
      let row = y[cell.column]
      for i in 0..<k {
        for j in 0..<k { a[i][j] += (cell.confidence - 1) * row[i] * row[j] }
        b[i] += cell.confidence * cell.preference * row[i]
      }
    }
    for c in 0..<k {
      let p = (c..<k).max { abs(a[$0][c]) < abs(a[$1][c]) }!
      a.swapAt(c, p)
      b.swapAt(c, p)
      for r in (c + 1)..<k {
        let f = a[r][c] / a[c][c]
        for j in c..<k { a[r][j] -= f * a[c][j] }
        b[r] -= f * b[c]
      }
    }
    var x = [Double](repeating: 0, count: k)
    for r in stride(from: k - 1, through: 0, by: -1) {
      var s = b[r]
      for j in (r + 1)..<k { s -= a[r][j] * x[j] }
      x[r] = s / a[r][r]
    }
    return x
  }

  static func observations(
    _ cells: [(column: Int, confidence: Double, preference: Double)]
  ) -> ALSObservations {
    var o = ALSObservations()
    for c in cells {
      o.append(column: Int32(c.column), confidence: c.confidence, preference: c.preference)
    }
    o.endRow()
    return o
  }

  static func plain(_ v: [ALSGroup], _ k: Int) -> [Double] {
    (0..<k).map { Double(v[$0 / 4][$0 % 4]) }
  }

  /// The solver works in single precision (as implicit does): to a few parts in 10^5 of the
  /// largest factor.
  @Test(
    "CG run to convergence equals the exact solve of the normal equations",
    arguments: [1, 3, 4, 5, 8, 13])
  func cgMatchesExactSolve(factors k: Int) {
    var random = RandomStream(seed: UInt64(100 + k))
    for trial in 0..<5 {
      let n = 20 + trial * 7
      let y = (0..<n).map { _ in (0..<k).map { _ in random.nextDouble() * 2 - 1 } }
      var cells: [(column: Int, confidence: Double, preference: Double)] = []
      for column in 0..<n where random.nextDouble() < 0.3 {
        let liked = random.nextDouble() < 0.6
        cells.append((column, 1 + random.nextDouble() * 20, liked ? 1 : 0))
      }
      let regularization = [0.01, 0.1, 1][trial % 3]
      let o = Self.observations(cells)
      let yf = Self.factors(y)
      let gram = ALSSolver.gram(yf, regularization: regularization, jobs: 1)
      let x = ALSSolver.solveRow(
        gram: gram, y: yf, columns: o.column[...], excess: o.excess[...], target: o.target[...],
        steps: 10 * k + 10)
      let exact = Self.exactSolve(y: y, cells: cells, regularization: regularization)
      let got = Self.plain(x, k)
      let scale = exact.map(abs).max()! + 1e-12
      for i in 0..<k {
        #expect(abs(got[i] - exact[i]) <= 5e-5 * scale, "k \(k) trial \(trial) factor \(i)")
      }
      // The padding of the last SIMD group stays 0.
      for pad in k..<(x.count * 4) { #expect(x[pad / 4][pad % 4] == 0) }
    }
  }

  @Test("a few warm-started CG steps per half step approach the exact solve")
  func halfStepApproaches() {
    var random = RandomStream(seed: 7)
    let k = 6
    let n = 40
    let y = (0..<n).map { _ in (0..<k).map { _ in random.nextDouble() } }
    let cells: [(column: Int, confidence: Double, preference: Double)] = [
      (2, 11, 1), (5, 3, 1), (9, 2, 0), (17, 21, 1), (30, 4, 0),
    ]
    let exact = Self.exactSolve(y: y, cells: cells, regularization: 0.1)
    var x = ALSFactors(rows: 1, factors: k)
    var previous = Double.infinity
    for round in 0..<12 {
      ALSSolver.solve(
        &x, fixed: Self.factors(y), observations: Self.observations(cells),
        regularization: 0.1, steps: 3, jobs: 1)
      let error = zip(x.row(0), exact).map { abs($0 - $1) }.max()!
      if round < 4 { #expect(error < previous) }
      previous = error
    }
    #expect(previous < 1e-5)
  }

  /// The worked example of docs/strategies.md: one factor, three dishes with y = 2, 1 and 0.5,
  /// regularization 0.5; the diner liked dish a once (alpha 2: c = 3, p = 1) and passed dish b
  /// once (alpha_left 1: c = 2, p = 0).
  /// A = (4 + 1 + 0.25) + 0.5 + (3 - 1) * 4 + (2 - 1) * 1 = 14.75, b = 3 * 2 = 6,
  /// x = 6 / 14.75 = 0.40678; scores 0.81356, 0.40678, 0.20339.
  @Test("the worked example: x = 6 / 14.75")
  func workedExample() {
    let y = Self.factors([[2], [1], [0.5]])
    let o = Self.observations([(0, 3, 1), (1, 2, 0)])
    let gram = ALSSolver.gram(y, regularization: 0.5, jobs: 1)
    #expect(gram[0][0] == 5.75)
    let x = ALSSolver.solveRow(
      gram: gram, y: y, columns: o.column[...], excess: o.excess[...], target: o.target[...],
      steps: 3)
    #expect(abs(Double(x[0][0]) - 6 / 14.75) < 1e-7)
    #expect(abs(Double(x[0][0]) - 0.40678) < 5e-6)
    let scores = (0..<3).map { Double(x[0][0]) * y.row($0)[0] }
    #expect(zip(scores, [0.81356, 0.40678, 0.20339]).allSatisfy { abs($0 - $1) < 5e-6 })
  }

  /// Two clusters of diners: {a, b, c} and {d, e, f}, with some left swipes.
  static func clusters(diners: Int = 30) throws -> ExampleRunner.Fixture {
    var events: [String] = []
    var random = RandomStream(seed: 5)
    for u in 0..<diners {
      let group = u % 2 == 0 ? ["a", "b", "c"] : ["d", "e", "f"]
      let other = u % 2 == 0 ? ["d", "e", "f"] : ["a", "b", "c"]
      for item in group where random.nextDouble() < 0.7 {
        events.append("u\(u) \(item) right 2026-01-0\(1 + random.nextInt(below: 8))")
      }
      if random.nextDouble() < 0.5 {
        events.append("u\(u) \(other[random.nextInt(below: 3)]) left 2026-01-02")
      }
    }
    events.append("u0 a right 2026-01-01")
    return try fixture(
      items: ["a:x", "b:x", "c:x", "d:y", "e:y", "f:y", "g:z"], events: events, user: "u0")
  }

  @Test("fold-in of a diner's swipes is their training row's solve against the learned dishes")
  func foldInEqualsTrainedRow() throws {
    let f = try Self.clusters()
    let s = try #require(
      try StrategyRegistry.make(
        "als",
        options: ["factors": "3", "iterations": "200", "cg_steps": "20", "regularization": "0.1"])
        as? ALSStrategy)
    s.prepare(seed: 42, jobs: 1)
    try s.learn(catalog: f.catalog, history: f.history)
    let model = try #require(s.learned)
    // One more diner half step, solved exactly, against the learned dishes.
    var observations = ALSObservations()
    for id in f.history.userIDs {
      let one = s.observations(of: f.history.users[id]!)
      for k in one.column.indices {
        observations.column.append(one.column[k])
        observations.excess.append(one.excess[k])
        observations.target.append(one.target[k])
      }
      observations.endRow()
    }
    var again = model.users
    ALSSolver.solve(
      &again, fixed: model.items, observations: observations, regularization: 0.1, steps: 50,
      jobs: 1)
    for id in ["u0", "u1", "u7"] {
      let history = try #require(f.history.users[id])
      let row = try #require(model.rows[id])
      let folded = Self.plain(s.diner("newcomer", history, model), 3)
      let solved = again.row(row)
      let trained = model.users.row(row)
      for k in 0..<3 {
        #expect(abs(folded[k] - solved[k]) < 1e-5, "\(id) factor \(k): \(folded) \(solved)")
        // After 200 alternations the fit has nearly converged: close to the trained row.
        #expect(abs(folded[k] - trained[k]) < 1e-2, "\(id) factor \(k): \(folded) \(trained)")
      }
      // Scored as a diner the fit never saw, with the same swipes: the folded-in row's scores.
      var newContext = ScoringContext(
        user: UserProfile(id: "newcomer"), userHistory: history, date: f.date,
        candidates: Array(0..<7), seed: 42)
      let b = s.score(&newContext).values
      for i in 0..<7 {
        let expected = zip(solved, model.items.row(i)).map { $0 * $1 }.reduce(0, +)
        #expect(abs(b[i] - expected) < 1e-5)
      }
    }
  }

  @Test("every diner scores the dishes of their own cluster above the other cluster's")
  func clustersRank() throws {
    let f = try Self.clusters()
    let s = try learned("als", ["factors": "4", "regularization": "0.05"], on: f)
    for u in 0..<30 where (f.history.users["u\(u)"]?.right ?? 0) > 0 {
      let values = scores(s, f, user: "u\(u)")
      let (own, other) = u % 2 == 0 ? (0..<3, 3..<6) : (3..<6, 0..<3)
      let mean = { (r: Range<Int>) in r.map { values[$0] }.reduce(0, +) / 3 }
      #expect(mean(own) > mean(other) + 0.3, "u\(u): \(values)")
    }
  }

  @Test("a diner with only left swipes or none gets the dishes by their count of likes")
  func noLikes() throws {
    let f = try fixture(
      items: ["a:x", "b:x", "c:x"],
      events: [
        "u2 c right 2026-01-02", "u3 c right 2026-01-02", "u3 b right 2026-01-03",
        "u1 c left 2026-01-04",
      ])
    let s = try learned("als", ["cold": "none"], on: f)
    #expect(scores(s, f, user: "u1") == [0, 1, 2])
    #expect(scores(s, f, user: "nobody") == [0, 1, 2])
    // a has no swipes: by default it takes the mean of b's and c's likes (it shares x with both).
    let cold = try learned("als", ["cold": "features"], on: f)
    #expect(scores(cold, f, user: "u1") == [1.5, 1, 2])
  }

  /// 300 diners over 300 dishes: more than one block of rows on each side.
  static func generated() throws -> ExampleRunner.Fixture {
    var events: [String] = []
    var random = RandomStream(seed: 17)
    let items = (0..<300).map { "d\($0):c\($0 % 7)" }
    for u in 0..<300 {
      for _ in 0..<(3 + random.nextInt(below: 12)) {
        let item = (u * 7 + random.nextInt(below: 40)) % 300
        let dir = random.nextDouble() < 0.75 ? "right" : "left"
        events.append("u\(u) d\(item) \(dir) 2026-01-0\(1 + random.nextInt(below: 9))")
      }
    }
    return try fixture(items: items, events: events)
  }

  @Test("the same factors, to the bit, for 1, 2, 3 and 8 threads")
  func sameForEveryJobs() throws {
    let f = try Self.generated()
    var first: ALSStrategy.Model?
    for jobs in [1, 2, 3, 8] {
      let s = try #require(
        try StrategyRegistry.make("als", options: ["factors": "10", "iterations": "4"])
          as? ALSStrategy)
      s.prepare(seed: 99, jobs: jobs)
      try s.learn(catalog: f.catalog, history: f.history)
      let model = try #require(s.learned)
      if let first {
        #expect(model.users.values == first.users.values, "jobs \(jobs)")
        #expect(model.items.values == first.items.values, "jobs \(jobs)")
        #expect(model.itemGram == first.itemGram, "jobs \(jobs)")
      } else {
        first = model
      }
    }
  }

  @Test("the initial factors come from the run's seed: another seed, other factors")
  func seeded() throws {
    let f = try Self.generated()
    func fit(_ seed: UInt64) throws -> ALSStrategy.Model {
      let s = try #require(
        try StrategyRegistry.make("als", options: ["factors": "5", "iterations": "2"])
          as? ALSStrategy)
      s.prepare(seed: seed, jobs: 1)
      try s.learn(catalog: f.catalog, history: f.history)
      return try #require(s.learned)
    }
    let a = try fit(1)
    #expect(try fit(1).items.values == a.items.values)
    #expect(try fit(2).items.values != a.items.values)
  }

  @Test("confidence and preference of each cell follow the swipes")
  func cells() throws {
    let f = try fixture(
      items: ["a:x", "b:x", "c:x"],
      events: [
        "u1 a right 2026-01-01", "u1 a right 2026-01-02", "u1 a left 2026-01-03",
        "u1 b left 2026-01-02", "u1 b left 2026-01-03", "u2 c right 2026-01-02",
      ])
    let history = try #require(f.history.users["u1"])
    for (alphaLeft, expected) in [
      ("0.5", ALSObservations(start: [0, 2], column: [0, 1], excess: [8, 1], target: [9, 0])),
      ("0", ALSObservations(start: [0, 1], column: [0], excess: [8], target: [9])),
    ] {
      let s = try #require(
        try StrategyRegistry.make("als", options: ["alpha": "4", "alpha_left": alphaLeft])
          as? ALSStrategy)
      #expect(s.observations(of: history) == expected, "alpha_left \(alphaLeft)")
    }
  }
}
