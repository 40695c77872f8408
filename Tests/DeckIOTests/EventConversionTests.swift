import DeckCore
import Testing

@testable import DeckIO

/// Every conversion of `EventConversions.swift`, each direction with every field set and with
/// the optional ones left out.
@Suite("Event conversions")
struct EventConversionTests {
  static let full = SwipeEvent(
    user: "u01", item: "oyakodon", swipe: .right, at: 1_795_000_000, position: 3,
    deck: DeckDate(year: 2026, month: 11, day: 20), propensity: 0.25, prefixPropensity: 0.125)
  static let bare = SwipeEvent(user: "ü", item: "b,c", swipe: .left, at: -1)

  @Test(arguments: [full, bare])
  func aSwipeEventGoesThroughARawEventAndBack(event: SwipeEvent) {
    let back = event.withRawEvent(line: 7) { raw in
      #expect(raw.line == 7)
      #expect(raw.position == Int32(event.position ?? 0))
      return raw.swipeEvent
    }
    #expect(back == event)
  }

  @Test(arguments: [full, bare])
  func aSwipeEventGoesThroughALogEventAndBack(event: SwipeEvent) throws {
    let line = LogEvent(event)
    #expect(line.drag == nil)
    #expect(line.utcOffset == nil)
    #expect(try line.swipeEvent(rule: .foodMenu) == event)
  }

  @Test(arguments: [full, bare])
  func aRawEventIsTheLogLineOfItsSwipe(event: SwipeEvent) {
    let line = event.withRawEvent { LogEvent($0) }
    #expect(line == LogEvent(event))
  }

  @Test func aDraggedLineIsDecidedByTheRule() throws {
    let committed = LogEvent(
      user: "u", item: "a", swipe: nil, drag: LoggedDrag(dx: -200, width: 390), at: 5,
      utcOffset: 32_400, position: 2)
    #expect(
      try committed.swipeEvent(rule: .foodMenu)
        == SwipeEvent(user: "u", item: "a", swipe: .left, at: 5, position: 2))
    let hesitation = LogEvent(
      user: "u", item: "a", swipe: nil, drag: LoggedDrag(dx: 10, width: 390), at: 5)
    #expect(try hesitation.swipeEvent(rule: .foodMenu) == nil)
  }
}
