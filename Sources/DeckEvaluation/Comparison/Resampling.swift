import DeckBase
import DeckCore
import Dispatch

/// Settings of the bootstrap and the randomization test.
package struct ResamplingOptions: Sendable, Equatable {
  /// Bootstrap resamples: the replicates of every interval.
  package var resamples: Int
  /// Permutations of the randomization test, per difference (all 2^n swaps instead when the
  /// units are at most `Resampling.exactUnits`). `compare` chooses them from the size of the
  /// report's family of tests (`PermutationCount`); the intervals do not need more resamples
  /// when more tests are made, the adjusted p-values need finer p-values.
  package var permutations: Int
  /// The seed of every random draw: replicate r draws from a stream derived from (seed, purpose,
  /// r) alone, so results do not depend on the number of threads.
  package var seed: UInt64
  /// The confidence level of the intervals, in (0, 1).
  package var level: Double

  /// `permutations` defaults to `resamples`.
  package init(
    resamples: Int = 1000, permutations: Int? = nil, seed: UInt64 = 0, level: Double = 0.95
  ) {
    precondition(resamples >= 1, "at least one resample")
    precondition((permutations ?? 1) >= 1, "at least one permutation")
    precondition(level > 0 && level < 1, "the confidence level must be in (0, 1)")
    self.resamples = resamples
    self.permutations = permutations ?? resamples
    self.seed = seed
    self.level = level
  }
}

