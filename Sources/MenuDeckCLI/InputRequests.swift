import DeckBase
import DeckCommandLine
import DeckCore
import DeckIO
import DeckJobs
import DeckStrategies

/// The inputs of a run as the command line names them: the config, the settings and strategy
/// the options give over it, and the files no output of the run may replace.
extension Inputs {
  /// The files a run reads, each with the option (or config key) that named it: what no output
  /// of the run may replace. Besides the run's own (`settings`), every file the config names.
  static func files(_ args: ParsedArguments, _ settings: RunSettings) -> [RunOutputs.File] {
    func given(_ option: some OptionKey) -> Bool { args.declares(option) && args.isGiven(option) }
    var files: [RunOutputs.File] = []
    if given(InputOptions.catalog) { files.append(.init("--catalog", settings.catalogPath)) }
    if given(InputOptions.users), let users = settings.usersPath {
      files.append(.init("--users", users))
    }
    if given(InputOptions.history) {
      for log in settings.historyPaths { files.append(.init("--history", log)) }
    }
    if given(DeckRun.diners), let list = args.value(DeckRun.diners) {
      files.append(.init("--diners", list))
    }
    return files + configFiles(settings.config)
  }

  /// The config file and every file it names (catalog, users, logs, every plugin), whether
  /// this run reads them or not: a config's files are never an output.
  static func configFiles(_ config: MenuDeckConfig) -> [RunOutputs.File] {
    guard !config.bytes.isEmpty else { return [] }
    var files = [RunOutputs.File("--config", config.path)]
    if let catalog = config.catalog { files.append(.init("the config's \"catalog\"", catalog)) }
    if let users = config.users { files.append(.init("the config's \"users\"", users)) }
    for log in config.history { files.append(.init(ConfigSnapshot.historyOption, log)) }
    for file in config.included { files.append(.init(includeOption, file.path)) }
    for name in config.strategies.keys.sorted() {
      if let plugin = config.strategies[name]?.plugin {
        files.append(.init("the plugin of '\(name)'", plugin))
      }
    }
    return files
  }

  /// How the inputs of a run name the files the config includes.
  static let includeOption = "the config's \"include\""

  static func loadConfig(
    _ args: ParsedArguments, _ io: CLIStreams, catalogOptional: Bool = false
  ) throws -> MenuDeckConfig {
    try loadConfig(
      args.value(InputOptions.config) ?? defaultConfig, given: args.isGiven(InputOptions.config),
      mayBeMissing: catalogOptional
        || (args.declares(InputOptions.catalog) && args.isGiven(InputOptions.catalog)),
      io.job)
  }

  static func settings(
    _ args: ParsedArguments, _ io: CLIStreams, config: MenuDeckConfig, needsStrategy: Bool = true
  ) throws -> RunSettings {
    guard let catalog = args.value(InputOptions.catalog) ?? config.catalog else {
      throw CommandFailure(
        .noInput,
        "no catalog: set \"catalog\" in \(config.path.isEmpty ? "the config" : config.path) or give --catalog FILE"
      )
    }
    let users = args.value(InputOptions.users) ?? config.users
    let history =
      args.isGiven(InputOptions.history) ? args.values(InputOptions.history) : config.history

    let (strategyName, strategy) = try self.strategy(
      args, config: config, needsStrategy: needsStrategy)

    var seed = config.seed
    if args.declares(InputOptions.seed), let s = try args.value(InputOptions.seed) { seed = s }
    let zone = try Inputs.timeZone(config)
    let today = TimeZones.today(in: zone)
    var date = today
    if args.declares(InputOptions.date), let text = args.value(InputOptions.date) {
      date = try DateArgument.parse(text, option: "--date", today: today)
    }
    var format = config.format
    if args.declares(exactly: InputOptions.format.spec), let f = args.value(InputOptions.format) {
      guard let parsed = DeckFormat(rawValue: f) else {
        throw UsageError("unknown format '\(f)'; use one of json, jsonl, csv, table")
      }
      format = parsed
    }
    var rules = config.rules
    if args.declares(InputOptions.size),
      let n = try Limits.value(args, InputOptions.size, in: Limits.deckSize, "cards")
    {
      rules.size = n
    }
    let skip = args.declares(InputOptions.skipBadLines) && args.flag(InputOptions.skipBadLines)
    let rejects = args.declares(InputOptions.rejects) ? args.value(InputOptions.rejects) : nil
    try InputOptions.checkRejects(rejects, skipBadLines: skip)
    var settings = RunSettings(
      config: config, catalogPath: catalog, usersPath: users, historyPaths: history,
      strategyName: strategyName, strategy: strategy, seed: seed, date: date, zone: zone,
      format: format, rules: rules, skipBadLines: skip, rejectsPath: rejects)
    try settings.readLogs(as: args, io)
    return settings
  }

  /// The strategy of a run: `--strategy` (or the config's), resolved in the config, with the
  /// `--option`s over its options, which are checked when `needsStrategy`. A bad name or option
  /// is a usage error when the command line gave it, else the config's data error.
  static func strategy(
    _ args: ParsedArguments, config: MenuDeckConfig, needsStrategy: Bool
  ) throws -> (name: String, strategy: NamedStrategy) {
    var strategyName = config.strategy
    var fromCommandLine = false
    if args.declares(InputOptions.strategy), let s = args.value(InputOptions.strategy) {
      strategyName = s
      fromCommandLine = true
    }
    func fail(_ message: String) -> Error {
      if fromCommandLine { return UsageError(message) }
      return CommandFailure(.dataError, "\(config.path): \(message)")
    }
    let resolved: NamedStrategy?
    do {
      resolved = try config.resolveStrategy(strategyName)
    } catch {
      throw fail(error.description)
    }
    guard var strategy = resolved else { throw fail(config.unknownStrategy(strategyName)) }
    if args.declares(InputOptions.option) {
      strategy.override(with: try args.keyValuePairs(InputOptions.option))
    }
    if needsStrategy, let description = StrategyRegistry.description(of: strategy.use) {
      do {
        _ = try StrategyOptions(raw: strategy.options, for: description)
      } catch {
        if fromCommandLine
          || (args.declares(InputOptions.option) && !args.values(InputOptions.option).isEmpty)
        {
          throw UsageError(error.description)
        }
        throw CommandFailure(.dataError, "\(config.path): \(error)")
      }
    }
    return (strategyName, strategy)
  }
}

extension RunSettings {
  /// Takes the options that say how logs (and the other CSV inputs) are read (`--columns`,
  /// `--right`, `--left`, `--csv-header`, `--delimiter`) from the command line, over the config,
  /// and what to tell to run instead of a compressed log among `historyPaths`.
  mutating func readLogs(as args: ParsedArguments, _ io: CLIStreams) throws {
    delimiters = try InputOptions.delimiters(args, config)
    columns = try InputOptions.columnMapping(args, config: config)
    csvHeader = try InputOptions.csvHeader(args, self)
    compressedLogAdvice = CompressedLogs.advice(args, logs: historyPaths, io)
  }
}
