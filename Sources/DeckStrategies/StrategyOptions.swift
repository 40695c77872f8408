import DeckBase

/// Options for one strategy, checked against its description: unknown keys and ill-typed or
/// out-of-range values are errors naming the key; missing keys take their defaults.
package struct StrategyOptions: Sendable, Equatable {
  package let strategy: String
  private var values: [String: OptionValue]
  /// The options given, as written.
  private let raw: [String: String]

  /// Validates raw `key=value` strings (from config or `--option`).
  package init(raw: [String: String], for description: StrategyDescription) throws(StrategyError) {
    strategy = description.identifier
    var values: [String: OptionValue] = [:]
    for spec in description.options { values[spec.name] = spec.defaultValue }
    let known = description.options.map(\.name)
    for key in raw.keys.sorted() {
      let text = raw[key]!
      guard let spec = description.options.first(where: { $0.name == key }) else {
        throw .unknownOption(strategy: strategy, key: key, known: known)
      }
      values[key] = try StrategyOptions.parse(text, spec, strategy: strategy)
    }
    for spec in description.options where raw[spec.name] == nil {
      if let implied = spec.implied, implied.keys.contains(where: { raw[$0] != nil }) {
        values[spec.name] = implied.value
      }
    }
    self.values = values
    self.raw = raw
  }

  /// The value of `key` as given, nil when it takes its default (or an implied value).
  package func given(_ key: String) -> String? { raw[key] }

  static func parse(_ text: String, _ spec: OptionSpec, strategy: String) throws(StrategyError)
    -> OptionValue
  {
    func bad(_ expected: String) -> StrategyError {
      .invalidOption(strategy: strategy, key: spec.name, value: text, expected: expected)
    }
    func inRange(_ v: Double) -> Bool { spec.range.map { $0.contains(v) } ?? true }
    // A plugin declares its own bounds: they may be beyond any Int (or not whole).
    func bound(_ x: Double) -> String {
      if spec.type == .int, x.isFinite, x == x.rounded(), abs(x) < 0x1p63 { return "\(Int(x))" }
      return "\(x)"
    }
    let kind = spec.type == .int ? "a whole number" : "a number"
    let expected = spec.range.map { r in
      RangeText.span(kind, from: bound(r.lowerBound), to: bound(r.upperBound))
    }
    // Not of the kind at all: "'abc' is not a number; give a number from 0.0 to 1.0".
    func not(_ what: String) -> StrategyError {
      bad(what + (expected.map { "; give \($0)" } ?? ""))
    }
    // Of the kind, outside the range: "'2' is out of range: give a number from 0.0 to 1.0".
    func outOfRange() -> StrategyError {
      .optionOutOfRange(
        strategy: strategy, key: spec.name, value: text, expected: expected ?? kind)
    }
    switch spec.type {
    case .double:
      guard let v = Double(text) else { throw not("a number") }
      // "inf", "nan", "1e999": numbers, but none a score can use.
      guard v.isFinite else { throw not("a finite number") }
      guard inRange(v) else { throw outOfRange() }
      return .double(v)
    case .int:
      // A whole number in any decimal form (`1e3` is 1000); one an Int cannot hold (`1e30`, or
      // too many digits) is a whole number beyond every range.
      switch RangeText.whole(text, as: Int.self) {
      case .value(let v):
        guard inRange(Double(v)) else { throw outOfRange() }
        return .int(v)
      case .outOfRange: throw outOfRange()
      case .notWhole: throw not("a whole number")
      }
    case .bool:
      switch text {
      case "true": return .bool(true)
      case "false": return .bool(false)
      default: throw bad("true or false")
      }
    case .string:
      return .string(text)
    }
  }

  package func double(_ key: String) -> Double {
    switch values[key] {
    case .double(let v): return v
    case .int(let v): return Double(v)
    default: preconditionFailure("option '\(key)' is not a declared number option")
    }
  }

  package func int(_ key: String) -> Int {
    guard case .int(let v) = values[key] else {
      preconditionFailure("option '\(key)' is not a declared integer option")
    }
    return v
  }

  package func bool(_ key: String) -> Bool {
    guard case .bool(let v) = values[key] else {
      preconditionFailure("option '\(key)' is not a declared boolean option")
    }
    return v
  }

  package func string(_ key: String) -> String {
    guard case .string(let v) = values[key] else {
      preconditionFailure("option '\(key)' is not a declared string option")
    }
    return v
  }

  /// A string option that names one case of `E`; any other spelling is refused with the cases.
  package func choice<E: RawRepresentable & CaseIterable>(_ key: String, _: E.Type)
    throws(StrategyError) -> E where E.RawValue == String
  {
    let text = string(key)
    guard let value = E(rawValue: text) else {
      throw .invalidOption(
        strategy: strategy, key: key, value: text,
        expected: "one of " + E.allCases.map(\.rawValue).joined(separator: ", "))
    }
    return value
  }

  /// All values, sorted by key (for run headers).
  package var all: [(String, OptionValue)] {
    values.keys.sorted().map { ($0, values[$0]!) }
  }
}
