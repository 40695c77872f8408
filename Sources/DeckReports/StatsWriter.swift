import DeckBase
import DeckCore
import DeckIO

/// Output formats of stats.
package enum StatsFormat: String, Sendable, CaseIterable {
  /// Aligned text for people: one row per strategy and day, one column per metric.
  case table
  /// One JSON document: the run header, the run's parameters and the rows (one per strategy
  /// and day, a column per metric), one row object per line.
  case json
  /// Tidy JSON Lines: one object per strategy, day and metric (`StatsWriter.tidyColumns`).
  case jsonl
  /// Tidy CSV: a header row, then one row per strategy, day and metric, as `jsonl`.
  case csv
}

/// One value of a stats table.
package enum StatsCell: Sendable, Equatable {
  /// A whole number (counts).
  case count(Int)
  /// A rate or a mean, written with fixed decimals.
  case number(Double)
  /// No value: the metric's denominator is 0 (no sessions, no picks, ...). Written as `null` in
  /// JSON, an empty field in CSV and `-` in the table. A non-finite `.number` is written the same
  /// way, so output never holds `nan` or `inf`.
  case missing
}

/// A parameter of a stats run, written in the JSON header (`"deck_size":10`).
package struct StatsParameter: Sendable, Equatable {
  package var name: String
  package var value: StatsCell
}

/// One row of a stats table: a strategy, a day (`YYYY-MM-DD`; nil for the row over every day,
/// shown as `all` in the table) and one cell per column.
package struct StatsTableRow: Sendable, Equatable {
  package var strategy: String
  package var day: String?
  package var cells: [StatsCell]
}

/// What a stats writer writes: parameters, metric columns (stable snake_case names) and rows, in
/// the order they are to be written. The writer adds the `strategy` and `day` columns.
package struct StatsTable: Sendable, Equatable {
  package var parameters: [StatsParameter]
  package var columns: [String]
  package var rows: [StatsTableRow]
  /// The version, command line and inputs of the run, written first in JSON (nil: not written).
  package var run: RunRecord? = nil

  package init(parameters: [StatsParameter], columns: [String], rows: [StatsTableRow]) {
    precondition(rows.allSatisfy { $0.cells.count == columns.count }, "a row has too few cells")
    self.parameters = parameters
    self.columns = columns
    self.rows = rows
  }
}

