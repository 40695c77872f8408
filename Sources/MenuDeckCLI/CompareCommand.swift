import DeckBase
import DeckCommandLine
import DeckCore
import DeckEvaluation
import DeckIO
import DeckJobs
import DeckReports
import DeckStrategies
import Foundation

/// The options of `compare`; those it shares with `simulate` and `deck` are read through the
/// shared keys (`SimulationOptions`, `InputOptions`).
enum CompareOptions {
  static let strategies = SimulationOptions.strategies.with(
    help: "A strategy or named configuration to compare (two or more).")
  static let baseline = Option<String>(
    "baseline", short: "b", valueName: "name",
    help: "Report every other strategy's difference from this one."
  ).with { $0.completions = InputOptions.strategyCompletions }
  static let resamples = Option<Int>(
    "resamples", valueName: "n", help: "Bootstrap resamples of the intervals (default 1000).")
  static let permutations = Option<Int>(
    "permutations", valueName: "n",
    help:
      "Randomization-test permutations per difference (default: enough for the report's"
      + " family of tests to reach significance, \(PermutationCount.minimum) to"
      + " \(PermutationCount.cap)).")
  static let level = Option<Double>(
    "level", valueName: "p", help: "Confidence level of the intervals (default 0.95).")
  static let format = Option<String>(
    "format", short: "f", valueName: "format", default: "table",
    choices: ["table", "markdown", "json", "jsonl", "csv"],
    help: "Output format: json has the run header, jsonl and csv are tidy rows.")
  static let out = Option<String>(
    "out", valueName: "file", help: "Write the comparison to this file atomically.")
  static let report = Option<String>(
    "report", valueName: "file.html",
    help: "Also write a self-contained HTML report with charts, atomically.")
  static let users = SimulationOptions.users.with(
    help: "Simulation: how many synthetic diners, or a users file (default 1000). Logs: a users"
      + " file with diets and allergens.")
  static let split = Option<String>(
    "split", valueName: "date",
    help:
      "Logs: learn from events before this date, evaluate on events from it on: "
      + "\(DateArgument.forms).")
  static let holdout = Option<Double>(
    "holdout", valueName: "fraction",
    help:
      "Logs without times: evaluate on this share of the (diner, dish) pairs instead of --split.")
  static let k = Option<String>(
    "k", valueName: "k[,k...]",
    help:
      "Logs: the cut-offs of the ranking metrics, ascending, e.g. 1,5,10 (default: the deck"
      + " size); each metric at k is reported at every one, and the deck holds the largest.")
  static let ope = Flag("ope", help: "Logs: off-policy estimates from the logged propensities.")
  static let clip = Option<Double>(
    "clip", valueName: "weight",
    help:
      "Logs, with --ope: also IPS and DR with importance weights clipped at this value, and"
      + " switch-DR (DR up to it, the direct method above).")
  static let crossFit = Option<Int>(
    "cross-fit", valueName: "folds",
    help:
      "Logs, with --ope: also DM and DR with a reward model cross-fitted over this many folds"
      + " of diners (2 to 20).")
  static let opeSamples = Option<Int>(
    "ope-samples", valueName: "n",
    help:
      "Logs, with --ope: estimate each strategy that does not know its distribution (thompson,"
      + " or any under rules that move cards) from n seeded decks per logged session (the share"
      + " of decks with a dish at a position is its probability); plackett-luce's marginals"
      + " then use n draws (default 500). random, epsilon-greedy and plackett-luce are exact.")
  static let policy = Repeatable(
    "policy", valueName: "name=file",
    help:
      "Logs, with --ope: also estimate a policy given by its action probabilities, a CSV of"
      + " diner,day,item,position,probability (empty diner or day: every one), or JSON Lines of"
      + " whole decks {\"diner\",\"day\",\"deck\":[ids],\"probability\"} (every slate"
      + " estimator then applies).")
  static let run = Repeatable(
    "run", valueName: "[name=]file",
    help:
      "Logs: also evaluate a TREC run file (diner Q0 dish rank score tag, ordered as trec_eval"
      + " orders it) by the ranking metrics, beside the strategies; named by NAME= or by its"
      + " first line's tag.")
  static let trec = Option<String>(
    "trec", valueName: "dir",
    help:
      "Logs: also write the judgements and each strategy's decks as TREC qrels and runs, and the"
      + " training swipes the strategies learned from as train.csv.")
  static let perDiner = Option<String>(
    "per-diner", valueName: "file.csv",
    help:
      "Also write every metric of every strategy for every diner (as trec_eval -q), as CSV "
      + "rows strategy,diner,metric,value,numerator,denominator, atomically.")

