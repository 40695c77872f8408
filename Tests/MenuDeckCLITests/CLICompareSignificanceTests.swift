import DeckBase
import DeckCommandLine
import Foundation
import Testing

@testable import MenuDeckCLI

/// Whether a difference of `compare` can be significant, and the bias of the ranking metrics on
/// logs: what every output says (issue 26).
@Suite struct CLICompareSignificanceTests {
  static let onLogs = [
    "compare", "-s", "popularity", "-s", "affinity", "-s", "random", "-s", "itemknn",
    "--baseline", "popularity", "--split", "2026-11-24", "--resamples", "50",
  ]

  /// The issue's case: nine strategies against popularity with --k 1,5,10 (8 arms x 20
  /// metrics). At 1,000 permutations no Holm-adjusted p-value could fall below 0.14 (150 tests x 1 / 1001).
  static let nineStrategies = [
    "compare", "-s", "popularity", "-s", "random", "-s", "affinity", "-s", "thompson", "-s", "ucb",
    "-s", "epsilon-greedy", "-s", "itemknn", "-s", "blend", "-s", "diversify", "--baseline",
    "popularity", "--split", "2026-11-24", "--k", "1,5,10", "--resamples", "20",
    "--permutations", "1000", "Data/swipes.jsonl",
  ]

  private func object(_ run: CLIRun) throws -> [String: Any] {
    try #require(try run.json() as? [String: Any])
  }

