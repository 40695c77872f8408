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
    let logs = InputOptions.logs(args)
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
    let jobs = try InputOptions.jobs(args)
    let plan = try OutputPlan(
      args,
      inputs: Self.inputs(
        logs, config, addingTo: adding ? into : nil,
        catalog: args.isGiven(InputOptions.catalog) ? catalogPath : nil, io))
    self.init(
      into: RequestedOutput(adding ? .into : .out, into), adding: adding, before: before,
      settings: settings, rejects: .rejects, plan: plan)
    intoFromConfig = given == (nil, nil)
    self.catalogPath = catalogPath
    self.jobs = jobs
    base64 = args.flag(SnapshotOptions.base64)
    try self.settings.readLogs(as: args, context.io)
  }

  /// The files no output of the run may replace: the logs, `--catalog`'s, and every file the
  /// config names (its logs too) but a snapshot of its history that the run adds to (`into`),
  /// which is read and replaced under the lock.
  static func inputs(
    _ logs: [String], _ config: MenuDeckConfig, addingTo into: String?, catalog: String?,
    _ io: JobIO
  ) -> [RunOutputs.File] {
    var inputs =
      logs.map { RunOutputs.File("the swipe log", $0) }
      + Inputs.configFiles(config).filter { file in
        guard let into else { return true }
        return
          !(file.option == ConfigSnapshot.historyOption
          && ConfigSnapshot.sameFile(file.path, into, io)
          && ConfigSnapshot.isSnapshot(file.path, io))
      }
    if let catalog { inputs.append(RunOutputs.File("--catalog", catalog)) }
    return inputs
  }
}
