import DeckBase
import DeckCommandLine
import DeckCore
import DeckEvaluation
import DeckIO
import DeckJobs
import DeckReports
import DeckSimulation
import DeckStrategies
import Foundation

let simulateCommand = CommandSpec(
  name: "simulate",
  abstract: "Simulate diners swiping day by day and report deck stats.",
  discussion: """
    Builds a seeded population of synthetic diners over the catalog (hidden tastes per category \
    and tag, price sensitivity, pickiness, diets and allergens), then runs day by day: each \
    day's decks are built by the same deck builder, rules and strategy code as 'menudeck deck', \
    the diners swipe them, and the strategy learns from the day's swipes before the next day. \
    Prints the stats of every strategy per day and overall, with the ground truth only a \
    simulation knows (true utility of picks, regret against an oracle deck, NDCG@k).

    Several --strategy options run the same population with the same random numbers, one run \
    per strategy. Population parameters live under "simulation" in the config.

    Examples:
      menudeck simulate --users 1000 --days 30 --strategy random --strategy affinity
      menudeck simulate --users Data/users.json --days 14 --events sim.jsonl
    """,
  options: [
    InputOptions.config.spec,
    InputOptions.catalog.spec,
    SimulationOptions.users.spec,
    InputOptions.delimiter.with(
      help: "What separates the fields of CSV inputs (catalog, users file): ',' (default), ';' "
        + "or tab (config: csv_delimiter)."
    ).spec,
    SimulationOptions.days.spec,
    SimulationOptions.start.spec,
    SimulationOptions.strategies.spec,
    InputOptions.option.with(help: "Strategy option.").spec,
    InputOptions.size.spec,
    InputOptions.seed.spec,
    InputOptions.jobs.spec,
    SimulationOptions.mode.spec,
    SimulationOptions.drags.spec,
    SimulationOptions.events.spec,
    SimulationOptions.format.spec,
    SimulationOptions.out.spec,
    OutputOptions.wait.spec,
    InputOptions.fallback.with(
      help: "If a strategy (a plugin) fails, give the affected diners this strategy's decks."
    ).spec,
  ],
  run: { args, context in try Simulate.run(args, context) })

/// The options of a simulation, shared by `simulate` and `compare` (which words their help
/// differently: `key.with(help:)`).
enum SimulationOptions {
  static let users = Option<String>(
    "users", valueName: "n|file",
    help: "How many synthetic diners, or a users file whose diners to simulate (default 1000).")
  static let days = Option<Int>("days", valueName: "n", help: "Days to simulate (default 30).")
  static let start = Option<String>(
    "start", valueName: "date", help: "First simulated day: \(DateArgument.forms) (default: today)."
  )
  static let strategies = Repeatable(
    "strategy", short: "s", valueName: "name",
    help: "Strategy or named configuration to simulate (default: the config's)."
  ).with { $0.completions = InputOptions.strategyCompletions }
  static let mode = Option<String>(
    "mode", valueName: "mode", choices: ["pick", "all"],
    help: "Session mode: pick ends at the first right swipe, all swipes the whole deck.")
  static let drags = Flag(
    "drags", help: "Log each swipe as the raw drag (dx, width) the app would have seen.")
  static let events = Option<String>(
    "events", valueName: "file",
    help: "Write the simulated swipes as a log (.jsonl or .csv), one strategy only.")
  static let format = Option<String>(
    "format", short: "f", valueName: "format", default: "table",
    choices: ["table", "json", "jsonl", "csv"],
    help:
      "Format of the stats: json has the run header, jsonl and csv are tidy (a row per strategy, day and metric)."
  )
  static let out = Option<String>(
    "out", valueName: "file", help: "Write the stats to this file atomically.")
}

/// What a simulation run needs besides its strategies: shared by `simulate` and `compare`.
struct SimulationSetup {
  var catalog: Catalog
  var population: Population
  var builder: DeckBuilder
  var rules: DeckRules
  var simulation: SimulationConfig
  var seed: UInt64
  var start: DeckDate
  var days: Int
  /// The config's time zone: the simulated sessions' wall-clock times are in it.
  var zone: TimeZone
  /// Threads that build each day's decks (`--jobs`).
  var jobs: Int
  /// The files read (config, catalog, a users file), with their hashes, for the run header.
  var inputs: [RunInput]

