import DeckBase
import DeckCommandLine
import DeckCore
import DeckIO
import DeckJobs

extension IngestRequest {
  /// The request of `menudeck ingest ARGS`: the options and the config, checked before any
  /// output is locked.
  init(_ args: ParsedArguments, _ context: CommandContext) throws {
    let io = context.job
    let given = (args.value(Ingest.into), args.value(Ingest.out))
    guard given.0 == nil || given.1 == nil else {
      throw UsageError(
        "give '--into' (add to a snapshot) or '--out' (write a new one), not both")
    }
    let logs = args.arguments("log")
    guard !logs.isEmpty else { throw UsageError("give at least one swipe log to ingest") }
    let config = try Inputs.loadConfig(args, context.io, catalogOptional: true)
    let zone = try Inputs.timeZone(config)
    if config.bytes.isEmpty {
      context.note(
        "no config file: reading times in UTC with the relative drag rule; give --config "
          + "so that swipe days match the decks' time zone", code: "no_config")
    }
    // Without --into or --out, the logs go into the snapshot that the config's history names.
    let configured = try ConfigSnapshot.find(config, io, intoGiven: given != (nil, nil))
    guard let into = given.0 ?? given.1 ?? configured else {
      throw UsageError(
        "missing '--into <snapshot>' (the snapshot to add the logs to) or '--out <snapshot>' "
          + "(a new snapshot of these logs, '-' for standard output); "
          + (config.bytes.isEmpty
            ? "with --config, the snapshot its \"history\" names is the default"
            : "the config \(config.path) names no snapshot in its \"history\" to add to"))
    }
    let adding = given.1 == nil
    let today = TimeZones.today(in: zone)
    var before = today.adding(days: 1)
    if let text = args.value(Ingest.before) {
      before = try DateArgument.parse(text, option: "--before", today: today)
    }
    if adding, let configured, ConfigSnapshot.sameFile(into, configured, io) {
      try ConfigSnapshot.refuseConfigLogs(logs, config, snapshot: into, io)
    }
    guard !adding || into != "-" else {
      throw UsageError(
        "'--into' needs a snapshot file: ingest adds to it in place ('--out -' writes a new "
          + "snapshot to standard output)")
    }
    let skip = args.flag(InputOptions.skipBadLines)
    let rejectsPath = args.value(InputOptions.rejects)
    try InputOptions.checkRejects(rejectsPath, skipBadLines: skip)
    guard !adding || [nil, .regular].contains(FileSystem.kind(of: Paths.open(into, io))) else {
      throw CommandFailure(
        .usage,
        "'--into \(into)' is not a regular file: ingest reads the snapshot there and replaces "
          + "it; give the path of a snapshot file (it is created when missing)")
    }
    let catalogPath = args.value(InputOptions.catalog) ?? config.catalog
    let settings = RunSettings.readingLogs(
      config, zone: zone, catalogPath: catalogPath ?? "", logs: logs, skipBadLines: skip,
      rejectsPath: rejectsPath)
    self.init(
      into: into, adding: adding, logs: logs, config: config, before: before, settings: settings,
      snapshotKey: adding ? .into : .out, rejectsKey: .rejects)
    intoFromConfig = given == (nil, nil)
    self.catalogPath = catalogPath
    self.rejectsPath = rejectsPath
    jobs = try InputOptions.jobs(args)
    inputs = Self.inputs(self, catalogGiven: args.isGiven(InputOptions.catalog), io)
    wait = try OutputOptions.wait(args)
    dryRun = args.flag(OutputOptions.dryRun)
    base64 = args.flag(SnapshotOptions.base64)
    try self.settings.readLogs(as: args, context.io)
  }

  /// The files no output of `request` may replace. A snapshot of the config's history is the
  /// one input that `--into` may name: it is read and replaced under the lock. Every other file
  /// the config names (its logs too) stays an input.
  static func inputs(_ request: IngestRequest, catalogGiven: Bool, _ io: JobIO)
    -> [RunOutputs.File]
  {
    var inputs =
      request.logs.map { RunOutputs.File("the swipe log", $0) }
      + Inputs.configFiles(request.config).filter { file in
        !(request.adding && file.option == ConfigSnapshot.historyOption
          && ConfigSnapshot.sameFile(file.path, request.into, io)
          && ConfigSnapshot.isSnapshot(file.path, io))
      }
    if catalogGiven, let path = request.catalogPath {
      inputs.append(RunOutputs.File("--catalog", path))
    }
    return inputs
  }
}
