import DeckCore
import DeckStrategies
import Testing

@Suite("random strategy")
struct RandomStrategyTests {
  static let items = (1...12).map { "d\($0):c\($0 % 4)" }

  @Test(
    "the same (seed, date, user) gives the same scores, call after call and instance to instance")
  func deterministic() throws {
    let f = try fixture(items: Self.items)
    let a = try learned("random", on: f)
    let b = try learned("random", on: f)
    let first = scores(a, f)
    #expect(scores(a, f) == first)
    #expect(scores(b, f) == first)
    #expect(first.allSatisfy { $0 >= 0 && $0 < 1 })
    #expect(Set(first).count == first.count)
  }

  @Test("another user, date or seed gives another order")
  func differs() throws {
    let f = try fixture(items: Self.items)
    let s = try learned("random", on: f)
    let base = ranking(scores(s, f), f)
    #expect(ranking(scores(s, f, user: "u2"), f) != base)
    #expect(ranking(scores(s, f, date: "2026-01-11"), f) != base)
    #expect(ranking(scores(s, f, seed: 43), f) != base)
    // Over many users each item leads sometimes: the order is not a fixed permutation.
    let leaders = Set((0..<200).map { ranking(scores(s, f, user: "user\($0)"), f)[0] })
    #expect(leaders.count == Self.items.count)
  }

  @Test("scores do not depend on the order in which diners are scored, alone or in a batch")
  func orderIndependent() throws {
    let f = try fixture(items: Self.items)
    let users = ["u1", "u2", "u3", "zoe"]
    let s1 = try learned("random", on: f)
    let forward = users.map { scores(s1, f, user: $0) }
    let s2 = try learned("random", on: f)
    let backward = users.reversed().map { scores(s2, f, user: $0) }
    #expect(forward == Array(backward.reversed()))

    var batch = users.reversed().map {
      ScoringContext(
        user: UserProfile(id: $0), userHistory: nil, date: f.date,
        candidates: (0..<Int32(f.catalog.count)).map { $0 }, seed: f.seed)
    }
    let batched = try s2.score(&batch).map(\.values)
    #expect(batched == Array(forward.reversed()))
  }

  @Test("a dish's score does not change when other dishes are not candidates")
  func candidateSubset() throws {
    let f = try fixture(items: Self.items)
    let s = try learned("random", on: f)
    let all = scores(s, f)
    let subset: [Int32] = [1, 4, 5, 11]
    #expect(scores(s, f, candidates: subset) == subset.map { all[Int($0)] })
  }

  @Test("propensities are 1 / candidates; no candidates give no scores")
  func propensities() throws {
    let f = try fixture(items: Self.items)
    let s = try learned("random", on: f)
    var context = ScoringContext(
      user: UserProfile(id: "u1"), userHistory: nil, date: f.date, candidates: [0, 3, 7, 8],
      seed: 1)
    #expect(s.score(&context).propensities == [0.25, 0.25, 0.25, 0.25])
    var empty = ScoringContext(
      user: UserProfile(id: "u1"), userHistory: nil, date: f.date, candidates: [], seed: 1)
    #expect(s.score(&empty) == Scores([], propensities: []))
  }

  @Test("the stream is the one derived from (seed, date, user)")
  func stream() throws {
    let f = try fixture(items: ["a:x", "b:y", "c:z"])
    let s = try learned("random", on: f)
    var r = RandomStream(seed: 42, date: f.date, user: "u1")
    #expect(scores(s, f) == [r.nextDouble(), r.nextDouble(), r.nextDouble()])
  }
}
