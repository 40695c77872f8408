import DeckCore
import Foundation
import Testing

@testable import DeckStrategies

@Suite("thompson strategy and its samplers")
struct ThompsonStrategyTests {
  /// Mean and variance of `n` draws.
  static func moments(_ n: Int, _ draw: () -> Double) -> (mean: Double, variance: Double) {
    var sum = 0.0
    var squares = 0.0
    for _ in 0..<n {
      let x = draw()
      sum += x
      squares += x * x
    }
    let mean = sum / Double(n)
    return (mean, squares / Double(n) - mean * mean)
  }

  @Test(
    "gamma draws have mean and variance equal to the shape",
    arguments: [0.05, 0.5, 1, 3.7, 250])
  func gammaMoments(_ shape: Double) {
    var r = RandomStream(seed: 7)
    let n = 40_000
    let m = Self.moments(n) { Foundation.exp(r.nextLogGamma(shape: shape)) }
    // Five standard errors of the mean; the variance within 10% (a loose but failing bound for a
    // wrong shape or a wrong squeeze).
    #expect(abs(m.mean - shape) < 5 * (shape / Double(n)).squareRoot(), "\(m)")
    #expect(abs(m.variance / shape - 1) < 0.1, "\(m)")
  }

  @Test(
    "beta draws have the Beta mean and variance",
    arguments: [(2.0, 8.0), (1, 1), (0.3, 0.5), (50, 3), (0.01, 2)])
  func betaMoments(_ a: Double, _ b: Double) {
    var r = RandomStream(seed: 11)
    let n = 40_000
    let m = Self.moments(n) { r.nextBeta(alpha: a, beta: b) }
    let mean = a / (a + b)
    let variance = a * b / ((a + b) * (a + b) * (a + b + 1))
    #expect(abs(m.mean - mean) < 5 * (variance / Double(n)).squareRoot(), "\(m)")
    #expect(abs(m.variance / variance - 1) < 0.1, "\(m)")
  }

  @Test("beta draws stay in [0, 1]; a zero parameter is the degenerate limit")
  func betaEdges() {
    var r = RandomStream(seed: 3)
    for (a, b) in [(1e-6, 1e-6), (1e-6, 1e6), (1e6, 1e-6), (1e6, 1e6)] {
      for _ in 0..<200 {
        let x = r.nextBeta(alpha: a, beta: b)
        #expect(x >= 0 && x <= 1 && x.isFinite, "Beta(\(a), \(b)) gave \(x)")
      }
    }
    let before = r
    #expect(r.nextBeta(alpha: 0, beta: 3) == 0)
    #expect(r.nextBeta(alpha: 3, beta: 0) == 1)
    var copy = before
    #expect(copy.next() == r.next(), "degenerate draws consume nothing")
  }

  @Test("the open uniform is never 0 or 1")
  func openUniform() {
    var r = RandomStream(seed: 1)
    for _ in 0..<10_000 {
      let u = r.nextOpenDouble()
      #expect(u > 0 && u < 1)
    }
    // The extremes of the grid.
    let grid: Double = 0x1.0p-52
    let lowest = 0.5 * grid
    let highest = (Double(UInt64.max >> 12) + 0.5) * grid
    #expect(lowest == 0x1.0p-53)
    #expect(highest == 1 - lowest)
    #expect(highest < 1)
  }

  static let items = ["a:soup", "b:rice", "c:noodles", "d:fried", "e:fish", "f:side"]

  static func history() throws -> ExampleRunner.Fixture {
    try fixture(
      items: items,
      events: exampleSwipes("a", right: 3, left: 1)
        + exampleSwipes("b", right: 0, left: 5)
        + exampleSwipes("d", right: 7, left: 2))
  }

  @Test("scores are the diner's stream's Beta draws over the posterior, by catalog index")
  func stream() throws {
    let f = try Self.history()
    let s = try learned("thompson", ["prior_likes": "2", "prior_passes": "8"], on: f)
    var r = RandomStream(seed: 42, date: f.date, user: "u1")
    let posterior: [(Double, Double)] = [(5, 9), (2, 13), (2, 8), (9, 10), (2, 8), (2, 8)]
    let expected = posterior.map { r.nextBeta(alpha: $0.0, beta: $0.1) }
    #expect(scores(s, f) == expected)
    // A subset of candidates keeps each dish's own draw.
    #expect(scores(s, f, candidates: [1, 3, 4]) == [expected[1], expected[3], expected[4]])
  }

  @Test("the same (seed, date, diner) gives the same scores; another of any gives others")
  func determinism() throws {
    let f = try Self.history()
    let s = try learned("thompson", on: f)
    let base = scores(s, f)
    #expect(scores(s, f) == base)
    #expect(scores(try learned("thompson", on: f), f) == base)
    #expect(scores(s, f, user: "u2") != base)
    #expect(scores(s, f, date: "2026-01-11") != base)
    #expect(scores(s, f, seed: 43) != base)
    #expect(base.allSatisfy { $0 > 0 && $0 < 1 })
  }

  @Test("batch order does not change any diner's scores")
  func orderIndependent() throws {
    let f = try Self.history()
    let s = try learned("thompson", on: f)
    let users = ["u1", "u2", "v3", "nobody"]
    let single = users.map { scores(s, f, user: $0) }
    var batch = users.reversed().map {
      ScoringContext(
        user: UserProfile(id: $0), userHistory: f.history.users[$0], date: f.date,
        candidates: (0..<6).map { $0 }, seed: 42)
    }
    #expect(try s.score(&batch).map(\.values) == single.reversed())
  }

  @Test("a ts-warm prior (2, 8) centres unproven dishes on 1/5 across diners")
  func warmPrior() throws {
    let f = try fixture(items: ["a:soup"])
    let s = try learned("thompson", ["prior_likes": "2", "prior_passes": "8"], on: f)
    let n = 4000
    let mean = (0..<n).map { scores(s, f, user: "d\($0)")[0] }.reduce(0, +) / Double(n)
    // Beta(2, 8): mean 0.2, standard deviation 0.1206; five standard errors.
    #expect(abs(mean - 0.2) < 5 * 0.1206 / Double(n).squareRoot())
  }

  @Test("scores stay finite for extreme priors and an empty candidate list")
  func finite() throws {
    let f = try Self.history()
    for options in [
      ["prior_likes": "0", "prior_passes": "0.000001"],
      ["prior_likes": "1000000", "prior_passes": "0"],
      ["prior_likes": "0.000001", "prior_passes": "1000000"],
    ] {
      let s = try learned("thompson", options, on: f)
      for user in ["u1", "u2", "u3"] {
        #expect(scores(s, f, user: user).allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1 })
      }
    }
    let s = try learned("thompson", on: f)
    #expect(scores(s, f, candidates: []) == [])
  }

  @Test("a prior without weight is rejected, naming the option")
  func badPrior() {
    #expect(
      message {
        _ = try StrategyRegistry.make(
          "thompson", options: ["prior_likes": "0", "prior_passes": "0"])
      }
        == "strategy 'thompson' option 'prior_passes': '0.0' is not above 0 when prior_likes "
        + "is 0 (a dish never shown would score 0/0)")
    #expect(
      message { _ = try StrategyRegistry.make("thompson", options: ["prior_likes": "-1"]) }
        == "strategy 'thompson' option 'prior_likes': '-1' is out of range: give a number from 0.0 to 1000000.0"
    )
  }
}
