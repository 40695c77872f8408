import DeckBase
import DeckCore
import DeckEvaluation
import DeckIO
import DeckReports
import DeckStrategies

/// `compare` on real logs: a temporal split (or a seeded hold-out for logs without times),
/// offline ranking metrics and, with `--ope`, off-policy estimates. The evaluation itself is
/// DeckEvaluation's `LogEvaluation`; this loads the inputs, runs the arms and assembles the
/// report.
package struct CompareLogsRequest: Sendable {
  /// How the logs are read (columns, delimiters, bad lines, hashing for the run header), with
  /// the swipe logs ("-" is standard input), the catalog's path, the seed and the deck rules.
  package var settings: RunSettings
  /// A users file with the diners' diets and allergens.
  package var usersPath: String?
  /// `--split DATE` or `--holdout FRACTION`.
  package var split: LogSplit
  /// The cutoffs of the ranking metrics (`--k`), ascending.
  package var cutoffs: [Int]
  /// `--run [NAME=]FILE`, in order.
  package var runs: [(name: String?, path: String)] = []
  /// `--ope`: off-policy estimates from the logged propensities.
  package var ope = false
  /// `--policy NAME=FILE`: policies given by their action probabilities.
  package var policies: [(name: String, path: String)] = []
  /// `--clip` and `--cross-fit`: the estimators beyond replay, IPS, SNIPS, DM and DR.
  package var estimators = OffPolicyOptions(clip: nil, crossFitFolds: nil)
  /// `--ope-samples N`: the strategies as stochastic policies from N decks per session.
  package var samples: Int?
  /// Threads that build the strategies' decks (`--jobs`).
  package var jobs = 1
  /// `--tune`: the search of every strategy, made on a validation before the comparison.
  package var tuning: CompareTuning?
  /// `--trec DIR`: the judgements, decks and training swipes as TREC files.
  package var trec: String?

  package init(settings: RunSettings, usersPath: String?, split: LogSplit, cutoffs: [Int]) {
    self.settings = settings
    self.usersPath = usersPath
    self.split = split
    self.cutoffs = cutoffs
  }

  package var logs: [String] { settings.historyPaths }
  package var catalogPath: String { settings.catalogPath }
  /// The deck rules; `rules.size` is the deck each strategy ranks (at least the largest cutoff).
  package var rules: DeckRules { settings.rules }
  package var seed: UInt64 { settings.seed }
}

