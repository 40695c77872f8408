import DeckCore

/// Everything a strategy may look at when it scores one diner's candidates.
package struct ScoringContext: Sendable {
  package let user: UserProfile
  /// The diner's own history, nil for a diner with none.
  package let userHistory: UserHistory?
  package let date: DeckDate
  /// Catalog indices to score, in catalog order.
  package let candidates: [Int32]
  /// The run's seed; `random` is already derived from (seed, date, user).
  package let seed: UInt64
  /// This diner's own random stream for this date. Use it for every random choice.
  package var random: RandomStream
  /// The deck rules of this diner's deck, which say where they put the candidates for any
  /// scores (`DeckSlots.order`). nil when the deck is simply the best-scored candidates in score
  /// order (or there is no deck builder, as for a strategy tried alone). A stochastic strategy
  /// uses it to give each card its probability at the slot where the deck puts it.
  package var deck: DeckSlots?
  /// How many of the ranking's first places become cards when `deck` is nil (the deck's size);
  /// nil: every place (a strategy tried alone). A strategy that gives propensities needs them
  /// only for the candidates it ranks there, and may give the others 0 (no card carries them):
  /// the epsilon-greedy and plackett-luce strategies do, which spares them work that grows
  /// with the square of the candidates.
  package var places: Int?
  /// Set by an evaluation that needs the strategy's ranking as the distribution it is drawn
  /// from (`Scores.policy`), not only the one ranking drawn; computing it may cost more.
  package var wantsPolicy = false

  package init(
    user: UserProfile, userHistory: UserHistory?, date: DeckDate, candidates: [Int32],
    seed: UInt64
  ) {
    self.user = user
    self.userHistory = userHistory
    self.date = date
    self.candidates = candidates
    self.seed = seed
    self.random = RandomStream(seed: seed, date: date, user: user.id)
  }
}

/// A strategy's scores for one context: higher is better.
package struct Scores: Sendable, Equatable {
  /// One finite score per candidate, aligned with `ScoringContext.candidates`.
  package var values: [Double]
  /// Optional propensity per candidate: the probability the strategy had of putting it at the
  /// position the deck builder gives it (only stochastic rankers know this; see
  /// `ScoringContext.deck`). A candidate the deck does not show may carry 0 (see
  /// `ScoringContext.places`).
  package var propensities: [Double]?
  /// Optional prefix propensity per candidate: the probability the strategy had of ranking the
  /// candidates it ranked before this one, in their order, and then this one (the probability
  /// of the deck's cards from position 1 to this card's, for the slate estimators). Only given
  /// when the deck rules keep the strategy's order (`ScoringContext.deck` is nil).
  package var prefixPropensities: [Double]?
  /// Optional: the distribution over rankings of the candidates that the strategy drew its
  /// order from, for evaluations that set `ScoringContext.wantsPolicy`. Only given when the
  /// deck rules keep the strategy's order (`ScoringContext.deck` is nil), where the deck is the
  /// ranking's first cards; nil for a deterministic strategy (its order is `values`' order)
  /// and for one that does not know its distribution.
  package var policy: RankingPolicy?

  package init(
    _ values: [Double], propensities: [Double]? = nil, prefixPropensities: [Double]? = nil,
    policy: RankingPolicy? = nil
  ) {
    self.values = values
    self.propensities = propensities
    self.prefixPropensities = prefixPropensities
    self.policy = policy
  }
}

/// A ranking strategy. Built-ins are types conforming to `BuiltinStrategy`; external plugins
/// (`PluginStrategy`, which runs a plugin process) conform to this protocol directly and describe
/// themselves at run time.
///
/// Life cycle for one run: created from options -> `learn` (the history up to the deck date) ->
/// `score` for each diner (in batches, so that an out-of-process strategy can answer many diners
/// per round trip) -> `finish`.
package protocol RankingStrategy: AnyObject {
  var description: StrategyDescription { get }
  /// Tells the strategy, before `learn`, the run's seed and how many threads `learn` may use.
  /// A fit that draws random numbers draws them from streams derived from this seed (never per
  /// diner), and a fit on several threads gives the same result for every `jobs`. The default
  /// ignores both; a strategy never told fits with seed 0 on one thread.
  func prepare(seed: UInt64, jobs: Int)
  /// Tells the strategy, before `learn`, the diners' profiles (the users file; may be empty),
  /// for a strategy that learns from diner features (`linucb`, `lints`): the history has only
  /// ids. The default ignores them; a composite passes them on to its parts.
  func prepare(profiles: [UserProfile])
  /// Learns from the aggregated history. Called before any scoring, possibly again later (e.g.
  /// day by day in a simulation) with a newer history.
  func learn(catalog: Catalog, history: History) throws(StrategyError)
  /// Scores a batch of contexts; returns one `Scores` per context.
  func score(_ batch: inout [ScoringContext]) throws(StrategyError) -> [Scores]
  /// Ends the run (an external process is asked to exit).
  func finish() throws(StrategyError)
  /// Whether `score` may be called from several threads at once after `learn` (it only reads
  /// what `learn` built, and each diner's randomness is its own stream). Built-ins: yes. An
  /// external plugin, one process answering in order, and the fallback wrapper, which counts
  /// as it goes: no.
  var scoresConcurrently: Bool { get }
  /// What the last `learn` fitted from the history that the options do not give (a prior
  /// fitted to the swipes, ...), for the run header: names and values, in the strategy's
  /// order. Empty when it fits nothing.
  var fitted: [FittedValue] { get }
}

extension RankingStrategy {
  package func prepare(seed: UInt64, jobs: Int) {}
  package func prepare(profiles: [UserProfile]) {}
  package func finish() throws(StrategyError) {}
  package var scoresConcurrently: Bool { false }
  package var fitted: [FittedValue] { [] }
}

/// One value a strategy fitted in `learn`, reported in the run header beside its options.
package struct FittedValue: Sendable, Equatable {
  package var name: String
  package var value: OptionValue

  package init(_ name: String, _ value: OptionValue) {
    self.name = name
    self.value = value
  }

  /// The same value under `prefix.name`: a composite strategy reports its components' values
  /// under their names.
  package func prefixed(_ prefix: String) -> FittedValue {
    FittedValue(prefix + "." + name, value)
  }
}

/// A strategy compiled into menudeck: a type with a static description whose examples are its
/// tests, created from typed options.
package protocol BuiltinStrategy: RankingStrategy {
  static var description: StrategyDescription { get }
  init(options: StrategyOptions) throws(StrategyError)
  /// Scores one diner. `catalog` and `history` are those given to `learn`.
  func score(_ context: inout ScoringContext) -> Scores
}

extension BuiltinStrategy {
  package var description: StrategyDescription { Self.description }
  /// A built-in scores from what `learn` built and the context alone (a built-in that wraps
  /// others wraps built-ins).
  package var scoresConcurrently: Bool { true }

  package func score(_ batch: inout [ScoringContext]) throws(StrategyError) -> [Scores] {
    var out: [Scores] = []
    out.reserveCapacity(batch.count)
    for k in batch.indices { out.append(score(&batch[k])) }
    return out
  }
}
