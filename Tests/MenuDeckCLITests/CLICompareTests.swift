import DeckCommandLine
import DeckEvaluation
import Foundation
import Testing

@testable import MenuDeckCLI

/// `menudeck compare` end to end, in process.
@Suite struct CLICompareTests {
  static let simulation = [
    "compare", "--users", "40", "--days", "3", "--start", "2026-11-01", "--seed", "5",
    "--resamples", "60", "-s", "random", "-s", "popularity", "--baseline", "random",
  ]

  private func object(_ run: CLIRun) throws -> [String: Any] {
    try #require(try run.json() as? [String: Any])
  }

  @Test func simulationComparesEveryStatsMetricWithIntervalsAndPairedDifferences() throws {
    let r = CLIRun(Self.simulation + ["--format", "json"])
    #expect(r.code == .success, "\(r.stderr)")
    let json = try object(r)
    let metrics = try #require(json["metrics"] as? [[String: Any]]).compactMap {
      $0["name"] as? String
    }
    for name in ["decks", "like_rate", "pick_rate", "catalog_coverage", "ndcg_at_k", "mean_regret"]
    {
      #expect(metrics.contains(name), "\(name) missing from \(metrics)")
    }
    #expect(r.stderr.contains("40 diners x 3 days"))
  }

  /// Every difference carries the randomization p-value, its Holm and Benjamini-Hochberg
  /// adjustments over the report's family (stated in `p_adjust_family`) and the paired t-test's
  /// and Wilcoxon's p-values; coverage has no per-diner paired value. Scripts/check-stats.py
  /// checks the numbers against scipy and statsmodels.
  @Test func differencesCarryAdjustedAndClassicalPValues() throws {
    let r = CLIRun(Self.simulation + ["-s", "affinity", "--format", "json"])
    #expect(r.code == .success, "\(r.stderr)")
    let json = try object(r)
    let metrics = try #require(json["metrics"] as? [[String: Any]]).compactMap {
      $0["name"] as? String
    }
    let differences = try #require(json["differences"] as? [[String: Any]])
    #expect(differences.count == 2)
    let parameters = try #require(json["parameters"] as? [String: Any])
    let adjusted = try #require(parameters["p_adjust_family"] as? [String: Any])
    // The tests whose two arms are identical for every diner are out of the family: here
    // decks (common random numbers give both strategies the same sessions).
    let identical = try #require(adjusted["identical"] as? [[String: String]]).map {
      ($0["arm"] ?? "") + " " + ($0["metric"] ?? "")
    }
    #expect(identical.contains("popularity decks") && identical.contains("affinity decks"))
    var family: [Double] = []
    var holm: [Double] = []
    var bh: [Double] = []
    for d in differences {
      let estimates = try #require(d["estimates"] as? [String: [String: Any]])
      let arm = try #require(d["arm"] as? String)
      for name in metrics {
        let e = try #require(estimates[name])
        for key in ["p_value", "p_holm", "p_bh", "p_t", "p_wilcoxon"] {
          #expect(e.keys.contains(key), "\(name) has no \(key)")
        }
        if identical.contains(arm + " " + name) {
          #expect(e["p_value"] as? Double == 1 && e["p_holm"] as? Double == 1)
          #expect(e["p_bh"] as? Double == 1)
        } else if let p = e["p_value"] as? Double {
          family.append(p)
          holm.append(try #require(e["p_holm"] as? Double))
          bh.append(try #require(e["p_bh"] as? Double))
        } else {
          #expect(e["p_holm"] is NSNull && e["p_bh"] is NSNull, "\(name)")
        }
        if name == "catalog_coverage" {
          #expect(e["p_t"] is NSNull && e["p_wilcoxon"] is NSNull)
        } else if name == "like_rate" {
          let t = try #require(e["p_t"] as? Double)
          let w = try #require(e["p_wilcoxon"] as? Double)
          #expect(t >= 0 && t <= 1 && w >= 0 && w <= 1)
        }
      }
    }
    // Foundation's JSONSerialization may read the last digit of a double differently.
    let expectedHolm = MultipleComparisons.holm(family)
    let expectedBH = MultipleComparisons.benjaminiHochberg(family)
    #expect(holm.count == family.count && bh.count == family.count)
    for i in family.indices {
      #expect(abs(holm[i] - expectedHolm[i]) < 1e-12 && abs(bh[i] - expectedBH[i]) < 1e-12)
    }
    let left = 2 * metrics.count - family.count - identical.count
    #expect(
      adjusted["description"] as? String
        == "arm x metric: \(family.count) tests (2 arms x \(metrics.count) metrics, "
        + (left > 0 ? "\(left) undefined and " : "")
        + "\(identical.count) identical for every diner left out)")
    #expect(adjusted["tests"] as? Int == family.count && adjusted["arms"] as? Int == 2)
    #expect(adjusted["metrics"] as? Int == metrics.count)
    #expect((parameters["p_adjust"] as? String)?.contains("Holm") == true)
  }

  @Test func sameSeedGivesByteIdenticalOutputInEveryFormat() {
    for format in ["table", "markdown", "json", "csv"] {
      let one = CLIRun(Self.simulation + ["--format", format])
      let two = CLIRun(Self.simulation + ["--format", format])
      #expect(one.code == .success, "\(one.stderr)")
      #expect(one.stdoutBytes == two.stdoutBytes, "\(format) differs between runs")
      #expect(!one.stdoutBytes.isEmpty)
    }
  }

  @Test func needsTwoStrategies() {
    let r = CLIRun(["compare", "--users", "5", "--days", "1", "-s", "random"])
    #expect(r.code == .usage)
    #expect(r.stderr.contains("two or more"))
  }

  @Test func unknownBaselineSaysDidYouMean() {
    let r = CLIRun([
      "compare", "--users", "5", "--days", "1", "-s", "random", "-s", "popularity", "--baseline",
      "popularty",
    ])
    #expect(r.code == .usage)
    #expect(r.stderr.contains("did you mean 'popularity'"), "\(r.stderr)")
  }

  @Test func logOptionsWithoutLogsAndSimulationOptionsWithLogsAreUsageErrors() {
    let a = CLIRun(["compare", "-s", "random", "-s", "popularity", "--split", "2026-11-20"])
    #expect(a.code == .usage)
    #expect(a.stderr.contains("'--split' applies to logs"))
    let b = CLIRun([
      "compare", "-s", "random", "-s", "popularity", "--days", "3", "--split", "2026-11-20",
      "Data/swipes.jsonl",
    ])
    #expect(b.code == .usage)
    #expect(b.stderr.contains("'--days' applies to simulations"))
  }

  /// A missing directory of `--out`, `--report` or `--per-diner` is refused as for every other
  /// command's outputs (exit 74, nothing created); only `--trec DIR`, a directory of its own, is
  /// created.
  @Test func aMissingOutputDirectoryIsRefused() throws {
    let dir = try TempDir()
    for option in ["--out", "--report", "--per-diner"] {
      let r = CLIRun(Self.simulation + [option, dir.file("missing/out.csv")])
      #expect(r.code == .ioError, "\(option): \(r.stderr)")
      #expect(r.stderr.contains("no directory"), "\(option): \(r.stderr)")
      #expect(!dir.exists("missing"), "\(option) created the directory")
    }
  }

  /// `--per-diner` writes CSV: another name is refused before anything runs, and
  /// `simulate --events` takes only the names whose format the readers know.
  @Test func outputNamesSayTheirFormat() throws {
    let dir = try TempDir()
    let perDiner = CLIRun(Self.simulation + ["--per-diner", dir.file("pd.jsonl")])
    #expect(perDiner.code == .usage)
    #expect(perDiner.stderr.contains("the per-diner values are CSV; give a .csv name"))
    let events = CLIRun([
      "simulate", "--users", "3", "--days", "1", "--events", dir.file("events.txt"),
    ])
    #expect(events.code == .usage)
    #expect(events.stderr.contains("give the log a .jsonl or .ndjson (JSON Lines) or .csv name"))
    #expect(try dir.names().isEmpty)
  }

  /// The per-day curves carry their intervals, the same for any number of threads.
  @Test func dailyIntervalsAreWrittenAndIndependentOfTheThreads() throws {
    let runs = ["1", "3"].map { jobs in
      CLIRun(Self.simulation + ["--format", "json", "--jobs", jobs])
    }
    for r in runs { #expect(r.code == .success, "\(r.stderr)") }
    #expect(CLITest.withoutArguments(runs[0].stdout) == CLITest.withoutArguments(runs[1].stdout))
    let daily = try #require(try object(runs[0])["daily"] as? [[String: Any]])
    #expect(daily.count == 6)
    var bounded = 0
    for series in daily {
      for point in try #require(series["points"] as? [[String: Any]]) {
        #expect(point.keys.contains("lower") && point.keys.contains("upper"))
        if let lower = point["lower"] as? Double, let upper = point["upper"] as? Double {
          #expect(lower <= upper)
          bounded += 1
        }
      }
    }
    #expect(bounded > 0)
  }

  @Test func badResamplesAndLevelAreUsageErrors() {
    // (The shared arguments give --resamples already: this run gives it once, out of range.)
    let a = CLIRun(
      Self.simulation.filter { $0 != "60" && $0 != "--resamples" } + ["--resamples", "0"])
    #expect(a.code == .usage)
    #expect(
      a.stderr.hasPrefix(
        "menudeck: error: '--resamples': '0' is out of range: give a whole number from 1 to "
          + "1000000\n"))
    let b = CLIRun(Self.simulation + ["--level", "95"])
    #expect(b.code == .usage)
    #expect(
      b.stderr.hasPrefix(
        "menudeck: error: '--level': '95' is out of range: give a level above 0 and below 1 "
          + "(e.g. 0.95)\n"))
  }

  @Test func reportIsWrittenAtomicallyAndSelfContained() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "menudeck-compare-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("r.html").path
    let r = CLIRun(
      Self.simulation + ["--report", path, "--out", dir.appendingPathComponent("c.csv").path])
    #expect(r.code == .success, "\(r.stderr)")
    let html = try String(contentsOfFile: path, encoding: .utf8)
    #expect(html.contains("<svg"))
    #expect(!html.contains("http://") && !html.contains("https://"))
    let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    #expect(left == ["c.csv", "r.html"], "no temporary files left: \(left)")
  }

  @Test func logsAreSplitByDateAndScoredWithRankingMetrics() throws {
    let r = CLIRun([
      "compare", "-s", "popularity", "-s", "affinity", "--baseline", "popularity", "--split",
      "2026-11-24", "--resamples", "50", "--format", "json", "Data/swipes.jsonl",
    ])
    #expect(r.code == .success, "\(r.stderr)")
    let json = try object(r)
    let metrics = try #require(json["metrics"] as? [[String: Any]]).compactMap {
      $0["name"] as? String
    }
    // One cut-off, the deck size (10 in the config): the names carry it.
    for name in [
      "precision_at_10", "recall_at_10", "ndcg_at_10", "map_at_10", "mrr", "hit_rate_at_10",
    ] {
      #expect(metrics.contains(name), "\(name) missing from \(metrics)")
    }
  }

  @Test func splitAfterEveryEventHasNothingToEvaluate() {
    let r = CLIRun([
      "compare", "-s", "popularity", "-s", "affinity", "--split", "2030-01-01", "--resamples", "10",
      "Data/swipes.jsonl",
    ])
    #expect(r.code == .dataError)
    #expect(r.stderr.contains("nothing to evaluate"))
  }
  /// `--per-diner`: every metric per strategy and diner; a metric that is a mean over diners
  /// (a ratio with one unit of weight per diner) is the mean of its per-diner values.
  @Test func perDinerRowsAreTheEstimatesBeforePooling() throws {
    let dir = try TempDir()
    let r = dir.run([
      "compare", "--config", CLITest.repoRoot + "/Config/menudeck.json", "-s", "random", "-s",
      "popularity", "--split", "2026-11-20", "--resamples", "20", "--format", "json",
      "--per-diner", dir.file("pd.csv"), CLITest.repoRoot + "/Data/swipes.jsonl",
    ])
    #expect(r.code == .success, "\(r.stderr)")
    let lines = try dir.read("pd.csv").split(separator: "\n").map(String.init)
    #expect(lines.first == "strategy,diner,metric,value,numerator,denominator")
    var values: [String: [String: [Double]]] = [:]
    var diners = Set<String>()
    for line in lines.dropFirst() {
      let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      #expect(f.count == 6, "\(line)")
      diners.insert(f[1])
      if let v = Double(f[3]) { values[f[0], default: [:]][f[2], default: []].append(v) }
    }
    let json = try #require(try r.json() as? [String: Any])
    let metrics = try #require(json["metrics"] as? [[String: Any]]).compactMap {
      $0["name"] as? String
    }
    #expect(lines.count == 1 + 2 * diners.count * metrics.count)
    let arms = try #require(json["arms"] as? [[String: Any]])
    for arm in arms {
      let name = try #require(arm["arm"] as? String)
      let estimates = try #require(arm["estimates"] as? [String: Any])
      for metric in ["precision_at_10", "ndcg_at_10", "map_at_10"] {
        let pooled = try #require((estimates[metric] as? [String: Any])?["value"] as? Double)
        let perDiner = try #require(values[name]?[metric])
        #expect(perDiner.count == diners.count)
        let mean = perDiner.reduce(0, +) / Double(perDiner.count)
        // The JSON report prints 6 decimals; the per-diner file full precision.
        #expect(abs(mean - pooled) <= 5e-7 + 1e-12, "\(name) \(metric): \(mean) vs \(pooled)")
      }
    }
  }
}

