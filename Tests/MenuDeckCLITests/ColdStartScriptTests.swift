import Foundation
import Testing

/// Scripts/cold-start.py end to end through the built binary, small: two seeds (two simulated
/// worlds) of 30 diners over 6 days. Each seed's comparison is printed, then per strategy and
/// metric the per-seed paired differences with their mean and t interval over the seeds; the
/// mean printed is the mean of the two differences in the reports it wrote.
@Suite(
  .enabled(if: SelfTestPython.path != nil, "python3 is not on the PATH"),
  .enabled(if: MenudeckBinary.path != nil, "the menudeck binary is not built"))
struct ColdStartScriptTests {
  @Test func twoSeedsEndWithTheMeanOverThem() throws {
    let out = FileManager.default.temporaryDirectory
      .appendingPathComponent("menudeck-cold-start-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: out) }
    let (status, output) = try SelfTestPython.run(
      "cold-start.py",
      [
        "--menudeck", try #require(MenudeckBinary.path), "--users", "30", "--days", "6",
        "--every", "1", "--jobs", "1", "--seeds", "1,2", "--strategy", "thompson",
        "--strategy", "lints:samples=1", "--out", out.path,
      ])
    #expect(status == 0, "\(output)")
    #expect(output.contains("\nseed 1\n") && output.contains("\nseed 2\n"), "\(output)")
    #expect(output.contains("over 2 seeds: paired difference from thompson"), "\(output)")
    var differences: [Double] = []
    for seed in [1, 2] {
      let data = try Data(
        contentsOf: out.appendingPathComponent("seed-\(seed)/compare.json"))
      let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
      let arms = try #require(report["differences"] as? [[String: Any]])
      let lints = try #require(arms.first { $0["arm"] as? String == "lints:samples=1" })
      let estimates = try #require(lints["estimates"] as? [String: Any])
      let like = try #require(estimates["like_rate"] as? [String: Any])
      differences.append(try #require(like["value"] as? Double))
    }
    let mean = (differences[0] + differences[1]) / 2
    let line = try #require(
      output.split(separator: "\n").first { $0.hasPrefix("lints:samples=1  like_rate: ") })
    #expect(line.contains(String(format: "mean %+.4f [", mean)), "\(line) vs \(differences)")
  }
}
