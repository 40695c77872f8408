import DeckBase
import DeckCore
import Dispatch

/// Settings of the bootstrap and the randomization test.
package struct ResamplingOptions: Sendable, Equatable {
  /// Bootstrap resamples, and permutations of the randomization test.
  package var resamples: Int
  /// The seed of every random draw: replicate r draws from a stream derived from (seed, purpose,
  /// r) alone, so results do not depend on the number of threads.
  package var seed: UInt64
  /// The confidence level of the intervals, in (0, 1).
  package var level: Double

  package init(resamples: Int = 1000, seed: UInt64 = 0, level: Double = 0.95) {
    precondition(resamples >= 1, "at least one resample")
    precondition(level > 0 && level < 1, "the confidence level must be in (0, 1)")
    self.resamples = resamples
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
/// their magnitude count as ties (≥).
///
/// Cost per replicate: units × arms × metrics multiply-adds (coverage: the items of the drawn
/// units). Replicates run on all cores.
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
      var pValues: [Double?] = []
      var defined: [Bool] = []
      let permuted = permutations(
        table, arm: a, baseline: baseline, options: options, progress: progress)
      for m in 0..<metrics {
        let observed = difference(
          table.value(arm: a, metric: m), table.value(arm: baseline, metric: m))
        let values = replicates.compactMap { r in
          difference(r[a * metrics + m], r[baseline * metrics + m])
        }
        let (lower, upper) =
          observed != nil && hasInterval(table.metrics[m])
          ? interval(
            values, level: options.level, of: options.resamples, whole: table.metrics[m].isCount)
          : (nil, nil)
        estimates.append(Estimate(value: observed, lower: lower, upper: upper))
        pValues.append(
          observed.map {
            pValue(observed: $0, permuted: permuted.map { $0[m] }, exact: isExact(table))
          })
        defined.append(observed != nil)
      }
      // The classical paired tests on the per-diner paired values, where the difference is
      // defined; a sort of the diners each, so the metrics run on all cores.
      let isDefined = defined
      let classical = replicate(metrics) { m in
        guard isDefined[m],
          let paired = PairedTests.pairedValues(table, arm: a, baseline: baseline, metric: m)
        else { return [nil, nil] }
        return [PairedTests.tTest(paired), PairedTests.wilcoxon(paired)]
      }
      differences.append(
        ArmDifference(
          arm: table.arms[a].arm, baseline: table.arms[baseline].arm, estimates: estimates,
          pValues: pValues, pT: classical.map { $0[0] }, pWilcoxon: classical.map { $0[1] }))
    }
    return (summaries, differences)
  }

  /// Whether the metric gets a bootstrap interval. Coverage does not: it counts the distinct
  /// dishes over all diners rather than averaging them, and a resample holds only about 63% of
  /// the diners (the rest are repeats), so every replicate loses dishes and the percentile
  /// interval sits below the value, often with the value as its upper end. Its randomization
  /// p-value stays valid: swapping two strategies' dishes within a diner is exchangeable under
  /// the null hypothesis whatever the statistic.
  /// How many replicates `analyze` computes: the bootstrap's, and each difference's
  /// permutations (every one of the 2^n when the units are few enough to be exact).
  package static func replicates(_ table: UnitTable, baseline: Int?, options: ResamplingOptions)
    -> Int
  {
    let permutations = isExact(table) ? 1 << table.units.count : options.resamples
    return options.resamples + (baseline == nil ? 0 : (table.arms.count - 1) * permutations)
  }

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
    let threshold = abs(observed) * (1 - 1e-12)
    var extreme = 0
    var count = 0
    for d in permuted {
      guard let d, d.isFinite else { continue }
      count += 1
      if abs(d) >= threshold { extreme += 1 }
    }
    let p =
      exact
      ? (count == 0 ? 1 : Double(extreme) / Double(count)) : Double(1 + extreme) / Double(1 + count)
    return max(p, 1 / Double(count + 1))
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

  /// Per permutation, the arm-minus-baseline difference of every metric.
  static func permutations(
    _ table: UnitTable, arm: Int, baseline: Int, options: ResamplingOptions,
    progress: ProgressCounter? = nil
  ) -> [[Double?]] {
    let n = table.units.count
    let metrics = table.metrics.count
    let x = table.arms[arm]
    let y = table.arms[baseline]
    // A permutation's sums are the unswapped sums moved by the swapped units' differences:
    // arm = Σx + Σ_swapped (y − x), baseline = Σy − Σ_swapped (y − x).
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
    let hasCoverage = table.metrics.contains { !hasInterval($0) }
    let (numX0, denX0, numY0, denY0) = (numX, denX, numY, denY)
    let (numDelta0, denDelta0) = (numDelta, denDelta)
    let exact = isExact(table)
    return replicate(exact ? 1 << n : options.resamples, progress: progress) { r in
      var swap = [Bool](repeating: false, count: n)
      if exact {
        // Permutation r swaps the units whose bit is set in r: all 2^n of them.
        for u in 0..<n { swap[u] = (r >> u) & 1 == 1 }
      } else {
        var stream = stream(options.seed, "permute-\(table.arms[arm].arm)", r)
        var bits: UInt64 = 0
        for u in 0..<n {
          if u % 64 == 0 { bits = stream.next() }
          swap[u] = bits & 1 == 1
          bits >>= 1
        }
      }
      var num = [Double](repeating: 0, count: metrics)
      var den = [Double](repeating: 0, count: metrics)
      numDelta0.withUnsafeBufferPointer { nd in
        denDelta0.withUnsafeBufferPointer { dd in
          for u in 0..<n where swap[u] {
            let base = u * metrics
            for m in 0..<metrics {
              num[m] += nd[base + m]
              den[m] += dd[base + m]
            }
          }
        }
      }
      return (0..<metrics).map { m in
        let form = table.metrics[m].form
        if hasCoverage, case .coverage = form {
          let a = finish(form, 0, 0) { (0..<n).lazy.map { swap[$0] ? y.items[$0] : x.items[$0] } }
          let b = finish(form, 0, 0) { (0..<n).lazy.map { swap[$0] ? x.items[$0] : y.items[$0] } }
          return difference(a, b)
        }
        return difference(
          finish(form, numX0[m] + num[m], denX0[m] + den[m]) { [[Int32]]() },
          finish(form, numY0[m] - num[m], denY0[m] - den[m]) { [[Int32]]() })
      }
    }
  }

  private static func stream(_ seed: UInt64, _ purpose: String, _ r: Int) -> RandomStream {
    var h = StableHash()
    h.combine(seed)
    h.combine(purpose)
    h.combine(UInt64(r))
    return RandomStream(seed: h.finalized)
  }

  private static func finish<S: Sequence>(
    _ form: MetricForm, _ num: Double, _ den: Double, items: () -> S
  ) -> Double? where S.Element == [Int32] {
    // A sum or a ratio that is not a finite number (a weight of 1 / 1e-320) is undefined.
    switch form {
    case .total: return num.isFinite ? num : nil
    case .ratio:
      guard den != 0 else { return nil }
      let r = num / den
      return r.isFinite ? r : nil
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
