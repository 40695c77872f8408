import DeckBase
import DeckCommandLine
import DeckCore
import DeckEvaluation
import DeckJobs
import DeckReports

/// The options only `tune` has; the others are `compare`'s and the shared inputs'.
enum TuneCommandOptions {
  static let strategy = InputOptions.strategy.with(
    help:
      "The strategy to tune: a built-in, a named configuration or a variant NAME:key=value"
      + " (its options stay fixed); default: the config's.")
  static let format = Option<String>(
    "format", short: "f", valueName: "format", default: "table",
    choices: TuningFormat.allCases.map(\.rawValue),
    help:
      "The grid's format: table (the chosen metric per setting), csv or jsonl (tidy: one row"
      + " per setting and metric, every ranking metric).")
  static let results = Option<String>(
    "results", valueName: "file",
    help: "Write the grid to this file atomically (default: standard output).")
  static let out = Option<String>(
    "out", valueName: "file.json",
    help:
      "Write the winner as a named configuration to this file, atomically; a config takes it"
      + " with \"include\". An existing file of named configurations keeps its others.")
  static let name = Option<String>(
    "name", valueName: "name",
    help: "The name of the tuned configuration in --out (default: the strategy's, with -tuned).")
}

let tuneCommand = CommandSpec(
  name: "tune",
  abstract: "Choose a strategy's options on a validation carved from the training swipes.",
  discussion: """
    Tries settings of one strategy's options (a grid of --grid values, or --random N seeded \
    draws from them) and chooses the best by a ranking metric (--metric, default ndcg at the \
    largest cut-off) on a validation carved from the training side of the split only: with \
    --split DATE, the last --validation-days days before DATE (the days before them train); with \
    --holdout FRACTION, a seeded --validation-fraction of the training (diner, dish) pairs. The \
    evaluation side of the split is never read, so a later 'menudeck compare' with the same \
    split judges the tuned strategy on swipes the tuning never saw.

    Without --grid, the strategy's own grid is tried ('menudeck strategies' lists it). The \
    grid goes to standard output (or --results) as a table or as tidy CSV or JSON Lines; the \
    winner goes to --out as a named configuration, which a config takes with "include".

    Examples:
      menudeck tune -s itemknn --split 2026-11-24 --validation-days 3 Data/swipes.jsonl
      menudeck tune -s itemknn --grid neighbours=10,20,50 --grid recent_days=7,30 \\
        --split 2026-11-24 --validation-days 3 --out tuned.json Data/swipes.jsonl
    """,
  options: [
    InputOptions.config.spec,
    InputOptions.catalog.spec,
    InputOptions.users.spec,
    TuneCommandOptions.strategy.spec,
    InputOptions.option.with(help: "Strategy option, over the strategy's own (not tuned).").spec,
    TuneOptions.grid.spec,
    TuneOptions.random.spec,
    TuneOptions.metric.spec,
    CompareOptions.split.with(
      help:
        "The split of the later comparison: the validation is the last days before this date,"
        + " and the events from it on are never read."
    ).spec,
    CompareOptions.holdout.with(
      help:
        "For logs without times, the hold-out of the later comparison: the validation is carved"
        + " from the other (diner, dish) pairs, and the held-out ones are never read."
    ).spec,
    TuneOptions.validationDays.spec,
    TuneOptions.validationFraction.spec,
    CompareOptions.k.with(
      help:
        "The cut-offs of the ranking metrics, ascending, e.g. 1,5,10 (default: the --metric's,"
        + " else the deck size); the deck holds the largest."
    ).spec,
    InputOptions.size.spec,
    InputOptions.seed.with(
      help: "Random seed of the decks, the hold-outs and --random (config: seed)."
    ).spec,
    InputOptions.jobs.with(
      help:
        "Threads that build each setting's decks (default: the cores available); the output is"
        + " the same for every number."
    ).spec,
    TuneCommandOptions.format.spec,
    TuneCommandOptions.results.spec,
    TuneCommandOptions.out.spec,
    TuneCommandOptions.name.spec,
    OutputOptions.wait.spec,
    InputOptions.skipBadLines.spec,
  ] + InputOptions.mapping + [InputOptions.delimiter.spec],
  arguments: [InputOptions.logs(help: "Swipe logs to tune on ('-' reads standard input).")],
  run: { args, context in
    let request = try TuneRequest(args, context)
    let outcome = try TuneJob.run(request, context.job, strategies: RunStrategies(context.job))
    Tune.summary(request, outcome, context)
    return .success
  })

enum Tune {
  /// What the run did, on stderr: draws repeated, the winner (and the setting as configured),
  /// where the tuned configuration went and how a config takes it.
  static func summary(_ request: TuneRequest, _ outcome: TuneJob.Outcome, _ context: CommandContext)
  {
    let (result, winner) = (outcome.result, outcome.winner)
    if request.duplicates > 0 {
      context.note(
        "--random \(request.duplicates + request.candidates.count) drew \(plural(request.duplicates, "setting")) again; \(plural(request.candidates.count, "distinct setting")) evaluated",
        code: "tune_duplicates")
    }
    let value = result.values[winner][result.metric].map { Text.fixed($0, decimals: 4) }
    var summary =
      "tuned \(request.named.name) on the \(TuneJob.what(request, result)): the best of \(plural(result.candidates.count, "setting")) by \(request.metric) is \(result.spellings[winner]) (\(value ?? "-")"
    if let configured = outcome.configured, configured != winner {
      let v = result.values[configured][result.metric].map { Text.fixed($0, decimals: 4) }
      summary += "; as configured, \(v ?? "undefined")"
    }
    context.note(summary + ")", code: "summary")
    guard let out = request.outputs.path(request.out), out != "-" else { return }
    let config = request.config
    let included = config.included.contains { TuneJob.sameFile($0.path, out, context.job) }
    context.note(
      "'\(request.name)' written to \(out)"
        + (included
          ? " (which \(config.path) includes): -s \(request.name) uses it"
          : "; a config takes it with \"include\": [\"PATH\"] (PATH relative to the config's"
            + " folder), then -s \(request.name)"),
      code: "written")
  }
}
