import DeckBase
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
  /// More instances of a strategy that cannot score concurrently (a plugin: one process each),
  /// learnt from the same history: worker w of `Parallel.stream` scores with `replicas[w - 1]`
  /// (worker 0, the calling thread, with `strategy`), so that `jobs` processes answer side by
  /// side. Each answers for its own batches only; the plugin
  /// protocol asks that a diner's scores not depend on the other diners of a batch.
  package var replicas: [any RankingStrategy] = []
  /// Asks the strategy for the distribution it draws each ranking from
  /// (`ScoringContext.wantsPolicy`), handed to `build(users:jobs:emitWithPolicy:)`'s closure.
  package var wantsPolicy = false
  /// Traces each deck and asks the strategy why it scored the cards (`deck --explain`:
  /// `build(users:jobs:emitExplained:)`); slower, for a few diners.
  package var explains = false
  private let day: DeckDay

  package init(
    builder: DeckBuilder, strategy: any RankingStrategy, history: History, seed: UInt64,
    date: DeckDate
  ) {
    self.builder = builder
    self.strategy = strategy
    self.history = history
    self.seed = seed
    self.date = date
    self.day = builder.day(date)
  }

  /// Builds the decks of `users` in the given order, handing each to `emit` as soon as its batch
  /// is ranked (memory stays bounded by the batch size).
  package func build(
    users: [UserProfile], emit: (Deck) throws -> Void
  ) throws {
    try build(users: users, jobs: 1, emit: emit)
  }

  /// Builds the decks of `users` on up to `jobs` threads, handing them to `emit` in the given
  /// order on the calling thread. The decks and the order are the same for every `jobs`: a
  /// diner's deck depends only on (inputs, seed, date, diner), and a failure is thrown after
  /// the decks before it were emitted, as with one thread. A strategy that cannot score
  /// concurrently (`scoresConcurrently`, e.g. a plugin) runs on one thread. Memory: up to two
  /// batches of decks per thread, made and not yet handed out.
  package func build(
    users: [UserProfile], jobs: Int, emit: (Deck) throws -> Void
  ) throws {
    try build(users: users, jobs: jobs) { deck, _ in try emit(deck) }
  }

  /// As `build(users:jobs:emit:)`, with each deck the distribution the strategy drew its
  /// ranking from, when `wantsPolicy` is set and the strategy gave one (`Scores.policy`: the
  /// deck rules keep its order, so the deck is the ranking's first cards).
  package func build(
    users: [UserProfile], jobs: Int, emitWithPolicy emit: (Deck, DeckPolicy?) throws -> Void
  ) throws {
    try build(users: users, jobs: jobs) { deck, policy, _ in try emit(deck, policy) }
  }

  /// As `build(users:jobs:emitWithPolicy:)`, with each deck explained when `explains` is set.
  package func build(
    users: [UserProfile], jobs: Int,
    emitExplained emit: (Deck, DeckPolicy?, ExplainedDeck?) throws -> Void
  ) throws {
    try rounds(users: users, jobs: jobs) { pipeline, diners, strategy in
      pipeline.decks(of: diners, scoredBy: strategy)
    } hand: { result in
      for (k, deck) in result.decks.enumerated() {
        try emit(deck, result.policies[k], explains ? result.explained[k] : nil)
      }
      if let error = result.error { throw error }
    }
  }

  /// The decks of `users` as text, in order: `encode` runs on the worker that built a deck (the
  /// text of a deck is much of the work of a run), appends the deck's text to its batch's and
  /// returns what the calling thread needs of the deck besides (a `Note`: its warnings, say);
  /// `emit` gets each note with the deck's text, on the calling thread. The decks are freed on
  /// the worker that made them: a block freed on another thread takes the lock of the
  /// allocator's arena it came from, which the worker allocating beside it holds (on two cores
  /// that contention cost more than the second core gave). The text is the same for every
  /// `jobs`, as are the decks.
  package func build<Note: Sendable>(
    users: [UserProfile], jobs: Int,
    encode: @escaping @Sendable (Deck, inout [UInt8]) -> Note,
    emit: (Note, ArraySlice<UInt8>) throws -> Void
  ) throws {
    try rounds(users: users, jobs: jobs) { pipeline, diners, strategy in
      let built = pipeline.decks(of: diners, scoredBy: strategy)
      var batch = TextBatch<Note>(error: built.error)
      batch.notes.reserveCapacity(built.decks.count)
      batch.ends.reserveCapacity(built.decks.count)
      for deck in built.decks {
        batch.notes.append(encode(deck, &batch.text))
        batch.ends.append(batch.text.count)
      }
      return batch
    } hand: { batch in
      var start = 0
      for (k, note) in batch.notes.enumerated() {
        try emit(note, batch.text[start..<batch.ends[k]])
        start = batch.ends[k]
      }
      if let error = batch.error { throw error }
    }
  }

  /// The decks of one batch as text (`build(users:jobs:encode:emit:)`).
  private struct TextBatch<Note: Sendable>: BatchResult {
    var notes: [Note] = []
    var text: [UInt8] = []
    /// Where each deck's text ends in `text`.
    var ends: [Int] = []
    var error: (any Error)?
  }

  /// Batches of `users`, made by `make` on up to `jobs` threads and handed in order to `hand` on
  /// the calling thread, which makes batches too while the next one to hand is not ready
  /// (`Parallel.stream`; `make` gets the diners of one batch and the strategy to score them
  /// with). Memory: up to two batches per worker made and not handed out. No batch after one
  /// that stopped at an error is started.
  private func rounds<Batch: BatchResult>(
    users: [UserProfile], jobs: Int,
    make:
      @escaping @Sendable (DeckPipeline, ArraySlice<UserProfile>, any RankingStrategy) ->
      Batch,
    hand: (Batch) throws -> Void
  ) throws {
    let batch = max(1, batchSize)
    let workers =
      strategy.scoresConcurrently ? max(1, jobs) : min(max(1, jobs), 1 + replicas.count)
    // Worker w scores with its own instance of a strategy that scores on one thread only.
    let scorers = strategy.scoresConcurrently ? [] : [strategy] + replicas
    let shared = Shared(pipeline: self, users: users, scorers: scorers)
    let batches = (users.count + batch - 1) / batch
    try Parallel.stream(count: batches, jobs: workers, ahead: 2 * workers) { k, worker in
      let lo = k * batch
      return make(
        shared.pipeline, shared.users[lo..<min(shared.users.count, lo + batch)],
        shared.scorers.isEmpty ? shared.pipeline.strategy : shared.scorers[worker])
    } stops: {
      $0.error != nil
    } consume: {
      try hand($0)
    }
  }

  /// The pipeline and the diners, shared by the workers of one `build`. Unchecked: the strategy
  /// is only shared when it says it scores concurrently (else each worker has a
  /// scorer of its own), and everything else is read-only.
  private struct Shared: @unchecked Sendable {
    let pipeline: DeckPipeline
    let users: [UserProfile]
    let scorers: [any RankingStrategy]
  }

  /// The decks of one batch, in order, up to the first diner whose scores are unusable, and the
  /// error that stopped it.
  private struct BatchDecks: BatchResult {
    var decks: [Deck] = []
    var policies: [DeckPolicy?] = []
    var explained: [ExplainedDeck] = []
    var error: (any Error)?
  }

  private func decks(
    of users: ArraySlice<UserProfile>, scoredBy strategy: any RankingStrategy
  ) -> BatchDecks {
    var out = BatchDecks()
    var candidates: [CandidateSet] = []
    var contexts: [ScoringContext] = []
    candidates.reserveCapacity(users.count)
    contexts.reserveCapacity(users.count)
    for user in users {
      let userHistory = history.users[user.id]
      let set = builder.candidates(for: user, history: userHistory, day: day)
      candidates.append(set)
      var context = ScoringContext(
        user: user, userHistory: userHistory, date: date, candidates: set.items, seed: seed)
      context.deck = builder.slots(set)
      context.places = builder.rules.size
      context.wantsPolicy = wantsPolicy
      contexts.append(context)
    }
    let scores: [Scores]
    do {
      scores = try strategy.score(&contexts)
    } catch {
      out.error = error
      return out
    }
    let name = strategy.description.identifier
    guard scores.count == contexts.count else {
      out.error = StrategyError.failed(
        strategy: name,
        message:
          "returned \(TextLayout.plural(scores.count, "score list")) for "
          + "\(TextLayout.plural(contexts.count, "diner"))")
      return out
    }
    out.decks.reserveCapacity(contexts.count)
    for k in 0..<contexts.count {
      let s = scores[k]
      let user = contexts[k].user.id
      guard s.values.count == candidates[k].items.count else {
        out.error = StrategyError.failed(
          strategy: name,
          message:
            "returned \(s.values.count) scores for \(candidates[k].items.count) candidates of user '\(user)'"
        )
        return out
      }
      if !allFinite(s.values), let bad = s.values.firstIndex(where: { !$0.isFinite }) {
        out.error = StrategyError.failed(
          strategy: name,
          message:
            "returned a non-finite score (\(s.values[bad])) for item '\(builder.catalog[candidates[k].items[bad]].id)' of user '\(user)'"
        )
        return out
      }
      if let p = s.propensities, p.count != s.values.count {
        out.error = StrategyError.failed(
          strategy: name,
          message: "returned \(p.count) propensities for \(s.values.count) candidates")
        return out
      }
      if let p = s.prefixPropensities, p.count != s.values.count {
        out.error = StrategyError.failed(
          strategy: name,
          message: "returned \(p.count) prefix propensities for \(s.values.count) candidates")
        return out
      }
      out.decks.append(
        builder.assemble(
          user: user, date: date, candidates: candidates[k], scores: s.values,
          propensities: s.propensities, prefixPropensities: s.prefixPropensities))
      if explains {
        out.explained.append(
          explained(contexts[k].user, candidates[k], s, out.decks.last!, strategy))
      }
      var policy: DeckPolicy?
      if wantsPolicy, let p = s.policy {
        guard p.candidateCount == candidates[k].items.count else {
          out.error = StrategyError.failed(
            strategy: name,
            message: "returned a ranking distribution over \(p.candidateCount) candidates for"
              + " \(candidates[k].items.count) of user '\(user)'")
          out.decks.removeLast()
          return out
        }
        policy = DeckPolicy(policy: p, candidates: candidates[k].items)
      }
      out.policies.append(policy)
    }
    return out
  }
}

/// The distribution a strategy drew one diner's ranking from, over the diner's candidates
/// (catalog indices, in the order `RankingPolicy` numbers them).
package struct DeckPolicy: Sendable, Equatable {
  package var policy: RankingPolicy
  package var candidates: [Int32]
}

/// A batch of decks, which says whether it stopped at an error (no later batch is started
/// then).
private protocol BatchResult: Sendable {
  var error: (any Error)? { get }
}