  /// Options that only a comparison on logs reads.
  static let logsOnly: [any OptionKey] =
    [
      split, holdout, k, ope, clip, crossFit, opeSamples, policy, run, trec,
      InputOptions.skipBadLines, InputOptions.columns,
      InputOptions.right, InputOptions.left, CompareTuning.flag,
    ] + CompareTuning.options
  /// Options that only a simulated comparison reads.
  static let simulationOnly: [any OptionKey] = [
    SimulationOptions.days, SimulationOptions.start, SimulationOptions.mode,
  ]
}

let compareCommand = CommandSpec(
  name: "compare",
  abstract: "Compare strategies with confidence intervals, on simulated diners or on real logs.",
  discussion: """
    Runs two or more strategies (built-ins, named configurations or variants \
    NAME:key=value,...) on the same work and prints \
    every metric per strategy with a bootstrap confidence interval (95% unless --level says \
    otherwise). With --baseline, every other strategy's paired difference from the baseline, \
    with its interval and a paired randomization-test p-value, that p-value adjusted for the \
    many tests of the report (Holm; Benjamini-Hochberg), and a paired t-test and a Wilcoxon \
    signed-rank test. The randomization test draws enough permutations for the smallest \
    Holm-adjusted p-value to reach a tenth of 1 - level (--permutations sets them), and every \
    output says when no difference can be significant. The unit of resampling is the diner: a \
    diner's sessions share tastes and history, so they are resampled together.

    Without logs it simulates: every strategy serves the same seeded population on the same \
    days with the same random numbers, so differences are paired diner by diner. The metrics \
    are those of 'menudeck stats' plus the simulation's ground truth, and the report carries \
    per-day curves.

    With logs and --split DATE, strategies learn from the events before the date and rank a deck \
    (of the largest k cards, or --size) for each diner who swiped right on or after it; the \
    ranking metrics (precision, recall, NDCG, MAP, hit rate at each k of --k 1,5,10; MRR; \
    coverage, novelty, diversity, popularity bias at the largest k) judge those decks against \
    the right swipes of the evaluation period. --run FILE evaluates a TREC run made elsewhere on \
    the same diners. The ranking metrics favour the strategy that wrote the log (it decided what \
    each diner could swipe), and a note says so. With --ope, off-policy estimates (replay, IPS, \
    SNIPS, doubly robust) of each strategy's like rate in the slots the logged diners reached, \
    from the propensities the logging strategy wrote, correct for that. With --tune, every \
    strategy is first tuned (as 'menudeck tune' does) on a validation carved from the training \
    side, and compared with its winning options.

    Examples:
      menudeck compare -s random -s popularity -s affinity --baseline random --users 1000 --days 14
      menudeck compare -s popularity -s affinity --baseline popularity --split 2026-11-24 \\
        Data/swipes.jsonl --report compare.html
    """,
  options: [
    InputOptions.config.spec,
    InputOptions.catalog.spec,
    CompareOptions.strategies.spec,
    InputOptions.option.with(help: "Strategy option, for all.").spec,
    CompareOptions.baseline.spec,
    CompareOptions.resamples.spec,
    CompareOptions.permutations.spec,
    CompareOptions.level.spec,
    InputOptions.seed.with(help: "Random seed of the simulation and the bootstrap.").spec,
    InputOptions.jobs.with(
      help:
        "Threads that build the strategies' decks (each simulated day's, or the logs' "
        + "diners'; default: the cores available); the output is the same for every number."
    ).spec,
    InputOptions.size.spec,
    CompareOptions.format.spec,
    CompareOptions.out.spec,
    CompareOptions.report.spec,
    CompareOptions.perDiner.spec,
    OutputOptions.wait.spec,
    CompareOptions.users.spec,
    SimulationOptions.days.with(help: "Simulation: days to simulate (default 30).").spec,
    SimulationOptions.start.with(
      help: "Simulation: first day, \(DateArgument.forms) (default: today)."
    ).spec,
    SimulationOptions.mode.with(
      help: "Simulation: pick ends a session at the first right swipe, all swipes the whole deck."
    ).spec,
    CompareOptions.split.spec,
    CompareOptions.holdout.spec,
    CompareOptions.k.spec,
    CompareOptions.ope.spec,
    CompareOptions.clip.spec,
    CompareOptions.crossFit.spec,
    CompareOptions.opeSamples.spec,
    CompareOptions.policy.spec,
    CompareOptions.run.spec,
    CompareOptions.trec.spec,
    CompareTuning.flag.spec,
    CompareTuning.grid.spec,
    TuneOptions.random.spec,
    TuneOptions.metric.spec,
    TuneOptions.validationDays.spec,
    TuneOptions.validationFraction.spec,
    InputOptions.skipBadLines.spec,
  ] + InputOptions.mapping + [
    InputOptions.delimiter.spec,
    InputOptions.fallback.with(
      help: "If a strategy (a plugin) fails, give the affected diners this strategy's decks."
    ).spec,
  ],
  arguments: [
    CommandArgument(
      "log", help: "Swipe logs to evaluate on ('-' reads standard input); none: simulate.",
      isOptional: true, isRepeating: true)
  ],
  run: { args, context in try Compare.run(args, context) })

