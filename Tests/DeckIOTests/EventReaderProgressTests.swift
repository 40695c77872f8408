import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckIO

/// The reader counts the bytes of a log on `EventReaderOptions.progress` as it reads them: the
/// file's size in the end, read whole or in parts, and not the bytes of a given CSV header.
@Suite struct EventReaderProgressTests {
  static func log(_ format: EventFormat, lines: Int) throws -> (path: String, size: Int) {
    var text = format == .csv ? "user,item,swipe,at\n" : ""
    for k in 0..<lines {
      let user = "u\(k % 37)"
      let at = "2026-11-2\(k % 9)T12:00:00Z"
      text +=
        format == .csv
        ? "\(user),dish\(k % 11),right,\(at)\n"
        : #"{"user":"\#(user)","item":"dish\#(k % 11)","swipe":"left","at":"\#(at)"}"# + "\n"
    }
    let path =
      NSTemporaryDirectory() + "menudeck-progress-\(UUID().uuidString)"
      + (format == .csv ? ".csv" : ".jsonl")
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return (path, text.utf8.count)
  }

  @Test(arguments: [EventFormat.jsonLines, .csv])
  func theBytesOfALogAreCountedOnce(format: EventFormat) throws {
    let (path, size) = try Self.log(format, lines: 3000)
    defer { try? FileManager.default.removeItem(atPath: path) }
    var options = EventReaderOptions(chunkSize: 1000)
    let whole = ProgressCounter()
    options.progress = whole
    var ingest = SnapshotIngest(cutoff: nil)
    _ = try EventReader(options: options).read(
      [EventSource(path: path, format: format)], into: &ingest)
    #expect(whole.done == size)

    let parts = ProgressCounter()
    options.progress = parts
    _ = try EventReader(options: options).readSnapshot(
      path: path, format: format, cutoff: nil, jobs: 4, minimumPartBytes: 1024)
    #expect(parts.done == size)
  }

  @Test func aGivenCSVHeaderIsNotCounted() throws {
    let (path, size) = try Self.log(.csv, lines: 500)
    defer { try? FileManager.default.removeItem(atPath: path) }
    // The log without its own header, read with the header given.
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    let body = bytes.drop { $0 != 0x0A }.dropFirst()
    try Data(body).write(to: URL(fileURLWithPath: path))
    var options = EventReaderOptions(chunkSize: 1000)
    options.csvHeader = Array("user,item,swipe,at".utf8)
    for jobs in [1, 3] {
      let counter = ProgressCounter()
      options.progress = counter
      if jobs == 1 {
        var ingest = SnapshotIngest(cutoff: nil)
        _ = try EventReader(options: options).read(
          [EventSource(path: path, format: .csv)], into: &ingest)
      } else {
        _ = try EventReader(options: options).readSnapshot(
          path: path, format: .csv, cutoff: nil, jobs: jobs, minimumPartBytes: 1024)
      }
      #expect(counter.done == body.count, "\(jobs) jobs")
      #expect(counter.done < size)
    }
  }
}
