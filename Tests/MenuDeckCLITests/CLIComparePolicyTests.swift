import DeckCommandLine
import Foundation
import Testing

@testable import MenuDeckCLI

/// `compare --ope --policy NAME=FILE`: a policy given by its action probabilities, evaluated
/// beside the strategies over the same logged cards.
@Suite struct CLIComparePolicyTests {
  /// Two diners trained before 2026-11-10 and four logged cards from it on.
  static let log = """
    user,item,swipe,at,position,propensity
    u1,oyakodon,right,2026-11-05T12:00:00Z,1,0.5
    u2,gyudon,right,2026-11-05T12:00:00Z,1,0.5
    u1,oyakodon,right,2026-11-10T12:00:00Z,1,0.5
    u1,gyudon,left,2026-11-10T12:00:01Z,2,0.25
    u2,katsudon,left,2026-11-10T12:00:00Z,1,0.5
    u2,gyudon,right,2026-11-10T12:00:01Z,2,0.5

    """
  /// Position 1: oyakodon or katsudon, half each; position 2: gyudon. Weights π/μ of the four
  /// cards: 1, 4, 1, 2; rewards 1, 0, 0, 1.
  static let policy = """
    diner,day,item,position,probability
    ,,oyakodon,1,0.5
    ,,katsudon,1,0.5
    ,,gyudon,2,1

    """

  static func setUp() throws -> TempDir {
    let dir = try TempDir("menudeck-policy")
    try dir.write(
      "c.json",
      """
      {"catalog": "\(CLITest.repoRoot)/Data/catalog.json", "time_zone": "UTC", "seed": 3,
       "deck": {"size": 2}}
      """)
    try dir.write("log.csv", log)
    try dir.write("p.csv", policy)
    return dir
  }

  static func compare(_ dir: TempDir, _ more: [String]) -> CLIRun {
    CLIRun(
      [
        "compare", "--config", "c.json", "--split", "2026-11-10", "-s", "popularity",
        "--resamples", "20",
      ] + more + ["log.csv"], in: dir.path)
  }

  @Test func aPolicyFileIsEstimatedBesideTheStrategies() throws {
    let dir = try Self.setUp()
    let r = Self.compare(
      dir,
      [
        "-s", "random", "--ope", "--policy", "mix=p.csv", "--baseline", "random", "--format",
        "json", "--per-diner", "per-diner.csv",
      ])
    #expect(r.code == .success, "\(r.stderr)")
    let json = try #require(try r.json() as? [String: Any])
    let arms = try #require(json["arms"] as? [[String: Any]])
    #expect(arms.compactMap { $0["arm"] as? String } == ["popularity", "random", "mix"])
    let mix = try #require(arms[2]["estimates"] as? [String: [String: Any]])
    func value(_ name: String) -> Any? { mix[name]?["value"] ?? nil }
    #expect(value("ips") as? Double == 0.75)
    #expect(value("snips") as? Double == 0.375)
    #expect(value("evaluated_cards") as? Double == 4)
    #expect(value("replay") is NSNull)
    // No deck, so no ranking metrics; every strategy is estimated over the same four cards.
    #expect(value("precision_at_2") is NSNull)
    for arm in arms {
      let estimates = try #require(arm["estimates"] as? [String: [String: Any]])
      #expect(estimates["evaluated_cards"]?["value"] as? Double == 4)
    }
    let differences = try #require(json["differences"] as? [[String: Any]])
    #expect(differences.compactMap { $0["arm"] as? String } == ["popularity", "mix"])
    let parameters = try #require(json["parameters"] as? [String: Any])
    #expect((parameters["ope_largest_weight"] as? [String: Any])?["mix"] as? Double == 4.0)
    #expect((parameters["ope_reward_model"] as? String)?.hasPrefix("dm and dr: in-sample") == true)
    // The per-diner file holds the policy's off-policy rows, with their sums: u1 (1 + 0) / 2,
    // u2 (0 + 2) / 2.
    let rows = try dir.read("per-diner.csv").split(separator: "\n")
    #expect(rows.contains("mix,u1,ips,0.5,1,2"))
    #expect(rows.contains("mix,u2,ips,1.0,2,2"))
    #expect(!rows.contains { $0.hasPrefix("mix,u1,precision_at_2") })
    #expect(rows.contains { $0.hasPrefix("popularity,u1,precision_at_2,") })
  }

