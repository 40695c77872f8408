import DeckBase
import DeckEvaluation

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
    JSONWriter.text { writeValue(text, to: &$0) }
  }

  /// Writes `jsonValue(text)` as the next value of `w`.
  package static func writeValue(_ text: String, to w: inout JSONWriter) {
    if text == "true" || text == "false" {
      w.bool(text == "true")
    } else if let value = try? JSONReader.parse(Array(text.utf8), file: ""),
      case .number = value.kind
    {
      w.number(text: text)
    } else {
      w.string(text)
    }
  }

  private static func tidy(_ result: TuningResult, json: Bool) -> String {
    if json { return jsonLines(result) }
    func number(_ x: Double?) -> String {
      x.flatMap { $0.isFinite ? Text.roundTrip($0) : nil } ?? ""
    }
    var out = csvColumns.joined(separator: ",") + "\n"
    for (c, _) in result.candidates.enumerated() {
      for (m, metric) in result.metrics.enumerated() {
        let fields = [
          ReportText.csvField(result.strategy), String(c + 1),
          ReportText.csvField(result.spellings[c]), ReportText.csvField(metric.name),
          number(result.values[c][m]), result.selected == c ? "true" : "false",
        ]
        out += fields.joined(separator: ",") + "\n"
      }
    }
    return out
  }

  /// The JSON Lines form: the CSV's columns, with `options` (the candidate's option values)
  /// after `setting`.
  private static func jsonLines(_ result: TuningResult) -> String {
    var w = JSONWriter()
    for (c, setting) in result.candidates.enumerated() {
      for (m, metric) in result.metrics.enumerated() {
        w.beginObject()
        w.field("strategy", result.strategy)
        w.field("candidate", int: c + 1)
        w.field("setting", result.spellings[c])
        w.key("options")
        w.beginObject()
        for option in setting {
          w.key(option.key)
          writeValue(option.value, to: &w)
        }
        w.endObject()
        w.field("metric", metric.name)
        w.key("value")
        if let value = result.values[c][m] { w.roundTrip(value) } else { w.null() }
        w.field("selected", bool: result.selected == c)
        w.endObject()
        w.layout("\n")
      }
    }
    return w.text
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
