import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckStrategies

/// `DeckPipeline.build(users:jobs:)` against the one-thread pipeline: the same decks in the same
/// order for every number of workers, the same failure after the same decks, and strategies
/// that cannot score concurrently kept on one thread.
@Suite("Deck pipeline on several threads")
struct ParallelPipelineTests {
  static let items = [
    "a:soup", "b:soup", "c:rice", "d:rice", "e:noodles", "f:noodles", "g:salad", "h:salad",
    "i:curry", "j:curry", "k:dessert", "l:dessert",
  ]

  /// 40 diners with a few swipes each over ten days, deterministic.
  static func fixture() throws -> ExampleRunner.Fixture {
    var events: [String] = []
    var stream = RandomStream(seed: 9, date: DeckDate(year: 2026, month: 1, day: 1)!, user: "t")
    for u in 0..<40 {
      for _ in 0..<(1 + stream.nextInt(below: 5)) {
        let item = items[stream.nextInt(below: items.count)].split(separator: ":")[0]
        let day = 1 + stream.nextInt(below: 9)
        let dir = stream.nextDouble() < 0.5 ? "right" : "left"
        events.append("u\(u) \(item) \(dir) 2026-01-0\(day)")
      }
    }
    return try DeckStrategiesTests.fixture(items: items, events: events)
  }

  static let users = (0..<150).map { UserProfile(id: "u\($0)") }

  static func decks(
    _ strategy: any RankingStrategy, _ f: ExampleRunner.Fixture, jobs: Int, batch: Int = 7
  ) throws -> [Deck] {
    var rules = DeckRules()
    rules.size = 5
    var pipeline = DeckPipeline(
      builder: try DeckBuilder(catalog: f.catalog, rules: rules), strategy: strategy,
      history: f.history, seed: 42, date: f.date)
    pipeline.batchSize = batch
    var decks: [Deck] = []
    try pipeline.build(users: users, jobs: jobs) { decks.append($0) }
    return decks
  }

  @Test(
    "every built-in: the same decks for 1, 2, 3 and 7 workers",
    arguments: StrategyRegistry.identifiers)
  func sameDecks(identifier: String) throws {
    let f = try Self.fixture()
    let strategy = try learned(identifier, on: f)
    #expect(strategy.scoresConcurrently)
    let one = try Self.decks(strategy, f, jobs: 1)
    #expect(one.count == Self.users.count)
    #expect(one.map(\.user) == Self.users.map(\.id))
    var sequential: [Deck] = []
    var rules = DeckRules()
    rules.size = 5
    var pipeline = DeckPipeline(
      builder: try DeckBuilder(catalog: f.catalog, rules: rules), strategy: strategy,
      history: f.history, seed: 42, date: f.date)
    pipeline.batchSize = 7
    try pipeline.build(users: Self.users) { sequential.append($0) }
    #expect(one == sequential)
    for jobs in [2, 3, 7] {
      #expect(try Self.decks(strategy, f, jobs: jobs) == one, "jobs \(jobs)")
      #expect(try Self.decks(strategy, f, jobs: jobs, batch: 1) == one, "jobs \(jobs), batch 1")
      #expect(try Self.decks(strategy, f, jobs: jobs, batch: 500) == one, "jobs \(jobs), one batch")
    }
  }

  /// Fails the batch that holds `failing`; records the first diner of every batch it scores.
  final class Failing: RankingStrategy, @unchecked Sendable {
    let failing: String
    let concurrent: Bool
    private let lock = NSLock()
    private(set) var batchStarts: [String] = []

    init(failing: String, concurrent: Bool) {
      self.failing = failing
      self.concurrent = concurrent
    }

