import DeckCore
import DeckStrategies
import Testing

/// One example of one registered strategy.
struct ExampleCase: Sendable, CustomTestStringConvertible {
  let strategy: String
  let example: StrategyExample
  var testDescription: String { "\(strategy): \(example.summary)" }

  static var all: [ExampleCase] {
    StrategyRegistry.builtins.flatMap { type in
      type.description.examples.map {
        ExampleCase(strategy: type.description.identifier, example: $0)
      }
    }
  }
}

@Suite("Strategy examples")
struct ExampleTests {
  @Test(
    "every example of every registered strategy gives its expected order",
    arguments: ExampleCase.all)
  func example(_ c: ExampleCase) throws {
    let outcome = try ExampleRunner.run(c.example, strategy: c.strategy)
    #expect(outcome.order == c.example.expected, "\(outcome.mismatch ?? "")")
    #expect(outcome.passed)
    #expect(outcome.scores.allSatisfy { $0.isFinite })
    #expect(zip(outcome.scores, outcome.scores.dropFirst()).allSatisfy { $0 >= $1 })
  }

  @Test("every strategy carries two to four examples")
  func exampleCount() {
    for type in StrategyRegistry.builtins {
      #expect((2...4).contains(type.description.examples.count), "\(type.description.identifier)")
    }
  }

  @Test("an outcome that differs says what was expected and what came")
  func mismatch() throws {
    let example = StrategyExample(
      "deliberately wrong", items: ["a:soup", "b:rice"], expected: ["b", "a"])
    let outcome = try ExampleRunner.run(example, strategy: "popularity")
    #expect(!outcome.passed)
    #expect(outcome.order == ["a", "b"])
    #expect(outcome.scores == [0.5, 0.5])
    #expect(outcome.mismatch == "expected b, a; got a, b")
  }

  @Test("the example history stops before the example date")
  func cutoff() throws {
    let f = try fixture(
      items: ["a:soup", "b:rice"],
      events: ["u1 a right 2026-01-09", "u1 b right 2026-01-10", "u2 b right 2026-01-11"])
    #expect(f.history.itemRight == [1, 0])
    #expect(f.history.events == 1)
    #expect(f.date == DeckDate(year: 2026, month: 1, day: 10))
    #expect(f.catalog.tags.isEmpty)
  }

  @Test("items parse with and without tags")
  func items() throws {
    let f = try fixture(items: ["a:soup", "b:rice:egg|warm", "c:rice:warm"])
    #expect(f.catalog.items.map(\.id) == ["a", "b", "c"])
    #expect(f.catalog.categories == ["soup", "rice"])
    #expect(f.catalog.tags == ["egg", "warm"])
    #expect(f.catalog.itemTags == [[], [0, 1], [1]])
  }

