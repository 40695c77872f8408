import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckIO

/// A compressed swipe log (by its name, or by its first bytes whatever its name) is refused
/// with a message that says which compression and how to pipe it in, the same however the bytes
/// arrive.
@Suite struct EventReaderCompressedTests {
  /// The first bytes of each compression's output (the rest of a real file does not matter:
  /// the reader stops at the magic number).
  static let heads: [(name: String, tool: String, bytes: [UInt8])] = [
    ("gzip", "zcat", [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xAB, 0x56]),
    ("bzip2", "bzcat", Array("BZh91AY&SY".utf8) + [0x4E, 0xEC, 0xE8, 0x36]),
    ("xz", "xzcat", [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0x00, 0x04, 0xE6, 0xD6, 0xB4, 0x46]),
    ("zstd", "zstdcat", [0x28, 0xB5, 0x2F, 0xFD, 0x24, 0x4A, 0x51, 0x02, 0x00, 0x7B, 0x22, 0x75]),
  ]

  /// Hands out one byte per read, as a slow pipe may.
  struct TrickleInput: ByteInput {
    let bytes: [UInt8]
    var offset = 0

    mutating func read(into p: UnsafeMutablePointer<UInt8>, count: Int, name: String)
      throws(DeckIOError) -> Int
    {
      guard offset < bytes.count, count > 0 else { return 0 }
      p.pointee = bytes[offset]
      offset += 1
      return 1
    }
  }

  @Test func theNameTellsTheCompression() {
    #expect(EventFormat.compression(ofPath: "logs/2026-11.jsonl.gz")! == ("gzip", "zcat"))
    #expect(EventFormat.compression(ofPath: "a.CSV.BZ2")! == ("bzip2", "bzcat"))
    #expect(EventFormat.compression(ofPath: "a.jsonl.xz")! == ("xz", "xzcat"))
    #expect(EventFormat.compression(ofPath: "a.jsonl.zst")! == ("zstd", "zstdcat"))
    #expect(EventFormat.compression(ofPath: "a.jsonl") == nil)
    #expect(EventFormat.compression(ofPath: "gz/a") == nil)
    #expect(EventFormat.compression(ofPath: "a.tgz") == nil)
  }

