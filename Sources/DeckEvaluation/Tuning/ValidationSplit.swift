import DeckCore
import DeckIO

/// How the validation of a tuning is carved from the training side of a `LogSplit`: the test
/// side (the events the strategies are finally judged on) is never looked at.
package enum ValidationCut: Sendable, Equatable {
  /// A date split: the last `days` days before the split date are the validation period, the
  /// days before them train.
  case days(Int)
  /// A hold-out: this share of the training (diner, dish) pairs is held out again, by a hash
  /// seeded apart from the test's.
  case fraction(Double)

  /// The split of the training side: by the date `days` before a date split, or a hold-out
  /// of `fraction` of a hold-out's training pairs; nil when the cut does not fit the split (days
  /// of a hold-out, a fraction of a date split) or the date would fall before 0001-01-01.
  package func inner(of split: LogSplit) -> LogSplit? {
    switch (self, split) {
    case (.days(let days), .date(let date)):
      let start = Int(date.daysSinceEpoch) - days
      guard start >= Int(DeckDate.supportedDays.lowerBound) else { return nil }
      return .date(DeckDate(daysSinceEpoch: Int32(start)))
    case (.fraction(let f), .holdout):
      return .holdout(f)
    default:
      return nil
    }
  }

  /// The seed of the validation hold-out's hash, derived from the run's seed so that the
  /// validation pairs are not the test pairs' shadow.
  package static func seed(runSeed: UInt64) -> UInt64 {
    var h = StableHash()
    h.combine(runSeed)
    h.combine("tune-validation")
    return h.finalized
  }
}

/// Routes each event of a log three ways for a tuning: the validation's training history and
/// its evaluation (both from the training side of `split` only), and, when `keepsTest`, the
/// whole log into the split's own sink (`test`: the training history of the final comparison and
/// its evaluation), as `compare --tune` needs. Without it (`tune`) the test side's events are
/// counted in `setAside` and not read any further: not even their dishes are looked up.
package struct ValidationSplitSink: EventSink {
  package var validation: LogSplitSink
  package var test: LogSplitSink?
  package let cut: ValidationCut
  private let rule: LogSplitRule
  /// Events of the test side that a tuning without the test set aside.
  package private(set) var setAside = 0

  /// nil when `cut` does not fit `split` (see `ValidationCut.inner`).
  package init?(
    catalog: Catalog, split: LogSplit, cut: ValidationCut, seed: UInt64, keepsTest: Bool
  ) {
    guard let inner = cut.inner(of: split) else { return nil }
    self.cut = cut
    rule = LogSplitRule(split, seed: seed)
    validation = LogSplitSink(
      catalog: catalog, split: inner, seed: ValidationCut.seed(runSeed: seed))
    test = keepsTest ? LogSplitSink(catalog: catalog, split: split, seed: seed) : nil
  }

  package mutating func event(_ e: RawEvent) -> EventDisposition {
    let trains = rule.isTraining(e)
    if test != nil {
      if trains { _ = validation.event(e) }
      return test!.event(e)
    }
    guard trains else {
      setAside += 1
      return .accepted
    }
    return validation.event(e)
  }

  package mutating func finish() {
    validation.finish()
    test?.finish()
  }
}
