import DeckCore
import DeckIO

/// Output formats of `menudeck compare` (the HTML report is `HTMLReport`).
package enum ComparisonFormat: String, Sendable, CaseIterable {
  /// Aligned text for people: header lines, an estimates table, a differences table, notes.
  case table
  /// GitHub-flavoured Markdown: the same content as `table`, as Markdown tables.
  case markdown
  /// One JSON document (layout in `ComparisonWriter`).
  case json
  /// Tidy JSON Lines: the rows of `csv`, one object per line, undefined values null.
  case jsonl
  /// CSV in long format, one row per (arm, metric), difference and day (layout in
  /// `ComparisonWriter`).
  case csv
}
