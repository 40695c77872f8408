import DeckBase
import DeckCore
import DeckEvaluation
import DeckIO
import DeckReports
import DeckSimulation
import DeckStrategies
import Foundation

/// What a simulation's population and days are made from, as `simulate` and `compare` give
/// them: loaded into a `SimulationSetup` by `SimulationSetup.load`.
package struct SimulationParameters: Sendable {
  /// Synthetic diners, or the diners of a users file.
  package enum Diners: Sendable, Equatable {
    case count(Int)
    case file(String)
  }

  package var config: MenuDeckConfig
  package var catalogPath: String
  /// What separates the fields of the catalog and the users file.
  package var delimiters: CSVDelimiters
  package var diners: Diners
  /// The config's simulation with the command line's session mode and drags.
  package var simulation: SimulationConfig
  package var seed: UInt64
  /// The config's rules with the command line's deck size.
  package var rules: DeckRules
  package var start: DeckDate
  package var days: Int
  /// The config's time zone: the simulated sessions' wall-clock times are in it.
  package var zone: TimeZone
  /// Threads that build each day's decks.
  package var jobs: Int

  package init(
    config: MenuDeckConfig, catalogPath: String, delimiters: CSVDelimiters, diners: Diners,
    simulation: SimulationConfig, seed: UInt64, rules: DeckRules, start: DeckDate, days: Int,
    zone: TimeZone, jobs: Int
  ) {
    self.config = config
    self.catalogPath = catalogPath
    self.delimiters = delimiters
    self.diners = diners
    self.simulation = simulation
    self.seed = seed
    self.rules = rules
    self.start = start
    self.days = days
    self.zone = zone
    self.jobs = jobs
  }
}

/// What a simulation run needs besides its strategies: shared by `simulate` and `compare`.
package struct SimulationSetup {
  package var catalog: Catalog
  package var population: Population
  package var builder: DeckBuilder
  package var rules: DeckRules
  package var simulation: SimulationConfig
  package var seed: UInt64
  package var start: DeckDate
  package var days: Int
  /// The config's time zone: the simulated sessions' wall-clock times are in it.
  package var zone: TimeZone
  /// Threads that build each day's decks (`--jobs`).
  package var jobs: Int
  /// The files read (config, catalog, a users file), with their hashes, for the run header.
  package var inputs: [RunInput]

  package var last: DeckDate { start.adding(days: days - 1) }

  /// The run header's settings of a simulation: what decides its numbers besides the inputs.
  package var settings: [RunRecord.Setting] {
    [
      .init("seed") { $0.int(seed) },
      .init("start") { $0.string(start.description) },
      .init("days") { $0.int(days) },
      .init("diners") { $0.int(population.count) },
      .init("session_mode") { $0.string(simulation.mode == .all ? "all" : "pick") },
      .init("deck_size") { $0.int(rules.size) },
    ]
  }

  /// Loads the catalog (and the users file), and makes the population and the deck builder.
  package static func load(_ p: SimulationParameters, _ io: JobIO) throws -> SimulationSetup {
    let (catalog, catalogHash) = try Inputs.loadCatalog(
      p.catalogPath, io, delimiter: p.delimiters.catalog)
    var inputs = RunInputs.config(p.config)
    inputs.append(RunInput(role: "catalog", path: p.catalogPath, sha256: catalogHash))
    let population: Population
    switch p.diners {
    case .count(let n):
      population = Population(catalog: catalog, count: n, config: p.simulation, seed: p.seed)
    case .file(let path):
      let (profiles, usersHash) = try Inputs.loadUsers(path, io, delimiter: p.delimiters.users)
      inputs.append(RunInput(role: "users", path: path, sha256: usersHash))
      guard !profiles.isEmpty else {
        throw JobError(.dataError, "\(path): the users file has no users to simulate")
      }
      population = Population(
        catalog: catalog, users: profiles, config: p.simulation, seed: p.seed)
    }
    return SimulationSetup(
      catalog: catalog, population: population,
      builder: try Inputs.deckBuilder(catalog, p.rules, p.config), rules: p.rules,
      simulation: p.simulation, seed: p.seed, start: p.start, days: p.days, zone: p.zone,
      jobs: p.jobs, inputs: inputs)
  }
}

/// `menudeck simulate`: synthetic diners swiping the decks of each strategy day by day, and
/// the deck stats of every strategy with the ground truth.
package struct SimulateRequest: Sendable {
  package var parameters: SimulationParameters
  /// The strategies as named on the command line, and their configurations (with its
  /// `--option`s), in order, each once.
  package var names: [String]
  package var strategies: [NamedStrategy]
  /// The strategy whose decks the diners get when a plugin fails (`--fallback`).
  package var fallback: NamedStrategy?
  /// The stats (standard output when not given) and the simulated swipes as a log, under the
  /// keys `out` and `events`; the config's files, the catalog and users file given, which no
  /// output may replace; `--wait`.
  package var outputs: OutputPlan
  package var out: OutputKey
  package var events: OutputKey
  package var format = StatsFormat.table
  /// The head of the stats' run header (version, command, arguments); the job adds the
  /// inputs and settings.
  package var run: RunRecord

  package init(
    parameters: SimulationParameters, names: [String], strategies: [NamedStrategy],
    out: RequestedOutput, events: RequestedOutput, plan: OutputPlan = OutputPlan(), run: RunRecord
  ) {
    self.parameters = parameters
    self.names = names
    self.strategies = strategies
    self.run = run
    outputs = plan.writing([out, events], standardOutput: out.key)
    self.out = out.key
    self.events = events.key
  }
}

