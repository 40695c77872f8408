import Testing

@testable import DeckStrategies

@Suite struct StrategyOptionLimitsTests {
  /// A plugin declares the bounds of its options: bounds beyond any Int (or not whole) are
  /// quoted as numbers, never converted (that trapped).
  @Test(arguments: [
    (0.0...1e300, "an integer in 0...1e+300"), (-1e19...1e19, "an integer in -1e+19...1e+19"),
    (0.5...2.5, "an integer in 0.5...2.5"), (1.0...10_000, "an integer in 1...10000"),
  ])
  func pluginBoundsOfAnIntegerOptionAreQuotedNotConverted(
    range: ClosedRange<Double>, expected: String
  ) {
    let spec = OptionSpec("depth", .int, default: .int(1), range: range, "how deep")
    #expect(
      throws: StrategyError.invalidOption(
        strategy: "p", key: "depth", value: "-20000000000000000000x", expected: expected)
    ) { try StrategyOptions.parse("-20000000000000000000x", spec, strategy: "p") }
    #expect(throws: StrategyError.self) {
      try StrategyOptions.parse("99999999999999999999", spec, strategy: "p")
    }
  }
}
