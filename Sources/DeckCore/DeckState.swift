/// A session: one deck being swiped, as the apps run it. The one model of a session in menudeck:
/// the simulator drives it card by card, `menudeck play` drives it from the keyboard, and the
/// session ends that `stats` reports are defined by it (``SessionEnd``).
///
/// The deck keeps the `original` cards, the `unswiped` cards (top first) and the `swiped` cards
/// with their direction, in swipe order (the swipeable-cards app). A swipe moves the top card to
/// `swiped`; `reset()` restores the original deck.
///
/// In `.pickOne` mode (the food-menu app) the first right swipe is the pick and ends the session.
/// In `.all` mode the session ends at "Finished Swiping", and the first right swipe is still
/// remembered (`firstRight`): it is the card the diner chose first. A diner may also stop early
/// (`abandon()`: closing the app, giving up).
///
/// Swiping when the session is over (no cards at all, every card swiped, a card picked, or
/// abandoned) is a defined no-op: the deck does not change and `swipe(_:)` returns
/// `.ignored(status)`, so a late gesture in an app can never corrupt the state.
public struct DeckState<Item: Sendable & Equatable>: Sendable, Equatable {
  /// How a session ends.
  public enum Mode: Sendable, Equatable {
    /// Swipe through every card (swipeable-cards app).
    case all
    /// The first right swipe is the pick and ends the session (food-menu app).
    case pickOne
  }

  /// Where the session stands.
  public enum Status: Sendable, Equatable, CustomStringConvertible {
    /// The deck has no cards at all ("No Cards").
    case noCards
    /// There is a card on top to swipe.
    case inProgress
    /// Every card was swiped without a pick ("Finished Swiping").
    case finishedSwiping
    /// Pick-one mode: this card was swiped right and ended the session.
    case picked(Item)
    /// The diner stopped with cards left (`abandon()`).
    case abandoned

    /// Whether no more swipes are accepted.
    public var isOver: Bool { self != .inProgress }

    /// The apps' labels for the states.
    public var description: String {
      switch self {
      case .noCards: return "No Cards"
      case .inProgress: return "In Progress"
      case .finishedSwiping: return "Finished Swiping"
      case .picked(let item): return "Picked \(item)"
      case .abandoned: return "Abandoned"
      }
    }
  }

  /// What one call to `swipe(_:)` did.
  public enum SwipeResult: Sendable, Equatable {
    /// The top card left the stack in this direction; the session may now be finished.
    case swiped(Item, SwipeDirection)
    /// Pick-one mode: the card was swiped right; it is the pick and the session is over.
    case picked(Item)
    /// The session was already over; nothing changed. Carries the status that refused the swipe.
    case ignored(Status)
  }

  /// What a drag did to the deck (see `apply(drag:width:rule:)`).
  public enum DragResult: Sendable, Equatable {
    /// The drag committed and was applied as a swipe (which may itself have been ignored).
    case committed(SwipeResult)
    /// The drag showed the hint for this direction and sprang back; the deck is unchanged.
    case hint(SwipeDirection)
    /// The drag sprang back without a hint; the deck is unchanged.
    case none
  }

  /// One swiped card.
  public struct Swiped: Sendable, Equatable {
    public var item: Item
    public var direction: SwipeDirection

    public init(item: Item, direction: SwipeDirection) {
      self.item = item
      self.direction = direction
    }
  }

  /// The cards as dealt, top first.
  public let original: [Item]
  public let mode: Mode
  /// The swiped cards with their directions, in swipe order.
  public private(set) var swiped: [Swiped] = []
  /// The pick, once a pick-one session has one.
  public private(set) var picked: Item?
  /// Whether the diner stopped with cards left.
  public private(set) var isAbandoned = false
  /// The index in `swiped` of the first right swipe (in pick-one mode, the pick); nil without
  /// one. Its 1-based place in the deck is one more.
  public private(set) var firstRight: Int?

  public init(cards: [Item], mode: Mode = .all) {
    self.original = cards
    self.mode = mode
    swiped.reserveCapacity(cards.count)
  }

