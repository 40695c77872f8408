/// What a run writes and what it must leave alone, as its request holds it: each output with its
/// path as written, the one that goes to standard output when it is not given, the files the run
/// reads (which no output may replace) and how the outputs are opened (`--wait`, `--dry-run`,
/// the directories made, where a path came from).
///
/// The command line reads `--wait`, `--dry-run` and the input files once for every command
/// (`MenuDeckCLI/OutputRequests.swift`); the request adds its outputs (`writing(_:)`) and names
/// each by its key; the job opens the plan with `RunOutputs(_:io:)`.
package struct OutputPlan: Sendable {
  /// The outputs, in the order they are checked (a nil path: not given, not written).
  package var outputs: [RequestedOutput] = []
  /// The output that goes to standard output when it is not given (the run's main result).
  package var standardOutput: OutputKey?
  /// The files the run reads, each with the option (or role) that names it: no output may
  /// replace one.
  package var inputs: [RunOutputs.File]
  /// `--wait`: seconds to wait for another run's lock on an output.
  package var wait: Double
  /// `--dry-run`: every check is made, nothing is written or locked.
  package var dryRun: Bool
  /// The outputs whose missing directories are made (`--trec DIR`, `import --out DIR`).
  package var createDirectories: Set<OutputKey> = []
  /// Where the path of an output came from when the command line did not give it.
  package var origins: [OutputKey: String] = [:]

  package init(inputs: [RunOutputs.File] = [], wait: Double = 0, dryRun: Bool = false) {
    self.inputs = inputs
    self.wait = wait
    self.dryRun = dryRun
  }

  /// This plan with `outputs` (after any it has), `standardOutput` the one that goes to
  /// standard output when it is not given.
  package func writing(_ outputs: [RequestedOutput], standardOutput: OutputKey? = nil)
    -> OutputPlan
  {
    var plan = self
    plan.outputs += outputs
    plan.standardOutput = standardOutput ?? self.standardOutput
    return plan
  }

  /// The path of `key` as written (of its first file, for an output with several); nil when
  /// it was not given.
  package func path(_ key: OutputKey) -> String? {
    outputs.first { $0.key == key && $0.path != nil }?.path
  }
}

extension RunOutputs {
  /// Declares, checks and locks the outputs of `plan` (see the designated initializer).
  package convenience init(_ plan: OutputPlan, io: JobIO) throws {
    try self.init(
      plan.outputs.map { ($0.key, $0.path) }, inputs: plan.inputs, origins: plan.origins,
      wait: plan.wait, standardOutput: plan.standardOutput,
      createDirectories: plan.createDirectories, dryRun: plan.dryRun, io: io)
  }
}
