import Testing

@testable import DeckCore

@Suite("Carousel")
struct CarouselTests {
  @Test("a drag moves one step in the direction of the sign of dx")
  func stepBySign() {
    var c = Carousel(count: 5)
    #expect(c.index == 0)
    #expect(c.drag(dx: 1) == 1)
    #expect(c.drag(dx: 1000) == 2)  // distance does not matter
    #expect(c.drag(dx: 0.001) == 3)
    #expect(c.drag(dx: -0.001) == 2)
    #expect(c.drag(dx: -500) == 1)
  }

  @Test("dx of zero or NaN does nothing", arguments: [0.0, -0.0, Double.nan])
  func noSign(dx: Double) {
    var c = Carousel(count: 3, index: 1)
    #expect(c.drag(dx: dx) == 1)
    #expect(c.index == 1)
  }

  @Test("clamped to 0...count-1")
  func clamped() {
    var c = Carousel(count: 3)
    #expect(c.drag(dx: -10) == 0)
    #expect(c.isAtStart)
    #expect(c.drag(dx: 10) == 1)
    #expect(c.drag(dx: 10) == 2)
    #expect(c.isAtEnd)
    #expect(c.drag(dx: 10) == 2)
    #expect(c.drag(dx: .infinity) == 2)
    #expect(c.drag(dx: -.infinity) == 1)
  }

  @Test("a single card never moves")
  func single() {
    var c = Carousel(count: 1)
    #expect(c.drag(dx: 50) == 0)
    #expect(c.drag(dx: -50) == 0)
    #expect(c.isAtStart && c.isAtEnd)
  }

  @Test("an empty carousel has no index and ignores drags")
  func empty() {
    var c = Carousel(count: 0)
    #expect(c.isEmpty)
    #expect(c.index == nil)
    #expect(c.drag(dx: 100) == nil)
    #expect(c.drag(dx: -100) == nil)
    #expect(c.index == nil)
    #expect(!c.isAtStart)
    #expect(!c.isAtEnd)
    #expect(Carousel(count: 0, index: 4).index == nil)
  }

  @Test("initial index is clamped", arguments: [(-3, 0), (0, 0), (2, 2), (3, 3), (4, 3), (99, 3)])
  func initialIndex(requested: Int, expected: Int) {
    #expect(Carousel(count: 4, index: requested).index == expected)
  }
}
