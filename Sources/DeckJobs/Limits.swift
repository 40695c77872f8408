import DeckBase
import DeckCore
import DeckEvaluation

/// The range of every count a command line or a config gives, checked where the value enters:
/// an option out of range is a usage error (64) naming the option, a config value a data error
/// (65) naming the key and the file. docs/exit-codes.md ("Limits") lists them.
package enum Limits {
  /// Cards per deck (`--size`, `--k`, `deck.size`, `deck.max_per_category`).
  package static let deckSize = 1...DeckRules.maxSize
  /// Day windows of the deck rules (`deck.repeat_pick_days`, `cooldown_days`, `reshow_days`).
  package static let ruleDays = 0...DeckRules.maxDays
  /// Simulated days (`--days`) and the repeat window of `stats` (`--repeat-window`): 100 years.
  package static let days = 1...36_500
  /// Generated diners of a simulation (`--users N`): each takes about 1.5 KB and one deck a
  /// simulated day, so a million is about 1.5 GB before the first deck.
  package static let simulatedDiners = 1...1_000_000
  /// Threads (`--jobs`): each holds a batch of decks at a time.
  package static let jobs = 1...Parallel.maxJobs
  /// Bootstrap resamples (`--resamples`).
  package static let resamples = 1...1_000_000
  /// Randomization-test permutations per difference (`--permutations`): only counts are kept,
  /// so the bound is the time (about units / 2 x metrics additions each), not the memory.
  package static let permutations = 1...PermutationCount.maximum
  /// Replicate values the bootstrap keeps in memory at once (resamples x strategies x metrics,
  /// 16 bytes each): 3.2 GB.
  package static let replicateValues = 200_000_000

  /// `n` of option `--name` within `range`, or a usage error naming the option and the limit:
  /// "'--size': '0' is out of range: give a whole number from 1 to 10000 (cards)". `text`: the
  /// value as given, when it is not `n`'s digits.
  package static func check(
    _ n: Int, option name: String, in range: ClosedRange<Int>, _ unit: String? = nil,
    text: String? = nil
  ) throws {
    guard !range.contains(n) else { return }
    throw outOfRange(name, text ?? String(n), give: span(range, unit))
  }

  /// "a whole number from 1 to 10000 (cards)".
  package static func span(_ range: ClosedRange<Int>, _ unit: String? = nil) -> String {
    RangeText.span("a whole number", from: "\(range.lowerBound)", to: "\(range.upperBound)")
      + (unit.map { " (\($0))" } ?? "")
  }

  /// The usage error of option `--name` given `text`, out of its range.
  package static func outOfRange(_ name: String, _ text: String, give expected: String) -> JobError
  {
    JobError.usage("'--\(name)': " + RangeText.outOfRange(text, give: expected))
  }

  /// Whether the bootstrap of `table` with `resamples` fits `replicateValues`; a usage error
  /// naming `--resamples` when it does not.
  package static func checkResampling(_ table: UnitTable, resamples: Int) throws {
    let perResample = max(table.arms.count, 1) * max(table.metrics.count, 1)
    let (values, overflow) = resamples.multipliedReportingOverflow(by: perResample)
    guard overflow || values > replicateValues else { return }
    throw JobError.usage(
      "'--resamples' \(resamples) with \(TextLayout.plural(table.arms.count, "strategy", "strategies")) and "
        + "\(TextLayout.plural(table.metrics.count, "metric")) would keep \(overflow ? "too many" : "\(values)") "
        + "replicate values in memory (at most \(replicateValues)); give at most "
        + "\(max(replicateValues / perResample, 1)) resamples")
  }
}
