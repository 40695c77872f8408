import DeckCommandLine
import DeckCore
import DeckJobs

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
  arguments: [InputOptions.logs(help: "Swipe logs to ingest ('-' reads standard input).")],
  run: requestJobSummary(IngestRequest.init, IngestJob.run, summary: Ingest.summary))

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

  /// The run's summary: the logs and swipes it added (and those that wait for their day), and
  /// what the snapshot holds.
  static func summary(_ outcome: IngestJob.Outcome, _ request: IngestRequest) -> String {
    let (state, counted, dryRun) = (outcome.added, outcome.counted, outcome.dryRun)
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
}
