import DeckBase
import DeckCore
import DeckEvaluation
import DeckIO
import DeckReports
import DeckStrategies

/// `menudeck compare`: two or more strategies on the same work, each metric with a bootstrap
/// interval and, with a baseline, paired differences and tests. On simulated diners, or on logs
/// (`CompareLogsRequest`).
package struct CompareRequest: Sendable {
  /// What the strategies are compared on.
  package enum Mode: Sendable {
    /// A seeded simulation of the population and days of `SimulationParameters`.
    case simulation(SimulationParameters)
    /// Swipe logs, split into training and evaluation.
    case logs(CompareLogsRequest)
  }

  package var config: MenuDeckConfig
  package var mode: Mode
  /// The compared strategies as named on the command line, and their configurations (with
  /// its `--option`s), in order, each once.
  package var names: [String]
  package var strategies: [NamedStrategy]
  /// `--fallback`: the strategy of the diners whose strategy (a plugin) fails.
  package var fallback: NamedStrategy?
  package var format = ComparisonFormat.table
  /// `--resamples`, `--permutations`, `--level` and the seed of the bootstrap.
  package var resampling = ResamplingOptions()
  /// Whether `--permutations` was given (else they are chosen for the report's family).
  package var permutationsGiven = false
  /// `--baseline`: the strategy (or `--run`) every other is compared with.
  package var baseline: String?
  /// Simulation: with a number, `new_dish_like_rate` over dishes in their first days.
  package var newDishDays: Int?
  /// The comparison (standard output when not given), the HTML report and the per-diner CSV,
  /// under the keys `out`, `report` and `perDiner`; the files the run reads, which no output
  /// may replace; `--wait`. The job adds the TREC files of a comparison on logs under `trec`
  /// (the directory is made).
  package var outputs: OutputPlan
  package var out: OutputKey
  package var report: OutputKey
  package var perDiner: OutputKey
  package var trec: OutputKey
  /// The run header's command, version and arguments; the job adds the inputs and settings.
  package var run: RunRecord

  package init(
    config: MenuDeckConfig, mode: Mode, names: [String], strategies: [NamedStrategy],
    out: RequestedOutput, report: RequestedOutput, perDiner: RequestedOutput, trec: OutputKey,
    plan: OutputPlan = OutputPlan(), run: RunRecord
  ) {
    self.config = config
    self.mode = mode
    self.names = names
    self.strategies = strategies
    self.run = run
    outputs = plan.writing([out, report, perDiner], standardOutput: out.key)
    outputs.createDirectories = [trec]
    self.out = out.key
    self.report = report.key
    self.perDiner = perDiner.key
    self.trec = trec
  }
}

