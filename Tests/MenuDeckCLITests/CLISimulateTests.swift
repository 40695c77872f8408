import DeckCommandLine
import DeckJobs
import Foundation
import Testing

@testable import MenuDeckCLI

/// `menudeck simulate` and `menudeck stats` end to end.
@Suite struct CLISimulateTests {
  /// The overall row's `key` of a `stats` or `simulate` JSON document (of its one strategy).
  static func total(_ run: CLIRun, _ key: String) throws -> Double {
    let object = try #require(try run.json() as? [String: Any])
    let rows = try #require(object["rows"] as? [[String: Any]])
    let overall = try #require(rows.last(where: { ($0["overall"] as? Bool) == true }))
    return try #require(overall[key] as? Double, "\(key) in \(overall)")
  }

  static let config = CLITest.repoRoot + "/Config/menudeck.json"

  func simulate(_ extra: [String], in dir: TempDir) -> CLIRun {
    dir.run(
      [
        "simulate", "--config", Self.config, "--users", "60", "--days", "4", "--start",
        "2026-12-01",
      ]
        + extra)
  }

  @Test func aFixedSeedGivesIdenticalEventsAndStats() throws {
    let dir = try TempDir()
    let a = simulate(["--seed", "7", "--events", dir.file("a.jsonl"), "--format", "csv"], in: dir)
    let b = simulate(["--seed", "7", "--events", dir.file("b.jsonl"), "--format", "csv"], in: dir)
    #expect(a.code == .success, "\(a.stderr)")
    #expect(a.stdout == b.stdout)
    let eventsA = try dir.read("a.jsonl")
    #expect(eventsA == (try dir.read("b.jsonl")))
    #expect(eventsA.split(separator: "\n").count > 50)
    let c = simulate(["--seed", "8", "--format", "csv"], in: dir)
    #expect(c.stdout != a.stdout)
  }

  @Test func theSimulatedLogReadsBackThroughStatsAndDeck() throws {
    let dir = try TempDir()
    let sim = simulate(
      [
        "--seed", "3", "--strategy", "popularity", "--events", dir.file("s.jsonl"), "--format",
        "json",
      ],
      in: dir)
    #expect(sim.code == .success, "\(sim.stderr)")
    let stats = dir.run(["stats", "--config", Self.config, dir.file("s.jsonl"), "--format", "json"])
    #expect(stats.code == .success, "\(stats.stderr)")
    // The same swipes: the log's totals equal the simulation's.
    #expect(try Self.total(sim, "cards_shown") == Self.total(stats, "cards_shown"))
    #expect(try Self.total(sim, "right_swipes") == Self.total(stats, "right_swipes"))
    let deck = dir.run([
      "deck", "--config", Self.config, "--history", dir.file("s.jsonl"), "--date", "2026-12-05",
      "--user", "s00001", "--format", "jsonl",
    ])
    #expect(deck.code == .success, "\(deck.stderr)")
  }

