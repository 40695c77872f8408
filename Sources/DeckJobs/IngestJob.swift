import DeckBase
import DeckCore
import DeckIO

/// `menudeck ingest`: swipe logs added to a history snapshot (`--into`, or the config's), or
/// made into a new one (`--out`). Everything in it is checked before any output is locked.
package struct IngestRequest: Sendable {
  /// Whether the logs are added to what the snapshot holds (`--into`), or make a new one.
  package var adding: Bool
  /// Whether the snapshot is the config's because no option named one.
  package var intoFromConfig = false
  /// Swipes dated on or after it wait in the snapshot for their day.
  package var before: DeckDate
  /// The path of the catalog the logs' dishes are checked against (`--catalog`, or the
  /// config's), as given; nil when neither names one.
  package var catalogPath: String?
  /// That catalog: `IngestJob.run` loads it from `catalogPath` (with the delimiter of the
  /// settings) unless it is given.
  package var catalog: Catalog?
  /// How the logs are read (columns, delimiters, bad lines, the compressed-log advice), with
  /// the config, the logs and the rejects' path.
  package var settings: RunSettings
  /// Threads that read a log file (`--jobs`).
  package var jobs = 1
  /// The snapshot written (`--into`'s, or `--out`'s) and the rejects, under the keys `snapshot`
  /// and `rejects`; what they may not replace: the logs, the config's files but the snapshot it
  /// adds to, and `--catalog`'s; `--wait` and `--dry-run`.
  package var outputs: OutputPlan
  package var snapshot: OutputKey
  package var rejects: OutputKey
  /// Whether the snapshot is written as one line of text (`--base64`).
  package var base64 = false

  package init(
    into: RequestedOutput, adding: Bool, before: DeckDate, settings: RunSettings,
    rejects: OutputKey, plan: OutputPlan = OutputPlan()
  ) {
    self.adding = adding
    self.before = before
    self.settings = settings
    outputs = plan.writing([into, RequestedOutput(rejects, settings.rejectsPath)])
    snapshot = into.key
    self.rejects = rejects
  }

  /// The snapshot's path ("-" is standard output).
  package var into: String { outputs.path(snapshot) ?? "-" }
  package var logs: [String] { settings.historyPaths }
  package var config: MenuDeckConfig { settings.config }
  package var rejectsPath: String? { settings.rejectsPath }

  /// `into` as messages name it.
  package var shown: String { into == "-" ? "standard output" : into }
}

