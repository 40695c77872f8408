import DeckBase
import DeckCommandLine
import DeckCore
import DeckIO
import DeckJobs

/// The history's messages (`HistorySummary`, DeckJobs) that `validate` reports.
enum Summary {
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