/// Diner-level (cluster) bootstrap intervals and paired randomization tests over a `UnitTable`.
///
/// **Bootstrap.** A replicate draws as many units as there are, uniformly with replacement (unit
/// u drawn c_u times), and recomputes every metric with unit u's sums weighted by c_u: a ratio is
/// Σ c_u·num_u / Σ c_u·den_u, a total Σ c_u·num_u, coverage counts the distinct items of the units
/// with c_u > 0. The interval is the percentile interval: the (1 − level)/2 and (1 + level)/2
/// quantiles of the replicates (linear interpolation between order statistics, the "type 7"
/// rule), over the replicates where the metric is defined. Every arm uses the same draws in a
/// replicate, so a difference between two arms is resampled *paired*: its interval comes from
/// the replicates of the difference, not from the two arms' intervals.
///
/// **Randomization test.** Under the null hypothesis that the arm and the baseline perform the
/// same for every diner, which of the two got which result is exchangeable within a diner. A
/// permutation swaps the two arms' sums of each unit with probability 1/2 and recomputes the
/// difference; the two-sided p-value is (1 + #{|d*| ≥ |d|}) / (1 + permutations), which is never
/// 0 and is exact in level for any number of permutations. Differences equal up to 1e-12 of
/// their magnitude count as ties (≥). Only the counts are kept, not the permuted differences,
/// so the memory does not grow with the permutations.
///
/// Cost: per bootstrap replicate, units × arms × metrics multiply-adds (coverage: the items of
/// the drawn units); per permutation, about units / 2 × metrics additions for one arm (coverage:
/// a few looks per dish that only one of the two arms showed to some diner). Replicates run on
/// all cores.
package enum Resampling {
  /// Every metric of every arm with its bootstrap interval and, with a baseline, every other arm
  /// minus the baseline: the paired bootstrap interval of the difference and the
  /// randomization-test p-value, per metric. One set of bootstrap replicates serves both. Each
  /// difference also carries the paired t-test's and the Wilcoxon signed-rank test's p-values
  /// (`PairedTests`); the adjusted ones need the whole report's family
  /// (`MultipleComparisons.adjust`). `progress` counts the bootstrap replicates and the
  /// permutations, `replicates(_:baseline:options:)` of them.
  package static func analyze(
    _ table: UnitTable, baseline: Int?, options: ResamplingOptions,
    progress: ProgressCounter? = nil
  ) -> (arms: [ArmSummary], differences: [ArmDifference]) {
    precondition(
      baseline.map { table.arms.indices.contains($0) } ?? true,
      "the baseline must be one of the arms")
    let metrics = table.metrics.count
    let replicates = bootstrap(table, options: options, progress: progress)
    // An estimate without a value (undefined, or not a finite number) gets no interval and no
    // p-value: its resamples would describe a number that is not there.
    let summaries = table.arms.indices.map { a in
      ArmSummary(
        arm: table.arms[a].arm,
        estimates: (0..<metrics).map { m in
          let value = table.value(arm: a, metric: m)
          let values = replicates.compactMap { $0[a * metrics + m] }
          let (lower, upper) =
            value != nil && hasInterval(table.metrics[m])
            ? interval(
              values, level: options.level, of: options.resamples,
              whole: table.metrics[m].isCount) : (nil, nil)
          return Estimate(value: value, lower: lower, upper: upper)
        })
    }
    guard let baseline else { return (summaries, []) }
    var differences: [ArmDifference] = []
    for a in table.arms.indices where a != baseline {
      var estimates: [Estimate] = []
      var observed: [Double?] = []
      for m in 0..<metrics {
        let value = difference(
          table.value(arm: a, metric: m), table.value(arm: baseline, metric: m))
        let values = replicates.compactMap { r in
          difference(r[a * metrics + m], r[baseline * metrics + m])
        }
        let (lower, upper) =
          value != nil && hasInterval(table.metrics[m])
          ? interval(
            values, level: options.level, of: options.resamples, whole: table.metrics[m].isCount)
          : (nil, nil)
        estimates.append(Estimate(value: value, lower: lower, upper: upper))
        observed.append(value)
      }
      let exact = isExact(table)
      let tally = permutationTally(
        table, arm: a, baseline: baseline, observed: observed, options: options,
        progress: progress)
      let pValues = (0..<metrics).map { m in
        observed[m].map { _ in
          pValue(extreme: tally.extreme[m], defined: tally.defined[m], exact: exact)
        }
      }
      // The classical paired tests on the per-diner paired values, where the difference is
      // defined; a sort of the diners each, so the metrics run on all cores.
      let isDefined = observed.map { $0 != nil }
      let classical = replicate(metrics) { m in
        guard isDefined[m],
          let paired = PairedTests.pairedValues(table, arm: a, baseline: baseline, metric: m)
        else { return [nil, nil] }
        return [PairedTests.tTest(paired), PairedTests.wilcoxon(paired)]
      }
      differences.append(
        ArmDifference(
          arm: table.arms[a].arm, baseline: table.arms[baseline].arm, estimates: estimates,
          pValues: pValues, pT: classical.map { $0[0] }, pWilcoxon: classical.map { $0[1] },
          identical: (0..<metrics).map { identical(table, arm: a, baseline: baseline, metric: $0) }
        ))
    }
    return (summaries, differences)
  }

  /// How many replicates `analyze` computes: the bootstrap's, and each difference's
  /// permutations (every one of the 2^n when the units are few enough to be exact).
  package static func replicates(_ table: UnitTable, baseline: Int?, options: ResamplingOptions)
    -> Int
  {
    options.resamples
      + (baseline == nil ? 0 : (table.arms.count - 1) * permutationCount(table, options: options))
  }

  /// The permutations of each difference of `table`: `options.permutations`, or all 2^n of them
  /// for at most `exactUnits` units.
  package static func permutationCount(_ table: UnitTable, options: ResamplingOptions) -> Int {
    isExact(table) ? 1 << table.units.count : options.permutations
  }

  /// Whether arm `arm` and arm `baseline` have the same sums of metric `metric` for every unit
  /// (coverage: the same dishes): every permutation then gives the observed difference, 0, and
  /// the p-value is 1 whatever the data, a test that cannot reject. In a simulation `decks` is
  /// one: common random numbers give every strategy the same sessions.
  package static func identical(_ table: UnitTable, arm: Int, baseline: Int, metric: Int) -> Bool {
    let x = table.arms[arm]
    let y = table.arms[baseline]
    let form = table.metrics[metric].form
    if case .coverage = form { return x.items == y.items }
    for u in 0..<table.units.count {
      guard x.numerator(unit: u, metric: metric) == y.numerator(unit: u, metric: metric) else {
        return false
      }
      if form == .ratio
        && x.denominator(unit: u, metric: metric) != y.denominator(unit: u, metric: metric)
      {
        return false
      }
    }
    return true
  }

  /// The tests `analyze` makes of `table` against `baseline` that belong in the report's family
  /// (`MultipleComparisons`): every other arm's metrics whose difference is defined and whose
  /// two arms are not `identical`. It needs no resampling, so the permutations can be chosen
  /// from it (`PermutationCount`) before they are drawn.
  package static func familyTests(_ table: UnitTable, baseline: Int?) -> Int {
    guard let baseline else { return 0 }
    var tests = 0
    for a in table.arms.indices where a != baseline {
      for m in table.metrics.indices {
        guard
          difference(table.value(arm: a, metric: m), table.value(arm: baseline, metric: m))
            != nil, !identical(table, arm: a, baseline: baseline, metric: m)
        else { continue }
        tests += 1
      }
    }
    return tests
  }

  /// Whether the metric gets a bootstrap interval. Coverage does not: it counts the distinct
  /// dishes over all diners rather than averaging them, and a resample holds only about 63% of
  /// the diners (the rest are repeats), so every replicate loses dishes and the percentile
  /// interval sits below the value, often with the value as its upper end. Its randomization
  /// p-value stays valid: swapping two strategies' dishes within a diner is exchangeable under
  /// the null hypothesis whatever the statistic.
  package static func hasInterval(_ metric: MetricSpec) -> Bool {
    if case .coverage = metric.form { return false }
    return true
  }

  // MARK: - Quantiles

  /// The share of resamples in which a metric must be defined to get an interval. A ratio is
  /// undefined in a resample that drew no diner with a denominator (a rate over few diners'
  /// cards, replay with few matches); the resamples where it is defined are then a biased few,
  /// and their interval would look more certain than the data allow.
  package static let minimumDefinedShare = 0.95

  /// The interval of `values` out of `resamples` replicates: nil when fewer than
  /// `minimumDefinedShare` of them defined the metric. With `whole` (a count, whose replicates
  /// are whole numbers), the bounds are rounded outward to the order statistics around them,
  /// so a count's interval is whole and never narrower than the interpolated one.
  package static func interval(
    _ values: [Double], level: Double, of resamples: Int, whole: Bool = false
  ) -> (Double?, Double?) {
    guard Double(values.count) >= minimumDefinedShare * Double(resamples) else { return (nil, nil) }
    let (lower, upper) = interval(values, level: level)
    guard whole else { return (lower, upper) }
    return (lower.map { $0.rounded(.down) }, upper.map { $0.rounded(.up) })
  }

  /// The percentile interval of `values` at `level` (type-7 quantiles); nil when empty.
  package static func interval(_ values: [Double], level: Double) -> (Double?, Double?) {
    guard !values.isEmpty else { return (nil, nil) }
    let sorted = values.sorted()
    let alpha = (1 - level) / 2
    return (quantile(sorted, alpha), quantile(sorted, 1 - alpha))
  }

  /// The q-quantile of sorted values: linear interpolation at position (n − 1)·q.
  package static func quantile(_ sorted: [Double], _ q: Double) -> Double {
    precondition(!sorted.isEmpty, "no values")
    let h = Double(sorted.count - 1) * q
    let lo = Int(h.rounded(.down))
    let hi = min(lo + 1, sorted.count - 1)
    return sorted[lo] + (h - Double(lo)) * (sorted[hi] - sorted[lo])
  }

  /// Up to this many units the randomization test enumerates all 2^n swaps (1,024 at most)
  /// instead of drawing them: its p-value is then exact.
  package static let exactUnits = 10

  static func isExact(_ table: UnitTable) -> Bool { table.units.count <= exactUnits }

  /// The two-sided p-value of `observed` among the `permuted` differences (undefined ones left
  /// out): (1 + #{|d*| ≥ |d|}) / (1 + count) for drawn permutations; #{|d*| ≥ |d|} / count when
  /// they are all 2^n of them (`exact`: the identity is among them, so it is never 0). Never
  /// below 1 / (count + 1); 1 when `observed` is not a finite number (callers give none then).
  package static func pValue(observed: Double, permuted: [Double?], exact: Bool = false) -> Double {
    guard observed.isFinite else { return 1 }
    let threshold = extremeThreshold(observed)
    var extreme = 0
    var count = 0
    for d in permuted {
      guard let d, d.isFinite else { continue }
      count += 1
      if abs(d) >= threshold { extreme += 1 }
    }
    return pValue(extreme: extreme, defined: count, exact: exact)
  }

  /// The p-value of `extreme` permuted differences at least as far from 0 as the observed one,
  /// among `defined` defined ones (see `pValue(observed:permuted:exact:)`).
  package static func pValue(extreme: Int, defined count: Int, exact: Bool = false) -> Double {
    let p =
      exact
      ? (count == 0 ? 1 : Double(extreme) / Double(count)) : Double(1 + extreme) / Double(1 + count)
    return max(p, 1 / Double(count + 1))
  }

  /// A permuted difference d* counts as extreme when |d*| reaches this: |observed| less 1e-12 of
  /// it, so that a permutation that gives the observed difference up to rounding ties with it.
  private static func extremeThreshold(_ observed: Double) -> Double {
    abs(observed) * (1 - 1e-12)
  }

  /// `a - b`, nil when either is undefined or the difference is not a finite number.
  private static func difference(_ a: Double?, _ b: Double?) -> Double? {
    guard let a, let b, (a - b).isFinite else { return nil }
    return a - b
  }

  // MARK: - Replicates

  /// Per replicate, every (arm, metric) value at `arm * metrics + metric`.
  static func bootstrap(
    _ table: UnitTable, options: ResamplingOptions, progress: ProgressCounter? = nil
  ) -> [[Double?]] {
    let n = table.units.count
    let metrics = table.metrics.count
    let width = table.arms.count * metrics
    // Every arm's sums of a unit side by side, so that a replicate reads each unit once.
    var flatNum = [Double](repeating: 0, count: n * width)
    var flatDen = flatNum
    for (a, arm) in table.arms.enumerated() {
      for u in 0..<n {
        for m in 0..<metrics {
          flatNum[u * width + a * metrics + m] = arm.numerators[u * metrics + m]
          flatDen[u * width + a * metrics + m] = arm.denominators[u * metrics + m]
        }
      }
    }
    let (nums, dens) = (flatNum, flatDen)
    return replicate(options.resamples, progress: progress) { r in
      var stream = stream(options.seed, "bootstrap", r)
      var counts = [Int32](repeating: 0, count: n)
      for _ in 0..<n { counts[stream.nextInt(below: n)] += 1 }
      var num = [Double](repeating: 0, count: width)
      var den = [Double](repeating: 0, count: width)
      nums.withUnsafeBufferPointer { np in
        dens.withUnsafeBufferPointer { dp in
          num.withUnsafeMutableBufferPointer { acc in
            den.withUnsafeMutableBufferPointer { accDen in
              for u in 0..<n where counts[u] != 0 {
                let w = Double(counts[u])
                let base = u * width
                for j in 0..<width {
                  acc[j] += w * np[base + j]
                  accDen[j] += w * dp[base + j]
                }
              }
            }
          }
        }
      }
      var values: [Double?] = []
      values.reserveCapacity(width)
      for a in table.arms.indices {
        for m in 0..<metrics {
          let j = a * metrics + m
          // Coverage gets no interval (see `hasInterval`): not worth recounting per replicate.
          values.append(
            hasInterval(table.metrics[m])
              ? finish(table.metrics[m].form, num[j], den[j]) { [[Int32]]() } : nil)
        }
      }
      return values
    }
  }

  /// Per metric, how many permutations gave a defined difference (`defined`) and how many of
  /// those were at least as far from 0 as `observed[m]` (`extreme`); metrics whose observed
  /// difference is undefined are not looked at (both 0). The permutations are drawn from
  /// streams seeded by (seed, arm, permutation), so the counts do not depend on the threads.
  static func permutationTally(
    _ table: UnitTable, arm: Int, baseline: Int, observed: [Double?], options: ResamplingOptions,
    progress: ProgressCounter? = nil
  ) -> (extreme: [Int], defined: [Int]) {
    let n = table.units.count
    let metrics = table.metrics.count
    let x = table.arms[arm]
    let y = table.arms[baseline]
    let (numX0, denX0, numY0, denY0, numDelta0, denDelta0) = unswappedSums(
      x, y, units: n, metrics: metrics)
    let thresholds = observed.map { $0.map(extremeThreshold) }
    let forms = table.metrics.map(\.form)
    let coverage =
      forms.contains { if case .coverage = $0 { true } else { false } }
      ? SwappedCoverage(x.items, y.items) : nil
    let exact = isExact(table)
    let count = permutationCount(table, options: options)
    // Permutation r's stream is seeded by (seed, purpose, r): the hash of the first two once.
    var streamPrefix = StableHash()
    streamPrefix.combine(options.seed)
    streamPrefix.combine("permute-\(table.arms[arm].arm)")
    let prefix = streamPrefix
    let words = (n + 63) / 64
    let chunks = max(1, min(count, 64))
    let slots = TallySlots(chunks: chunks, metrics: metrics)
    DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
      var extreme = [Int](repeating: 0, count: metrics)
      var defined = [Int](repeating: 0, count: metrics)
      var swap = [UInt64](repeating: 0, count: max(words, 1))
      var num = [Double](repeating: 0, count: metrics)
      var den = [Double](repeating: 0, count: metrics)
      var r = chunk
      while r < count {
        if exact {
          // Permutation r swaps the units whose bit is set in r: all 2^n of them.
          swap[0] = UInt64(r)
        } else {
          var h = prefix
          h.combine(UInt64(r))
          var stream = RandomStream(seed: h.finalized)
          for w in 0..<words { swap[w] = stream.next() }
        }
        for m in 0..<metrics {
          num[m] = 0
          den[m] = 0
        }
        swap.withUnsafeBufferPointer { bits in
          numDelta0.withUnsafeBufferPointer { nd in
            denDelta0.withUnsafeBufferPointer { dd in
              num.withUnsafeMutableBufferPointer { sumNum in
                den.withUnsafeMutableBufferPointer { sumDen in
                  for u in 0..<n where (bits[u >> 6] >> UInt64(u & 63)) & 1 == 1 {
                    let base = u * metrics
                    for m in 0..<metrics {
                      sumNum[m] += nd[base + m]
                      sumDen[m] += dd[base + m]
                    }
                  }
                }
              }
            }
          }
        }
        let covered = coverage?.count(swap)
        for m in 0..<metrics {
          guard let threshold = thresholds[m] else { continue }
          let d: Double?
          if case .coverage(let items) = forms[m], let covered {
            d = difference(
              items > 0 ? Double(covered.arm) / Double(items) : nil,
              items > 0 ? Double(covered.baseline) / Double(items) : nil)
          } else {
            d = difference(
              sums(forms[m], numX0[m] + num[m], denX0[m] + den[m]),
              sums(forms[m], numY0[m] - num[m], denY0[m] - den[m]))
          }
          guard let d else { continue }
          defined[m] += 1
          if abs(d) >= threshold { extreme[m] += 1 }
        }
        progress?.add(1)
        r += chunks
      }
      slots.set(chunk, extreme: extreme, defined: defined)
    }
    return slots.totals
  }

  /// A permutation's sums are the unswapped sums moved by the swapped units' differences:
  /// arm = Σx + Σ_swapped (y − x), baseline = Σy − Σ_swapped (y − x). The unswapped sums per
  /// metric, and per unit and metric (unit-major) the differences y − x.
  private static func unswappedSums(_ x: ArmUnits, _ y: ArmUnits, units n: Int, metrics: Int)
    -> (
      numX: [Double], denX: [Double], numY: [Double], denY: [Double], numDelta: [Double],
      denDelta: [Double]
    )
  {
    var numX = [Double](repeating: 0, count: metrics)
    var denX = numX
    var numY = numX
    var denY = numX
    var numDelta = [Double](repeating: 0, count: n * metrics)
    var denDelta = numDelta
    for u in 0..<n {
      for m in 0..<metrics {
        let i = u * metrics + m
        numX[m] += x.numerators[i]
        denX[m] += x.denominators[i]
        numY[m] += y.numerators[i]
        denY[m] += y.denominators[i]
        numDelta[i] = y.numerators[i] - x.numerators[i]
        denDelta[i] = y.denominators[i] - x.denominators[i]
      }
    }
    return (numX, denX, numY, denY, numDelta, denDelta)
  }

  private static func stream(_ seed: UInt64, _ purpose: String, _ r: Int) -> RandomStream {
    var h = StableHash()
    h.combine(seed)
    h.combine(purpose)
    h.combine(UInt64(r))
    return RandomStream(seed: h.finalized)
  }

  /// `finish` of a ratio or a total (nil for coverage), without its generic item lists: the
  /// permutations' inner loop.
  @inline(__always)
  private static func sums(_ form: MetricForm, _ num: Double, _ den: Double) -> Double? {
    switch form {
    case .total: return num.isFinite ? num : nil
    case .ratio:
      guard den != 0 else { return nil }
      let r = num / den
      return r.isFinite ? r : nil
    case .coverage: return nil
    }
  }

  private static func finish<S: Sequence>(
    _ form: MetricForm, _ num: Double, _ den: Double, items: () -> S
  ) -> Double? where S.Element == [Int32] {
    // A sum or a ratio that is not a finite number (a weight of 1 / 1e-320) is undefined.
    switch form {
    case .total, .ratio: return sums(form, num, den)
    case .coverage(let catalogItems):
      guard catalogItems > 0 else { return nil }
      var seen = [Bool](repeating: false, count: catalogItems)
      var count = 0
      for list in items() {
        for i in list where !seen[Int(i)] {
          seen[Int(i)] = true
          count += 1
        }
      }
      return Double(count) / Double(catalogItems)
    }
  }

  /// Runs `body` for replicates 0..<count on all cores; results in replicate order. `progress`
  /// counts each replicate done.
  private static func replicate(
    _ count: Int, progress: ProgressCounter? = nil, _ body: @Sendable (Int) -> [Double?]
  ) -> [[Double?]] {
    let results = ResultSlots(count: count)
    let chunks = min(count, 64)
    DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
      var r = chunk
      while r < count {
        results.set(r, body(r))
        progress?.add(1)
        r += chunks
      }
    }
    return results.values
  }
}

