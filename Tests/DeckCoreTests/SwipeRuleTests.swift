import Testing

@testable import DeckCore

@Suite("Swipe rules")
struct SwipeRuleTests {
  @Test("direction raw values are the apps' -1 and +1")
  func directionRawValues() {
    #expect(SwipeDirection.left.rawValue == -1)
    #expect(SwipeDirection.right.rawValue == 1)
    #expect(SwipeDirection(rawValue: -1) == .left)
    #expect(SwipeDirection(rawValue: 1) == .right)
    #expect(SwipeDirection(rawValue: 0) == nil)
    #expect(SwipeDirection.right.isPick)
    #expect(!SwipeDirection.left.isPick)
    #expect(SwipeDirection(name: "right") == .right)
    #expect(SwipeDirection(name: "left") == .left)
    #expect(SwipeDirection(name: "Right") == nil)
    #expect(SwipeDirection.left.name == "left")
  }

  @Test("shipped thresholds")
  func shippedThresholds() {
    #expect(SwipeRule.foodMenu == .relative(commit: 0.45, hint: 0.12))
    #expect(SwipeRule.cardDeck == .absolute(threshold: 100))
  }

  // MARK: relative rule (food-menu app)

  @Test(
    "relative rule at and around 0.45 and 0.12",
    arguments: [
      (45.0, 100.0, DragOutcome.hint(.right)),  // exactly 0.45: no commit
      (45.000001, 100.0, .swipe(.right)),
      ((0.45).nextUp * 100, 100.0, .swipe(.right)),
      (135.0, 300.0, .hint(.right)),  // 0.45 again, other width
      (135.0001, 300.0, .swipe(.right)),
      (-45.0, 100.0, .hint(.left)),
      (-45.000001, 100.0, .swipe(.left)),
      (-200.0, 100.0, .swipe(.left)),
      (12.0, 100.0, .hint(.right)),  // exactly 0.12 hints
      (-12.0, 100.0, .hint(.left)),
      (11.999999, 100.0, .none),  // just below 0.12
      (-11.999999, 100.0, .none),
      (36.0, 300.0, .hint(.right)),  // 0.12 of 300
      (35.9999, 300.0, .none),
      (0.0, 100.0, .none),
      (-0.0, 100.0, .none),
      (1.0, 100.0, .none),
    ])
  func relative(dx: Double, width: Double, expected: DragOutcome) throws {
    #expect(try SwipeRule.foodMenu.decide(dx: dx, width: width) == expected)
  }

  @Test(
    "relative rule needs a positive, finite width",
    arguments: [0.0, -0.0, -1.0, -390.0, .nan, .infinity])
  func relativeBadWidth(width: Double) {
    #expect(throws: DeckCoreError.self) { try SwipeRule.foodMenu.decide(dx: 300, width: width) }
    #expect(throws: DeckCoreError.invalidDrag("card width must be greater than 0, got \(width)")) {
      try SwipeRule.foodMenu.decide(dx: 10, width: width)
    }
  }

  @Test("relative rule without a width throws")
  func relativeMissingWidth() {
    #expect(throws: DeckCoreError.invalidDrag("the relative swipe rule needs a card width")) {
      try SwipeRule.foodMenu.decide(dx: 300, width: nil)
    }
  }

  @Test("a non-finite dx throws", arguments: [Double.nan, .infinity, -.infinity])
  func nonFiniteDx(dx: Double) {
    #expect(throws: DeckCoreError.self) { try SwipeRule.foodMenu.decide(dx: dx, width: 100) }
    #expect(throws: DeckCoreError.self) { try SwipeRule.cardDeck.decide(dx: dx, width: nil) }
  }

  // MARK: absolute rule (card-deck app)

  @Test(
    "absolute rule at and around 100 points",
    arguments: [
      (100.0, DragOutcome.none),  // exactly 100 does not commit
      (100.000001, .swipe(.right)),
      ((100.0).nextUp, .swipe(.right)),
      (-100.0, .none),
      (-100.000001, .swipe(.left)),
      (-101.0, .swipe(.left)),
      (101.0, .swipe(.right)),
      (99.999999, .none),
      (50.0, .none),  // no hints in the card-deck app
      (0.0, .none),
    ])
  func absolute(dx: Double, expected: DragOutcome) throws {
    #expect(try SwipeRule.cardDeck.decide(dx: dx, width: nil) == expected)
    // A valid width is accepted and ignored.
    #expect(try SwipeRule.cardDeck.decide(dx: dx, width: 30) == expected)
  }

  @Test("absolute rule rejects a width that is given but not positive", arguments: [0.0, -5.0])
  func absoluteBadWidth(width: Double) {
    #expect(throws: DeckCoreError.self) { try SwipeRule.cardDeck.decide(dx: 150, width: width) }
  }

  @Test("a zero dx never commits, even with a zero threshold")
  func zeroDxNeverCommits() throws {
    #expect(try SwipeRule.absolute(threshold: 0).decide(dx: 0, width: nil) == .none)
    #expect(try SwipeRule.absolute(threshold: 0).decide(dx: 0.5, width: nil) == .swipe(.right))
    #expect(try SwipeRule.relative(commit: 0, hint: 0).decide(dx: 0, width: 100) == .none)
    #expect(try SwipeRule.relative(commit: 0, hint: 0).decide(dx: -1, width: 100) == .swipe(.left))
  }

  @Test("outcome exposes only committed directions")
  func outcomeSwipe() {
    #expect(DragOutcome.swipe(.left).swipe == .left)
    #expect(DragOutcome.hint(.left).swipe == nil)
    #expect(DragOutcome.none.swipe == nil)
  }
}
