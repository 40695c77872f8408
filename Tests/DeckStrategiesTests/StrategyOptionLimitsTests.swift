import Testing

@testable import DeckStrategies

@Suite struct StrategyOptionLimitsTests {
  /// A plugin declares the bounds of its options: bounds beyond any Int (or not whole) are
  /// quoted as numbers, never converted (that trapped).
  @Test(arguments: [
    (0.0...1e300, "a whole number from 0 to 1e+300"),
    (-1e19...1e19, "a whole number from -1e+19 to 1e+19"),
    (0.5...2.5, "a whole number from 0.5 to 2.5"), (1.0...10_000, "a whole number from 1 to 10000"),
  ])
  func pluginBoundsOfAnIntegerOptionAreQuotedNotConverted(
    range: ClosedRange<Double>, expected: String
  ) {
    let spec = OptionSpec("depth", .int, default: .int(1), range: range, "how deep")
    #expect(
      throws: StrategyError.invalidOption(
        strategy: "p", key: "depth", value: "-20000000000000000000x",
        expected: "a whole number; give " + expected)
    ) { try StrategyOptions.parse("-20000000000000000000x", spec, strategy: "p") }
    // Digits no Int holds: a whole number, out of every range.
    #expect(
      throws: StrategyError.optionOutOfRange(
        strategy: "p", key: "depth", value: "99999999999999999999", expected: expected)
    ) { try StrategyOptions.parse("99999999999999999999", spec, strategy: "p") }
  }

  @Test func outOfRangeAndNotANumberAreToldApart() {
    let spec = OptionSpec("rate", .double, default: .double(0.5), range: 0...1, "a rate")
    func message(_ text: String) -> String {
      do {
        _ = try StrategyOptions.parse(text, spec, strategy: "s")
        return "(accepted)"
      } catch {
        return error.description
      }
    }
    #expect(
      message("2")
        == "strategy 's' option 'rate': '2' is out of range: give a number from 0.0 to 1.0")
    #expect(
      message("-0.1")
        == "strategy 's' option 'rate': '-0.1' is out of range: give a number from 0.0 to 1.0")
    #expect(
      message("two")
        == "strategy 's' option 'rate': 'two' is not a number; give a number from 0.0 to 1.0")
    #expect(
      message("inf")
        == "strategy 's' option 'rate': 'inf' is not a finite number; give a number from 0.0 to 1.0"
    )
    #expect(message("1") == "(accepted)")
    let free = OptionSpec("bias", .double, default: .double(0), "no range")
    #expect(
      throws: StrategyError.invalidOption(
        strategy: "s", key: "bias", value: "x", expected: "a number")
    ) { try StrategyOptions.parse("x", free, strategy: "s") }
  }
}