/// Slots written by distinct replicates from several threads: each slot is written by exactly one
/// iteration, and read only after `concurrentPerform` returns.
private final class ResultSlots: @unchecked Sendable {
  private let storage: UnsafeMutablePointer<[Double?]>
  private let count: Int

  init(count: Int) {
    self.count = count
    storage = .allocate(capacity: count)
    storage.initialize(repeating: [], count: count)
  }

  deinit {
    storage.deinitialize(count: count)
    storage.deallocate()
  }

  func set(_ index: Int, _ value: [Double?]) { storage[index] = value }

  var values: [[Double?]] { Array(UnsafeBufferPointer(start: storage, count: count)) }
}

/// Per chunk of permutations, its counts of extreme and defined differences, written by one
/// thread each and summed after `concurrentPerform` returns (integer sums: the same whatever
/// the order).
private final class TallySlots: @unchecked Sendable {
  private var extreme: [[Int]]
  private var defined: [[Int]]
  private let metrics: Int

  init(chunks: Int, metrics: Int) {
    self.metrics = metrics
    extreme = [[Int]](repeating: [], count: chunks)
    defined = [[Int]](repeating: [], count: chunks)
  }

  func set(_ chunk: Int, extreme: [Int], defined: [Int]) {
    self.extreme[chunk] = extreme
    self.defined[chunk] = defined
  }

