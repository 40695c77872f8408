import Foundation
import Testing

@testable import MenuDeckCLI

/// What the strategies fitted from the history is in the run headers: `deck`'s `fitted`, and
/// `compare`'s and `simulate`'s per strategy.
@Suite struct CLIFittedPriorTests {
  /// (The bundled config fixes its "popularity" at Beta(1, 1); thompson is as built in.)
  @Test func deckHeadersCarryTheFittedPrior() throws {
    let r = CLIRun(["deck", "--date", "2026-11-30", "--strategy", "thompson", "--format", "json"])
    #expect(r.code == .success, "\(r.stderr)")
    let header = try CLIRunHeaderTests.header(r)
    let options = try #require(header["options"] as? [String: Any])
    #expect(options["prior"] as? String == "fitted")
    let fitted = try #require(header["fitted"] as? [String: Any])
    #expect(Set(fitted.keys) == ["prior_likes", "prior_passes", "prior_fit", "prior_dishes"])
    #expect(fitted["prior_fit"] as? String == "likelihood")
    // The header's values are the prior the decks were ranked with: given as a fixed prior
    // (the shortest text that reads back as the same double), they rank the same decks.
    let likes = try #require(fitted["prior_likes"] as? Double)
    let passes = try #require(fitted["prior_passes"] as? Double)
    #expect(likes > 0 && passes > 0)
    let fixed = CLIRun([
      "deck", "--date", "2026-11-30", "--strategy", "thompson", "--option",
      "prior_likes=\(likes)", "--option", "prior_passes=\(passes)", "--format", "json",
    ])
    #expect(fixed.code == .success, "\(fixed.stderr)")
    let decks = r.stdout.split(separator: "\n").dropFirst(2)
    #expect(fixed.stdout.split(separator: "\n").dropFirst(2) == decks)
    #expect(decks.count > 10)
  }

  @Test func aFixedPriorFitsNothing() throws {
    for option in ["prior=fixed", "prior_likes=2"] {
      let r = CLIRun([
        "deck", "--date", "2026-11-30", "--strategy", "thompson", "--option", option,
        "--format", "json",
      ])
      #expect(r.code == .success, "\(r.stderr)")
      let header = try CLIRunHeaderTests.header(r)
      #expect((header["fitted"] as? [String: Any])?.isEmpty == true, "\(option)")
      #expect((header["options"] as? [String: Any])?["prior"] as? String == "fixed")
    }
    let conflict = CLIRun([
      "deck", "--date", "2026-11-30", "--strategy", "thompson", "--option", "prior=fitted",
      "--option", "prior_passes=3",
    ])
    #expect(conflict.code == .dataError, "\(conflict.stderr)")
    #expect(
      conflict.stderr.contains(
        "strategy 'thompson' option 'prior_passes': '3' is not used with prior=fitted"))
  }

  @Test func compareAndSimulateRecordEachStrategysFit() throws {
    let sim = CLIRun([
      "simulate", "--users", "20", "--days", "2", "-s", "thompson", "-s", "ucb", "-s",
      "plackett-luce", "--format", "json",
    ])
    #expect(sim.code == .success, "\(sim.stderr)")
    let run = try #require((try sim.json() as? [String: Any])?["run"] as? [String: Any])
    let fitted = try #require(run["fitted"] as? [String: [String: Any]])
    #expect(fitted["thompson"]?["prior_fit"] != nil)
    #expect(fitted["ucb"]?.isEmpty == true)
    #expect(fitted["plackett-luce"]?["popularity.prior_likes"] as? Double != nil)

    let logs = CLIRun([
      "compare", "-s", "popularity", "-s", "cautious-popularity", "--split", "2026-11-24",
      "Data/swipes.jsonl", "--resamples", "50", "--permutations", "50", "--format", "json",
    ])
    #expect(logs.code == .success, "\(logs.stderr)")
    let record = try #require((try logs.json() as? [String: Any])?["run"] as? [String: Any])
    let perArm = try #require(record["fitted"] as? [String: [String: Any]])
    // The bundled config's "popularity" fits its prior; "cautious-popularity" fixes Beta(1, 9).
    #expect(perArm["popularity"]?["prior_fit"] != nil)
    #expect(perArm["cautious-popularity"]?.isEmpty == true)
    let fittedRun = CLIRun([
      "compare", "-s", "thompson", "-s", "affinity", "--split", "2026-11-24",
      "Data/swipes.jsonl", "--resamples", "50", "--permutations", "50", "--format", "json",
    ])
    #expect(fittedRun.code == .success, "\(fittedRun.stderr)")
    let fits = try #require(
      ((try fittedRun.json() as? [String: Any])?["run"] as? [String: Any])?["fitted"]
        as? [String: [String: Any]])
    // Both learned the same swipes before the split: the same fit.
    let a = try #require(fits["thompson"]?["prior_likes"] as? Double)
    let b = try #require(fits["affinity"]?["prior_likes"] as? Double)
    #expect(a == b)
  }
}
