/// Every metric of `menudeck stats`, in output column order, with its stable machine name and a
/// one-line definition (docs/metrics.md lists them; a test checks that every one is documented).
///
/// Terms used in the definitions:
/// - a *session* (a deck) is one (strategy, user, deck date); the deck date is the event's `deck`
///   field, or the local day of its `at` when `deck` is not logged. Rows group sessions by that
///   date.
/// - a card is *shown* when it was swiped (right or left); cards the diner never reached are not
///   in the logs.
/// - a *pick* is a right swipe; a session *has a pick* when it holds at least one.
/// - ground-truth metrics come from `GroundTruthSession` records (simulations only) and are
///   written only when the input has at least one.
///
/// Choices, and why:
/// - `novelty` takes its popularity from the input itself (all strategies and days pooled), so
///   that stats need nothing but the log and every strategy is measured against one yardstick.
///   Every item counted has at least one show, so p > 0 and no smoothing is needed; the base is
///   2 (bits). It is not causal: a show counts toward the popularity of its own day.
/// - `mean_regret` compares the best card of the deck with the best the oracle could show, not
///   the pick: it measures the ranking alone, is defined for sessions without a pick, and does not
///   carry the noise of the diner's choice (which `mean_pick_utility` reports).
/// - `ndcg_at_k` gains are the logistic of the true utility, the simulated diner's chance of a
///   right swipe before position effects: positive without an arbitrary shift, and in the order of
///   the utilities, so the oracle ordering is also the ideal one.
/// - in pick mode a session with a pick ends there: it counts in `pick_rate`, never as abandoned.
///   `pick_rate + abandon_rate + finished_without_pick_rate = 1` whenever there are sessions.
package enum StatsMetric: String, Sendable, CaseIterable {
  case decks
  case cardsShown
  case rightSwipes
  case leftSwipes
  case likeRate
  case pickRate
  case meanSwipesToPick
  case abandonRate
  case finishedWithoutPickRate
  case catalogCoverage
  case intraDeckDiversity
  case novelty
  case repeatPickRate
  case meanPickUtility
  case meanRegret
  case ndcgAtK
  case newDishLikeRate

  /// The stable snake_case name used in JSON keys, CSV headers and the table.
  package var name: String {
    switch self {
    case .decks: "decks"
    case .cardsShown: "cards_shown"
    case .rightSwipes: "right_swipes"
    case .leftSwipes: "left_swipes"
    case .likeRate: "like_rate"
    case .pickRate: "pick_rate"
    case .meanSwipesToPick: "mean_swipes_to_pick"
    case .abandonRate: "abandon_rate"
    case .finishedWithoutPickRate: "finished_without_pick_rate"
    case .catalogCoverage: "catalog_coverage"
    case .intraDeckDiversity: "intra_deck_diversity"
    case .novelty: "novelty"
    case .repeatPickRate: "repeat_pick_rate"
    case .meanPickUtility: "mean_pick_utility"
    case .meanRegret: "mean_regret"
    case .ndcgAtK: "ndcg_at_k"
    case .newDishLikeRate: "new_dish_like_rate"
    }
  }

  /// One line saying exactly how the metric is computed.
  package var definition: String {
    switch self {
    case .decks:
      "sessions: distinct (user, deck date) with at least one swipe"
    case .cardsShown:
      "swipes, right plus left"
    case .rightSwipes:
      "right swipes (picks)"
    case .leftSwipes:
      "left swipes"
    case .likeRate:
      "right_swipes / cards_shown"
    case .pickRate:
      "sessions with at least one right swipe / decks"
    case .meanSwipesToPick:
      "mean over sessions with a pick of the place of the first right swipe: the smallest position"
        + " of its right swipes when every swipe of the session has a position, else 1 + the"
        + " session's swipes with an at earlier than its earliest right swipe"
    case .abandonRate:
      "sessions with no right swipe and fewer swipes than deck_size / decks"
    case .finishedWithoutPickRate:
      "sessions with no right swipe and at least deck_size swipes / decks"
    case .catalogCoverage:
      "distinct catalog items shown / catalog items"
    case .intraDeckDiversity:
      "mean over sessions of the number of distinct categories among the cards shown"
    case .novelty:
      "mean over cards shown of -log2(p), p = the item's shows / all shows in the whole input"
        + " (every strategy and day; no smoothing)"
    case .repeatPickRate:
      "right swipes of an item the same user swiped right on an earlier day (within"
        + " repeat_window_days when set) under the same strategy / right_swipes"
    case .meanPickUtility:
      "ground truth: mean over sessions with a pick of the true utility of the first right"
        + " swipe's card"
    case .meanRegret:
      "ground truth: mean over sessions with a non-empty deck and oracle of the oracle's best"
        + " true utility minus the best true utility in the deck"
    case .ndcgAtK:
      "ground truth: mean over sessions with a non-empty deck and oracle of DCG@k of the deck /"
        + " DCG@k of the oracle sorted by true utility; gain 1/(1+exp(-utility)), discount"
        + " 1/log2(rank+1), k = ndcg_k"
    case .newDishLikeRate:
      "right swipes / cards shown, of the dishes in their first new_dish_days days on the menu"
        + " (deck date from the catalog's available.from to new_dish_days - 1 days after; only"
        + " with --new-dish-days)"
    }
  }

  /// Whether the metric is a whole-number count (else a rate or a mean).
  package var isCount: Bool {
    switch self {
    case .decks, .cardsShown, .rightSwipes, .leftSwipes: true
    default: false
    }
  }

  /// The metrics a stats run writes, in column order: the ground-truth ones only with ground
  /// truth, `new_dish_like_rate` only when asked for (`StatsOptions.newDishDays`).
  package static func written(groundTruth: Bool, newDishes: Bool) -> [StatsMetric] {
    allCases.filter {
      (groundTruth || !$0.needsGroundTruth) && (newDishes || $0 != .newDishLikeRate)
    }
  }

  /// Whether the metric needs ground truth (simulations only).
  package var needsGroundTruth: Bool {
    switch self {
    case .meanPickUtility, .meanRegret, .ndcgAtK: true
    default: false
    }
  }
}
