import DeckBase
import DeckCommandLine
import DeckCore
import DeckEvaluation
import DeckIO
import DeckJobs
import DeckStrategies
import Foundation

/// `compare` on real logs: a temporal split (or a seeded hold-out for logs without times),
/// offline ranking metrics and, with `--ope`, off-policy estimates. The evaluation itself is
/// DeckEvaluation's `LogEvaluation`; this reads the options and the inputs and assembles the
/// report.
enum CompareLogs {
  /// The inputs of a comparison on logs, before the logs are read.
  struct Setup {
    var catalog: Catalog
    /// The users file's diners by the bytes of their ids (`IDKey`).
    var profiles: [IDKey: UserProfile]
    var split: LogSplit
    /// The deck rules; `rules.size` is the deck each strategy ranks (at least the largest cutoff).
    var rules: DeckRules
    /// The cutoffs of the ranking metrics (`--k`), ascending.
    var cutoffs: [Int]
    var builder: DeckBuilder
    var arms: [LogEvaluation.Arm]
    /// `--run [NAME=]FILE`: TREC runs evaluated by the ranking metrics after the strategies.
    var runs: [(name: String, run: TrecRun)]
    /// The baseline's index among the strategies, then the runs.
    var baseline: Int?
    var seed: UInt64
    var settings: RunSettings
    var ope: Bool
    /// `--policy NAME=FILE`: policies given by their action probabilities, evaluated off-policy
    /// after the strategies.
    var policies: [(name: String, path: String)]
    /// `--clip` and `--cross-fit`: the estimators beyond replay, IPS, SNIPS, DM and DR.
    var estimators: OffPolicyOptions
    /// `--ope-samples N`: the strategies as stochastic policies from N decks per session.
    var samples: Int?
    /// The files read so far, with their hashes, for the run header (`RunRecord`).
    var inputs: [RunInput] = []
    /// Threads that build the strategies' decks (`--jobs`).
    var jobs: Int
    /// `--tune`: the search of every strategy, made on a validation before the comparison.
    var tuning: CompareTuning?
  }

  static func run(
    _ args: ParsedArguments, _ config: MenuDeckConfig, _ logs: [String],
    _ resampling: ResamplingOptions, _ context: CommandContext, outputs: RunOutputs
  ) throws -> ComparisonReport {
    var setup = try self.setup(args, config, logs, context.io)
    let exportTraining = args.value(CompareOptions.trec) != nil
    let (sink, read, tuned) = try readAndTune(
      args, config, logs, &setup, context, exportTraining: exportTraining)
    setup.inputs += RunInputs.history(read)
    // Under --verbose the inputs come before the timings of what is done with them.
    if tuned == nil { RunInputs.tell(setup.inputs, context.job) }
    let history = try sink.training.build()
    let deckDate = sink.deckDate
    let judged = try judgedDiners(sink, deckDate: deckDate)
    var notes = [Compare.coverageNote] + untrained(sink, context)

    // Each strategy ranks a deck (of at least the largest k cards) for every judged diner on the
    // deck date; each run's rankings of those diners follow the strategies.
    let targetSeed = LogEvaluation.targetSeed(runSeed: setup.seed)
    let strategyNames = setup.arms.map(\.name)
    let names = strategyNames + setup.runs.map(\.name)
    let (rankings, shown) = try rank(
      setup, judged.map(\.user), history: history, seed: targetSeed, deckDate: deckDate, context)
    if let dir = args.value(CompareOptions.trec) {
      try writeTrec(
        dir: dir, users: judged.map(\.user), relevant: judged.map(\.relevant),
        nonRelevant: judged.map { sink.heldOut.nonRelevant(for: $0.user) }, names: strategyNames,
        rankings: rankings, catalog: setup.catalog, training: sink.trainingLog, outputs: outputs)
    }
    let runArms = setup.runs.map { name, run in
      RunArm(
        run, name: name, users: judged.map(\.user), catalog: setup.catalog,
        depth: setup.rules.size)
    }
    for arm in runArms { notes += arm.notes(evaluatedDiners: judged.count) }
    let ranking = OfflineEvaluation(
      cutoffs: setup.cutoffs, depth: setup.rules.size, itemCategory: setup.catalog.itemCategory,
      trainingPopularity: history.itemRight
    ).evaluate(
      users: judged.map(\.user), relevant: judged.map(\.relevant),
      arms: zip(strategyNames, rankings).map { OfflineArm(name: $0, rankings: $1) }
        + runArms.map(\.offlineArm)
    ).table
    var part: LogEvaluation.OffPolicyPart?
    if let sessions = sink.sessions {
      part = try tellingOffPolicy(sessions, &setup, config, history, targetSeed, deckDate, context)
    }
    let offPolicyTable = part?.table
    let unitTables = [ranking] + (part.map { [$0.table] } ?? [])
    notes += part?.notes ?? []
    let opeParameters = part?.parameters ?? []
    // The off-policy table holds the strategies and the policies: a run has no estimates
    // there, and a run as the baseline leaves the off-policy differences undefined.
    let baselineName = setup.baseline.map { names[$0] }
    let offPolicyBaseline = offPolicyTable.flatMap { table in
      baselineName.flatMap { name in table.arms.firstIndex { $0.arm == name } }
    }
    // The permutations are chosen for the family of both tables' tests, before either is
    // resampled.
    var resampling = resampling
    let significance = Compare.permutations(
      [(ranking, setup.baseline)] + (offPolicyTable.map { [($0, offPolicyBaseline)] } ?? []),
      given: args.isGiven(CompareOptions.permutations), &resampling)
    var analysis = try Analysis(ranking, baseline: setup.baseline, resampling, context)
    if let offPolicyTable {
      try analysis.add(offPolicyTable, baseline: baselineName, resampling, context)
    }
    for (_, strategy) in setup.arms { try strategy.finish() }
    let skipped = sink.heldOut.dinerCount - judged.count
    if skipped > 0 {
      notes.append(
        "\(plural(skipped, "diner")) with evaluation swipes but no right swipe cannot be scored"
          + " by ranking metrics and \(skipped == 1 ? "is" : "are") left out")
    }
    let parameters =
      self.parameters(setup, sink, logs, deckDate: deckDate, judged: judged.count)
      + (tuned?.parameters ?? []) + opeParameters
    var report = ComparisonReport(
      title: "logs: \(logs.joined(separator: ", ")), \(setup.split.describe(deckDate)), "
        + "k = \(setup.cutoffs.map(String.init).joined(separator: ", "))",
      parameters: parameters, metrics: analysis.metrics, arms: analysis.arms,
      baseline: setup.baseline.map { names[$0] }, differences: analysis.differences, daily: [],
      level: resampling.level, resamples: resampling.resamples, units: judged.count,
      notes: notes)
    report.topDishes = LogEvaluation.topDishes(
      names: names, counts: shown + runArms.map(\.shown), catalog: setup.catalog)
    report.unitTables = unitTables
    report.significance = significance
    // Without --ope the ranking metrics are all the report has, and they favour the logging
    // strategy: say so, and what would correct it.
    if !setup.ope { report.loggingBias = sink.loggingBias }
    try finish(
      &report, args, config, setup, named: tuned?.named, deckDate: deckDate,
      judged: judged.count, logs: logs, context)
    return report
  }