enum Compare {
  static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let io = context.io
    let config = try Inputs.loadConfig(args, io)
    let format = ComparisonFormat(rawValue: args.value(CompareOptions.format) ?? "table") ?? .table
    let resampling = try self.resampling(args, config)
    let logs = args.arguments("log")
    if let path = args.value(CompareOptions.perDiner), path != "-",
      !path.lowercased().hasSuffix(".csv")
    {
      throw UsageError("'--per-diner \(path)': the per-diner values are CSV; give a .csv name")
    }
    // Every file of the run, declared and locked before anything is read: --out, --report and
    // the TREC files, replaced together at the end.
    var declared: [(key: OutputKey, path: String?)] = [
      (.out, args.value(CompareOptions.out)), (.report, args.value(CompareOptions.report)),
      (.perDiner, args.value(CompareOptions.perDiner)),
    ]
    if let dir = args.value(CompareOptions.trec), !logs.isEmpty {
      for file in CompareLogs.trecFiles(dir: dir, names: Simulate.strategyNames(args, config)) {
        declared.append((.trec, file))
      }
    }
    var inputs = logs.map { RunOutputs.File("the swipe log", $0) } + Inputs.configFiles(config)
    if let catalog = args.value(InputOptions.catalog) { inputs.append(.init("--catalog", catalog)) }
    if let users = args.value(CompareOptions.users), !Simulate.isCount(users) {
      inputs.append(.init("--users", users))
    }
    if !logs.isEmpty {
      for value in args.values(CompareOptions.run) {
        inputs.append(.init("--run", CompareLogs.runArgument(value).path))
      }
    }
    let outputs = try RunOutputs(
      declared, inputs: inputs, wait: OutputOptions.wait(args), standardOutput: .out,
      createDirectories: [.trec],
      io: context.job)
    defer { outputs.abort() }

