import DeckBase
import DeckCore

/// What a strategy says about itself: shown by `menudeck strategies` and used to check options.
package struct StrategyDescription: Sendable, Equatable {
  package let identifier: String
  package let summary: String
  package let options: [OptionSpec]
  package let examples: [StrategyExample]

  package init(
    identifier: String, summary: String, options: [OptionSpec] = [],
    examples: [StrategyExample] = []
  ) {
    self.identifier = identifier
    self.summary = summary
    self.options = options
    self.examples = examples
  }
}

/// Errors of the strategy layer.
package enum StrategyError: Error, Equatable, Sendable, CustomStringConvertible {
  case unknownStrategy(String, known: [String])
  case unknownOption(strategy: String, key: String, known: [String])
  case invalidOption(strategy: String, key: String, value: String, expected: String)
  /// A number of the option's kind outside its declared range; `expected`: "a number from 0.0
  /// to 1.0" (`RangeText`).
  case optionOutOfRange(strategy: String, key: String, value: String, expected: String)
  case failed(strategy: String, message: String)
  /// An external plugin failed (see `PluginFault` for the kinds).
  case plugin(PluginFault)

  package var description: String {
    switch self {
    case .unknownStrategy(let name, let known):
      return "unknown strategy '\(name)'\(didYouMean(name, known)); valid strategies: "
        + known.joined(separator: ", ")
    case .unknownOption(let strategy, let key, let known):
      let valid =
        known.isEmpty ? "it takes no options" : "valid options: " + known.joined(separator: ", ")
      return "strategy '\(strategy)' has no option '\(key)'\(didYouMean(key, known)); \(valid)"
    case .invalidOption(let strategy, let key, let value, let expected):
      return "strategy '\(strategy)' option '\(key)': '\(value)' is not \(expected)"
    case .optionOutOfRange(let strategy, let key, let value, let expected):
      return "strategy '\(strategy)' option '\(key)': "
        + RangeText.outOfRange(value, give: expected)
    case .failed(let strategy, let message):
      return "strategy '\(strategy)': \(message)"
    case .plugin(let fault):
      return "strategy '\(fault.plugin)': \(fault.request): \(fault.message)"
    }
  }
}