  /// Reads the logs into the comparison's split; with `--tune`, in one pass with the
  /// validation of the training side, on which every strategy is tuned before the comparison.
  static func readAndTune(
    _ args: ParsedArguments, _ config: MenuDeckConfig, _ logs: [String], _ setup: inout Setup,
    _ context: CommandContext, exportTraining: Bool
  ) throws -> (
    LogSplitSink, EventReadStats,
    (arms: [LogEvaluation.Arm], named: [NamedStrategy], parameters: [ReportParameter])?
  ) {
    guard let tuning = setup.tuning else {
      let (sink, read) = try self.read(logs, setup, context, exportTraining: exportTraining)
      return (sink, read, nil)
    }
    // One pass: the validation (of the training side only) and the comparison's own split.
    guard
      var both = ValidationSplitSink(
        catalog: setup.catalog, split: setup.split, cut: tuning.cut, seed: setup.seed,
        keepsTest: true)
    else { throw Tuning.validationBeforeTime }
    if setup.ope, case .date(let date) = setup.split {
      both.test!.sessions = LoggedSessions(catalog: setup.catalog, start: date)
    }
    if exportTraining {
      both.test!.trainingLog = TrainingLog(zone: TimeZoneOffsets(setup.settings.zone))
    }
    let read = try self.read(
      logs, split: setup.split, setup.settings, context, into: &both,
      file: { sink, path in sink.test!.sessions?.file = path })
    let sink = both.test!
    RunInputs.tell(setup.inputs + RunInputs.history(read), context.job)
    let tuned = try tuning.tune(
      both.validation, setup, config, fallback: try Strategies.fallback(args, config),
      context: context)
    setup.arms = tuned.arms
    return (sink, read, tuned)
  }