    var report: ComparisonReport
    if logs.isEmpty {
      for option in CompareOptions.logsOnly where args.isGiven(option) {
        throw UsageError(
          "'--\(option.spec.name)' applies to logs; give the swipe logs to evaluate on")
      }
      report = try simulation(args, config, resampling, context)
    } else {
      for option in CompareOptions.simulationOnly where args.isGiven(option) {
        throw UsageError(
          "'--\(option.spec.name)' applies to simulations; logs are evaluated with --split")
      }
      report = try CompareLogs.run(args, config, logs, resampling, context, outputs: outputs)
    }
    if let note = intervalNote(report) { report.notes.append(note) }
    // Holm and Benjamini-Hochberg over every defined p-value of the report (the ranking and the
    // off-policy metrics of a comparison on logs together).
    MultipleComparisons.adjust(&report)
    if let significance = report.significance {
      if let warning = significance.unattainable {
        context.warn(warning, code: "significance_unattainable")
      } else if let note = significance.capped {
        context.note(note, code: "permutations_capped")
      }
    }
    try outputs.write(ComparisonWriter.render(report, format: format), to: .out)
    if outputs.isGiven(.report) {
      try outputs.write(HTMLReport.render(report), to: .report)
    }
    if outputs.isGiven(.perDiner) {
      try outputs.write(PerDinerWriter.csv(report.unitTables), to: .perDiner)
    }
    try outputs.commit()
    if let dir = args.value(CompareOptions.trec), !logs.isEmpty {
      context.note("TREC qrels and runs written to \(dir)", code: "written")
    }
    if let path = args.value(CompareOptions.report), path != "-" {
      context.note("report written to \(path)", code: "written")
    }
    return .success
  }

  /// `--resamples`, `--permutations`, `--level` and the seed of the bootstrap. The
  /// permutations are `--permutations` when given; else `permutations(...)` chooses them from the
  /// report's family once the per-diner tables are known.
  static func resampling(_ args: ParsedArguments, _ config: MenuDeckConfig) throws
    -> ResamplingOptions
  {
    var resampling = ResamplingOptions()
    if let n = try Limits.value(args, CompareOptions.resamples, in: Limits.resamples) {
      resampling.resamples = n
    }
    if let n = try Limits.value(args, CompareOptions.permutations, in: Limits.permutations) {
      resampling.permutations = n
    }
    if let level = try Limits.value(
      args, CompareOptions.level, give: "a level above 0 and below 1 (e.g. 0.95)",
      accepts: { $0 > 0 && $0 < 1 })
    {
      resampling.level = level
    }
    resampling.seed = try args.value(InputOptions.seed) ?? config.seed
    return resampling
  }

  /// The randomization test's permutations for the differences of `tables` from the baseline
  /// (each table with the baseline's index in it, nil when it has none): `--permutations` when
  /// given, else `PermutationCount`'s count for the family the tables' tests make. Sets
  /// `resampling.permutations`; nil (and nothing set) without a baseline.
  static func permutations(
    _ tables: [(table: UnitTable, baseline: Int?)], given: Bool,
    _ resampling: inout ResamplingOptions
  ) -> Significance? {
    guard tables.contains(where: { $0.baseline != nil }) else { return nil }
    let tests = tables.reduce(0) { $0 + Resampling.familyTests($1.table, baseline: $1.baseline) }
    // A table of at most `Resampling.exactUnits` diners enumerates its swaps; the others draw,
    // and say what the drawn permutations allow.
    let units = tables.filter { $0.baseline != nil }.map(\.table.units.count).max() ?? 0
    let significance = PermutationCount.choose(
      tests: tests, alpha: MultipleComparisons.alpha(level: resampling.level), units: units,
      given: given ? resampling.permutations : nil)
    if significance.source != .exact { resampling.permutations = significance.permutations }
    return significance
  }

  /// The bootstrap and the randomization tests of `table` (`Resampling.analyze`), counted on
  /// the progress line, and their time under --verbose.
  static func resample(
    _ table: UnitTable, baseline: Int?, _ resampling: ResamplingOptions, _ context: CommandContext
  ) -> (arms: [ArmSummary], differences: [ArmDifference]) {
    var clock = PhaseClock()
    let result = context.withProgress(
      "resample", unit: .items("resamples"),
      total: Resampling.replicates(table, baseline: baseline, options: resampling)
    ) { counter in
      Resampling.analyze(table, baseline: baseline, options: resampling, progress: counter)
    }
    let tests =
      baseline == nil
      ? ""
      : " and \(table.arms.count - 1) x \(Resampling.permutationCount(table, options: resampling))"
        + " permutations"
    context.info(
      "resampled \(plural(table.units.count, "diner")) x \(plural(table.metrics.count, "metric")):"
        + " \(resampling.resamples) bootstrap resamples\(tests) in \(clock.lap())",
      code: "timing")
    return result
  }

  static let coverageNote =
    "catalog_coverage has no interval: it counts distinct dishes over all diners, and a"
    + " bootstrap resample (about 63% distinct diners) always loses some, so its percentile"
    + " interval would sit below the value; its randomization p-value is valid"

  /// A note naming the estimates whose value has no interval because too few resamples defined
  /// the metric (coverage, which never has one, is explained by its own note).
  static func intervalNote(_ report: ComparisonReport) -> String? {
    var missing: [String] = []
    for (m, metric) in report.metrics.enumerated() where Resampling.hasInterval(metric) {
      for arm in report.arms where m < arm.estimates.count {
        let e = arm.estimates[m]
        if e.value != nil && e.lower == nil { missing.append("\(arm.arm) \(metric.name)") }
      }
      for d in report.differences where m < d.estimates.count {
        let e = d.estimates[m]
        if e.value != nil && e.lower == nil {
          missing.append("\(d.arm) - \(d.baseline) \(metric.name)")
        }
      }
    }
    guard !missing.isEmpty else { return nil }
    let shown = missing.prefix(6).joined(separator: ", ")
    let more = missing.count > 6 ? " and \(missing.count - 6) more" : ""
    return "no interval for \(shown)\(more): the metric is undefined (no denominator) in more than"
      + " 5% of the resamples, so too few diners carry it to say how uncertain it is"
  }

  /// The strategies of the comparison, and the index of the baseline among them.
  /// `policies`: how many `--policy` arms join them (logs only): one strategy is then enough.
  /// `runs`: the names of the `--run` arms (logs only), which follow the strategies: the
  /// baseline may be one of them (index strategies + its place).
  static func strategies(
    _ args: ParsedArguments, _ config: MenuDeckConfig, _ io: CLIStreams, policies: Int = 0,
    runs: [String] = []
  ) throws -> ([(String, any RankingStrategy)], Int?) {
    var given = Set<String>()
    for name in args.values(CompareOptions.strategies) where !given.insert(name).inserted {
      throw UsageError("the strategy '\(name)' is given twice; give each strategy once")
    }
    let strategies = try Simulate.strategies(args, config, io)
    guard strategies.count + policies + runs.count >= 2, !strategies.isEmpty else {
      let others = [policies > 0 ? "a --policy" : nil, runs.isEmpty ? nil : "a --run"]
        .compactMap { $0 }
      throw UsageError(
        "give two or more different strategies to compare (--strategy NAME, repeated)"
          + (others.isEmpty ? "" : ", or one strategy and \(others.joined(separator: " or "))"))
    }
    guard let name = args.value(CompareOptions.baseline) else { return (strategies, nil) }
    let names = strategies.map(\.0)
    if let index = names.firstIndex(of: name) { return (strategies, index) }
    if let index = runs.firstIndex(of: name) { return (strategies, names.count + index) }
    throw UsageError(
      "the baseline '\(name)' is not among the compared strategies"
        + "\(didYouMean(name, names + runs)); compared: " + (names + runs).joined(separator: ", ")
        + (policies > 0
          ? " (a --policy cannot be the baseline: the ranking metrics need the baseline's decks)"
          : ""))
  }

  // MARK: - Simulation

  static func simulation(
    _ args: ParsedArguments, _ config: MenuDeckConfig, _ resampling: ResamplingOptions,
    _ context: CommandContext
  ) throws -> ComparisonReport {
    let setup = try Simulate.setup(args, config, context.io)
    RunInputs.tell(setup.inputs, context.job)
    let (strategies, baseline) = try strategies(args, config, context.io)
    let names = strategies.map(\.0)
    var stats = StatsAccumulator(
      catalog: setup.catalog,
      options: StatsOptions(
        deckSize: setup.rules.size, days: setup.start...setup.last, strategies: names))
    var shown = [[Int]](
      repeating: [Int](repeating: 0, count: setup.catalog.count), count: strategies.count)
    let catalog = setup.catalog
    let totals = try Simulate.simulate(
      setup, strategies, into: &stats, eventWriter: nil, context: context,
      onSwipe: { s, item in
        if let i = catalog.index(of: item) { shown[s][Int(i)] += 1 }
      })
    let units = setup.population.diners.map(\.id).sorted {
      $0.utf8.lexicographicallyPrecedes($1.utf8)
    }
    let table = stats.unitTable(strategies: names, units: units)
    try Limits.checkResampling(table, resamples: resampling.resamples)
    var resampling = resampling
    let significance = permutations(
      [(table, baseline)], given: args.isGiven(CompareOptions.permutations), &resampling)
    let (arms, differences) = resample(table, baseline: baseline, resampling, context)
    let mode = setup.simulation.mode == .all ? "all" : "pick"
    context.note(
      "simulated \(plural(setup.population.count, "diner")) x \(plural(setup.days, "day"))"
        + " from \(setup.start) with seed \(setup.seed): \(plural(totals.sessions, "session")),"
        + " \(plural(totals.swipes, "swipe")) over \(plural(names.count, "strategy", "strategies"))",
      code: "summary")
    var report = ComparisonReport(
      title: "simulation: \(plural(setup.population.count, "diner")) x"
        + " \(plural(setup.days, "day")) from \(setup.start), \(mode) mode",
      parameters: [
        ReportParameter(name: "mode", value: "simulation"),
        .integer("diners", setup.population.count),
        .integer("days", setup.days),
        ReportParameter(name: "start", value: "\(setup.start)"),
        ReportParameter(name: "session_mode", value: mode),
        .integer("deck_size", setup.rules.size),
        .integer("ndcg_k", stats.options.ndcgK),
        .integer("seed", setup.seed),
      ],
      metrics: table.metrics, arms: arms, baseline: baseline.map { names[$0] },
      differences: differences, daily: stats.dailySeries(strategies: names, resampling: resampling),
      level: resampling.level, resamples: resampling.resamples, units: units.count,
      notes: [
        "every strategy served the same \(plural(units.count, "simulated diner")) with the same random"
          + " numbers; intervals resample diners (diners who never opened the app count with"
          + " no sessions)",
        Compare.coverageNote,
      ])
    report.topDishes = LogEvaluation.topDishes(names: names, counts: shown, catalog: catalog)
    report.unitTables = [table]
    report.significance = significance
    let record = try Simulate.strategyRecord(args, config, strategies, context.io)
    RunInputs.tell(record.inputs, context.job)
    report.run = RunRecord(context, inputs: setup.inputs + record.inputs)
    report.run?.settings = setup.settings + record.settings
    return report
  }
}
