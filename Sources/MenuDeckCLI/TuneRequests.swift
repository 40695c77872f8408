import DeckBase
import DeckCommandLine
import DeckCore
import DeckEvaluation
import DeckIO
import DeckJobs
import DeckReports
import DeckStrategies

/// The options of a tuning, `tune`'s and `compare --tune`'s.
enum TuneOptions {
  static let grid = Repeatable(
    "grid", valueName: "key=values",
    help:
      "An option and the values to try: key=v1,v2,v3 (a grid tries every combination), or"
      + " key=low..high (key=low..high:log for a log scale) to draw from with --random;"
      + " repeated for more options (default: the strategy's own grid, see 'menudeck"
      + " strategies').")
  static let random = Option<Int>(
    "random", valueName: "n",
    help:
      "Seeded random search: draw n settings from the --grid values and ranges instead of"
      + " trying every combination.")
  static let metric = Option<String>(
    "metric", valueName: "name",
    help:
      "The ranking metric that chooses the winner on the validation, e.g. ndcg@10, recall@20,"
      + " mrr (default: ndcg at the largest cut-off).")
  static let validationDays = Option<Int>(
    "validation-days", valueName: "days",
    help:
      "With --split: the validation is the last this many days before the split (default"
      + " \(Tuning.defaultValidationDays)); the days before them train.")
  static let validationFraction = Option<Double>(
    "validation-fraction", valueName: "fraction",
    help:
      "With --holdout: the validation holds out this share of the training (diner, dish)"
      + " pairs (default: the --holdout fraction).")
}

/// What a tuning reads from the command line, `tune`'s and `compare --tune`'s; the tuning itself
/// is DeckJobs' (`Tuning`).
extension Tuning {
  /// `--validation-days` or `--validation-fraction`, the one that fits `split`.
  static func cut(_ args: ParsedArguments, split: LogSplit) throws -> ValidationCut {
    switch split {
    case .date:
      if args.isGiven(TuneOptions.validationFraction) {
        throw UsageError(
          "'--validation-fraction' is for --holdout; with --split the validation is the last days"
            + " before it: give --validation-days DAYS")
      }
      return .days(
        try Limits.value(args, TuneOptions.validationDays, in: Limits.days, "days")
          ?? defaultValidationDays)
    case .holdout(let fraction):
      if args.isGiven(TuneOptions.validationDays) {
        throw UsageError(
          "'--validation-days' is for --split; with --holdout the validation holds out a share of"
            + " the training pairs: give --validation-fraction FRACTION")
      }
      return .fraction(
        try Limits.value(
          args, TuneOptions.validationFraction, give: "a fraction above 0 and below 1 (e.g. 0.2)"
        ) { $0 > 0 && $0 < 1 } ?? fraction)
    }
  }

  /// The options `--option` fixes for every strategy of the run.
  static func pinned(_ args: ParsedArguments) throws -> Set<String> {
    Set(try args.keyValuePairs(InputOptions.option).map(\.key))
  }
}

