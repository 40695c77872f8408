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