  var totals: (extreme: [Int], defined: [Int]) {
    var e = [Int](repeating: 0, count: metrics)
    var d = e
    for (chunkExtreme, chunkDefined) in zip(extreme, defined) {
      for m in 0..<min(metrics, chunkExtreme.count) {
        e[m] += chunkExtreme[m]
        d[m] += chunkDefined[m]
      }
    }
    return (e, d)
  }
}

/// The distinct dishes on each side of a permutation of two arms, without recounting every
/// unit's dishes: the arm's side holds unit u's dishes under the arm when u is not swapped and
/// under the baseline when it is, the baseline's side the others.
///
/// A dish that some unit has under both arms is on both sides whatever the swaps (`both`). Any
/// other dish is on the arm's side when a unit that has it under the arm only is not swapped, or
/// a unit that has it under the baseline only is swapped (and the other way round for the
/// baseline's side). Looking at its units in order stops as soon as both sides hold it, after
/// about two units on average for a dish several diners saw, so a permutation costs a few looks
/// per such dish instead of every unit's list.
private struct SwappedCoverage: Sendable {
  /// Dishes some unit has under both arms.
  let both: Int
  /// Per other dish k, the units that have it under the arm only:
  /// `armOnly[armStart[k]..<armStart[k + 1]]`; and under the baseline only.
  let armOnly: [Int32]
  let armStart: [Int]
  let baselineOnly: [Int32]
  let baselineStart: [Int]

