import DeckBase
import DeckCommandLine
import DeckCore
import DeckEvaluation
import DeckIO
import DeckJobs
import DeckReports
import DeckStrategies
import Foundation

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
  arguments: [
    CommandArgument(
      "log", help: "Swipe logs to tune on ('-' reads standard input).", isRepeating: true)
  ],
  run: { args, context in try Tune.run(args, context) })

enum Tune {
  static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let io = context.io
    let config = try Inputs.loadConfig(args, io)
    let logs = args.arguments("log")
    let format = TuningFormat(rawValue: args.value(TuneCommandOptions.format) ?? "table") ?? .table
    let outPath = args.value(TuneCommandOptions.out)
    if let out = outPath, out != "-", !out.lowercased().hasSuffix(".json") {
      throw UsageError(
        "'--out \(out)': the tuned configuration is JSON that a config includes; give a .json"
          + " name")
    }
    // The outputs, locked before anything is read. --out may replace a file the config
    // includes: that is how a tuning is renewed, and its other configurations are kept.
    var inputs =
      logs.map { RunOutputs.File("the swipe log", $0) }
      + Inputs.configFiles(config).filter { file in
        guard file.option == Inputs.includeOption, let out = outPath else { return true }
        return !sameFile(file.path, out, io)
      }
    if let catalog = args.value(InputOptions.catalog) { inputs.append(.init("--catalog", catalog)) }
    if let users = args.value(InputOptions.users) { inputs.append(.init("--users", users)) }
    let outputs = try RunOutputs(
      [(.results, args.value(TuneCommandOptions.results)), (.out, outPath)],
      inputs: inputs, wait: OutputOptions.wait(args), standardOutput: .results,
      io: context.job)
    defer { outputs.abort() }

    let setup = try Setup(args, config, logs, io)
    let existing = try outPath.flatMap { $0 == "-" ? nil : try ConfigFragment.existing($0, io.job) }

    guard
      var sink = ValidationSplitSink(
        catalog: setup.catalog, split: setup.split, cut: setup.cut, seed: setup.seed,
        keepsTest: false)
    else { throw Tuning.validationBeforeTime }
    let read = try CompareLogs.read(
      logs, split: setup.split, setup.logSettings, context, into: &sink, file: { _, _ in })
    RunInputs.tell(setup.inputs + RunInputs.history(read), context.job)
    let validation = try self.validation(sink.validation, setup, context)
    context.info(
      "set aside \(plural(sink.setAside, "event")) of the evaluation side (\(setup.split.describe(sink.validation.deckDate))) unread",
      code: "tune_unread")

