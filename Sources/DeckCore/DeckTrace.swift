/// One diner's deck with why each card is where it is (`DeckBuilder.explain`, for
/// `menudeck deck --explain`): per card its rank in the strategy's own order, the rules that
/// acted on it and the dishes it displaced; per deck the dishes held back from the candidates.
///
/// A rule is listed on a dish only when it changed the deck: the `pinned` items and the
/// restaurant's boosts, burials and pins always do (they set the card's flag, score or place);
/// the ordering rules (not recently shown first, the category cap, the spacing of categories)
/// only when the dish would have another place without them (`TraceReason.without`), asked of
/// the deck builder itself with that one rule switched off.
///
/// Held-back dishes are not candidates: the strategy never scores them, so they carry no score
/// and no rank, and are listed once per deck (`heldBack`), not under the cards they might have
/// displaced. Excluded and unavailable dishes (the same for every diner) are not listed.
public struct DeckTrace: Sendable, Equatable {
  /// The deck, exactly as `DeckBuilder.assemble` builds it.
  public var deck: Deck
  /// One per card, in deck order.
  public var cards: [CardTrace]
  /// The dishes held back for this diner's own reasons, in catalog order.
  public var heldBack: [HeldBackDish]
}

/// Why one card is where it is.
public struct CardTrace: Sendable, Equatable {
  public var item: Int32
  /// 1-based place in the deck.
  public var position: Int
  /// The strategy's score, before the restaurant's boosts and burials (the card's `score` is
  /// after them).
  public var strategyScore: Double
  /// 1-based place among the candidates in the strategy's order: score (highest first), then
  /// catalog order, before any rule.
  public var rankBeforeRules: Int
  /// The rules that acted on this card, in `TraceReason` order.
  public var reasons: [TraceReason]
  /// The dishes ranked above this card before the rules, among the deck's size (those that
  /// would have been on the deck without the rules), that are not on the deck or are below
  /// this card; in rank order.
  public var displaced: [DisplacedDish]
}

/// A dish that would have been on the deck above a card without the rules.
public struct DisplacedDish: Sendable, Equatable {
  public var item: Int32
  public var strategyScore: Double
  public var rankBeforeRules: Int
  /// Its 1-based place in the deck; nil when it is not on the deck.
  public var position: Int?
  /// The rules that acted on it. Empty: none of its own; the places above it went to dishes
  /// the rules moved up (pins, boosts, burials or freshness of others), "outranked".
  public var reasons: [TraceReason]
}

/// One rule that acted on one dish of a deck.
public struct TraceReason: Sendable, Equatable {
  public enum Rule: Sendable, Equatable {
    /// `DeckRules.pinned`: put first.
    case pinned
    /// A restaurant rule's boost, burial or pin at a position (`Deck.ruleApplications`).
    case restaurant(RuleApplication)
    /// Shown within `DeckRules.reshowDays` (last on `lastShown`): ordered behind the dishes
    /// not shown recently.
    case recentlyShown(lastShown: DeckDate)
    /// Left out because its category had `cap` cards already (`DeckRules.maxPerCategory`).
    case categoryCap(category: String, cap: Int)
    /// Moved or left out so that no two neighbours share a category
    /// (`DeckRules.avoidAdjacentCategory`).
    case spacing
  }

  public var rule: Rule
  /// The dish's 1-based place in the deck built without this rule; nil when it would not be
  /// on that deck.
  public var without: Int?
}

/// A dish held back from a diner's candidates, and why.
public struct HeldBackDish: Sendable, Equatable {
  public enum Reason: Sendable, Equatable {
    /// The diner's diet (users file `diets`) that the dish does not satisfy.
    case diet(String)
    /// The diner's allergen (`allergens`) that the dish contains.
    case allergen(String)
    /// The diner's disliked category (`disliked_categories`), as the diner wrote it.
    case dislikedCategory(String)
    /// Swiped right on `swiped`, within `DeckRules.repeatPickDays`.
    case recentlyPicked(swiped: DeckDate)
    /// Swiped left on `swiped`, within `DeckRules.cooldownDays`.
    case cooldown(swiped: DeckDate)
    /// Hidden by a restaurant rule (its index in `DeckRules.restaurantRules`).
    case hidden(rule: Int)
  }

