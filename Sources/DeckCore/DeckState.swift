/// The swipeable-cards app's deck as a state machine.
///
/// The deck keeps the `original` cards, the `unswiped` cards (top first) and the `swiped` cards
/// with their direction, in swipe order. A swipe moves the top card to `swiped`; `reset()`
/// restores the original deck.
///
/// In `.pickOne` mode (the food-menu app) the first right swipe is the pick and ends the session.
///
/// Swiping when the session is over (no cards at all, every card swiped, or a card picked) is a
/// defined no-op: the deck does not change and `swipe(_:)` returns `.ignored(status)`, so a late
/// gesture in an app can never corrupt the state.
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

    /// Whether no more swipes are accepted.
    public var isOver: Bool { self != .inProgress }

    /// The apps' labels for the states.
    public var description: String {
      switch self {
      case .noCards: return "No Cards"
      case .inProgress: return "In Progress"
      case .finishedSwiping: return "Finished Swiping"
      case .picked(let item): return "Picked \(item)"
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
    guard picked == nil, swiped.count < original.count else { return nil }
    return original[swiped.count]
  }

  public var status: Status {
    if original.isEmpty { return .noCards }
    if let picked { return .picked(picked) }
    if swiped.count == original.count { return .finishedSwiping }
    return .inProgress
  }

  /// Moves the top card to `swiped`. When the session is already over nothing changes and the
  /// result is `.ignored(status)`.
  @discardableResult
  public mutating func swipe(_ direction: SwipeDirection) -> SwipeResult {
    guard let card = top else { return .ignored(status) }
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

  /// Restores the original deck: every card unswiped, no pick.
  public mutating func reset() {
    swiped.removeAll(keepingCapacity: true)
    picked = nil
  }
}
