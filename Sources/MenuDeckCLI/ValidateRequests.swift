import DeckCommandLine
import DeckJobs

extension ValidateRequest {
  /// The request of `menudeck validate ARGS`: the config and the settings over it, each loaded
  /// or with what failed (a finding of the report). A wrong command line is a usage error.
  init(_ args: ParsedArguments, _ context: CommandContext) throws {
    let config: Result<MenuDeckConfig, any Error>
    do {
      config = .success(try Inputs.loadConfig(args, context.io))
    } catch {
      config = .failure(error)
    }
    let settings: Result<RunSettings, any Error>
    do {
      settings = .success(
        try Inputs.settings(args, context.io, config: (try? config.get()) ?? MenuDeckConfig()))
    } catch let e as UsageError {
      throw e
    } catch let e as JobError where e.kind == .usage {
      throw e
    } catch {
      settings = .failure(error)
    }
    self.init(
      config: config, configGiven: args.value(InputOptions.config) ?? "", settings: settings)
    checksDate = args.isGiven(InputOptions.date)
    strict = args.flag(Validation.strict)
    json = args.value(Validation.format) == "json"
  }
}
