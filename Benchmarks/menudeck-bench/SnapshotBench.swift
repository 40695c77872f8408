import DeckCore
import DeckIO
import Foundation

/// Snapshot ingest (logs -> catalog-independent aggregates) and merging shard snapshots.
enum SnapshotBench {
  struct IngestResult {
    var bytes: Int
    var events: Int
    var seconds: Double
    var pairs: Int
    var snapshotBytes: Int
  }

  /// Reads the log into a snapshot, including building it in canonical order and encoding it.
  static func ingest(path: String) throws -> IngestResult {
    let zone = TimeZoneOffsets(TimeZone(identifier: "Asia/Tokyo")!)
    let reader = EventReader(options: EventReaderOptions(zone: zone))
    let t0 = Clock.cpuNow()
    var sink = SnapshotIngest()
    let stats = try reader.read([EventSource(path: path)], into: &sink)
    let snapshot = sink.builder.build()
    let encoded = SnapshotFile.encode(snapshot)
    let t1 = Clock.cpuNow()
    let pairs = snapshot.users.reduce(0) { $0 + $1.records.count }
    return IngestResult(
      bytes: stats.bytes, events: stats.events, seconds: t1 - t0, pairs: pairs,
      snapshotBytes: encoded.count)
  }

  struct MergeResult {
    var shards: Int
    var seconds: Double
    var decodeSeconds: Double
    var pairs: Int
  }

  /// Splits the log into `shards` interleaved parts, snapshots each (not timed), then times
  /// decoding the shard files and merging them into one.
  static func merge(path: String, shards: Int, dir: String) throws -> MergeResult {
    let zone = TimeZoneOffsets(TimeZone(identifier: "Asia/Tokyo")!)
    var files: [String] = []
    for k in 0..<shards {
      let file = dir + "/shard-\(shards)-\(k).snap"
      files.append(file)
      if FileManager.default.fileExists(atPath: file) { continue }
      // Shard k takes every shards-th session-aligned block of lines.
      final class Filter: EventSink {
        var inner = SnapshotIngest()
        var n = 0
        let k: Int
        let shards: Int
        init(k: Int, shards: Int) {
          self.k = k
          self.shards = shards
        }
        func event(_ e: RawEvent) -> EventDisposition {
          defer { n += 1 }
          if (n / 1000) % shards == k { return inner.event(e) }
          return .accepted
        }
      }
      var filter = Filter(k: k, shards: shards)
      _ = try EventReader(options: EventReaderOptions(zone: zone)).read(
        [EventSource(path: path)], into: &filter)
      let source = HistorySnapshot.Source(
        sha256: String(repeating: "0", count: 63) + String(k, radix: 16), path: "shard\(k)",
        bytes: 0, lines: 0, events: 0)
      try SnapshotFile.write(filter.inner.builder.build(sources: [source]), to: file)
    }
    let t0 = Clock.cpuNow()
    let snapshots = try files.map { try SnapshotFile.read(path: $0) }
    let t1 = Clock.cpuNow()
    var merged = HistorySnapshot.empty
    for s in snapshots { merged = try HistorySnapshot.merge(merged, s) }
    let t2 = Clock.cpuNow()
    return MergeResult(
      shards: shards, seconds: t2 - t1, decodeSeconds: t1 - t0,
      pairs: merged.users.reduce(0) { $0 + $1.records.count })
  }
}
