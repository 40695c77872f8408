import DeckCore
import DeckIO

/// Reading history snapshot files and adding them up: one step for `merge`, `stats` on snapshots
/// and `deck --history` with snapshots.
package enum Snapshots {
  /// `base` with each snapshot file added in order; `each` sees every snapshot as it is read. A
  /// snapshot that cannot be added (a log in two of them, counts past the format's limits) is a
  /// data error naming its file. With `concatenated` (`merge`), a file may hold several
  /// snapshots one after the other, as standard input may; the readers of one history
  /// (`deck`, `stats`) refuse such a file with a pointer to `merge`.
  package static func merge(
    _ paths: [String], into base: HistorySnapshot = .empty, _ io: JobIO,
    hashing: Bool = false, concatenated: Bool = false,
    each: (String, HistorySnapshot, String?) -> Void = { _, _, _ in }
  ) throws -> HistorySnapshot {
    var merged = base
    for path in paths {
      let snapshots: [HistorySnapshot]
      let hash: String?
      if path == "-" {
        (snapshots, hash) = try standardInput(io, hashing: hashing)
      } else if concatenated {
        snapshots = try Paths.using(path, io) { opened throws(DeckIOError) in
          try SnapshotFile.readAll(path: opened, displayName: path)
        }
        hash = nil
      } else {
        let (snapshot, bytesHash) = try Paths.using(path, io) { opened throws(DeckIOError) in
          try SnapshotFile.read(path: opened, displayName: path, hashing: hashing)
        }
        (snapshots, hash) = ([snapshot], bytesHash)
      }
      for snapshot in snapshots {
        do {
          merged = try HistorySnapshot.merge(merged, snapshot)
        } catch {
          throw JobError(.dataError, "\(path == "-" ? "<stdin>" : path): \(error)")
        }
        each(path, snapshot, hash)
      }
    }
    return merged
  }

  /// The snapshots on standard input, one after the other (binary or text, as `ingest --out -`
  /// and `merge --out -` write them); none when it is empty.
  /// With `hashing`, also the SHA-256 (hex) of the bytes read.
  package static func standardInput(_ io: JobIO, hashing: Bool = false) throws -> (
    [HistorySnapshot], String?
  ) {
    let bytes: [UInt8]?
    do {
      bytes = try io.standardInput.readAll(maxBytes: SnapshotFile.maxStreamBytes)
    } catch {
      throw DeckIOError.io(path: "<stdin>", message: "cannot read standard input: \(error)")
    }
    guard let bytes else {
      throw DeckIOError.invalid(
        path: "<stdin>",
        message: "more than \(SnapshotFile.maxStreamBytes) bytes of snapshots on standard "
          + "input; merge them in groups")
    }
    return (
      try SnapshotFile.decodeAll(bytes, file: "<stdin>"),
      hashing ? ContentHash.sha256(bytes) : nil
    )
  }
}
