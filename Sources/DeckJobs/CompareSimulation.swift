import DeckBase
import DeckCore
import DeckEvaluation
import DeckIO
import DeckReports
import DeckStrategies

/// `compare` without logs: every strategy serves the same seeded population on the same days
/// with the same random numbers, so differences are paired diner by diner.
package struct CompareSimulation: Sendable {
  package var catalog: Catalog
  /// The simulated diners' ids.
  package var diners: [String]
  package var days: Int
  package var start: DeckDate
  package var seed: UInt64
  /// "pick" or "all".
  package var mode: String
  package var deckSize: Int
  /// The files read (config, catalog, a users file), with their hashes, for the run header.
  package var inputs: [RunInput]
  /// The run header's settings of the simulation.
  package var settings: [RunRecord.Setting]

  package init(
    catalog: Catalog, diners: [String], days: Int, start: DeckDate, seed: UInt64, mode: String,
    deckSize: Int, inputs: [RunInput], settings: [RunRecord.Setting]
  ) {
    self.catalog = catalog
    self.diners = diners
    self.days = days
    self.start = start
    self.seed = seed
    self.mode = mode
    self.deckSize = deckSize
    self.inputs = inputs
    self.settings = settings
  }

  /// The comparison's view of a loaded simulation.
  init(_ setup: SimulationSetup) {
    self.init(
      catalog: setup.catalog, diners: setup.population.diners.map(\.id), days: setup.days,
      start: setup.start, seed: setup.seed, mode: setup.simulation.mode == .all ? "all" : "pick",
      deckSize: setup.rules.size, inputs: setup.inputs, settings: setup.settings)
  }

  var last: DeckDate { start.adding(days: days - 1) }

  /// The simulated arm of `request`: the simulation's stats per diner, resampled.
  static func run(
    _ request: CompareRequest, _ parameters: SimulationParameters, _ io: JobIO,
    strategies maker: any StrategyMaking, onFallback: (String) -> Void
  ) throws -> ComparisonReport {
    let simulation = try SimulationSetup.load(parameters, io)
    let setup = CompareSimulation(simulation)
    RunInputs.tell(setup.inputs, io)
    let strategies = try CompareJob.strategies(request, maker)
    let names = strategies.map(\.0)
    let baseline = try CompareJob.baseline(request.baseline, strategies: names)
    var stats = StatsAccumulator(
      catalog: setup.catalog,
      options: StatsOptions(
        deckSize: setup.deckSize, days: setup.start...setup.last, strategies: names,
        newDishDays: request.newDishDays))
    let catalog = setup.catalog
    let shown = ShownCounts(strategies: strategies.count, items: catalog.count)
    let totals = try SimulateJob.simulate(
      simulation, strategies, into: &stats, eventWriter: nil, io, onFallback: onFallback,
      onSwipe: { s, item in
        if let i = catalog.index(of: item) { shown.counts[s][Int(i)] += 1 }
      })
    let units = setup.diners.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    let table = stats.unitTable(strategies: names, units: units)
    try Limits.checkResampling(table, resamples: request.resampling.resamples)
    var resampling = request.resampling
    let significance = CompareJob.permutations(
      [(table, baseline)], given: request.permutationsGiven, &resampling)
    let (arms, differences) = CompareJob.resample(table, baseline: baseline, resampling, io)
    io.diagnostics.note(
      "simulated \(TextLayout.plural(setup.diners.count, "diner")) x"
        + " \(TextLayout.plural(setup.days, "day")) from \(setup.start) with seed \(setup.seed):"
        + " \(TextLayout.plural(totals.sessions, "session")),"
        + " \(TextLayout.plural(totals.swipes, "swipe")) over"
        + " \(TextLayout.plural(names.count, "strategy", "strategies"))",
      code: "summary", location: nil)
    var report = setup.report(
      table: table, arms: arms, differences: differences, baseline: baseline.map { names[$0] },
      daily: stats.dailySeries(strategies: names, resampling: resampling),
      ndcgK: stats.options.ndcgK, resampling: resampling)
    report.topDishes = LogEvaluation.topDishes(names: names, counts: shown.counts, catalog: catalog)
    report.significance = significance
    let record = CompareJob.record(strategies, named: request.strategies, maker, io)
    RunInputs.tell(record.inputs, io)
    report.run = request.run
    report.run?.inputs = setup.inputs + record.inputs
    report.run?.settings = setup.settings + record.settings
    return report
  }

  /// The report of the simulation's resampled `table`, before its run header.
  func report(
    table: UnitTable, arms: [ArmSummary], differences: [ArmDifference], baseline: String?,
    daily: [DailySeries], ndcgK: Int, resampling: ResamplingOptions
  ) -> ComparisonReport {
    var report = ComparisonReport(
      title: "simulation: \(TextLayout.plural(diners.count, "diner")) x"
        + " \(TextLayout.plural(days, "day")) from \(start), \(mode) mode",
      parameters: [
        ReportParameter(name: "mode", value: "simulation"),
        .integer("diners", diners.count),
        .integer("days", days),
        ReportParameter(name: "start", value: "\(start)"),
        ReportParameter(name: "session_mode", value: mode),
        .integer("deck_size", deckSize),
        .integer("ndcg_k", ndcgK),
        .integer("seed", seed),
      ],
      metrics: table.metrics, arms: arms, baseline: baseline, differences: differences,
      daily: daily, level: resampling.level, resamples: resampling.resamples,
      units: table.units.count,
      notes: [
        "every strategy served the same \(TextLayout.plural(table.units.count, "simulated diner"))"
          + " with the same random numbers; intervals resample diners (diners who never opened"
          + " the app count with no sessions)",
        CompareJob.coverageNote,
      ])
    report.unitTables = [table]
    return report
  }
}

/// How often each strategy showed each dish, counted by the simulation's swipe callback.
private final class ShownCounts {
  var counts: [[Int]]

  init(strategies: Int, items: Int) {
    counts = [[Int]](repeating: [Int](repeating: 0, count: items), count: strategies)
  }
}
