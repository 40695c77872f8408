import DeckBase
import DeckCore
import DeckIO

/// What reading the history found that a run tells after its work (`deck`, `stats`, `compare`,
/// `validate`): the events of dishes not in the catalog, the skipped lines, the events on or
/// after the deck date.
package enum HistorySummary {
  /// Warnings about the logs that a cron operator should see.
  package static func tell(_ stats: EventReadStats, future: Int, date: DeckDate, _ io: JobIO) {
    if let (message, location) = unknownItems(stats) {
      io.diagnostics.warning(
        message + "; they were left out " + unknownItemsAdvice(stats), code: "unknown_items",
        location: location)
    }
    // One warning per log, at its first bad line: with several, which one has the bad lines.
    for file in stats.files where file.skippedLines > 0 {
      io.diagnostics.warning(
        "skipped \(TextLayout.plural(file.skippedLines, "malformed event line"))"
          + (file.skippedLines > 1 ? ", the first on this line" : ""), code: "skipped_lines",
        location: file.firstSkippedLine > 0
          ? SourceLocation(file: file.file, line: file.firstSkippedLine) : .wholeFile(file.file))
    }
    if future > 0 {
      io.diagnostics.note(
        "\(TextLayout.plural(future, "event")) on or after \(date) \(future == 1 ? "was" : "were") not "
          + "learned from (a deck never sees its own day)", code: "future_events", location: nil)
    }
  }
}

extension HistorySummary {
  /// What to do about the events of unknown dishes, in parentheses. A snapshot keeps no lines
  /// and cannot be corrected: its ids are those of the logs it was made from, where the ingest
  /// that read them (with a catalog) warned at each log's first one.
  package static func unknownItemsAdvice(_ stats: EventReadStats) -> String {
    let inSnapshots =
      stats.mergedUnknownItemEvents > 0
      || stats.files.contains { $0.snapshot && $0.unknownItemEvents > 0 }
    guard inSnapshots else { return "(correct the ids, or add the dishes to the catalog)" }
    return "(add the dishes to the catalog, or correct the ids in the logs the snapshot was made "
      + "from and make it again from them; 'menudeck ingest' names each log's first such line "
      + "when its config or --catalog names the catalog)"
  }

  /// The events naming dishes that are not in the catalog: how many, the first ids, and where.
  /// When one log has them, the location is the first one's file:line (the whole file for a
  /// snapshot, which has no lines); with several, the message gives each log's count and first
  /// line, in the order of the logs. Nil when there are none.
  package static func unknownItems(_ stats: EventReadStats) -> (String, SourceLocation?)? {
    let total = stats.unknownItemEvents
    guard total > 0 else { return nil }
    let text =
      "\(TextLayout.plural(total, "event")) naming dishes that are not in the catalog (e.g. "
      + stats.unknownItemIDs.map { "'\($0)'" }.joined(separator: ", ") + ")"
    let files = stats.files.filter { $0.unknownItemEvents > 0 }
    if files.count == 1 && stats.mergedUnknownItemEvents == 0 {
      let file = files[0]
      guard file.firstUnknownItemLine > 0 else {
        return (text + " in \(file.file)", .wholeFile(file.file))
      }
      return (
        text + (total > 1 ? ", the first on this line" : ""),
        SourceLocation(file: file.file, line: file.firstUnknownItemLine)
      )
    }
    var places = files.map { file in
      let line = file.firstUnknownItemLine
      let at = file.unknownItemEvents == 1 ? " at line " : " from line "
      return "\(file.unknownItemEvents) in \(file.file)" + (line > 0 ? at + "\(line)" : "")
    }
    if stats.mergedUnknownItemEvents > 0 {
      places.append(
        "\(stats.mergedUnknownItemEvents) in the history merged from "
          + stats.mergedInputs.joined(separator: ", "))
    }
    return (text + ": " + places.joined(separator: ", "), nil)
  }
}

/// What the restaurant's rules did over a run's decks, one line per rule for its summary.
package enum RuleSummary {
  /// "rule 1 'fish week' (boost tag 'seafood' by 3): boosted a dish 12 times, on 5 of 48 decks"
  /// (a dish once per deck); a rule
  /// that never acted says so (out of its window, not for these diners, or its dishes were not
  /// candidates).
  package static func lines(_ counts: RuleCounts, rules: [RestaurantRule], decks: Int) -> [String] {
    rules.enumerated().map { i, rule in
      let label = rule.label(index: i)
      guard counts.applications[i] > 0 else {
        return label + ": acted on no deck (not in force, or its dishes were not candidates)"
      }
      let verb: String
      switch rule.action {
      case .pin: verb = "pinned"
      case .boost: verb = "boosted"
      case .bury: verb = "buried"
      case .hide: verb = "hid"
      }
      let times = counts.applications[i] == 1 ? "once" : "\(counts.applications[i]) times"
      return label + ": \(verb) a dish \(times), on \(counts.decks[i]) of "
        + TextLayout.plural(decks, "deck")
    }
  }
}
