import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckEvaluation

/// A table with one `.ratio` metric (a mean: denominator 1 per unit) and one arm per column of
/// `values` (`values[arm][unit]`).
private func meanTable(_ values: [[Double]]) -> UnitTable {
  let units = values.first?.count ?? 0
  let arms = values.enumerated().map { a, column in
    var arm = ArmUnits(arm: "arm\(a)", units: units, metrics: 1)
    for (u, v) in column.enumerated() { arm.add(unit: u, metric: 0, numerator: v, denominator: 1) }
    return arm
  }
  return UnitTable(
    metrics: [MetricSpec(name: "mean", definition: "mean per unit", form: .ratio)],
    units: (0..<units).map { "u\($0)" }, arms: arms)
}

/// A standard normal draw (Box-Muller), for synthetic data.
private func normal(_ stream: inout RandomStream) -> Double {
  let u1 = 1 - stream.nextDouble()
  let u2 = stream.nextDouble()
  return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
}

/// Paired data with a known difference: unit effects shared by both arms (var 1), per-arm noise
/// (var 0.25), arm 1 = arm 0 + `delta` in expectation.
private func pairedSample(units: Int, delta: Double, seed: UInt64) -> UnitTable {
  var stream = RandomStream(seed: seed)
  var a: [Double] = []
  var b: [Double] = []
  for _ in 0..<units {
    let unit = normal(&stream)
    a.append(unit + 0.5 * normal(&stream))
    b.append(unit + delta + 0.5 * normal(&stream))
  }
  return meanTable([a, b])
}

@Suite struct ResamplingTests {
  @Test func quantilesInterpolateBetweenOrderStatistics() {
    #expect(Resampling.quantile([1, 2, 3, 4], 0.25) == 1.75)
    #expect(Resampling.quantile([1, 2, 3, 4], 0) == 1)
    #expect(Resampling.quantile([1, 2, 3, 4], 1) == 4)
    #expect(Resampling.quantile([7], 0.975) == 7)
    let (lower, upper) = Resampling.interval(Array(0...100).map(Double.init), level: 0.9)
    // (1 - 0.9) / 2 is 0.04999... in binary: the positions are 5 and 95 up to rounding.
    #expect(abs(lower! - 5) < 1e-9)
    #expect(abs(upper! - 95) < 1e-9)
    let (none, _) = Resampling.interval([], level: 0.95)
    #expect(none == nil)
  }