  public var item: Int32
  public var reason: Reason
}

extension DeckBuilder {
  /// `assemble`'s deck for these candidates and scores, traced (see `DeckTrace`). `candidates`
  /// must be `candidates(for: user, history: history, date: date)`: the held-back dishes and
  /// the dates of the swipes that held them back are read again from the diner and history.
  /// Costs a few more deck orders per rule in force: meant for one or a few diners.
  public func explain(
    user: UserProfile, history: UserHistory?, date: DeckDate, candidates: CandidateSet,
    scores: [Double], propensities: [Double]? = nil, prefixPropensities: [Double]? = nil
  ) -> DeckTrace {
    let deck = assemble(
      user: user.id, date: date, candidates: candidates, scores: scores,
      propensities: propensities, prefixPropensities: prefixPropensities)
    let (set, state) = classify(user, history, date, nil)
    precondition(set == candidates, "explain needs the candidates of this diner on this date")
    var tracer = DeckTracer(builder: self, candidates: candidates, scores: scores, deck: deck)
    var cards: [CardTrace] = []
    for (j, card) in deck.cards.enumerated() {
      let k = tracer.position(of: card.item)
      let rank = tracer.rank[k]
      var displaced: [DisplacedDish] = []
      for d in tracer.order.prefix(min(rank - 1, rules.size)) {
        let at = tracer.place[d]
        guard at.map({ $0 > j + 1 }) ?? true else { continue }
        displaced.append(
          DisplacedDish(
            item: candidates.items[d], strategyScore: scores[d], rankBeforeRules: tracer.rank[d],
            position: at, reasons: tracer.reasons(d, history)))
      }
      cards.append(
        CardTrace(
          item: card.item, position: j + 1, strategyScore: scores[k], rankBeforeRules: rank,
          reasons: tracer.reasons(k, history), displaced: displaced))
    }
    return DeckTrace(
      deck: deck, cards: cards,
      heldBack: heldBack(user, history, state, hidden: candidates.restaurant?.hidden ?? []))
  }

  /// The dishes held back for the diner's own reasons (`state` as `classify` gives it).
  private func heldBack(
    _ user: UserProfile, _ history: UserHistory?, _ state: [UInt8], hidden: [RuleApplication]
  ) -> [HeldBackDish] {
    var out: [HeldBackDish] = []
    for (i, s) in state.enumerated() where s >= 2 {
      let item = catalog.items[i]
      let reason: HeldBackDish.Reason?
      if s == .max {
        reason = hidden.first { $0.item == Int32(i) }.map { .hidden(rule: $0.rule) }
      } else {
        switch HoldBackReason(rawValue: Int(s) - 2) {
        case .diet:
          reason = user.diets.first { !item.diets.contains($0) }.map { .diet($0) }
        case .allergen:
          reason = user.allergens.first { item.allergens.contains($0) }.map { .allergen($0) }
        case .dislikedCategory:
          reason = user.dislikedCategories.first { IDKey.same($0, item.category) }
            .map { .dislikedCategory($0) }
        case .recentlyPicked:
          reason = history?.record(for: Int32(i))?.lastRightDay
            .map { .recentlyPicked(swiped: DeckDate(daysSinceEpoch: $0)) }
        case .cooldown:
          reason = history?.record(for: Int32(i))?.lastLeftDay
            .map { .cooldown(swiped: DeckDate(daysSinceEpoch: $0)) }
        case .excluded, .unavailable, nil:
          reason = nil
        }
      }
      if let reason { out.append(HeldBackDish(item: Int32(i), reason: reason)) }
    }
    return out
  }
}

/// The places of one deck's candidates, with and without each rule (computed when first
/// asked), for `DeckBuilder.explain`.
private struct DeckTracer {
  let builder: DeckBuilder
  let candidates: CandidateSet
  let scores: [Double]
  let deck: Deck
  /// Candidate positions in the strategy's order.
  let order: [Int]
  /// Per candidate position, its 1-based rank in `order`.
  let rank: [Int]
  /// Per candidate position, its 1-based place in the deck (nil: not on it).
  let place: [Int?]
  /// The places without each rule asked so far.
  private var without: [(rule: Switch, places: [Int?])] = []

  /// A rule switched off.
  private enum Switch: Equatable {
    case pinned(Int32)
    case restaurant(Int)
    case reshow, cap, spacing
  }