  init(_ arm: [[Int32]], _ baseline: [[Int32]]) {
    let size = Int((arm + baseline).lazy.compactMap { $0.max() }.max() ?? -1) + 1
    var inArm = [Int](repeating: -1, count: size)
    var inBaseline = [Int](repeating: -1, count: size)
    var shared = [Bool](repeating: false, count: size)
    var armUnits = [[Int32]](repeating: [], count: size)
    var baselineUnits = [[Int32]](repeating: [], count: size)
    for u in arm.indices {
      for i in arm[u] { inArm[Int(i)] = u }
      for i in baseline[u] { inBaseline[Int(i)] = u }
      for i in arm[u] {
        if inBaseline[Int(i)] == u {
          shared[Int(i)] = true
        } else {
          armUnits[Int(i)].append(Int32(u))
        }
      }
      for i in baseline[u] where inArm[Int(i)] != u { baselineUnits[Int(i)].append(Int32(u)) }
    }
    var both = 0
    var armOnly: [Int32] = []
    var armStart = [0]
    var baselineOnly: [Int32] = []
    var baselineStart = [0]
    for i in 0..<size {
      if shared[i] {
        both += 1
        continue
      }
      guard !armUnits[i].isEmpty || !baselineUnits[i].isEmpty else { continue }
      armOnly += armUnits[i]
      armStart.append(armOnly.count)
      baselineOnly += baselineUnits[i]
      baselineStart.append(baselineOnly.count)
    }
    self.both = both
    self.armOnly = armOnly
    self.armStart = armStart
    self.baselineOnly = baselineOnly
    self.baselineStart = baselineStart
  }

  /// The distinct dishes of each side when the units whose bit is set in `swap` are swapped.
  func count(_ swap: [UInt64]) -> (arm: Int, baseline: Int) {
    var onArm = both
    var onBaseline = both
    swap.withUnsafeBufferPointer { bits in
      armOnly.withUnsafeBufferPointer { armUnits in
        baselineOnly.withUnsafeBufferPointer { baselineUnits in
          for k in 0..<(armStart.count - 1) {
            var a = false
            var b = false
            for j in armStart[k]..<armStart[k + 1] {
              let u = Int(armUnits[j])
              if (bits[u >> 6] >> UInt64(u & 63)) & 1 == 1 { b = true } else { a = true }
              if a && b { break }
            }
            if !(a && b) {
              for j in baselineStart[k]..<baselineStart[k + 1] {
                let u = Int(baselineUnits[j])
                if (bits[u >> 6] >> UInt64(u & 63)) & 1 == 1 { a = true } else { b = true }
                if a && b { break }
              }
            }
            if a { onArm += 1 }
            if b { onBaseline += 1 }
          }
        }
      }
    }
    return (onArm, onBaseline)
  }
}