  /// The simulated log's times carry the offset the config's zone has at each (daylight saving
  /// time starts on 2026-03-08 in New York), and read back to the same days and totals.
  @Test func simulatedTimesCarryTheZonesOffsetAtEach() throws {
    let dir = try TempDir()
    let config = try dir.write(
      "ny.json",
      #"{"catalog": "\#(CLITest.repoRoot)/Data/catalog.json", "time_zone": "America/New_York"}"#)
    for name in ["s.jsonl", "s.csv"] {
      let sim = dir.run([
        "simulate", "--config", config, "--users", "20", "--days", "4", "--start", "2026-03-06",
        "--strategy", "popularity", "--seed", "4", "--events", dir.file(name), "--format", "json",
      ])
      #expect(sim.code == .success, "\(sim.stderr)")
      let text = try dir.read(name)
      let times = text.split(separator: "\n").compactMap { line -> (String, String)? in
        let parts = line.components(separatedBy: name.hasSuffix(".csv") ? "," : "\"at\":\"")
        guard name.hasSuffix(".csv") ? parts.count > 3 && parts[3] != "at" : parts.count > 1
        else { return nil }
        let at = name.hasSuffix(".csv") ? parts[3] : String(parts[1].prefix(25))
        return (String(at.prefix(10)), String(at.suffix(6)))
      }
      #expect(times.count > 20)
      for (day, offset) in times {
        #expect(offset == (day < "2026-03-08" ? "-05:00" : "-04:00"), "\(day) \(offset)")
      }
      #expect(Set(times.map(\.0)).count == 4, "every day has sessions")
      let stats = dir.run(["stats", "--config", config, dir.file(name), "--format", "json"])
      #expect(stats.code == .success, "\(stats.stderr)")
      #expect(try Self.total(sim, "cards_shown") == Self.total(stats, "cards_shown"))
      #expect(try Self.total(sim, "decks") == Self.total(stats, "decks"))
    }
  }

  @Test func everyNumberOfJobsGivesTheSameBytes() throws {
    let dir = try TempDir()
    let one = simulate(
      ["--seed", "5", "--jobs", "1", "--events", dir.file("1.jsonl"), "--format", "csv"], in: dir)
    #expect(one.code == .success, "\(one.stderr)")
    for jobs in ["2", "3", "7"] {
      let run = simulate(
        ["--seed", "5", "--jobs", jobs, "--events", dir.file("\(jobs).jsonl"), "--format", "csv"],
        in: dir)
      #expect(run.code == .success, "\(run.stderr)")
      #expect(run.stdout == one.stdout, "--jobs \(jobs)")
      #expect(try dir.read("\(jobs).jsonl") == dir.read("1.jsonl"), "--jobs \(jobs)")
    }
    let compare = { (jobs: String) in
      dir.run([
        "compare", "--config", Self.config, "-s", "random", "-s", "popularity", "--baseline",
        "random", "--users", "40", "--days", "3", "--start", "2026-12-01", "--resamples", "50",
        "--seed", "2", "--jobs", jobs, "--format", "json",
      ])
    }
    let a = compare("1")
    #expect(a.code == .success, "\(a.stderr)")
    #expect(CLITest.withoutArguments(compare("3").stdout) == CLITest.withoutArguments(a.stdout))
  }

  @Test("--jobs out of range is a usage error naming it", arguments: ["0", "-2", "1025"])
  func jobsOutOfRange(jobs: String) throws {
    let dir = try TempDir()
    let run = simulate(["--jobs", jobs], in: dir)
    #expect(run.code == .usage)
    #expect(
      run.stderr.contains(
        "'--jobs': '\(jobs)' is out of range: give a whole number from 1 to 1024 (threads)"),
      "\(run.stderr)")
  }

  @Test func zeroOrNegativeDaysAndUsersAreUsageErrors() throws {
    let dir = try TempDir()
    for args in [["--days", "0"], ["--days", "-3"], ["--users", "0"], ["--users", "-5"]] {
      let r = dir.run(["simulate", "--config", Self.config] + args)
      #expect(r.code == .usage, "\(args): \(r.stderr)")
    }
    let two = simulate(
      ["--strategy", "random", "--strategy", "affinity", "--events", dir.file("x.jsonl")], in: dir)
    #expect(two.code == .usage)
  }

  @Test func impossibleSimulationValuesNameTheKeyAndFile() throws {
    let dir = try TempDir()
    let config = try String(contentsOfFile: Self.config, encoding: .utf8)
      .replacingOccurrences(
        of: "\"catalog\": \"../Data/catalog.json\"",
        with: "\"catalog\": \"\(CLITest.repoRoot)/Data/catalog.json\""
      )
      .replacingOccurrences(
        of: "\"seed\": 20261130,",
        with: "\"seed\": 20261130,\n  \"simulation\": {\"open_probability\": 1.5},")
    let path = try dir.write("c.json", config)
    let r = dir.run(["simulate", "--config", path, "--users", "5", "--days", "1"])
    #expect(r.code == .dataError)
    #expect(r.stderr.contains("\(path):"))
    #expect(r.stderr.contains("open_probability"))
    let half = try dir.write(
      "h.json",
      config.replacingOccurrences(
        of: "{\"open_probability\": 1.5}", with: "{\"satiation_half_life_days\": -1}"))
    let h = dir.run(["simulate", "--config", half, "--users", "5", "--days", "1"])
    #expect(h.code == .dataError)
    #expect(h.stderr.contains("satiation_half_life_days"))
  }