  /// The run header of a comparison on logs, and its summary notes.
  static func finish(
    _ report: inout ComparisonReport, _ args: ParsedArguments, _ config: MenuDeckConfig,
    _ setup: Setup, named: [NamedStrategy]?, deckDate: DeckDate, judged: Int, logs: [String],
    _ context: CommandContext
  ) throws {
    let record = try Simulate.strategyRecord(
      args, config, setup.arms.map { ($0.name, $0.strategy) }, context.io, named: named)
    RunInputs.tell(record.inputs, context.job)
    report.run = RunRecord(context, inputs: setup.inputs + record.inputs)
    report.run?.settings =
      [.init("seed") { $0.int(setup.seed) }, .init("deck_date") { $0.string("\(deckDate)") }]
      + record.settings
    var arms = [plural(setup.arms.count, "strategy", "strategies")]
    if !setup.runs.isEmpty { arms.append(plural(setup.runs.count, "run")) }
    if !setup.policies.isEmpty { arms.append(plural(setup.policies.count, "policy", "policies")) }
    let compared =
      arms.count == 1 ? arms[0] : arms.dropLast().joined(separator: ", ") + " and " + arms.last!
    context.note(
      "compared \(compared) on \(plural(judged, "diner")) of "
        + logs.map { $0 == "-" ? "standard input" : $0 }.joined(separator: ", ") + ", "
        + setup.split.describe(deckDate), code: "summary")
    if let bias = report.loggingBias { context.note(bias.note, code: "logging_bias") }
  }

  /// The warning (and note) of a comparison whose strategies learned nothing.
  static func untrained(_ sink: LogSplitSink, _ context: CommandContext) -> [String] {
    guard sink.trainingEvents == 0 else { return [] }
    let warning =
      "no event before the split: the strategies learned nothing and rank as for first visits"
    context.warn(warning, code: "no_training_events")
    return [warning]
  }

  /// Each strategy ranks a deck (of at least the largest k cards) for each of `users` on the
  /// deck date, on the progress line, timed under --verbose.
  static func rank(
    _ setup: Setup, _ users: [String], history: History, seed: UInt64, deckDate: DeckDate,
    _ context: CommandContext
  ) throws -> (rankings: [[[Int32]]], shown: [[Int]]) {
    var clock = PhaseClock()
    let ranked = try context.withProgress(
      "rank", unit: .items("decks"), total: setup.arms.count * users.count
    ) { counter in
      try LogEvaluation.rankDecks(
        setup.arms, diners: users.map { setup.profiles[IDKey($0)] ?? UserProfile(id: $0) },
        catalog: setup.catalog, history: history, builder: setup.builder, seed: seed,
        date: deckDate, jobs: setup.jobs, progress: counter)
    }
    context.info(
      "ranked the decks of \(plural(users.count, "diner")) for "
        + "\(plural(setup.arms.count, "strategy", "strategies"))"
        + " in \(clock.lap()) on \(plural(setup.jobs, "thread"))", code: "timing")
    return ranked
  }

  /// `offPolicy`, with the inputs it read told under --verbose and its warnings said.
  static func tellingOffPolicy(
    _ sessions: LoggedSessions, _ setup: inout Setup, _ config: MenuDeckConfig, _ history: History,
    _ seed: UInt64, _ deckDate: DeckDate, _ context: CommandContext
  ) throws -> LogEvaluation.OffPolicyPart {
    let told = setup.inputs.count
    let part = try offPolicy(sessions, &setup, config, history, seed, deckDate, context.io)
    RunInputs.tell(Array(setup.inputs[told...]), context.job)
    for warning in part.warnings { context.warn(warning, code: "off_policy") }
    return part
  }

  /// The report's parameters of a comparison on logs (the off-policy ones follow them).
  static func parameters(
    _ setup: Setup, _ sink: LogSplitSink, _ logs: [String], deckDate: DeckDate, judged: Int
  ) -> [ReportParameter] {
    [
      ReportParameter(name: "mode", value: "logs"),
      .list("logs", logs),
      ReportParameter(name: "split", value: setup.split.describe(deckDate)),
      ReportParameter(name: "deck_date", value: "\(deckDate)"),
      .integers("k", setup.cutoffs),
      .integer("deck_size", setup.rules.size),
      .integer("training_events", sink.trainingEvents),
      .integer("evaluation_events", sink.heldOut.events),
      .integer("evaluated_diners", judged),
      .integer("seed", setup.seed),
    ]
      + (setup.runs.isEmpty
        ? []
        : [
          ReportParameter.perArm("runs", texts: setup.runs.map { ($0.name, $0.run.file) })
        ])
  }

