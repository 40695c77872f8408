import DeckCommandLine
import DeckEvaluation
import DeckIO
import DeckJobs
import DeckReports

extension StatsRequest {
  /// The request of `menudeck stats ARGS`: the config, the catalog and the logs it names, the
  /// deck size and repeat window over the config's, how the logs are read, the format.
  init(_ args: ParsedArguments, _ context: CommandContext) throws {
    let io = context.io
    let config = try Inputs.loadConfig(args, io)
    guard let catalogPath = args.value(InputOptions.catalog) ?? config.catalog else {
      throw CommandFailure(
        .noInput, "no catalog: set \"catalog\" in the config or give --catalog FILE")
    }
    var logs = InputOptions.logs(args)
    if logs.isEmpty { logs = config.history }
    guard !logs.isEmpty else { throw UsageError("give the swipe logs to summarise") }
    var size = config.rules.size
    if let n = try Limits.value(args, StatsCommandOptions.size, in: Limits.deckSize, "cards") {
      size = n
    }
    let window = try Limits.value(
      args, StatsCommandOptions.repeatWindow, in: Limits.days, "days")
    var settings = RunSettings.readingLogs(
      config, zone: try Inputs.timeZone(config), catalogPath: catalogPath, logs: logs,
      skipBadLines: args.flag(InputOptions.skipBadLines))
    try settings.readLogs(as: args, io)
    let format = StatsFormat(rawValue: args.value(StatsCommandOptions.format)!)!
    // Only the JSON document's run header and --verbose show the logs' hashes.
    settings.hashesHistory = format == .json || context.isVerbose
    self.init(
      settings: settings,
      options: StatsOptions(
        deckSize: size, repeatWindowDays: window,
        newDishDays: try Limits.value(
          args, SimulationOptions.newDishDays, in: Limits.days, "days")),
      format: format,
      jobs: try InputOptions.jobs(args))
  }
}
