import DeckBase
import DeckCore
import DeckIO

/// `menudeck merge`: history snapshots added up into one.
package struct MergeRequest: Sendable {
  /// The snapshots to merge ("-" is standard input, which may hold several).
  package var snapshots: [String]
  /// The merged snapshot ("-" is standard output) under the key `out`; the snapshots, which it
  /// may not replace; `--wait`.
  package var outputs: OutputPlan
  package var out: OutputKey
  /// Whether the snapshot is written as one line of text (`--base64`).
  package var base64 = false

  package init(snapshots: [String], out: RequestedOutput, plan: OutputPlan = OutputPlan()) {
    self.snapshots = snapshots
    var plan = plan
    plan.inputs += snapshots.map { RunOutputs.File("the snapshot", $0) }
    outputs = plan.writing([out])
    self.out = out.key
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
    let outputs = try RunOutputs(request.outputs, io: io)
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
      to: request.out)
    try outputs.commit()
    return Outcome(merged: merged, count: count)
  }
}
