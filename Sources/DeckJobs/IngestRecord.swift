import DeckBase
import DeckCore
import DeckIO

extension IngestJob {
  /// Adds the snapshot of one log (`read`, without its source) to what this run added, with the
  /// notes and warnings of its read. `byName`: the log is a file whose name a delivery gives
  /// (not standard input or a pipe), checked against the names of the logs the snapshot holds.
  static func record(
    _ read: HistorySnapshot, _ stats: EventReadStats, _ source: HistorySnapshot.Source,
    firstPendingLine: Int, byName: Bool, _ log: String, _ request: IngestRequest,
    to added: inout Added, _ io: JobIO
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
    io.diagnostics.info(
      "history \(log == "-" ? "standard input" : log): \(TextLayout.plural(Int(source.bytes), "byte")), "
        + "\(TextLayout.plural(stats.lines, "line")), sha256 \(source.sha256)", code: "input",
      location: file)
    var read = read
    read.hesitations = Int64(stats.hesitations)
    read.sources = [source]
    added.snapshot = try merge(read, into: added.snapshot, request)
    let pending = read.pending.count
    if pending > 0 {
      let one = pending == 1
      io.diagnostics.note(
        "\(TextLayout.plural(pending, "swipe")) dated on or after \(request.before)"
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
      io.diagnostics.warning(message, code: "unknown_items", location: location)
    }
    if let skipped = stats.files.first, skipped.skippedLines > 0 {
      io.diagnostics.warning(
        "skipped \(TextLayout.plural(skipped.skippedLines, "malformed event line"))"
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
  static func unknownItems(_ stats: EventReadStats, _ name: String, _ request: IngestRequest) -> (
    String, SourceLocation
  )? {
    guard let file = stats.files.first, file.unknownItemEvents > 0,
      let catalog = request.catalogPath
    else { return nil }
    let count = file.unknownItemEvents
    let message =
      "\(TextLayout.plural(count, "swipe")) naming dishes that are not in the catalog \(catalog) (e.g. "
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
    _ source: HistorySnapshot.Source, _ log: String, _ request: IngestRequest,
    in snapshot: HistorySnapshot
  ) throws {
    let name = source.fileName
    guard
      let held = snapshot.sources.first(where: {
        $0.path != "-" && $0.fileName == name && $0.sha256 != source.sha256
      })
    else { return }
    throw JobError(
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
    var text =
      "sha256 \(source.sha256.prefix(12))…, \(TextLayout.plural(Int(source.lines), "line")), "
    text += TextLayout.plural(Int(source.events), "swipe")
    if let first = source.firstDay, let last = source.lastDay {
      let (a, b) = (DeckDate(daysSinceEpoch: first), DeckDate(daysSinceEpoch: last))
      text += first == last ? " of \(a)" : " of \(a) to \(b)"
    }
    return text
  }

  /// `snapshot` with the snapshot of one log (its source and hesitations set) added, in the
  /// config's time zone and drag rule.
  static func merge(
    _ read: HistorySnapshot, into snapshot: HistorySnapshot, _ request: IngestRequest
  ) throws -> HistorySnapshot {
    var part = read
    part.timeZone = request.config.timeZone
    part.dragRule = request.config.dragRuleName
    do {
      return try HistorySnapshot.merge(snapshot, part)
    } catch {
      throw JobError(.dataError, "\(request.into): \(error)")
    }
  }
}
