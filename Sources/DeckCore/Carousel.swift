/// The carousel app's position over `count` cards, moved as the app moves it.
///
/// The app ends a drag with `index = translation > 0 ? index - 1 : index + 1`, clamped to
/// `0...count-1`: dragging right (positive dx) shows the previous card, dragging left the next
/// one, and a drag of 0 goes to the next card too (the app's gesture has a minimum distance of 0,
/// so a tap is a drag of 0). The distance does not matter: one drag is at most one step. NaN does
/// nothing (the app cannot produce one; a log or a caller might). ±infinity are drags like any
/// other (right: previous; left: next).
///
/// An empty carousel (`count == 0`) has no index (`index == nil`) and ignores every drag.
public struct Carousel: Sendable, Hashable {
  /// Number of cards; 0 or more.
  public let count: Int
  /// The current card, in `0..<count`; nil exactly when the carousel is empty.
  public private(set) var index: Int?

  /// A carousel at `index`, clamped into `0...count-1`. `count` must be 0 or more.
  public init(count: Int, index: Int = 0) {
    precondition(count >= 0, "a carousel cannot have \(count) cards")
    self.count = count
    self.index = count == 0 ? nil : min(max(index, 0), count - 1)
  }

  public var isEmpty: Bool { count == 0 }
  public var isAtStart: Bool { index == 0 }
  public var isAtEnd: Bool { index != nil && index == count - 1 }

  /// Applies one drag (or tap, dx == 0) and returns the index afterwards (nil for an empty
  /// carousel). Whether it moved is `old != new`: at either end a drag outwards leaves the index
  /// where it is.
  @discardableResult
  public mutating func drag(dx: Double) -> Int? {
    guard let current = index, !dx.isNaN else { return index }
    let step = dx > 0 ? -1 : 1
    index = min(max(current + step, 0), count - 1)
    return index
  }

  /// A tap: the next card, as the app's drag of 0.
  @discardableResult
  public mutating func tap() -> Int? { drag(dx: 0) }
}
