import DeckCommandLine
import Foundation
import Testing

@testable import MenuDeckCLI

/// Plugins of minor version 1 that return their ranking distribution, through `compare --ope`
/// (in the setting of `CLICompareSlateTests`: four dishes, decks of two, every rule that moves
/// cards off, a log with prefix propensities), and their prefix propensities through `deck`
/// and `simulate`. Needs python3 (the fixture plugins are Python).
@Suite(
  .enabled(
    if: ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").contains(where: {
      FileManager.default.isExecutableFile(atPath: "\($0)/python3")
    }) == true,
    "python3 is not on PATH: the plugin tests need it"))
struct CLIComparePluginPolicyTests {
  /// The off-policy estimators whose values must agree.
  static let estimators = ["ips", "snips", "dm", "dr", "iips", "rips", "sips", "cascade_dr"]

  /// `CLICompareSlateTests`' setting, with distribution.py as `uniform-plugin` (its default,
  /// `{"uniform": true}`) and `rankings-plugin` (a c 0.5, b c 0.25, c 0.25), misbehave.py (minor
  /// 0, every score 0) as `minor0`, the same decks as a policy file, and `maxPerCategory` for a
  /// config whose category cap moves cards.
  static func setUp(maxPerCategory: String = "null") throws -> TempDir {
    let dir = try CLICompareSlateTests.setUp()
    let fixtures = CLITest.repoRoot + "/Tests/Fixtures/plugins"
    try dir.write(
      "c.json",
      """
      {"catalog": "catalog.csv", "time_zone": "UTC", "seed": 3,
       "deck": {"size": 2, "max_per_category": \(maxPerCategory), "avoid_adjacent_category": false,
                "repeat_pick_days": 0, "cooldown_days": 0, "reshow_days": 0},
       "strategies": {
         "uniform-plugin": {"plugin": "\(fixtures)/distribution.py"},
         "rankings-plugin": {"plugin": "\(fixtures)/distribution.py",
                             "options": {"mode": "rankings"}},
         "minor0": {"plugin": "\(fixtures)/misbehave.py"}}}
      """)
    try dir.write(
      "decks.jsonl",
      """
      {"deck":["a","c"],"probability":0.5}
      {"deck":["b","c"],"probability":0.25}
      {"deck":["c"],"probability":0.25}

      """)
    return dir
  }

  func compare(_ dir: TempDir, _ strategies: [String], _ extra: [String] = []) -> CLIRun {
    CLIRun(
      ["compare", "--config", "c.json", "--split", "2026-11-10"]
        + strategies.flatMap { ["-s", $0] }
        + ["--ope", "--resamples", "20", "--format", "json"] + extra + ["log.csv"],
      in: dir.path)
  }

  /// Each estimator's value and those of its positions (`ips_p1`, ...) of arm `arm`.
  static func offPolicy(_ r: CLIRun, arm: Int) throws -> [String: Double?] {
    let all = try CLICompareSlateTests.estimates(r, arm: arm)
    var out: [String: Double?] = [:]
    for (name, value) in all {
      let base = name.range(of: "_p[0-9]+$", options: .regularExpression).map {
        String(name[..<$0.lowerBound])
      }
      if estimators.contains(base ?? name) { out[name] = value as? Double }
    }
    return out
  }

