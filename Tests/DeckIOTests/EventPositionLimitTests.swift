import DeckCore
import Testing

@testable import DeckIO

@Suite struct EventPositionLimitTests {
  private static func line(_ position: String) -> String {
    #"{"user":"u1","item":"a","swipe":"left","at":"2026-11-20","position":"#
      + position + "}"
  }

  /// A position beyond the most cards a deck has is a malformed line, in both formats (one near
  /// 2^31 made off-policy tables by position allocate gigabytes).
  @Test(arguments: ["10001", "2147483000", "2147483647", "2147483648", "99999999999999999999"])
  func aPositionBeyondTheLimitIsAMalformedLine(position: String) throws {
    let message =
      "'\(position)' is beyond the last card position (10000, the most cards a deck has)"
    #expect(
      throws: DeckIOError.malformed(
        SourceLocation(file: "log", line: 1, column: 69, field: "position"), message: message)
    ) { try readEvents(Self.line(position) + "\n", .jsonLines) }
    let csv = "user,item,swipe,at,position\nu1,a,left,2026-11-20,\(position)\n"
    do {
      _ = try readEvents(csv, .csv)
      Issue.record("position \(position) was read")
    } catch {
      guard case .malformed(let location, let text) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(location.line == 2 && location.field == "position")
      #expect(text == message)
    }
  }

  @Test func theLimitItselfIsRead() throws {
    let (events, _) = try readEvents(Self.line("10000") + "\n", .jsonLines)
    #expect(events.map(\.position) == [10_000])
    #expect(EventReader.maxPosition == Int32(DeckRules.maxSize))
  }
}
