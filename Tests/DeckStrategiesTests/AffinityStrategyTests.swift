import DeckCore
import DeckStrategies
import Testing

@Suite("affinity strategy")
struct AffinityStrategyTests {
  /// u1 picks soups and passes on rice; everyone else prefers rice.
  static func history() throws -> ExampleRunner.Fixture {
    var events = [
      "u1 tonjiru right 2026-01-02", "u1 miso-soup right 2026-01-03",
      "u1 tonjiru right 2026-01-04", "u1 oyakodon left 2026-01-05",
    ]
    for k in 2...7 { events.append("u\(k) oyakodon right 2026-01-0\(k)") }
    for k in 2...5 { events.append("u\(k) katsudon right 2026-01-0\(k)") }
    return try fixture(
      items: [
        "oyakodon:rice:egg", "katsudon:rice:pork", "miso-soup:soup:tofu", "tonjiru:soup:pork",
        "zaru-soba:noodles", "kenchinjiru:soup",
      ], events: events)
  }

  @Test("a diner with history gets the category they pick ahead of more popular dishes")
  func likedCategory() throws {
    let f = try Self.history()
    // The fixed Beta(1, 1), whose scores the comments below give.
    let affinity = try learned("affinity", ["prior": "fixed"], on: f)
    let popularity = try learned("popularity", ["prior": "fixed"], on: f)
    #expect(
      ranking(scores(popularity, f), f)
        == ["katsudon", "oyakodon", "tonjiru", "miso-soup", "zaru-soba", "kenchinjiru"])
    #expect(
      ranking(scores(affinity, f), f)
        == ["tonjiru", "katsudon", "miso-soup", "oyakodon", "kenchinjiru", "zaru-soba"])
    // Equally popular (never shown, 1/2 each): only the liked category separates them.
    let s = scores(affinity, f)
    #expect(s[5] > s[4])
    #expect(abs(s[4] - 0.5) < 1e-15)
  }

  @Test("a diner with no history gets exactly the popularity scores", arguments: ["nobody", "u1"])
  func newDiner(_ user: String) throws {
    let f = try Self.history()
    let options = ["prior_likes": "1", "prior_passes": "2"]
    let affinity = try learned("affinity", options, on: f)
    let popularity = try learned("popularity", options, on: f)
    // "u1" here: a context without their history, as for a diner seen for the first time.
    var context = ScoringContext(
      user: UserProfile(id: user), userHistory: nil, date: f.date,
      candidates: (0..<Int32(f.catalog.count)).map { $0 }, seed: 42)
    var again = context
    #expect(affinity.score(&context) == popularity.score(&again))
    #expect(
      ranking(affinity.score(&context).values, f)
        == ["katsudon", "oyakodon", "tonjiru", "miso-soup", "zaru-soba", "kenchinjiru"])
  }

  @Test("weight_popularity 1 is plain popularity, even for a diner with history")
  func popularityOnly() throws {
    let f = try Self.history()
    let affinity = try learned("affinity", ["weight_popularity": "1"], on: f)
    let popularity = try learned("popularity", on: f)
    #expect(scores(affinity, f) == scores(popularity, f))
  }

  @Test("scores follow the documented formula")
  func formula() throws {
    let f = try fixture(
      items: ["a:soup:warm|egg", "b:rice:egg", "c:rice", "d:fish"],
      events: [
        "u1 a right 2026-01-08", "u1 b left 2026-01-08", "u1 b left 2026-01-09",
        "u2 c right 2026-01-09",
      ])
    // With the fixed Beta(1, 1) prior of popularity.
    let fixed = ["prior": "fixed"]
    let s = scores(try learned("affinity", fixed, on: f), f)
    // Popularity 2/3, 1/4, 2/3. u1: soup 1 of 1, rice 0 of 2, warm 1 of 1, egg 1 of 3; m = 5.
    let a = 0.3 * (2.0 / 3) + 0.7 * (0.5 * (13.0 / 18) + 0.5 * ((13.0 / 18 + 13.0 / 24) / 2))
    let b = 0.3 * 0.25 + 0.7 * (0.5 * (5.0 / 28) + 0.5 * (9.0 / 32))
    let c = 0.3 * (2.0 / 3) + 0.7 * (10.0 / 21)
    #expect(abs(s[0] - a) < 1e-12)
    #expect(abs(s[1] - b) < 1e-12)
    #expect(abs(s[2] - c) < 1e-12)
    #expect(abs(a - 0.673_958_333_333) < 1e-12)

    // weight_tags 0: the category alone; weight_tags 1: the tags alone (c has none: category).
    let categoryOnly = scores(
      try learned("affinity", ["weight_tags": "0", "prior": "fixed"], on: f), f)
    #expect(abs(categoryOnly[0] - (0.2 + 0.7 * 13.0 / 18)) < 1e-12)
    let tagsOnly = scores(
      try learned("affinity", ["weight_tags": "1", "prior": "fixed"], on: f), f)
    #expect(abs(tagsOnly[1] - (0.075 + 0.7 * 9.0 / 32)) < 1e-12)
    #expect(abs(tagsOnly[2] - c) < 1e-12)

    // prior_strength 0: the diner's raw rates, popularity where they have no swipes.
    let raw = scores(
      try learned(
        "affinity", ["prior_strength": "0", "weight_popularity": "0", "prior": "fixed"], on: f),
      f)
    // a: soup 1, tags (1 + 1/3) / 2; b: rice 0, egg 1/3; c: rice 0; d: no swipes, so 1/2.
    #expect(raw.count == 4)
    #expect(abs(raw[0] - 5.0 / 6) < 1e-12)
    #expect(abs(raw[1] - 1.0 / 6) < 1e-12)
    #expect(raw[2] == 0)
    #expect(raw[3] == 0.5)
  }

  @Test("scores are finite for an empty history, unseen dishes and extreme options")
  func finite() throws {
    let items = ["a:soup:warm", "b:rice", "c:rice:warm|egg"]
    let empty = try fixture(items: items)
    let some = try fixture(items: items, events: ["u1 a left 2026-01-01"])
    let optionSets: [[String: String]] = [
      [:], ["prior_strength": "0"], ["prior_strength": "1000000", "weight_popularity": "0"],
      ["prior_likes": "0", "prior_passes": "0.000001", "prior_strength": "0"],
      ["weight_tags": "1", "weight_popularity": "0"],
    ]
    for options in optionSets {
      for f in [empty, some] {
        let s = scores(try learned("affinity", options, on: f), f)
        #expect(s.count == 3)
        #expect(s.allSatisfy { $0.isFinite }, "\(options): \(s)")
        #expect(s.allSatisfy { $0 >= 0 && $0 <= 1 }, "\(options): \(s)")
      }
    }
  }

  @Test("scores depend only on the diner, not on who was scored before or the batch order")
  func orderIndependent() throws {
    let f = try Self.history()
    let users = ["u1", "u2", "u5", "nobody"]
    let s = try learned("affinity", on: f)
    let forward = users.map { scores(s, f, user: $0) }
    let backward = users.reversed().map { scores(s, f, user: $0) }
    #expect(forward == Array(backward.reversed()))
    var batch = users.map {
      ScoringContext(
        user: UserProfile(id: $0), userHistory: f.history.users[$0], date: f.date,
        candidates: [0, 2, 5], seed: 9)
    }
    let batched = try s.score(&batch).map(\.values)
    #expect(batched == forward.map { [$0[0], $0[2], $0[5]] })
  }
}
