import DeckCommandLine
import DeckCore
import DeckIO

/// Reading history snapshot files and adding them up: one step for `merge`, `stats` on snapshots
/// and `deck --history` with snapshots.
enum Snapshots {
  /// `base` with each snapshot file added in order; `each` sees every snapshot as it is read. A
  /// snapshot that cannot be added (a log in two of them, counts past the format's limits) is a
  /// data error naming its file.
  static func merge(
    _ paths: [String], into base: HistorySnapshot = .empty, _ io: CLIStreams,
    each: (String, HistorySnapshot) -> Void = { _, _ in }
  ) throws -> HistorySnapshot {
    var merged = base
    for path in paths {
      let snapshot = try Paths.using(path, io) { opened throws(DeckIOError) in
        try SnapshotFile.read(path: opened, displayName: path)
      }
      do {
        merged = try HistorySnapshot.merge(merged, snapshot)
      } catch {
        throw CommandFailure(.dataError, "\(path): \(error)")
      }
      each(path, snapshot)
    }
    return merged
  }
}
