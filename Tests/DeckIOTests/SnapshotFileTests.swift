import DeckCore
import Foundation
import Testing

@testable import DeckIO

private func sample() -> HistorySnapshot {
  var b = SnapshotBuilder()
  let events: [(String, String, SwipeDirection, Int32, Int32)] = [
    ("u1", "nikujaga", .right, 20_400, 3), ("u1", "oden", .left, 20_401, 1),
    ("u2", "nikujaga", .left, 20_399, 0), ("ü3", "肉じゃが", .right, 20_402, 1_000),
  ]
  for (u, i, s, d, p) in events {
    let us = b.userSlot(u)
    let its = b.itemSlot(i)
    b.add(user: us, item: its, swipe: s, day: d, position: p)
  }
  b.hesitations = 2
  // Swipes on or after an ingest's limit, kept as they are (given out of order, and one twice).
  b.addPending(.init(day: 20_410, user: "u2", item: "oden", swipe: .right, position: 2))
  b.addPending(.init(day: 20_405, user: "ü3", item: "肉じゃが", swipe: .left, position: 0))
  b.addPending(.init(day: 20_410, user: "u2", item: "oden", swipe: .right, position: 2))
  return b.build(sources: [
    HistorySnapshot.Source(
      sha256: String(repeating: "ab", count: 32), path: "a.jsonl", bytes: 400, lines: 8, events: 7,
      firstDay: 20_399, lastDay: 20_410),
    HistorySnapshot.Source(
      sha256: String(repeating: "cd", count: 32), path: "empty.jsonl", bytes: 0, lines: 0,
      events: 0),
  ])
}

@Suite struct SnapshotFileTests {
  @Test func roundTrip() throws {
    let s = sample()
    #expect(s.pending.map(\.day) == [20_405, 20_410, 20_410], "in canonical order")
    #expect(s.events == 7)
    let bytes = SnapshotFile.encode(s)
    #expect(try SnapshotFile.decode(bytes, file: "s.snap") == s)
    #expect(try SnapshotFile.decode(bytes, file: "s.snap").sources.map(\.lastDay) == [20_410, nil])
    #expect(try SnapshotFile.decode(SnapshotFile.encode(.empty), file: "e.snap") == .empty)
    #expect(SnapshotFile.looksLikeSnapshot(bytes))
  }

  @Test func theTextFormIsOneLineAndReadsBackInEveryReader() throws {
    let s = sample()
    let text = SnapshotFile.encodeText(s)
    #expect(text.starts(with: Array("MDSNAP64:".utf8)) && text.last == 0x0A)
    #expect(text.filter { $0 == 0x0A }.count == 1)
    #expect(SnapshotFile.looksLikeSnapshot(text))
    #expect(try SnapshotFile.decode(text, file: "s.txt") == s)
    // CRLF, as a pipe on another system may give it.
    #expect(try SnapshotFile.decode(text.dropLast() + [0x0D, 0x0A], file: "s.txt") == s)
  }