  /// A count's replicates are whole numbers, so its interval is too: the interpolated
  /// quantiles rounded outward to the order statistics around them (never narrower).
  @Test func aCountsIntervalIsWhole() {
    let (lower, upper) = Resampling.interval(
      [3, 4, 4, 5, 9, 10, 12, 12, 13, 20], level: 0.9, of: 10, whole: true)
    let (rawLower, rawUpper) = Resampling.interval(
      [3, 4, 4, 5, 9, 10, 12, 12, 13, 20], level: 0.9, of: 10)
    #expect(rawLower! != rawLower!.rounded() && rawUpper! != rawUpper!.rounded())
    #expect(lower == rawLower!.rounded(.down) && upper == rawUpper!.rounded(.up))
    var arms: [ArmUnits] = []
    for a in 0..<2 {
      var arm = ArmUnits(arm: "arm\(a)", units: 7, metrics: 1)
      for u in 0..<7 {
        arm.add(unit: u, metric: 0, numerator: Double((u * 3 + a * 2) % 5 + u), denominator: 0)
      }
      arms.append(arm)
    }
    let table = UnitTable(
      metrics: [MetricSpec(name: "picks", definition: "right swipes", form: .total)],
      units: (0..<7).map { "u\($0)" }, arms: arms)
    let (summaries, differences) = Resampling.analyze(
      table, baseline: 0, options: ResamplingOptions(resamples: 333, seed: 4))
    for e in summaries.map({ $0.estimates[0] }) + [differences[0].estimates[0]] {
      for bound in [e.lower!, e.upper!] { #expect(bound == bound.rounded()) }
      #expect(e.lower! <= e.value! && e.value! <= e.upper!)
    }
  }

  @Test func pValueCountsTiesAsExtremeAndIgnoresUndefinedPermutations() {
    // |-2| ties with 2 and 3 exceeds it: (1 + 2) / (1 + 3).
    #expect(Resampling.pValue(observed: 2, permuted: [1, -2, 3, nil]) == 0.75)
    #expect(Resampling.pValue(observed: 0, permuted: [0, 0]) == 1)
    #expect(Resampling.pValue(observed: 5, permuted: [1, 2, 3]) == 0.25)
  }

  @Test func theProgressCountsEveryReplicateAndPermutation() {
    let options = ResamplingOptions(resamples: 40, seed: 1)
    // 12 units: 40 permutations per difference; 3 units: all 2^3 of them.
    for values in [
      [[Double]](repeating: (0..<12).map(Double.init), count: 3),
      [[1, 2, 3], [2, 2, 5], [0, 1, 1]],
    ] {
      let table = meanTable(values)
      let counter = ProgressCounter()
      _ = Resampling.analyze(table, baseline: 0, options: options, progress: counter)
      let expected = values[0].count > 10 ? 40 + 2 * 40 : 40 + 2 * 8
      #expect(Resampling.replicates(table, baseline: 0, options: options) == expected)
      #expect(counter.done == expected)
      let alone = ProgressCounter()
      _ = Resampling.analyze(table, baseline: nil, options: options, progress: alone)
      #expect(alone.done == 40)
    }
  }

  @Test func pointEstimatesAreTheTableValues() {
    let table = meanTable([[1, 2, 3], [2, 2, 5]])
    let (arms, differences) = Resampling.analyze(
      table, baseline: 0, options: ResamplingOptions(resamples: 50, seed: 1))
    #expect(arms.map { $0.estimates[0].value } == [2, 3])
    #expect(differences.count == 1)
    #expect(differences[0].arm == "arm1")
    #expect(differences[0].baseline == "arm0")
    #expect(differences[0].estimates[0].value == 1)
  }

  @Test func sameSeedSameResultsOtherSeedOtherDraws() {
    let table = pairedSample(units: 60, delta: 0.3, seed: 5)
    let one = Resampling.analyze(
      table, baseline: 0, options: ResamplingOptions(resamples: 200, seed: 9))
    let two = Resampling.analyze(
      table, baseline: 0, options: ResamplingOptions(resamples: 200, seed: 9))
    let other = Resampling.analyze(
      table, baseline: 0, options: ResamplingOptions(resamples: 200, seed: 10))
    #expect(one.arms == two.arms)
    #expect(one.differences == two.differences)
    #expect(one.arms[0].estimates[0].lower != other.arms[0].estimates[0].lower)
  }

  @Test func identicalArmsDifferByExactlyZeroWithPValueOne() {
    let table = meanTable([[1, 5, 2, 8], [1, 5, 2, 8]])
    let (_, differences) = Resampling.analyze(
      table, baseline: 1, options: ResamplingOptions(resamples: 100, seed: 3))
    let d = differences[0].estimates[0]
    #expect(d.value == 0)
    #expect(d.lower == 0)
    #expect(d.upper == 0)
    #expect(differences[0].pValues[0] == 1)
  }

  @Test func pairingNarrowsTheIntervalOfADifference() {
    // Unit effects dominate: each arm's own interval is wide, the paired difference's narrow.
    let table = pairedSample(units: 200, delta: 0.2, seed: 11)
    let (arms, differences) = Resampling.analyze(
      table, baseline: 0, options: ResamplingOptions(resamples: 400, seed: 2))
    let armWidth = arms[0].estimates[0].upper! - arms[0].estimates[0].lower!
    let d = differences[0].estimates[0]
    let differenceWidth = d.upper! - d.lower!
    #expect(differenceWidth < armWidth / 1.5)
    #expect(d.lower! > 0, "a 0.2 shift with paired noise 0.7/sqrt(200) is clearly detected")
    #expect(differences[0].pValues[0]! < 0.01)
  }

  @Test func pairedIntervalsCoverAKnownDifferenceAtAboutTheNominalRate() {
    // 200 independent samples with a true difference of 0.25: a 95% interval should miss it in
    // about 10 of them (binomial sd about 3).
    var covered = 0
    let trials = 200
    for trial in 0..<trials {
      let table = pairedSample(units: 80, delta: 0.25, seed: 1000 + UInt64(trial))
      let (_, differences) = Resampling.analyze(
        table, baseline: 0, options: ResamplingOptions(resamples: 300, seed: UInt64(trial)))
      let d = differences[0].estimates[0]
      if d.lower! <= 0.25 && 0.25 <= d.upper! { covered += 1 }
    }
    let rate = Double(covered) / Double(trials)
    #expect(rate >= 0.88 && rate <= 0.99, "coverage \(rate)")
  }

  @Test func randomizationTestHoldsItsLevelUnderTheNull() {
    // With no true difference, p < 0.05 in about 5% of samples.
    var rejected = 0
    let trials = 200
    for trial in 0..<trials {
      let table = pairedSample(units: 50, delta: 0, seed: 5000 + UInt64(trial))
      let (_, differences) = Resampling.analyze(
        table, baseline: 0, options: ResamplingOptions(resamples: 200, seed: UInt64(trial)))
      if differences[0].pValues[0]! < 0.05 { rejected += 1 }
    }
    #expect(rejected >= 2 && rejected <= 22, "rejected \(rejected) of \(trials)")
  }

  @Test func coverageHasAValueAndAPValueButNoInterval() {
    var x = ArmUnits(arm: "x", units: 2, metrics: 1)
    x.items = [[0, 1], [1, 2]]
    var y = ArmUnits(arm: "y", units: 2, metrics: 1)
    y.items = [[0], [0]]
    let table = UnitTable(
      metrics: [
        MetricSpec(name: "catalog_coverage", definition: "", form: .coverage(catalogItems: 4))
      ],
      units: ["u", "v"], arms: [x, y])
    let (arms, differences) = Resampling.analyze(
      table, baseline: 1, options: ResamplingOptions(resamples: 200, seed: 4))
    #expect(arms[0].estimates[0] == Estimate(value: 0.75, lower: nil, upper: nil))
    #expect(arms[1].estimates[0] == Estimate(value: 0.25, lower: nil, upper: nil))
    #expect(differences[0].estimates[0] == Estimate(value: 0.5, lower: nil, upper: nil))
    // The four permutations give 0.5 (no swap), 0.25 (swap u), -0.25 (swap v) and -0.5 (both):
    // half of them are as extreme as the observed 0.5.
    let p = differences[0].pValues[0]!
    #expect(p > 0.3 && p < 0.7, "about half the permutations are as extreme: \(p)")
  }

  @Test func fewDinersGetTheExactRandomizationPValue() {
    // Per-diner differences 1, 2 and 3 (mean 2): the 8 sign patterns give sums 6, 4, 2, 0, 0,
    // -2, -4, -6, and |sum| >= 6 in 2 of them.
    let table = meanTable([[0, 0, 0], [1, 2, 3]])
    let (_, differences) = Resampling.analyze(
      table, baseline: 0, options: ResamplingOptions(resamples: 50, seed: 1))
    #expect(differences[0].estimates[0].value == 2)
    #expect(differences[0].pValues[0] == 0.25)
    // Eleven diners are drawn: the p-value is (1 + extreme) / (1 + resamples).
    let eleven = meanTable([Array(repeating: 0, count: 11), Array(repeating: 1, count: 11)])
    let (_, drawn) = Resampling.analyze(
      eleven, baseline: 0, options: ResamplingOptions(resamples: 99, seed: 1))
    let p = drawn[0].pValues[0]!
    #expect((p * 100).rounded() == p * 100, "a multiple of 1/100: \(p)")
  }

  @Test func totalsScaleWithTheDrawCounts() {
    var arm = ArmUnits(arm: "a", units: 3, metrics: 1)
    arm.add(unit: 0, metric: 0, numerator: 1)
    arm.add(unit: 1, metric: 0, numerator: 10)
    arm.add(unit: 2, metric: 0, numerator: 100)
    let table = UnitTable(
      metrics: [MetricSpec(name: "decks", definition: "", form: .total)],
      units: ["a", "b", "c"], arms: [arm])
    let replicates = Resampling.bootstrap(
      table, options: ResamplingOptions(resamples: 300, seed: 8))
    for r in replicates {
      // c0 + 10 c1 + 100 c2 with c0 + c1 + c2 = 3: every digit is a draw count.
      let v = Int(r[0]!)
      #expect(v % 10 + (v / 10) % 10 + v / 100 == 3)
    }
  }

  @Test func ratiosUndefinedInEveryReplicateHaveNoInterval() {
    var arm = ArmUnits(arm: "a", units: 2, metrics: 1)
    arm.add(unit: 0, metric: 0, numerator: 0, denominator: 0)
    let table = UnitTable(
      metrics: [MetricSpec(name: "pick_rate", definition: "", form: .ratio)], units: ["a", "b"],
      arms: [arm])
    let (arms, _) = Resampling.analyze(
      table, baseline: nil, options: ResamplingOptions(resamples: 20))
    #expect(arms[0].estimates[0] == Estimate(value: nil, lower: nil, upper: nil))
  }
}
