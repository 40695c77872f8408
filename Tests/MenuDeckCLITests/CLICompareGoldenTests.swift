import Testing

@testable import MenuDeckCLI

/// `menudeck compare` on the sample logs, byte for byte against a golden file that
/// DeckJobsTests' `CompareJobTests` also holds the job, called directly, to.
@Suite struct CLICompareGoldenTests {
  @Test func aComparisonOnTheSampleLogsIsTheGoldenOne() {
    let r = CLIRun([
      "compare", "-s", "popularity", "-s", "random", "--baseline", "popularity", "--split",
      "2026-11-24", "--resamples", "200", "--format", "csv", "--jobs", "1",
      "Data/swipes.jsonl",
    ])
    #expect(r.code == .success, "\(r.stderr)")
    Golden.check(r.stdout, "compare-logs.csv")
  }
}
