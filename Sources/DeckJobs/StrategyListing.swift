import DeckBase
import DeckIO
import DeckStrategies

/// The listing of `menudeck strategies` in its three formats.
package enum StrategyListing {
  /// The listing of `outcome` in `format`; `run` heads the JSON document.
  package static func render(
    _ format: StrategiesRequest.Format, _ outcome: StrategiesJob.Outcome, run: RunRecord
  ) -> String {
    switch format {
    case .json: return json(outcome.descriptions, outcome.named, run: run)
    case .jsonl: return outcome.descriptions.map { json($0) + "\n" }.joined()
    case .table: return table(outcome.descriptions, outcome.named)
    }
  }

  static func table(_ builtins: [StrategyDescription], _ named: [NamedStrategy]) -> String {
    var out = ""
    for d in builtins {
      out += "\(d.identifier)\n  \(d.summary)\n"
      if d.options.isEmpty {
        out += "  options: none\n"
      } else {
        out += "  options:\n"
        let width = d.options.map { $0.name.count + $0.type.rawValue.count + 3 }.max() ?? 0
        for o in d.options {
          let label = "\(o.name) (\(o.type.rawValue))"
          let tuning =
            o.tuning.isEmpty
            ? "" : ", tuned over " + o.defaultGrid.map(Tuning.optionText).joined(separator: ", ")
          out +=
            "    " + label + String(repeating: " ", count: width - label.count)
            + "  default \(o.defaultValue)\(tuning). \(o.meaning)\n"
        }
      }
      out += "\n"
    }
    if !named.isEmpty {
      out += "named configurations (config file):\n"
      for n in named {
        let options = n.options.keys.sorted().map { "\($0)=\(n.options[$0]!)" }.joined(
          separator: " ")
        let kind = n.plugin.map { "plugin \($0)" } ?? n.use
        out += "  \(n.name): \(kind)" + (options.isEmpty ? "" : " " + options) + "\n"
      }
    }
    return out
  }

  /// One strategy as a JSON object on one line (an element of `strategies`, a line of jsonl).
  static func json(_ d: StrategyDescription) -> String {
    JSONWriter.text { write(d, to: &$0) }
  }

  static func write(_ d: StrategyDescription, to w: inout JSONWriter) {
    w.beginObject()
    w.field("identifier", d.identifier)
    w.field("summary", d.summary)
    w.key("options")
    w.beginArray()
    for o in d.options {
      w.beginObject()
      w.field("name", o.name)
      w.field("type", o.type.rawValue)
      w.key("default")
      JSONReport.value(o.defaultValue, to: &w)
      w.field("meaning", o.meaning)
      if let range = o.range {
        w.key("min")
        JSONReport.bound(range.lowerBound, of: o.type, to: &w)
        w.key("max")
        JSONReport.bound(range.upperBound, of: o.type, to: &w)
      }
      if !o.tuning.isEmpty {
        w.key("tuning")
        w.beginArray()
        for v in o.tuning { JSONReport.value(v, to: &w) }
        w.endArray()
      }
      w.endObject()
    }
    w.endArray()
    w.field("examples", int: d.examples.count)
    w.endObject()
  }

  static func json(_ builtins: [StrategyDescription], _ named: [NamedStrategy], run: RunRecord?)
    -> String
  {
    var w = JSONWriter()
    w.beginObject()
    if let run {
      w.key("run")
      run.write(to: &w)
      w.layout("\n")
    }
    w.key("strategies")
    w.beginArray()
    w.layout("\n")
    for (n, d) in builtins.enumerated() {
      if n > 0 { w.layout("\n") }
      write(d, to: &w)
    }
    w.layout("\n")
    w.endArray()
    w.key("named")
    w.beginArray()
    for n in named {
      w.beginObject()
      w.field("name", n.name)
      if let plugin = n.plugin { w.field("plugin", plugin) } else { w.field("use", n.use) }
      w.key("options")
      w.beginObject()
      for key in n.options.keys.sorted() { w.field(key, n.options[key]!) }
      w.endObject()
      w.endObject()
    }
    w.endArray()
    w.endObject()
    w.layout("\n")
    return w.text
  }
}
