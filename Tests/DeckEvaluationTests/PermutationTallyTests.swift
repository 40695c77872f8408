import DeckBase
import DeckCore
import Testing

@testable import DeckEvaluation

/// Two arms over `units` diners with a ratio, a total and coverage over `catalog` dishes, drawn
/// from `seed`: arm 1 is arm 0 shifted by `shift` in the ratio's numerator; the dishes of a
/// diner overlap between the arms now and then.
private func randomTable(units: Int, catalog: Int = 12, shift: Double = 0.3, seed: UInt64)
  -> UnitTable
{
  var stream = RandomStream(seed: seed)
  let metrics = [
    MetricSpec(name: "like_rate", definition: "", form: .ratio),
    MetricSpec(name: "right_swipes", definition: "", form: .total),
    MetricSpec(name: "catalog_coverage", definition: "", form: .coverage(catalogItems: catalog)),
  ]
  var arms = [
    ArmUnits(arm: "base", units: units, metrics: 3),
    ArmUnits(arm: "other", units: units, metrics: 3),
  ]
  for u in 0..<units {
    let cards = Double(1 + stream.nextInt(below: 9))
    let likes = Double(stream.nextInt(below: Int(cards) + 1))
    for a in 0..<2 {
      let moved = a == 1 ? min(cards, likes + (stream.nextDouble() < shift ? 1 : 0)) : likes
      arms[a].add(unit: u, metric: 0, numerator: moved, denominator: cards)
      arms[a].add(unit: u, metric: 1, numerator: moved)
      var dishes = Set<Int32>()
      for _ in 0..<stream.nextInt(below: 4) { dishes.insert(Int32(stream.nextInt(below: catalog))) }
      arms[a].items[u] = dishes.sorted()
    }
  }
  return UnitTable(metrics: metrics, units: (0..<units).map { "u\($0)" }, arms: arms)
}

/// Metric `m` of arm `arm` minus `baseline` when the units in `swapped` trade their sums: the
/// definition, computed from scratch.
private func swappedDifference(
  _ table: UnitTable, arm: Int, baseline: Int, metric m: Int, swapped: (Int) -> Bool
) -> Double? {
  let x = table.arms[arm]
  let y = table.arms[baseline]
  var sides = [
    (num: 0.0, den: 0.0, items: Set<Int32>()), (num: 0.0, den: 0.0, items: Set<Int32>()),
  ]
  for u in table.units.indices {
    let (first, second) = swapped(u) ? (y, x) : (x, y)
    for (s, side) in [first, second].enumerated() {
      sides[s].num += side.numerator(unit: u, metric: m)
      sides[s].den += side.denominator(unit: u, metric: m)
      sides[s].items.formUnion(side.items[u])
    }
  }
  func value(_ s: Int) -> Double? {
    switch table.metrics[m].form {
    case .total: return sides[s].num
    case .ratio: return sides[s].den == 0 ? nil : sides[s].num / sides[s].den
    case .coverage(let items): return Double(sides[s].items.count) / Double(items)
    }
  }
  guard let a = value(0), let b = value(1) else { return nil }
  return a - b
}

@Suite("Compare: permutation counts")
struct PermutationTallyTests {
  /// With few diners every swap is enumerated: the tally (the coverage one without recounting
  /// each diner's dishes) equals the count of the definition over all 2^n swaps.
  @Test(arguments: [1, 2, 3, 4])
  func theExactTallyCountsEverySwapByTheDefinition(seed: UInt64) {
    let table = randomTable(units: 9, catalog: 10, seed: seed)
    let observed = (0..<3).map {
      swappedDifference(table, arm: 1, baseline: 0, metric: $0) { _ in false }
    }
    let tally = Resampling.permutationTally(
      table, arm: 1, baseline: 0, observed: observed, options: ResamplingOptions())
    for m in 0..<3 {
      guard let d = observed[m] else { continue }
      var extreme = 0
      var defined = 0
      for r in 0..<(1 << 9) {
        guard
          let p = swappedDifference(
            table, arm: 1, baseline: 0, metric: m, swapped: { (r >> $0) & 1 == 1 })
        else { continue }
        defined += 1
        if abs(p) >= abs(d) * (1 - 1e-12) { extreme += 1 }
      }
      #expect(tally.defined[m] == defined, "metric \(m)")
      #expect(tally.extreme[m] == extreme, "metric \(m)")
    }
  }

