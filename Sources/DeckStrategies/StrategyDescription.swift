import DeckBase
import DeckCore

/// The type of a strategy option.
public enum OptionType: String, Sendable, Equatable {
  case double, int, bool, string
}

/// A typed option value.
public enum OptionValue: Sendable, Equatable, CustomStringConvertible {
  case double(Double)
  case int(Int)
  case bool(Bool)
  case string(String)

  public var description: String {
    switch self {
    case .double(let v): return String(v)
    case .int(let v): return String(v)
    case .bool(let v): return String(v)
    case .string(let v): return v
    }
  }
}

/// One option a strategy accepts.
public struct OptionSpec: Sendable, Equatable {
  public let name: String
  public let type: OptionType
  public let defaultValue: OptionValue
  public let meaning: String
  /// Inclusive bounds for numeric options.
  public let range: ClosedRange<Double>?

  public init(
    _ name: String, _ type: OptionType, default defaultValue: OptionValue,
    range: ClosedRange<Double>? = nil, _ meaning: String
  ) {
    self.name = name
    self.type = type
    self.defaultValue = defaultValue
    self.meaning = meaning
    self.range = range
  }
}

/// One worked example: a tiny catalog and log, a diner, and the order the strategy must give.
/// Every registered strategy's examples run as tests.
public struct StrategyExample: Sendable, Equatable {
  public let summary: String
  /// Items as "id:category" or "id:category:tag1|tag2".
  public let items: [String]
  /// Events as "user item right|left YYYY-MM-DD".
  public let events: [String]
  public let user: String
  public let date: String
  public let options: [String: String]
  public let seed: UInt64
  /// Expected item ids, best first (all candidates, ordered by score then catalog order).
  public let expected: [String]

  public init(
    _ summary: String, items: [String], events: [String] = [], user: String = "u1",
    date: String = "2026-01-10", options: [String: String] = [:], seed: UInt64 = 42,
    expected: [String]
  ) {
    self.summary = summary
    self.items = items
    self.events = events
    self.user = user
    self.date = date
    self.options = options
    self.seed = seed
    self.expected = expected
  }
}

/// What a strategy says about itself: shown by `menudeck strategies` and used to check options.
public struct StrategyDescription: Sendable, Equatable {
  public let identifier: String
  public let summary: String
  public let options: [OptionSpec]
  public let examples: [StrategyExample]

  public init(
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
public enum StrategyError: Error, Equatable, Sendable, CustomStringConvertible {
  case unknownStrategy(String, known: [String])
  case unknownOption(strategy: String, key: String, known: [String])
  case invalidOption(strategy: String, key: String, value: String, expected: String)
  case failed(strategy: String, message: String)
  /// An external plugin failed (see `PluginFault` for the kinds).
  case plugin(PluginFault)

  public var description: String {
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
    case .failed(let strategy, let message):
      return "strategy '\(strategy)': \(message)"
    case .plugin(let fault):
      return "strategy '\(fault.plugin)': \(fault.request): \(fault.message)"
    }
  }
}
