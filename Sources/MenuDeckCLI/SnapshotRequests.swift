import DeckCommandLine
import DeckJobs

extension MergeRequest {
  /// The request of `menudeck merge ARGS`: the snapshots, the output, `--wait`, `--base64`.
  init(_ args: ParsedArguments, _ context: CommandContext) throws {
    guard let out = args.value(Merge.out) else {
      throw UsageError("missing '--out <snapshot>': the merged snapshot to write")
    }
    let snapshots = args.arguments("snapshot")
    guard !snapshots.isEmpty else { throw UsageError("give the snapshots to merge") }
    guard snapshots.filter({ $0 == "-" }).count <= 1 else {
      throw UsageError("'-' (standard input) can be given once: it is read once")
    }
    self.init(
      snapshots: snapshots, out: RequestedOutput(.out, out), plan: try OutputPlan(args))
    base64 = args.flag(SnapshotOptions.base64)
  }
}
