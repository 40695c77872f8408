import DeckBase

/// The forms of a tuning's grid (`menudeck tune --format`).
package enum TuningFormat: String, Sendable, CaseIterable {
  case table, csv, jsonl
}

/// A tuning's grid as people read it (a table of the chosen metric) or as tidy rows (CSV, JSON
/// Lines: one row per candidate setting and metric, every ranking metric of the validation).
package enum TuningWriter {
  /// The columns of the CSV, in order (JSON Lines adds `options` after `setting`).
  package static let csvColumns = [
    "strategy", "candidate", "setting", "metric", "value", "selected",
  ]

  /// `result` in `format`; `title`: the table's first line (what was tuned on which
  /// validation).
  package static func render(_ result: TuningResult, format: TuningFormat, title: String) -> String
  {
    switch format {
    case .table: return table(result, title: title)
    case .csv: return tidy(result, json: false)
    case .jsonl: return tidy(result, json: true)
    }
  }

  /// A value as JSON text: a number or a boolean when the text is one in JSON, else a string.
  /// Option values are text (as `--option` takes them); written this way a config reads back
  /// the same text, and a loader sees numbers as numbers.
  package static func jsonValue(_ text: String) -> String {
    if text == "true" || text == "false" { return text }
    if let value = try? JSONReader.parse(Array(text.utf8), file: ""),
      case .number = value.kind
    {
      return text
    }
    return JSONText.string(text)
  }

  private static func tidy(_ result: TuningResult, json: Bool) -> String {
    func number(_ x: Double?) -> String {
      x.flatMap { $0.isFinite ? Text.roundTrip($0) : nil } ?? (json ? "null" : "")
    }
    func text(_ s: String) -> String { json ? JSONText.string(s) : ReportText.csvField(s) }
    var out = json ? "" : csvColumns.joined(separator: ",") + "\n"
    for (c, setting) in result.candidates.enumerated() {
      let options =
        "{"
        + setting.map { JSONText.string($0.key) + ":" + jsonValue($0.value) }.joined(
          separator: ",") + "}"
      for (m, metric) in result.metrics.enumerated() {
        let fields: [(String, String)] =
          [
            ("strategy", text(result.strategy)), ("candidate", String(c + 1)),
            ("setting", text(result.spellings[c])),
          ]
          + (json ? [("options", options)] : [])
          + [
            ("metric", text(metric.name)), ("value", number(result.values[c][m])),
            ("selected", result.selected == c ? "true" : "false"),
          ]
        if json {
          out += "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}\n"
        } else {
          out += fields.map(\.1).joined(separator: ",") + "\n"
        }
      }
    }
    return out
  }

  private static func table(_ result: TuningResult, title: String) -> String {
    let clean = ReportText.plain
    let metric = result.metrics[result.metric]
    var out = clean(title) + "\n\n"
    let settings = result.spellings.map(clean)
    let settingWidth = max(7, settings.map(Text.displayWidth).max() ?? 0)
    let valueWidth = max(10, Text.displayWidth(metric.name))
    out +=
      "candidate  " + Text.padRight("setting", settingWidth) + "  "
      + Text.padLeft(metric.name, valueWidth) + "\n"
    for (c, setting) in settings.enumerated() {
      let value = result.values[c][result.metric].map { Text.fixed($0, decimals: 4) } ?? "-"
      out +=
        Text.padLeft(String(c + 1), 9) + "  " + Text.padRight(setting, settingWidth)
        + "  " + Text.padLeft(value, valueWidth)
        + (result.selected == c ? "  <- selected" : "") + "\n"
    }
    return out
  }
}
