import DeckBase
import DeckCommandLine
import DeckCore
import DeckIO
import DeckJobs
import Foundation

let ingestCommand = CommandSpec(
  name: "ingest",
  abstract: "Aggregate swipe logs into a history snapshot.",
  discussion: """
    Reads swipe logs (JSON Lines or CSV, the same reader as 'deck') and writes their aggregates \
    to a snapshot file, which 'deck --history' reads instead of the logs, with identical decks. \
    With --into, the logs are added to an existing snapshot (created when missing): a nightly \
    job ingests yesterday's log. Without --into or --out they are added to the snapshot that \
    the config's history names, so that one config serves the nightly ingest and the decks \
    built from it; the config's logs beside it are left alone (deck reads them as they are). \
    With --out, they make a new snapshot of their own, written to \
    a file or to standard output ('-'), for example one per partition of a log, added up \
    afterwards by 'merge'; --base64 writes it as one line of text, for pipes that carry lines.

    Each log is identified by the SHA-256 of its content, recorded in the snapshot: a log that \
    is already in it is skipped with a note, so ingesting the same file twice never counts it \
    twice. A log whose file name is that of a log in the snapshot but whose content differs (a \
    day delivered again: in part before, corrected, with converted line ends) is refused (exit \
    65). The snapshot is written atomically: a killed ingest leaves the previous one intact.

    Swipes dated on or after --before are not lost: the snapshot keeps them, waiting for their \
    day, and decks for a later date count them; the first ingest whose --before passes them \
    adds them up. With a catalog (the config's, or --catalog), swipes of dishes it does not \
    have are warned about with the first one's file and line.

    The snapshot is locked from before it is read until the new one replaces it, so ingests \
    that overlap (two cron jobs, a retry) add up: the second fails at once with exit 75, or \
    waits with --wait SECONDS and then adds its logs to what the first wrote.

    Examples:
      menudeck ingest Data/swipes.jsonl --into history.snap
      menudeck ingest logs/2026-11-29.jsonl --into history.snap
      tail -n +2 part.csv | menudeck ingest --csv-header user,item,swipe,at --out - - > p.snap
    """,
  options: [
    InputOptions.config.spec, Ingest.into.spec, Ingest.out.spec, SnapshotOptions.base64.spec,
    Ingest.before.spec, Ingest.catalog.spec,
    InputOptions.skipBadLines.spec, InputOptions.rejects.spec, OutputOptions.wait.spec,
    OutputOptions.dryRun.spec,
    InputOptions.jobs.with(
      help:
        "Threads that read each log file, in parts (default: the cores available); the snapshot "
        + "is the same for every number."
    ).spec,
  ] + InputOptions.mapping + [InputOptions.delimiter.spec],
  arguments: [
    CommandArgument(
      "log", help: "Swipe logs to ingest ('-' reads standard input).", isRepeating: true)
  ],
  run: { args, context in try Ingest.run(args, context) })

let mergeCommand = CommandSpec(
  name: "merge",
  abstract: "Merge history snapshots into one.",
  discussion: """
    Adds up snapshots made from different logs (for example one per shard or per machine). \
    Merging is associative and commutative: any grouping and order gives the same bytes. A log \
    found in two of the snapshots is refused, since it would be counted twice.

    '-' reads snapshots from standard input, any number one after the other, binary or text \
    (as 'ingest --out -' and 'merge --out -' write them); so does a file that holds several \
    (cat a.snap b.snap > c.snap).

    Examples:
      menudeck merge shard-*.snap --out history.snap
      cat part-*.snap | menudeck merge - --out history.snap
    """,
  options: [Merge.out.spec, SnapshotOptions.base64.spec, OutputOptions.wait.spec],
  arguments: [
    CommandArgument(
      "snapshot", help: "Snapshots to merge ('-' reads them from standard input).",
      isRepeating: true)
  ],
  run: { args, context in try Merge.run(args, context) })

/// Options of the commands that write snapshots.
enum SnapshotOptions {
  static let base64 = Flag(
    "base64",
    help:
      "Write the snapshot as one line of text (base64), for pipes that carry lines such as "
      + "Spark's rdd.pipe; every reader takes both forms.")

