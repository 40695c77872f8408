/// The carousel app's position over `count` cards.
///
/// A drag moves the index by one in the direction of the sign of its dx (positive dx: index + 1,
/// negative dx: index - 1), clamped to `0...count-1`. A drag with dx == 0 (or NaN, which has no
/// sign) does nothing. The distance dragged does not matter: one drag is at most one step.
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

  /// Applies one drag and returns the index afterwards (nil for an empty carousel). Whether it
  /// moved is `old != new`: at either end a drag outwards leaves the index where it is.
  @discardableResult
  public mutating func drag(dx: Double) -> Int? {
    guard let current = index, !dx.isNaN, dx != 0 else { return index }
    let step = dx > 0 ? 1 : -1
    index = min(max(current + step, 0), count - 1)
    return index
  }
}