  @Test func statsOfASnapshotEqualTheLogsCardMetrics() throws {
    let dir = try TempDir()
    #expect(
      dir.run([
        "ingest", "--config", Self.config, CLISnapshotTests.log, "--into", dir.file("h.snap"),
      ])
      .code == .success)
    let fromLog = CLIRun(["stats", "--format", "json"])
    let fromSnapshot = dir.run([
      "stats", "--config", Self.config, "--format", "json", dir.file("h.snap"),
    ])
    #expect(fromSnapshot.code == .success, "\(fromSnapshot.stderr)")
    func overall(_ run: CLIRun) throws -> [String: Any] {
      let object = try #require(try run.json() as? [String: Any])
      let rows = try #require(object["rows"] as? [[String: Any]])
      return try #require(rows.last)
    }
    let log = try overall(fromLog)
    let snap = try overall(fromSnapshot)
    for key in [
      "cards_shown", "right_swipes", "left_swipes", "like_rate", "catalog_coverage", "novelty",
    ] {
      #expect(log[key] as? Double == snap[key] as? Double, "\(key)")
      #expect(snap[key] as? Double != nil, "\(key)")
    }
    #expect(snap["pick_rate"] is NSNull)
    let mixed = dir.run([
      "stats", "--config", Self.config, dir.file("h.snap"), CLISnapshotTests.log,
    ])
    #expect(mixed.code == .usage)
  }

  @Test func statsOnTheBundledLog() throws {
    let r = CLIRun(["stats", "--format", "csv"])
    #expect(r.code == .success, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n")
    #expect(lines.first == "strategy,day,overall,metric,value")
    for (metric, value) in [
      ("decks", "516.0"), ("cards_shown", "3379.0"), ("right_swipes", "353.0"),
      ("left_swipes", "3026.0"),
    ] {
      #expect(lines.contains("(all),,true,\(metric),\(value)"))
    }
    #expect(lines.last?.hasPrefix("(all),,true,repeat_pick_rate,") == true)
    let snapshot = CLIRun([
      "stats", "--format", "csv", "Tests/MenuDeckCLITests/Golden/help-root.txt",
    ])
    #expect(snapshot.code != .success)
  }
}

@Suite struct CLISimulateDragTests {
  @Test func dragsGiveTheSameSwipeCountsAsTheirLog() throws {
    let dir = try TempDir()
    let sim = dir.run([
      "simulate", "--config", CLISimulateTests.config, "--users", "60", "--days", "3", "--start",
      "2026-12-01", "--strategy", "popularity", "--drags", "--events", dir.file("d.jsonl"),
      "--format", "json",
    ])
    #expect(sim.code == .success, "\(sim.stderr)")
    let stats = dir.run([
      "stats", "--config", CLISimulateTests.config, dir.file("d.jsonl"), "--format", "json",
    ])
    func overall(_ run: CLIRun) throws -> [String: Any] {
      let object = try #require(try run.json() as? [String: Any])
      return try #require((object["rows"] as? [[String: Any]])?.last)
    }
    let a = try overall(sim)
    let b = try overall(stats)
    #expect((a["cards_shown"] as? Double ?? 0) > 0)
    #expect(a["cards_shown"] as? Double == b["cards_shown"] as? Double)
    #expect(a["right_swipes"] as? Double == b["right_swipes"] as? Double)
    #expect(try dir.read("d.jsonl").contains("\"dx\":"))
  }

  @Test func absurdDaysAreUsageErrors() throws {
    let dir = try TempDir()
    for args in [
      ["--days", "3000000000"], ["--days", "40000"], ["--start", "9999-12-31", "--days", "2"],
    ] {
      let r = dir.run(["simulate", "--config", CLISimulateTests.config, "--users", "2"] + args)
      #expect(r.code == .usage, "\(args): \(r.stderr)")
    }
  }
}
