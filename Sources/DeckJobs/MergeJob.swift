import DeckBase
import DeckCore
import DeckIO

/// `menudeck merge`: history snapshots added up into one.
package struct MergeRequest: Sendable {
  /// The snapshots to merge ("-" is standard input, which may hold several).
  package var snapshots: [String]
  /// The merged snapshot's path ("-" is standard output) and the key it is written under.
  package var out: String
  package var outKey: OutputKey
  /// Seconds to wait for another run's lock (`--wait`).
  package var wait = 0.0
  /// Whether the snapshot is written as one line of text (`--base64`).
  package var base64 = false

  package init(snapshots: [String], out: String, outKey: OutputKey) {
    self.snapshots = snapshots
    self.out = out
    self.outKey = outKey
  }
}

/// Runs a `MergeRequest`: lock the output, read and add up every snapshot, write the sum.
package enum MergeJob {
  package struct Outcome {
    package var merged: HistorySnapshot
    /// The snapshots read (standard input and concatenated files may hold several).
    package var count: Int
  }

  package static func run(_ request: MergeRequest, _ io: JobIO) throws -> Outcome {
    let outputs = try RunOutputs(
      [(request.outKey, request.out)],
      inputs: request.snapshots.map { RunOutputs.File("the snapshot", $0) }, wait: request.wait,
      io: io)
    defer { outputs.abort() }
    var count = 0
    let merged: HistorySnapshot
    do {
      merged = try Snapshots.merge(request.snapshots, io, concatenated: true) { _, _, _ in
        count += 1
      }
    } catch let error as DeckIOError {
      // merge takes no config: only the command line named the snapshots.
      throw error.checking(DeckIOError.checkPath)
    }
    try outputs.write(
      request.base64 ? SnapshotFile.encodeText(merged) : SnapshotFile.encode(merged),
      to: request.outKey)
    try outputs.commit()
    return Outcome(merged: merged, count: count)
  }
}