  /// Drawn permutations: permutation r swaps the units whose bits are set in the words of the
  /// stream seeded by (seed, "permute-" + arm, r), bit u % 64 of word u / 64 (the draws of
  /// every earlier version): the counts equal the definition's on those swaps, for any number
  /// of threads.
  @Test func drawnPermutationsAreTheSeededSwaps() {
    let table = randomTable(units: 150, catalog: 40, seed: 9)
    let options = ResamplingOptions(resamples: 10, permutations: 300, seed: 77)
    let observed = (0..<3).map {
      swappedDifference(table, arm: 1, baseline: 0, metric: $0) { _ in false }
    }
    let tally = Resampling.permutationTally(
      table, arm: 1, baseline: 0, observed: observed, options: options)
    var extreme = [0, 0, 0]
    var defined = [0, 0, 0]
    for r in 0..<300 {
      var h = StableHash()
      h.combine(UInt64(77))
      h.combine("permute-other")
      h.combine(UInt64(r))
      var stream = RandomStream(seed: h.finalized)
      let words = (0..<3).map { _ in stream.next() }
      for m in 0..<3 {
        guard let d = observed[m],
          let p = swappedDifference(
            table, arm: 1, baseline: 0, metric: m,
            swapped: { (words[$0 / 64] >> UInt64($0 % 64)) & 1 == 1 })
        else { continue }
        defined[m] += 1
        if abs(p) >= abs(d) * (1 - 1e-12) { extreme[m] += 1 }
      }
    }
    #expect(tally.defined == defined)
    #expect(tally.extreme == extreme)
    let (_, differences) = Resampling.analyze(table, baseline: 0, options: options)
    for m in 0..<3 {
      #expect(differences[0].pValues[m] == Double(1 + extreme[m]) / Double(1 + defined[m]))
    }
  }

  /// The bootstrap's resamples and the test's permutations are counted apart: the p-value is a
  /// multiple of 1 / (permutations + 1), and the progress counts both.
  @Test func permutationsAreNotTheResamples() {
    let table = randomTable(units: 60, shift: 0, seed: 3)
    let options = ResamplingOptions(resamples: 40, permutations: 499, seed: 5)
    let counter = ProgressCounter()
    let (_, differences) = Resampling.analyze(
      table, baseline: 0, options: options, progress: counter)
    #expect(Resampling.replicates(table, baseline: 0, options: options) == 40 + 499)
    #expect(counter.done == 40 + 499)
    for p in differences[0].pValues.compactMap({ $0 }) {
      #expect(abs((p * 500).rounded() - p * 500) < 1e-9, "a multiple of 1/500: \(p)")
    }
    #expect(ResamplingOptions(resamples: 123).permutations == 123)
  }

  @Test func identicalArmsAreFoundPerMetricAndLeftOutOfTheFamily() {
    var table = randomTable(units: 30, seed: 4)
    // right_swipes equal for every diner under both arms; like_rate's denominators stay equal
    // too, so it is identical as well; coverage is not.
    table.arms[1].numerators = table.arms[0].numerators
    table.arms[1].denominators = table.arms[0].denominators
    #expect(Resampling.identical(table, arm: 1, baseline: 0, metric: 0))
    #expect(Resampling.identical(table, arm: 1, baseline: 0, metric: 1))
    #expect(!Resampling.identical(table, arm: 1, baseline: 0, metric: 2))
    #expect(Resampling.familyTests(table, baseline: 0) == 1)
    #expect(Resampling.familyTests(table, baseline: nil) == 0)
    // A ratio with the same numerators but other denominators is a test.
    table.arms[1].denominators[0] += 1
    #expect(!Resampling.identical(table, arm: 1, baseline: 0, metric: 0))
    #expect(Resampling.familyTests(table, baseline: 0) == 2)
    table.arms[1].items = table.arms[0].items
    #expect(Resampling.identical(table, arm: 1, baseline: 0, metric: 2))
    let (_, differences) = Resampling.analyze(
      table, baseline: 0, options: ResamplingOptions(resamples: 20, permutations: 50))
    #expect(differences[0].identical == [false, true, true])
    #expect(differences[0].pValues[1] == 1 && differences[0].pValues[2] == 1)
  }

  /// An undefined difference (no denominator on either side) is no test either.
  @Test func undefinedDifferencesAreNotInTheFamily() {
    var table = randomTable(units: 20, seed: 6)
    for u in 0..<20 {
      for a in 0..<2 {
        table.arms[a].numerators[u * 3] = 0
        table.arms[a].denominators[u * 3] = 0
      }
    }
    // like_rate undefined; right_swipes still differ (they were not zeroed).
    #expect(Resampling.familyTests(table, baseline: 0) == 2)
  }
}
