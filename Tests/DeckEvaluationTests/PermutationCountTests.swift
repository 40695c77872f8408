import DeckCore
import Testing

@testable import DeckEvaluation

@Suite("Compare: permutations chosen from the family")
struct PermutationCountTests {
  @Test(arguments: [
    // (tests, alpha, permutations): B ≥ 10 · tests / alpha − 1, a multiple of 1,000, ≥ 1,000.
    (0, 0.05, 1000), (1, 0.05, 1000), (5, 0.05, 1000), (6, 0.05, 2000), (30, 0.05, 6000),
    (32, 0.05, 7000), (144, 0.05, 29000), (160, 0.05, 32000), (500, 0.05, 100_000),
    (144, 0.01, 144_000), (16, 0.1, 2000),
  ])
  func neededFollowsTheRule(tests: Int, alpha: Double, permutations: Int) {
    #expect(PermutationCount.needed(tests: tests, alpha: alpha) == permutations)
  }

  /// The rule's count is the least round one that brings the smallest Holm-adjusted p-value to
  /// alpha / 10 or below.
  @Test func neededIsTheLeastRoundCountBelowTheMargin() {
    for alpha in [0.1, 0.05, 0.025, 0.01] {
      for tests in 1...400 {
        let b = PermutationCount.needed(tests: tests, alpha: alpha)
        #expect(b % PermutationCount.step == 0 && b >= PermutationCount.minimum)
        #expect(Double(tests) / Double(b + 1) <= alpha / 10 * (1 + 1e-12), "\(tests) \(alpha)")
        if b > PermutationCount.minimum {
          let fewer = b - PermutationCount.step
          #expect(Double(tests) / Double(fewer + 1) > alpha / 10, "\(tests) \(alpha)")
        }
      }
    }
  }

  /// The case: 9 strategies (8 arms) x 20 metrics against the baseline. 1,000
  /// permutations allowed no Holm-adjusted p below 0.16; the default now reaches 0.005.
  @Test func theDefaultLetsEightArmsOfTwentyMetricsBeSignificant() {
    let old = PermutationCount.choose(tests: 160, alpha: 0.05, units: 44, given: 1000)
    #expect(!old.attainable)
    #expect(abs(old.smallestHolm - 160.0 / 1001) < 1e-15)
    #expect(old.unattainable?.contains("give --permutations 32000 or more") == true)
    let chosen = PermutationCount.choose(tests: 160, alpha: 0.05, units: 44, given: nil)
    #expect(chosen.source == .family && chosen.permutations == 32000)
    #expect(chosen.attainable && chosen.smallestHolm <= 0.005)
    #expect(chosen.unattainable == nil && chosen.capped == nil)
    #expect(
      chosen.summary
        == "32000 per difference, chosen for 160 tests at alpha 0.05: the smallest"
        + " Holm-adjusted p-value is 0.0050")
  }

  @Test func theCapBoundsTheDefaultAndSaysWhatItCosts() {
    // 900 tests would take 180,000: capped, still attainable (900 / 100,001 < 0.05).
    let capped = PermutationCount.choose(tests: 900, alpha: 0.05, units: 500, given: nil)
    #expect(capped.source == .cap && capped.permutations == PermutationCount.cap)
    #expect(capped.needed == 180_000 && capped.attainable)
    #expect(capped.capped?.contains("would take 180000") == true)
    #expect(capped.unattainable == nil)
    // 6,000 tests: the cap cannot bring Holm below 0.05 (6,000 / 100,001), the option's
    // largest count can, though not to alpha / 10.
    let some = PermutationCount.choose(tests: 6000, alpha: 0.05, units: 500, given: nil)
    #expect(!some.attainable && some.capped == nil)
    #expect(some.unattainable?.hasSuffix("; give --permutations 1000000") == true)
    // 60,000 tests: not even that.
    let many = PermutationCount.choose(tests: 60_000, alpha: 0.05, units: 500, given: nil)
    #expect(many.unattainable?.contains("compare fewer strategies or metrics") == true)
  }

  @Test func aGivenCountIsKeptAndJudged() {
    let given = PermutationCount.choose(tests: 30, alpha: 0.05, units: 44, given: 999)
    #expect(given.source == .option && given.permutations == 999 && given.smallestP == 0.001)
    #expect(given.attainable)
    #expect(
      given.summary
        == "999 per difference (--permutations): over 30 tests the smallest Holm-adjusted"
        + " p-value is 0.0300")
    #expect(
      given.json
        == "{\"alpha\":0.05,\"tests\":30,\"permutations\":999,\"source\":\"option\","
        + "\"needed\":6000,\"min_p_value\":0.001,\"min_p_holm\":0.03,\"attainable\":true}")
  }

  @Test func fewDinersAreEnumeratedWhateverTheCount() {
    let exact = PermutationCount.choose(tests: 4, alpha: 0.05, units: 7, given: 50_000)
    #expect(exact.source == .exact && exact.permutations == 128)
    #expect(exact.smallestP == 2.0 / 128 && !exact.attainable)
    #expect(exact.unattainable?.hasSuffix("more diners are needed") == true)
    let ten = PermutationCount.choose(tests: 1, alpha: 0.05, units: 10, given: nil)
    #expect(ten.attainable && ten.smallestHolm == 2.0 / 1024)
    #expect(ten.summary.hasPrefix("all 1024 swaps of 10 diners (exact)"))
  }

  @Test func noTestNoStatement() {
    let none = PermutationCount.choose(tests: 0, alpha: 0.05, units: 44, given: nil)
    #expect(none.permutations == PermutationCount.minimum)
    #expect(!none.attainable && none.unattainable == nil && none.capped == nil)
    #expect(none.smallestHolm == 1)
  }

  @Test func alphaIsOneMinusTheLevelWithoutBinaryNoise() {
    #expect(MultipleComparisons.alpha(level: 0.95) == 0.05)
    #expect(MultipleComparisons.alpha(level: 0.975) == 0.025)
    let significance = PermutationCount.choose(
      tests: 1, alpha: MultipleComparisons.alpha(level: 0.975), units: 44, given: nil)
    #expect(significance.alphaText == "0.025")
  }
}
