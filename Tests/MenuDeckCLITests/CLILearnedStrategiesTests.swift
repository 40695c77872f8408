import DeckCommandLine
import Foundation
import Testing

@testable import MenuDeckCLI

/// The strategies that fit a model in `learn` (`als`, `ease`, `itemknn`) where the other
/// commands take a strategy: the simulator, which refits them every simulated day, and
/// `compare --ope`, which replays logged cards through them.
@Suite struct CLILearnedStrategiesTests {
  static let config = CLITest.repoRoot + "/Config/menudeck.json"

  @Test(arguments: ["als", "ease", "itemknn"])
  func theSimulatorRefitsItEveryDay(_ strategy: String) throws {
    let dir = try TempDir()
    func simulate(_ events: String) -> CLIRun {
      dir.run([
        "simulate", "--config", Self.config, "--users", "30", "--days", "3", "--start",
        "2026-12-01", "--seed", "5", "--strategy", strategy, "--events", dir.file(events),
        "--format", "json",
      ])
    }
    let a = simulate("a.jsonl")
    #expect(a.code == .success, "\(a.stderr)")
    let run = try #require((try a.json() as? [String: Any])?["run"] as? [String: Any])
    #expect(run["strategies"] as? [String] == [strategy])
    let events = try dir.read("a.jsonl").split(separator: "\n")
    #expect(events.count > 30)
    // Days after the first learn from the earlier days' swipes: the same seed, the same bytes.
    let b = simulate("b.jsonl")
    #expect(a.stdout.replacingOccurrences(of: "a.jsonl", with: "b.jsonl") == b.stdout)
    #expect(try dir.read("a.jsonl") == (try dir.read("b.jsonl")))
  }

  @Test func offPolicyEstimatesReplayTheLoggedCards() throws {
    let dir = try CLIComparePolicyTests.setUp()
    let r = CLIComparePolicyTests.compare(
      dir, ["-s", "als", "-s", "ease", "-s", "itemknn", "--ope", "--format", "json"])
    #expect(r.code == .success, "\(r.stderr)")
    let json = try #require(try r.json() as? [String: Any])
    let arms = try #require(json["arms"] as? [[String: Any]])
    #expect(arms.compactMap { $0["arm"] as? String } == ["popularity", "als", "ease", "itemknn"])
    for arm in arms {
      let estimates = try #require(arm["estimates"] as? [String: [String: Any]])
      #expect(estimates["evaluated_cards"]?["value"] as? Double == 4, "\(arm["arm"] ?? "")")
    }
  }
}