  /// With the defaults the permutations are chosen for the family: 3 arms x 10 metrics on the
  /// bundled log take 6,000, and differences the intervals call clear are significant after
  /// Holm's adjustment.
  @Test func theDefaultsLetADifferenceBeSignificant() throws {
    let r = CLIRun(Self.onLogs + ["--format", "json", "Data/swipes.jsonl"])
    #expect(r.code == .success, "\(r.stderr)")
    #expect(!r.stderr.contains("significant"))
    let json = try object(r)
    let significance = try #require(json["significance"] as? [String: Any])
    #expect(significance["source"] as? String == "family")
    #expect(significance["tests"] as? Int == 30 && significance["permutations"] as? Int == 6000)
    #expect(significance["attainable"] as? Bool == true)
    #expect(try #require(significance["min_p_holm"] as? Double) <= 0.005)
    let differences = try #require(json["differences"] as? [[String: Any]])
    let random = try #require(differences.first { $0["arm"] as? String == "random" })
    let estimates = try #require(random["estimates"] as? [String: [String: Any]])
    // random's novelty is higher by about a bit per card: now significant after Holm.
    let novelty = try #require(estimates["novelty"])
    #expect(try #require(novelty["p_holm"] as? Double) < 0.05)
    let table = CLIRun(Self.onLogs + ["Data/swipes.jsonl"])
    #expect(
      table.stdout.contains(
        "\npermutations:      6000 per difference, chosen for 30 tests at alpha 0.05: the"
          + " smallest Holm-adjusted p-value is 0.0050\n"))
    #expect(!table.stdout.contains("no difference can be significant"))
  }

  /// When the permutations cannot bring any Holm-adjusted p-value below 1 - level, standard
  /// error (a coded warning), the table, Markdown, JSON, CSV, JSON Lines and HTML say so.
  @Test func everyOutputSaysWhenNoDifferenceCanBeSignificant() throws {
    let dir = try TempDir("menudeck-significance")
    let report = dir.file("r.html")
    let r = CLIRun(
      Self.nineStrategies + ["--format", "json", "--report", report, "--log-format", "json"])
    #expect(r.code == .success, "\(r.stderr)")
    let lines = try CLIDiagnosticsTests.objects(r.stderr)
    let warning = try #require(
      lines.first { CLIDiagnosticsTests.string($0, "code") == "significance_unattainable" })
    #expect(CLIDiagnosticsTests.string(warning, "level") == "warning")
    let message = try #require(CLIDiagnosticsTests.string(warning, "message"))
    #expect(
      message
        == "no difference can be significant at 0.05: with 1000 permutations the smallest"
        + " p-value is 1 / 1001, so over 150 tests the smallest Holm-adjusted p-value is 0.1499;"
        + " give --permutations 30000 or more (or leave --permutations out: the default chooses"
        + " enough)")
    let json = try object(r)
    let significance = try #require(json["significance"] as? [String: Any])
    #expect(significance["attainable"] as? Bool == false)
    #expect(significance["source"] as? String == "option")
    #expect((json["notes"] as? [String])?.contains(message) == true)
    let html = try String(contentsOfFile: report, encoding: .utf8)
    #expect(html.contains("<p class=\"warning\">No difference can be significant at 0.05"))

    let table = CLIRun(Self.nineStrategies)
    #expect(table.stdout.contains("\n- " + message + "\n"))
    #expect(table.stderr.contains("menudeck: warning: " + message + "\n"))
    let markdown = CLIRun(Self.nineStrategies + ["--format", "markdown"])
    #expect(markdown.stdout.contains("\n- no difference can be significant at 0.05: with 1000"))
    let csv = CLIRun(Self.nineStrategies + ["--format", "csv"])
    let rows = csv.stdout.split(separator: "\n").map { $0.split(separator: ",") }
    #expect(rows[0].suffix(2) == ["min_p_holm", "significance_attainable"])
    let differenceRows = rows.filter { $0.first == "difference" }
    #expect(differenceRows.count == 8 * 20)
    #expect(differenceRows.allSatisfy { $0.last == "false" })
    let jsonl = CLIRun(Self.nineStrategies + ["--format", "jsonl"])
    #expect(jsonl.stdout.contains("\"significance_attainable\":false}"))
  }

  /// The issue's case with the defaults: enough permutations for 150 tests, and significance.
  @Test func theIssuesCaseReachesSignificanceWithTheDefaults() throws {
    let defaults =
      Array(Self.nineStrategies.dropLast(3)) + ["--format", "json", "Data/swipes.jsonl"]
    let r = CLIRun(defaults)
    #expect(r.code == .success, "\(r.stderr)")
    #expect(!r.stderr.contains("significant"))
    let json = try object(r)
    let significance = try #require(json["significance"] as? [String: Any])
    #expect(significance["permutations"] as? Int == 30000)
    #expect(significance["attainable"] as? Bool == true)
    let differences = try #require(json["differences"] as? [[String: Any]])
    let significant = differences.flatMap { d in
      ((d["estimates"] as? [String: [String: Any]]) ?? [:]).values.compactMap {
        ($0["p_holm"] as? Double).flatMap { $0 < 0.05 ? $0 : nil }
      }
    }
    #expect(!significant.isEmpty)
  }

  /// A few diners: every swap is enumerated, and no count of permutations would help.
  @Test func fewDinersAreEnumeratedAndTheWarningAsksForDiners() throws {
    let r = CLIRun([
      "compare", "--users", "6", "--days", "2", "--start", "2026-11-01", "-s", "random", "-s",
      "popularity", "--baseline", "random", "--resamples", "20", "--format", "json",
    ])
    #expect(r.code == .success, "\(r.stderr)")
    let significance = try #require(try object(r)["significance"] as? [String: Any])
    #expect(significance["source"] as? String == "exact")
    #expect(significance["permutations"] as? Int == 64)
    // Over 2 tests or more the smallest Holm-adjusted p-value is at least 2 x 2 / 64.
    #expect(try #require(significance["tests"] as? Int) >= 2)
    #expect(significance["attainable"] as? Bool == false)
    #expect(r.stderr.contains("; more diners are needed\n"))
    #expect(!r.stderr.contains("--permutations"))
  }

  @Test func permutationsOutOfRangeAreUsageErrors() {
    for bad in ["0", "1000001"] {
      let r = CLIRun(Self.onLogs + ["--permutations", bad, "Data/swipes.jsonl"])
      #expect(r.code == .usage)
      #expect(
        r.stderr.contains(
          "'--permutations': '\(bad)' is out of range: give a whole number from 1 to 1000000"))
    }
  }

  /// On a log without propensities the note names the bias and says what to log.
  @Test func aLogWithoutPropensitiesSaysWhatToLog() throws {
    let r = CLIRun(Self.onLogs + ["--format", "json", "--log-format", "json", "Data/swipes.jsonl"])
    #expect(r.code == .success, "\(r.stderr)")
    let note = try #require(
      try CLIDiagnosticsTests.objects(r.stderr).first {
        CLIDiagnosticsTests.string($0, "code") == "logging_bias"
      })
    #expect(CLIDiagnosticsTests.string(note, "level") == "note")
    let message = try #require(CLIDiagnosticsTests.string(note, "message"))
    #expect(message.hasPrefix("the ranking metrics favour the logging strategy"))
    #expect(
      message.hasSuffix(
        "log each card's position and propensity (the logging strategy's"
          + " probability of showing that dish there), then compare with --ope"))
    let json = try object(r)
    let bias = try #require(json["logging_bias"] as? [String: Any])
    #expect(bias["propensities"] as? String == "none")
    #expect(bias["evaluation_events"] as? Int == 1439 && bias["with_propensity"] as? Int == 0)
    #expect(bias["note"] as? String == message)
    #expect((json["notes"] as? [String])?.contains(message) == true)
    // Held out without times: --ope is not possible there, and the note says what it needs.
    let holdout = CLIRun([
      "compare", "-s", "popularity", "-s", "random", "--holdout", "0.2", "--resamples", "20",
      "Data/swipes.jsonl",
    ])
    #expect(holdout.code == .success, "\(holdout.stderr)")
    #expect(holdout.stderr.contains("menudeck: note: the ranking metrics favour the logging"))
    #expect(holdout.stdout.contains("need logs with times (--split DATE)"))
  }

  /// A log with propensities points to --ope; with --ope there is no note.
  @Test func aLogWithPropensitiesPointsToOffPolicyEstimates() throws {
    let dir = try TempDir("menudeck-bias")
    try dir.write(
      "c.json",
      """
      {"catalog": "\(CLITest.repoRoot)/Data/catalog.json", "time_zone": "UTC", "seed": 3,
       "deck": {"size": 4}}
      """)
    let sim = CLIRun(
      [
        "simulate", "--config", "c.json", "--users", "30", "--days", "5", "--start", "2026-11-01",
        "-s", "plackett-luce", "--mode", "all", "--events", "pl.jsonl",
      ], in: dir.path)
    #expect(sim.code == .success, "\(sim.stderr)")
    let compare = [
      "compare", "--config", "c.json", "--split", "2026-11-04", "-s", "popularity", "-s", "random",
      "--baseline", "random", "--resamples", "20", "--permutations", "200", "--format", "json",
      "pl.jsonl",
    ]
    let without = CLIRun(compare, in: dir.path)
    #expect(without.code == .success, "\(without.stderr)")
    #expect(
      without.stderr.contains(
        "the log carries propensities: add --ope for off-policy estimates that correct for what"
          + " was shown\n"))
    let bias = try #require(try object(without)["logging_bias"] as? [String: Any])
    #expect(bias["propensities"] as? String == "all")
    let with = CLIRun(compare + ["--ope"], in: dir.path)
    #expect(with.code == .success, "\(with.stderr)")
    #expect(!with.stderr.contains("favour the logging strategy"))
    #expect(try object(with)["logging_bias"] is NSNull)
  }

  /// A simulation has no logging strategy: no note, and logging_bias is null.
  @Test func aSimulationHasNoLoggingBias() throws {
    let r = CLIRun(CLICompareTests.simulation + ["--format", "json"])
    #expect(r.code == .success, "\(r.stderr)")
    #expect(!r.stderr.contains("favour the logging strategy"))
    #expect(try object(r)["logging_bias"] is NSNull)
  }
}
