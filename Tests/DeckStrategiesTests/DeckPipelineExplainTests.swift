import DeckBase
import DeckCore
import Testing

@testable import DeckStrategies

/// A strategy that explains itself: each score is the dish's catalog index over ten plus a draw
/// from the diner's stream, as two terms; `lie` adds 1 to the explained score.
private final class Echo: ExplainingStrategy, @unchecked Sendable {
  static var description: StrategyDescription { PopularityStrategy.description }
  let lie: Bool

  init(options: StrategyOptions) throws(StrategyError) { lie = false }
  init(lie: Bool) { self.lie = lie }

  func learn(catalog: Catalog, history: History) throws(StrategyError) {}

  func score(_ context: inout ScoringContext) -> Scores {
    Scores(context.candidates.map { Double($0) / 10 + context.random.nextDouble() })
  }

  func explain(_ context: inout ScoringContext, positions: [Int]) -> [ScoreExplanation] {
    let items = context.candidates
    let draws = items.map { _ in context.random.nextDouble() }
    return positions.map { k in
      let index = Double(items[k]) / 10
      return ScoreExplanation(
        score: index + draws[k] + (lie ? 1 : 0),
        terms: [ScorePart("index", index), ScorePart("draw", draws[k])],
        formula: ScoreExplanation.sumOfTerms)
    }
  }
}

@Suite("Deck pipeline: explained decks")
struct DeckPipelineExplainTests {
  static func pipeline(_ strategy: any RankingStrategy, _ f: ExampleRunner.Fixture) throws
    -> DeckPipeline
  {
    var rules = DeckRules()
    rules.size = 5
    rules.maxPerCategory = 2
    return DeckPipeline(
      builder: try DeckBuilder(catalog: f.catalog, rules: rules), strategy: strategy,
      history: f.history, seed: 42, date: f.date)
  }

  static func explained(_ pipeline: DeckPipeline, jobs: Int = 1) throws -> [(Deck, ExplainedDeck)] {
    var pipeline = pipeline
    pipeline.explains = true
    var out: [(Deck, ExplainedDeck)] = []
    try pipeline.build(users: ParallelPipelineTests.users, jobs: jobs) { deck, _, explained in
      out.append((deck, explained!))
    }
    return out
  }

  @Test(
    "the explained decks are the decks; each card's parts are the strategy's, from the diner's stream"
  )
  func explainedDecksAreTheDecks() throws {
    let f = try ParallelPipelineTests.fixture()
    let strategy = Echo(lie: false)
    let pipeline = try Self.pipeline(strategy, f)
    var plain: [Deck] = []
    try pipeline.build(users: ParallelPipelineTests.users, jobs: 1) { plain.append($0) }
    let explained = try Self.explained(pipeline)
    #expect(explained.map(\.0) == plain)
    #expect(explained.map(\.1.trace.deck) == plain)
    for (deck, e) in explained {
      #expect(e.scores.count == deck.cards.count)
      for (card, s) in zip(e.trace.cards, e.scores) {
        #expect(s.score == card.strategyScore)
        #expect(abs(s.terms.map(\.value).reduce(0, +) - s.score) <= 1e-12)
      }
    }
    let four = try Self.explained(pipeline, jobs: 4)
    #expect(four.map(\.1) == explained.map(\.1))
  }

  /// A strategy that does not explain itself: each score its dish's catalog index.
  private final class Plain: RankingStrategy, @unchecked Sendable {
    var description: StrategyDescription { PopularityStrategy.description }
    func learn(catalog: Catalog, history: History) throws(StrategyError) {}
    func score(_ batch: inout [ScoringContext]) throws(StrategyError) -> [Scores] {
      batch.map { Scores($0.candidates.map { Double($0) }) }
    }
  }

  @Test("a strategy that does not explain itself gives each card its score alone")
  func scoreOnly() throws {
    let f = try ParallelPipelineTests.fixture()
    for (deck, e) in try Self.explained(try Self.pipeline(Plain(), f)) {
      #expect(e.scores == e.trace.cards.map { ScoreExplanation.scoreOnly($0.strategyScore) })
      #expect(e.trace.cards.map(\.strategyScore) == deck.cards.map { Double($0.item) })
    }
  }

  @Test("an explanation whose score is not the card's is found, and stops the run")
  func mismatch() async throws {
    let f = try ParallelPipelineTests.fixture()
    let honest = try Self.explained(try Self.pipeline(Echo(lie: false), f))
    let (_, e) = try #require(honest.first { !$0.1.trace.cards.isEmpty })
    var wrong = e.scores
    wrong[0].score += 1
    let problem = ExplainedDeck.mismatch(wrong, e.trace, catalog: f.catalog)
    #expect(problem?.hasPrefix("the explanation of '") == true)
    #expect(problem?.contains("(card 1) says") == true)
    #expect(ExplainedDeck.mismatch(Array(wrong.dropLast()), e.trace, catalog: f.catalog) != nil)
    #expect(ExplainedDeck.mismatch(e.scores, e.trace, catalog: f.catalog) == nil)
    await #expect(processExitsWith: .failure) {
      let f = try ParallelPipelineTests.fixture()
      _ = try DeckPipelineExplainTests.explained(
        try DeckPipelineExplainTests.pipeline(Echo(lie: true), f))
    }
  }
}