package enum CompareLogs {
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
    var fallback: NamedStrategy?
    /// The compared strategies' configurations, and what makes them.
    var named: [NamedStrategy]
    var maker: any StrategyMaking
  }

  static func run(
    _ request: CompareRequest, _ given: CompareLogsRequest, _ io: JobIO,
    strategies maker: any StrategyMaking, outputs: RunOutputs
  ) throws -> ComparisonReport {
    let (config, logs) = (request.config, given.logs)
    var setup = try load(given, request, io, maker)
    let (sink, read, tuned) = try readAndTune(
      config, logs, &setup, io, exportTraining: given.trec != nil)
    setup.inputs += RunInputs.history(read)
    // Under --verbose the inputs come before the timings of what is done with them.
    if tuned == nil { RunInputs.tell(setup.inputs, io) }
    let history = try sink.training.build()
    let deckDate = sink.deckDate
    let judged = try judgedDiners(sink, deckDate: deckDate)
    var notes = [CompareJob.coverageNote] + untrained(sink, io)

    // Each strategy ranks a deck (of at least the largest k cards) for every judged diner on the
    // deck date; each run's rankings of those diners follow the strategies.
    let targetSeed = LogEvaluation.targetSeed(runSeed: setup.seed)
    let strategyNames = setup.arms.map(\.name)
    let names = strategyNames + setup.runs.map(\.name)
    let (rankings, shown) = try rank(
      setup, judged.map(\.user), history: history, seed: targetSeed, deckDate: deckDate, io)
    if let dir = given.trec {
      try writeTrec(
        dir: dir, users: judged.map(\.user), relevant: judged.map(\.relevant),
        nonRelevant: judged.map { sink.heldOut.nonRelevant(for: $0.user) }, names: strategyNames,
        rankings: rankings, catalog: setup.catalog, training: sink.trainingLog, outputs: outputs,
        key: request.trec)
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
      part = try tellingOffPolicy(sessions, &setup, config, history, targetSeed, deckDate, io)
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
    var resampling = request.resampling
    let significance = CompareJob.permutations(
      [(ranking, setup.baseline)] + (offPolicyTable.map { [($0, offPolicyBaseline)] } ?? []),
      given: request.permutationsGiven, &resampling)
    var analysis = try Analysis(ranking, baseline: setup.baseline, resampling, io)
    if let offPolicyTable {
      try analysis.add(offPolicyTable, baseline: baselineName, resampling, io)
    }
    for (_, strategy) in setup.arms { try strategy.finish() }
    let skipped = sink.heldOut.dinerCount - judged.count
    if skipped > 0 {
      notes.append(
        "\(TextLayout.plural(skipped, "diner")) with evaluation swipes but no right swipe cannot be scored"
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
      &report, request.run, setup, named: tuned?.named, deckDate: deckDate,
      judged: judged.count, logs: logs, io)
    return report
  }

  /// Reads the logs into the comparison's split; with `--tune`, in one pass with the
  /// validation of the training side, on which every strategy is tuned before the comparison.
  static func readAndTune(
    _ config: MenuDeckConfig, _ logs: [String], _ setup: inout Setup, _ io: JobIO,
    exportTraining: Bool
  ) throws -> (
    LogSplitSink, EventReadStats,
    (arms: [LogEvaluation.Arm], named: [NamedStrategy], parameters: [ReportParameter])?
  ) {
    guard let tuning = setup.tuning else {
      let (sink, read) = try self.read(logs, setup, io, exportTraining: exportTraining)
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
      logs, split: setup.split, setup.settings, io, into: &both,
      file: { sink, path in sink.test!.sessions?.file = path }, told: tell(io))
    let sink = both.test!
    RunInputs.tell(setup.inputs + RunInputs.history(read), io)
    let tuned = try tuning.tune(
      both.validation, setup, config, fallback: setup.fallback, io)
    setup.arms = tuned.arms
    return (sink, read, tuned)
  }

  /// The run header of a comparison on logs, and its summary notes.
  static func finish(
    _ report: inout ComparisonReport, _ run: RunRecord, _ setup: Setup,
    named: [NamedStrategy]?, deckDate: DeckDate, judged: Int, logs: [String], _ io: JobIO
  ) throws {
    let record = CompareJob.record(
      setup.arms.map { ($0.name, $0.strategy) }, named: named ?? setup.named, setup.maker, io)
    RunInputs.tell(record.inputs, io)
    report.run = run
    report.run?.inputs = setup.inputs + record.inputs
    report.run?.settings =
      [.init("seed") { $0.int(setup.seed) }, .init("deck_date") { $0.string("\(deckDate)") }]
      + record.settings
    var arms = [TextLayout.plural(setup.arms.count, "strategy", "strategies")]
    if !setup.runs.isEmpty { arms.append(TextLayout.plural(setup.runs.count, "run")) }
    if !setup.policies.isEmpty {
      arms.append(TextLayout.plural(setup.policies.count, "policy", "policies"))
    }
    let compared =
      arms.count == 1 ? arms[0] : arms.dropLast().joined(separator: ", ") + " and " + arms.last!
    io.diagnostics.note(
      "compared \(compared) on \(TextLayout.plural(judged, "diner")) of "
        + logs.map { $0 == "-" ? "standard input" : $0 }.joined(separator: ", ") + ", "
        + setup.split.describe(deckDate), code: "summary", location: nil)
    if let bias = report.loggingBias {
      io.diagnostics.note(bias.note, code: "logging_bias", location: nil)
    }
  }

  /// The warning (and note) of a comparison whose strategies learned nothing.
  static func untrained(_ sink: LogSplitSink, _ io: JobIO) -> [String] {
    guard sink.trainingEvents == 0 else { return [] }
    let warning =
      "no event before the split: the strategies learned nothing and rank as for first visits"
    io.diagnostics.warning(warning, code: "no_training_events", location: nil)
    return [warning]
  }

  /// Each strategy ranks a deck (of at least the largest k cards) for each of `users` on the
  /// deck date, on the progress line, timed under --verbose.
  static func rank(
    _ setup: Setup, _ users: [String], history: History, seed: UInt64, deckDate: DeckDate,
    _ io: JobIO
  ) throws -> (rankings: [[[Int32]]], shown: [[Int]]) {
    let start = monotonicSeconds()
    let ranked = try io.diagnostics.withProgress(
      "rank", unit: .items("decks"), total: setup.arms.count * users.count
    ) { counter in
      try LogEvaluation.rankDecks(
        setup.arms, diners: users.map { setup.profiles[IDKey($0)] ?? UserProfile(id: $0) },
        profiles: setup.profiles.values.sorted { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) },
        catalog: setup.catalog, history: history, builder: setup.builder, seed: seed,
        date: deckDate, jobs: setup.jobs, progress: counter)
    }
    io.diagnostics.info(
      "ranked the decks of \(TextLayout.plural(users.count, "diner")) for "
        + "\(TextLayout.plural(setup.arms.count, "strategy", "strategies"))"
        + " in \(formatSeconds(monotonicSeconds() - start)) on \(TextLayout.plural(setup.jobs, "thread"))",
      code: "timing", location: nil)
    return ranked
  }

  /// `offPolicy`, with the inputs it read told under --verbose and its warnings said.
  static func tellingOffPolicy(
    _ sessions: LoggedSessions, _ setup: inout Setup, _ config: MenuDeckConfig, _ history: History,
    _ seed: UInt64, _ deckDate: DeckDate, _ io: JobIO
  ) throws -> LogEvaluation.OffPolicyPart {
    let told = setup.inputs.count
    let part = try offPolicy(sessions, &setup, config, history, seed, deckDate, io)
    RunInputs.tell(Array(setup.inputs[told...]), io)
    for warning in part.warnings {
      io.diagnostics.warning(warning, code: "off_policy", location: nil)
    }
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

}
