import DeckBase
import DeckCommandLine
import DeckJobs

/// The limits of `DeckJobs.Limits` applied to option values as the command line gives them.
extension Limits {
  /// The value of the whole-number option `key` within `range`, nil when it is not given (and
  /// has no default). A text that is no whole number is the option's usage error ("invalid
  /// value 'x' for '--size'; expected a whole number like 10"); one too long for an Int is out
  /// of range, as any other outside `range`.
  static func value(
    _ args: ParsedArguments, _ key: Option<Int>, in range: ClosedRange<Int>, _ unit: String? = nil
  ) throws -> Int? {
    let name = key.spec.name
    guard let text = args.value(name) else { return nil }
    if RangeText.isWholeNumber(text) && Int(text) == nil {
      throw outOfRange(name, text, give: span(range, unit))
    }
    guard let n = try args.value(key) else { return nil }
    try check(n, option: name, in: range, unit, text: text)
    return n
  }

  /// The value of the decimal option `key`, nil when it is not given, refused unless `accepts`
  /// it: "'--level': '1.5' is out of range: give a level above 0 and below 1 (e.g. 0.95)". A
  /// text that is no finite number is the option's usage error, as for every option.
  static func value(
    _ args: ParsedArguments, _ key: Option<Double>, give expected: String,
    accepts: (Double) -> Bool
  ) throws -> Double? {
    guard let v = try args.value(key) else { return nil }
    guard accepts(v) else {
      throw outOfRange(key.spec.name, args.value(key.spec.name) ?? "\(v)", give: expected)
    }
    return v
  }
}
