import DeckCore
import Testing

@testable import DeckIO

/// Collects the (item, line) of every event the reader hands over.
private struct LineCollector: EventSink {
  var seen: [(item: String, line: Int)] = []

  mutating func event(_ e: RawEvent) -> EventDisposition {
    seen.append((e.itemString, e.line))
    return .accepted
  }
}

private func lines(
  _ bytes: [UInt8], _ format: EventFormat, chunkSize: Int = 1 << 18, skipBadLines: Bool = false
) throws(DeckIOError) -> [String] {
  var sink = LineCollector()
  let options = EventReaderOptions(skipBadLines: skipBadLines, chunkSize: chunkSize)
  _ = try EventReader(options: options).read(bytes: bytes, name: "log", format: format, into: &sink)
  return sink.seen.map { "\($0.item)@\($0.line)" }
}

private func lines(
  _ text: String, _ format: EventFormat, chunkSize: Int = 1 << 18, skipBadLines: Bool = false
) throws(DeckIOError) -> [String] {
  try lines(Array(text.utf8), format, chunkSize: chunkSize, skipBadLines: skipBadLines)
}

/// `RawEvent.line`: the 1-based line of the record an event came from, counted as error
/// locations count them (blank lines, the CSV header, skipped bad lines and line breaks inside
/// quoted CSV fields all count).
@Suite struct EventLineTests {
  private let jsonl = """
    {"user":"u1","item":"a","swipe":"right","at":"2026-11-20"}

    {"user":"u1","item":"b","swipe":"left","at":"2026-11-20"}
    {"user":"u1","item":"h","dx":10,"width":300,"at":"2026-11-20"}
    \t
    {"user":"u2","item":"c","swipe":"left","at":"2026-11-21"}
    """

  @Test func jsonLinesCountBlankLinesAndHesitations() throws {
    // Line 4 is a raw drag that does not commit (no event); lines 2 and 5 are blank.
    #expect(try lines(jsonl, .jsonLines) == ["a@1", "b@3", "c@6"])
  }

  @Test(arguments: [16, 17, 31, 64, 1 << 18])
  func linesDoNotDependOnChunkBoundaries(chunkSize: Int) throws {
    #expect(try lines(jsonl, .jsonLines, chunkSize: chunkSize) == ["a@1", "b@3", "c@6"])
    let csv =
      "user,item,swipe,at,note\r\nu1,a,right,2026-11-20,\"two\r\nlines\"\r\n\r\n"
      + "u1,b,left,2026-11-20,x\r\n"
    #expect(try lines(csv, .csv, chunkSize: chunkSize) == ["a@2", "b@5"])
  }

  @Test func aByteOrderMarkDoesNotShiftLines() throws {
    let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(jsonl.utf8)
    #expect(try lines(bytes, .jsonLines) == ["a@1", "b@3", "c@6"])
  }

  @Test func csvRecordsCountFromTheLineTheyStartOn() throws {
    // The header is line 1; the record of "b" starts on line 3 and spans lines 3 to 5.
    let csv = """
      user,item,swipe,at,note
      u1,a,right,2026-11-20,plain
      u1,b,left,2026-11-20,"a note
      over three
      lines"
      u1,c,left,2026-11-20,"x"
      """
    #expect(try lines(csv, .csv) == ["a@2", "b@3", "c@6"])
  }

  @Test func skippedBadLinesStillCount() throws {
    let text = """
      {"user":"u1","item":"a","swipe":"right","at":"2026-11-20"}
      {"user":"u1","item":"b","swipe":"sideways","at":"2026-11-20"}
      {"user":"u1","item":"c","swipe":"left","at":"2026-11-20"}
      """
    #expect(try lines(text, .jsonLines, skipBadLines: true) == ["a@1", "c@3"])
  }

  @Test func aLastLineWithoutLineBreak() throws {
    let text = "\n\n{\"user\":\"u1\",\"item\":\"z\",\"swipe\":\"right\",\"at\":\"2026-11-20\"}"
    #expect(try lines(text, .jsonLines) == ["z@3"])
  }

  @Test func eventsMadeByHandHaveLineZero() {
    let e = RawEvent(
      user: UnsafeBufferPointer(start: nil, count: 0),
      item: UnsafeBufferPointer(start: nil, count: 0), swipe: .left, at: 0)
    #expect(e.line == 0)
  }
}
