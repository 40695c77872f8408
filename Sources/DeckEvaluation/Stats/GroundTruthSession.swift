import DeckCore
import Foundation

/// What a simulation knows about one session that a log cannot: the true utility of every card
/// to the diner (from the hidden tastes) and of the cards an all-knowing strategy would show.
///
/// The simulator emits one per simulated session; `StatsAccumulator.add(_:)` turns them into the
/// ground-truth metrics (`mean_pick_utility`, `mean_regret`, `ndcg_at_k`).
package struct GroundTruthSession: Sendable, Equatable {
  /// The strategy label (nil: the unlabelled group `(all)`), as for the session's events.
  package var strategy: String?
  package var user: String
  /// The deck date (the row the session counts in).
  package var day: DeckDate
  /// True utility of each card of the deck as built, in deck order, cards the diner never
  /// reached included.
  package var deck: [Double]
  /// 1-based position in `deck` of the pick (the first right swipe); nil when nothing was picked.
  package var pickedPosition: Int?
  /// True utilities of the oracle: the deck a strategy knowing the hidden tastes would build
  /// under the same rules, or all of the diner's candidates; any order (it is sorted).
  package var oracle: [Double]

  package init(
    strategy: String? = nil, user: String, day: DeckDate, deck: [Double], pickedPosition: Int?,
    oracle: [Double]
  ) {
    precondition(
      pickedPosition.map { $0 >= 1 && $0 <= deck.count } ?? true,
      "picked position \(pickedPosition ?? 0) is outside a deck of \(deck.count) cards")
    precondition(
      deck.allSatisfy(\.isFinite) && oracle.allSatisfy(\.isFinite), "utilities must be finite")
    self.strategy = strategy
    self.user = user
    self.day = day
    self.deck = deck
    self.pickedPosition = pickedPosition
    self.oracle = oracle
  }

  /// The true utility of the picked card, or nil when nothing was picked.
  package var pickUtility: Double? { pickedPosition.map { deck[$0 - 1] } }

  /// The oracle's best utility minus the deck's best, or nil when either is empty.
  package var regret: Double? {
    guard let best = oracle.max(), let shown = deck.max() else { return nil }
    return best - shown
  }

  /// NDCG@k of the deck against the oracle ordering, or nil when the deck or the oracle is empty.
  ///
  /// DCG@k = sum over ranks r = 1...min(k, count) of gain(u_r) / log2(r + 1), with gain(u) =
  /// 1 / (1 + exp(-u)) (the logistic of the true utility: positive, increasing, so the ideal order
  /// by gain is the order by utility). The ideal DCG takes the oracle's utilities sorted
  /// descending. When the oracle holds all candidates the result is in (0, 1].
  package func ndcg(k: Int) -> Double? {
    precondition(k >= 1, "k must be 1 or more")
    guard !deck.isEmpty, !oracle.isEmpty else { return nil }
    let ideal = GroundTruthSession.dcg(oracle.sorted(by: >), k: k)
    return GroundTruthSession.dcg(deck, k: k) / ideal
  }

  /// The gain of a card of true utility `u`: 1 / (1 + exp(-u)).
  package static func gain(_ u: Double) -> Double { 1 / (1 + exp(-u)) }

  /// DCG of the first `k` utilities in the order given.
  package static func dcg(_ utilities: [Double], k: Int) -> Double {
    var sum = 0.0
    for (n, u) in utilities.prefix(k).enumerated() { sum += gain(u) / log2(Double(n + 2)) }
    return sum
  }
}