extension TuneRequest {
  /// The request of `menudeck tune ARGS`: the config, logs, catalog and users it names, the
  /// split and the validation carved before it, the metric and cut-offs, the strategy and the
  /// settings to try, how the logs are read, and the outputs.
  init(_ args: ParsedArguments, _ context: CommandContext) throws {
    let io = context.io
    let config = try Inputs.loadConfig(args, io)
    let logs = InputOptions.logs(args)
    let outPath = args.value(TuneCommandOptions.out)
    if let out = outPath, out != "-", !out.lowercased().hasSuffix(".json") {
      throw UsageError(
        "'--out \(out)': the tuned configuration is JSON that a config includes; give a .json"
          + " name")
    }
    // --out may replace a file the config includes: that is how a tuning is renewed.
    var inputs =
      logs.map { RunOutputs.File("the swipe log", $0) }
      + Inputs.configFiles(config).filter { file in
        guard file.option == Inputs.includeOption, let out = outPath else { return true }
        return !TuneJob.sameFile(file.path, out, io.job)
      }
    if let catalog = args.value(InputOptions.catalog) { inputs.append(.init("--catalog", catalog)) }
    if let users = args.value(InputOptions.users) { inputs.append(.init("--users", users)) }
    let plan = try OutputPlan(args, inputs: inputs)
    guard let catalogPath = args.value(InputOptions.catalog) ?? config.catalog else {
      throw CommandFailure(
        .noInput, "no catalog: set \"catalog\" in the config or give --catalog FILE")
    }
    let split = try CompareLogs.split(args) { TimeZones.today(in: try Inputs.timeZone(config)) }
    let cut = try Tuning.cut(args, split: split)
    let (metric, rules, cutoffs) = try Self.metricAndCutoffs(args, config)
    let seed = try args.value(InputOptions.seed) ?? config.seed
    var settings = RunSettings.readingLogs(
      config, zone: try Inputs.timeZone(config), catalogPath: catalogPath, logs: logs, seed: seed,
      rules: rules, skipBadLines: args.flag(InputOptions.skipBadLines))
    try settings.readLogs(as: args, io)
    settings.hashesHistory = true
    let (named, candidates, duplicates) = try Self.settingsToTry(args, config, seed: seed)
    let name = args.value(TuneCommandOptions.name) ?? "\(Tuning.baseName(named))-tuned"
    if name.isEmpty || name.contains(":")
      || name.unicodeScalars.contains(where: { $0.properties.isWhitespace })
    {
      throw UsageError(
        "'--name \(name)': a named configuration's name is not empty and holds no ':' or white"
          + " space (it is given to -s)")
    }
    try HistoryFiles.checkPresent(logs, config, io.job, snapshots: false)
    try CompareLogs.refuseSnapshots(logs, split: split, io.job, command: "tune")
    try CompareLogs.checkDistinct(logs, io.job)
    self.init(
      settings: settings, split: split, cut: cut, metric: metric, cutoffs: cutoffs, named: named,
      candidates: candidates, name: name,
      results: RequestedOutput(.results, args.value(TuneCommandOptions.results)),
      out: RequestedOutput(.out, outPath), plan: plan)
    usersPath = args.value(InputOptions.users) ?? config.users
    self.duplicates = duplicates
    jobs = try InputOptions.jobs(args)
    format = TuningFormat(rawValue: args.value(TuneCommandOptions.format) ?? "table") ?? .table
  }

  /// The metric and the cut-offs: `--metric ndcg@5` without `--k` evaluates at 5.
  static func metricAndCutoffs(_ args: ParsedArguments, _ config: MenuDeckConfig) throws -> (
    String, DeckRules, [Int]
  ) {
    let given = try args.value(TuneOptions.metric).map(Tuning.metric)
    var implied: String?
    if let k = given?.k, !args.isGiven(CompareOptions.k) {
      if let size = try Limits.value(args, InputOptions.size, in: Limits.deckSize, "cards"),
        size < k
      {
        throw UsageError(
          "'--size' \(size) is smaller than the cut-off of '--metric \(args.value(TuneOptions.metric)!)':"
            + " the deck must hold the top \(k) cards; give --size \(k) or more, or leave it out")
      }
      implied = String(k)
    }
    let (rules, cutoffs) = try CompareLogs.rules(args, config, impliedK: implied)
    guard let given else { return ("ndcg_at_\(cutoffs[cutoffs.count - 1])", rules, cutoffs) }
    if let k = given.k, !cutoffs.contains(k) {
      throw UsageError(
        "'--metric \(args.value(TuneOptions.metric)!)' is at k = \(k), which '--k' does not"
          + " give; add \(k) to --k")
    }
    return (given.name, rules, cutoffs)
  }

  /// The strategy, its search space and the settings to try.
  static func settingsToTry(_ args: ParsedArguments, _ config: MenuDeckConfig, seed: UInt64) throws
    -> (NamedStrategy, [[OptionSetting]], Int)
  {
    let (_, named) = try Inputs.strategy(args, config: config, needsStrategy: true)
    let grids = try args.values(TuneOptions.grid).map {
      try Tuning.gridArgument($0, scoped: false)
    }
    let pinned = try Tuning.pinned(args)
    let space =
      grids.isEmpty
      ? Tuning.defaultSpace(for: named, pinned: pinned)
      : try Tuning.space(grids, for: named, pinned: pinned)
    if space.dimensions.isEmpty {
      throw UsageError(
        "nothing to tune: "
          + (named.plugin != nil
            ? "'\(named.name)' is a plugin, whose options menudeck does not know"
            : "'\(named.name)' has no option with tuning values left to tune")
          + "; give --grid KEY=V1,V2")
    }
    let random = try Limits.value(
      args, TuneOptions.random, in: 1...TuningGrid.maxCandidates, "settings")
    let (candidates, duplicates) = try Tuning.settings(
      space, random: random, seed: seed, what: "'\(named.name)'")
    return (named, candidates, duplicates)
  }
}
