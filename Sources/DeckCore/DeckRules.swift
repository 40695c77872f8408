/// The rules every deck obeys, whatever strategy ranked it.
public struct DeckRules: Sendable, Equatable {
  /// Cards per deck.
  public var size: Int = 10
  /// At most this many cards of one category; nil for no cap.
  public var maxPerCategory: Int? = 3
  /// No two adjacent cards of one category when some order avoids it.
  public var avoidAdjacentCategory: Bool = true
  /// Items always put first, in this order, when the diner may have them.
  public var pinned: [String] = []
  /// Items never shown.
  public var excluded: [String] = []
  /// An item swiped right within this many days before the deck date is held back (0 = off).
  public var repeatPickDays: Int = 6
  /// An item swiped left within this many days before the deck date is held back (0 = off).
  public var cooldownDays: Int = 3
  /// Items shown within this many days go behind items not shown in that window (0 = off).
  public var reshowDays: Int = 2
  /// The restaurant's own rules (pin at a position, boost, bury, hide), in config order; see
  /// `RestaurantRule` for the order a deck is built in. `DeckBuilder` checks them against its
  /// catalog.
  public var restaurantRules: [RestaurantRule] = []

  public init() {}

  /// The most cards a deck may have (and the largest category cap): decks are built, scored and
  /// written whole, so the size bounds the work per diner; a swipe deck never comes near it.
  public static let maxSize = 10_000
  /// The longest window of `repeatPickDays`, `cooldownDays` and `reshowDays`: 100 years.
  public static let maxDays = 36_500

  public func validate() throws(DeckCoreError) {
    guard size >= 1 else { throw .invalidRules("size must be at least 1, got \(size)") }
    guard size <= DeckRules.maxSize else {
      throw .invalidRules("size must be at most \(DeckRules.maxSize), got \(size)")
    }
    if let cap = maxPerCategory, cap < 1 {
      throw .invalidRules("maxPerCategory must be at least 1, got \(cap)")
    }
    if let cap = maxPerCategory, cap > DeckRules.maxSize {
      throw .invalidRules("maxPerCategory must be at most \(DeckRules.maxSize), got \(cap)")
    }
    for (name, value) in [
      ("repeatPickDays", repeatPickDays), ("cooldownDays", cooldownDays),
      ("reshowDays", reshowDays),
    ] {
      if value < 0 { throw .invalidRules("\(name) must be 0 or more, got \(value)") }
      if value > DeckRules.maxDays {
        throw .invalidRules("\(name) must be at most \(DeckRules.maxDays), got \(value)")
      }
    }
    if let both = pinned.first(where: { p in excluded.contains { IDKey.same($0, p) } }) {
      throw .invalidRules("item '\(both)' is both pinned and excluded")
    }
  }
}

/// Why an item was left out of a diner's candidates.
public enum HoldBackReason: Int, Sendable, CaseIterable, CustomStringConvertible {
  case excluded, unavailable, diet, allergen, dislikedCategory, recentlyPicked, cooldown

  /// The reason as it reads after "held back: 4 by ...".
  public var shortfallName: String {
    switch self {
    case .excluded: return "exclusion"
    case .unavailable: return "availability"
    case .diet: return "diet"
    case .allergen: return "allergen"
    case .dislikedCategory: return "disliked category"
    case .recentlyPicked: return "recent pick"
    case .cooldown: return "cooldown"
    }
  }

  public var description: String {
    switch self {
    case .excluded: return "excluded"
    case .unavailable: return "unavailable"
    case .diet: return "diet"
    case .allergen: return "allergen"
    case .dislikedCategory: return "disliked category"
    case .recentlyPicked: return "recently picked"
    case .cooldown: return "cooldown"
    }
  }
}

/// The items a diner may see on a date, before ranking.
public struct CandidateSet: Sendable, Equatable {
  /// Catalog indices, in catalog order; pinned items are included.
  public var items: [Int32]
  /// Per entry of `items`: shown within `reshowDays`, so it goes behind unseen items.
  public var recentlyShown: [Bool]
  /// Eligible pinned items in pin order.
  public var pinned: [Int32]
  /// How many catalog items each reason held back (indexed by `HoldBackReason.rawValue`).
  public var heldBack: [Int]
  /// What the restaurant's rules in force do to these candidates; nil when none acts.
  public var restaurant: RuleEffects? = nil
}

/// One card of a built deck.
public struct Card: Sendable, Equatable {
  public var item: Int32
  /// The score the deck was ordered by: the strategy's, changed by the restaurant's boosts and
  /// burials in force (`Deck.ruleApplications` has the strategy's).
  public var score: Double
  /// Placed by a pin: `DeckRules.pinned` (first) or a restaurant pin at a position.
  public var pinned: Bool = false
  /// Probability of this item at this position under the strategy, when it knows it.
  public var propensity: Double?
  /// Probability under the strategy of the deck's cards from position 1 up to and including
  /// this one, in this order, when it knows it (the slate estimators need it).
  public var prefixPropensity: Double?
}

/// Why a deck came out shorter than the deck size.
public struct Shortfall: Sendable, Equatable, CustomStringConvertible {
  public var size: Int
  public var cards: Int
  public var catalogCount: Int
  public var heldBack: [Int]
  /// Candidates left out because their category was full.
  public var cappedByCategory: Int
  /// Dishes held back by the restaurant's hide rules (after every `HoldBackReason`: a dish
  /// they held back is not counted here).
  public var hiddenByRule: Int = 0

  public var description: String {
    var parts: [String] = []
    for reason in HoldBackReason.allCases where heldBack[reason.rawValue] > 0 {
      parts.append("\(heldBack[reason.rawValue]) by \(reason.shortfallName)")
    }
    if hiddenByRule > 0 { parts.append("\(hiddenByRule) by hide rule") }
    if cappedByCategory > 0 { parts.append("\(cappedByCategory) by category cap") }
    if parts.isEmpty {
      let dishes = catalogCount == 1 ? "1 dish" : "\(catalogCount) dishes"
      return "deck has \(cards) of \(size) cards (the catalog has only \(dishes))"
    }
    let why = parts.joined(separator: ", ")
    return "deck has \(cards) of \(size) cards (held back: \(why))"
  }
}

/// A built deck for one diner and date.
public struct Deck: Sendable, Equatable {
  public var user: String
  public var date: DeckDate
  public var cards: [Card]
  public var shortfall: Shortfall?
  /// Pinned items the diner may not have (diet, allergen, availability, exclusion, a hide rule).
  public var skippedPins: [String]
  /// What the restaurant's rules did, in this order: the dishes hidden, the score changes (by
  /// candidate, then rule), the dishes pinned at positions (by position). Empty without rules.
  public var ruleApplications: [RuleApplication] = []
}
