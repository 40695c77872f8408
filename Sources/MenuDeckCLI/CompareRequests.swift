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
    let logs = args.arguments("log")
    if let path = args.value(CompareOptions.perDiner), path != "-",
      !path.lowercased().hasSuffix(".csv")
    {
      throw UsageError("'--per-diner \(path)': the per-diner values are CSV; give a .csv name")
    }
    var inputs =
      logs.map { ("the swipe log", $0) } + Inputs.configFiles(config).map { ($0.option, $0.path) }
    if let catalog = args.value(InputOptions.catalog) { inputs.append(("--catalog", catalog)) }
    if let users = args.value(CompareOptions.users), !SimulationOptions.isCount(users) {
      inputs.append(("--users", users))
    }
    if !logs.isEmpty {
      for value in args.values(CompareOptions.run) {
        inputs.append(("--run", CompareLogs.runArgument(value).path))
      }
    }
    let wait = try OutputOptions.wait(args)
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
      fallback: try Strategies.fallback(args, config),
      format: format, resampling: resampling,
      permutationsGiven: args.isGiven(CompareOptions.permutations),
      baseline: args.value(CompareOptions.baseline),
      out: Output(.out, args.value(CompareOptions.out)),
      report: Output(.report, args.value(CompareOptions.report)),
      perDiner: Output(.perDiner, args.value(CompareOptions.perDiner)),
      trec: Output(.trec, logs.isEmpty ? nil : args.value(CompareOptions.trec)), inputs: inputs,
      wait: wait, run: RunRecord(context, inputs: []))
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
