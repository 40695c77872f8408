import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckIO

/// Collects rejects from the reader's callback.
private final class RejectBox {
  var rejects: [EventReject] = []
}

private func catalog(_ ids: [String]) -> Catalog {
  try! Catalog(items: ids.map { MenuItem(id: $0, name: $0.uppercased(), category: "main") })
}

private func line(_ user: String, _ item: String, _ swipe: String, _ at: String, extra: String = "")
  -> String
{
  #"{"user":"\#(user)","item":"\#(item)","swipe":"\#(swipe)","at":"\#(at)"\#(extra)}"#
}

private func eventTemporaryDirectory() throws -> URL {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent(
    "eventreader-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url
}

@Suite struct EventReaderIngestTests {
  // MARK: - Raw drags

  @Test(
    arguments: [
      // Food-menu rule: commit when |dx| / width > 0.45.
      (SwipeRule.foodMenu, 135.0, 300.0, nil),
      (.foodMenu, 135.3, 300.0, SwipeDirection.right),
      (.foodMenu, -135.0, 300.0, nil),
      (.foodMenu, -135.3, 300.0, .left),
      (.foodMenu, 36.0, 300.0, nil),  // hint only
      (.foodMenu, 0.0, 300.0, nil),
      (.foodMenu, 301.0, 300.0, .right),
      // Card-deck rule: commit when |dx| > 100; width is ignored when given.
      (.cardDeck, 100.0, nil, nil),
      (.cardDeck, 100.5, nil, .right),
      (.cardDeck, -100.0, nil, nil),
      (.cardDeck, -100.5, 300.0, .left),
    ] as [(SwipeRule, Double, Double?, SwipeDirection?)])
  func dragDecisions(rule: SwipeRule, dx: Double, width: Double?, expected: SwipeDirection?) throws
  {
    let widthText = width.map { #","width":\#($0)"# } ?? ""
    let json = #"{"user":"u1","item":"a","dx":\#(dx)\#(widthText),"at":"2026-11-20"}"#
    let csv = "user,item,dx,width,at\nu1,a,\(dx),\(width.map { "\($0)" } ?? ""),2026-11-20\n"
    for (text, format) in [(json, EventFormat.jsonLines), (csv, .csv)] {
      let (events, stats) = try readEvents(text, format, options: .init(swipeRule: rule))
      #expect(events.map(\.swipe) == (expected.map { [$0] } ?? []))
      #expect(stats.hesitations == (expected == nil ? 1 : 0))
      #expect(stats.events == (expected == nil ? 0 : 1))
    }
  }

  // MARK: - Skipping bad lines

  @Test func skipBadLinesKeepsGoingAndHandsOverVerbatimLines() throws {
    var bytes = Array((line("u1", "a", "left", "2026-11-20") + "\n").utf8)
    let bad1 = #"{"user":"u2","item":"b","swipe":"rihgt","at":"2026-11-20"}"#
    bytes += Array((bad1 + "\r\n").utf8)
    bytes += Array((line("u3", "c", "right", "2026-11-20") + "\n").utf8)
    let bad2 = Array(#"{"user":"u"#.utf8) + [0xFF, 0xFE] + Array(#"","item":"#.utf8)
    bytes += bad2 + [0x0A]
    let bad3 = #"{"user":"u5","item":"e","swipe":"left","at":"2026-11-20","position":0}"#
    bytes += Array(bad3.utf8)  // last line, no newline
    let box = RejectBox()
    let options = EventReaderOptions(
      skipBadLines: true, chunkSize: 16, onReject: { box.rejects.append($0) })
    let (events, stats) = try readEvents(
      bytes: bytes, .jsonLines, options: options, name: "s.jsonl")
    #expect(events.map(\.user) == ["u1", "u3"])
    #expect(stats.skippedLines == 3)
    #expect(stats.lines == 5)
    #expect(stats.events == 2)
    #expect(box.rejects.map(\.text) == [Array(bad1.utf8), bad2, Array(bad3.utf8)])
    #expect(box.rejects.map(\.location.line) == [2, 4, 5])
    #expect(
      box.rejects.map(\.reason) == [
        #"swipe: 'rihgt' is not right or left; use "right" or "left" (lowercase)"#,
        "user: invalid UTF-8 (byte 0xFF); save the log as UTF-8",
        "position: '0' is out of range: give a card position from 1 to 10000 (the most cards a deck has)",
      ])
    #expect(
      box.rejects[0].error
        == .malformed(
          SourceLocation(file: "s.jsonl", line: 2, column: 34, field: "swipe"),
          message: #"'rihgt' is not right or left; use "right" or "left" (lowercase)"#))
  }

  @Test func skipBadCSVRecordsIncludingMultiLineOnes() throws {
    let text =
      "user,item,swipe,at\n"
      + "u1,a,left,2026-11-20\n"
      + "u2,\"b\nstill b\",rihgt,2026-11-20\r\n"
      + "u3,c,right,2026-11-20\n"
      + "u4,d\"x,left,2026-11-20\n"
      + "u5,e,left,2026-11-20\n"
    for chunk in [16, 17, 19, 23, 29, 31, 37, 1 << 16] {
      let box = RejectBox()
      let options = EventReaderOptions(
        skipBadLines: true, chunkSize: chunk, onReject: { box.rejects.append($0) })
      let (events, stats) = try readEvents(text, .csv, options: options)
      #expect(events.map(\.user) == ["u1", "u3", "u5"])
      #expect(stats.lines == 7)
      #expect(stats.skippedLines == 2)
      #expect(
        box.rejects.map { String(decoding: $0.text, as: UTF8.self) } == [
          "u2,\"b\nstill b\",rihgt,2026-11-20", "u4,d\"x,left,2026-11-20",
        ])
      #expect(box.rejects.map(\.location.line) == [4, 6])
      #expect(box.rejects.map(\.location.column) == [10, 5])
    }
  }

  @Test func aBadHeaderStopsEvenWhenSkipping() {
    let options = EventReaderOptions(skipBadLines: true)
    #expect(throws: DeckIOError.self) {
      _ = try readEvents("user,item\nu1,a\n", .csv, options: options)
    }
  }

  @Test func rejectsWriterWritesJSONLines() throws {
    let output = MemoryOutput()
    let writer = RejectsWriter(output: output)
    let options = EventReaderOptions(
      skipBadLines: true,
      onReject: { (reject: EventReject) throws(DeckIOError) in try writer.write(reject) })
    var bytes =
      Array(#"{"user":"u1","item":"a\"b","swipe":"nope","at":"2026-11-20"}"#.utf8) + [0x0A]
    bytes += Array("\t{\"oops\n".utf8)
    bytes += Array(#"{"x":"#.utf8) + [0xC3, 0x28] + [0x0A]
    let (_, stats) = try readEvents(bytes: bytes, .jsonLines, options: options, name: "in.jsonl")
    #expect(stats.skippedLines == 3)
    #expect(output.bytes.isEmpty)  // buffered until finish()
    try writer.finish()
    let written = output.text
    let expected = [
      #"{"file":"in.jsonl","line":1,"column":37,"field":"swipe","reason":"swipe: 'nope' is not right or left; use \"right\" or \"left\" (lowercase)","text":"{\"user\":\"u1\",\"item\":\"a\\\"b\",\"swipe\":\"nope\",\"at\":\"2026-11-20\"}"}"#,
      #"{"file":"in.jsonl","line":2,"column":8,"field":null,"reason":"the line ends inside a string (missing closing quote?); close the string","text":"\t{\"oops"}"#,
      #"{"file":"in.jsonl","line":3,"column":6,"field":null,"reason":"invalid UTF-8 (byte 0xC3); save the log as UTF-8","base64":"eyJ4IjrDKA=="}"#,
    ]
    #expect(written == expected.joined(separator: "\n") + "\n")
    #expect(writer.count == 3)
  }

  @Test func rejectsWriterWritesCSVThatReadsBackToTheSameFields() throws {
    let output = MemoryOutput()
    let writer = RejectsWriter(output: output, format: .csv)
    let options = EventReaderOptions(
      skipBadLines: true,
      onReject: { (reject: EventReject) throws(DeckIOError) in try writer.write(reject) })
    // A record on two lines with quotes and a comma, a bad date, and bytes that are not UTF-8.
    var bytes = Array("user,item,swipe,at\nu1,\"a, \"\"b\"\"\nc\",rihgt,2026-11-20\n".utf8)
    bytes += Array("u2,b,left,2026-13-40\n".utf8)
    bytes += Array("u3,".utf8) + [0xC3, 0x28] + Array(",left,2026-11-20\n".utf8)
    let (_, stats) = try readEvents(bytes: bytes, .csv, options: options, name: "in,1.csv")
    #expect(stats.skippedLines == 3)
    try writer.finish()
    let table = try CSVParser.parse(output.bytes, file: "rejects.csv")
    #expect(table.header == RejectsWriter.csvHeader.split(separator: ",").map(String.init))
    #expect(table.records.count == 3)
    let rows = table.records.map(\.fields)
    #expect(rows.map { $0[0] } == ["in,1.csv", "in,1.csv", "in,1.csv"])
    // The line of the problem: in the record on two lines, its second (the swipe).
    #expect(rows.map { $0[1] } == ["3", "4", "5"])
    #expect(rows[0][3] == "swipe")
    #expect(rows[0][4].hasPrefix("swipe: 'rihgt' is not right or left"))
    #expect(rows[0][5] == "u1,\"a, \"\"b\"\"\nc\",rihgt,2026-11-20", "the record as read")
    #expect(rows[0][6] == "")
    #expect(rows[1][5] == "u2,b,left,2026-13-40")
    #expect(rows[2][5] == "", "not UTF-8: no text")
    #expect(
      rows[2][6]
        == Data([UInt8]("u3,".utf8) + [0xC3, 0x28] + Array(",left,2026-11-20".utf8))
        .base64EncodedString())
    #expect(writer.count == 3)
  }

  @Test func aCSVRejectsFileHasItsHeaderWithNoRows() throws {
    let output = MemoryOutput()
    let writer = RejectsWriter(output: output, format: .csv)
    try writer.finish()
    #expect(output.text == RejectsWriter.csvHeader + "\n")
    let lines = MemoryOutput()
    try RejectsWriter(output: lines).finish()
    #expect(lines.bytes.isEmpty)
  }

  @Test func theRejectsFormatIsTheNames() {
    #expect(RejectsWriter.format(path: "rej.csv") == .csv)
    #expect(RejectsWriter.format(path: "out/REJ.CSV") == .csv)
    #expect(RejectsWriter.format(path: "rej.jsonl") == .jsonLines)
    #expect(RejectsWriter.format(path: "rej.ndjson") == .jsonLines)
    #expect(RejectsWriter.format(path: "-") == .jsonLines)
    #expect(RejectsWriter.format(path: "rej.json") == nil)
    #expect(RejectsWriter.format(path: "rej.txt") == nil)
    #expect(RejectsWriter.format(path: "rejects") == nil)
  }

  // MARK: - History

  @Test func unknownItemsAreCountedReportedAndLeftOut() throws {
    let text = [
      line("u1", "a", "right", "2026-11-20"),
      line("u1", "zz", "right", "2026-11-20"),
      line("u2", "yy", "left", "2026-11-20"),
      line("u1", "zz", "left", "2026-11-20"),
      line("u1", "b", "left", "2026-11-21"),
      line("u3", "x1", "left", "2026-11-21"),
      line("u3", "x2", "left", "2026-11-21"),
      line("u3", "x3", "left", "2026-11-21"),
      line("u3", "x4", "left", "2026-11-21"),
    ].joined(separator: "\n")
    var ingest = HistoryIngest(catalog: catalog(["a", "b"]))
    let stats = try EventReader().read(text: text, name: "log", format: .jsonLines, into: &ingest)
    #expect(stats.events == 9)
    #expect(stats.unknownItemEvents == 7)
    #expect(stats.unknownItemIDs == ["zz", "yy", "x1", "x2", "x3"])
    #expect(stats.files.map(\.firstUnknownItemLine) == [2])
    let history = try ingest.build()
    #expect(history.right == 1)
    #expect(history.left == 1)
    #expect(history.itemRight == [1, 0])
    #expect(history.itemLeft == [0, 1])
    // u2 and u3 only swiped unknown items: they are not in the history.
    #expect(history.userIDs == ["u1"])
    let u1 = try #require(history.users["u1"])
    let day20 = DeckDate(year: 2026, month: 11, day: 20)!.daysSinceEpoch
    #expect(u1.records.map(\.item) == [0, 1])
    #expect(u1.records.map(\.right) == [1, 0])
    #expect(u1.records.map(\.left) == [0, 1])
    #expect(u1.records.map(\.lastShown) == [day20, day20 + 1])
    #expect(u1.records.map(\.lastRight) == [day20, History.never])
    #expect(u1.records.map(\.lastLeft) == [History.never, day20 + 1])
  }

  @Test func historyDoesNotDependOnLineOrder() throws {
    let items = ["a", "b", "c", "d", "e"]
    var rng = RandomStream(seed: 7)
    var lines: [String] = []
    for _ in 0..<400 {
      let user = "u\(rng.nextInt(below: 12))"
      let item = items[rng.nextInt(below: items.count)] + (rng.nextInt(below: 10) == 0 ? "?" : "")
      let swipe = rng.nextInt(below: 2) == 0 ? "right" : "left"
      let day = 10 + rng.nextInt(below: 15)
      let hour = rng.nextInt(below: 24)
      let position = 1 + rng.nextInt(below: 8)
      lines.append(
        line(
          user, item, swipe, "2026-11-\(day)T\(hour < 10 ? "0" : "")\(hour):00:00+09:00",
          extra: #","position":\#(position)"#))
    }
    func history(_ lines: [String]) throws -> (History, EventReadStats) {
      var ingest = HistoryIngest(
        catalog: catalog(items), cutoff: DeckDate(year: 2026, month: 11, day: 22))
      let stats = try EventReader(options: .init(zone: FixedUTCOffset(seconds: 3600))).read(
        text: lines.joined(separator: "\n"), name: "log", format: .jsonLines, into: &ingest)
      return (try ingest.build(), stats)
    }
    let (reference, referenceStats) = try history(lines)
    #expect(reference.events > 0)
    #expect(referenceStats.unknownItemEvents > 0)
    for _ in 0..<3 {
      rng.shuffle(&lines)
      let (shuffled, stats) = try history(lines)
      #expect(shuffled.itemRight == reference.itemRight)
      #expect(shuffled.itemLeft == reference.itemLeft)
      #expect(shuffled.users == reference.users)
      #expect(shuffled.positionShown == reference.positionShown)
      #expect(shuffled.positionRight == reference.positionRight)
      #expect(shuffled.right == reference.right)
      #expect(shuffled.left == reference.left)
      #expect(stats.unknownItemEvents == referenceStats.unknownItemEvents)
      #expect(Set(stats.unknownItemIDs) == Set(referenceStats.unknownItemIDs))
    }
  }

  @Test func zonedTimestampsLandOnTheLocalDay() throws {
    let text = [
      line("u1", "a", "right", "2026-11-20T14:59:59Z"),  // 23:59:59 in Tokyo
      line("u1", "a", "right", "2026-11-20T15:00:00Z"),  // 00:00:00 the next day in Tokyo
      line("u1", "a", "right", "2026-11-21T00:30:00+09:00"),  // local already: 2026-11-21
      line("u1", "a", "right", "2026-11-20T23:30:00-02:00"),  // 2026-11-21T10:30 in Tokyo
      line("u1", "a", "right", "2026-11-20T23:59:59"),  // no zone: local as written
    ].joined(separator: "\n")
    let (events, _) = try readEvents(
      text, .jsonLines, options: .init(zone: FixedUTCOffset(seconds: 9 * 3600)))
    #expect(
      events.map(\.at) == [
        localTime(2026, 11, 20, 23, 59, 59), localTime(2026, 11, 21),
        localTime(2026, 11, 21, 0, 30),
        localTime(2026, 11, 21, 10, 30), localTime(2026, 11, 20, 23, 59, 59),
      ])
    #expect(
      events.map(\.day.description) == [
        "2026-11-20", "2026-11-21", "2026-11-21", "2026-11-21", "2026-11-20",
      ])
  }

  @Test func daylightSavingTimeZoneAcrossTheSwitch() throws {
    let berlin = TimeZoneOffsets(try #require(TimeZone(identifier: "Europe/Berlin")))
    let text = [
      line("u1", "a", "right", "2026-03-29T00:59:59Z"),  // 01:59:59 CET
      line("u1", "a", "right", "2026-03-29T01:00:00Z"),  // 03:00:00 CEST
      line("u1", "a", "right", "2026-03-28T22:59:59Z"),  // 23:59:59 CET, day before
      line("u1", "a", "right", "2026-03-28T23:00:00Z"),  // 00:00:00 CET
    ].joined(separator: "\n")
    let (events, _) = try readEvents(text, .jsonLines, options: .init(zone: berlin))
    #expect(
      events.map(\.at) == [
        localTime(2026, 3, 29, 1, 59, 59), localTime(2026, 3, 29, 3),
        localTime(2026, 3, 28, 23, 59, 59),
        localTime(2026, 3, 29),
      ])
  }

  // MARK: - Files

  @Test func readsSeveralFilesWithStatsPerFile() throws {
    let dir = try eventTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let jsonPath = dir.appendingPathComponent("a.jsonl").path
    let csvPath = dir.appendingPathComponent("b.CSV").path
    let otherPath = dir.appendingPathComponent("c.log").path
    let json =
      line("u1", "a", "right", "2026-11-20") + "\n"
      + #"{"user":"u1","item":"b","dx":10,"width":300,"at":"2026-11-20"}"# + "\n"
    let csv = "user,item,swipe,at\nu2,b,left,2026-11-21\nu2,zz,left,2026-11-21\n"
    try json.write(toFile: jsonPath, atomically: false, encoding: .utf8)
    try csv.write(toFile: csvPath, atomically: false, encoding: .utf8)
    try csv.write(toFile: otherPath, atomically: false, encoding: .utf8)
    var ingest = HistoryIngest(catalog: catalog(["a", "b"]))
    let stats = try EventReader(options: .init(chunkSize: 20)).read(
      [
        EventSource(path: jsonPath), EventSource(path: csvPath),
        EventSource(path: otherPath, format: .csv),
      ],
      into: &ingest)
    var first = EventFileStats(file: jsonPath, format: .jsonLines)
    first.bytes = json.utf8.count
    first.lines = 2
    first.events = 1
    first.right = 1
    first.hesitations = 1
    var second = EventFileStats(file: csvPath, format: .csv)
    second.bytes = csv.utf8.count
    second.lines = 3
    second.events = 2
    second.left = 2
    second.unknownItemEvents = 1
    second.firstUnknownItemLine = 3
    var third = second
    third.file = otherPath
    #expect(stats.files == [first, second, third])
    #expect(stats.events == 5)
    #expect(stats.unknownItemIDs == ["zz"])
    let history = try ingest.build()
    #expect(history.userIDs == ["u1", "u2"])
    #expect(history.itemLeft == [0, 2])
  }

  @Test func formatsFromExtensions() {
    #expect(EventFormat.forPath("x/swipes.jsonl") == .jsonLines)
    #expect(EventFormat.forPath("swipes.NDJSON") == .jsonLines)
    #expect(EventFormat.forPath("swipes.json") == .jsonLines)
    #expect(EventFormat.forPath("swipes.csv") == .csv)
    #expect(EventFormat.forPath("swipes.tsv") == nil)
    #expect(EventFormat.forPath("dir.csv/swipes") == nil)
    #expect(EventFormat.forPath("-") == nil)
  }

  /// Standard input has no name: its format is told by its first character.
  @Test func formatsOfStandardInputFromTheFirstCharacter() {
    func sniff(_ text: String) -> EventFormat {
      Array(text.utf8).withUnsafeBufferPointer { EventFormat.sniff($0) }
    }
    #expect(sniff(#"{"user":"u1"}"#) == .jsonLines)
    #expect(sniff("\u{FEFF}{\"user\":\"u1\"}") == .jsonLines)
    #expect(sniff("\n\r\n \t{") == .jsonLines)
    #expect(sniff("") == .jsonLines)
    #expect(sniff(" \n") == .jsonLines)
    #expect(
      Array(" \n".utf8).withUnsafeBufferPointer { EventFormat.sniff($0, blank: .csv) } == .csv)
    #expect(sniff("user,item,swipe,at\n") == .csv)
    #expect(sniff("\u{FEFF}user,item") == .csv)
    #expect(sniff("\n\"user\",item") == .csv)
    #expect(sniff("[1,2]") == .csv)
  }

  // MARK: - Byte table

  @Test func byteTableInternsInInsertionOrder() {
    var table = ByteTable(capacity: 2)
    var expected: [String] = []
    for k in 0..<5000 {
      let key = k % 7 == 0 ? "" : "user-\(k * 7919 % 5000)"
      let (index, inserted) = table.insert(key)
      if let existing = expected.firstIndex(of: key) {
        #expect(!inserted)
        #expect(index == Int32(existing))
      } else {
        #expect(inserted)
        #expect(index == Int32(expected.count))
        expected.append(key)
      }
    }
    #expect(table.count == expected.count)
    for (i, key) in expected.enumerated() {
      #expect(table.find(key) == Int32(i))
      #expect(table.string(at: Int32(i)) == key)
    }
    #expect(table.find("user-5000") == nil)
    // The hash is fixed: the same in every run (Swift's Hasher would differ per process).
    let value = Array("nikujaga".utf8).withUnsafeBufferPointer { ByteTable.hash($0) }
    #expect(value == 13_519_727_210_213_564_853)
  }

  // MARK: - Batched ingest

  /// Feeds `RawEvent`s straight into a sink (no reader), as the reader would.
  private func feed(
    _ sink: inout HistoryIngest, _ events: [(String, String, SwipeDirection, Int64)]
  ) {
    for (user, item, swipe, at) in events {
      var u = Array(user.utf8)
      var i = Array(item.utf8)
      u.withUnsafeMutableBufferPointer { ub in
        i.withUnsafeMutableBufferPointer { ib in
          _ = sink.event(
            RawEvent(
              user: UnsafeBufferPointer(ub), item: UnsafeBufferPointer(ib), swipe: swipe, at: at,
              position: 2))
        }
      }
    }
  }

  @Test(arguments: [0, 1, 255, 256, 257, 1000])
  func ingestIncludesQueuedEventsWhateverTheBatchBoundary(count: Int) throws {
    let items = (0..<20).map { "dish\($0)" }
    var random = RandomStream(seed: UInt64(count))
    var events: [(String, String, SwipeDirection, Int64)] = []
    var user = 0
    for n in 0..<count {
      if n % 5 == 0 { user = random.nextInt(below: 30) }  // sessions
      events.append(
        (
          "user\(user)", items[random.nextInt(below: 20)], n % 4 == 0 ? .right : .left,
          Int64(86_400 * (20_000 + n % 9))
        ))
    }
    var sink = HistoryIngest(catalog: catalog(items))
    feed(&sink, events)
    // No finish(): `builder` and `build()` still include every accepted event.
    var direct = HistoryBuilder(itemCount: items.count)
    for (u, i, swipe, at) in events {
      direct.add(
        user: direct.userSlot(u), item: Int32(items.firstIndex(of: i)!), swipe: swipe,
        day: Int32(at / 86_400), position: 2)
    }
    let expected = try direct.build()
    for h in [try sink.build(), try sink.builder.build()] {
      #expect(h.users == expected.users)
      #expect(h.itemRight == expected.itemRight && h.itemLeft == expected.itemLeft)
      #expect(h.positionShown == expected.positionShown)
      #expect(h.events == count)
    }
    sink.finish()
    #expect(try sink.build().users == expected.users)
    #expect(sink.builder.userCount == expected.users.count)
  }

  /// An ingest is a value: a copy taken in the middle of a batch (events queued, a session
  /// open, user ids not yet looked up) goes on alone, and so does the original.
  @Test(arguments: [3, 130, 300])
  func copiesOfAnIngestGoOnIndependently(before: Int) throws {
    let items = (0..<12).map { "dish\($0)" }
    var random = RandomStream(seed: UInt64(before))
    func events(_ count: Int, users: Int, prefix: String) -> [(
      String, String, SwipeDirection, Int64
    )] {
      var user = 0
      return (0..<count).map { n in
        if n % 4 == 0 { user = random.nextInt(below: users) }
        // Long ids too, past the 8 bytes of a word, and the ids of the other half.
        let id = user % 3 == 0 ? "a-diner-with-a-long-id-\(user)" : "\(prefix)\(user)"
        return (id, items[random.nextInt(below: 12)], n % 3 == 0 ? .right : .left, 86_400 * 20_000)
      }
    }
    let common = events(before, users: 9, prefix: "u")
    let first = events(200, users: 7, prefix: "v")
    let second = events(150, users: 11, prefix: "w")
    func ingested(_ parts: [[(String, String, SwipeDirection, Int64)]]) throws -> History {
      var sink = HistoryIngest(catalog: catalog(items))
      for part in parts { feed(&sink, part) }
      return try sink.build()
    }
    var a = HistoryIngest(catalog: catalog(items))
    feed(&a, common)
    var b = a
    feed(&a, first)
    _ = b.builder  // a look at the queued events changes nothing either
    feed(&b, second)
    let ha = try a.build()
    let hb = try b.build()
    let wantA = try ingested([common, first])
    let wantB = try ingested([common, second])
    #expect(ha.users == wantA.users && ha.itemRight == wantA.itemRight)
    #expect(hb.users == wantB.users && hb.itemLeft == wantB.itemLeft)
    #expect(ha.events == before + 200 && hb.events == before + 150)
  }

  @Test func ingestContinuesABuilderThatAlreadyHasUsers() throws {
    let items = ["a", "b"]
    var builder = HistoryBuilder(itemCount: 2)
    let z = builder.userSlot("z")
    builder.add(user: z, item: 1, swipe: .right, day: 100)
    let u = builder.userSlot("u")
    builder.add(user: u, item: 0, swipe: .left, day: 100)
    var sink = HistoryIngest(catalog: catalog(items), builder: builder)
    let text = [
      line("u", "b", "right", "1970-04-12"), line("new", "a", "left", "1970-04-13"),
      line("u", "b", "right", "1970-04-14"), line("z", "a", "left", "1970-04-15"),
    ].joined(separator: "\n")
    _ = try EventReader().read(text: text, name: "log", format: .jsonLines, into: &sink)
    let h = try sink.build()
    #expect(h.userIDs == ["new", "u", "z"])
    #expect(
      h.users["u"]?.records == [
        UserItemRecord(item: 0, right: 0, left: 1, lastRight: History.never, lastLeft: 100),
        UserItemRecord(item: 1, right: 2, left: 0, lastRight: 103, lastLeft: History.never),
      ])
    #expect(
      h.users["z"]?.records == [
        UserItemRecord(item: 0, right: 0, left: 1, lastRight: History.never, lastLeft: 104),
        UserItemRecord(item: 1, right: 1, left: 0, lastRight: 100, lastLeft: History.never),
      ])
    #expect(
      h.users["new"]?.records == [
        UserItemRecord(item: 0, right: 0, left: 1, lastRight: History.never, lastLeft: 102)
      ])
    #expect(h.itemRight == [0, 3] && h.itemLeft == [3, 0])
  }

  @Test func byteTableHeadsAndShortKeysComparedInTheSlot() {
    // The head is the first 8 bytes, zero-padded, whatever the length; keys of up to 8 bytes
    // are told apart by it and their length alone, zero bytes included.
    let bytes: [UInt8] = [0x61, 0x00, 0xFF, 0x62, 0x80, 0x00, 0x63, 0x7F, 0x64, 0x65, 0x66]
    for n in 0...bytes.count {
      var expected: UInt64 = 0
      for k in 0..<min(n, 8) { expected |= UInt64(bytes[k]) << UInt64(8 * k) }
      let head = Array(bytes[0..<n]).withUnsafeBufferPointer { ByteTable.head($0) }
      #expect(head == expected, "length \(n)")
    }
    var table = ByteTable(capacity: 4)
    var reference: [[UInt8]: Int32] = [:]
    var random = RandomStream(seed: 21)
    for _ in 0..<20_000 {
      // Short keys over a tiny alphabet (with a zero byte): many share heads and lengths.
      let n = random.nextInt(below: 12)
      let key = (0..<n).map { _ in [0x00, 0x61, 0x62, 0xC3][random.nextInt(below: 4)] as UInt8 }
      let found = key.withUnsafeBufferPointer { table.find($0) }
      #expect(found == reference[key])
      let (index, inserted) = key.withUnsafeBufferPointer { table.insert($0) }
      #expect(inserted == (reference[key] == nil))
      if inserted { reference[key] = index }
      #expect(index == reference[key])
    }
    #expect(table.count == reference.count)
  }

  @Test func byteTableFindsKeysOfEveryShortLength() {
    // Lengths 0...20 cover the one-word tail hash: under 4 bytes, 4...7, and 8 + 1...7.
    var table = ByteTable()
    var keys: [String] = []
    for length in 0...20 {
      for variant in ["a", "b", "ab"] {
        let key = String(repeating: "x", count: max(0, length - variant.count)) + variant
        if key.utf8.count == length && !keys.contains(key) { keys.append(key) }
      }
    }
    for key in keys { #expect(table.insert(key).inserted) }
    for (i, key) in keys.enumerated() { #expect(table.find(key) == Int32(i)) }
    #expect(table.find("xxxxxxxxxxc") == nil)
    #expect(table.find("ba") == nil)
    // Byte equality at every length up to 20, with one differing byte at each position.
    let a = (0..<20).map { UInt8(65 + $0) }
    for n in 0...20 {
      #expect(memEqual(a, a, n))
      for k in 0..<n {
        var b = a
        b[k] ^= 0x20
        #expect(!memEqual(a, b, n), "length \(n), byte \(k)")
        #expect(memEqual(a, b, k), "the first \(k) bytes still agree")
      }
    }
    // Keys that differ only in the middle byte of a three-byte key.
    var small = ByteTable()
    #expect(small.insert("aXb").index == 0)
    #expect(small.insert("aYb").index == 1)
    #expect(small.find("aXb") == 0 && small.find("aYb") == 1 && small.find("aZb") == nil)
  }

  @Test func rememberedDatesNeverChangeWhatATimestampMeans() throws {
    // Alternating dates, a repeated date with a bad time or a bad zone, an impossible date after
    // a valid one, and deck dates equal to the swipe's date or not.
    let text = [
      line("u", "a", "right", "2026-11-20T10:00:00Z", extra: #","deck":"2026-11-20""#),
      line("u", "a", "right", "2026-11-21T10:00:00+09:00", extra: #","deck":"2026-11-20""#),
      line("u", "a", "right", "2026-11-20T25:00:00Z"),
      line("u", "a", "right", "2026-11-20T10:00:00+24:00"),
      line("u", "a", "right", "2026-02-30T10:00:00Z"),
      line("u", "a", "right", "2026-11-20", extra: #","deck":"2026-02-29""#),
      line("u", "a", "right", "2026-11-20 23:59:59.5"),
      line("u", "a", "right", "2026-11-2"),
      line("u", "a", "right", "2028-02-29T00:00:00-01:30", extra: #","deck":"2028-02-29""#),
    ].joined(separator: "\n")
    let box = RejectBox()
    let options = EventReaderOptions(
      zone: FixedUTCOffset(seconds: 3600), skipBadLines: true,
      onReject: { box.rejects.append($0) })
    let (events, stats) = try readEvents(text, .jsonLines, options: options)
    let day20 = Int64(DeckDate(year: 2026, month: 11, day: 20)!.daysSinceEpoch) * 86_400
    let day21 = day20 + 86_400
    let leap = Int64(DeckDate(year: 2028, month: 2, day: 29)!.daysSinceEpoch) * 86_400
    #expect(
      events.map(\.at) == [
        day20 + 11 * 3600, day21 + 2 * 3600, day20 + 23 * 3600 + 59 * 60 + 59,
        leap + 2 * 3600 + 30 * 60,
      ])
    #expect(
      events.map(\.deck) == [
        DeckDate(year: 2026, month: 11, day: 20), DeckDate(year: 2026, month: 11, day: 20), nil,
        DeckDate(year: 2028, month: 2, day: 29),
      ])
    #expect(stats.skippedLines == 5)
    #expect(box.rejects.map(\.location.line) == [3, 4, 5, 6, 8])
    #expect(box.rejects.map { $0.location.field?.description } == ["at", "at", "at", "deck", "at"])
    #expect(box.rejects[0].reason.contains("hour 25 is not 00-23"))
    #expect(box.rejects[2].reason.contains("2026-02 has no day 30"))
  }
}
