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

extension SimulateRequest {
  /// The request of `menudeck simulate ARGS`: the population and days, the strategies, the
  /// outputs and the run header's head.
  init(_ args: ParsedArguments, _ context: CommandContext) throws {
    let config = try Inputs.loadConfig(args, context.io)
    let names = Simulate.strategyNames(args, config)
    let events = args.value(SimulationOptions.events)
    if events != nil && names.count > 1 {
      throw UsageError("'--events' writes one strategy's log; give one --strategy with it")
    }
    if let path = events, path != "-", EventAppender.format(path: path) == nil {
      throw UsageError(
        "'--events \(path)': give the log a .jsonl or .ndjson (JSON Lines) or .csv name; the name "
          + "says its format, and the readers go by it")
    }
    var inputs = Inputs.configFiles(config)
    if let catalog = args.value(InputOptions.catalog) { inputs.append(.init("--catalog", catalog)) }
    if let users = args.value(SimulationOptions.users), !Simulate.isCount(users) {
      inputs.append(.init("--users", users))
    }
    let wait = try OutputOptions.wait(args)
    let parameters = try SimulationParameters(args, config)
    let fallback = try Strategies.fallback(args, config)
    self.init(
      parameters: parameters, names: names, strategies: try Simulate.resolved(args, config),
      fallback: fallback, out: RequestedOutput(.out, args.value(SimulationOptions.out)),
      events: RequestedOutput(.events, events),
      format: StatsFormat(rawValue: args.value(SimulationOptions.format) ?? "table") ?? .table,
      inputs: inputs, wait: wait, run: RunRecord(context, inputs: []))
  }
}

extension SimulationParameters {
  /// The population, deck size, seed and days of a simulation from the options and config.
  init(_ args: ParsedArguments, _ config: MenuDeckConfig) throws {
    let days = try Limits.value(args, SimulationOptions.days, in: Limits.days, "100 years") ?? 30
    guard let catalogPath = args.value(InputOptions.catalog) ?? config.catalog else {
      throw CommandFailure(
        .noInput, "no catalog: set \"catalog\" in the config or give --catalog FILE")
    }
    let delimiters = try InputOptions.delimiters(args, config)
    var simulation = config.simulation
    if let mode = args.value(SimulationOptions.mode) {
      simulation.mode = mode == "all" ? .all : .pick
    }
    if args.declares(SimulationOptions.drags) && args.flag(SimulationOptions.drags) {
      simulation.drags = true
    }
    let seed = try args.value(InputOptions.seed) ?? config.seed
    let usersText = args.value(SimulationOptions.users) ?? "1000"
    let diners: Diners
    if let n = Int(usersText) {
      try Limits.check(n, option: "users", in: Limits.simulatedDiners, "diners", text: usersText)
      diners = .count(n)
    } else if Simulate.isCount(usersText) {
      // Digits beyond any Int: a count, not a file name.
      throw Limits.outOfRange(
        "users", usersText, give: Limits.span(Limits.simulatedDiners, "diners"))
    } else {
      diners = .file(usersText)
    }
    var rules = config.rules
    if let n = try Limits.value(args, InputOptions.size, in: Limits.deckSize, "cards") {
      rules.size = n
    }
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
    self.init(
      config: config, catalogPath: catalogPath, delimiters: delimiters, diners: diners,
      simulation: simulation, seed: seed, rules: rules, start: start, days: days, zone: zone,
      jobs: try InputOptions.jobs(args))
  }
}

/// The strategies as the command line makes them (`Strategies`): plugins log to its
/// diagnostics; the run header's options and fitted values as `deck`'s header writes them.
struct CommandStrategies: StrategyMaking {
  let io: CLIStreams

  func make(_ named: NamedStrategy, fallback: NamedStrategy?) throws -> any RankingStrategy {
    try Strategies.make(named, fallback: fallback, io)
  }

  func headerSettings(
    _ strategies: [(name: String, strategy: any RankingStrategy, named: NamedStrategy)]
  ) -> [RunRecord.Setting] {
    [RunInputs.options(strategies), RunInputs.fitted(strategies.map { ($0.name, $0.strategy) })]
  }
}

/// What a simulation reads from the command line, `simulate`'s and `compare`'s; the simulation
/// itself is DeckJobs' (`SimulateJob`).
enum Simulate {
  /// The population, deck builder, seed and days of a simulation from the options and config.
  static func setup(_ args: ParsedArguments, _ config: MenuDeckConfig, _ io: CLIStreams) throws
    -> SimulationSetup
  {
    try SimulationSetup.load(SimulationParameters(args, config), io.job)
  }

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
    let header = CommandStrategies(io: io).headerSettings(
      zip(strategies, named).map { ($0.0, $0.1, $1) })
    return (
      [RunRecord.Setting("strategies") { $0.strings(names) }] + header,
      RunInputs.plugins(named, io.job)
    )
  }

  /// The strategies named by `--strategy` (default: the config's), each a named configuration
  /// or a built-in with the command-line `--option`s, in the order given, each once: a name the
  /// config does not know, or options a built-in refuses, are usage errors.
  static func resolved(_ args: ParsedArguments, _ config: MenuDeckConfig) throws
    -> [NamedStrategy]
  {
    let pairs = try args.keyValuePairs(InputOptions.option)
    var strategies: [NamedStrategy] = []
    for name in strategyNames(args, config) {
      let resolved: NamedStrategy?
      do {
        resolved = try config.resolveStrategy(name)
      } catch {
        throw UsageError(error.description)
      }
      guard var named = resolved else { throw UsageError(config.unknownStrategy(name)) }
      named.override(with: pairs)
      if named.plugin == nil {
        do {
          _ = try StrategyRegistry.make(named.use, options: named.options)
        } catch {
          throw UsageError(error.description)
        }
      }
      strategies.append(named)
    }
    return strategies
  }

  /// The run's strategies, made (plugins started), with `--fallback` around each.
  static func strategies(
    _ args: ParsedArguments, _ config: MenuDeckConfig, _ io: CLIStreams
  ) throws -> [(String, any RankingStrategy)] {
    let fallback = try Strategies.fallback(args, config)
    return try zip(strategyNames(args, config), resolved(args, config)).map { name, named in
      (name, try Strategies.make(named, fallback: fallback, io))
    }
  }

  /// `SimulateJob.simulate` with the command's diagnostics: a strategy that fell back warns
  /// even with `--quiet`.
  static func simulate(
    _ setup: SimulationSetup, _ strategies: [(String, any RankingStrategy)],
    into stats: inout StatsAccumulator, eventWriter: EventWriter?, context: CommandContext,
    onSwipe: ((_ strategy: Int, _ item: String) -> Void)? = nil
  ) throws -> (sessions: Int, swipes: Int) {
    try SimulateJob.simulate(
      setup, strategies, into: &stats, eventWriter: eventWriter, context.job,
      onFallback: { context.warnAlways($0, code: "fallback") }, onSwipe: onSwipe)
  }
}
