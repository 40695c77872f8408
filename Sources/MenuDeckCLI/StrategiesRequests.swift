import DeckCommandLine
import DeckJobs
import DeckStrategies

extension StrategiesRequest {
  /// The request of `menudeck strategies ARGS`: the config named by `--config`, or the default
  /// one when it is there (without it, the built-ins only).
  init(_ args: ParsedArguments, _ context: CommandContext) throws {
    let format = Format(rawValue: args.value(StrategiesOptions.format)!)!
    do {
      self.init(config: try Inputs.loadConfig(args, context.io), format: format)
    } catch let failure as JobError
      where failure.kind == .noInput && !args.isGiven(InputOptions.config)
    {
      // No config here: list the built-ins only.
      self.init(config: nil, format: format)
    }
  }
}

/// DeckJobs' `Strategies` from the command line: `--fallback`.
extension Strategies {
  /// The strategy `--fallback` names, nil without the option; a name the config does not know
  /// is a usage error.
  static func fallback(_ args: ParsedArguments, _ config: MenuDeckConfig) throws -> NamedStrategy? {
    try fallback(named: args.value(InputOptions.fallback), config)
  }
}
