import DeckBase
import DeckCore
import DeckIO

/// A history that a deck run should not take in silence: empty, or ending long before the deck
/// date (the nightly ingest stopped, or was given an empty or truncated log). Such decks are
/// still valid decks, so this is a warning; `deck --strict` makes it an error (exit 65) for
/// cron, and `validate --strict` a failed check (exit 1).
package struct HistoryFreshness: Error, Equatable, CustomStringConvertible {
  package enum Problem: Equatable {
    /// No swipe before the deck date.
    case empty
    /// The last swipe is more than `stale_history_days` before the deck date.
    case stale
  }

  package var problem: Problem
  package var message: String
  /// The history file, when there is one (the diagnostic's `file`).
  package var file: String?

  /// The code of its diagnostic, warning or error.
  package var code: String { problem == .empty ? "empty_history" : "stale_history" }
  package var description: String { message }

  /// What is wrong with the history a deck for `date` is built from, or nil when nothing is:
  /// when it is fresh, when no history is configured or given at all (a first run, or decks
  /// that never learn: nothing to warn about), or when the config's `stale_history_days` is 0
  /// (the stale check only; an empty history is always told).
  ///
  /// `history` holds the swipes the decks learn from; `stats` what the reader read (all
  /// swipes, and those on dishes the catalog does not have); `future` the swipes on or after
  /// the deck date that were left out.
  package static func check(
    _ history: History, stats: EventReadStats, future: Int, paths: [String], date: DeckDate,
    config: MenuDeckConfig
  ) -> HistoryFreshness? {
    guard !paths.isEmpty else { return nil }
    // Standard input by the reader's name for it, as in its errors.
    let oneFile = paths.count == 1 ? (paths[0] == "-" ? "<stdin>" : paths[0]) : nil
    let named = files(paths)
    if history.events == 0 {
      var why: [String] = []
      if future > 0 {
        why.append(
          "\(TextLayout.plural(future, "swipe")) on or after that date \(future == 1 ? "was" : "were") left "
            + "out")
      }
      if stats.unknownItemEvents > 0 {
        why.append(
          "\(TextLayout.plural(stats.unknownItemEvents, "swipe")) name dishes that are not in the catalog"
        )
      }
      return HistoryFreshness(
        problem: .empty,
        message:
          "the history (\(named)) holds no swipes before the deck date \(date)"
          + (why.isEmpty ? "" : " (" + why.joined(separator: "; ") + ")")
          + ": every diner gets a first-visit deck. Check the logs and the nightly ingest",
        file: oneFile)
    }
    let days = config.staleHistoryDays
    guard days > 0, let last = lastDay(history) else { return nil }
    let gap = date.days(since: last)
    guard gap > days else { return nil }
    // Where the number comes from: the config's key, or the default (the key is not there).
    let setting =
      config.staleHistoryDaysIsSet
      ? "the \(days) of stale_history_days in \(config.path)"
      : "the default \(days) of stale_history_days; set it in "
        + (config.bytes.isEmpty ? "a config" : config.path)
    return HistoryFreshness(
      problem: .stale,
      message:
        "the history ends on \(last), \(TextLayout.plural(gap, "day")) before the deck date \(date) (more "
        + "than \(setting)): \(TextLayout.plural(history.events, "swipe")) of "
        + "\(TextLayout.plural(history.users.count, "diner")) in \(named). Add the missing days' logs (is "
        + "the nightly ingest running?), or raise stale_history_days",
      file: oneFile)
  }

  /// The last day of any swipe in `history` (nil when it has none).
  package static func lastDay(_ history: History) -> DeckDate? {
    // The packed days (`History.never` for none) over each diner's records in place: a branch-free
    // maximum, a few milliseconds for millions of records.
    var last = History.never
    for user in history.users.values {
      _ = user.records.withContiguousStorageIfAvailable { records in
        for r in records { last = max(last, r.lastShown) }
      }
    }
    return last == History.never ? nil : DeckDate(daysSinceEpoch: last)
  }

  /// The history files as a message names them: all of them, or the first three and a count.
  package static func files(_ paths: [String]) -> String {
    let shown = paths.map { $0 == "-" ? "standard input" : $0 }
    if shown.count <= 3 { return shown.joined(separator: ", ") }
    return shown.prefix(3).joined(separator: ", ") + " and \(shown.count - 3) more"
  }

  /// Tells `problem` as a warning (`deck --strict` throws it instead).
  package static func tell(_ problem: HistoryFreshness?, _ io: JobIO) {
    guard let problem else { return }
    io.diagnostics.warning(
      problem.message, code: problem.code, location: problem.file.map { .wholeFile($0) })
  }
}

/// A history file that is not there: a snapshot gets the command that creates it.
package enum HistoryFiles {
  /// Refuses a missing history file before any is read (exit 66): a snapshot that the first
  /// nightly ingest has not made yet, or a mistyped path. `snapshots`: whether the command
  /// reads history snapshots at all (`compare` splits the swipes of logs, and a snapshot keeps
  /// none, so its message says only "swipe log" and never the ingest that makes a snapshot).
  /// What to check is the path, and the config too when the config names the file.
  package static func checkPresent(
    _ paths: [String], _ config: MenuDeckConfig, _ io: JobIO, snapshots: Bool = true
  ) throws {
    for path in paths where path != "-" && isMissing(Paths.open(path, io)) {
      let fromConfig = config.history.contains(path)
      let check = fromConfig ? DeckIOError.checkPathOrConfig : DeckIOError.checkPath
      guard snapshots else {
        throw DeckIOError.missingFile(path: path, what: "swipe log", check: check)
      }
      guard path.hasSuffix(".snap") else {
        throw DeckIOError.missingFile(
          path: path,
          what: EventFormat.forPath(path) == nil ? "swipe log or history snapshot" : "swipe log",
          check: check)
      }
      throw DeckIOError.missingFile(
        path: path,
        what: "history snapshot"
          + (fromConfig
            ? " that the config's \"history\" names; 'menudeck ingest --config "
              + "\(config.path) LOG' creates it from the first log"
            : "; 'menudeck ingest --into \(path) LOG' creates it from the first log"),
        check: check)
    }
  }

  /// Whether nothing is at `path` (not a file that cannot be looked at, which the reader
  /// reports as it is).
  private static func isMissing(_ path: String) -> Bool {
    var info = stat()
    guard stat(path, &info) != 0 else { return false }
    return errno == ENOENT || errno == ENOTDIR
  }
}