  @Test func aStreamHoldsSnapshotsOneAfterTheOtherInEitherForm() throws {
    let s = sample()
    let e = HistorySnapshot.empty
    let stream =
      SnapshotFile.encode(s) + SnapshotFile.encodeText(e) + [0x0A]
      + SnapshotFile.encode(e) + SnapshotFile.encodeText(s)
    #expect(try SnapshotFile.decodeAll(stream, file: "<stdin>") == [s, e, e, s])
    #expect(try SnapshotFile.decodeAll([], file: "<stdin>") == [])
    #expect(
      throws: DeckIOError.invalid(
        path: "s.snap",
        message:
          "holds 2 snapshots one after the other; give it to 'menudeck merge' to add them up into one"
      )
    ) { try SnapshotFile.decode(SnapshotFile.encode(s) + SnapshotFile.encode(e), file: "s.snap") }
    // A frame cut short in the middle of a stream is named by its place.
    let first = SnapshotFile.encode(e)
    let cut = first + Array(SnapshotFile.encode(s).dropLast(5))
    #expect(throws: DeckIOError.self) { try SnapshotFile.decodeAll(cut, file: "<stdin>") }
    do {
      _ = try SnapshotFile.decodeAll(cut, file: "<stdin>")
    } catch {
      #expect(
        "\(error)".hasPrefix(
          "<stdin> (snapshot 2, at byte \(first.count)): the snapshot is truncated"))
    }
    var badText = SnapshotFile.encodeText(s)
    badText[20] = UInt8(ascii: "*")
    #expect(throws: DeckIOError.self) { try SnapshotFile.decodeAll(badText, file: "<stdin>") }
  }

  @Test func bytesAfterTheEndOfASnapshotFileAreRefusedWithTheirOffset() throws {
    let s = sample()
    for whole in [SnapshotFile.encode(s), SnapshotFile.encodeText(s)] {
      #expect(try SnapshotFile.decode(whole, file: "s.snap") == s)
      // White space, a byte of anything, junk, the start of another snapshot.
      for extra in [[0x0A], [0x0A, 0x0A], [0x20], [0x00, 0x00], Array("junk".utf8), [0x1A]] {
        let n = extra.count
        #expect(
          throws: DeckIOError.invalid(
            path: "s.snap",
            message:
              "\(n) byte\(n == 1 ? "" : "s") after the end of the snapshot, from byte "
              + "\(whole.count) on; a snapshot file holds one snapshot and nothing after it (the "
              + "snapshot itself is whole and its checksum matches): remove them with 'truncate -s "
              + "\(whole.count) FILE', or ingest the logs again")
        ) { try SnapshotFile.decode(whole + extra, file: "s.snap") }
      }
      // A second snapshot cut short is named by its place; a whole one asks for merge.
      let cut = whole + Array(SnapshotFile.encode(.empty).prefix(30))
      do {
        _ = try SnapshotFile.decode(cut, file: "s.snap")
        Issue.record("a cut second snapshot was read")
      } catch {
        #expect(
          "\(error)".hasPrefix(
            "s.snap (snapshot 2, at byte \(whole.count)): the snapshot is truncated"))
      }
      #expect(throws: DeckIOError.self) {
        try SnapshotFile.decode(whole + SnapshotFile.encodeText(.empty), file: "s.snap")
      }
    }
    // Bytes before the snapshot are no snapshot either; a file of white space is empty.
    #expect(throws: DeckIOError.self) {
      try SnapshotFile.decode([0x0A] + SnapshotFile.encode(s), file: "s.snap")
    }
    #expect(
      throws: DeckIOError.invalid(
        path: "s.snap", message: "the snapshot file is empty; ingest the logs again")
    ) { try SnapshotFile.decode([0x0A, 0x20], file: "s.snap") }
  }

  @Test func aStreamTakesWhiteSpaceBetweenSnapshotsAndRefusesAnythingElseByItsOffset() throws {
    let s = sample()
    let e = HistorySnapshot.empty
    let a = SnapshotFile.encode(s)
    let b = SnapshotFile.encodeText(e)
    #expect(
      try SnapshotFile.decodeAll(a + [0x0A] + b + [0x0D, 0x0A, 0x20], file: "<stdin>") == [s, e])
    #expect(
      throws: DeckIOError.invalid(
        path: "<stdin> (at byte \(a.count + 1))",
        message:
          "the 3 bytes from byte \(a.count + 1) to the end, after snapshot 1, do not start with a "
          + "snapshot header: not a snapshot; give only what 'menudeck ingest' and 'menudeck "
          + "merge' write")
    ) { try SnapshotFile.decodeAll(a + [0x0A] + Array("xyz".utf8), file: "<stdin>") }
    #expect(throws: DeckIOError.self) {
      try SnapshotFile.decodeAll(a + Array("junk".utf8) + b, file: "<stdin>")
    }
  }

  @Test func truncatedAtEveryLengthIsRefused() {
    let bytes = SnapshotFile.encode(sample())
    for n in 0..<bytes.count {
      #expect(throws: DeckIOError.self) { try SnapshotFile.decode(Array(bytes[0..<n]), file: "s") }
    }
  }

  @Test func anyFlippedByteIsRefused() {
    let bytes = SnapshotFile.encode(sample())
    for n in 0..<bytes.count {
      var copy = bytes
      copy[n] ^= 0x20
      #expect(throws: DeckIOError.self) { try SnapshotFile.decode(copy, file: "s") }
    }
  }

  @Test func messagesSayWhatIsWrong() {
    var bytes = SnapshotFile.encode(sample())
    bytes[9] = 3  // version 3
    #expect(
      throws: DeckIOError.invalid(
        path: "s.snap",
        message:
          "snapshot format version 3 is newer than this menudeck reads (2); use a newer menudeck")
    ) {
      try SnapshotFile.decode(bytes, file: "s.snap")
    }
    let good = SnapshotFile.encode(sample())
    #expect(
      throws: DeckIOError.invalid(
        path: "s.snap",
        message:
          "the snapshot is truncated (\(good.count - 1) of \(good.count) bytes); it was not written completely: ingest the logs again or restore a copy"
      )
    ) {
      try SnapshotFile.decode(Array(good.dropLast()), file: "s.snap")
    }
    var corrupt = good
    corrupt[30] ^= 1
    #expect(
      throws: DeckIOError.invalid(
        path: "s.snap",
        message:
          "the snapshot's checksum does not match its contents: the file is corrupt; ingest the logs again or restore a copy"
      )
    ) {
      try SnapshotFile.decode(corrupt, file: "s.snap")
    }
    #expect(throws: DeckIOError.self) {
      try SnapshotFile.decode(Array("{\"user\":\"u1\"}\n".utf8), file: "log.jsonl")
    }
  }

  @Test func writeIsAtomicAndReadable() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "snap-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("h.snap").path
    try SnapshotFile.write(sample(), to: path)
    #expect(try SnapshotFile.read(path: path) == sample())
    #expect(SnapshotFile.isSnapshot(path: path))
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["h.snap"])
  }

  /// With a cutoff the sink keeps the later swipes pending (the first one's line noted), and
  /// adds up no dish or diner that has only pending swipes; with a catalog it tells the reader
  /// which dishes are unknown, and keeps their swipes all the same.
  @Test func ingestSinkKeepsLaterSwipesPendingAndReportsUnknownDishes() throws {
    let log = """
      {"user":"u1","item":"nikujaga","swipe":"right","at":"2026-11-20T19:00:00","position":3}
      {"user":"u3","item":"udon","swipe":"left","at":"2026-11-22T00:05:00","position":1}
      {"user":"u1","item":"oden","swipe":"left","at":"2026-11-21"}
      {"user":"u2","item":"mystery","swipe":"left","at":"2026-11-19"}
      """
    let catalog = try Catalog(
      items: ["nikujaga", "oden", "udon"].map { MenuItem(id: $0, name: $0, category: "c") })
    var sink = SnapshotIngest(cutoff: DeckDate.parse("2026-11-21"), catalog: catalog)
    let stats = try EventReader().read(text: log, name: "log", format: .jsonLines, into: &sink)
    let s = sink.builder.build()
    #expect(s.items.map(\.id) == ["mystery", "nikujaga"])
    #expect(s.users.map(\.id) == ["u1", "u2"])
    #expect(
      s.pending == [
        .init(
          day: DeckDate.parse("2026-11-21")!.daysSinceEpoch, user: "u1", item: "oden",
          swipe: .left, position: 0),
        .init(
          day: DeckDate.parse("2026-11-22")!.daysSinceEpoch, user: "u3", item: "udon",
          swipe: .left, position: 1),
      ])
    #expect(s.events == 4)
    #expect(s.lastDay == DeckDate.parse("2026-11-20")!.daysSinceEpoch)
    #expect(sink.firstPendingLine == 2)
    #expect(stats.files[0].unknownItemEvents == 1)
    #expect(stats.files[0].firstUnknownItemLine == 4)
    #expect(stats.unknownItemIDs == ["mystery"])
  }

  @Test func ingestSinkKeepsUnknownIDsAndMatchesTheBuilder() throws {
    let log = """
      {"user":"u1","item":"nikujaga","swipe":"right","at":"2026-11-20T19:00:00","position":3}
      {"user":"u1","item":"oden","swipe":"left","at":"2026-11-21"}
      {"user":"u2","item":"nikujaga","swipe":"left","at":"2026-11-19"}
      """
    var sink = SnapshotIngest()
    _ = try EventReader().read(text: log, name: "log", format: .jsonLines, into: &sink)
    let s = sink.builder.build()
    #expect(s.items.map(\.id) == ["nikujaga", "oden"])
    #expect(s.users.map(\.id) == ["u1", "u2"])
    #expect(s.events == 3)
    #expect(
      s.items[0].positions == [HistorySnapshot.PositionCount(position: 3, shown: 1, right: 1)])
  }
}
