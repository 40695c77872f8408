/// The direction of a committed swipe. The raw values are the apps' own: left = -1, right = +1.
///
/// Right means "I'll have this today" (a pick, add to cart); left means "not this one".
public enum SwipeDirection: Int8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  case left = -1
  case right = 1

  public init?(name: String) {
    switch name {
    case "right": self = .right
    case "left": self = .left
    default: return nil
    }
  }

  public var name: String { self == .right ? "right" : "left" }
  public var description: String { name }
  public var isPick: Bool { self == .right }
}

/// What a drag gesture amounts to when the finger lifts (or, for hints, while it moves).
public enum DragOutcome: Sendable, Equatable {
  /// The drag committed: the card leaves the stack in this direction.
  case swipe(SwipeDirection)
  /// Not committed, but far enough to show the hint label for this direction.
  case hint(SwipeDirection)
  /// The card springs back; nothing happened.
  case none

  /// The committed direction, if any.
  public var swipe: SwipeDirection? {
    if case .swipe(let d) = self { return d }
    return nil
  }
}

/// The apps' rules that turn a horizontal drag into a swipe. These are the single source of truth
/// for ingesting raw gestures, simulated sessions and the terminal deck.
public enum SwipeRule: Sendable, Equatable, CustomStringConvertible {
  /// Food-menu app (SwiftUI): commit when |dx| / width > `commit`; hint when |dx| / width >= `hint`.
  case relative(commit: Double = 0.45, hint: Double = 0.12)
  /// Card-deck app (UIKit): commit when |dx| > `threshold` points. No hint.
  case absolute(threshold: Double = 100)

  /// The food-menu app's rule with its shipped thresholds.
  public static let foodMenu = SwipeRule.relative(commit: 0.45, hint: 0.12)
  /// The card-deck app's rule with its shipped threshold.
  public static let cardDeck = SwipeRule.absolute(threshold: 100)

  public var description: String {
    switch self {
    case .relative(let commit, let hint): return "relative(commit > \(commit), hint >= \(hint))"
    case .absolute(let threshold): return "absolute(|dx| > \(threshold))"
    }
  }

  /// Decides a drag. `width` is required by the relative rule and ignored by the absolute one.
  /// A zero dx never commits (it has no direction).
  public func decide(dx: Double, width: Double?) throws(DeckCoreError) -> DragOutcome {
    guard dx.isFinite else { throw .invalidDrag("dx must be a finite number, got \(dx)") }
    let direction: SwipeDirection = dx < 0 ? .left : .right
    switch self {
    case .relative(let commit, let hint):
      guard let width else { throw .invalidDrag("the relative swipe rule needs a card width") }
      guard width.isFinite, width > 0 else {
        throw .invalidDrag("card width must be greater than 0, got \(width)")
      }
      guard dx != 0 else { return .none }
      let ratio = abs(dx) / width
      if ratio > commit { return .swipe(direction) }
      if ratio >= hint { return .hint(direction) }
      return .none
    case .absolute(let threshold):
      if let width, !(width.isFinite && width > 0) {
        throw .invalidDrag("card width must be greater than 0, got \(width)")
      }
      return dx != 0 && abs(dx) > threshold ? .swipe(direction) : .none
    }
  }
}
