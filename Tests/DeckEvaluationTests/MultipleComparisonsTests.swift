import DeckCore
import DeckTestSupport
import Testing

@testable import DeckEvaluation

// Reference values: statsmodels 0.15.0 (numpy 2.4.6, Python 3.11, pip into a virtual
// environment), `statsmodels.stats.multitest.multipletests(p, method="holm")[1]` and
// `method="fdr_bh"`, printed with repr().

@Suite("Compare: Holm and Benjamini-Hochberg adjusted p-values")
struct MultipleComparisonsTests {
  @Test(
    arguments: [
      (
        [0.01, 0.04, 0.03, 0.005, 0.5, 0.04, 1.0, 0.2, 0.001, 0.0495],
        [0.08, 0.24, 0.21, 0.045, 1.0, 0.24, 1.0, 0.6000000000000001, 0.01, 0.24],
        [
          0.03333333333333333, 0.06666666666666667, 0.06666666666666667, 0.024999999999999998,
          0.5555555555555556, 0.06666666666666667, 1.0, 0.25, 0.01, 0.07071428571428572,
        ]
      ),
      ([0.52, 1e-05], [0.52, 2e-05], [0.52, 2e-05]),
      // Every adjusted value capped at 1 (Holm) or lifted to the largest p (BH).
      ([0.9, 0.8, 0.95], [1.0, 1.0, 1.0], [0.95, 0.95, 0.95]),
      ([0.001], [0.001], [0.001]),
      // The randomization p-values of 1,000 permutations: ties and an exact 1.
      (
        [
          0.000999000999000999, 0.000999000999000999, 0.3076923076923077, 0.02097902097902098,
          1.0, 0.6513486513486514,
        ],
        [
          0.005994005994005994, 0.005994005994005994, 0.9230769230769231, 0.08391608391608392,
          1.0, 1.0,
        ],
        [
          0.002997002997002997, 0.002997002997002997, 0.46153846153846156, 0.04195804195804196,
          1.0, 0.7816183816183816,
        ]
      ),
    ] as [([Double], [Double], [Double])])
  func matchStatsmodels(p: [Double], holm: [Double], bh: [Double]) {
    let h = MultipleComparisons.holm(p)
    let b = MultipleComparisons.benjaminiHochberg(p)
    #expect(h.count == p.count && b.count == p.count)
    for i in p.indices {
      #expect(abs(h[i] - holm[i]) <= 1e-12, "holm[\(i)] \(h[i]) vs \(holm[i])")
      #expect(abs(b[i] - bh[i]) <= 1e-12, "bh[\(i)] \(b[i]) vs \(bh[i])")
    }
  }

  @Test func byHand() {
    // Holm: sorted 0.01, 0.02, 0.03 times 3, 2, 1 = 0.03, 0.04, 0.03, then the running
    // maximum: 0.03, 0.04, 0.04. BH: times 3/1, 3/2, 3/3 = 0.03, 0.03, 0.03.
    let p = [0.03, 0.01, 0.02]
    let h = MultipleComparisons.holm(p)
    #expect(abs(h[0] - 0.04) < 1e-15 && abs(h[1] - 0.03) < 1e-15 && abs(h[2] - 0.04) < 1e-15)
    #expect(MultipleComparisons.benjaminiHochberg(p).allSatisfy { abs($0 - 0.03) < 1e-15 })
    #expect(MultipleComparisons.holm([]).isEmpty)
    #expect(MultipleComparisons.benjaminiHochberg([]).isEmpty)
    #expect(MultipleComparisons.holm([1, 1]) == [1, 1])
    #expect(MultipleComparisons.benjaminiHochberg([1, 1]) == [1, 1])
  }

  @Test func monotoneNeverBelowPAndAtMostOne() {
    var stream = RandomStream(seed: 15)
    for round in 0..<200 {
      let m = 1 + round % 40
      // Some small, some tied (a coarse grid), some exactly 1.
      let p = (0..<m).map { _ -> Double in
        let u = stream.nextDouble()
        return u < 0.1 ? 1 : u < 0.4 ? (u * 20).rounded() / 20 : u * u * u
      }
      let h = MultipleComparisons.holm(p)
      let b = MultipleComparisons.benjaminiHochberg(p)
      for i in 0..<m {
        #expect(h[i] >= p[i] && h[i] <= 1 && b[i] >= p[i] && b[i] <= 1)
        // Holm controls the family-wise error, BH only the false discovery rate: BH <= Holm.
        #expect(b[i] <= h[i] + 1e-15)
        for j in 0..<m where p[i] <= p[j] {
          #expect(h[i] <= h[j] && b[i] <= b[j], "not monotone: \(p)")
        }
      }
    }
  }

