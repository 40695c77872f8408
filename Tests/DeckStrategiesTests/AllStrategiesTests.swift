import DeckCore
import DeckStrategies
import Testing

/// Contract checks run against every registered built-in with its default options.
@Suite("Every built-in strategy")
struct AllStrategiesTests {
  static let identifiers = StrategyRegistry.identifiers

  /// Varied history: tags, several diners, likes and passes on different days.
  static func history() throws -> ExampleRunner.Fixture {
    try fixture(
      items: [
        "a:soup:warm|tofu", "b:rice:egg", "c:rice:pork|warm", "d:noodles:cold", "e:side:tofu",
        "f:fried:pork", "g:fish",
      ],
      events: [
        "u1 a right 2026-01-02", "u1 c right 2026-01-08", "u1 d left 2026-01-09",
        "u2 a right 2026-01-03", "u2 b right 2026-01-03", "u2 c left 2026-01-04",
        "u3 c right 2026-01-05", "u3 f right 2026-01-05", "u3 g left 2026-01-06",
        "u4 e right 2026-01-07", "u4 a left 2026-01-07", "u5 b right 2026-01-01",
      ])
  }

  @Test(
    "one finite score per candidate, for any diner, date, seed and candidate subset",
    arguments: identifiers)
  func finite(_ identifier: String) throws {
    let f = try Self.history()
    let s = try learned(identifier, on: f)
    let subsets: [[Int32]] = [[0, 1, 2, 3, 4, 5, 6], [1, 4], [6], []]
    for user in ["u1", "u3", "nobody"] {
      for date in ["2026-01-10", "2027-03-01"] {
        for seed: UInt64 in [0, 42, .max] {
          for subset in subsets {
            let values = scores(s, f, user: user, date: date, seed: seed, candidates: subset)
            #expect(values.count == subset.count)
            #expect(values.allSatisfy { $0.isFinite }, "\(user) \(date) \(seed): \(values)")
          }
        }
      }
    }
  }

  @Test(
    "the same (seed, date, diner) gives the same scores, alone or in any batch order",
    arguments: identifiers)
  func deterministic(_ identifier: String) throws {
    let f = try Self.history()
    let s = try learned(identifier, on: f)
    let again = try learned(identifier, on: f)
    let users = ["u1", "u2", "u3", "u4", "u5", "nobody"]
    let alone = users.map { scores(s, f, user: $0) }
    #expect(users.map { scores(again, f, user: $0) } == alone)
    var batch = users.reversed().map {
      ScoringContext(
        user: UserProfile(id: $0), userHistory: f.history.users[$0], date: f.date,
        candidates: (0..<7).map { $0 }, seed: f.seed)
    }
    let reversed = try s.score(&batch)
    #expect(reversed.map(\.values) == alone.reversed())
    for result in reversed {
      if let p = result.propensities {
        #expect(p.count == result.values.count)
        #expect(p.allSatisfy { $0 > 0 && $0 <= 1 })
      }
    }
  }
}