  init(builder: DeckBuilder, candidates: CandidateSet, scores: [Double], deck: Deck) {
    self.builder = builder
    self.candidates = candidates
    self.scores = scores
    self.deck = deck
    order = candidates.items.indices.sorted { a, b in
      // Highest score first, NaN after every number, -0 as 0; then catalog order.
      let (x, y) = (scores[a], scores[b])
      if x.isNaN || y.isNaN { return x.isNaN != y.isNaN ? y.isNaN : a < b }
      return x != y ? x > y : a < b
    }
    var rank = [Int](repeating: 0, count: order.count)
    for (r, k) in order.enumerated() { rank[k] = r + 1 }
    self.rank = rank
    let positions = candidates.items
    place = DeckTracer.places(
      deck.cards.map { DeckTracer.index(of: $0.item, in: positions)! }, of: positions.count)
  }

  /// The candidate position of a catalog index (the candidates are ascending).
  static func index(of item: Int32, in items: [Int32]) -> Int? {
    var lo = 0
    var hi = items.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if items[mid] < item { lo = mid + 1 } else { hi = mid }
    }
    return lo < items.count && items[lo] == item ? lo : nil
  }

  func position(of item: Int32) -> Int { DeckTracer.index(of: item, in: candidates.items)! }

  /// Per candidate position, its 1-based place in a deck `order`.
  private static func places(_ order: [Int], of count: Int) -> [Int?] {
    var out = [Int?](repeating: nil, count: count)
    for (j, k) in order.enumerated() { out[k] = j + 1 }
    return out
  }

  /// The places without one rule.
  private mutating func places(without rule: Switch) -> [Int?] {
    if let known = without.first(where: { $0.rule == rule }) { return known.places }
    var b = builder
    var c = candidates
    switch rule {
    case .pinned(let item):
      c.pinned.removeAll { $0 == item }
    case .restaurant(let r):
      if let e = c.restaurant {
        c.restaurant = RuleEffects(
          hidden: e.hidden, scoreChanges: e.scoreChanges.filter { $0.rule != r },
          placements: e.placements.filter { $0.rule != r })
      }
    case .reshow:
      c.recentlyShown = c.recentlyShown.map { _ in false }
    case .cap:
      b.rules.maxPerCategory = nil
    case .spacing:
      b.rules.avoidAdjacentCategory = false
    }
    let out = DeckTracer.places(b.deckOrder(candidates: c, scores: scores), of: c.items.count)
    without.append((rule, out))
    return out
  }

  /// The rules that acted on candidate `k`, in `TraceReason.Rule` order.
  mutating func reasons(_ k: Int, _ history: UserHistory?) -> [TraceReason] {
    let item = candidates.items[k]
    let rules = builder.rules
    var out: [TraceReason] = []
    if candidates.pinned.contains(item) {
      out.append(TraceReason(rule: .pinned, without: places(without: .pinned(item))[k]))
    }
    for a in deck.ruleApplications where a.item == item && a.effect != .hidden {
      // On a card it set the score or the place; off the deck only when it kept it off.
      let w = places(without: .restaurant(a.rule))[k]
      if place[k] != nil || w != nil { out.append(TraceReason(rule: .restaurant(a), without: w)) }
    }
    if candidates.recentlyShown[k], let day = history?.record(for: item)?.lastShownDay {
      let w = places(without: .reshow)[k]
      if w != place[k] {
        out.append(
          TraceReason(rule: .recentlyShown(lastShown: DeckDate(daysSinceEpoch: day)), without: w))
      }
    }
    if let cap = rules.maxPerCategory, place[k] == nil {
      let c = builder.catalog.itemCategory[Int(item)]
      let onDeck = deck.cards.filter { builder.catalog.itemCategory[Int($0.item)] == c }.count
      let w = places(without: .cap)[k]
      if onDeck >= cap && w != nil {
        out.append(
          TraceReason(
            rule: .categoryCap(category: builder.catalog.categories[Int(c)], cap: cap), without: w))
      }
    }
    if rules.avoidAdjacentCategory {
      let w = places(without: .spacing)[k]
      if w != place[k] { out.append(TraceReason(rule: .spacing, without: w)) }
    }
    return out
  }
}
