import DeckCommandLine
import Foundation
import Testing

@testable import MenuDeckCLI

/// `compare --ope` on a log with prefix propensities: the slate estimators for a strategy that
/// knows its distribution (random, exactly) and for a deck-distribution policy file, by hand.
@Suite struct CLICompareSlateTests {
  /// Four dishes; one diner trained before 2026-11-10; two logged sessions from it on:
  /// u1 a right @1 (μ 0.5, prefix 0.5); u2 b left @1 (μ 0.25, prefix 0.25), c right @2 (μ 0.25,
  /// prefix 0.05).
  static let log = """
    user,item,swipe,at,position,propensity,prefix_propensity
    u1,a,right,2026-11-05T12:00:00Z,1,0.5,0.5
    u1,a,right,2026-11-10T12:00:00Z,1,0.5,0.5
    u2,b,left,2026-11-10T12:00:00Z,1,0.25,0.25
    u2,c,right,2026-11-10T12:00:01Z,2,0.25,0.05

    """

  static func setUp() throws -> TempDir {
    let dir = try TempDir("menudeck-slates")
    try dir.write("catalog.csv", "id,name,category\na,A,x\nb,B,x\nc,C,y\nd,D,y\n")
    try dir.write(
      "c.json",
      """
      {"catalog": "catalog.csv", "time_zone": "UTC", "seed": 3,
       "deck": {"size": 2, "max_per_category": null, "avoid_adjacent_category": false,
                "repeat_pick_days": 0, "cooldown_days": 0, "reshow_days": 0}}
      """)
    try dir.write("log.csv", log)
    return dir
  }

  static func estimates(_ r: CLIRun, arm: Int) throws -> [String: Any?] {
    let json = try #require(try r.json() as? [String: Any])
    let arms = try #require(json["arms"] as? [[String: Any]])
    let estimates = try #require(arms[arm]["estimates"] as? [String: [String: Any]])
    return estimates.mapValues { $0["value"] }
  }

  /// random over four candidates with decks of two: π = 1/4 at both positions, prefixes 1/4
  /// and 1/12. Weights: u1 w 0.5, c 0.5; u2 w 1, 1, c 1, 5/3.
  @Test func randomIsEvaluatedExactlyWithItsSlateEstimates() throws {
    let dir = try Self.setUp()
    let r = CLIRun(
      [
        "compare", "--config", "c.json", "--split", "2026-11-10", "-s", "random", "-s",
        "popularity", "--ope", "--resamples", "20", "--format", "json", "log.csv",
      ], in: dir.path)
    #expect(r.code == .success, "\(r.stderr)")
    let random = try Self.estimates(r, arm: 0)
    func value(_ name: String) -> Double? { random[name] as? Double }
    // ips over the three cards: (0.5 · 1 + 1 · 0 + 1 · 1) / 3.
    #expect(abs(value("ips")! - 0.5) < 1e-15)
    // Per deck: iips (0.5 + 1) / 2; rips and sips (0.5 + 5/3) / 2.
    #expect(abs(value("iips")! - 0.75) < 1e-15)
    #expect(abs(value("rips")! - 13.0 / 12) < 1e-15)
    #expect(abs(value("sips")! - 13.0 / 12) < 1e-15)
    #expect(abs(value("rips_p2")! - 5.0 / 6) < 1e-15)
    #expect(value("cascade_dr") != nil)
    #expect(random["replay"] is NSNull)
    // popularity is one deck: replay stays defined.
    #expect(try Self.estimates(r, arm: 1)["replay"] as? Double != nil)
    let json = try #require(try r.json() as? [String: Any])
    let parameters = try #require(json["parameters"] as? [String: Any])
    #expect(
      parameters["ope_targets"] as? [String: String]
        == ["random": "exact distribution", "popularity": "one deck"])
    let slateWeights = try #require(parameters["ope_largest_slate_weight"] as? [String: Any])
    #expect(abs((slateWeights["random"] as? Double ?? 0) - 5.0 / 3) < 1e-9)
    let notes = try #require(json["notes"] as? [String])
    #expect(notes.contains { $0.hasPrefix("random evaluated as the distributions it draws") })
    #expect(notes.contains { $0.hasPrefix("slate estimates (iips, rips, sips, cascade_dr)") })
    // Two decks, weights 0.5 and 5/3: (Σc)²/Σc² = (13/6)² / (109/36) = 1.55 effective decks.
    #expect(
      notes.contains {
        $0.hasPrefix("the slate estimates of random rest on an effective sample of 1.6 logged")
      })
  }

  /// A deck-distribution file: "a then c" 0.5, "b then c" 0.25, "c" 0.25. Along u1's a: prefix
  /// 0.5; along u2's b, c: 0.25, 0.25. rips: u1 0.5/0.5 · 1 = 1; u2 1 · 0 + 5 · 1 = 5.
  @Test func aDeckDistributionFileGetsEverySlateEstimate() throws {
    let dir = try Self.setUp()
    try dir.write(
      "decks.jsonl",
      """
      {"deck":["a","c"],"probability":0.5}
      {"deck":["b","c"],"probability":0.25}
      {"deck":["c"],"probability":0.25}

      """)
    let r = CLIRun(
      [
        "compare", "--config", "c.json", "--split", "2026-11-10", "-s", "popularity", "--ope",
        "--policy", "decks=decks.jsonl", "--resamples", "20", "--format", "json", "log.csv",
      ], in: dir.path)
    #expect(r.code == .success, "\(r.stderr)")
    let decks = try Self.estimates(r, arm: 1)
    #expect(decks["rips"] as? Double == 3)
    #expect(decks["sips"] as? Double == 3)
    // iips: π(a, 1) = 0.5 → w 1; π(b, 1) = 0.25 → w 1 (r 0); π(c, 2) = 0.75 → w 3: (1 + 3) / 2.
    #expect(decks["iips"] as? Double == 2)
    // A log without prefix propensities has no slate metrics, and says so.
    try dir.write(
      "plain.csv",
      Self.log.split(separator: "\n").map {
        $0.split(separator: ",").dropLast().joined(separator: ",")
      }
      .joined(separator: "\n") + "\n")
    let plain = CLIRun(
      [
        "compare", "--config", "c.json", "--split", "2026-11-10", "-s", "popularity", "-s",
        "random", "--ope", "--resamples", "20", "--format", "json", "plain.csv",
      ], in: dir.path)
    #expect(plain.code == .success, "\(plain.stderr)")
    let json = try #require(try plain.json() as? [String: Any])
    let metrics = try #require(json["metrics"] as? [[String: Any]]).compactMap {
      $0["name"] as? String
    }
    #expect(!metrics.contains("rips") && metrics.contains("ips"))
    let notes = try #require(json["notes"] as? [String])
    #expect(notes.contains { $0.hasPrefix("no slate estimates (iips, rips, sips, cascade_dr)") })
  }
}
