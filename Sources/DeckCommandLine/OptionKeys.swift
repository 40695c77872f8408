/// An option declared once, as a value a command lists in its spec (`key.spec`) and reads its
/// value with (`args.value(key)`): a misspelt key is a compile error, and the type of the value
/// and how its text is read are stated where the option is declared.
public protocol OptionKey: Sendable {
  var spec: CommandOption { get set }
}

extension OptionKey {
  /// The same option (name, kind and value type) declared with other help, placeholder, default
  /// or choices: for a command whose wording differs from the shared declaration that code
  /// shared by several commands reads it with.
  public func with(_ edit: (inout CommandOption) -> Void) -> Self {
    var copy = self
    edit(&copy.spec)
    precondition(
      copy.spec.name == spec.name && copy.spec.kind == spec.kind,
      "'--\(spec.name)' keeps its name and kind")
    return copy
  }

  /// The same option with other help.
  public func with(help: String) -> Self { with { $0.help = help } }
}

/// `--name`, present or absent.
public struct Flag: OptionKey {
  public var spec: CommandOption

  public init(_ name: String, short: Character? = nil, help: String, isHidden: Bool = false) {
    spec = .flag(name, short: short, help: help, isHidden: isHidden)
  }
}

/// `--name <value>`, at most once, read as a `Value`; a text the type rejects is a usage error
/// "invalid value 'x' for '--name'; expected <expected>".
public struct Option<Value>: OptionKey {
  public var spec: CommandOption
  /// What a valid value looks like, for the usage error.
  let expected: String
  let convert: @Sendable (String) -> Value?

  public init(
    _ name: String, short: Character? = nil, valueName: String? = nil,
    default defaultValue: String? = nil, choices: [String]? = nil, help: String,
    isHidden: Bool = false, expected: String, _ convert: @escaping @Sendable (String) -> Value?
  ) {
    spec = .option(
      name, short: short, valueName: valueName, default: defaultValue, choices: choices,
      help: help, isHidden: isHidden)
    self.expected = expected
    self.convert = convert
  }
}

extension Option where Value == String {
  /// An option whose value is its text.
  public init(
    _ name: String, short: Character? = nil, valueName: String? = nil,
    default defaultValue: String? = nil, choices: [String]? = nil, help: String,
    isHidden: Bool = false
  ) {
    self.init(
      name, short: short, valueName: valueName, default: defaultValue, choices: choices,
      help: help, isHidden: isHidden, expected: "text", { $0 })
  }
}

/// A type an option's text is read as without a conversion of its own: whole numbers, seeds and
/// decimal numbers.
public protocol OptionText {
  /// What a valid text looks like, for the usage error.
  static var expected: String { get }
  init?(optionText: String)
}

extension Int: OptionText {
  /// Decimal digits, optional sign.
  public static var expected: String { "a whole number like 10" }
  public init?(optionText text: String) { self.init(text) }
}

extension UInt64: OptionText {
  public static var expected: String { "a whole number from 0 to \(UInt64.max)" }
  public init?(optionText text: String) { self.init(text) }
}

extension Double: OptionText {
  /// Finite numbers only.
  public static var expected: String { "a number like 0.5" }
  public init?(optionText text: String) {
    guard let v = Double(text), v.isFinite else { return nil }
    self = v
  }
}

extension Option where Value: OptionText {
  /// An option read as `Value` (`Option<Int>`, `Option<UInt64>`, `Option<Double>`).
  public init(
    _ name: String, short: Character? = nil, valueName: String? = nil,
    default defaultValue: String? = nil, help: String, isHidden: Bool = false
  ) {
    self.init(
      name, short: short, valueName: valueName, default: defaultValue, help: help,
      isHidden: isHidden, expected: Value.expected, { Value(optionText: $0) })
  }
}

/// `--name <value>`, any number of times, each value its text.
public struct Repeatable: OptionKey {
  public var spec: CommandOption

  public init(
    _ name: String, short: Character? = nil, valueName: String? = nil, choices: [String]? = nil,
    help: String, isHidden: Bool = false
  ) {
    spec = .repeatable(
      name, short: short, valueName: valueName, choices: choices, help: help, isHidden: isHidden)
  }
}

extension ParsedArguments {
  /// Whether this command declares the option (for code shared by several commands).
  public func declares(_ key: some OptionKey) -> Bool { declares(key.spec.name) }

  /// Whether the option was given on the command line (a default does not count).
  public func isGiven(_ key: some OptionKey) -> Bool { isGiven(key.spec.name) }

  /// Whether the flag was given.
  public func flag(_ key: Flag) -> Bool { flag(key.spec.name) }

  /// The value given, or the declared default, or nil.
  public func value(_ key: Option<String>) -> String? { value(key.spec.name) }

  /// The value (or default) read as the key's type; a text it rejects is a usage error.
  public func value<Value>(_ key: Option<Value>) throws -> Value? {
    try value(key.spec.name, expected: key.expected, key.convert)
  }

  /// Every value given, in order.
  public func values(_ key: Repeatable) -> [String] { values(key.spec.name) }

  /// Each value of a repeatable `key=value` option, split at the first "=".
  public func keyValuePairs(_ key: Repeatable) throws -> [(key: String, value: String)] {
    try keyValuePairs(key.spec.name)
  }
}