  static let malformed: [(StrategyExample, String)] = [
    (
      StrategyExample("e", items: ["a"], expected: ["a"]),
      "strategy 'popularity': example 'e': item 1 'a' is not 'id:category' or 'id:category:tag1|tag2'"
    ),
    (
      StrategyExample("e", items: ["a:soup", ":rice"], expected: ["a"]),
      "strategy 'popularity': example 'e': item 2 ':rice' is not 'id:category' or 'id:category:tag1|tag2'"
    ),
    (
      StrategyExample("e", items: ["a:soup:"], expected: ["a"]),
      "strategy 'popularity': example 'e': item 1 'a:soup:' is not 'id:category' or 'id:category:tag1|tag2'"
    ),
    (
      StrategyExample("e", items: ["a:soup:x||y"], expected: ["a"]),
      "strategy 'popularity': example 'e': item 1 'a:soup:x||y' is not 'id:category' or 'id:category:tag1|tag2'"
    ),
    (
      StrategyExample("e", items: ["a:soup:x:y"], expected: ["a"]),
      "strategy 'popularity': example 'e': item 1 'a:soup:x:y' is not 'id:category' or 'id:category:tag1|tag2'"
    ),
    (
      StrategyExample("e", items: ["a:soup", "a:rice"], expected: ["a", "a"]),
      "strategy 'popularity': example 'e': items: item 2: duplicate id 'a' (first used by item 1)"
    ),
    (
      StrategyExample("e", items: ["a:soup"], events: ["u1 a right"], expected: ["a"]),
      "strategy 'popularity': example 'e': event 1 'u1 a right' is not 'user item right|left YYYY-MM-DD'"
    ),
    (
      StrategyExample("e", items: ["a:soup"], events: ["u1  a right 2026-01-01"], expected: ["a"]),
      "strategy 'popularity': example 'e': event 1 'u1  a right 2026-01-01' is not 'user item right|left YYYY-MM-DD'"
    ),
    (
      StrategyExample("e", items: ["a:soup"], events: ["u1 b right 2026-01-01"], expected: ["a"]),
      "strategy 'popularity': example 'e': event 1 'u1 b right 2026-01-01': no item 'b' in the example's items"
    ),
    (
      StrategyExample("e", items: ["a:soup"], events: ["u1 a up 2026-01-01"], expected: ["a"]),
      "strategy 'popularity': example 'e': event 1 'u1 a up 2026-01-01': swipe 'up' is not right or left"
    ),
    (
      StrategyExample("e", items: ["a:soup"], events: ["u1 a left 2026-02-30"], expected: ["a"]),
      "strategy 'popularity': example 'e': event 1 'u1 a left 2026-02-30': date '2026-02-30' is not a YYYY-MM-DD date"
    ),
    (
      StrategyExample("e", items: ["a:soup"], date: "2026-1-10", expected: ["a"]),
      "strategy 'popularity': example 'e': date '2026-1-10' is not a YYYY-MM-DD date"
    ),
    (
      StrategyExample("e", items: ["a:soup"], user: "", expected: ["a"]),
      "strategy 'popularity': example 'e': user '' must be a non-empty id without spaces"
    ),
    (
      StrategyExample("e", items: ["a:soup", "b:rice"], expected: ["a"]),
      "strategy 'popularity': example 'e': expected must list every item exactly once (missing b)"
    ),
    (
      StrategyExample("e", items: ["a:soup"], expected: ["a", "z"]),
      "strategy 'popularity': example 'e': expected must list every item exactly once (unknown z)"
    ),
    (
      StrategyExample("e", items: ["a:soup", "b:rice"], expected: ["a", "b", "a"]),
      "strategy 'popularity': example 'e': expected must list every item exactly once (repeats an item)"
    ),
    (
      StrategyExample("e", items: ["a:soup"], options: ["pseudo_counts": "1"], expected: ["a"]),
      "strategy 'popularity' has no option 'pseudo_counts'; valid options: prior, prior_likes, "
        + "prior_passes, per"
    ),
  ]

  @Test("a malformed example fails loudly, naming the bad string", arguments: malformed.indices)
  func malformedExample(_ index: Int) {
    let (example, expected) = Self.malformed[index]
    #expect(message { _ = try ExampleRunner.run(example, strategy: "popularity") } == expected)
  }

  @Test("an example for an unknown strategy fails")
  func unknownStrategy() {
    let example = StrategyExample("e", items: ["a:soup"], expected: ["a"])
    #expect(
      message { _ = try ExampleRunner.run(example, strategy: "nope") }
        == "unknown strategy 'nope'; \(RegistryTests.valid)")
  }
}

/// A strategy that breaks the scoring contract, to check that the runner refuses its output.
private final class BrokenStrategy: BuiltinStrategy {
  static let description = StrategyDescription(identifier: "broken", summary: "test only")
  let values: [Double]
  init(options: StrategyOptions) throws(StrategyError) { values = [] }
  init(values: [Double]) { self.values = values }
  func learn(catalog: Catalog, history: History) throws(StrategyError) {}
  func score(_ context: inout ScoringContext) -> Scores { Scores(values) }
}

@Suite("Example runner against a broken strategy")
struct BrokenStrategyTests {
  @Test("a non-finite score or a wrong number of scores is an error, not an order")
  func refused() throws {
    let f = try fixture(items: ["a:soup", "b:rice"])
    #expect(
      message {
        _ = try ExampleRunner.run(
          BrokenStrategy(values: [0.5, .nan]), on: f, expected: ["a", "b"], example: "x")
      } == "strategy 'broken': example 'x': item 'b' scored nan")
    #expect(
      message {
        _ = try ExampleRunner.run(
          BrokenStrategy(values: [.infinity, 0]), on: f, expected: ["a", "b"], example: "x")
      } == "strategy 'broken': example 'x': item 'a' scored inf")
    #expect(
      message {
        _ = try ExampleRunner.run(
          BrokenStrategy(values: [1]), on: f, expected: ["a", "b"], example: "x")
      } == "strategy 'broken': example 'x': 1 scores for 2 items")
    let ok = try ExampleRunner.run(
      BrokenStrategy(values: [-1, 2]), on: f, expected: ["b", "a"], example: "x")
    #expect(ok.order == ["b", "a"])
    #expect(ok.scores == [2, -1])
    #expect(ok.passed)
  }
}
