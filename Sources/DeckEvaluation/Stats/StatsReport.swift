import DeckCore
import DeckIO

/// The metrics of one strategy on one day, or over all days.
package struct StatsRow: Sendable, Equatable {
  package var strategy: String
  /// The deck date; nil for the row over all days.
  package var day: DeckDate?
  private var values: [StatsMetric: Double]

  package init(strategy: String, day: DeckDate?, values: [StatsMetric: Double]) {
    self.strategy = strategy
    self.day = day
    self.values = values
  }

  /// The metric's value; nil when it is undefined (its denominator is 0, or no ground truth).
  package subscript(metric: StatsMetric) -> Double? { values[metric] }

  /// `YYYY-MM-DD`, or `all` for the row over all days.
  package var dayLabel: String { day?.description ?? "all" }
}

/// The result of a stats run: rows in output order (strategies by name, days ascending, the row
/// over all days last) and what is needed to write them.
package struct StatsReport: Sendable, Equatable {
  package var options: StatsOptions
  package var catalogItems: Int
  /// Whether the input is a simulation or has ground-truth records: only then are the
  /// ground-truth metrics written (see `StatsAccumulator.hasGroundTruth`).
  package var hasGroundTruth: Bool
  package var rows: [StatsRow]

  /// The metrics written, in column order.
  package var metrics: [StatsMetric] {
    StatsMetric.written(groundTruth: hasGroundTruth, newDishes: options.newDishDays != nil)
  }
}
