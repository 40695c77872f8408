import DeckCore

/// One diner's deck explained (`deck --explain`): the deck builder's trace (ranks before the
/// rules, the rules that acted, the dishes displaced and held back) and, per card, the
/// strategy's explanation of its score.
package struct ExplainedDeck: Sendable, Equatable {
  package var trace: DeckTrace
  /// One per card, in deck order. A strategy that does not explain itself
  /// (`ExplainingStrategy`) gives `ScoreExplanation.scoreOnly` of the card's strategy score.
  package var scores: [ScoreExplanation]

  package init(trace: DeckTrace, scores: [ScoreExplanation]) {
    self.trace = trace
    self.scores = scores
  }

  /// What is wrong with explanations of the cards of `trace`: nil when there is one per card
  /// and each one's score is the card's strategy score (before the restaurant's boosts and
  /// burials), exactly; else the first mismatch, in words.
  package static func mismatch(_ scores: [ScoreExplanation], _ trace: DeckTrace, catalog: Catalog)
    -> String?
  {
    guard scores.count == trace.cards.count else {
      return "\(scores.count) explanations for \(trace.cards.count) cards"
    }
    for (card, explanation) in zip(trace.cards, scores)
    where explanation.score != card.strategyScore
      && !(explanation.score.isNaN && card.strategyScore.isNaN)
    {
      return "the explanation of '\(catalog[card.item].id)' (card \(card.position)) says"
        + " \(explanation.score), the strategy scored \(card.strategyScore)"
    }
    return nil
  }
}

extension DeckPipeline {
  /// The deck `deck` of `user`, explained: traced by the deck builder, and each card's score
  /// explained by `strategy` (the one that scored it) from a fresh context, the very one
  /// `decks(of:scoredBy:)` scored with (same seed, date and diner stream). An explanation
  /// whose score is not the card's is a bug of the strategy: it stops the run
  /// (`precondition`), as any broken invariant does.
  func explained(
    _ user: UserProfile, _ candidates: CandidateSet, _ scores: Scores, _ deck: Deck,
    _ strategy: any RankingStrategy
  ) -> ExplainedDeck {
    let userHistory = history.users[user.id]
    let trace = builder.explain(
      user: user, history: userHistory, date: date, candidates: candidates,
      scores: scores.values, propensities: scores.propensities,
      prefixPropensities: scores.prefixPropensities)
    precondition(trace.deck == deck, "the traced deck is the deck")
    let positions = trace.cards.map { card in
      candidates.items.firstIndex(of: card.item)!
    }
    var explanations: [ScoreExplanation]
    if let explaining = strategy as? any ExplainingStrategy {
      var context = ScoringContext(
        user: user, userHistory: userHistory, date: date, candidates: candidates.items,
        seed: seed)
      context.deck = builder.slots(candidates)
      context.places = builder.rules.size
      context.wantsPolicy = wantsPolicy
      explanations = explaining.explain(&context, positions: positions)
    } else {
      explanations = trace.cards.map { ScoreExplanation.scoreOnly($0.strategyScore) }
    }
    if let problem = ExplainedDeck.mismatch(explanations, trace, catalog: builder.catalog) {
      preconditionFailure(
        "strategy '\(strategy.description.identifier)' explained user '\(user.id)': \(problem)")
    }
    return ExplainedDeck(trace: trace, scores: explanations)
  }
}