/// Runs a `SimulateRequest`: lock the outputs, load the population, make the strategies, run
/// the days of each, write the stats (and the log), commit.
package enum SimulateJob {
  package struct Outcome {
    package var setup: SimulationSetup
    package var sessions: Int
    package var swipes: Int
  }

  /// `onFallback` is told the one warning of a strategy whose plugin failed and fell back
  /// (the command line shows it even with `--quiet`).
  package static func run(
    _ request: SimulateRequest, _ io: JobIO, strategies maker: any StrategyMaking,
    onFallback: (String) -> Void = { _ in }
  ) throws -> Outcome {
    // The outputs are declared and locked before any input is read.
    let outputs = try RunOutputs(request.outputs, io: io)
    defer { outputs.abort() }
    let setup = try SimulationSetup.load(request.parameters, io)
    RunInputs.tell(setup.inputs, io)
    let strategies = try zip(request.names, request.strategies).map { name, named in
      (name, try maker.make(named, fallback: request.fallback))
    }
    // The event log, replaced with the stats at the end.
    var eventWriter: EventWriter?
    if let path = request.outputs.path(request.events) {
      // The times get the offset the config's zone has at each one, as every log carries.
      eventWriter = EventWriter(
        format: EventAppender.format(path: path) ?? .jsonLines,
        output: try outputs.output(request.events), drags: setup.simulation.drags,
        zone: TimeZoneOffsets(setup.zone))
    }
    var stats = StatsAccumulator(
      catalog: setup.catalog,
      options: StatsOptions(
        deckSize: setup.rules.size, days: setup.start...setup.last, strategies: request.names))
    let totals = try simulate(
      setup, strategies, into: &stats, eventWriter: eventWriter, io, onFallback: onFallback)
    try eventWriter?.finish()
    let report = stats.report()
    let plugins = RunInputs.plugins(request.strategies, io)
    RunInputs.tell(plugins, io)
    var run = request.run
    run.inputs = setup.inputs + plugins
    run.settings =
      setup.settings + [RunRecord.Setting("strategies") { $0.strings(request.names) }]
      + maker.headerSettings(
        zip(strategies, request.strategies).map { ($0.0, $0.1, $1) })
    try outputs.write(report.render(request.format, run: run), to: request.out)
    try outputs.commit()
    return Outcome(setup: setup, sessions: totals.sessions, swipes: totals.swipes)
  }

  /// Runs the simulation once per strategy (same population, seed and days: the same random
  /// numbers), feeding swipes and ground truth to `stats` and events to `eventWriter`.
  package static func simulate(
    _ setup: SimulationSetup, _ strategies: [(String, any RankingStrategy)],
    into stats: inout StatsAccumulator, eventWriter: EventWriter?, _ io: JobIO,
    onFallback: (String) -> Void, onSwipe: ((_ strategy: Int, _ item: String) -> Void)? = nil
  ) throws -> (sessions: Int, swipes: Int) {
    try io.diagnostics.withProgress(
      "simulate", unit: .items("days"), total: setup.days * strategies.count
    ) { counter in
      var totals = (sessions: 0, swipes: 0)
      stats.expectGroundTruth()
      for (index, (name, strategy)) in strategies.enumerated() {
        let start = monotonicSeconds()
        let result = try simulate(
          setup, name, strategy, into: &stats, eventWriter: eventWriter, progress: counter
        ) { item in onSwipe?(index, item) }
        try strategy.finish()
        if let warning = (strategy as? FallbackStrategy)?.warning { onFallback(warning) }
        totals.sessions += result.sessions
        totals.swipes += result.swipes
        io.diagnostics.info(
          "simulated '\(name)': \(TextLayout.plural(setup.days, "day")) in "
            + "\(formatSeconds(monotonicSeconds() - start)) on "
            + TextLayout.plural(setup.jobs, "thread"), code: "timing", location: nil)
      }
      return totals
    }
  }

  /// The days of one strategy, counted on `progress`.
  private static func simulate(
    _ setup: SimulationSetup, _ name: String, _ strategy: any RankingStrategy,
    into stats: inout StatsAccumulator, eventWriter: EventWriter?, progress: ProgressCounter?,
    onSwipe: (_ item: String) -> Void
  ) throws -> (sessions: Int, swipes: Int) {
    let rule = setup.simulation.dragRule
    let simulator = Simulator(
      population: setup.population, builder: setup.builder, seed: setup.seed,
      start: setup.start, days: setup.days)
    simulator.jobs = setup.jobs
    simulator.progress = progress
    stats.strategy = name
    let result = try simulator.run(
      strategy: strategy,
      events: { event in
        try eventWriter?.write(event)
        // A logged drag is decided by the same rule the reader uses; hesitations are no swipe.
        if let swipe = try event.swipeEvent(rule: rule) {
          onSwipe(event.item)
          _ = stats.add(swipe, strategy: name)
        }
      },
      sessions: { s in
        stats.add(
          GroundTruthSession(
            strategy: name, user: s.user, day: s.date, deck: s.cards.map(\.trueUtility),
            pickedPosition: s.picked.map { $0 + 1 }, oracle: s.oracleUtilities))
      })
    return (result.sessions, result.swipes)
  }
}
