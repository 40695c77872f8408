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

  package init(options: StatsOptions, catalogItems: Int, hasGroundTruth: Bool, rows: [StatsRow]) {
    self.options = options
    self.catalogItems = catalogItems
    self.hasGroundTruth = hasGroundTruth
    self.rows = rows
  }

  /// The metrics written, in column order.
  package var metrics: [StatsMetric] {
    StatsMetric.allCases.filter { hasGroundTruth || !$0.needsGroundTruth }
  }

  /// The rows as a table for `StatsWriter`, with the run's parameters: `deck_size`, `ndcg_k`,
  /// `repeat_window_days` (null: any earlier day) and `catalog_items`.
  package var table: StatsTable {
    let metrics = self.metrics
    return StatsTable(
      parameters: [
        StatsParameter(name: "deck_size", value: .count(options.deckSize)),
        StatsParameter(name: "ndcg_k", value: .count(options.ndcgK)),
        StatsParameter(
          name: "repeat_window_days", value: options.repeatWindowDays.map { .count($0) } ?? .missing
        ),
        StatsParameter(name: "catalog_items", value: .count(catalogItems)),
      ],
      columns: metrics.map(\.name),
      rows: rows.map { row in
        StatsTableRow(
          strategy: row.strategy, day: row.day?.description,
          cells: metrics.map { metric in
            guard let value = row[metric] else { return .missing }
            return metric.isCount ? .count(Int(value)) : .number(value)
          })
      })
  }

  /// The report written in `format`; `run` heads the JSON document.
  package func render(_ format: StatsFormat, run: RunRecord? = nil) -> [UInt8] {
    var table = self.table
    table.run = run
    return StatsWriter.render(table, format: format)
  }
}