  /// The plugin's `{"uniform": true}` is random's distribution over the same candidates, so
  /// every off-policy estimate is random's, bit for bit (while their drawn decks differ); the
  /// `rankings` form is the policy file of the same decks, and the hand-computed values; the
  /// minor-0 plugin in the same run is its one deck.
  @Test func pluginDistributionsAreEvaluatedExactly() throws {
    let dir = try Self.setUp()
    let r = compare(
      dir, ["random", "uniform-plugin", "rankings-plugin", "minor0"],
      ["--policy", "decks=decks.jsonl"])
    #expect(r.code == .success, "\(r.stderr)")
    let random = try Self.offPolicy(r, arm: 0)
    let uniform = try Self.offPolicy(r, arm: 1)
    #expect(random.count == Self.estimators.count * 3, "\(random.keys.sorted())")
    for name in Self.estimators { #expect(random[name]! != nil, "\(name)") }
    #expect(uniform == random)
    // Random's values by hand (CLICompareSlateTests): the plugin's are the same numbers.
    #expect(abs(uniform["ips"]!! - 0.5) < 1e-15)
    #expect(abs(uniform["rips"]!! - 13.0 / 12) < 1e-15)

    // rankings: π(a, 1) 0.5, π(b, 1) 0.25, π(c, 2) 0.75; along u1's a the prefix 0.5, along
    // u2's b, c 0.25 and 0.25. ips (0.5/0.5 · 1 + 0.25/0.25 · 0 + 0.75/0.25 · 1) / 3 cards;
    // iips (1 + 3) / 2 decks; rips and sips (0.5/0.5 · 1 + 0.25/0.05 · 1) / 2; at position 2
    // ips 3 and rips 5 / 2.
    let rankings = try Self.offPolicy(r, arm: 2)
    #expect(rankings["ips"]!! == 4.0 / 3)
    #expect(rankings["iips"]!! == 2)
    #expect(rankings["rips"]!! == 3)
    #expect(rankings["sips"]!! == 3)
    #expect(rankings["ips_p2"]!! == 3)
    #expect(rankings["rips_p2"]!! == 2.5)
    // And every estimate is the policy file's (arm 4, after the strategies).
    #expect(rankings == (try Self.offPolicy(r, arm: 4)))

    let json = try #require(try r.json() as? [String: Any])
    let parameters = try #require(json["parameters"] as? [String: Any])
    #expect(
      parameters["ope_targets"] as? [String: String]
        == [
          "random": "exact distribution", "uniform-plugin": "exact distribution",
          "rankings-plugin": "exact distribution", "minor0": "one deck",
        ])
    // The minor-0 plugin is a deterministic target: replay is defined for it alone.
    #expect(try CLICompareSlateTests.estimates(r, arm: 3)["replay"] as? Double != nil)
    #expect(try CLICompareSlateTests.estimates(r, arm: 1)["replay"] is NSNull)
    let notes = try #require(json["notes"] as? [String])
    #expect(
      notes.contains {
        $0.hasPrefix(
          "random, uniform-plugin, rankings-plugin evaluated as the distributions they draw their"
            + " decks from, exactly")
      })
  }

  /// Under a category cap that may move cards, a returned policy is not the deck's: each
  /// session is the plugin's one deck, as for a built-in, and the report says so.
  @Test func rulesThatMoveCardsMakeEachSessionItsOneDeck() throws {
    let dir = try Self.setUp(maxPerCategory: "1")
    let r = compare(dir, ["uniform-plugin", "random"])
    #expect(r.code == .success, "\(r.stderr)")
    let json = try #require(try r.json() as? [String: Any])
    let parameters = try #require(json["parameters"] as? [String: Any])
    #expect(
      parameters["ope_targets"] as? [String: String]
        == ["uniform-plugin": "one deck", "random": "one deck"])
    let notes = try #require(json["notes"] as? [String])
    #expect(!notes.contains { $0.contains("evaluated as the distributions") })
  }

  /// The prefix propensities of the plugin's drawn order go onto the deck's cards and into
  /// simulate's event log: 1/4 and 1/12 for decks of two of four dishes; none where a
  /// category cap may move the cards.
  @Test func prefixPropensitiesReachDecksAndTheEventLog() throws {
    let dir = try Self.setUp()
    let deck = dir.run([
      "deck", "--config", "c.json", "--history", "log.csv", "--date", "2026-11-10", "--user", "u1",
      "--strategy",
      "uniform-plugin", "--format", "jsonl",
    ])
    #expect(deck.code == .success, "\(deck.stderr)")
    let cards = try #require(try deck.jsonLines().first?["cards"] as? [[String: Any]])
    #expect(cards.map { $0["prefix_propensity"] as? Double } == [0.25, 1.0 / 12])
    let sim = dir.run([
      "simulate", "--config", "c.json", "--users", "6", "--days", "1", "--start", "2026-11-12",
      "--strategy", "uniform-plugin", "--events", dir.file("events.jsonl"), "--format", "csv",
    ])
    #expect(sim.code == .success, "\(sim.stderr)")
    let events = try dir.read("events.jsonl").split(separator: "\n").map {
      try #require(
        try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(!events.isEmpty)
    for event in events {
      let position = try #require(event["position"] as? Int)
      #expect(event["prefix_propensity"] as? Double == [0.25, 1.0 / 12][position - 1])
    }
    let capped = try Self.setUp(maxPerCategory: "1")
    let moved = capped.run([
      "deck", "--config", "c.json", "--history", "log.csv", "--date", "2026-11-10", "--user", "u1",
      "--strategy",
      "uniform-plugin", "--format", "jsonl",
    ])
    #expect(moved.code == .success, "\(moved.stderr)")
    let movedCards = try #require(try moved.jsonLines().first?["cards"] as? [[String: Any]])
    #expect(movedCards.count == 2)
    #expect(movedCards.allSatisfy { $0["prefix_propensity"] == nil && $0["propensity"] != nil })
  }
}