@Suite struct CLICompareReportEscapingTests {
  @Test func aDishNamedLikeAScriptIsEscapedInTheHTMLReport() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "menudeck-escape-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let catalog = """
      [{"id": "x1", "name": "<script>alert(1)</script>", "category": "<b>mains</b>"},
       {"id": "x2", "name": "Tom & \\"Jerry's\\" stew", "category": "stews"},
       {"id": "x3", "name": "Plain rice", "category": "sides"}]
      """
    try catalog.write(
      to: dir.appendingPathComponent("catalog.json"), atomically: true, encoding: .utf8)
    let report = dir.appendingPathComponent("r.html").path
    let r = CLIRun(
      [
        "compare", "--catalog", "catalog.json", "--users", "30", "--days", "2", "--start",
        "2026-11-01", "--size", "3", "--resamples", "20", "-s", "random", "-s", "popularity",
        "--report", report, "--format", "markdown",
      ], in: dir.path)
    #expect(r.code == .success, "\(r.stderr)")
    let html = try String(contentsOfFile: report, encoding: .utf8)
    #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "the dish is listed, escaped")
    #expect(html.contains("&lt;b&gt;mains&lt;/b&gt;"))
    #expect(
      html.contains("Tom &amp; &quot;Jerry&#39;s&quot; stew")
        || html.contains("Tom &amp; &quot;Jerry&#x27;s&quot; stew"))
    #expect(!html.lowercased().contains("<script"))
    #expect(!html.contains("<b>mains"))
    #expect(!r.stdout.contains("<script>"), "Markdown escapes it too")
  }
}

@Suite struct CLICompareOffPolicyTests {
  @Test func offPolicyEstimatesFromASimulatedPlackettLuceLog() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "menudeck-ope-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    // The default deck rules, which move cards (the logged propensities are of the deck's slots).
    let config = """
      {"catalog": "\(CLITest.repoRoot)/Data/catalog.json", "time_zone": "UTC", "seed": 3,
       "deck": {"size": 4}}
      """
    try config.write(to: dir.appendingPathComponent("c.json"), atomically: true, encoding: .utf8)
    let sim = CLIRun(
      [
        "simulate", "--config", "c.json", "--users", "60", "--days", "6", "--start", "2026-11-01",
        "-s", "plackett-luce", "--mode", "all", "--events", "pl.jsonl",
      ], in: dir.path)
    #expect(sim.code == .success, "\(sim.stderr)")
    let r = CLIRun(
      [
        "compare", "--config", "c.json", "--ope", "--split", "2026-11-04", "-s", "popularity", "-s",
        "random", "--baseline", "random", "--resamples", "40", "--format", "json", "pl.jsonl",
      ], in: dir.path)
    #expect(r.code == .success, "\(r.stderr)")
    let json = try #require(try r.json() as? [String: Any])
    let metrics = try #require(json["metrics"] as? [[String: Any]]).compactMap {
      $0["name"] as? String
    }
    for name in ["ndcg_at_4", "replay", "ips", "snips", "dr", "replay_matches", "ips_p1", "dr_p4"] {
      #expect(metrics.contains(name), "\(name) missing")
    }
    #expect(!metrics.contains("ips_p5"), "positions stop at the largest logged one")
    let arms = try #require(json["arms"] as? [[String: Any]])
    let estimates = try #require(arms.first?["estimates"] as? [String: Any])
    let cards = try #require(estimates["evaluated_cards"] as? [String: Any])
    #expect((cards["value"] as? Double ?? 0) > 0)
  }

  /// More diners than a batch of decks: the strategies' decks built on several threads give the
  /// same report, ranking metrics and off-policy estimates alike.
  @Test func compareOnLogsIsTheSameForEveryNumberOfThreads() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "menudeck-ope-jobs-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let config = """
      {"catalog": "\(CLITest.repoRoot)/Data/catalog.json", "time_zone": "UTC", "seed": 3,
       "deck": {"size": 4}}
      """
    try config.write(to: dir.appendingPathComponent("c.json"), atomically: true, encoding: .utf8)
    let sim = CLIRun(
      [
        "simulate", "--config", "c.json", "--users", "700", "--days", "4", "--start",
        "2026-11-01", "-s", "plackett-luce", "--mode", "all", "--events", "pl.jsonl",
      ], in: dir.path)
    #expect(sim.code == .success, "\(sim.stderr)")
    let runs = ["1", "3"].map { jobs in
      CLIRun(
        [
          "compare", "--config", "c.json", "--ope", "--split", "2026-11-03", "-s", "popularity",
          "-s", "thompson", "--baseline", "popularity", "--resamples", "20", "--format", "json",
          "--jobs", jobs, "pl.jsonl",
        ], in: dir.path)
    }
    #expect(runs[0].code == .success, "\(runs[0].stderr)")
    #expect(runs[0].stdout.contains("\"ips\""))
    for run in runs.dropFirst() {
      #expect(run.code == .success)
      #expect(CLITest.withoutArguments(run.stdout) == CLITest.withoutArguments(runs[0].stdout))
    }
  }

  @Test func aLogWithoutPropensitiesNamesTheLines() {
    let r = CLIRun([
      "compare", "--ope", "--split", "2026-11-24", "-s", "popularity", "-s", "affinity",
      "--resamples", "10", "Data/swipes.jsonl",
    ])
    #expect(r.code == .dataError)
    #expect(r.stderr.contains("Data/swipes.jsonl:"), "\(r.stderr)")
    #expect(r.stderr.contains("propensity: missing on"))
  }

  /// A log whose prefix propensities cannot be probabilities of prefixes stops `--ope` with a
  /// data error (65) that names the first such event; the same log without them is evaluated.
  @Test func prefixPropensitiesAboveTheirPropensitiesNameTheLine() throws {
    let dir = try TempDir("menudeck-ope-prefix")
    try dir.write(
      "c.json", #"{"catalog": "\#(CLITest.repoRoot)/Data/catalog.json", "time_zone": "UTC"}"#)
    func line(
      _ user: String, _ item: String, _ swipe: String, _ day: Int, _ position: Int,
      _ propensity: String, _ prefix: String?
    ) -> String {
      let extra = prefix.map { ",\"prefix_propensity\":\($0)" } ?? ""
      return
        #"{"user":"\#(user)","item":"\#(item)","swipe":"\#(swipe)","at":"2026-11-0\#(day)T12:00:0\#(position)","position":\#(position),"propensity":\#(propensity)"#
        + extra + "}\n"
    }
    let training =
      line("u1", "oyakodon", "right", 1, 1, "0.5", nil)
      + line("u2", "gyudon", "right", 1, 1, "0.5", nil)
    let evaluation = [
      ("u1", "gyudon", "right", "0.5", "0.5"), ("u1", "katsudon", "left", "0.25", "0.375"),
      ("u2", "oyakodon", "right", "0.5", "0.5"), ("u2", "tendon", "left", "0.25", "0.125"),
    ]
    var log = training
    var plain = training
    for (k, e) in evaluation.enumerated() {
      log += line(e.0, e.1, e.2, 3, k % 2 + 1, e.3, e.4)
      plain += line(e.0, e.1, e.2, 3, k % 2 + 1, e.3, nil)
    }
    try dir.write("log.jsonl", log)
    try dir.write("plain.jsonl", plain)
    let arguments = [
      "compare", "--config", "c.json", "--ope", "--split", "2026-11-03", "-s", "popularity", "-s",
      "random", "--resamples", "10",
    ]
    let r = dir.run(arguments + ["log.jsonl"])
    #expect(r.code == .dataError, "\(r.stderr)")
    #expect(
      r.stderr.contains(
        "log.jsonl:4: prefix_propensity: '0.375' is above the card's propensity '0.25'; a prefix "
          + "propensity is the logging policy's probability of the session's cards from position "
          + "1 to this one, in their order, which cannot exceed"), "\(r.stderr)")
    let ok = dir.run(arguments + ["plain.jsonl"])
    #expect(ok.code == .success, "\(ok.stderr)")
  }

  @Test func offPolicyNeedsADateSplit() {
    let r = CLIRun([
      "compare", "--ope", "--holdout", "0.2", "-s", "popularity", "-s", "affinity",
      "Data/swipes.jsonl",
    ])
    #expect(r.code == .usage)
    #expect(r.stderr.contains("'--ope' needs --split DATE"))
  }
}

@Suite struct CLICompareInputRulesTests {
  private func tempDir() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "menudeck-cmp-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }

  @Test func theSplitDecidesByDeckDateOnBothSides() throws {
    let dir = try tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    // The second swipe was made late on the 23rd for the deck of the 24th: it is evaluated,
    // never learned from.
    let log = """
      {"user":"u1","item":"oyakodon","swipe":"right","at":"2026-11-20T12:00:00","deck":"2026-11-20"}
      {"user":"u1","item":"gyudon","swipe":"right","at":"2026-11-23T23:00:00","deck":"2026-11-24"}
      {"user":"u2","item":"katsudon","swipe":"right","at":"2026-11-25T12:00:00"}
      {"user":"u3","item":"tendon","swipe":"left","at":"2026-11-24T12:00:00","deck":"2026-11-23"}

      """
    try log.write(to: dir.appendingPathComponent("l.jsonl"), atomically: true, encoding: .utf8)
    let r = CLIRun(
      [
        "compare", "--config", CLITest.repoRoot + "/Config/menudeck.json", "-s", "popularity",
        "-s", "random", "--split", "2026-11-24", "--resamples", "20", "--format", "json",
        "l.jsonl",
      ], in: dir.path)
    #expect(r.code == .success, "\(r.stderr)")
    let json = try #require(try r.json() as? [String: Any])
    let parameters = try #require(json["parameters"] as? [String: Any])
    #expect(
      parameters["training_events"] as? Int == 2, "the 20th, and the 24th's swipe for the 23rd")
    #expect(parameters["evaluation_events"] as? Int == 2)
    #expect(parameters["evaluated_diners"] as? Int == 2)
  }

  @Test func aLogGivenTwiceIsRefused() {
    let r = CLIRun([
      "compare", "-s", "popularity", "-s", "random", "--split", "2026-11-24", "Data/swipes.jsonl",
      "./Data/swipes.jsonl",
    ])
    #expect(r.code == .usage)
    #expect(r.stderr.contains("is given twice"), "\(r.stderr)")
  }

  @Test func aStrategyGivenTwiceIsRefused() {
    let r = CLIRun(["compare", "-s", "popularity", "-s", "random", "-s", "popularity"])
    #expect(r.code == .usage)
    #expect(r.stderr.contains("the strategy 'popularity' is given twice"), "\(r.stderr)")
  }

  @Test func outAndReportMustDiffer() {
    let r = CLIRun(
      CLICompareTests.simulation + ["--out", "/tmp/x.html", "--report", "/tmp/x.html"])
    #expect(r.code == .usage)
    #expect(r.stderr.contains("name the same file"))
  }

  @Test func noTrainingEventsIsSaid() throws {
    let r = CLIRun([
      "compare", "-s", "popularity", "-s", "random", "--split", "2020-01-01", "--resamples", "10",
      "Data/swipes.jsonl",
    ])
    #expect(r.code == .success, "\(r.stderr)")
    // The whole line: a doubled prefix ("warning: warning: ...") once slipped past a substring.
    #expect(
      r.stderr.split(separator: "\n").contains(
        "menudeck: warning: no event before the split: the strategies learned nothing and rank "
          + "as for first visits"),
      "\(r.stderr)")
    let late = CLIRun([
      "compare", "-s", "popularity", "-s", "random", "--split", "2030-01-01", "--resamples", "10",
      "Data/swipes.jsonl",
    ])
    #expect(late.code == .dataError)
    #expect(
      late.stderr.contains("choose an earlier --split (the last event is dated 2026-11-29)"),
      "\(late.stderr)")
  }
}

@Suite struct CLICompareTrecTests {
  @Test func trecFilesHoldTheJudgementsAndEachStrategysDecks() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "menudeck-trec-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dir) }
    let r = CLIRun([
      "compare", "-s", "popularity", "-s", "affinity", "--split", "2026-11-24", "--k", "5",
      "--resamples", "10", "--format", "json", "--trec", dir.path, "Data/swipes.jsonl",
    ])
    #expect(r.code == .success, "\(r.stderr)")
    let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    #expect(files == ["affinity.run", "popularity.run", "qrels.txt", "train.csv"])
    let json = try #require(try r.json() as? [String: Any])
    let diners = (json["parameters"] as? [String: Any])?["evaluated_diners"] as? Int ?? 0
    let run = try String(contentsOf: dir.appendingPathComponent("popularity.run"), encoding: .utf8)
    let lines = run.split(separator: "\n")
    #expect(lines.count == diners * 5, "five cards for each evaluated diner")
    for line in lines {
      let fields = line.split(separator: " ")
      #expect(fields.count == 6 && fields[1] == "Q0" && fields[5] == "popularity")
      #expect(Int(fields[4]) == 6 - Int(fields[3])!, "scores fall strictly with rank")
    }
    let qrels = try String(contentsOf: dir.appendingPathComponent("qrels.txt"), encoding: .utf8)
    let judged = Set(qrels.split(separator: "\n").map { $0.split(separator: " ")[0] })
    #expect(judged.count == diners)
    // Left swipes of the evaluation period are 0-judgements, never for a dish also swiped right.
    var levels: [String: Set<Substring>] = [:]
    for line in qrels.split(separator: "\n") {
      let f = line.split(separator: " ")
      #expect(f.count == 4 && f[1] == "0" && (f[3] == "0" || f[3] == "1"), "\(line)")
      levels["\(f[0]) \(f[2])", default: []].insert(f[3])
    }
    #expect(levels.values.contains(["0"]))
    #expect(levels.values.allSatisfy { $0.count == 1 }, "one judgement per diner and dish")
    let log = try String(contentsOfFile: CLITest.repoRoot + "/Data/swipes.jsonl", encoding: .utf8)
    var lefts = 0
    for line in log.split(separator: "\n") {
      let e = try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      guard let deck = e["deck"] as? String, deck >= "2026-11-24", e["swipe"] as? String == "left",
        let user = e["user"] as? String, judged.contains(Substring(user))
      else { continue }
      lefts += 1
      #expect(levels["\(user) \(e["item"] as! String)"] != nil, "a left swipe has a judgement")
    }
    #expect(lefts > 0)
  }
}
