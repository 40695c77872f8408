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

  /// What a decimal number's text is as a whole number of type `T`.
  package enum Whole<T: FixedWidthInteger>: Equatable {
    /// A whole number `T` holds.
    case value(T)
    /// A whole number beyond `T`'s range (`1e30` for an `Int`): out of range, not "not whole".
    case outOfRange
    /// Not a whole number (`1.5`, `1e-3`), or no decimal number at all.
    case notWhole
  }

  /// `text` (a decimal number, as JSON writes one: `20`, `-3`, `2.0`, `1e3`, `1.5E+3`) as a
  /// whole number of type `T`, read exactly from its digits: `1e3` is 1000 and `1.5E+3` 1500,
  /// whole numbers as much as `1000` is; `1e30` is a whole number that an `Int` cannot hold.
  package static func whole<T: FixedWidthInteger>(_ text: String, as _: T.Type = T.self) -> Whole<T>
  {
    var bytes = Substring(text).utf8[...]
    var negative = false
    if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
      negative = sign == UInt8(ascii: "-")
      bytes = bytes.dropFirst()
    }
    func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    let integer = bytes.prefix(while: isDigit)
    bytes = bytes.dropFirst(integer.count)
    var fraction = bytes.prefix(0)
    if bytes.first == UInt8(ascii: ".") {
      fraction = bytes.dropFirst().prefix(while: isDigit)
      bytes = bytes.dropFirst(1 + fraction.count)
    }
    var exponent = 0
    if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
      var rest = bytes.dropFirst()
      var minus = false
      if let sign = rest.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
        minus = sign == UInt8(ascii: "-")
        rest = rest.dropFirst()
      }
      let digits = rest.prefix(while: isDigit)
      guard !digits.isEmpty, digits.count == rest.count else { return .notWhole }
      // Beyond a million, an exponent says nothing more here: capped, it keeps its sign.
      exponent = digits.count > 7 ? 10_000_000 : Int(String(decoding: digits, as: UTF8.self))!
      if minus { exponent = -exponent }
      bytes = bytes.prefix(0)
    }
    guard bytes.isEmpty, !(integer.isEmpty && fraction.isEmpty) else { return .notWhole }
    // The digits without the point, and the power of ten they are multiplied by.
    var digits = Array(integer) + Array(fraction)
    var power = exponent - fraction.count
    while let last = digits.last, last == 0x30, power < 0 {
      digits.removeLast()
      power += 1
    }
    let significant = digits.drop { $0 == 0x30 }
    if significant.isEmpty { return .value(0) }
    guard power >= 0 else { return .notWhole }
    // Every FixedWidthInteger menudeck reads has fewer than 40 digits.
    guard significant.count + power <= 40 else { return .outOfRange }
    let plain =
      (negative ? "-" : "") + String(decoding: significant, as: UTF8.self)
      + String(repeating: "0", count: power)
    return T(plain).map { .value($0) } ?? .outOfRange
  }

  /// Whether `text` is written as a whole number (an optional sign, then decimal digits), so
  /// that one an integer type cannot hold is out of range rather than not a number.
  package static func isWholeNumber(_ text: String) -> Bool {
    var digits = Substring(text)
    if digits.first == "-" || digits.first == "+" { digits = digits.dropFirst() }
    return !digits.isEmpty && digits.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
  }
}
