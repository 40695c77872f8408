import DeckCore
import DeckIO

/// How swipe logs are cut into training and evaluation (`compare` on logs).
package enum LogSplit: Sendable, Equatable {
  /// Events before the date train, events on or after it are evaluated.
  case date(DeckDate)
  /// Each (diner, dish) pair is evaluated with this probability, decided by a stable hash of
  /// (seed, diner, dish): for logs without times.
  case holdout(Double)

  /// "split at 2026-11-25", or the hold-out and the date its decks are built for.
  package func describe(_ deckDate: DeckDate) -> String {
    switch self {
    case .date(let d): return "split at \(d)"
    case .holdout(let f):
      return "hold-out of \(f) of the (diner, dish) pairs, decks for \(deckDate)"
    }
  }
}

/// Routes each event of a log to the training history or to the evaluation.
package struct LogSplitSink: EventSink {
  package var training: HistoryIngest
  package var heldOut: HeldOutSwipes
  /// With off-policy estimates: the logged sessions of the evaluation period.
  package var sessions: LoggedSessions?
  /// With `--trec`: every training event, as the strategies learn from it (`TrainingLog`).
  package var trainingLog: TrainingLog?
  package let split: LogSplit
  package let seed: UInt64
  private let rule: LogSplitRule
  /// The last local day of a training event (hold-out decks are built the day after).
  package private(set) var lastTrainingDay: Int32 = 0
  /// Events learned from.
  package private(set) var trainingEvents = 0
  /// The latest deck day of any event (date splits).
  package private(set) var lastDay: Int32?
  /// Evaluated events (those `heldOut` counts) that carry a propensity: whether `--ope` could
  /// correct the ranking metrics' bias (`LoggingBias`).
  package private(set) var evaluationPropensities = 0

  package init(catalog: Catalog, split: LogSplit, seed: UInt64) {
    self.split = split
    self.seed = seed
    rule = LogSplitRule(split, seed: seed)
    // The split decides by the event's deck date (else the local day of its `at`), the same
    // day on both sides: the history's own cutoff (by `at`) is not used.
    training = HistoryIngest(catalog: catalog, cutoff: nil)
    switch split {
    case .date(let date):
      heldOut = HeldOutSwipes(catalog: catalog, split: date)
    case .holdout:
      heldOut = HeldOutSwipes(catalog: catalog, split: DeckDate(daysSinceEpoch: 0))
    }
  }

  /// The date the evaluated decks are built for: the split date, or the day after the last
  /// training event of a hold-out.
  package var deckDate: DeckDate {
    switch split {
    case .date(let date): return date
    case .holdout: return DeckDate(daysSinceEpoch: lastTrainingDay + 1)
    }
  }

  package mutating func event(_ e: RawEvent) -> EventDisposition {
    switch split {
    case .date:
      let day = e.deck?.daysSinceEpoch ?? e.day
      lastDay = max(lastDay ?? day, day)
      if rule.isTraining(e) {
        let disposition = training.event(e)
        if disposition == .accepted {
          trainingEvents += 1
          trainingLog?.add(e)
        }
        return disposition
      }
      _ = sessions?.event(e)
      return evaluate(e)
    case .holdout:
      if !rule.isTraining(e) {
        return evaluate(e)
      }
      let disposition = training.event(e)
      if disposition == .accepted {
        trainingEvents += 1
        trainingLog?.add(e)
        lastTrainingDay = max(lastTrainingDay, e.deck?.daysSinceEpoch ?? e.day)
      }
      return disposition
    }
  }

  /// An event of the evaluation period, counted in `evaluationPropensities` when `heldOut`
  /// counts it and it carries a propensity.
  private mutating func evaluate(_ e: RawEvent) -> EventDisposition {
    let before = heldOut.events
    let disposition = heldOut.event(e.swipeEvent)
    if heldOut.events > before && e.propensity != nil { evaluationPropensities += 1 }
    return disposition
  }

  /// The bias note of the ranking metrics on these logs without `--ope`.
  package var loggingBias: LoggingBias {
    var byDate = false
    if case .date = split { byDate = true }
    return LoggingBias(
      evaluationEvents: heldOut.events, withPropensity: evaluationPropensities, byDate: byDate)
  }

  package mutating func finish() {
    training.finish()
    heldOut.finish()
  }
}

/// Which side of a `LogSplit` an event falls on, and nothing else: the one rule of
/// `LogSplitSink` and of the validation carved from its training side (`ValidationSplitSink`).
package struct LogSplitRule: Sendable {
  package let split: LogSplit
  package let seed: UInt64
  private let threshold: UInt64

  package init(_ split: LogSplit, seed: UInt64) {
    self.split = split
    self.seed = seed
    switch split {
    case .date: threshold = 0
    case .holdout(let fraction):
      threshold = UInt64(
        (fraction * 0x1p64).rounded(.down).clamped(to: 0...0x1.fffffffffffffp63))
    }
  }

  /// Whether `e` trains: dated before the split, or its (diner, dish) pair outside the
  /// hold-out (a stable hash of seed, diner and dish, so that every event of a pair falls on
  /// the same side).
  @inline(__always)
  package func isTraining(_ e: RawEvent) -> Bool {
    switch split {
    case .date(let date):
      return (e.deck?.daysSinceEpoch ?? e.day) < date.daysSinceEpoch
    case .holdout:
      var h = StableHash()
      h.combine(seed)
      h.combine(bytes: e.user)
      h.combine(UInt64(0xff))
      h.combine(bytes: e.item)
      return h.finalized >= threshold
    }
  }
}

extension Double {
  fileprivate func clamped(to range: ClosedRange<Double>) -> Double {
    Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
  }
}