/// Runs an `IngestRequest`: lock the snapshot, read it, add each log that it does not hold yet
/// (on `jobs` threads when a log is big enough), count the swipes that waited for a day the
/// limit passes, and replace the snapshot, all or nothing.
package enum IngestJob {
  /// What `ingest` has added so far.
  package struct Added {
    package var snapshot: HistorySnapshot
    package var added = 0
    package var skipped = 0
    package var events = 0
    /// The swipes of the logs added by this run that wait for their day (on or after
    /// `--before`), pending in the snapshot.
    package var pending = 0
    /// Content hashes of the logs added by this run.
    var seen = Set<String>()

    func has(_ hash: String) -> Bool { snapshot.contains(sha256: hash) || seen.contains(hash) }
  }

  package struct Outcome {
    package var added: Added
    /// The swipes that waited for their day and were added up by this run's limit.
    package var counted: Int
    /// Whether nothing was written (`--dry-run`).
    package var dryRun: Bool
  }

  package static func run(_ request: IngestRequest, _ io: JobIO) throws -> Outcome {
    var request = request
    if request.catalog == nil, let path = request.catalogPath {
      request.catalog = try Inputs.loadCatalog(
        path, io, delimiter: request.settings.delimiters.catalog
      ).0
    }
    let into = request.into
    // The snapshot is read and replaced under its lock: the lock is taken before it is read.
    var plan = request.outputs
    if request.intoFromConfig {
      plan.origins = [
        request.snapshot: "the snapshot that the \"history\" of \(request.config.path) names"
      ]
    }
    let outputs = try RunOutputs(plan, io: io)
    defer { outputs.abort() }

    let intoOpened = Paths.open(into, io)
    let stateRead = request.adding ? FileState(path: intoOpened) : nil
    var state = Added(
      snapshot: stateRead == nil
        ? .empty : try SnapshotFile.read(path: intoOpened, displayName: into))
    try ConfigSnapshot.checkReadings(state.snapshot, request)
    var rejects: RejectsWriter?
    if let path = request.rejectsPath {
      rejects = RejectsWriter(
        output: try outputs.output(request.rejects),
        format: RejectsWriter.format(path: path) ?? .jsonLines)
    }
    let started = monotonicSeconds()
    try Inputs.counting("ingest", request.logs, request.settings, io) { settings in
      var counted = request
      counted.settings = settings
      for log in request.logs {
        try add(log, counted, to: &state, rejects: rejects, io)
      }
    }
    io.diagnostics.info(
      "read \(TextLayout.plural(request.logs.count, "log")) on "
        + "\(TextLayout.plural(request.jobs, "thread")) in "
        + formatSeconds(monotonicSeconds() - started), code: "timing", location: nil)
    try rejects?.finish()
    // The swipes that waited for a day this run's limit passes are added up now: the snapshot
    // is the one that reading every log with this limit gives.
    let waited = state.snapshot.pending.count
    do {
      state.snapshot = try state.snapshot.counting(before: request.before)
    } catch {
      throw JobError(.dataError, "\(into): \(error)")
    }
    let counted = waited - state.snapshot.pending.count
    if state.added > 0 || counted > 0 || stateRead == nil {
      try outputs.write(
        request.base64
          ? SnapshotFile.encodeText(state.snapshot) : SnapshotFile.encode(state.snapshot),
        to: request.snapshot)
    }
    try outputs.commit {
      // Under the lock no menudeck run can have written the snapshot; something else did.
      guard !request.adding || FileState(path: intoOpened) == stateRead else {
        throw JobError(
          .busy,
          "\(into): changed on disk while this run read it (written by something that does not "
            + "take menudeck's lock?); nothing was written. Run the ingest again")
      }
    }
    return Outcome(added: state, counted: counted, dryRun: outputs.dryRun)
  }

  /// A log that the snapshot (or this run) has already: a note, and it counts as skipped.
  static func skip(_ log: String, _ request: IngestRequest, _ added: inout Added, _ io: JobIO) {
    io.diagnostics.note(
      "\(log == "-" ? "standard input" : log) is already in \(request.shown) (same content); "
        + "skipped", code: "already_ingested",
      location: .wholeFile(log == "-" ? "<stdin>" : log))
    added.skipped += 1
  }

  /// Reads one log into the snapshot, unless the snapshot (or this run) has its content already.
  static func add(
    _ log: String, _ request: IngestRequest, to added: inout Added, rejects: RejectsWriter?,
    _ io: JobIO
  ) throws {
    // Standard input, a pipe or a FIFO can be read once only: it is hashed as it is read, and
    // dropped at the end when the snapshot has it already.
    let once = log == "-" || Inputs.isReadOnce(log, io)
    if !once, request.jobs > 1, Inputs.canReadInParts(log, io) {
      return try addInParts(log, request, to: &added, rejects: rejects, io)
    }
    let (hash, size) =
      once
      ? (nil, 0)
      : try Paths.using(log, io) { opened throws(DeckIOError) in
        try Inputs.fileSHA256(opened)
      }
    if let hash, added.has(hash) {
      skip(log, request, &added, io)
      // Its bytes are done with, for the progress line.
      request.settings.progress?.add(size)
      return
    }
    var sink = SnapshotIngest(cutoff: request.before, catalog: request.catalog)
    let stats: EventReadStats
    var contentHash = hash
    if once {
      // The rejects of a log read once wait until it is known to be new.
      let held = HeldRejects()
      var digest = SHA256()
      stats = try Inputs.readOnce(
        log, request.settings, io, into: &sink, sha256: &digest,
        onReject: held.handler(rejects))
      contentHash = digest.hexDigest()
      if added.has(contentHash!) { return skip(log, request, &added, io) }
      for reject in held.items { try rejects?.write(reject) }
    } else {
      var handler: ((EventReject) throws(DeckIOError) -> Void)?
      if let w = rejects {
        handler = { reject throws(DeckIOError) in try w.write(reject) }
      }
      stats = try Inputs.readLogs([log], request.settings, io, into: &sink, onReject: handler)
    }
    let source = HistorySnapshot.Source(
      sha256: contentHash!, path: log, bytes: Int64(once ? stats.bytes : size),
      lines: Int64(stats.lines), events: Int64(stats.events))
    try record(
      sink.builder.build(), stats, source, firstPendingLine: sink.firstPendingLine,
      byName: !once, log, request, to: &added, io)
  }

  /// Reads a big regular log in parts on `request.jobs` threads while its content hash is
  /// computed on another: a log that the snapshot has already is dropped afterwards (its
  /// rejects, held until then, with it), as if it had been skipped before reading.
  static func addInParts(
    _ log: String, _ request: IngestRequest, to added: inout Added, rejects: RejectsWriter?,
    _ io: JobIO
  ) throws {
    let opened = Paths.open(log, io)
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
        log, request.settings, io, cutoff: request.before, catalog: request.catalog,
        jobs: request.jobs, onReject: held.handler(rejects))
    }
    // A log the snapshot has already is skipped whatever its read gave, as before reading.
    let (hash, size) = try hashing.wait().get()
    if added.has(hash) { return skip(log, request, &added, io) }
    let parts = try read.get()
    for reject in held.items { try rejects?.write(reject) }
    let stats = parts.stats
    let source = HistorySnapshot.Source(
      sha256: hash, path: log, bytes: Int64(size), lines: Int64(stats.lines),
      events: Int64(stats.events))
    try record(
      parts.snapshot, stats, source, firstPendingLine: parts.firstPendingLine, byName: true, log,
      request, to: &added, io)
  }

  /// Rejects held until their log is known to be new: the reader's reject sink of this job.
  final class HeldRejects: @unchecked Sendable {
    var items: [EventReject] = []

    /// The reader's reject handler that holds each reject here, or nil when there is no
    /// `--rejects` to write them to.
    func handler(_ rejects: RejectsWriter?) -> ((EventReject) throws(DeckIOError) -> Void)? {
      guard rejects != nil else { return nil }
      return { reject throws(DeckIOError) in self.items.append(reject) }
    }
  }
}
