import DeckCommandLine
import DeckJobs

/// The outputs of the commands, each declared once with the option that names it: the one place
/// where an option's spelling becomes the key `RunOutputs` knows it by (and names it by in
/// messages).
extension OutputKey {
  /// The main result (`deck`, `compare`, `simulate`, `snapshot merge`, `tune --out`, ...) or,
  /// for `import`, `sample` and `reference`, the files of its directory.
  static let out = OutputKey("--out")
  /// The snapshot `ingest` adds to.
  static let into = OutputKey("--into")
  /// The lines that were skipped (`--skip-bad-lines`).
  static let rejects = OutputKey("--rejects")
  /// The swipes of a simulation.
  static let events = OutputKey("--events")
  /// The table of a tuning run.
  static let results = OutputKey("--results")
  /// The HTML report of `compare`.
  static let report = OutputKey("--report")
  /// The per-diner table of `compare`.
  static let perDiner = OutputKey("--per-diner")
  /// The TREC qrels and run files of `compare`.
  static let trec = OutputKey("--trec")
}

/// `--wait SECONDS`, for every command that writes files.
enum OutputOptions {
  // Plain decimal seconds ("30", "0.5", "-1", which is out of range), not the hexadecimal or
  // exponent forms Double reads.
  static let wait = Option<Double>(
    "wait", valueName: "seconds",
    help:
      "If another run is writing one of this run's output files, wait up to this long for it "
      + "(default 0: stop at once with exit 75).",
    expected: "seconds, like 30 or 0.5",
    { text in
      let digits = text.first == "-" ? text.dropFirst() : Substring(text)
      return digits.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") } ? Double(text) : nil
    })

  /// The longest `--wait` (a week).
  static let maxWait = 7 * 86_400.0

  static let dryRun = Flag(
    "dry-run",
    help:
      "Read and check everything and make every output, but write, create and lock nothing; "
      + "say on stderr what would be written where (bytes).")

  static func wait(_ args: ParsedArguments) throws -> Double {
    try Limits.value(
      args, wait, give: "a number of seconds from 0 to \(Int(maxWait)) (a week)"
    ) { $0 >= 0 && $0 <= maxWait } ?? 0
  }
}

extension OutputPlan {
  /// How a command's outputs are opened, read once for every command that writes files: the
  /// files the run reads (`inputs`, which no output may replace), `--wait`, and `--dry-run`
  /// where the command has it. The request adds its outputs (`writing(_:)`).
  init(_ args: ParsedArguments, inputs: [RunOutputs.File] = []) throws {
    self.init(
      inputs: inputs, wait: try OutputOptions.wait(args),
      dryRun: args.declares(OutputOptions.dryRun) && args.flag(OutputOptions.dryRun))
  }
}
