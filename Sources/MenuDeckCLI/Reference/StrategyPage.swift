import DeckCommandLine
import DeckStrategies

/// The generated part of docs/strategies.md: every built-in's identifier, summary, options
/// (type, default, range, the default grid of `tune`, meaning) and worked examples, as its `StrategyDescription` declares
/// them. The examples run as tests (Tests/DeckStrategiesTests/ExampleTests.swift), so the orders shown are checked.
enum StrategyPage {
  static func markdown(_ strategies: [StrategyDescription]) -> String {
    var out = "## Built-in strategies\n\n"
    out += "| strategy | summary |\n|---|---|\n"
    for strategy in strategies {
      out +=
        "| [" + strategy.identifier + "](#" + strategy.identifier + ") | "
        + ReferenceEscaping.cell(strategy.summary) + " |\n"
    }
    out += "\n"
    for strategy in strategies { out += section(strategy) }
    return out
  }

  static func section(_ strategy: StrategyDescription) -> String {
    var out = "### " + strategy.identifier + "\n\n"
    out += ReferenceEscaping.markdown(strategy.summary) + "\n\n"
    if strategy.options.isEmpty {
      out += "Options: none.\n\n"
    } else {
      out +=
        "| option | type | default | range | tuned over | meaning |\n|---|---|---|---|---|---|\n"
      for option in strategy.options {
        let range =
          option.range.map {
            ReferenceNumber.text($0.lowerBound) + " to " + ReferenceNumber.text($0.upperBound)
          } ?? ""
        out +=
          "| `" + option.name + "` | " + option.type.rawValue + " | "
          + ReferenceEscaping.code(ReferenceNumber.text(option.defaultValue)) + " | " + range
          + " | "
          + option.defaultGrid.map { ReferenceNumber.text($0) }.joined(separator: ", ")
          + " | " + ReferenceEscaping.cell(option.meaning) + " |\n"
      }
      out += "\n"
    }
    if !strategy.examples.isEmpty {
      out += "Examples (each runs as a test):\n\n"
      for example in strategy.examples { out += "- " + self.example(example) + "\n" }
      out += "\n"
    }
    return out
  }

  /// One example on one list item: what it shows, its inputs, and the order it must give.
  static func example(_ example: StrategyExample) -> String {
    var parts = [ReferenceEscaping.markdown(example.summary)]
    parts.append("catalog " + example.items.map(ReferenceEscaping.code).joined(separator: ", "))
    if !example.events.isEmpty {
      parts.append("log " + example.events.map(ReferenceEscaping.code).joined(separator: ", "))
    } else {
      parts.append("no history")
    }
    var run = "diner `\(example.user)` on \(example.date), seed \(example.seed)"
    if !example.options.isEmpty {
      run +=
        ", options "
        + example.options.keys.sorted().map {
          ReferenceEscaping.code("\($0)=\(example.options[$0]!)")
        }
        .joined(separator: " ")
    }
    parts.append(run)
    return parts.joined(separator: "; ") + "; gives "
      + example.expected.map(ReferenceEscaping.code).joined(separator: " ")
  }
}

/// Numbers of the strategy descriptions as a reader types them: whole numbers without ".0".
enum ReferenceNumber {
  static func text(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
  }

  static func text(_ value: OptionValue) -> String {
    switch value {
    case .double(let d): return text(d)
    case .int(let i): return String(i)
    case .bool(let b): return b ? "true" : "false"
    case .string(let s): return s
    }
  }
}