  var last: DeckDate { start.adding(days: days - 1) }

  /// The run header's settings of a simulation: what decides its numbers besides the inputs.
  var settings: [RunRecord.Setting] {
    [
      .init("seed") { $0.int(seed) },
      .init("start") { $0.string(start.description) },
      .init("days") { $0.int(days) },
      .init("diners") { $0.int(population.count) },
      .init("session_mode") { $0.string(simulation.mode == .all ? "all" : "pick") },
      .init("deck_size") { $0.int(rules.size) },
    ]
  }
}

enum Simulate {
  static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let io = context.io
    let config = try Inputs.loadConfig(args, io)
    if args.value(SimulationOptions.events) != nil && strategyNames(args, config).count > 1 {
      throw UsageError("'--events' writes one strategy's log; give one --strategy with it")
    }
    if let path = args.value(SimulationOptions.events), path != "-",
      EventAppender.format(path: path) == nil
    {
      throw UsageError(
        "'--events \(path)': give the log a .jsonl or .ndjson (JSON Lines) or .csv name; the name "
          + "says its format, and the readers go by it")
    }
    // The outputs are declared and locked before any input is read.
    var inputs = Inputs.configFiles(config)
    if let catalog = args.value(InputOptions.catalog) { inputs.append(.init("--catalog", catalog)) }
    if let users = args.value(SimulationOptions.users), !isCount(users) {
      inputs.append(.init("--users", users))
    }
    let outputs = try RunOutputs(
      [
        (.out, args.value(SimulationOptions.out)),
        (.events, args.value(SimulationOptions.events)),
      ], inputs: inputs,
      wait: OutputOptions.wait(args), standardOutput: .out, io: context.job)
    defer { outputs.abort() }
    let setup = try Simulate.setup(args, config, io)
    RunInputs.tell(setup.inputs, context.job)
    let strategies = try Simulate.strategies(args, config, io)

    // Event log, replaced with the stats at the end.
    var eventWriter: EventWriter?
    if let path = args.value(SimulationOptions.events) {
      let format = EventAppender.format(path: path) ?? .jsonLines
      // The times get the offset the config's zone has at each one, as every log carries.
      eventWriter = EventWriter(
        format: format, output: try outputs.output(.events), drags: setup.simulation.drags,
        zone: TimeZoneOffsets(setup.zone))
    }

    var stats = StatsAccumulator(
      catalog: setup.catalog,
      options: StatsOptions(
        deckSize: setup.rules.size, days: setup.start...setup.last,
        strategies: strategies.map(\.0)))
    let totals: (sessions: Int, swipes: Int)
    totals = try simulate(
      setup, strategies, into: &stats, eventWriter: eventWriter, context: context)
    try eventWriter?.finish()

