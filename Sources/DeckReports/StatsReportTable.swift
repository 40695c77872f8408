import DeckEvaluation
import DeckIO

/// A stats report as `StatsWriter` writes it: the writing half of `StatsReport`, on the floor
/// of every report writer.
extension StatsReport {
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