/// Runs a `CompareRequest`: declares and locks the outputs, runs the arms (the simulation, or
/// the logs' ranking metrics, off-policy estimates and tuning), resamples, adjusts the
/// p-values, writes the comparison, the HTML report, the per-diner table and the TREC files,
/// and commits them together.
package enum CompareJob {
  /// `strategies` makes the compared strategies; `onFallback` is told the one warning of a
  /// simulated strategy whose plugin failed and fell back.
  package static func run(
    _ request: CompareRequest, _ io: JobIO, strategies: any StrategyMaking,
    onFallback: (String) -> Void = { _ in }
  ) throws -> ComparisonReport {
    // Every file of the run, declared and locked before anything is read: --out, --report and
    // the TREC files, replaced together at the end.
    var plan = request.outputs
    if case .logs(let logs) = request.mode, let dir = logs.trec {
      plan = plan.writing(
        CompareLogs.trecFiles(dir: dir, names: request.names).map {
          RequestedOutput(request.trec, $0)
        })
    }
    let outputs = try RunOutputs(plan, io: io)
    defer { outputs.abort() }

    var report: ComparisonReport
    switch request.mode {
    case .simulation(let parameters):
      report = try CompareSimulation.run(
        request, parameters, io, strategies: strategies, onFallback: onFallback)
    case .logs(let logs):
      report = try CompareLogs.run(request, logs, io, strategies: strategies, outputs: outputs)
    }
    if let note = intervalNote(report) { report.notes.append(note) }
    // Holm and Benjamini-Hochberg over every defined p-value of the report (the ranking and the
    // off-policy metrics of a comparison on logs together).
    MultipleComparisons.adjust(&report)
    if let significance = report.significance {
      if let warning = significance.unattainable {
        io.diagnostics.warning(warning, code: "significance_unattainable", location: nil)
      } else if let note = significance.capped {
        io.diagnostics.note(note, code: "permutations_capped", location: nil)
      }
    }
    try outputs.write(ComparisonWriter.render(report, format: request.format), to: request.out)
    if outputs.isGiven(request.report) {
      try outputs.write(HTMLReport.render(report), to: request.report)
    }
    if outputs.isGiven(request.perDiner) {
      try outputs.write(PerDinerWriter.csv(report.unitTables), to: request.perDiner)
    }
    try outputs.commit()
    return report
  }

  /// The compared strategies, made (plugins started) in the order given, each with
  /// `--fallback` around it.
  static func strategies(_ request: CompareRequest, _ maker: any StrategyMaking) throws
    -> [(String, any RankingStrategy)]
  {
    try zip(request.names, request.strategies).map { name, named in
      (name, try maker.make(named, fallback: request.fallback))
    }
  }

  /// What the run header records of the strategies besides their names: every option value
  /// and what they fitted (`StrategyMaking.headerSettings`), and the plugins' executables
  /// among the inputs. `named`: the configurations the strategies were made from (the
  /// request's, or the winners of `compare --tune`).
  static func record(
    _ strategies: [(String, any RankingStrategy)], named: [NamedStrategy],
    _ maker: any StrategyMaking, _ io: JobIO
  ) -> (settings: [RunRecord.Setting], inputs: [RunInput]) {
    guard named.count == strategies.count else { return ([], []) }
    let header = maker.headerSettings(zip(strategies, named).map { ($0.0, $0.1, $1) })
    return (
      [RunRecord.Setting("strategies") { $0.strings(strategies.map(\.0)) }] + header,
      RunInputs.plugins(named, io)
    )
  }

  /// The index of the baseline among the strategies, then the runs (`runs`: the names of the
  /// `--run` arms, which follow the strategies), after checking that there is something to
  /// compare. `policies`: how many `--policy` arms join them: one strategy is then enough.
  static func baseline(
    _ baseline: String?, strategies names: [String], policies: Int = 0, runs: [String] = []
  ) throws -> Int? {
    guard names.count + policies + runs.count >= 2, !names.isEmpty else {
      let others = [policies > 0 ? "a --policy" : nil, runs.isEmpty ? nil : "a --run"]
        .compactMap { $0 }
      throw JobError.usage(
        "give two or more different strategies to compare (--strategy NAME, repeated)"
          + (others.isEmpty ? "" : ", or one strategy and \(others.joined(separator: " or "))"))
    }
    guard let name = baseline else { return nil }
    if let index = names.firstIndex(of: name) { return index }
    if let index = runs.firstIndex(of: name) { return names.count + index }
    throw JobError.usage(
      "the baseline '\(name)' is not among the compared strategies"
        + "\(didYouMean(name, names + runs)); compared: " + (names + runs).joined(separator: ", ")
        + (policies > 0
          ? " (a --policy cannot be the baseline: the ranking metrics need the baseline's decks)"
          : ""))
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
    _ table: UnitTable, baseline: Int?, _ resampling: ResamplingOptions, _ io: JobIO
  ) -> (arms: [ArmSummary], differences: [ArmDifference]) {
    let start = monotonicSeconds()
    let result = io.diagnostics.withProgress(
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
    io.diagnostics.info(
      "resampled \(TextLayout.plural(table.units.count, "diner")) x "
        + "\(TextLayout.plural(table.metrics.count, "metric")): \(resampling.resamples) bootstrap"
        + " resamples\(tests) in \(formatSeconds(monotonicSeconds() - start))",
      code: "timing", location: nil)
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
}