  /// The options, the catalog, the diners' profiles, the deck rules and the strategies, checked
  /// in the order the command has always reported their mistakes.
  static func setup(
    _ args: ParsedArguments, _ config: MenuDeckConfig, _ logs: [String], _ io: CLIStreams
  ) throws -> Setup {
    guard let catalogPath = args.value(InputOptions.catalog) ?? config.catalog else {
      throw CommandFailure(
        .noInput, "no catalog: set \"catalog\" in the config or give --catalog FILE")
    }
    let split = try self.split(args) { TimeZones.today(in: try Inputs.timeZone(config)) }
    let delimiters = try InputOptions.delimiters(args, config)
    let (catalog, catalogHash) = try Inputs.loadCatalog(
      catalogPath, io.job, delimiter: delimiters.catalog)
    var inputs = RunInputs.config(config)
    inputs.append(RunInput(role: "catalog", path: catalogPath, sha256: catalogHash))
    var profiles: [IDKey: UserProfile] = [:]
    if let path = args.value(CompareOptions.users) ?? config.users {
      guard Int(path) == nil else {
        throw UsageError("'--users' takes a users file when comparing on logs, got '\(path)'")
      }
      let (users, usersHash) = try Inputs.loadUsers(path, io.job, delimiter: delimiters.users)
      inputs.append(RunInput(role: "users", path: path, sha256: usersHash))
      for u in users { profiles[IDKey(u.id)] = u }
    }
    let (rules, cutoffs) = try self.rules(args, config)
    let builder = try Inputs.deckBuilder(catalog, rules, config)
    let zone = try Inputs.timeZone(config)
    let seed = try args.value(InputOptions.seed) ?? config.seed
    // The tuning's mistakes before any plugin starts.
    let tuning = try CompareTuning.setup(
      args, config, split: split, rules: rules, cutoffs: cutoffs, seed: seed)
    let hashedRuns = try self.runs(args, io)
    inputs += hashedRuns.map { RunInput(role: "run", path: $0.run.file, sha256: $0.hash) }
    let runs = hashedRuns.map { (name: $0.name, run: $0.run) }
    let (strategies, baseline) = try Compare.strategies(
      args, config, io, policies: args.values(CompareOptions.policy).count,
      runs: runs.map(\.name))
    try checkRunNames(runs, strategies: strategies.map(\.0))
    var settings = RunSettings.readingLogs(
      config, zone: zone, catalogPath: catalogPath, logs: logs, seed: seed, rules: rules,
      skipBadLines: args.flag(InputOptions.skipBadLines))
    try settings.readLogs(as: args, io)
    settings.hashesHistory = true
    try HistoryFiles.checkPresent(logs, config, io.job, snapshots: false)
    try refuseSnapshots(logs, split: split, io)
    try checkDistinct(logs, io)
    let ope = args.flag(CompareOptions.ope)
    if ope, case .holdout = split {
      throw UsageError(
        "'--ope' needs --split DATE: off-policy estimates replay whole logged sessions")
    }
    let policies = try self.policies(
      args, strategies: strategies.map(\.0) + runs.map(\.name))
    for option in [
      CompareOptions.policy.spec, CompareOptions.clip.spec, CompareOptions.crossFit.spec,
      CompareOptions.opeSamples.spec,
    ]
    where args.isGiven(option.name) && !ope {
      throw UsageError(
        "'--\(option.name)' is for off-policy estimates: add --ope (and the logged propensities"
          + " it needs)")
    }
    let estimators = try self.estimators(args)
    let samples = try Limits.value(
      args, CompareOptions.opeSamples, in: 1...LogEvaluation.maxSamples, "decks per session")
    return Setup(
      catalog: catalog, profiles: profiles, split: split, rules: rules, cutoffs: cutoffs,
      builder: builder, arms: strategies.map { (name: $0.0, strategy: $0.1) }, runs: runs,
      baseline: baseline, seed: seed, settings: settings, ope: ope, policies: policies,
      estimators: estimators, samples: samples, inputs: inputs, jobs: try InputOptions.jobs(args),
      tuning: tuning)
  }

  /// Refuses a history snapshot given as a log (exit 65): a snapshot keeps counts per diner and
  /// dish, not the swipes with their times that the split needs.
  static func refuseSnapshots(
    _ logs: [String], split: LogSplit, _ io: CLIStreams, command: String = "compare"
  ) throws {
    for log in logs where log != "-" && SnapshotFile.isSnapshot(path: Paths.open(log, io.job)) {
      let how: String
      switch split {
      case .date: how = "by date"
      case .holdout: how = "into learnt and held-out (diner, dish) pairs"
      }
      throw DeckIOError.invalid(
        path: log,
        message: "is a history snapshot: \(command) needs the swipe logs, whose swipes it splits "
          + "\(how); give the logs")
    }
  }

  /// `--clip WEIGHT` and `--cross-fit FOLDS`, range-checked.
  static func estimators(_ args: ParsedArguments) throws -> OffPolicyOptions {
    let clip = try Limits.value(
      args, CompareOptions.clip,
      give: "a weight above 0 (e.g. 100: no card counts for more than 100)"
    ) { $0 > 0 }
    let folds = try Limits.value(
      args, CompareOptions.crossFit, in: OffPolicyOptions.folds, "folds")
    return OffPolicyOptions(clip: clip, crossFitFolds: folds)
  }