  /// The bytes of `snapshot` in the form the command line asks for.
  static func encode(_ snapshot: HistorySnapshot, _ args: ParsedArguments) -> [UInt8] {
    args.flag(base64) ? SnapshotFile.encodeText(snapshot) : SnapshotFile.encode(snapshot)
  }
}

enum Ingest {
  static let into = Option<String>(
    "into", valueName: "snapshot",
    help:
      "The snapshot to add the logs to; created when it does not exist (default: the snapshot "
      + "the config's history names).")
  static let out = Option<String>(
    "out", valueName: "snapshot",
    help:
      "Write a new snapshot of these logs alone instead (atomically; '-' writes standard "
      + "output).")
  static let before = Option<String>(
    "before", valueName: "date",
    help:
      "Add up only the swipes dated before this day: \(DateArgument.forms) (default: tomorrow). "
      + "Later swipes wait in the snapshot for their day: decks count them from the day after "
      + "theirs.")
  static let catalog = InputOptions.catalog.with(
    help:
      "Check the logs' dishes against this catalog (default: the config's): swipes of dishes it "
      + "does not have are kept, and warned about with the first one's line.")

  /// What the command line and the config ask `ingest` for.
  struct Request {
    /// The snapshot written: `--into`'s, or `--out`'s.
    var into: String
    /// Whether the logs are added to what `into` holds (`--into`), or make a new snapshot.
    var adding: Bool
    /// Whether `into` is the config's snapshot because no option named one.
    var intoFromConfig: Bool
    /// `into` as messages name it.
    var shown: String { into == "-" ? "standard output" : into }
    var logs: [String]
    var config: MenuDeckConfig
    var before: DeckDate
    /// The catalog the logs' dishes are checked against (`--catalog`, or the config's), and its
    /// path as given; nil when neither names one.
    var catalog: Catalog?
    var catalogPath: String?
    var rejectsPath: String?
    /// How the logs are read; the column mapping is added once the outputs are locked.
    var settings: RunSettings
    /// Threads that read a log file (`--jobs`).
    var jobs: Int
  }

  /// What `ingest` has added so far.
  struct Added {
    var snapshot: HistorySnapshot
    var added = 0
    var skipped = 0
    var events = 0
    /// The swipes of the logs added by this run that wait for their day (on or after
    /// `--before`), pending in the snapshot.
    var pending = 0
    /// Content hashes of the logs added by this run.
    var seen = Set<String>()

    func has(_ hash: String) -> Bool { snapshot.contains(sha256: hash) || seen.contains(hash) }
  }

  static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let io = context.io
    var request = try self.request(args, context)
    let into = request.into
    // A snapshot of the config's history is the one input that `--into` may name: it is read
    // and replaced under the lock. Every other file the config names (its logs too) stays an
    // input that no output may replace.
    var inputs =
      request.logs.map { RunOutputs.File("the swipe log", $0) }
      + Inputs.configFiles(request.config).filter { file in
        !(request.adding && file.option == ConfigSnapshot.historyOption
          && ConfigSnapshot.sameFile(file.path, into, io)
          && ConfigSnapshot.isSnapshot(file.path, io))
      }
    if args.isGiven(InputOptions.catalog), let path = request.catalogPath {
      inputs.append(RunOutputs.File("--catalog", path))
    }
    // The snapshot is read and replaced under its lock: the lock is taken before it is read.
    let key: OutputKey = request.adding ? .into : .out
    let outputs = try RunOutputs(
      [(key, into), (.rejects, request.rejectsPath)], inputs: inputs,
      origins: request.intoFromConfig
        ? [key: "the snapshot that the \"history\" of \(request.config.path) names"] : [:],
      wait: OutputOptions.wait(args), dryRun: args.flag(OutputOptions.dryRun), io: context.job)
    defer { outputs.abort() }

