/// The type of a strategy option.
package enum OptionType: String, Sendable, Equatable {
  case double, int, bool, string
}

/// A typed option value.
package enum OptionValue: Sendable, Equatable, CustomStringConvertible {
  case double(Double)
  case int(Int)
  case bool(Bool)
  case string(String)

  package var description: String {
    switch self {
    case .double(let v): return String(v)
    case .int(let v): return String(v)
    case .bool(let v): return String(v)
    case .string(let v): return v
    }
  }
}

/// One option a strategy accepts.
package struct OptionSpec: Sendable, Equatable {
  package let name: String
  package let type: OptionType
  package let defaultValue: OptionValue
  package let meaning: String
  /// Inclusive bounds for numeric options.
  package let range: ClosedRange<Double>?
  /// A default that other options change: when one of `implied.keys` is given and this option
  /// is not, it takes `implied.value` instead of `defaultValue` (giving `prior_likes` makes
  /// `prior` fixed).
  package let implied: OptionImplication?

  package init(
    _ name: String, _ type: OptionType, default defaultValue: OptionValue,
    range: ClosedRange<Double>? = nil, implied: OptionImplication? = nil, _ meaning: String
  ) {
    self.name = name
    self.type = type
    self.defaultValue = defaultValue
    self.meaning = meaning
    self.range = range
    self.implied = implied
  }
}

/// The value an option takes, instead of its default, when any of `keys` is given and it is not.
package struct OptionImplication: Sendable, Equatable {
  package let keys: [String]
  package let value: OptionValue

  package init(keys: [String], value: OptionValue) {
    self.keys = keys
    self.value = value
  }
}
