import DeckCommandLine
import DeckIO
import DeckJobs
import DeckPlay

extension PlayRequest {
  /// The request of `menudeck play ARGS`: the log checked by its name, then (before anything is
  /// read: without a terminal there is nothing to play) the terminal, then the config with the
  /// options over it.
  init(_ args: ParsedArguments, _ context: CommandContext) throws {
    var log: (path: String, format: EventFormat)?
    if let path = args.value(PlayRun.log) {
      guard !path.isEmpty, path != "-" else {
        throw UsageError("'--log' needs a file; standard output is the screen")
      }
      guard let format = EventAppender.format(path: path) else {
        throw UsageError(
          "'--log \(path)': give the log a .jsonl or .ndjson (JSON Lines) or .csv name; the "
            + "name says its format")
      }
      log = (path, format)
    }
    _ = try PlayRun.terminal(context.io)
    let config = try Inputs.loadConfig(args, context.io)
    let settings = try Inputs.settings(args, context.io, config: config)
    self.init(settings: settings, version: menudeckVersion)
    user = args.value(PlayRun.user)
    fallback = args.value(InputOptions.fallback)
    self.log = log
    inputFiles = Inputs.files(args, settings)
  }
}

extension PlayOptions {
  /// How the screen plays, from `--mode`, `--carousel`, `--labels`, the config and `NO_COLOR`.
  init(_ args: ParsedArguments, _ request: PlayRequest, diner: String, _ io: CLIStreams) {
    let config = request.settings.config
    self.init(
      mode: args.value(PlayRun.mode) == "all" ? .all : .pickOne, rule: config.dragRule,
      cardWidth: config.simulation.cardWidth,
      labels: PlayLabels(rawValue: args.value(PlayRun.labels) ?? "en") ?? .en,
      color: (io.environment["NO_COLOR"] ?? "").isEmpty, carousel: args.flag(PlayRun.carousel),
      title: "\(diner) · \(request.settings.date)")
  }
}