  @Test func theFirstBytesTellTheCompressionAndTextNever() {
    for head in Self.heads {
      let told = head.bytes.withUnsafeBufferPointer { EventFormat.compression(ofBytes: $0) }
      #expect(told?.name == head.name)
      #expect(told?.decompress == head.tool)
    }
    // Logs and headers that start like one: text never matches.
    for text in ["BZh9,item,swipe,at\n", "BZh91AY&SX", "(user),item\n", "{\"user\":1}\n", "\u{1F}"]
    {
      let bytes = Array(text.utf8)
      #expect(
        bytes.withUnsafeBufferPointer { EventFormat.compression(ofBytes: $0) } == nil, "\(text)")
    }
  }

  @Test func aCompressedNameIsRefusedWithThePipeToUse() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("2026 11.jsonl.gz").path
    try Data(Self.heads[0].bytes).write(to: URL(fileURLWithPath: path))
    var sink = SwipeEventCollector()
    #expect(
      throws: DeckIOError.invalid(
        path: path,
        message: "the swipe log is compressed (gzip) and menudeck reads logs uncompressed; pipe "
          + "it through zcat and give '-' for the log: zcat '\(path)' | menudeck deck --history "
          + "-")
    ) {
      _ = try EventReader().read([EventSource(path: path)], into: &sink)
    }
  }

  /// A regular file whose name tells no format is told by its first bytes before the reader
  /// gives up on its name: compressed (any of the four, the name not said to disagree), a
  /// history snapshot (binary or text form); a directory is one, whatever its name; anything
  /// else still asks for a telling name.
  @Test func aNameThatTellsNothingIsToldByTheBytes() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    var sink = SwipeEventCollector()
    for head in Self.heads {
      let path = dir.appendingPathComponent("log-\(head.name)").path
      try Data(head.bytes).write(to: URL(fileURLWithPath: path))
      #expect(
        throws: DeckIOError.invalid(
          path: path,
          message: "the swipe log is compressed (\(head.name)) and menudeck reads logs "
            + "uncompressed; pipe it through \(head.tool) and give '-' for the log: "
            + "\(head.tool) \(path) | menudeck deck --history -")
      ) {
        _ = try EventReader().read([EventSource(path: path)], into: &sink)
      }
    }
    let snapshotMessage =
      "is a history snapshot, not a swipe log; give the swipe logs (snapshots are added up by "
      + "'menudeck merge')"
    for (name, bytes) in [
      ("h.snap", SnapshotFile.magic + [1, 0, 0, 0]), ("h64.snap", Array("MDSNAP64:AAAA\n".utf8)),
    ] {
      let path = dir.appendingPathComponent(name).path
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      #expect(throws: DeckIOError.invalid(path: path, message: snapshotMessage)) {
        _ = try EventReader().read([EventSource(path: path)], into: &sink)
      }
    }
    for name in ["days", "days.jsonl"] {
      let path = dir.appendingPathComponent(name).path
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
      #expect(
        throws: DeckIOError.io(
          path: path, message: "is a directory, not a swipe log; give the path of a file")
      ) {
        _ = try EventReader().read([EventSource(path: path)], into: &sink)
      }
    }
    let text = dir.appendingPathComponent("notes").path
    try Data("user,item,swipe,at\n".utf8).write(to: URL(fileURLWithPath: text))
    #expect(
      throws: DeckIOError.invalid(
        path: text,
        message: "cannot tell the format of the swipe log from its name; name the file .jsonl, "
          + ".ndjson, .json or .csv (or pipe it to '-')")
    ) {
      _ = try EventReader().read([EventSource(path: text)], into: &sink)
    }
  }

  @Test(arguments: [EventFormat.jsonLines, .csv])
  func compressedBytesAreRefusedHoweverTheyArrive(format: EventFormat) throws {
    for head in Self.heads {
      let bytes = head.bytes + Array(repeating: 0x41, count: 200)
      let message =
        "the swipe log is compressed (\(head.name), whatever its name says) and menudeck reads "
        + "logs uncompressed; pipe it through \(head.tool) and give '-' for the log: "
        + "\(head.tool) log.jsonl | menudeck deck --history -"
      let want = DeckIOError.invalid(path: "log.jsonl", message: message)
      for chunk in [16, 97, 1 << 16] {
        let options = EventReaderOptions(skipBadLines: true, chunkSize: chunk)
        #expect(throws: want, "\(head.name), chunk \(chunk)") {
          _ = try readEvents(bytes: bytes, format, options: options, name: "log.jsonl")
        }
      }
      var input = TrickleInput(bytes: bytes)
      var sink = SwipeEventAdapter(SwipeEventCollector())
      var stats = EventReadStats()
      #expect(throws: want, "\(head.name), a byte at a time") {
        _ = try EventReader().readStream(
          &input, name: "log.jsonl", format: format, into: &sink, stats: &stats)
      }
    }
  }

  @Test func standardInputSaysLOG() {
    let message = EventFormat.compressedLogMessage(
      name: "<stdin>", ("xz", "xzcat"), despiteName: true)
    #expect(
      message
        == "the swipe log is compressed (xz) and menudeck reads logs uncompressed; pipe it "
        + "through xzcat and give '-' for the log: xzcat LOG | menudeck deck --history -")
    // The advice is the caller's: the command line knows the command that was run.
    let told = EventFormat.compressedLogMessage(
      name: "a.gz", ("gzip", "zcat"), despiteName: false,
      advice: { name, c in "\(c.decompress) \(name)" })
    #expect(told.hasSuffix("uncompressed; zcat a.gz"))
  }

  @Test func shortLogsAreReadAsBefore() throws {
    // Fewer bytes than a magic number: read to the end, as any log.
    let (events, _) = try readEvents(bytes: [], .jsonLines)
    #expect(events.isEmpty)
    #expect(throws: DeckIOError.self) { _ = try readEvents(bytes: [0x1F, 0x8B], .jsonLines) }
    let (one, _) = try readEvents(
      "{\"user\":\"u\",\"item\":\"i\",\"swipe\":\"left\",\"at\":\"2026-11-20T12:00:00Z\"}",
      .jsonLines)
    #expect(one.count == 1)
  }
}
