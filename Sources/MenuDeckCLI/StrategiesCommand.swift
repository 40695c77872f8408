import DeckBase
import DeckCommandLine
import DeckIO
import DeckJobs
import DeckStrategies

let strategiesCommand = CommandSpec(
  name: "strategies",
  abstract: "List the ranking strategies with their options.",
  discussion: """
    Lists every built-in strategy with its one-line summary and its options (type, default, \
    the values 'tune' and 'compare --tune' try, meaning), and the named configurations of the \
    config file (with those it includes), if there is one.
    """,
  options: [InputOptions.config.spec, StrategyListing.format.spec],
  run: { args, context in
    let request = try StrategiesRequest(args, context)
    let outcome = StrategiesJob.run(request, context.job)
    let (descriptions, named) = (outcome.descriptions, outcome.named)
    switch request.format {
    case .json:
      context.io.stdout.write(
        StrategyListing.json(descriptions, named, run: RunRecord(context, inputs: outcome.inputs)))
    case .jsonl:
      context.io.stdout.write(descriptions.map { StrategyListing.json($0) + "\n" }.joined())
    case .table:
      context.io.stdout.write(StrategyListing.table(descriptions, named))
    }
    return .success
  })

/// The listing in its three formats. (Here, not in DeckJobs, while the table's option values
/// are written by `Tuning.optionText`, which is the command line's.)
enum StrategyListing {
  static let format = InputOptions.format.with {
    $0.defaultValue = "table"
    $0.choices = ["table", "json", "jsonl"]
    $0.help =
      "Output format: json has the run header and the named configurations; jsonl is one"
      + " strategy object per line."
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
