import DeckBase
import DeckCommandLine
import DeckJobs
import DeckSimulation

enum SampleOptions {
  static let out = Option<String>(
    "out", valueName: "dir", help: "Directory to write into (created if missing).")
  static let seed = InputOptions.seed.with(
    help: "Seed of the swipe log (default: the bundled one).")
}

let sampleCommand = CommandSpec(
  name: "sample",
  abstract: "Write the bundled sample data set (catalog, users, swipe logs).",
  discussion: """
    Writes the sample data that Data/ holds: a dinner-menu catalog (JSON and CSV), diners \
    (JSON and CSV), a 14-day swipe log (JSON Lines and CSV) and a README, generated \
    deterministically from the seed. 'menudeck sample --out Data' regenerates Data/ exactly.
    """,
  options: [SampleOptions.out.spec, SampleOptions.seed.spec, OutputOptions.wait.spec],
  run: { args, context in
    guard let out = args.value(SampleOptions.out) else {
      throw UsageError("missing '--out <dir>': the directory to write the sample data into")
    }
    let seed = try args.value(SampleOptions.seed) ?? SampleData.defaultSeed
    let files = SampleData.files(seed: seed)
    try RunOutputs.writeFolder(
      files.map { (FileSystem.join(out, $0.name), $0.contents) },
      key: .out, plan: OutputPlan(args), io: context.job)
    context.note("wrote \(files.count) files to \(out)", code: "summary")
    return .success
  })