  /// The cards not yet swiped, top first. Swipes always take the top card, so this is always
  /// the tail of `original` after the swiped cards.
  public var unswiped: ArraySlice<Item> { original[swiped.count...] }

  /// The card a swipe would move now; nil when the session is over.
  public var top: Item? {
    guard picked == nil, !isAbandoned, swiped.count < original.count else { return nil }
    return original[swiped.count]
  }

  public var status: Status {
    if original.isEmpty { return .noCards }
    if let picked { return .picked(picked) }
    if isAbandoned { return .abandoned }
    if swiped.count == original.count { return .finishedSwiping }
    return .inProgress
  }

  /// How the session ended, in the terms of `stats`; nil while it is in progress and for a deck
  /// with no cards (no session was swiped).
  public var end: SessionEnd? {
    switch status {
    case .inProgress, .noCards: return nil
    default:
      return SessionEnd(
        swiped: swiped.count, deckSize: original.count, firstRightPlace: firstRight.map { $0 + 1 })
    }
  }

  /// Moves the top card to `swiped`. When the session is already over nothing changes and the
  /// result is `.ignored(status)`.
  @discardableResult
  public mutating func swipe(_ direction: SwipeDirection) -> SwipeResult {
    guard let card = top else { return .ignored(status) }
    if direction == .right && firstRight == nil { firstRight = swiped.count }
    swiped.append(Swiped(item: card, direction: direction))
    if mode == .pickOne && direction == .right {
      picked = card
      return .picked(card)
    }
    return .swiped(card, direction)
  }

  /// Decides a drag with `rule` and swipes only when it commits; a hint or a spring-back leaves
  /// the deck unchanged and is reported as such. Throws when the rule cannot decide the drag
  /// (e.g. a width of 0 or less), leaving the deck unchanged.
  @discardableResult
  public mutating func apply(drag dx: Double, width: Double?, rule: SwipeRule) throws(DeckCoreError)
    -> DragResult
  {
    switch try rule.decide(dx: dx, width: width) {
    case .swipe(let direction): return .committed(swipe(direction))
    case .hint(let direction): return .hint(direction)
    case .none: return .none
    }
  }

  /// Ends a session in progress early, with cards left (the diner gave up or closed the app).
  /// Returns whether it did: a session that is already over stays as it is.
  @discardableResult
  public mutating func abandon() -> Bool {
    guard status == .inProgress else { return false }
    isAbandoned = true
    return true
  }

  /// Restores the original deck: every card unswiped, no pick, not abandoned.
  public mutating func reset() {
    swiped.removeAll(keepingCapacity: true)
    picked = nil
    isAbandoned = false
    firstRight = nil
  }
}

/// How a swiped session ended, as `stats` counts it. A pick comes first: a session with a right
/// swipe is `picked` at the place of its first right swipe, even when the diner then went on (all
/// mode) or stopped. Without one, a session that swiped fewer cards than its deck had is
/// `abandoned`, and one that swiped them all `finishedWithoutPick` ("Finished Swiping" with no
/// pick).
///
/// A log does not record how many cards a deck had, so `stats` classifies a logged session with
/// `deckSize` = the configured deck size (`--size`): a deck that came out shorter (a shortfall)
/// and was swiped to its end without a pick counts as abandoned there.
public enum SessionEnd: Sendable, Equatable {
  /// The first right swipe was at this 1-based place (swipes to pick).
  case picked(place: Int)
  /// No right swipe, and fewer swipes than the deck had cards.
  case abandoned
  /// No right swipe, and every card swiped.
  case finishedWithoutPick

  /// The end of a session of `swiped` swipes over a deck of `deckSize` cards whose first right
  /// swipe, if any, was at the 1-based `firstRightPlace`.
  public init(swiped: Int, deckSize: Int, firstRightPlace: Int?) {
    if let place = firstRightPlace {
      self = .picked(place: place)
    } else {
      self = swiped < deckSize ? .abandoned : .finishedWithoutPick
    }
  }
}
