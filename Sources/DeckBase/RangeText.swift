/// The one wording of a value outside its range, for command-line options, strategy options and
/// config values alike: `'2' is out of range: give a number from 0.0 to 1.0`. A value that is
/// not of the kind at all says so instead: `'abc' is not a number; give a number from 0.0 to
/// 1.0`. Each place puts what the value is for in front (`'--size': `, `strategy 'ucb' option
/// 'exploration': `, a config key at its file:line:column).
package enum RangeText {
  /// `'2' is out of range: give a number from 0.0 to 1.0`.
  package static func outOfRange(_ value: String, give expected: String) -> String {
    "'\(value)' is out of range: give \(expected)"
  }

  /// `'abc' is not a number; give a number from 0.0 to 1.0` (`kind`: "a number", "a whole
  /// number", "a finite number"); without `expected`, only the first part.
  package static func not(_ kind: String, _ value: String, give expected: String? = nil)
    -> String
  {
    "'\(value)' is not \(kind)" + (expected.map { "; give \($0)" } ?? "")
  }

  /// `a number from 0.0 to 1.0`; without an upper bound `a whole number 1 or more`.
  package static func span(_ kind: String, from lower: String, to upper: String?) -> String {
    guard let upper else { return "\(kind) \(lower) or more" }
    return "\(kind) from \(lower) to \(upper)"
  }

  /// Whether `text` is written as a whole number (an optional sign, then decimal digits), so
  /// that one an integer type cannot hold is out of range rather than not a number.
  package static func isWholeNumber(_ text: String) -> Bool {
    var digits = Substring(text)
    if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
    return !digits.isEmpty && digits.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
  }
}