  /// `--policy NAME=FILE` values: distinct names that are not strategies' names, and files.
  static func policies(_ args: ParsedArguments, strategies: [String]) throws -> [(
    name: String, path: String
  )] {
    var policies: [(name: String, path: String)] = []
    for value in args.values(CompareOptions.policy) {
      guard let eq = value.firstIndex(of: "="), eq != value.startIndex,
        value.index(after: eq) != value.endIndex
      else {
        throw UsageError(
          "'--policy' takes NAME=FILE (a name for the report and a CSV of probabilities),"
            + " got '\(value)'")
      }
      let name = String(value[..<eq])
      let path = String(value[value.index(after: eq)...])
      if strategies.contains(name) || policies.contains(where: { $0.name == name }) {
        throw UsageError(
          "the name '\(name)' of '--policy \(value)' is taken; give each strategy and policy"
            + " its own name")
      }
      policies.append((name, path))
    }
    return policies
  }

  /// `--split DATE` or `--holdout FRACTION`, exactly one of them.
  static func split(_ args: ParsedArguments, today: () throws -> DeckDate) throws -> LogSplit {
    let holdout = try Limits.value(
      args, CompareOptions.holdout, give: "a fraction above 0 and below 1 (e.g. 0.2)"
    ) { $0 > 0 && $0 < 1 }
    switch (args.value(CompareOptions.split), holdout) {
    case (let text?, nil):
      return .date(try DateArgument.parse(text, option: "--split", today: today()))
    case (nil, let fraction?):
      return .holdout(fraction)
    case (nil, nil):
      throw UsageError(
        "give --split DATE (learn before it, evaluate from it on) or, for logs without times,"
          + " --holdout FRACTION")
    case (_?, _?):
      throw UsageError("give either --split or --holdout, not both")
    }
  }

  /// The config's deck rules with the deck size, and the cutoffs of the ranking metrics. The
  /// deck is `--size` when given (it must hold the largest `--k`), else the largest `--k`, else
  /// the config's deck size; without `--k` the one cutoff is the deck size.
  /// `impliedK`: the cut-offs when `--k` is not given (`tune --metric ndcg@5` implies 5).
  static func rules(_ args: ParsedArguments, _ config: MenuDeckConfig, impliedK: String? = nil)
    throws -> (DeckRules, [Int])
  {
    var rules = config.rules
    if let n = try Limits.value(args, InputOptions.size, in: Limits.deckSize, "cards") {
      rules.size = n
    }
    guard let text = args.value(CompareOptions.k) ?? impliedK else {
      return (rules, [rules.size])
    }
    let cutoffs = try self.cutoffs(text)
    let largest = cutoffs[cutoffs.count - 1]
    if args.isGiven(InputOptions.size) {
      guard rules.size >= largest else {
        throw UsageError(
          "'--size' \(rules.size) is smaller than the largest '--k' \(largest): the deck must hold"
            + " the top \(largest) cards; give --size \(largest) or more, or leave it out")
      }
    } else {
      rules.size = largest
    }
    return (rules, cutoffs)
  }