    let intoOpened = Paths.open(into, io.job)
    let stateRead = request.adding ? FileState(path: intoOpened) : nil
    var state = Added(
      snapshot: stateRead == nil
        ? .empty : try SnapshotFile.read(path: intoOpened, displayName: into))
    try ConfigSnapshot.checkReadings(state.snapshot, request, io)
    var rejects: RejectsWriter?
    if let path = request.rejectsPath {
      rejects = InputOptions.rejectsWriter(path, output: try outputs.output(.rejects))
    }
    try request.settings.readLogs(as: args, io)
    let started = monotonicSeconds()
    try Inputs.counting("ingest", request.logs, request.settings, io.job) { settings in
      var counted = request
      counted.settings = settings
      for log in request.logs {
        try add(log, counted, to: &state, rejects: rejects, context)
      }
    }
    context.info(
      "read \(plural(request.logs.count, "log")) on \(plural(request.jobs, "thread")) in "
        + formatSeconds(monotonicSeconds() - started), code: "timing")
    try rejects?.finish()
    // The swipes that waited for a day this run's limit passes are added up now: the snapshot
    // is the one that reading every log with this limit gives.
    let waited = state.snapshot.pending.count
    do {
      state.snapshot = try state.snapshot.counting(before: request.before)
    } catch {
      throw CommandFailure(.dataError, "\(into): \(error)")
    }
    let counted = waited - state.snapshot.pending.count
    if state.added > 0 || counted > 0 || stateRead == nil {
      try outputs.write(SnapshotOptions.encode(state.snapshot, args), to: key)
    }
    try outputs.commit {
      // Under the lock no menudeck run can have written the snapshot; something else did.
      guard !request.adding || FileState(path: intoOpened) == stateRead else {
        throw CommandFailure(
          .busy,
          "\(into): changed on disk while this run read it (written by something that does not "
            + "take menudeck's lock?); nothing was written. Run the ingest again")
      }
    }
    context.note(
      summary(state, counted: counted, request, dryRun: outputs.dryRun), code: "summary")
    return .success
  }

  /// The run's summary: the logs and swipes it added (and those that wait for their day), and
  /// what the snapshot holds.
  static func summary(_ state: Added, counted: Int, _ request: Request, dryRun: Bool) -> String {
    let snapshot = state.snapshot
    var text =
      (dryRun ? "dry run: would ingest " : "ingested ") + "\(plural(state.added, "log")) ("
      + plural(state.events, "swipe")
      + (state.pending > 0
        ? ": \(state.events - state.pending) counted, \(state.pending) waiting for "
          + (state.pending == 1 ? "its" : "their") + " day" : "") + ")"
    if counted > 0 {
      text +=
        (dryRun ? ", would count " : ", counted ") + plural(counted, "swipe") + " that waited for "
        + (counted == 1 ? "its" : "their") + " day"
    }
    if state.skipped > 0 { text += ", skipped \(state.skipped) already ingested" }
    let waiting = snapshot.pending.count
    let total = Int(snapshot.events)
    text +=
      "; \(request.shown) \(dryRun ? "would hold" : "holds") "
      + "\(plural(snapshot.sources.count, "log")), \(plural(total, "swipe"))"
      + (waiting > 0
        ? " (\(total - waiting) counted, \(waiting) waiting for "
          + (waiting == 1 ? "its" : "their") + " day)" : "")
      + ", \(plural(snapshot.dinerCount, "diner"))"
    return text
  }

  /// The options and the config, checked before any output is locked.
  static func request(_ args: ParsedArguments, _ context: CommandContext) throws -> Request {
    let io = context.io
    let given = (args.value(Ingest.into), args.value(Ingest.out))
    guard given.0 == nil || given.1 == nil else {
      throw UsageError(
        "give '--into' (add to a snapshot) or '--out' (write a new one), not both")
    }
    let logs = args.arguments("log")
    guard !logs.isEmpty else { throw UsageError("give at least one swipe log to ingest") }
    let config = try Inputs.loadConfig(args, io, catalogOptional: true)
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
    guard !adding || [nil, .regular].contains(FileSystem.kind(of: Paths.open(into, io.job))) else {
      throw CommandFailure(
        .usage,
        "'--into \(into)' is not a regular file: ingest reads the snapshot there and replaces "
          + "it; give the path of a snapshot file (it is created when missing)")
    }
    let catalogPath = args.value(InputOptions.catalog) ?? config.catalog
    var catalog: Catalog?
    if let catalogPath {
      catalog = try Inputs.loadCatalog(
        catalogPath, io.job, delimiter: try InputOptions.delimiters(args, config).catalog
      ).0
    }
    let settings = RunSettings.readingLogs(
      config, zone: zone, catalogPath: catalogPath ?? "", logs: logs, skipBadLines: skip,
      rejectsPath: rejectsPath)
    return Request(
      into: into, adding: adding, intoFromConfig: given == (nil, nil), logs: logs,
      config: config, before: before, catalog: catalog, catalogPath: catalogPath,
      rejectsPath: rejectsPath, settings: settings, jobs: try InputOptions.jobs(args))
  }

  /// Reads one log into the snapshot, unless the snapshot (or this run) has its content already.
  static func add(
    _ log: String, _ request: Request, to added: inout Added, rejects: RejectsWriter?,
    _ context: CommandContext
  ) throws {
    let io = context.io
    // Standard input, a pipe or a FIFO can be read once only: it is hashed as it is read, and
    // dropped at the end when the snapshot has it already.
    let once = log == "-" || Inputs.isReadOnce(log, io.job)
    if !once, request.jobs > 1, Inputs.canReadInParts(log, io.job) {
      return try addInParts(log, request, to: &added, rejects: rejects, context)
    }
    let (hash, size) =
      once
      ? (nil, 0)
      : try Paths.using(log, io.job) { opened throws(DeckIOError) in
        try Inputs.fileSHA256(opened)
      }
    if let hash, added.has(hash) {
      context.note(
        "\(log) is already in \(request.shown) (same content); skipped", code: "already_ingested",
        location: .wholeFile(log))
      added.skipped += 1
      // Its bytes are done with, for the progress line.
      request.settings.progress?.add(size)
      return
    }
    var sink = SnapshotIngest(cutoff: request.before, catalog: request.catalog)
    // The rejects of a log read once wait until it is known to be new.
    var held: [EventReject] = []
    let stats: EventReadStats
    var contentHash = hash
    if once {
      let handler: ((EventReject) throws(DeckIOError) -> Void)? =
        rejects == nil ? nil : { reject throws(DeckIOError) in held.append(reject) }
      var digest = SHA256()
      stats = try Inputs.readOnce(
        log, request.settings, io.job, into: &sink, sha256: &digest, onReject: handler)
      contentHash = digest.hexDigest()
      if added.has(contentHash!) {
        context.note(
          "\(log == "-" ? "standard input" : log) is already in \(request.shown) (same "
            + "content); skipped", code: "already_ingested",
          location: .wholeFile(log == "-" ? "<stdin>" : log))
        added.skipped += 1
        return
      }
      for reject in held { try rejects?.write(reject) }
    } else {
      var handler: ((EventReject) throws(DeckIOError) -> Void)?
      if let w = rejects {
        handler = { reject throws(DeckIOError) in try w.write(reject) }
      }
      stats = try Inputs.readLogs([log], request.settings, io.job, into: &sink, onReject: handler)
    }
    let source = HistorySnapshot.Source(
      sha256: contentHash!, path: log, bytes: Int64(once ? stats.bytes : size),
      lines: Int64(stats.lines), events: Int64(stats.events))
    try record(
      sink.builder.build(), stats, source, firstPendingLine: sink.firstPendingLine,
      byName: !once, log, request, to: &added, context)
  }

  /// Reads a big regular log in parts on `request.jobs` threads while its content hash is
  /// computed on another: a log that the snapshot has already is dropped afterwards (its
  /// rejects, held until then, with it), as if it had been skipped before reading.
  static func addInParts(
    _ log: String, _ request: Request, to added: inout Added, rejects: RejectsWriter?,
    _ context: CommandContext
  ) throws {
    let io = context.io
    let opened = Paths.open(log, io.job)
    let hashing = Parallel.background { () -> Result<(String, Int), DeckIOError> in
      do throws(DeckIOError) {
        return .success(try Inputs.fileSHA256(opened))
      } catch {
        return .failure(error.naming(opened, as: log))
      }
    }
    let held = HeldRejects()
    let read = Result { () throws -> EventReader.SnapshotRead in
      try Inputs.readLogInParts(
        log, request.settings, io.job, cutoff: request.before, catalog: request.catalog,
        jobs: request.jobs,
        onReject: rejects == nil ? nil : { reject throws(DeckIOError) in held.items.append(reject) }
      )
    }
    // A log the snapshot has already is skipped whatever its read gave, as before reading.
    let (hash, size) = try hashing.wait().get()
    if added.has(hash) {
      context.note(
        "\(log) is already in \(request.shown) (same content); skipped", code: "already_ingested",
        location: .wholeFile(log))
      added.skipped += 1
      return
    }
    let parts = try read.get()
    for reject in held.items { try rejects?.write(reject) }
    let stats = parts.stats
    let source = HistorySnapshot.Source(
      sha256: hash, path: log, bytes: Int64(size), lines: Int64(stats.lines),
      events: Int64(stats.events))
    try record(
      parts.snapshot, stats, source, firstPendingLine: parts.firstPendingLine, byName: true, log,
      request, to: &added, context)
  }

  /// Rejects held until their log is known to be new.
  final class HeldRejects: @unchecked Sendable {
    var items: [EventReject] = []
  }

  /// Adds the snapshot of one log (`read`, without its source) to what this run added, with the
  /// notes and warnings of its read. `byName`: the log is a file whose name a delivery gives
  /// (not standard input or a pipe), checked against the names of the logs the snapshot holds.
  static func record(
    _ read: HistorySnapshot, _ stats: EventReadStats, _ source: HistorySnapshot.Source,
    firstPendingLine: Int, byName: Bool, _ log: String, _ request: Request,
    to added: inout Added, _ context: CommandContext
  ) throws {
    // The event reader's name for standard input, as in its errors.
    let name = log == "-" ? "<stdin>" : log
    let file = SourceLocation.wholeFile(name)
    var source = source
    // The days of its swipes, added up or pending (in order of day).
    let firsts = [read.firstDay, read.pending.first?.day].compactMap { $0 }
    let lasts = [read.lastDay, read.pending.last?.day].compactMap { $0 }
    source.firstDay = firsts.min()
    source.lastDay = lasts.max()
    if byName { try refuseAnotherLogOfTheName(source, log, request, in: added.snapshot) }
    context.info(
      "history \(log == "-" ? "standard input" : log): \(plural(Int(source.bytes), "byte")), "
        + "\(plural(stats.lines, "line")), sha256 \(source.sha256)", code: "input", location: file)
    var read = read
    read.hesitations = Int64(stats.hesitations)
    read.sources = [source]
    added.snapshot = try merge(read, into: added.snapshot, request)
    let pending = read.pending.count
    if pending > 0 {
      let one = pending == 1
      context.note(
        "\(plural(pending, "swipe")) dated on or after \(request.before)"
          + (one || firstPendingLine == 0 ? "" : " (the first on this line)")
          + (one
            ? " waits in the snapshot for its day: decks count it from the day after, and an "
              + "ingest with a later --before adds it up"
            : " wait in the snapshot for their day: decks count each from the day after its "
              + "own, and an ingest with a later --before adds them up"),
        code: "pending_swipes",
        location: firstPendingLine > 0 ? SourceLocation(file: name, line: firstPendingLine) : file)
    }
    if let (message, location) = unknownItems(stats, name, request) {
      context.warn(message, code: "unknown_items", location: location)
    }
    if let skipped = stats.files.first, skipped.skippedLines > 0 {
      context.warn(
        "skipped \(plural(skipped.skippedLines, "malformed event line"))"
          + (skipped.skippedLines > 1 ? ", the first on this line" : ""), code: "skipped_lines",
        location: SourceLocation(file: name, line: skipped.firstSkippedLine))
    }
    added.seen.insert(source.sha256)
    added.added += 1
    added.events += stats.events
    added.pending += pending
  }

  /// The warning about the swipes of one log that name dishes the catalog does not have, at
  /// the first one's line; nil when there are none (or no catalog to check against).
  static func unknownItems(_ stats: EventReadStats, _ name: String, _ request: Request) -> (
    String, SourceLocation
  )? {
    guard let file = stats.files.first, file.unknownItemEvents > 0,
      let catalog = request.catalogPath
    else { return nil }
    let count = file.unknownItemEvents
    let message =
      "\(plural(count, "swipe")) naming dishes that are not in the catalog \(catalog) (e.g. "
      + stats.unknownItemIDs.map { "'\($0)'" }.joined(separator: ", ") + ")"
      + (count > 1 ? ", the first on this line" : "")
      + "; the snapshot keeps "
      + (count == 1 ? "it, and decks leave it out" : "them, and decks leave them out")
      + " until the catalog has the dish: add the dishes to the catalog, or correct the ids in "
      + "the log and rebuild the snapshot from the logs"
    return (
      message,
      file.firstUnknownItemLine > 0
        ? SourceLocation(file: name, line: file.firstUnknownItemLine) : .wholeFile(name)
    )
  }

  /// Refuses a log whose file name is that of a log the snapshot holds with other content: a
  /// day delivered again (in part before, corrected, with its line ends converted) would count
  /// the swipes of both.
  static func refuseAnotherLogOfTheName(
    _ source: HistorySnapshot.Source, _ log: String, _ request: Request,
    in snapshot: HistorySnapshot
  ) throws {
    let name = source.fileName
    guard
      let held = snapshot.sources.first(where: {
        $0.path != "-" && $0.fileName == name && $0.sha256 != source.sha256
      })
    else { return }
    throw CommandFailure(
      .dataError,
      "\(log): \(request.shown) already holds a log named '\(name)' with other content ("
        + (held.path == log ? "" : "read from \(held.path), ") + describe(held) + "; this one "
        + describe(source)
        + "): a day delivered again (a partial delivery, a corrected log, a copy with other line "
        + "ends) would count its swipes twice, so nothing was written. If both logs are to be "
        + "counted, rename this one; to replace the day, rebuild the snapshot from the logs "
        + "(docs/cron.md, \"Replacing a day's log\")",
      code: "log_name_taken")
  }

  /// A log as the name check tells it: the start of its hash, its lines, swipes and days.
  static func describe(_ source: HistorySnapshot.Source) -> String {
    var text = "sha256 \(source.sha256.prefix(12))…, \(plural(Int(source.lines), "line")), "
    text += plural(Int(source.events), "swipe")
    if let first = source.firstDay, let last = source.lastDay {
      let (a, b) = (DeckDate(daysSinceEpoch: first), DeckDate(daysSinceEpoch: last))
      text += first == last ? " of \(a)" : " of \(a) to \(b)"
    }
    return text
  }

  /// `snapshot` with the snapshot of one log (its source and hesitations set) added, in the
  /// config's time zone and drag rule.
  static func merge(
    _ read: HistorySnapshot, into snapshot: HistorySnapshot, _ request: Request
  ) throws -> HistorySnapshot {
    var part = read
    part.timeZone = request.config.timeZone
    part.dragRule = request.config.dragRuleName
    do {
      return try HistorySnapshot.merge(snapshot, part)
    } catch {
      throw CommandFailure(.dataError, "\(request.into): \(error)")
    }
  }

}

