/// How far a target's off-policy estimates can be trusted, from its importance weights
/// w = π_s(a, p) / μ over the logged cards at positions 1...P (see `OffPolicy`):
///
/// - `effectiveCards`, (Σw)² / Σw²: the number of logged cards of equal weight that would carry
///   the same information (0 when no weight is positive). A target far from the logging policy
///   puts its weight on few cards; below 100 its IPS, SNIPS and DR rest on too little.
/// - `largestWeight`, max w: one card with weight W counts like W cards of weight 1; a weight
///   of a large share of n means one swipe decides the estimate.
/// - `unsupportedMass`: over the evaluated slots (one per logged card), the share of the
///   target's probability on (item, position) pairs that the log never showed, Σ_s,p Σ_{b: (b, p)
///   never logged} π_s(b, p) / n. No logged swipe says anything about those cards: IPS and
///   SNIPS count them as 0 (biased downwards when assumption 3 of `OffPolicy` fails), DM and DR
///   as the reward model's position rate.
///
/// With the slate estimators, over the logged decks (sessions) and the standard slate weight
/// c = π(a_1..a_L) / μ(a_1..a_L) of each (its whole logged deck, positions 1...P):
/// `slateEffectiveDecks` (Σc)² / Σc² and `largestSlateWeight` max c; nil when the slate
/// estimators are not computed or the target has no prefix probabilities. Prefix weights
/// multiply along the deck, so they are far larger than the cards' own weights.
package struct OffPolicyDiagnostics: Sendable, Equatable {
  package var effectiveCards: Double
  package var largestWeight: Double
  package var unsupportedMass: Double
  package var slateEffectiveDecks: Double?
  package var largestSlateWeight: Double?

  /// The share of unsupported probability above which a run warns.
  package static let unsupportedWarning = 0.05
  /// The effective sample below which a run notes that the estimates cannot be trusted.
  package static let effectiveCardsWarning = 100.0

  package init(
    effectiveCards: Double, largestWeight: Double, unsupportedMass: Double,
    slateEffectiveDecks: Double? = nil, largestSlateWeight: Double? = nil
  ) {
    self.effectiveCards = effectiveCards
    self.largestWeight = largestWeight
    self.unsupportedMass = unsupportedMass
    self.slateEffectiveDecks = slateEffectiveDecks
    self.largestSlateWeight = largestSlateWeight
  }

  /// The diagnostics of `target` over the logged cards of `log` at positions 1...`positions`,
  /// with those of the slate weights when `slates` (every evaluated card has a prefix
  /// propensity).
  package init(_ target: OffPolicyTarget, log: OffPolicyLog, positions: Int, slates: Bool = false) {
    var shown = Set<UInt64>()
    for session in log.sessions {
      for card in session.cards where Int(card.position) <= positions {
        shown.insert(OffPolicyRewardModel.key(card.item, Int(card.position)))
      }
    }
    var sum = 0.0
    var squares = 0.0
    var largest = 0.0
    var unsupported = 0.0
    var cards = 0
    for (s, session) in log.sessions.enumerated() {
      for card in session.cards {
        let p = Int(card.position)
        guard p <= positions else { continue }
        cards += 1
        let slot = target.slot(session: s, position: p)
        let w = slot.probability(of: card.item) / card.propensity
        sum += w
        squares += w * w
        largest = max(largest, w)
        for (item, probability) in zip(slot.items, slot.probabilities)
        where probability > 0 && !shown.contains(OffPolicyRewardModel.key(item, p)) {
          unsupported += probability
        }
      }
    }
    var slate: (effective: Double, largest: Double)?
    if slates && target.hasPrefixProbabilities {
      var sum = 0.0
      var squares = 0.0
      var largest = 0.0
      for (s, session) in log.sessions.enumerated() {
        let cards = session.cards.prefix { Int($0.position) <= positions }
        guard let last = cards.last, let logged = last.prefixPropensity else { continue }
        let c =
          target.path(session: s, position: cards.count, logged: cards.map(\.item)).prefix
          / logged
        sum += c
        squares += c * c
        largest = max(largest, c)
      }
      slate = (squares > 0 ? sum * sum / squares : 0, largest)
    }
    self.init(
      effectiveCards: squares > 0 ? sum * sum / squares : 0, largestWeight: largest,
      unsupportedMass: cards > 0 ? unsupported / Double(cards) : 0,
      slateEffectiveDecks: slate?.effective, largestSlateWeight: slate?.largest)
  }
}
