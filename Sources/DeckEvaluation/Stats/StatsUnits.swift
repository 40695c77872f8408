import DeckCore

// The stats engine's side of `compare`: per-diner sums (`StatsAccumulator.unitTable`, in
// StatsAccumulator.swift next to the state it reads) and per-day curves.

extension StatsMetric {
  /// How the metric is made from per-diner sums: counts are `.total`, `catalog_coverage` is
  /// `.coverage`, every rate and mean is `.ratio` (see `StatsAccumulator.unitTable`).
  package func unitForm(catalogItems: Int) -> MetricForm {
    switch self {
    case .decks, .cardsShown, .rightSwipes, .leftSwipes: .total
    case .catalogCoverage: .coverage(catalogItems: catalogItems)
    default: .ratio
    }
  }

  /// The metric as a column of a `UnitTable`: its name, definition and `unitForm`.
  package func metricSpec(catalogItems: Int) -> MetricSpec {
    MetricSpec(name: name, definition: definition, form: unitForm(catalogItems: catalogItems))
  }
}

extension StatsReport {
  /// The per-day curves of `metrics` for `strategies`, from the rows of each day: metric by
  /// metric, and for each the strategies in the order given.
  ///
  /// The days are those of the report (every day with a session or a ground-truth record, plus
  /// `options.days`), ascending, so that in a simulation a day without sessions is a nil point.
  /// A strategy without rows (one the input never named) has a nil point every day.
  package func dailySeries(
    strategies: [String],
    metrics: [StatsMetric] = [.likeRate, .pickRate, .meanSwipesToPick]
  ) -> [DailySeries] {
    var days: [DeckDate] = []
    var seenDays = Set<Int32>()
    var byStrategy: [String: [Int32: StatsRow]] = [:]
    for row in rows {
      guard let day = row.day else { continue }
      if seenDays.insert(day.daysSinceEpoch).inserted { days.append(day) }
      byStrategy[row.strategy, default: [:]][day.daysSinceEpoch] = row
    }
    days.sort { $0.daysSinceEpoch < $1.daysSinceEpoch }
    var series: [DailySeries] = []
    for metric in metrics {
      for strategy in strategies {
        let rows = byStrategy[strategy] ?? [:]
        series.append(
          DailySeries(
            arm: strategy, metric: metric.name,
            points: days.map { DailyPoint(day: $0, value: rows[$0.daysSinceEpoch]?[metric]) }))
      }
    }
    return series
  }
}

extension StatsAccumulator {
  /// The per-day curves of `metrics` for `strategies` (`StatsReport.dailySeries`). It computes
  /// the report; call that one when the report is at hand.
  package func dailySeries(
    strategies: [String],
    metrics: [StatsMetric] = [.likeRate, .pickRate, .meanSwipesToPick]
  ) -> [DailySeries] {
    report().dailySeries(strategies: strategies, metrics: metrics)
  }
}

/// Shows per (index, catalog item), the index being a (strategy, user) pair of the accumulator:
/// a `WordTable` (DeckCore's open-addressing table, 12 bytes a slot, between 35% and 70% full, so
/// 17 to 34 bytes a distinct pair) from the packed pair to its count. The keys are never removed.
struct UnitShowCounts: Sendable {
  private var table = WordTable()

  /// The distinct (unit, item) pairs held.
  var count: Int { table.count }

  /// Adds one show of `item` to `unit`.
  @inline(__always)
  mutating func increment(unit: Int32, item: Int32) {
    table.add(Self.key(unit, item), 1)
  }

  /// Adds `shows` (at least 1) shows of `item` to `unit`.
  @inline(__always)
  mutating func add(unit: Int32, item: Int32, shows: Int32) {
    table.add(Self.key(unit, item), shows)
  }

  /// Shows of `item` to `unit` (0 when never shown).
  func shows(unit: Int32, item: Int32) -> Int32 { table.value(Self.key(unit, item)) }

  /// Every pair with its shows, ascending by unit, then by item.
  func sortedEntries() -> [(unit: Int32, item: Int32, shows: Int32)] {
    table.entries().sorted { $0.key < $1.key }.map { entry in
      (
        Int32(bitPattern: UInt32(truncatingIfNeeded: entry.key >> 32)),
        Int32(bitPattern: UInt32(truncatingIfNeeded: entry.key)), entry.value
      )
    }
  }

  /// `unit << 32 | item`.
  @inline(__always)
  private static func key(_ unit: Int32, _ item: Int32) -> UInt64 {
    UInt64(UInt32(bitPattern: unit)) << 32 | UInt64(UInt32(bitPattern: item))
  }
}

/// A map from 64-bit keys to dense indices (0, 1, 2, ... in insertion order), on the paths that
/// look up a key per swipe (SipHash there was most of the cost on a log of many interleaved
/// diners): DeckCore's `WordIndex`.
typealias PackedIndex = WordIndex
