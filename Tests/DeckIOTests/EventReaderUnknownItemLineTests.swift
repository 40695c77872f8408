import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckIO

/// The line of the first event naming a dish that is not in the catalog
/// (`EventFileStats.firstUnknownItemLine`): the first in file order, the same from the serial
/// reader in small and large chunks and from the reader in parts on any number of threads, in
/// JSON Lines (fast and general paths) and CSV (a record on several lines counts from its first).
@Suite("The first unknown dish's line")
struct EventReaderUnknownItemLineTests {
  static let catalog = EventReaderByDinerTests.catalog

  /// The parallel reader's test log with events of dishes not in the catalog put in at `at`
  /// (record indexes): the first spelt to take the general paths (JSON keys out of order and an
  /// escaped id; a quoted CSV id and a note on two lines), the others plainly.
  static func log(_ format: EventFormat, at indexes: [Int]) -> String {
    var bad: [Int: String] = [:]
    for (n, k) in indexes.enumerated() {
      switch (format, n) {
      case (.jsonLines, 0):
        bad[k] =
          #"{"swipe":"right","item":"ghost\u002ddish","at":"2026-11-03T10:00:00Z","user":"u9"}"#
      case (.jsonLines, _):
        bad[k] =
          #"{"user":"u8","item":"phantom-\#(n)","swipe":"left","at":"2026-11-04T10:00:00Z"}"#
      case (.csv, 0):
        bad[k] = "u9,\"ghost-dish\",right,2026-11-03T10:00:00Z,2,\"two\nlines\""
      case (.csv, _):
        bad[k] = "u8,phantom-\(n),left,2026-11-04T10:00:00Z,1,"
      }
    }
    return EventReaderParallelTests.log(format, n: 900, seed: 21, bad: bad)
  }

  /// The 1-based line where the record holding `needle` starts (the records put in by `log`
  /// start their line).
  static func line(of needle: String, in text: String) throws -> Int {
    let bytes = Array(text.utf8)
    let target = Array(needle.utf8)
    let start = try #require(
      (0...(bytes.count - target.count)).first {
        bytes[$0..<($0 + target.count)].elementsEqual(target)
      })
    return bytes[..<start].filter { $0 == UInt8(ascii: "\n") }.count + 1
  }

  static func write(_ text: String, _ format: EventFormat, in dir: URL) throws -> String {
    let path = dir.appendingPathComponent(format == .csv ? "log.csv" : "log.jsonl").path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  static func serial(_ path: String, _ format: EventFormat, chunkSize: Int) throws -> EventReadStats
  {
    let reader = EventReader(options: EventReaderOptions(chunkSize: chunkSize))
    var ingest = HistoryIngest(catalog: catalog, cutoff: nil)
    return try reader.read([EventSource(path: path, format: format)], into: &ingest)
  }

  static func inParts(_ path: String, _ format: EventFormat, jobs: Int) throws -> (
    EventReadStats, parts: Int
  ) {
    let items = DinerBuckets.Items(catalog: catalog)
    let read = try EventReader().readInParts(
      path: path, format: format, jobs: jobs, minimumPartBytes: 64,
      sink: { DinerBuckets(items: items, buckets: jobs) }, finish: { _ in 0 })
    return (read.stats, read.parts)
  }

  @Test(
    "unknown dishes only past the first parts: the first one's line, whatever the threads",
    arguments: [EventFormat.jsonLines, .csv])
  func firstLineInFileOrder(format: EventFormat) throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    // Record 500 of 900: past the first part for every number of parts below.
    let text = Self.log(format, at: [500, 620, 880])
    let path = try Self.write(text, format, in: dir)
    let want = try Self.line(of: format == .csv ? "u9,\"ghost" : "ghost\\u002d", in: text)
    #expect(want > 500, "the record is past 500 lines")
    for chunk in [97, 1 << 16] {
      let stats = try Self.serial(path, format, chunkSize: chunk)
      #expect(stats.files.map(\.firstUnknownItemLine) == [want], "chunk \(chunk)")
      #expect(stats.unknownItemEvents == 3)
      #expect(stats.unknownItemIDs == ["ghost-dish", "phantom-1", "phantom-2"])
    }
    let one = try Self.serial(path, format, chunkSize: 1 << 16)
    for jobs in [1, 2, 3, 7] {
      let (stats, parts) = try Self.inParts(path, format, jobs: jobs)
      if jobs > 1 { #expect(parts > 1, "jobs \(jobs): \(parts) part(s)") }
      #expect(stats.files.map(\.firstUnknownItemLine) == [want], "jobs \(jobs)")
      #expect(stats == one, "jobs \(jobs): the serial reader's counts")
    }
  }

  @Test(
    "an unknown dish in every part: the first part's", arguments: [EventFormat.jsonLines, .csv])
  func firstOfSeveralParts(format: EventFormat) throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let text = Self.log(format, at: [3, 150, 300, 450, 600, 750, 899])
    let path = try Self.write(text, format, in: dir)
    let want = try Self.line(of: format == .csv ? "u9,\"ghost" : "ghost\\u002d", in: text)
    for jobs in [1, 3, 7] {
      let (stats, _) = try Self.inParts(path, format, jobs: jobs)
      #expect(stats.files.map(\.firstUnknownItemLine) == [want], "jobs \(jobs)")
      #expect(stats.unknownItemEvents == 7)
    }
  }

  @Test("no unknown dish: no line") func none() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = try Self.write(Self.log(.jsonLines, at: []), .jsonLines, in: dir)
    #expect(try Self.serial(path, .jsonLines, chunkSize: 97).files[0].firstUnknownItemLine == 0)
    #expect(try Self.inParts(path, .jsonLines, jobs: 3).0.files[0].firstUnknownItemLine == 0)
  }
}