    let report = stats.report()
    let format = StatsFormat(rawValue: args.value(SimulationOptions.format) ?? "table") ?? .table
    let record = try Simulate.strategyRecord(args, config, strategies, io)
    RunInputs.tell(record.inputs, context.job)
    var run = RunRecord(context, inputs: setup.inputs + record.inputs)
    run.settings = setup.settings + record.settings
    try outputs.write(report.render(format, run: run), to: .out)
    try outputs.commit()
    context.note(
      "simulated \(plural(setup.population.count, "diner")) x \(plural(setup.days, "day")) from \(setup.start)"
        + " with seed \(setup.seed): \(plural(totals.sessions, "session")), \(plural(totals.swipes, "swipe"))"
        + " over \(plural(strategies.count, "strategy", "strategies"))", code: "summary")
    return .success
  }

  /// The population, deck builder, seed and days of a simulation from the options and config.
  static func setup(_ args: ParsedArguments, _ config: MenuDeckConfig, _ io: CLIStreams) throws
    -> SimulationSetup
  {
    let days = try Limits.value(args, SimulationOptions.days, in: Limits.days, "100 years") ?? 30
    guard let catalogPath = args.value(InputOptions.catalog) ?? config.catalog else {
      throw CommandFailure(
        .noInput, "no catalog: set \"catalog\" in the config or give --catalog FILE")
    }
    let delimiters = try InputOptions.delimiters(args, config)
    let (catalog, catalogHash) = try Inputs.loadCatalog(
      catalogPath, io.job, delimiter: delimiters.catalog)
    var inputs = RunInputs.config(config)
    inputs.append(RunInput(role: "catalog", path: catalogPath, sha256: catalogHash))
    var population: Population
    var simulation = config.simulation
    if let mode = args.value(SimulationOptions.mode) {
      simulation.mode = mode == "all" ? .all : .pick
    }
    if args.declares(SimulationOptions.drags) && args.flag(SimulationOptions.drags) {
      simulation.drags = true
    }
    var seed = config.seed
    if let s = try args.value(InputOptions.seed) { seed = s }
    let usersText = args.value(SimulationOptions.users) ?? "1000"
    if let n = Int(usersText) {
      try Limits.check(n, option: "users", in: Limits.simulatedDiners, "diners", text: usersText)
      population = Population(catalog: catalog, count: n, config: simulation, seed: seed)
    } else if isCount(usersText) {
      // Digits beyond any Int: a count, not a file name.
      throw Limits.outOfRange(
        "users", usersText, give: Limits.span(Limits.simulatedDiners, "diners"))
    } else {
      let (profiles, usersHash) = try Inputs.loadUsers(
        usersText, io.job, delimiter: delimiters.users)
      inputs.append(RunInput(role: "users", path: usersText, sha256: usersHash))
      guard !profiles.isEmpty else {
        throw CommandFailure(.dataError, "\(usersText): the users file has no users to simulate")
      }
      population = Population(catalog: catalog, users: profiles, config: simulation, seed: seed)
    }
    var rules = config.rules
    if let n = try Limits.value(args, InputOptions.size, in: Limits.deckSize, "cards") {
      rules.size = n
    }
    let builder = try Inputs.deckBuilder(catalog, rules, config)
    let zone = try Inputs.timeZone(config)
    var start = TimeZones.today(in: zone)
    if let text = args.value(SimulationOptions.start) {
      start = try DateArgument.parse(text, option: "--start", today: start)
    }
    guard let lastDay = DeckDate(year: 9999, month: 12, day: 31),
      start.adding(days: days - 1) <= lastDay
    else {
      throw UsageError(
        "the simulation would run past 9999-12-31; choose an earlier --start or fewer --days")
    }
    return SimulationSetup(
      catalog: catalog, population: population, builder: builder, rules: rules,
      simulation: simulation, seed: seed, start: start, days: days, zone: zone,
      jobs: try InputOptions.jobs(args), inputs: inputs)
  }

  /// The strategies named by `--strategy` (default: the config's), each a named configuration
  /// or a built-in with the command-line `--option`s, duplicates dropped, in the order given.
  /// Whether a `--users` value is a count (digits, or an integer Int reads) rather than a file.
  static func isCount(_ text: String) -> Bool {
    Int(text) != nil || (!text.isEmpty && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 })
  }

  /// The names of the strategies a run uses, in order, each once: `--strategy` values, else
  /// the config's.
  static func strategyNames(_ args: ParsedArguments, _ config: MenuDeckConfig) -> [String] {
    var names = args.values(SimulationOptions.strategies)
    if names.isEmpty { names = [config.strategy] }
    var seen = Set<String>()
    return names.filter { seen.insert($0).inserted }
  }

  /// The configurations of the run's strategies, with the command line's `--option`s, in the
  /// order of `strategies` (for the run header; unknown names are `strategies`' error).
  static func namedStrategies(_ args: ParsedArguments, _ config: MenuDeckConfig) throws
    -> [NamedStrategy]
  {
    let pairs = try args.keyValuePairs(InputOptions.option)
    return strategyNames(args, config).compactMap { name in
      guard var named = try? config.resolveStrategy(name) else { return nil }
      named.override(with: pairs)
      return named
    }
  }

  /// What the run header records of the strategies besides their names: every option value
  /// (`options`), and the plugins' executables among the inputs.
  /// `named`: the configurations the strategies were made from, when they are not the command
  /// line's (`compare --tune` records the winners).
  static func strategyRecord(
    _ args: ParsedArguments, _ config: MenuDeckConfig,
    _ strategies: [(String, any RankingStrategy)], _ io: CLIStreams,
    named given: [NamedStrategy]? = nil
  ) throws -> (settings: [RunRecord.Setting], inputs: [RunInput]) {
    let named = try given ?? namedStrategies(args, config)
    guard named.count == strategies.count else { return ([], []) }
    let names = strategies.map(\.0)
    return (
      [
        .init("strategies") { $0.strings(names) },
        RunInputs.options(zip(strategies, named).map { ($0.0, $0.1, $1) }),
        RunInputs.fitted(strategies.map { ($0.0, $0.1) }),
      ],
      RunInputs.plugins(named, io.job)
    )
  }

  static func strategies(
    _ args: ParsedArguments, _ config: MenuDeckConfig, _ io: CLIStreams
  ) throws -> [(String, any RankingStrategy)] {
    let names = strategyNames(args, config)
    var strategies: [(String, any RankingStrategy)] = []
    let fallback = try Strategies.fallback(args, config)
    for name in names {
      let resolved: NamedStrategy?
      do {
        resolved = try config.resolveStrategy(name)
      } catch {
        throw UsageError(error.description)
      }
      guard var named = resolved else { throw UsageError(config.unknownStrategy(name)) }
      named.override(with: try args.keyValuePairs(InputOptions.option))
      if named.plugin == nil {
        do {
          _ = try StrategyRegistry.make(named.use, options: named.options)
        } catch {
          throw UsageError(error.description)
        }
      }
      strategies.append((name, try Strategies.make(named, fallback: fallback, io)))
    }
    return strategies
  }

  /// Runs the simulation once per strategy (same population, seed and days: the same random
  /// numbers), feeding swipes and ground truth to `stats` and events to `eventWriter`.
  static func simulate(
    _ setup: SimulationSetup, _ strategies: [(String, any RankingStrategy)],
    into stats: inout StatsAccumulator, eventWriter: EventWriter?, context: CommandContext,
    onSwipe: ((_ strategy: Int, _ item: String) -> Void)? = nil
  ) throws -> (sessions: Int, swipes: Int) {
    try context.withProgress(
      "simulate", unit: .items("days"), total: setup.days * strategies.count
    ) { counter in
      try simulate(
        setup, strategies, into: &stats, eventWriter: eventWriter, context: context,
        progress: counter, onSwipe: onSwipe)
    }
  }

  /// `simulate`, each day of each strategy counted on `progress`.
  private static func simulate(
    _ setup: SimulationSetup, _ strategies: [(String, any RankingStrategy)],
    into stats: inout StatsAccumulator, eventWriter: EventWriter?, context: CommandContext,
    progress: ProgressCounter?, onSwipe: ((_ strategy: Int, _ item: String) -> Void)?
  ) throws -> (sessions: Int, swipes: Int) {
    var totalSessions = 0
    var totalSwipes = 0
    stats.expectGroundTruth()
    let rule = setup.simulation.dragRule
    for (index, (name, strategy)) in strategies.enumerated() {
      var clock = PhaseClock()
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
            onSwipe?(index, event.item)
            _ = stats.add(swipe, strategy: name)
          }
        },
        sessions: { s in
          stats.add(
            GroundTruthSession(
              strategy: name, user: s.user, day: s.date, deck: s.cards.map(\.trueUtility),
              pickedPosition: s.picked.map { $0 + 1 }, oracle: s.oracleUtilities))
        })
      try strategy.finish()
      if let warning = Strategies.fallbackWarning(strategy) {
        context.warnAlways(warning, code: "fallback")
      }
      totalSessions += result.sessions
      totalSwipes += result.swipes
      context.info(
        "simulated '\(name)': \(plural(setup.days, "day")) in \(clock.lap()) on "
          + plural(setup.jobs, "thread"), code: "timing")
    }
    return (totalSessions, totalSwipes)
  }
}
