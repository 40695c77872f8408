import DeckBase
import DeckCore
import DeckIO
import DeckStrategies

extension DeckJob {
  /// As `write`, each deck explained (`--explain`): traced by the deck builder and its cards'
  /// scores explained by the strategy, written by `DeckExplainWriter`. The decks are those
  /// `write` writes.
  static func writeExplained(
    _ diners: [UserProfile], _ pipeline: DeckPipeline, _ request: DeckRequest, _ catalog: Catalog,
    _ header: RunHeader, _ outputs: RunOutputs, _ progress: ProgressCounter?
  ) throws -> (shortDecks: Int, warningLines: [String], ruleCounts: RuleCounts) {
    let output = try outputs.output(request.out)
    var ruleCounts = RuleCounts(rules: request.settings.rules.restaurantRules.count)
    var shortDecks = 0
    var warningLines: [String] = []
    let writer = DeckExplainWriter(
      format: request.settings.format, output: output, catalog: catalog,
      rules: pipeline.builder.rules, header: header, exactScores: request.exactScores)
    try writer.begin()
    var pipeline = pipeline
    pipeline.explains = true
    try pipeline.build(users: diners, jobs: request.jobs) { deck, _, explained in
      let warnings = self.warnings(deck)
      if deck.shortfall != nil { shortDecks += 1 }
      for w in warnings { warningLines.append("user '\(deck.user)': \(w)") }
      ruleCounts.add(deck)
      try writer.write(explained!, warnings: warnings)
      progress?.add(1)
    }
    try writer.end()
    try pipeline.strategy.finish()
    for replica in pipeline.replicas { try replica.finish() }
    try outputs.commit()
    return (shortDecks, warningLines, ruleCounts)
  }
}

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
