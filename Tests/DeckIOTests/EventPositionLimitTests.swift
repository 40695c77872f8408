import DeckBase
import DeckCore
import Foundation
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
      "'\(position)' is out of range: give a card position from 1 to 10000 (the most cards a deck has)"
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

@Suite struct InputOpenFailureTests {
  /// Every reader maps `open`'s failures alike: nothing there is a missing file (66), anything
  /// else, permission denied included, an I/O error (74).
  @Test func openFailuresAreMissingOrUnreadableTheSameWayEverywhere() {
    #expect(
      TextInput.openFailure(path: "p", what: "catalog", errno: ENOENT)
        == .missingFile(path: "p", what: "catalog"))
    #expect(
      TextInput.openFailure(path: "p", what: "catalog", errno: ENOTDIR)
        == .missingFile(path: "p", what: "catalog"))
    #expect(
      TextInput.openFailure(path: "p", what: "swipe log", errno: EACCES)
        == .io(
          path: "p",
          message: "cannot open the swipe log: permission denied; check the file's "
            + "permissions"))
  }

  @Test func aSwipeLogPathThroughAFileIsAMissingFile() throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "menudeck-notdir-\(UUID().uuidString)")
    try Data("x".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    var sink = SwipeEventCollector()
    let path = file.path + "/log.jsonl"
    #expect(throws: DeckIOError.missingFile(path: path, what: "swipe log")) {
      try EventReader().read([EventSource(path: path)], into: &sink)
    }
  }
}