  @Test func theFamilyIsEveryDefinedPValueOfTheReport() throws {
    var report = smallComparison()
    // Two arms against the baseline: 2 x 3 p-values, 2 undefined.
    report.differences.append(
      ArmDifference(
        arm: "thompson", baseline: "popularity", estimates: report.differences[0].estimates,
        pValues: [0.03, nil, 0.9]))
    report.differences[0].pValues = [0.52, 0.000_01, nil]
    MultipleComparisons.adjust(&report)
    let family = report.parameters.first { $0.name == "p_adjust_family" }?.value
    #expect(family == "arm x metric: 4 tests (2 arms x 3 metrics, 2 undefined left out)")
    #expect(report.parameters.contains { $0.name == "p_adjust" })
    // statsmodels on [0.52, 1e-05, 0.03, 0.9]: holm [1.0, 4e-05, 0.09, 1.0],
    // fdr_bh [0.6933333333333334, 4e-05, 0.06, 0.9].
    let d0 = report.differences[0]
    let d1 = report.differences[1]
    #expect(d0.pHolm == [1.0, 4e-05, nil])
    #expect(d1.pHolm == [0.09, nil, 1.0])
    #expect(d0.pBH[2] == nil && d1.pBH[1] == nil)
    #expect(abs(d0.pBH[0]! - 0.6933333333333334) < 1e-15)
    #expect(d0.pBH[1] == 4e-05 && d1.pBH[0] == 0.06 && d1.pBH[2] == 0.9)
    // Adjusting again states the family once.
    MultipleComparisons.adjust(&report)
    #expect(report.parameters.filter { $0.name == "p_adjust_family" }.count == 1)
  }

  /// A test whose two arms are identical for every diner has p = 1 whatever the data: it is
  /// left out of the family (both adjusted p-values 1), and the family's size, description and
  /// JSON say so.
  @Test func identicalArmsAreLeftOutOfTheFamily() throws {
    var report = smallComparison()
    report.differences.append(
      ArmDifference(
        arm: "thompson", baseline: "popularity", estimates: report.differences[0].estimates,
        pValues: [1, 0.03, 0.9], identical: [true, false, false]))
    report.differences[0].pValues = [1, 0.000_01, nil]
    report.differences[0].identical = [true, false, false]
    #expect(MultipleComparisons.familyTests(report) == 3)
    MultipleComparisons.adjust(&report)
    // statsmodels on [1e-05, 0.03, 0.9]: holm [3e-05, 0.06, 0.9], fdr_bh [3e-05, 0.045, 0.9].
    let d0 = report.differences[0]
    let d1 = report.differences[1]
    #expect(d0.pHolm[0] == 1 && d0.pHolm[2] == nil && d0.pBH[0] == 1 && d0.pBH[2] == nil)
    #expect(d1.pHolm[0] == 1 && d1.pBH[0] == 1 && d1.pHolm[2] == 0.9 && d1.pBH[2] == 0.9)
    #expect(abs(d0.pHolm[1]! - 3e-05) < 1e-18 && abs(d0.pBH[1]! - 3e-05) < 1e-18)
    #expect(abs(d1.pHolm[1]! - 0.06) < 1e-15 && abs(d1.pBH[1]! - 0.045) < 1e-15)
    let family = try #require(report.parameters.first { $0.name == "p_adjust_family" })
    #expect(
      family.value
        == "arm x metric: 3 tests (2 arms x 3 metrics, 1 undefined and 2 identical for every"
        + " diner left out)")
    #expect(
      family.json.contains(
        "\"identical\":[{\"arm\":\"affinity\",\"metric\":\"decks\"},"
          + "{\"arm\":\"thompson\",\"metric\":\"decks\"}]"))
    // The report's statement of what the permutations allow counts the same family.
    #expect(report.significance?.tests == 3)
  }

  @Test func aFamilyWithoutUndefinedTestsOrWithoutDifferences() {
    #expect(
      MultipleComparisons.familyDescription(tests: 144, arms: 9, metrics: 16)
        == "arm x metric: 144 tests (9 arms x 16 metrics)")
    #expect(
      MultipleComparisons.familyDescription(tests: 1, arms: 1, metrics: 1)
        == "arm x metric: 1 test (1 arm x 1 metric)")
    var report = smallComparison()
    report.differences = []
    let before = report
    MultipleComparisons.adjust(&report)
    #expect(report == before)
  }
}