/// Writes stats tables as aligned text, JSON or CSV.
///
/// Numbers are formatted by menudeck itself, never by the locale: counts as integers; rates and
/// means in full precision in JSON and CSV (the shortest text that reads back as the same
/// double, `Text.roundTrip`) and with `tableDecimals` digits after the point in the table,
/// rounded half away from zero. Rows and columns are written in the order given, so the same table is always the
/// same bytes.
///
/// - json: `{"run":{...},"parameters":{...},\n"rows":[\n{"strategy":"...","day":"2026-11-30",
///   "overall":false,"decks":3,...},\n...\n]}`; the row over every day has `"day":null` and
///   `"overall":true`; a missing value is `null`.
/// - jsonl and csv, the tidy forms: one record per strategy, day and metric, with the columns
///   `tidyColumns`: `strategy` (text), `day` (an ISO date, null/empty on the row over every day),
///   `overall` (`true` on that row, else `false`), `metric` (text) and `value` (always a
///   floating-point number, counts too, so the column has one type; null/empty when
///   undefined). Loaders read them as they are (`pd.read_json(lines=True)`, `pl.read_csv`,
///   DuckDB's `read_csv`).
/// - table: a header line, then one line per row; text columns left-aligned, numbers
///   right-aligned, two spaces between columns; a missing value is `-`. When the columns do not
///   fit in `tableWidth` display columns, they are split into panels (separated by a blank line),
///   each repeating the strategy and day columns and holding as many metrics as fit (at least
///   one).
package enum StatsWriter {
  /// Digits after the point in the table.
  package static let tableDecimals = 4
  /// The widest table line, in display columns, before the metrics are split into panels.
  package static let tableWidth = 100

  /// The whole output of `table` in `format`.
  package static func render(_ table: StatsTable, format: StatsFormat) -> [UInt8] {
    var out: [UInt8] = []
    switch format {
    case .json: appendJSON(table, to: &out)
    case .jsonl: appendTidy(table, json: true, to: &out)
    case .csv: appendTidy(table, json: false, to: &out)
    case .table: appendTable(table, to: &out)
    }
    return out
  }

  /// Writes the whole output of `table` in `format` to `output`.
  package static func write(_ table: StatsTable, format: StatsFormat, to output: ByteOutput)
    throws(DeckIOError)
  {
    try output.write(render(table, format: format))
  }

  /// The columns of the tidy forms, in order.
  package static let tidyColumns = ["strategy", "day", "overall", "metric", "value"]

  private static func appendJSON(_ table: StatsTable, to out: inout [UInt8]) {
    JSONWriter.append(to: &out) { w in
      w.beginObject()
      if let run = table.run {
        w.key("run")
        run.write(to: &w)
        w.layout("\n")
      }
      w.key("parameters")
      w.beginObject()
      for p in table.parameters {
        w.key(p.name)
        writeCell(p.value, to: &w)
      }
      w.endObject()
      w.layout("\n")
      w.key("rows")
      w.beginArray()
      for row in table.rows {
        w.layout("\n")
        w.beginObject()
        w.field("strategy", row.strategy)
        w.field("day", row.day)
        w.field("overall", bool: row.day == nil)
        for (column, cell) in zip(table.columns, row.cells) {
          w.key(column)
          writeCell(cell, to: &w)
        }
        w.endObject()
      }
      if !table.rows.isEmpty { w.layout("\n") }
      w.endArray()
      w.endObject()
      w.layout("\n")
    }
  }

  /// A cell of the JSON document: a count as an integer, a number in its round-trip form, a
  /// missing or non-finite value as `null`.
  private static func writeCell(_ cell: StatsCell, to w: inout JSONWriter) {
    switch cell {
    case .count(let n): w.int(n)
    case .number(let x): w.roundTrip(x)
    case .missing: w.null()
    }
  }

  /// The tidy forms: one record per row and column; JSON Lines objects, or CSV under a header.
  private static func appendTidy(_ table: StatsTable, json: Bool, to out: inout [UInt8]) {
    if !json {
      out.append(contentsOf: tidyColumns.joined(separator: ",").utf8)
      out.append(0x0A)
    }
    for row in table.rows {
      for (column, cell) in zip(table.columns, row.cells) {
        if json {
          JSONWriter.append(to: &out) { w in
            w.beginObject()
            w.field("strategy", row.strategy)
            w.field("day", row.day)
            w.field("overall", bool: row.day == nil)
            w.field("metric", column)
            w.key("value")
            switch cell {
            // Always a floating-point number: `3.0` for a count.
            case .count(let n): w.roundTrip(Double(n))
            case .number(let x): w.roundTrip(x)
            case .missing: w.null()
            }
            w.endObject()
            w.layout("\n")
          }
        } else {
          Text.appendCSVField(row.strategy, to: &out)
          out.append(UInt8(ascii: ","))
          if let day = row.day { Text.appendCSVField(day, to: &out) }
          out.append(contentsOf: (row.day == nil ? ",true," : ",false,").utf8)
          Text.appendCSVField(column, to: &out)
          out.append(UInt8(ascii: ","))
          appendTidyValue(cell, missing: "", to: &out)
          out.append(0x0A)
        }
      }
    }
  }

  /// A tidy value: always a floating-point number (`3.0` for a count), or `missing`.
  private static func appendTidyValue(_ cell: StatsCell, missing: String, to out: inout [UInt8]) {
    switch cell {
    case .count(let n): out.append(contentsOf: Text.roundTrip(Double(n)).utf8)
    case .number(let x) where x.isFinite: out.append(contentsOf: Text.roundTrip(x).utf8)
    case .number, .missing: out.append(contentsOf: missing.utf8)
    }
  }

  private static func appendTable(_ table: StatsTable, to out: inout [UInt8]) {
    let header = ["strategy", "day"] + table.columns
    let lines: [[String]] = table.rows.map { row in
      [row.strategy, row.day ?? "all"]
        + row.cells.map { cell in
          var b: [UInt8] = []
          appendCell(cell, missing: "-", decimals: tableDecimals, to: &b)
          return String(decoding: b, as: UTF8.self)
        }
    }
    var widths = header.map(Text.displayWidth)
    for line in lines {
      for (n, field) in line.enumerated() { widths[n] = max(widths[n], Text.displayWidth(field)) }
    }
    // Panels: the metric columns that fit in `tableWidth` after the strategy and day columns
    // (at least one per panel), each panel repeating strategy and day.
    let keyWidth = widths[0] + 2 + widths[1]
    var panels: [Range<Int>] = []
    var first = 2
    while first < header.count || panels.isEmpty {
      var end = first
      var width = keyWidth
      while end < header.count && (end == first || width + 2 + widths[end] <= tableWidth) {
        width += 2 + widths[end]
        end += 1
      }
      panels.append(first..<end)
      first = end
    }
    for (p, panel) in panels.enumerated() {
      if p > 0 { out.append(0x0A) }
      for line in [header] + lines {
        var text = Text.padRight(line[0], widths[0]) + "  "
        text += panel.isEmpty ? line[1] : Text.padRight(line[1], widths[1])
        for n in panel { text += "  " + Text.padLeft(line[n], widths[n]) }
        out.append(contentsOf: text.utf8)
        out.append(0x0A)
      }
    }
  }

  /// A cell: counts whole; numbers with `decimals` digits, or in full precision (the shortest
  /// round-trip form) when `decimals` is nil (JSON and CSV).
  private static func appendCell(
    _ cell: StatsCell, missing: String, decimals: Int?, to out: inout [UInt8]
  ) {
    switch cell {
    case .count(let n):
      if n < 0 { out.append(UInt8(ascii: "-")) }
      Text.appendInt(UInt64(n.magnitude), to: &out)
    case .number(let x) where x.isFinite:
      if let decimals {
        Text.appendFixed(x, decimals: decimals, to: &out)
      } else {
        out.append(contentsOf: Text.roundTrip(x).utf8)
      }
    case .number, .missing:
      out.append(contentsOf: missing.utf8)
    }
  }
}
