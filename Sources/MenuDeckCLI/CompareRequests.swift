import DeckCommandLine
import DeckCore
import DeckEvaluation
import DeckIO
import DeckJobs
import DeckReports
import DeckStrategies

extension CompareRequest {
  /// The request of `menudeck compare ARGS`: the config, the format and resampling, the
  /// outputs, and what is compared on (the simulation, or the logs and how they are split and
  /// evaluated).
  init(_ args: ParsedArguments, _ context: CommandContext) throws {
    let io = context.io
    let config = try Inputs.loadConfig(args, io)
    let format = ComparisonFormat(rawValue: args.value(CompareOptions.format) ?? "table") ?? .table
    let resampling = try Self.resampling(args, config)
    let logs = InputOptions.logs(args)
    if let path = args.value(CompareOptions.perDiner), path != "-",
      !path.lowercased().hasSuffix(".csv")
    {
      throw UsageError("'--per-diner \(path)': the per-diner values are CSV; give a .csv name")
    }
    var inputs = logs.map { RunOutputs.File("the swipe log", $0) } + Inputs.configFiles(config)
    if let catalog = args.value(InputOptions.catalog) { inputs.append(.init("--catalog", catalog)) }
    if let users = args.value(CompareOptions.users), !SimulationOptions.isCount(users) {
      inputs.append(.init("--users", users))
    }
    if !logs.isEmpty {
      for value in args.values(CompareOptions.run) {
        inputs.append(.init("--run", CompareLogs.runArgument(value).path))
      }
    }
    let plan = try OutputPlan(args, inputs: inputs)
    let mode: Mode
    if logs.isEmpty {
      for option in CompareOptions.logsOnly where args.isGiven(option) {
        throw UsageError(
          "'--\(option.spec.name)' applies to logs; give the swipe logs to evaluate on")
      }
      mode = .simulation(try SimulationParameters(args, config))
    } else {
      for option in CompareOptions.simulationOnly where args.isGiven(option) {
        throw UsageError(
          "'--\(option.spec.name)' applies to simulations; logs are evaluated with --split")
      }
      mode = .logs(try CompareLogsRequest(args, config, logs, io))
    }
    var given = Set<String>()
    for name in args.values(CompareOptions.strategies) where !given.insert(name).inserted {
      throw UsageError("the strategy '\(name)' is given twice; give each strategy once")
    }
    let names = SimulationOptions.strategyNames(args, config)
    self.init(
      config: config, mode: mode, names: names,
      strategies: try Strategies.resolve(
        names, options: try args.keyValuePairs(InputOptions.option), config),
      out: RequestedOutput(.out, args.value(CompareOptions.out)),
      report: RequestedOutput(.report, args.value(CompareOptions.report)),
      perDiner: RequestedOutput(.perDiner, args.value(CompareOptions.perDiner)), trec: .trec,
      plan: plan, run: RunRecord(context, inputs: []))
    fallback = try Strategies.fallback(args, config)
    self.format = format
    self.resampling = resampling
    permutationsGiven = args.isGiven(CompareOptions.permutations)
    baseline = args.value(CompareOptions.baseline)
    newDishDays = try Limits.value(
      args, SimulationOptions.newDishDays, in: Limits.days, "days")
  }

  /// `--resamples`, `--permutations`, `--level` and the seed of the bootstrap. The
  /// permutations are `--permutations` when given; else the job chooses them from the report's
  /// family once the per-diner tables are known.
  static func resampling(_ args: ParsedArguments, _ config: MenuDeckConfig) throws
    -> ResamplingOptions
  {
    var resampling = ResamplingOptions()
    if let n = try Limits.value(args, CompareOptions.resamples, in: Limits.resamples) {
      resampling.resamples = n
    }
    if let n = try Limits.value(args, CompareOptions.permutations, in: Limits.permutations) {
      resampling.permutations = n
    }
    if let level = try Limits.value(
      args, CompareOptions.level, give: "a level above 0 and below 1 (e.g. 0.95)",
      accepts: { $0 > 0 && $0 < 1 })
    {
      resampling.level = level
    }
    resampling.seed = try args.value(InputOptions.seed) ?? config.seed
    return resampling
  }
}