    var description: StrategyDescription { PopularityStrategy.description }
    var scoresConcurrently: Bool { concurrent }
    func learn(catalog: Catalog, history: History) throws(StrategyError) {}
    func score(_ batch: inout [ScoringContext]) throws(StrategyError) -> [Scores] {
      lock.withLock { batchStarts.append(batch[0].user.id) }
      if batch.contains(where: { $0.user.id == failing }) {
        throw StrategyError.failed(strategy: "failing", message: "no scores for \(failing)")
      }
      return batch.map { Scores($0.candidates.map { Double($0) }) }
    }
  }

  @Test("a failure comes after the decks before its batch, for every number of workers")
  func failure() throws {
    let f = try Self.fixture()
    var first: [Deck]?
    for jobs in [1, 2, 3, 7] {
      var decks: [Deck] = []
      var rules = DeckRules()
      rules.size = 5
      var pipeline = DeckPipeline(
        builder: try DeckBuilder(catalog: f.catalog, rules: rules),
        strategy: Failing(failing: "u60", concurrent: true), history: f.history, seed: 42,
        date: f.date)
      pipeline.batchSize = 7
      #expect(throws: StrategyError.failed(strategy: "failing", message: "no scores for u60")) {
        try pipeline.build(users: Self.users, jobs: jobs) { decks.append($0) }
      }
      #expect(decks.count == 56, "jobs \(jobs)")  // batches of 7: u56...u62 fails
      if let first { #expect(decks == first) } else { first = decks }
    }
  }

  @Test("a strategy that cannot score concurrently is called batch by batch, in order")
  func sequentialStrategy() throws {
    let f = try Self.fixture()
    let strategy = Failing(failing: "none", concurrent: false)
    let decks = try Self.decks(strategy, f, jobs: 7)
    #expect(decks.count == Self.users.count)
    #expect(strategy.batchStarts == stride(from: 0, to: 150, by: 7).map { "u\($0)" })
  }

  /// Gives every candidate a propensity and a prefix propensity (`prefixes` of them per diner).
  final class Prefixes: RankingStrategy {
    let prefixes: Int?
    init(prefixes: Int?) { self.prefixes = prefixes }
    var description: StrategyDescription { PopularityStrategy.description }
    func learn(catalog: Catalog, history: History) throws(StrategyError) {}
    func score(_ batch: inout [ScoringContext]) throws(StrategyError) -> [Scores] {
      batch.map { c in
        let n = c.candidates.count
        return Scores(
          c.candidates.map { -Double($0) }, propensities: Array(repeating: 0.5, count: n),
          prefixPropensities: c.candidates.prefix(prefixes ?? n).map { 1 / Double($0 + 2) })
      }
    }
  }

  @Test("prefix propensities reach the cards; a wrong number of them is the strategy's error")
  func prefixPropensities() throws {
    let f = try Self.fixture()
    let decks = try Self.decks(Prefixes(prefixes: nil), f, jobs: 2)
    #expect(decks.count == Self.users.count)
    for deck in decks {
      #expect(!deck.cards.isEmpty)
      // Each candidate's prefix propensity is 1 / (its catalog index + 2).
      for card in deck.cards {
        #expect(card.prefixPropensity == 1 / Double(card.item + 2))
        #expect(card.propensity == 0.5)
      }
    }
    do {
      _ = try Self.decks(Prefixes(prefixes: 3), f, jobs: 1)
      Issue.record("3 prefix propensities were taken for more candidates")
    } catch let error as StrategyError {
      guard case .failed(let strategy, let message) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(strategy == "popularity")
      #expect(
        message.hasPrefix("returned 3 prefix propensities for ")
          && message.hasSuffix(" candidates"), "\(message)")
    }
  }

  @Test("Parallel.map keeps index order for any number of workers")
  func parallelMap() {
    let expected = (0..<1000).map { $0 * $0 }
    for jobs in [0, 1, 2, 3, 7, 2000] {
      #expect(Parallel.map(count: 1000, jobs: jobs) { $0 * $0 } == expected)
    }
    #expect(Parallel.map(count: 0, jobs: 4) { $0 }.isEmpty)
  }
}
