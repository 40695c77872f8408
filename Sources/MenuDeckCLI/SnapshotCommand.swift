import DeckBase
import DeckCommandLine
import DeckCore
import DeckIO
import DeckJobs

let mergeCommand = CommandSpec(
  name: "merge",
  abstract: "Merge history snapshots into one.",
  discussion: """
    Adds up snapshots made from different logs (for example one per shard or per machine). \
    Merging is associative and commutative: any grouping and order gives the same bytes. A log \
    found in two of the snapshots is refused, since it would be counted twice.

    '-' reads snapshots from standard input, any number one after the other, binary or text \
    (as 'ingest --out -' and 'merge --out -' write them); so does a file that holds several \
    (cat a.snap b.snap > c.snap).

    Examples:
      menudeck merge shard-*.snap --out history.snap
      cat part-*.snap | menudeck merge - --out history.snap
    """,
  options: [Merge.out.spec, SnapshotOptions.base64.spec, OutputOptions.wait.spec],
  arguments: [
    CommandArgument(
      "snapshot", help: "Snapshots to merge ('-' reads them from standard input).",
      isRepeating: true)
  ],
  run: requestJobSummary(MergeRequest.init, MergeJob.run, summary: Merge.summary))

/// Options of the commands that write snapshots.
enum SnapshotOptions {
  static let base64 = Flag(
    "base64",
    help:
      "Write the snapshot as one line of text (base64), for pipes that carry lines such as "
      + "Spark's rdd.pipe; every reader takes both forms.")

}

enum Merge {
  static let out = Option<String>(
    "out", valueName: "snapshot",
    help: "The merged snapshot to write (atomically; '-' writes standard output).")

  /// The run's summary: the snapshots merged and what the merged one holds.
  static func summary(_ outcome: MergeJob.Outcome, _ request: MergeRequest) -> String {
    // The merged snapshot always has a path: `--out` is required.
    let (merged, out) = (outcome.merged, request.outputs.path(request.out) ?? "-")
    return "merged \(plural(outcome.count, "snapshot")) into "
      + "\(out == "-" ? "standard output" : out): "
      + "\(plural(merged.sources.count, "log")), \(plural(Int(merged.events), "swipe"))"
      + (merged.pending.isEmpty
        ? ""
        : " (\(Int(merged.events) - merged.pending.count) counted, \(merged.pending.count) "
          + "waiting for \(merged.pending.count == 1 ? "its" : "their") day)")
      + ", \(plural(merged.dinerCount, "diner"))"
  }
}
