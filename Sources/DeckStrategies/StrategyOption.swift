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

  /// The value of a number option, as a Double.
  package var number: Double? {
    switch self {
    case .double(let v): return v
    case .int(let v): return Double(v)
    case .bool, .string: return nil
    }
  }

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
  /// The values `compare --tune` and `tune` try for this option when no `--grid` names it (the
  /// default is tried too, listed here or not); empty: the option is not tuned by default. A
  /// small grid: every tuned option of a strategy multiplies the candidates.
  package let tuning: [OptionValue]
  /// A default that other options change: when one of `implied.keys` is given and this option
  /// is not, it takes `implied.value` instead of `defaultValue` (giving `prior_likes` makes
  /// `prior` fixed).
  package let implied: OptionImplication?

  package init(
    _ name: String, _ type: OptionType, default defaultValue: OptionValue,
    range: ClosedRange<Double>? = nil, implied: OptionImplication? = nil,
    tuning: [OptionValue] = [], _ meaning: String
  ) {
    self.name = name
    self.type = type
    self.defaultValue = defaultValue
    self.meaning = meaning
    self.range = range
    self.tuning = tuning
    self.implied = implied
  }

  /// The values a default grid tries: `tuning` with the default among them (numbers in
  /// ascending order, else the default first when it is not listed); empty when the option is
  /// not tuned by default.
  package var defaultGrid: [OptionValue] {
    guard !tuning.isEmpty else { return [] }
    guard !tuning.contains(defaultValue) else { return tuning }
    let values = tuning + [defaultValue]
    let numbers = values.compactMap(\.number)
    guard numbers.count == values.count else { return [defaultValue] + tuning }
    return zip(numbers, values).sorted { $0.0 < $1.0 }.map(\.1)
  }
}

/// The value an option takes, instead of its default, when any of `keys` is given and it is not.
package struct OptionImplication: Sendable, Equatable {
  package let keys: [String]
  package let value: OptionValue
}
