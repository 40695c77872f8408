import DeckBase
import DeckCommandLine
import DeckIO
import DeckJobs
import DeckPlugins
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
    var named: [NamedStrategy] = []
    var inputs: [RunInput] = []
    do {
      let config = try Inputs.loadConfig(args, context.io)
      named = config.strategies.keys.sorted().map { config.strategies[$0]! }
      inputs = RunInputs.config(config)
    } catch let failure as JobError
      where failure.kind == .noInput && !args.isGiven(InputOptions.config)
    {
      // No config here: list the built-ins only.
    }
    var builtins = StrategyRegistry.builtins.map { $0.description }
    // Plugins describe themselves: start each for its handshake only.
    for n in named where n.plugin != nil {
      do {
        builtins.append(
          try PluginStrategy.describe(
            Strategies.configuration(n, n.plugin!, context.io),
            log: Strategies.log(n, context.io)))
      } catch {
        context.warn(
          "plugin '\(n.name)' (\(n.plugin!)) cannot describe itself: \(error)",
          code: "plugin_unavailable")
      }
    }
    switch args.value(StrategyListing.format) {
    case "json":
      context.io.stdout.write(
        StrategyListing.json(builtins, named, run: RunRecord(context, inputs: inputs)))
    case "jsonl":
      context.io.stdout.write(
        builtins.map { StrategyListing.json($0) + "\n" }.joined())
    default:
      context.io.stdout.write(StrategyListing.table(builtins, named))
    }
    return .success
  })

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
