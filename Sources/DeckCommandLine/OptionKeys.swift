import DeckBase

/// An option declared once, as a value a command lists in its spec (`key.spec`) and reads its
/// value with (`args.value(key)`): a misspelt key is a compile error, and the type of the value
/// and how its text is read are stated where the option is declared.
package protocol OptionKey: Sendable {
  var spec: CommandOption { get set }
}

extension OptionKey {
  /// The same option (name, kind and value type) declared with other help, placeholder, default
  /// or choices: for a command whose wording differs from the shared declaration that code
  /// shared by several commands reads it with.
  package func with(_ edit: (inout CommandOption) -> Void) -> Self {
    var copy = self
    edit(&copy.spec)
    precondition(
      copy.spec.name == spec.name && copy.spec.kind == spec.kind,
      "'--\(spec.name)' keeps its name and kind")
    return copy
  }

  /// The same option with other help.
  package func with(help: String) -> Self { with { $0.help = help } }
}

/// `--name`, present or absent.
package struct Flag: OptionKey {
  package var spec: CommandOption

  package init(_ name: String, short: Character? = nil, help: String, isHidden: Bool = false) {
    spec = .flag(name, short: short, help: help, isHidden: isHidden)
  }
}

/// `--name <value>`, at most once, read as a `Value`; a text the type rejects is a usage error
/// "invalid value 'x' for '--name'; expected <expected>".
package struct Option<Value>: OptionKey {
  package var spec: CommandOption
  /// What a valid value looks like, for the usage error.
  let expected: String
  let convert: @Sendable (String) -> Value?
  /// For a whole-number type: its whole range ("a whole number from 0 to ..."), for a whole
  /// number it cannot hold, which is out of range rather than not a number.
  var wholeRange: String?

  package init(
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
  package init(
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
package protocol OptionText {
  /// What a valid text looks like, for the usage error.
  static var expected: String { get }
  /// For a whole-number type, its range ("a whole number from 0 to ..."); nil for others.
  static var wholeRange: String? { get }
  init?(optionText: String)
}

extension OptionText {
  package static var wholeRange: String? { nil }
}

extension Int: OptionText {
  /// Decimal digits, optional sign.
  package static var expected: String { "a whole number like 10" }
  package static var wholeRange: String? {
    RangeText.span("a whole number", from: "\(Int.min)", to: "\(Int.max)")
  }
  package init?(optionText text: String) { self.init(text) }
}

extension UInt64: OptionText {
  package static var expected: String { "a whole number from 0 to \(UInt64.max)" }
  package static var wholeRange: String? { expected }
  package init?(optionText text: String) { self.init(text) }
}

extension Double: OptionText {
  /// Finite numbers only.
  package static var expected: String { "a number like 0.5" }
  package init?(optionText text: String) {
    guard let v = Double(text), v.isFinite else { return nil }
    self = v
  }
}

extension Option where Value: OptionText {
  /// An option read as `Value` (`Option<Int>`, `Option<UInt64>`, `Option<Double>`).
  package init(
    _ name: String, short: Character? = nil, valueName: String? = nil,
    default defaultValue: String? = nil, help: String, isHidden: Bool = false
  ) {
    self.init(
      name, short: short, valueName: valueName, default: defaultValue, help: help,
      isHidden: isHidden, expected: Value.expected, { Value(optionText: $0) })
    wholeRange = Value.wholeRange
  }
}

/// `--name <value>`, any number of times, each value its text.
package struct Repeatable: OptionKey {
  package var spec: CommandOption

  package init(
    _ name: String, short: Character? = nil, valueName: String? = nil, choices: [String]? = nil,
    help: String, isHidden: Bool = false
  ) {
    spec = .repeatable(
      name, short: short, valueName: valueName, choices: choices, help: help, isHidden: isHidden)
  }
}

extension ParsedArguments {
  /// Whether this command declares the option (for code shared by several commands).
  package func declares(_ key: some OptionKey) -> Bool { declares(key.spec.name) }

  /// Whether the option was given on the command line (a default does not count).
  package func isGiven(_ key: some OptionKey) -> Bool { isGiven(key.spec.name) }

  /// Whether the flag was given.
  package func flag(_ key: Flag) -> Bool { flag(key.spec.name) }

  /// The value given, or the declared default, or nil.
  package func value(_ key: Option<String>) -> String? { value(key.spec.name) }

  /// The value (or default) read as the key's type; a text it rejects is a usage error, which
  /// for a whole number the type cannot hold says it is out of range.
  package func value<Value>(_ key: Option<Value>) throws -> Value? {
    let name = key.spec.name
    if let range = key.wholeRange, let text = value(name), RangeText.isWholeNumber(text),
      key.convert(text) == nil
    {
      throw UsageError("'--\(name)': " + RangeText.outOfRange(text, give: range))
    }
    return try value(name, expected: key.expected, key.convert)
  }

  /// Every value given, in order.
  package func values(_ key: Repeatable) -> [String] { values(key.spec.name) }

  /// Each value of a repeatable `key=value` option, split at the first "=".
  package func keyValuePairs(_ key: Repeatable) throws -> [(key: String, value: String)] {
    try keyValuePairs(key.spec.name)
  }
}
