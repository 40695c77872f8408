import DeckBase
import DeckCore
import DeckJobs
import Foundation
import Testing

@testable import MenuDeckCLI

/// Messages a person or a log shipper reads, as a demanding user met them: every wrong command
/// line points at the help whatever error says so, dates in every date option, inputs of the
/// wrong kind named for what they are, missing files with what to check, the wording of counts,
/// and the times of simulated logs in an hour the clocks skip.
@Suite struct CLIMessagesTests {
  static let config = CLITest.repoRoot + "/Config/menudeck.json"

  // MARK: - Every exit 64 points at the help

  /// The lines on standard error of `run`, parsed (JSON lines).
  static func jsonLines(_ run: CLIRun) throws -> [[String: Any]] {
    try run.stderr.split(separator: "\n").map { line in
      try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
  }

  /// Each kind of usage error, from the parser or thrown by a command (`UsageError`,
  /// `CommandFailure(.usage, ...)`, an output that is an input, `--rejects` naming an input,
  /// play without a terminal): the error, then `see 'menudeck CMD --help'`, with --quiet too,
  /// and as two JSON lines (the error's own code, then `help`).
  @Test func everyUsageErrorPointsAtTheHelp() throws {
    let dir = try TempDir()
    let kinds: [(args: [String], command: String, message: String, code: String)] = [
      (
        ["deck", "--dat", "2026-11-30"], "deck",
        "unknown option '--dat' (did you mean '--date'?)", "usage"
      ),
      (
        ["deck", "--size", "0"], "deck",
        "'--size': '0' is out of range: give a whole number from 1 to 10000 (cards)", "usage"
      ),
      (
        ["deck", "--out", "-", "--rejects", "-", "--skip-bad-lines"], "deck",
        "'--out -' and '--rejects -' both write to standard output; give one of them a file",
        "usage"
      ),
      (
        ["deck", "--out", "Data/catalog.json"], "deck",
        "'--out Data/catalog.json' is an input of this run (the config's \"catalog\" "
          + "'Data/catalog.json'); an output never replaces an input: choose another --out",
        "usage"
      ),
      (
        ["deck", "--skip-bad-lines", "--rejects", "Data/swipes.jsonl"], "deck",
        "'--rejects Data/swipes.jsonl' is an input of this run (the config's \"history\" "
          + "'Data/swipes.jsonl'); an output never replaces an input: choose another --rejects",
        "usage"
      ),
      (
        ["play", "--user", "u01"], "play",
        "play needs a terminal: standard input is not a terminal; run it in a terminal, or use "
          + "`menudeck deck` for batch output", "usage"
      ),
      (
        ["simulate", "--events", dir.file("e.txt")], "simulate",
        "'--events \(dir.file("e.txt"))': give the log a .jsonl or .ndjson (JSON Lines) or .csv "
          + "name; the name says its format, and the readers go by it", "usage"
      ),
    ]
    for kind in kinds {
      for quiet in [[], ["--quiet"]] {
        let run = CLIRun(kind.args + quiet)
        #expect(run.code == .usage, "\(kind.args): \(run.stderr)")
        let lines = run.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3, "\(kind.args): \(run.stderr)")
        if !kind.message.isEmpty {
          #expect(lines.first == "menudeck: error: \(kind.message)"[...], "\(kind.args)")
        }
        #expect(
          lines.dropFirst().first == "menudeck: note: see 'menudeck \(kind.command) --help'"[...],
          "\(kind.args): \(run.stderr)")
      }
      let json = CLIRun(kind.args + ["--log-format", "json"])
      let lines = try Self.jsonLines(json)
      #expect(lines.count == 2, "\(kind.args): \(json.stderr)")
      #expect(lines.first?["level"] as? String == "error")
      #expect(lines.first?["code"] as? String == kind.code, "\(kind.args)")
      #expect(lines.last?["level"] as? String == "note")
      #expect(lines.last?["code"] as? String == "help")
      #expect(lines.last?["message"] as? String == "see 'menudeck \(kind.command) --help'")
    }
    // Not a usage error: no pointer.
    let missing = CLIRun(["deck", "--history", dir.file("nothere.jsonl")])
    #expect(missing.code == .noInput)
    #expect(!missing.stderr.contains("--help"), "\(missing.stderr)")
  }

  // MARK: - Dates

  /// Every date option takes the relative forms, counted in the config's time zone: `--start`
  /// of simulate and compare, `--split` of compare, as `--date` and `--before` do.
  @Test func everyDateOptionTakesTheRelativeForms() throws {
    let zone = try #require(TimeZones.zone(named: "Asia/Tokyo"))
    let today = TimeZones.today(in: zone)
    func simulate(_ start: String) -> CLIRun {
      CLIRun([
        "simulate", "--users", "5", "--days", "1", "--start", start, "--format", "csv",
        "--quiet",
      ])
    }
    for (word, days) in [("today", 0), ("yesterday", -1), ("tomorrow", 1), ("+3", 3), ("-2", -2)] {
      let relative = simulate(word)
      #expect(relative.code == .success, "\(word): \(relative.stderr)")
      let explicit = simulate(today.adding(days: days).description)
      #expect(relative.stdout == explicit.stdout, "--start \(word)")
      #expect(relative.stdout.contains(today.adding(days: days).description), "\(word)")
    }
    // compare --split: a relative day names the same split as its date (the bundled log ends
    // on 2026-11-29, so a split at today has nothing to evaluate: the same message).
    let split = CLIRun([
      "compare", "-s", "random", "-s", "popularity", "--split", "yesterday", "Data/swipes.jsonl",
    ])
    let dated = CLIRun([
      "compare", "-s", "random", "-s", "popularity", "--split",
      today.adding(days: -1).description, "Data/swipes.jsonl",
    ])
    #expect(split.code == dated.code)
    #expect(split.stderr == dated.stderr)
    #expect(split.stderr.contains("split at \(today.adding(days: -1))"), "\(split.stderr)")
    let bad = CLIRun(["simulate", "--start", "someday"])
    #expect(bad.code == .usage)
    #expect(
      bad.stderr.hasPrefix(
        "menudeck: error: invalid date 'someday' for '--start'; expected YYYY-MM-DD"))
  }

  /// `--date -1` is a value (the day before today), and `--date --1` is a date written with a
  /// sign too many, said so, not "missing value".
  @Test func negativeDaysAndADoubledSign() throws {
    let zone = try #require(TimeZones.zone(named: "Asia/Tokyo"))
    let yesterday = TimeZones.today(in: zone).adding(days: -1)
    for args in [["--date", "-1"], ["-d", "-1"], ["--date=-1"]] {
      let run = CLIRun(["deck", "--user", "u01", "-f", "csv", "--quiet"] + args)
      #expect(run.code == .success, "\(args): \(run.stderr)")
      #expect(run.stdout.contains(",\(yesterday),"), "\(args)")
    }
    for (option, command, args) in [
      ("--date", "deck", ["deck", "--date", "--1"]),
      ("--before", "ingest", ["ingest", "--before", "--1", "--out", "-", "Data/swipes.jsonl"]),
    ] {
      let run = CLIRun(args)
      #expect(run.code == .usage, "\(run.stderr)")
      #expect(
        run.stderr
          == "menudeck: error: '\(option) --1': '--1' is not a date; give '\(option) -1' (one "
          + "minus sign: 1 day before today), or YYYY-MM-DD, today, tomorrow, yesterday, +N or "
          + "-N\nmenudeck: note: see 'menudeck \(command) --help'\n")
    }
    // Any option: a word of dashes and a digit is its value, which it judges.
    let size = CLIRun(["deck", "--size", "--5"])
    #expect(
      size.stderr.hasPrefix(
        "menudeck: error: invalid value '--5' for '--size'; expected a whole number like 10"))
  }

  // MARK: - Inputs of the wrong kind, missing inputs

  /// A snapshot given to compare: compare needs the logs' swipes; a directory given as a log is
  /// a directory (exit 74, as a directory given for any input).
  @Test func aSnapshotOrADirectoryWhereALogGoes() throws {
    let dir = try TempDir()
    let snap = dir.file("h.snap")
    let ingest = CLIRun([
      "ingest", "--out", snap, "--before", "2026-11-24", "Data/swipes.jsonl", "--quiet",
    ])
    #expect(ingest.code == .success, "\(ingest.stderr)")
    let compare = CLIRun([
      "compare", "-s", "random", "-s", "popularity", "--split", "2026-11-24", snap,
    ])
    #expect(compare.code == .dataError)
    #expect(
      compare.stderr
        == "menudeck: error: \(snap): is a history snapshot: compare needs the swipe logs, whose "
        + "swipes it splits by date; give the logs\n")
    let json = CLIRun([
      "compare", "-s", "random", "-s", "popularity", "--split", "2026-11-24", snap,
      "--log-format", "json",
    ])
    #expect(try Self.jsonLines(json).first?["file"] as? String == snap)
    // ingest takes logs too: the snapshot is named for what it is.
    let again = CLIRun(["ingest", "--out", dir.file("b.snap"), snap])
    #expect(again.code == .dataError)
    #expect(again.stderr.contains("\(snap): is a history snapshot, not a swipe log"))

    let days = dir.file("days")
    try FileManager.default.createDirectory(atPath: days, withIntermediateDirectories: false)
    for args in [
      ["stats", days], ["deck", "--history", days], ["ingest", "--out", dir.file("c.snap"), days],
      ["compare", "-s", "random", "-s", "popularity", "--split", "2026-11-24", days],
    ] {
      let run = CLIRun(args)
      #expect(run.code == .ioError, "\(args): \(run.stderr)")
      #expect(
        run.stderr
          == "menudeck: error: \(days): is a directory, not a swipe log; give the path of a "
          + "file\n", "\(args)")
    }
  }

  /// What to check about a missing file: the path alone when only the command line named it
  /// (the config itself, merge's snapshots, compare's logs), the config too when it named it.
  @Test func missingFilesSayWhatToCheck() throws {
    let dir = try TempDir()
    let merge = CLIRun(["merge", dir.file("nothere.snap"), "--out", dir.file("m.snap")])
    #expect(merge.code == .noInput)
    #expect(
      merge.stderr
        == "menudeck: error: \(dir.file("nothere.snap")): no such file (the history snapshot); "
        + "check the path\n")
    let config = CLIRun(["deck", "-c", dir.file("nothere.json")])
    #expect(config.code == .noInput)
    #expect(
      config.stderr
        == "menudeck: error: \(dir.file("nothere.json")): no such file (the config); check the "
        + "path\n")
    let ingest = CLIRun(["ingest", "--out", dir.file("x.snap"), dir.file("nothere.jsonl")])
    #expect(ingest.code == .noInput)
    #expect(ingest.stderr.hasSuffix("no such file (the swipe log); check the path\n"))
    let named = try dir.write(
      "c.json",
      #"{"catalog": "\#(CLITest.repoRoot)/Data/catalog.json", "history": ["gone.jsonl"]}"#)
    let fromConfig = CLIRun(["deck", "-c", named])
    #expect(fromConfig.code == .noInput)
    #expect(
      fromConfig.stderr
        == "menudeck: error: \(dir.file("gone.jsonl")): no such file (the swipe log); check the "
        + "path or the config\n")
  }

  // MARK: - Counts and config wording

  @Test func configValuesNameTheirSectionAndShowTheFilesText() throws {
    let dir = try TempDir()
    let cases: [(String, String)] = [
      (
        #""simulation": {"patience": 0}"#,
        "'simulation.patience': '0' is out of range: give a whole number from 1 to 2147483647"
      ),
      (
        #""seed": 1e30"#,
        "'seed': '1e30' is out of range: give a whole number from 0 to 18446744073709551615"
      ),
      (
        #""deck": {"size": 1E+5}"#,
        "'deck.size': '1E+5' is out of range: give a whole number from 1 to 10000"
      ),
      (
        #""seed": 1.5"#,
        "'seed': '1.5' is not a whole number; give a whole number from 0 to 18446744073709551615"
      ),
    ]
    for (member, message) in cases {
      let config = try dir.write(
        "c.json", #"{"catalog": "\#(CLITest.repoRoot)/Data/catalog.json", "# + member + "}")
      let run = CLIRun(["validate", "-c", config])
      #expect(run.code == .dataError, "\(member)")
      #expect(run.stderr.hasPrefix("menudeck: error: \(config):1:"), "\(run.stderr)")
      #expect(run.stderr.contains(": \(message)\n"), "\(run.stderr)")
    }
    // A whole number in exponent form within range is that number.
    let config = try dir.write(
      "e.json",
      #"{"catalog": "\#(CLITest.repoRoot)/Data/catalog.json", "seed": 2.0261130e7, "deck": {"size": 1e1}}"#
    )
    let exponent = CLIRun(["deck", "-c", config, "--date", "2026-11-30", "--user", "u01"])
    let plain = CLIRun([
      "deck", "-c", config, "--date", "2026-11-30", "--user", "u01", "--seed", "20261130",
      "--size", "10",
    ])
    #expect(exponent.code == .success, "\(exponent.stderr)")
    #expect(CLITest.withoutArguments(exponent.stdout) == CLITest.withoutArguments(plain.stdout))
  }

  /// The headerless parts of a semicolon log with --csv-header in commas: the rows' separator,
  /// and how to give both.
  @Test func headerlessSemicolonRowsSayTheirSeparator() throws {
    let rows =
      String(decoding: try CLITest.repoFile("Data/swipes.csv"), as: UTF8.self)
      .replacingOccurrences(of: ",", with: ";").split(separator: "\n").dropFirst()
      .joined(separator: "\n") + "\n"
    let header = "user,item,swipe,at,position,deck,dx,width"
    let run = CLIRun(["stats", "--csv-header", header, "-"], stdin: Array(rows.utf8))
    #expect(run.code == .dataError)
    #expect(
      run.stderr
        == "menudeck: error: <stdin>:1: the rows are separated by ';', not ','; give "
        + "--delimiter ';' and separate the names of --csv-header by ';' too\n")
    // Doing so reads them.
    let fixed = CLIRun(
      [
        "stats", "--delimiter", ";", "--csv-header",
        header.replacingOccurrences(of: ",", with: ";"),
        "-", "--format", "csv",
      ], stdin: Array(rows.utf8))
    #expect(fixed.code == .success, "\(fixed.stderr)")
    let plain = CLIRun(["stats", "Data/swipes.csv", "--format", "csv"])
    #expect(fixed.stdout == plain.stdout)
  }

  // MARK: - Simulated times the clocks skip

  /// Sessions in the hour New York sets its clocks forward (01:50 to 02:50 on 2026-03-08): every
  /// time carries an offset, the skipped ones the offset before the skip (-05:00), and the log
  /// reads back to the simulation's totals, all on the deck's day.
  @Test func simulatedTimesInTheSkippedHourCarryTheOffsetBeforeIt() throws {
    let dir = try TempDir()
    let config = try dir.write(
      "ny.json",
      #"{"catalog": "\#(CLITest.repoRoot)/Data/catalog.json", "time_zone": "America/New_York", "simulation": {"session_start_minute": 110, "session_window_minutes": 60}}"#
    )
    let sim = dir.run([
      "simulate", "--config", config, "--users", "40", "--days", "1", "--start", "2026-03-08",
      "--seed", "3", "--events", dir.file("e.jsonl"), "--format", "json",
    ])
    #expect(sim.code == .success, "\(sim.stderr)")
    let times = try dir.read("e.jsonl").split(separator: "\n").map { line in
      String(line.components(separatedBy: "\"at\":\"")[1].prefix(25))
    }
    #expect(times.count > 20)
    let skipped = times.filter { $0.hasPrefix("2026-03-08T02:") }
    #expect(!skipped.isEmpty, "no session in the skipped hour: \(times.prefix(5))")
    for at in times {
      #expect(at.hasSuffix("-05:00"), "\(at)")
    }
    let stats = dir.run(["stats", "--config", config, dir.file("e.jsonl"), "--format", "json"])
    #expect(stats.code == .success, "\(stats.stderr)")
    #expect(
      try CLISimulateTests.total(sim, "cards_shown") == CLISimulateTests.total(stats, "cards_shown")
    )
    #expect(try CLISimulateTests.total(sim, "decks") == CLISimulateTests.total(stats, "decks"))
    let csv = dir.run(["stats", "--config", config, dir.file("e.jsonl"), "--format", "csv"])
    #expect(csv.stdout.contains("2026-03-08"))
    #expect(!csv.stdout.contains("2026-03-09"))
  }
}
