import DeckCore
import Testing

@testable import DeckEvaluation

/// The search space of `tune`: grids in nested-loop order, seeded draws, the winner's choice.
@Suite struct TuningGridTests {
  static let grid = TuningGrid([
    .init(key: "a", values: .list(["1", "2"])),
    .init(key: "b", values: .list(["x", "y", "z"])),
  ])

  @Test func theGridVariesTheLastOptionFastest() {
    #expect(Self.grid.size == 6)
    #expect(Self.grid.isEnumerable)
    let settings = Self.grid.settings().map { $0.map { "\($0.key)=\($0.value)" } }
    #expect(
      settings == [
        ["a=1", "b=x"], ["a=1", "b=y"], ["a=1", "b=z"], ["a=2", "b=x"], ["a=2", "b=y"],
        ["a=2", "b=z"],
      ])
    #expect(TuningGrid([]).settings() == [[]])
  }

  @Test func aRangeHasNoSizeAndIsNotEnumerable() {
    let space = TuningGrid([
      .init(key: "a", values: .range(low: 1, high: 9, integer: true, logScale: false))
    ])
    #expect(space.size == nil && !space.isEnumerable)
  }

  /// Draws are the same for the same seed, stay in their range, are whole numbers for a
  /// whole-number option, and a setting drawn twice comes back once.
  @Test func drawsAreSeededDistinctAndInRange() throws {
    let space = TuningGrid([
      .init(key: "n", values: .range(low: 3, high: 7, integer: true, logScale: false)),
      .init(key: "x", values: .range(low: 0.001, high: 10, integer: false, logScale: true)),
      .init(key: "c", values: .list(["p", "q"])),
    ])
    let first = space.draw(200, seed: 42)
    let again = space.draw(200, seed: 42)
    #expect(first.settings == again.settings && first.duplicates == again.duplicates)
    #expect(first.settings.count + first.duplicates == 200)
    #expect(first.settings != space.draw(200, seed: 43).settings)
    var ns = Set<Int>()
    var small = 0
    for setting in first.settings {
      #expect(setting.map(\.key) == ["n", "x", "c"])
      let n = try #require(Int(setting[0].value))
      ns.insert(n)
      let x = try #require(Double(setting[1].value))
      #expect(x >= 0.001 && x <= 10)
      if x < 0.1 { small += 1 }
      #expect(["p", "q"].contains(setting[2].value))
    }
    #expect(ns == [3, 4, 5, 6, 7], "every whole number of the range, both ends included")
    // Log-uniform over 4 decades: about half below 0.1 (uniform would give 1%).
    #expect(small > first.settings.count / 4)
    // A grid of 2 settings drawn 50 times: both, and 48 duplicates.
    let tiny = TuningGrid([.init(key: "a", values: .list(["1", "2"]))]).draw(50, seed: 1)
    #expect(tiny.settings.count == 2 && tiny.duplicates == 48)
  }

  @Test(arguments: [
    (0.123456, 0.123), (1234.5, 1230.0), (0.00098765, 0.000988), (7.0, 7.0), (-2.3456, -2.35),
    (999.6, 1000.0),
  ])
  func drawnValuesKeepThreeSignificantDigits(_ v: Double, _ expected: Double) {
    #expect(TuningGrid.significant(v, digits: 3) == expected)
  }

  /// The best defined value wins, the first of equal ones; lower wins when lower is better.
  @Test func theWinnerIsTheFirstBest() {
    #expect(TuningResult.select([0.1, nil, 0.3, 0.3, 0.2], direction: .higher) == 2)
    #expect(TuningResult.select([0.1, nil, 0.3, 0.05, 0.05], direction: .lower) == 3)
    #expect(TuningResult.select([nil, nil], direction: .higher) == nil)
    #expect(TuningResult.select([nil, 0.0], direction: .higher) == 1)
  }

  /// A validation cut fits its split only: days for a date split, a fraction for a hold-out.
  @Test func validationCutsFitTheirSplit() throws {
    let split = try #require(DeckDate.parse("2026-11-24"))
    #expect(ValidationCut.days(3).inner(of: .date(split)) == .date(split.adding(days: -3)))
    #expect(ValidationCut.fraction(0.2).inner(of: .holdout(0.1)) == .holdout(0.2))
    #expect(ValidationCut.days(3).inner(of: .holdout(0.1)) == nil)
    #expect(ValidationCut.fraction(0.2).inner(of: .date(split)) == nil)
    let early = try #require(DeckDate.parse("0001-01-02"))
    #expect(ValidationCut.days(2).inner(of: .date(early)) == nil)
    #expect(ValidationCut.seed(runSeed: 1) != ValidationCut.seed(runSeed: 2))
    #expect(ValidationCut.seed(runSeed: 1) != 1)
  }
}
