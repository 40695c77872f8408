import DeckCore

/// The one way decks are built, shared by `menudeck deck` and the simulator: candidates under the
/// deck rules -> strategy scores (in batches) -> the deck builder's order.
///
/// Every diner's deck depends only on (inputs, seed, date, diner), never on which other diners
/// are in the run or in which order they come.
package struct DeckPipeline {
  package let builder: DeckBuilder
  package let strategy: any RankingStrategy
  package let history: History
  package let seed: UInt64
  package let date: DeckDate
  /// Diners per strategy call; an out-of-process strategy answers a batch per round trip.
  package var batchSize: Int = 512
  private let dayMask: [Bool]

  package init(
    builder: DeckBuilder, strategy: any RankingStrategy, history: History, seed: UInt64,
    date: DeckDate
  ) {
    self.builder = builder
    self.strategy = strategy
    self.history = history
    self.seed = seed
    self.date = date
    self.dayMask = builder.dayMask(for: date)
  }

  /// Builds the decks of `users` in the given order, handing each to `emit` as soon as its batch
  /// is ranked (memory stays bounded by the batch size).
  package func build(
    users: [UserProfile], emit: (Deck) throws -> Void
  ) throws {
    var start = 0
    while start < users.count {
      let end = min(users.count, start + max(1, batchSize))
      var candidates: [CandidateSet] = []
      var contexts: [ScoringContext] = []
      candidates.reserveCapacity(end - start)
      contexts.reserveCapacity(end - start)
      for user in users[start..<end] {
        let userHistory = history.users[user.id]
        let set = builder.candidates(
          for: user, history: userHistory, date: date, dayMask: dayMask)
        candidates.append(set)
        var context = ScoringContext(
          user: user, userHistory: userHistory, date: date, candidates: set.items, seed: seed)
        context.deck = builder.slots(set)
        contexts.append(context)
      }
      let scores = try strategy.score(&contexts)
      let name = strategy.description.identifier
      guard scores.count == contexts.count else {
        throw StrategyError.failed(
          strategy: name,
          message: "returned \(scores.count) score lists for \(contexts.count) diners")
      }
      for k in 0..<contexts.count {
        let s = scores[k]
        let user = contexts[k].user.id
        guard s.values.count == candidates[k].items.count else {
          throw StrategyError.failed(
            strategy: name,
            message:
              "returned \(s.values.count) scores for \(candidates[k].items.count) candidates of user '\(user)'"
          )
        }
        if let bad = s.values.firstIndex(where: { !$0.isFinite }) {
          throw StrategyError.failed(
            strategy: name,
            message:
              "returned a non-finite score (\(s.values[bad])) for item '\(builder.catalog[candidates[k].items[bad]].id)' of user '\(user)'"
          )
        }
        if let p = s.propensities, p.count != s.values.count {
          throw StrategyError.failed(
            strategy: name,
            message: "returned \(p.count) propensities for \(s.values.count) candidates")
        }
        try emit(
          builder.assemble(
            user: user, date: date, candidates: candidates[k], scores: s.values,
            propensities: s.propensities))
      }
      start = end
    }
  }
}
