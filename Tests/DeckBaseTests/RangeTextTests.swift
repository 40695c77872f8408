import Testing

@testable import DeckBase

/// Whole numbers as JSON writes them: any decimal form of a whole value is that value, read from
/// its digits (never through a Double), one beyond the type is out of range, and one with a
/// fraction left is not whole.
@Suite struct RangeTextTests {
  @Test func wholeNumbersInEveryForm() {
    let cases: [(String, RangeText.Whole<Int>)] = [
      ("20", .value(20)), ("-3", .value(-3)), ("+7", .value(7)), ("0", .value(0)),
      ("-0", .value(0)), ("2.0", .value(2)), ("1e3", .value(1000)), ("1E+3", .value(1000)),
      ("1.5e3", .value(1500)), ("1.50e1", .value(15)), ("100e-2", .value(1)),
      ("0.0e999999999", .value(0)), ("9223372036854775807", .value(Int.max)),
      ("-9223372036854775808", .value(Int.min)),
      ("9223372036854775808", .outOfRange), ("1e30", .outOfRange), ("-1e19", .outOfRange),
      ("1e999999999", .outOfRange), ("123456789012345678901234567890123456789012", .outOfRange),
      ("1.5", .notWhole), ("1e-3", .notWhole), ("1.25e1", .notWhole), ("abc", .notWhole),
      ("", .notWhole), ("1e", .notWhole), ("e3", .notWhole), (".", .notWhole), ("1x", .notWhole),
      ("- 1", .notWhole),
    ]
    for (text, want) in cases {
      #expect(RangeText.whole(text, as: Int.self) == want, "\(text)")
    }
    // The type's own range decides: a seed takes the whole UInt64.
    #expect(RangeText.whole("1.8446744073709551615e19", as: UInt64.self) == .value(UInt64.max))
    #expect(RangeText.whole("1e19", as: UInt64.self) == .value(10_000_000_000_000_000_000))
    #expect(RangeText.whole("2e19", as: UInt64.self) == .outOfRange)
    #expect(RangeText.whole("-1", as: UInt64.self) == .outOfRange)
  }

  @Test func plurals() {
    #expect(TextLayout.plural(1, "field") == "1 field")
    #expect(TextLayout.plural(0, "field") == "0 fields")
    #expect(TextLayout.plural(2, "query", "queries") == "2 queries")
  }
}
