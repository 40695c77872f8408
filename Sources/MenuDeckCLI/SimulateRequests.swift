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
    let names = SimulationOptions.strategyNames(args, config)
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
    if let users = args.value(SimulationOptions.users), !SimulationOptions.isCount(users) {
      inputs.append(.init("--users", users))
    }
    let plan = try OutputPlan(args, inputs: inputs)
    let parameters = try SimulationParameters(args, config)
    let fallback = try Strategies.fallback(args, config)
    self.init(
      parameters: parameters, names: names,
      strategies: try Strategies.resolve(
        names, options: try args.keyValuePairs(InputOptions.option), config),
      out: RequestedOutput(.out, args.value(SimulationOptions.out)),
      events: RequestedOutput(.events, events), plan: plan, run: RunRecord(context, inputs: []))
    self.fallback = fallback
    format = StatsFormat(rawValue: args.value(SimulationOptions.format) ?? "table") ?? .table
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
    } else if SimulationOptions.isCount(usersText) {
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

/// The strategies a simulation or comparison names on the command line.
extension SimulationOptions {
  /// Whether a `--users` value is a count (digits, or an integer Int reads) rather than a file.
  static func isCount(_ text: String) -> Bool {
    Int(text) != nil || (!text.isEmpty && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 })
  }

  /// The names of the strategies a run uses, in order, each once: `--strategy` values, else
  /// the config's.
  static func strategyNames(_ args: ParsedArguments, _ config: MenuDeckConfig) -> [String] {
    var names = args.values(strategies)
    if names.isEmpty { names = [config.strategy] }
    var seen = Set<String>()
    return names.filter { seen.insert($0).inserted }
  }

  /// The configurations of the run's strategies the config knows, with the command line's
  /// `--option`s, in order (unknown names are `Strategies.resolve`'s error, later).
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
}