enum Merge {
  static let out = Option<String>(
    "out", valueName: "snapshot",
    help: "The merged snapshot to write (atomically; '-' writes standard output).")

  static func run(_ args: ParsedArguments, _ context: CommandContext) throws -> ExitCode {
    let io = context.io
    guard let out = args.value(Merge.out) else {
      throw UsageError("missing '--out <snapshot>': the merged snapshot to write")
    }
    let inputs = args.arguments("snapshot")
    guard !inputs.isEmpty else { throw UsageError("give the snapshots to merge") }
    guard inputs.filter({ $0 == "-" }).count <= 1 else {
      throw UsageError("'-' (standard input) can be given once: it is read once")
    }
    let outputs = try RunOutputs(
      [(.out, out)], inputs: inputs.map { RunOutputs.File("the snapshot", $0) },
      wait: OutputOptions.wait(args), io: context.job)
    defer { outputs.abort() }
    var count = 0
    let merged: HistorySnapshot
    do {
      merged = try Snapshots.merge(inputs, io.job, concatenated: true) { _, _, _ in count += 1 }
    } catch let error as DeckIOError {
      // merge takes no config: only the command line named the snapshots.
      throw error.checking(DeckIOError.checkPath)
    }
    try outputs.write(SnapshotOptions.encode(merged, args), to: .out)
    try outputs.commit()
    context.note(
      "merged \(plural(count, "snapshot")) into \(out == "-" ? "standard output" : out): "
        + "\(plural(merged.sources.count, "log")), \(plural(Int(merged.events), "swipe"))"
        + (merged.pending.isEmpty
          ? ""
          : " (\(Int(merged.events) - merged.pending.count) counted, \(merged.pending.count) "
            + "waiting for \(merged.pending.count == 1 ? "its" : "their") day)")
        + ", \(plural(merged.dinerCount, "diner"))", code: "summary")
    return .success
  }
}
