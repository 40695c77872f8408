import Testing

@testable import DeckCore

/// The carousel app: `index = translation > 0 ? index - 1 : index + 1`, clamped to 0...count-1.
@Suite("Carousel")
struct CarouselTests {
  @Test("dragging right shows the previous card, dragging left the next")
  func direction() {
    var c = Carousel(count: 5, index: 2)
    #expect(c.drag(dx: 1) == 1)
    #expect(c.drag(dx: -1) == 2)
    #expect(c.drag(dx: -1000) == 3)  // the distance does not matter
    #expect(c.drag(dx: 1000) == 2)
  }

  @Test(
    "at and around 0: a positive dx is previous, 0 and below are next",
    arguments: [
      (Double.leastNonzeroMagnitude, 1), (0.001, 1), (1, 1), (0, 3), (-0.0, 3),
      (-Double.leastNonzeroMagnitude, 3), (-0.001, 3), (-1, 3),
    ])
  func aroundZero(dx: Double, expected: Int) {
    var c = Carousel(count: 5, index: 2)
    #expect(c.drag(dx: dx) == expected)
    #expect(c.index == expected)
  }

  @Test("a tap is a drag of 0: the next card")
  func tap() {
    var c = Carousel(count: 3)
    #expect(c.tap() == 1)
    #expect(c.tap() == 2)
    #expect(c.tap() == 2)  // clamped at the last card
    var d = Carousel(count: 3)
    #expect(d.drag(dx: 0) == 1)
  }

  @Test("NaN does nothing")
  func notANumber() {
    var c = Carousel(count: 3, index: 1)
    #expect(c.drag(dx: .nan) == 1)
    #expect(c.drag(dx: -Double.nan) == 1)
    #expect(c.index == 1)
  }

  @Test("clamped to 0...count-1 at both ends")
  func clamped() {
    var c = Carousel(count: 3)
    #expect(c.isAtStart)
    #expect(c.drag(dx: 10) == 0)  // no card before the first
    #expect(c.drag(dx: .infinity) == 0)
    #expect(c.drag(dx: -10) == 1)
    #expect(c.drag(dx: -10) == 2)
    #expect(c.isAtEnd)
    #expect(c.drag(dx: -10) == 2)  // no card after the last
    #expect(c.drag(dx: 0) == 2)
    #expect(c.drag(dx: -.infinity) == 2)
    #expect(c.drag(dx: .infinity) == 1)
  }

  @Test("a single card never moves", arguments: [50.0, -50.0, 0.0, .infinity, -.infinity])
  func single(dx: Double) {
    var c = Carousel(count: 1)
    #expect(c.drag(dx: dx) == 0)
    #expect(c.isAtStart && c.isAtEnd)
  }

  @Test("an empty carousel has no index and ignores drags and taps")
  func empty() {
    var c = Carousel(count: 0)
    #expect(c.isEmpty)
    #expect(c.index == nil)
    #expect(c.drag(dx: 100) == nil)
    #expect(c.drag(dx: -100) == nil)
    #expect(c.drag(dx: 0) == nil)
    #expect(c.tap() == nil)
    #expect(c.index == nil)
    #expect(!c.isAtStart)
    #expect(!c.isAtEnd)
    #expect(Carousel(count: 0, index: 4).index == nil)
  }

  @Test("initial index is clamped", arguments: [(-3, 0), (0, 0), (2, 2), (3, 3), (4, 3), (99, 3)])
  func initialIndex(requested: Int, expected: Int) {
    #expect(Carousel(count: 4, index: requested).index == expected)
  }

  @Test("a walk matches the app's formula step by step")
  func walkMatchesFormula() {
    let drags: [Double] = [0, -3, 7, 0, 0, 0, -1, 12, 5, 5, 5, 0, -0.5, 0.5]
    var c = Carousel(count: 4)
    var index = 0
    for dx in drags {
      index = min(max(dx > 0 ? index - 1 : index + 1, 0), 3)
      #expect(c.drag(dx: dx) == index)
    }
  }
}
