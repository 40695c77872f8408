import DeckBase
import DeckCommandLine
import DeckCore
import DeckIO
import DeckJobs

/// The history's messages (`HistorySummary`, DeckJobs) for the commands that still tell them
/// with their context.
enum Summary {
  /// Warnings about the logs that a cron operator should see.
  static func history(_ stats: EventReadStats, future: Int, date: DeckDate, context: CommandContext)
  {
    HistorySummary.tell(stats, future: future, date: date, context.job)
  }

  static func unknownItemsAdvice(_ stats: EventReadStats) -> String {
    HistorySummary.unknownItemsAdvice(stats)
  }

  static func unknownItems(_ stats: EventReadStats) -> (String, SourceLocation?)? {
    HistorySummary.unknownItems(stats)
  }
}

/// "1 error", "2 errors" (`TextLayout.plural`).
func plural(_ n: Int, _ noun: String, _ plural: String? = nil) -> String {
  TextLayout.plural(n, noun, plural)
}