  /// `--clip` adds clipped IPS and DR and switch-DR, `--cross-fit` DM and DR with the
  /// cross-fitted model, overall and per position, and the report says which model is which.
  @Test func clippedSwitchAndCrossFittedEstimators() throws {
    let dir = try Self.setUp()
    let r = Self.compare(
      dir,
      [
        "--ope", "--policy", "mix=p.csv", "--clip", "3", "--cross-fit", "2", "--format", "json",
      ])
    #expect(r.code == .success, "\(r.stderr)")
    let json = try #require(try r.json() as? [String: Any])
    let metrics = try #require(json["metrics"] as? [[String: Any]]).compactMap {
      $0["name"] as? String
    }
    for name in ["ips_clip", "dr_clip", "switch_dr", "dm_cf", "dr_cf", "ips_clip_p2", "dr_cf_p1"] {
      #expect(metrics.contains(name), "\(name) missing")
    }
    let arms = try #require(json["arms"] as? [[String: Any]])
    let mix = try #require(arms.last?["estimates"] as? [String: [String: Any]])
    // Weights 1, 4, 1, 2 with rewards 1, 0, 0, 1: clipped at 3, the 4 becomes 3 (reward 0).
    #expect(mix["ips_clip"]?["value"] as? Double == 0.75)
    let parameters = try #require(json["parameters"] as? [String: Any])
    #expect(parameters["ope_clip"] as? Double == 3.0)
    #expect(
      (parameters["ope_reward_model"] as? String)?.contains("cross-fitted over 2 folds of diners")
        == true)
  }

  /// `--ope-samples N`: a strategy that randomises is evaluated as the distribution of its N
  /// seeded decks; one that does not stays one deck; the report is the same for any --jobs.
  @Test func sampledStrategiesAreStochasticTargets() throws {
    let dir = try Self.setUp()
    func run(_ jobs: String) -> CLIRun {
      Self.compare(
        dir, ["-s", "random", "--ope", "--ope-samples", "300", "--jobs", jobs, "--format", "json"])
    }
    let r = run("1")
    #expect(r.code == .success, "\(r.stderr)")
    #expect(CLITest.withoutArguments(run("2").stdout) == CLITest.withoutArguments(r.stdout))
    let json = try #require(try r.json() as? [String: Any])
    let arms = try #require(json["arms"] as? [[String: Any]])
    func estimates(_ a: Int) throws -> [String: [String: Any]] {
      try #require(arms[a]["estimates"] as? [String: [String: Any]])
    }
    // random: stochastic, so no replay; its expected matches are fractional.
    #expect(try estimates(1)["replay_matches"]?["value"] as? Double != nil)
    #expect(try estimates(1)["replay"]?["value"] is NSNull)
    let notes = try #require(json["notes"] as? [String])
    #expect(notes.contains { $0.hasPrefix("--ope-samples 300: random evaluated as stochastic") })
    #expect((json["parameters"] as? [String: Any])?["ope_samples"] as? Int == 300)
    // popularity does not randomise: the same estimates as without sampling.
    let plain = Self.compare(dir, ["-s", "random", "--ope", "--format", "json"])
    let plainArms = try #require((try plain.json() as? [String: Any])?["arms"] as? [[String: Any]])
    let plainPopularity = try #require(plainArms[0]["estimates"] as? [String: [String: Any]])
    for name in ["replay", "ips", "snips", "dm", "dr"] {
      #expect(
        "\(try estimates(0)[name]?["value"] ?? "-")" == "\(plainPopularity[name]?["value"] ?? "-")",
        "\(name)")
    }
    let bad = Self.compare(dir, ["-s", "random", "--ope", "--ope-samples", "0"])
    #expect(bad.code == .usage)
    #expect(
      bad.stderr.contains(
        "'--ope-samples': '0' is out of range: give a whole number from 1 to 10000 (decks per session)"
      ))
  }

  /// The off-policy estimates cover every diner with a logged card, the ranking metrics only
  /// those with a right swipe: each diner's rows come from the tables that hold it.
  @Test func perDinerRowsOfADinerWithoutARightSwipe() throws {
    let dir = try Self.setUp()
    try dir.write("log.csv", Self.log + "u3,oyakodon,left,2026-11-10T12:00:00Z,1,0.5\n")
    let r = Self.compare(
      dir, ["-s", "random", "--ope", "--policy", "mix=p.csv", "--per-diner", "per-diner.csv"])
    #expect(r.code == .success, "\(r.stderr)")
    let rows = try dir.read("per-diner.csv").split(separator: "\n")
    // u3: weight 0.5/0.5 = 1, reward 0 (a count's denominator is empty).
    #expect(rows.contains("mix,u3,ips,0.0,0,1"))
    #expect(rows.contains("mix,u3,evaluated_cards,1,1,"))
    #expect(rows.contains("popularity,u3,evaluated_cards,1,1,"))
    #expect(!rows.contains { $0.hasPrefix("popularity,u3,precision_at_2") })
    #expect(rows.contains("mix,u1,ips,0.5,1,2"))
  }

  @Test func mistakesAreUsageOrDataErrors() throws {
    let dir = try Self.setUp()
    let noOPE = Self.compare(dir, ["--policy", "mix=p.csv"])
    #expect(noOPE.code == .usage)
    #expect(noOPE.stderr.contains("'--policy' is for off-policy estimates: add --ope"))
    let clipNoOPE = Self.compare(dir, ["--clip", "10", "-s", "random"])
    #expect(clipNoOPE.code == .usage)
    #expect(clipNoOPE.stderr.contains("'--clip' is for off-policy estimates: add --ope"))
    let zeroClip = Self.compare(dir, ["--ope", "--clip", "0", "-s", "random"])
    #expect(zeroClip.code == .usage)
    #expect(zeroClip.stderr.contains("'--clip': '0' is out of range: give a weight above 0"))
    let oneFold = Self.compare(dir, ["--ope", "--cross-fit", "1", "-s", "random"])
    #expect(oneFold.code == .usage)
    #expect(
      oneFold.stderr.contains(
        "'--cross-fit': '1' is out of range: give a whole number from 2 to 20 (folds)"))
    let badValue = Self.compare(dir, ["--ope", "--policy", "p.csv"])
    #expect(badValue.code == .usage)
    #expect(badValue.stderr.contains("'--policy' takes NAME=FILE"))
    let taken = Self.compare(dir, ["--ope", "--policy", "popularity=p.csv"])
    #expect(taken.code == .usage)
    #expect(taken.stderr.contains("the name 'popularity' of '--policy popularity=p.csv' is taken"))
    let baseline = Self.compare(dir, ["--ope", "--policy", "mix=p.csv", "--baseline", "mix"])
    #expect(baseline.code == .usage)
    #expect(baseline.stderr.contains("a --policy cannot be the baseline"))
    let missing = Self.compare(dir, ["--ope", "--policy", "mix=nowhere.csv"])
    #expect(missing.code == .noInput)
    #expect(missing.stderr.contains("nowhere.csv: no such file (the policy file)"))
    try dir.write("u1.csv", "diner,item,position,probability\nu1,oyakodon,1,1\n")
    let uncovered = Self.compare(dir, ["--ope", "--policy", "mix=u1.csv"])
    #expect(uncovered.code == .dataError)
    #expect(uncovered.stderr.contains("u1.csv: no probabilities for diner u2 on 2026-11-10"))
    try dir.write("bad.csv", "item,position,probability\noyakodon,1,0.75\ngyudon,1,0.5\n")
    let over = Self.compare(dir, ["--ope", "--policy", "mix=bad.csv"])
    #expect(over.code == .dataError)
    #expect(over.stderr.contains("bad.csv:3:10: probability: the probabilities at position 1"))
  }

  /// A policy that puts its weight on dishes the log never showed at that position is warned
  /// about on stderr and in the notes.
  @Test func unsupportedProbabilityIsWarned() throws {
    let dir = try Self.setUp()
    try dir.write("far.csv", "item,position,probability\ntendon,1,0.9\noyakodon,1,0.1\n")
    let r = Self.compare(dir, ["--ope", "--policy", "far=far.csv", "--format", "json"])
    #expect(r.code == .success, "\(r.stderr)")
    #expect(r.stderr.contains("warning: far puts 45.0% of its probability on dishes at positions"))
    let json = try #require(try r.json() as? [String: Any])
    let notes = try #require(json["notes"] as? [String])
    #expect(notes.contains { $0.hasPrefix("far puts 45.0% of its probability") })
  }
}
