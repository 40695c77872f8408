import DeckCore

/// Settings of a stats run.
package struct StatsOptions: Sendable, Equatable {
  /// Cards per deck (config `deck.size`): a session with no right swipe that has fewer swipes is
  /// counted as abandoned, one with this many or more as finished without a pick. Logs do not say
  /// how long each deck was, so a short deck swiped to its end counts as abandoned.
  package var deckSize: Int
  /// The k of `ndcg_at_k`.
  package var ndcgK: Int
  /// A right swipe repeats an earlier pick when the same user swiped the same item right (under
  /// the same strategy) 1 to this many days before; nil: on any earlier day in the input.
  package var repeatWindowDays: Int?
  /// Days listed for every strategy even when they have no sessions (a simulation's days).
  package var days: ClosedRange<DeckDate>?
  /// Strategy labels listed even when they have no sessions (a simulation's strategies).
  package var strategies: [String]
  /// With a number, `new_dish_like_rate` is written: the like rate of the cards of dishes whose
  /// catalog `available.from` is 0 to this many days minus 1 before the deck date.
  package var newDishDays: Int?

  /// `ndcgK` defaults to `deckSize`.
  package init(
    deckSize: Int, ndcgK: Int? = nil, repeatWindowDays: Int? = nil,
    days: ClosedRange<DeckDate>? = nil, strategies: [String] = [], newDishDays: Int? = nil
  ) {
    precondition(deckSize >= 1, "the deck size must be 1 or more")
    precondition((ndcgK ?? 1) >= 1, "ndcg k must be 1 or more")
    precondition((repeatWindowDays ?? 1) >= 1, "the repeat window must be 1 day or more")
    self.deckSize = deckSize
    self.ndcgK = ndcgK ?? deckSize
    self.repeatWindowDays = repeatWindowDays
    self.days = days
    self.strategies = strategies
    self.newDishDays = newDishDays
  }
}
