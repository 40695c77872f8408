import DeckBase
import DeckCore
import DeckIO
import DeckStrategies

extension PlayJob {
  /// Per card of an explained deck, its reasons as `deck --explain --format table` words them.
  package static func reasons(_ explained: ExplainedDeck, _ inputs: DeckInputs) -> [[String]] {
    let text = DeckExplainText(catalog: inputs.catalog, rules: inputs.pipeline.builder.rules)
    return explained.trace.cards.enumerated().map { n, card in
      text.lines(card, explained.scores[n], keyScore: explained.trace.deck.cards[n].score)
    }
  }

  /// `fetchAgain`, with the reasons of the cards.
  package static func fetchAgainExplained(
    _ request: PlayRequest, diner: UserProfile, session: [SwipeEvent], _ io: JobIO
  ) throws -> (DeckInputs, Deck, [[String]]) {
    let inputs = try load(request, io, extra: session)
    let explained = try inputs.explainedDeck(for: diner)
    try inputs.strategy.finish()
    return (inputs, explained.trace.deck, reasons(explained, inputs))
  }
}

extension DeckInputs {
  /// One diner's deck explained, built by the pipeline as `deck --explain` builds it.
  package func explainedDeck(for diner: UserProfile) throws -> ExplainedDeck {
    var built: ExplainedDeck?
    var pipeline = self.pipeline
    pipeline.explains = true
    try pipeline.build(users: [diner], jobs: 1) { _, _, explained in built = explained }
    guard let built else {
      throw JobError(.software, "the pipeline built no deck for '\(diner.id)'")
    }
    return built
  }
}
