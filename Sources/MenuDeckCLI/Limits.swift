import DeckBase
import DeckCommandLine
import DeckCore
import DeckEvaluation

/// The range of every count a command line or a config gives, checked where the value enters:
/// an option out of range is a usage error (64) naming the option, a config value a data error
/// (65) naming the key and the file. docs/exit-codes.md ("Limits") lists them.
enum Limits {
  /// Cards per deck (`--size`, `--k`, `deck.size`, `deck.max_per_category`).
  static let deckSize = 1...DeckRules.maxSize
  /// Day windows of the deck rules (`deck.repeat_pick_days`, `cooldown_days`, `reshow_days`).
  static let ruleDays = 0...DeckRules.maxDays
  /// Simulated days (`--days`) and the repeat window of `stats` (`--repeat-window`): 100 years.
  static let days = 1...36_500
  /// Generated diners of a simulation (`--users N`): each takes about 1.5 KB and one deck a
  /// simulated day, so a million is about 1.5 GB before the first deck.
  static let simulatedDiners = 1...1_000_000
  /// Threads (`--jobs`): each holds a batch of decks at a time.
  static let jobs = 1...Parallel.maxJobs
  /// Bootstrap resamples (`--resamples`).
  static let resamples = 1...1_000_000
  /// Randomization-test permutations per difference (`--permutations`): only counts are kept,
  /// so the bound is the time (about units / 2 x metrics additions each), not the memory.
  static let permutations = 1...PermutationCount.maximum
  /// Replicate values the bootstrap keeps in memory at once (resamples x strategies x metrics,
  /// 16 bytes each): 3.2 GB.
  static let replicateValues = 200_000_000

  /// `n` of option `--name` within `range`, or a usage error naming the option and the limit:
  /// "'--size': '0' is out of range: give a whole number from 1 to 10000 (cards)". `text`: the
  /// value as given, when it is not `n`'s digits.
  static func check(
    _ n: Int, option name: String, in range: ClosedRange<Int>, _ unit: String? = nil,
    text: String? = nil
  ) throws {
    guard !range.contains(n) else { return }
    throw outOfRange(name, text ?? String(n), give: span(range, unit))
  }

  /// The value of the whole-number option `key` within `range`, nil when it is not given (and
  /// has no default). A text that is no whole number is the option's usage error ("invalid
  /// value 'x' for '--size'; expected a whole number like 10"); one too long for an Int is out
  /// of range, as any other outside `range`.
  static func value(
    _ args: ParsedArguments, _ key: Option<Int>, in range: ClosedRange<Int>, _ unit: String? = nil
  ) throws -> Int? {
    let name = key.spec.name
    guard let text = args.value(name) else { return nil }
    if RangeText.isWholeNumber(text) && Int(text) == nil {
      throw outOfRange(name, text, give: span(range, unit))
    }
    guard let n = try args.value(key) else { return nil }
    try check(n, option: name, in: range, unit, text: text)
    return n
  }

  /// The value of the decimal option `key`, nil when it is not given, refused unless `accepts`
  /// it: "'--level': '1.5' is out of range: give a level above 0 and below 1 (e.g. 0.95)". A
  /// text that is no finite number is the option's usage error, as for every option.
  static func value(
    _ args: ParsedArguments, _ key: Option<Double>, give expected: String,
    accepts: (Double) -> Bool
  ) throws -> Double? {
    guard let v = try args.value(key) else { return nil }
    guard accepts(v) else {
      throw outOfRange(key.spec.name, args.value(key.spec.name) ?? "\(v)", give: expected)
    }
    return v
  }

  /// "a whole number from 1 to 10000 (cards)".
  static func span(_ range: ClosedRange<Int>, _ unit: String? = nil) -> String {
    RangeText.span("a whole number", from: "\(range.lowerBound)", to: "\(range.upperBound)")
      + (unit.map { " (\($0))" } ?? "")
  }

  /// The usage error of option `--name` given `text`, out of its range.
  static func outOfRange(_ name: String, _ text: String, give expected: String) -> UsageError {
    UsageError("'--\(name)': " + RangeText.outOfRange(text, give: expected))
  }

  /// Whether the bootstrap of `table` with `resamples` fits `replicateValues`; a usage error
  /// naming `--resamples` when it does not.
  static func checkResampling(_ table: UnitTable, resamples: Int) throws {
    let perResample = max(table.arms.count, 1) * max(table.metrics.count, 1)
    let (values, overflow) = resamples.multipliedReportingOverflow(by: perResample)
    guard overflow || values > replicateValues else { return }
    throw UsageError(
      "'--resamples' \(resamples) with \(plural(table.arms.count, "strategy", "strategies")) and "
        + "\(plural(table.metrics.count, "metric")) would keep \(overflow ? "too many" : "\(values)") "
        + "replicate values in memory (at most \(replicateValues)); give at most "
        + "\(max(replicateValues / perResample, 1)) resamples")
  }
}