    var clock = PhaseClock()
    let result = try Tuning.run(
      setup.named, settings: setup.candidates, validation: validation, metric: setup.metric,
      name: setup.name, context: context)
    context.info(
      "evaluated \(plural(result.candidates.count, "setting")) on \(plural(validation.diners.count, "diner")) in \(clock.lap()) on \(plural(validation.jobs, "thread"))",
      code: "timing")
    guard let winner = result.selected else {
      throw CommandFailure(
        .dataError,
        "no setting has a defined \(setup.metric) on the validation (\(setup.validationText));"
          + " choose another --metric or a longer validation")
    }
    let what = "validation: \(setup.validationText), \(plural(result.diners, "diner"))"
    try outputs.write(
      Array(
        TuningWriter.render(
          result, format: format,
          title: "tune \(setup.named.name) on the \(what); chosen by \(setup.metric)"
        ).utf8), to: .results)
    let tuned = Tuning.candidate(setup.named, result.candidates[winner]).named
    if outPath != nil {
      let entry = ConfigFragment.entry(tuned, io.job)
      try outputs.write(
        Array(ConfigFragment.render(name: setup.name, entry: entry, existing: existing).utf8),
        to: .out)
    }
    try outputs.commit()
    if setup.duplicates > 0 {
      context.note(
        "--random \(setup.duplicates + setup.candidates.count) drew \(plural(setup.duplicates, "setting")) again; \(plural(setup.candidates.count, "distinct setting")) evaluated",
        code: "tune_duplicates")
    }
    let value = result.values[winner][result.metric].map { Text.fixed($0, decimals: 4) }
    var summary =
      "tuned \(setup.named.name) on the \(what): the best of \(plural(result.candidates.count, "setting")) by \(setup.metric) is \(result.spellings[winner]) (\(value ?? "-")"
    if let configured = configuredIndex(setup.named, result), configured != winner {
      let v = result.values[configured][result.metric].map { Text.fixed($0, decimals: 4) }
      summary += "; as configured, \(v ?? "undefined")"
    }
    context.note(summary + ")", code: "summary")
    if let out = outPath, out != "-" {
      let included = config.included.contains { sameFile($0.path, out, io) }
      context.note(
        "'\(setup.name)' written to \(out)"
          + (included
            ? " (which \(config.path) includes): -s \(setup.name) uses it"
            : "; a config takes it with \"include\": [\"PATH\"] (PATH relative to the config's"
              + " folder), then -s \(setup.name)"),
        code: "written")
    }
    return .success
  }

  /// Whether two paths as written name one file (the same inode, or the same path when either
  /// is missing).
  static func sameFile(_ a: String, _ b: String, _ io: CLIStreams) -> Bool {
    let (pa, pb) = (Paths.open(a, io.job), Paths.open(b, io.job))
    if let ia = FileIdentity(path: pa), let ib = FileIdentity(path: pb) { return ia == ib }
    return URL(fileURLWithPath: pa).standardizedFileURL.path
      == URL(fileURLWithPath: pb).standardizedFileURL.path
  }

  /// The candidate whose options are the strategy's as configured, if the grid holds it: the
  /// same value for every option, whether given or the default (`prior=fitted` is the default).
  static func configuredIndex(_ named: NamedStrategy, _ result: TuningResult) -> Int? {
    func typed(_ options: [String: String]) -> [String]? {
      guard named.plugin == nil, let d = StrategyRegistry.description(of: named.use),
        let typed = try? StrategyOptions(raw: options, for: d)
      else { return nil }
      return typed.all.map { "\($0.0)=\($0.1)" }
    }
    let configured = typed(named.options)
    return result.candidates.firstIndex { setting in
      let options = Tuning.candidate(named, setting).named.options
      if let configured { return typed(options) == configured }
      return options == named.options
    }
  }

  /// The validation's history and judged diners, or a data error saying how to get some.
  static func validation(_ sink: LogSplitSink, _ setup: Setup, _ context: CommandContext) throws
    -> TuningValidation
  {
    let history = try sink.training.build()
    let judged = sink.heldOut.judged
    guard !judged.isEmpty else {
      let advice: String
      switch setup.cut {
      case .days: advice = "give more --validation-days, or a later --split"
      case .fraction: advice = "give a larger --validation-fraction"
      }
      throw CommandFailure(
        .dataError,
        "no diner swiped right in the validation (\(setup.validationText)): nothing to tune on;"
          + " \(advice)")
    }
    if sink.trainingEvents == 0 {
      context.warn(
        "no training event before the validation (\(setup.validationText)): every setting"
          + " learned nothing; give fewer --validation-days",
        code: "no_training_events")
    }
    return TuningValidation(
      catalog: setup.catalog,
      diners: judged.map { setup.profiles[IDKey($0.user)] ?? UserProfile(id: $0.user) },
      relevant: judged.map(\.relevant), history: history, builder: setup.builder,
      cutoffs: setup.cutoffs, seed: LogEvaluation.targetSeed(runSeed: setup.seed),
      date: sink.deckDate, jobs: setup.jobs)
  }

  /// Everything `tune` reads from its options and the config before the logs.
  struct Setup {
    var catalog: Catalog
    var profiles: [IDKey: UserProfile] = [:]
    var split: LogSplit
    var cut: ValidationCut
    var validationText: String
    var metric: String
    var cutoffs: [Int]
    var builder: DeckBuilder
    var named: NamedStrategy
    var name: String
    /// The settings to evaluate.
    var candidates: [[OptionSetting]]
    var duplicates: Int
    var seed: UInt64
    var jobs: Int
    /// How the logs are read.
    var logSettings: RunSettings
    var inputs: [RunInput]

    init(
      _ args: ParsedArguments, _ config: MenuDeckConfig, _ logs: [String], _ io: CLIStreams
    ) throws {
      guard let catalogPath = args.value(InputOptions.catalog) ?? config.catalog else {
        throw CommandFailure(
          .noInput, "no catalog: set \"catalog\" in the config or give --catalog FILE")
      }
      split = try CompareLogs.split(args) { TimeZones.today(in: try Inputs.timeZone(config)) }
      cut = try Tuning.cut(args, split: split)
      validationText = Tuning.describe(cut, split: split)
      let delimiters = try InputOptions.delimiters(args, config)
      let (catalog, catalogHash) = try Inputs.loadCatalog(
        catalogPath, io.job, delimiter: delimiters.catalog)
      self.catalog = catalog
      inputs = RunInputs.config(config)
      inputs.append(RunInput(role: "catalog", path: catalogPath, sha256: catalogHash))
      if let path = args.value(InputOptions.users) ?? config.users {
        let (users, usersHash) = try Inputs.loadUsers(path, io.job, delimiter: delimiters.users)
        inputs.append(RunInput(role: "users", path: path, sha256: usersHash))
        for u in users { profiles[IDKey(u.id)] = u }
      }
      // The metric and the cut-offs: --metric ndcg@5 without --k evaluates at 5.
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
      self.cutoffs = cutoffs
      if let given {
        if let k = given.k, !cutoffs.contains(k) {
          throw UsageError(
            "'--metric \(args.value(TuneOptions.metric)!)' is at k = \(k), which '--k' does not"
              + " give; add \(k) to --k")
        }
        metric = given.name
      } else {
        metric = "ndcg_at_\(cutoffs[cutoffs.count - 1])"
      }
      builder = try Inputs.deckBuilder(catalog, rules, config)
      let zone = try Inputs.timeZone(config)
      seed = try args.value(InputOptions.seed) ?? config.seed
      jobs = try InputOptions.jobs(args)
      logSettings = RunSettings.readingLogs(
        config, zone: zone, catalogPath: catalogPath, logs: logs, seed: seed, rules: rules,
        skipBadLines: args.flag(InputOptions.skipBadLines))
      try logSettings.readLogs(as: args, io)
      logSettings.hashesHistory = true

      // The strategy, its search space and the settings to try.
      let (_, named) = try Inputs.strategy(args, config: config, needsStrategy: true)
      self.named = named
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
      (candidates, duplicates) = try Tuning.settings(
        space, random: random, seed: seed, what: "'\(named.name)'")
      name = args.value(TuneCommandOptions.name) ?? "\(Tuning.baseName(named))-tuned"
      if name.isEmpty || name.contains(":")
        || name.unicodeScalars.contains(where: { $0.properties.isWhitespace })
      {
        throw UsageError(
          "'--name \(name)': a named configuration's name is not empty and holds no ':' or white"
            + " space (it is given to -s)")
      }
      try HistoryFiles.checkPresent(logs, config, io.job, snapshots: false)
      try CompareLogs.refuseSnapshots(logs, split: split, io, command: "tune")
      try CompareLogs.checkDistinct(logs, io)
    }
  }
}