  /// `--k 1,5,10`: whole numbers from 1 to the largest deck, ascending, at most
  /// `OfflineEvaluation.maxCutoffs` of them.
  static func cutoffs(_ text: String) throws -> [Int] {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    var cutoffs: [Int] = []
    for part in parts {
      guard !part.isEmpty, part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
        throw UsageError(
          "'--k' takes cut-offs as whole numbers separated by commas, e.g. 1,5,10; got '\(text)'")
      }
      guard let k = Int(part), Limits.deckSize.contains(k) else {
        throw Limits.outOfRange("k", String(part), give: Limits.span(Limits.deckSize))
      }
      cutoffs.append(k)
    }
    guard cutoffs.count <= OfflineEvaluation.maxCutoffs else {
      throw UsageError(
        "'--k' takes at most \(OfflineEvaluation.maxCutoffs) cut-offs (each adds five metrics per"
          + " strategy), got \(cutoffs.count)")
    }
    for (a, b) in zip(cutoffs, cutoffs.dropFirst()) where a >= b {
      if a == b { throw UsageError("'--k' gives the cut-off \(a) twice; give each once") }
      let sorted = Array(Set(cutoffs)).sorted().map(String.init).joined(separator: ",")
      throw UsageError("'--k' takes its cut-offs in ascending order: give \(sorted)")
    }
    return cutoffs
  }

  /// `--run VALUE`: `NAME=FILE`, or a file alone (then named by its tag). A value whose part
  /// before the first `=` is empty or holds a `/` is a file alone.
  static func runArgument(_ value: String) -> (name: String?, path: String) {
    guard let eq = value.firstIndex(of: "="), eq != value.startIndex,
      !value[..<eq].contains("/")
    else { return (nil, value) }
    return (String(value[..<eq]), String(value[value.index(after: eq)...]))
  }

  /// The `--run` files, read and named: `NAME=`, else the tag of the file's first line (the
  /// name trec_eval gives a run), else the file's name without its extension.
  static func runs(_ args: ParsedArguments, _ io: CLIStreams) throws -> [(
    name: String, run: TrecRun, hash: String
  )] {
    var runs: [(name: String, run: TrecRun, hash: String)] = []
    for value in args.values(CompareOptions.run) {
      let (given, path) = runArgument(value)
      guard !path.isEmpty, !value.hasPrefix("=") else {
        throw UsageError(
          "'--run' takes [NAME=]FILE (a TREC run: diner Q0 dish rank score tag), got '\(value)'")
      }
      let (run, hash) = try Paths.using(path, io.job) { opened throws(DeckIOError) in
        let bytes = try TextInput.readBytes(
          path: opened, what: "run file", maxBytes: TrecRun.maxBytes)
        return (try TrecRun.parse(bytes, file: path), ContentHash.sha256(bytes))
      }
      let base = String(path.split(separator: "/").last ?? Substring(path))
      let stem = base.lastIndex(of: ".").map { $0 == base.startIndex ? base : String(base[..<$0]) }
      runs.append((given ?? run.tag ?? stem ?? base, run, hash))
    }
    return runs
  }

  /// Each run's name is its own: not a strategy's, not another run's.
  static func checkRunNames(_ runs: [(name: String, run: TrecRun)], strategies: [String]) throws {
    var taken = strategies
    for (name, run) in runs {
      if taken.contains(name) {
        throw UsageError(
          "the name '\(name)' of the run \(run.file) (\(name == run.tag ? "its tag" : "given"))"
            + " is taken; name it with --run NAME=\(run.file)")
      }
      taken.append(name)
    }
  }

  /// A log given twice (under any spelling of its path) would count its events twice.
  static func checkDistinct(_ logs: [String], _ io: CLIStreams) throws {
    var seenLogs: [String: String] = [:]
    for path in logs where path != "-" {
      let resolved = URL(fileURLWithPath: Paths.open(path, io.job)).standardizedFileURL.path
      if let first = seenLogs[resolved] {
        throw UsageError(
          "the log '\(path)' is given twice (also as '\(first)'); its events would count twice")
      }
      seenLogs[resolved] = path
    }
  }

  /// One pass over the logs: training events into the history, evaluation events aside (and,
  /// with `--ope`, the logged sessions of the evaluation period).
  static func read(
    _ logs: [String], _ setup: Setup, _ context: CommandContext, exportTraining: Bool = false
  ) throws -> (LogSplitSink, EventReadStats) {
    var sink = LogSplitSink(catalog: setup.catalog, split: setup.split, seed: setup.seed)
    if exportTraining {
      // The times get the offset the config's zone has at each one, as every log carries.
      sink.trainingLog = TrainingLog(zone: TimeZoneOffsets(setup.settings.zone))
    }
    if setup.ope, case .date(let date) = setup.split {
      sink.sessions = LoggedSessions(catalog: setup.catalog, start: date)
    }
    let read = try self.read(
      logs, split: setup.split, setup.settings, context, into: &sink,
      // The session sink names the file of an event without a propensity.
      file: { sink, path in sink.sessions?.file = path })
    return (sink, read)
  }

  /// One pass over the logs into `sink` (`file` is told each log's path before its events);
  /// the summary of what was read, and the refusal of a date split of logs without times.
  static func read<S: EventSink>(
    _ logs: [String], split: LogSplit, _ settings: RunSettings, _ context: CommandContext,
    into sink: inout S, file: (inout S, String) -> Void
  ) throws -> EventReadStats {
    var read = EventReadStats()
    try Inputs.counting("read", logs, settings, context.job) { settings in
      for path in logs {
        file(&sink, path)
        let one = try Inputs.readLogs([path], settings, context.job, into: &sink, onReject: nil)
        read.files += one.files
        for id in one.unknownItemIDs
        where read.unknownItemIDs.count < 5 && !read.unknownItemIDs.contains(id) {
          read.unknownItemIDs.append(id)
        }
      }
    }
    Summary.history(read, future: 0, date: DeckDate(daysSinceEpoch: 0), context: context)
    if read.untimed, case .date = split {
      let files = read.files.filter(\.untimed).map(\.file)
      throw UsageError(
        "\(files.joined(separator: ", ")): the events carry no time (no 'at' column mapped), so"
          + " they cannot be split by date; use --holdout FRACTION")
    }
    return read
  }

  /// The diners with a right swipe in the evaluation period, or a data error saying how to get
  /// some.
  static func judgedDiners(_ sink: LogSplitSink, deckDate: DeckDate) throws -> [(
    user: String, relevant: [Int32]
  )] {
    let judged = sink.heldOut.judged
    guard judged.isEmpty else { return judged }
    let last =
      sink.lastDay.map { " (the last event is dated \(DeckDate(daysSinceEpoch: $0)))" } ?? ""
    let advice: String
    switch sink.split {
    case .date: advice = "choose an earlier --split\(last)"
    case .holdout: advice = "choose a larger --holdout"
    }
    throw CommandFailure(
      .dataError,
      "no diner swiped right in the evaluation period (\(sink.split.describe(deckDate))):"
        + " nothing to evaluate; \(advice)")
  }

  /// `--ope`: each strategy's decks for the logged sessions and the off-policy estimates.
  static func offPolicy(
    _ sessions: LoggedSessions, _ setup: inout Setup, _ config: MenuDeckConfig, _ history: History,
    _ seed: UInt64, _ deckDate: DeckDate, _ io: CLIStreams
  ) throws -> LogEvaluation.OffPolicyPart {
    try sessions.check()
    let log = sessions.log()
    guard log.cardCount > 0 else {
      throw CommandFailure(
        .dataError,
        "no logged cards on or after \(deckDate): nothing for the off-policy estimates")
    }
    var rules = setup.rules
    rules.size = LogEvaluation.positions(of: log).positions
    let builder = try Inputs.deckBuilder(setup.catalog, rules, config)
    // The strategies that know the distribution they draw from are that distribution; with
    // --ope-samples, the others are sampled.
    let draws = setup.samples ?? LogEvaluation.defaultMarginalDraws
    let exact = try LogEvaluation.exactTargets(
      setup.arms, log: log, profiles: setup.profiles, history: history, builder: builder,
      seed: seed, positions: rules.size, draws: draws, jobs: setup.jobs)
    var targets = exact.targets
    let known = targets.map { !$0.isDeterministic }
    if let samples = setup.samples {
      let others = setup.arms.indices.filter { !known[$0] }
      let sampled = try LogEvaluation.sampledTargets(
        others.map { setup.arms[$0] }, log: log, profiles: setup.profiles, history: history,
        builder: builder, seed: seed, samples: samples, jobs: setup.jobs)
      for (a, target) in zip(others, sampled) { targets[a] = target }
    }
    for (name, path) in setup.policies {
      let (file, hash) = try Paths.using(path, io.job) { opened throws(DeckIOError) in
        let bytes = try TextInput.readBytes(
          path: opened, what: "policy file", maxBytes: PolicyFile.maxBytes)
        return (
          try PolicyFile.parse(
            bytes, file: path, catalog: setup.catalog,
            delimiter: setup.settings.delimiters.policy),
          ContentHash.sha256(bytes)
        )
      }
      setup.inputs.append(RunInput(role: "policy", path: path, sha256: hash))
      targets.append(
        try LogEvaluation.policyTarget(
          name: name, file: file, log: log, positions: rules.size))
    }
    var part = LogEvaluation.offPolicy(
      targets, log: log, from: deckDate, options: setup.estimators)
    let exactNames = setup.arms.indices.filter { known[$0] }.map { setup.arms[$0].name }
    if !exactNames.isEmpty {
      part.notes.append(
        "\(exactNames.joined(separator: ", ")) evaluated as the distributions \(exactNames.count == 1 ? "it draws its decks" : "they draw their decks") from,"
          + " exactly (a Plackett-Luce distribution's probabilities after position 1 estimated"
          + " from \(draws) rankings per distinct distribution); replay is undefined for them")
      for (a, count) in exact.oneDeck.enumerated() where count > 0 {
        part.notes.append(
          "\(setup.arms[a].name): \(count) of \(log.sessions.count) logged sessions evaluated as"
            + " the one deck drawn for them: the deck rules move its cards for those diners, so"
            + " the distribution of the ranking is not the deck's")
      }
    }
    part.parameters.append(
      ReportParameter.perArm(
        "ope_targets",
        texts: setup.arms.indices.map { a in
          (
            setup.arms[a].name,
            known[a] ? "exact distribution" : targets[a].isDeterministic ? "one deck" : "sampled"
          )
        }))
    if let samples = setup.samples {
      let stochastic = setup.arms.indices.filter { !known[$0] && !targets[$0].isDeterministic }
        .map { setup.arms[$0].name }
      part.parameters.append(.integer("ope_samples", samples))
      part.notes.append(
        "--ope-samples \(samples): "
          + (stochastic.isEmpty
            ? "no other strategy varied across its \(samples) seeded decks; they are evaluated as"
              + " one deck"
            : "\(stochastic.joined(separator: ", ")) evaluated as stochastic policies, each"
              + " probability the share of \(samples) seeded decks (Monte Carlo error up to"
              + " \(Text.fixed(0.5 / Double(samples).squareRoot(), decimals: 4)) per"
              + " probability); replay is undefined for them"))
    }
    return part
  }

  /// The resampled estimates of the report: the ranking metrics, then the off-policy ones.
  struct Analysis {
    var metrics: [MetricSpec]
    var arms: [ArmSummary]
    var differences: [ArmDifference]

    /// The estimates of `table`, the resamples counted on the progress line.
    init(
      _ table: UnitTable, baseline: Int?, _ resampling: ResamplingOptions,
      _ context: CommandContext
    ) throws {
      try Limits.checkResampling(table, resamples: resampling.resamples)
      (arms, differences) = Compare.resample(table, baseline: baseline, resampling, context)
      metrics = table.metrics
    }

    /// Adds the metrics of `table`, whose arms are matched to this analysis's by name. An arm
    /// only this analysis has (a `--run`: ranking metrics only) gets undefined estimates for
    /// the new metrics; an arm only `table` has (a `--policy`: off-policy estimates only) is
    /// appended with undefined estimates for the earlier ones. `baseline` is the baseline's
    /// name; when `table` does not hold it, its metrics have no differences.
    mutating func add(
      _ table: UnitTable, baseline: String?, _ resampling: ResamplingOptions,
      _ context: CommandContext
    ) throws {
      let index = baseline.flatMap { name in table.arms.firstIndex { $0.arm == name } }
      let more = try Analysis(table, baseline: index, resampling, context)
      let none = Estimate(value: nil, lower: nil, upper: nil)
      let earlier = metrics.count
      let added = more.metrics.count
      metrics += more.metrics
      for a in arms.indices {
        let estimates = more.arms.first { $0.arm == arms[a].arm }?.estimates
        arms[a].estimates += estimates ?? [Estimate](repeating: none, count: added)
      }
      for arm in more.arms where !arms.contains(where: { $0.arm == arm.arm }) {
        arms.append(
          ArmSummary(
            arm: arm.arm,
            estimates: [Estimate](repeating: none, count: earlier) + arm.estimates))
      }
      for d in differences.indices {
        if let match = more.differences.first(where: { $0.arm == differences[d].arm }) {
          differences[d].estimates += match.estimates
          differences[d].pValues += match.pValues
          differences[d].pT += match.pT
          differences[d].pWilcoxon += match.pWilcoxon
        } else {
          let nothing = [Double?](repeating: nil, count: added)
          differences[d].estimates += [Estimate](repeating: none, count: added)
          differences[d].pValues += nothing
          differences[d].pT += nothing
          differences[d].pWilcoxon += nothing
        }
      }
      for more in more.differences
      where !differences.contains(where: { $0.arm == more.arm }) {
        let nothing = [Double?](repeating: nil, count: earlier)
        differences.append(
          ArmDifference(
            arm: more.arm, baseline: more.baseline,
            estimates: [Estimate](repeating: none, count: earlier) + more.estimates,
            pValues: nothing + more.pValues, pT: nothing + more.pT,
            pWilcoxon: nothing + more.pWilcoxon))
      }
    }
  }

  /// `DIR/qrels.txt` (the right swipes of the evaluation period) and `DIR/NAME.run` per strategy,
  /// so that `trec_eval -c -m P.10 ... DIR/qrels.txt DIR/NAME.run` recomputes the ranking
  /// metrics, and `DIR/train.csv`, the training events as a swipe log (`TrainingLog`), so that
  /// reference implementations learn from the same swipes. The files are outputs of the run
  /// (see `trecFiles`), replaced with its others.
  static func writeTrec(
    dir: String, users: [String], relevant: [[Int32]], nonRelevant: [[Int32]], names: [String],
    rankings: [[[Int32]]], catalog: Catalog, training: TrainingLog?, outputs: RunOutputs
  ) throws {
    let ids = catalog.items.map(\.id)
    let files = trecFiles(dir: dir, names: names)
    do {
      let qrels = try TrecFiles.qrels(
        users: users, relevant: relevant, nonRelevant: nonRelevant, itemIDs: ids)
      try outputs.write(Array(qrels.utf8), to: .trec, path: files[0])
      try outputs.write(
        training?.bytes() ?? Array(EventWriter.csvHeader(drags: false).utf8 + [0x0A]),
        to: .trec, path: files[1])
      for (index, (name, lists)) in zip(names, rankings).enumerated() {
        let run = try TrecFiles.run(users: users, rankings: lists, itemIDs: ids, tag: name)
        try outputs.write(Array(run.utf8), to: .trec, path: files[index + 2])
      }
    } catch let error as TrecIDError {
      throw CommandFailure(.dataError, "--trec: \(error)")
    }
  }

  /// The files `--trec DIR` writes: `DIR/qrels.txt`, `DIR/train.csv`, then `DIR/NAME.run` for
  /// each strategy (a named configuration may hold characters a file name should not: they
  /// become `_`; no name ends in `.csv`, so none is the training log).
  static func trecFiles(dir: String, names: [String]) -> [String] {
    let base = dir.hasSuffix("/") ? dir : dir + "/"
    return [base + "qrels.txt", base + "train.csv"]
      + names.map { name in
        base
          + String(
            name.unicodeScalars.map { c in
              c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "-" || c == "."
                ? Character(c) : "_"
            }) + ".run"
      }
  }
}
