import DeckCommandLine
import DeckCore
import DeckIO
import DeckJobs
import Foundation
import Testing

@testable import MenuDeckCLI

/// What the nightly job needs, in process: the relative dates a crontab can give, `ingest` into
/// the snapshot that the config's history names, and a history that is empty or stale told
/// (and an error under `deck --strict`).
@Suite struct CLINightlyTests {
  static let catalog = CLITest.repoRoot + "/Data/catalog.json"
  static let users = CLITest.repoRoot + "/Data/users.json"
  static let log = CLITest.repoRoot + "/Data/swipes.jsonl"
  static let goodLine =
    #"{"user":"u01","item":"napolitan","swipe":"right","at":"2026-11-20T12:00:00+09:00"}"# + "\n"

  /// A config in `dir` whose history is `history` (paths relative to `dir`), over the bundled
  /// catalog and users, in Tokyo's time zone, with `extra` keys.
  @discardableResult
  static func config(
    in dir: TempDir, history: [String], extra: String = "", name: String = "menudeck.json"
  ) throws -> String {
    let list = history.map { "\"\($0)\"" }.joined(separator: ", ")
    return try dir.write(
      name,
      """
      {"catalog": "\(catalog)", "users": "\(users)", "history": [\(list)],
       "time_zone": "Asia/Tokyo", "seed": 7\(extra)}
      """)
  }

  static var tokyoToday: DeckDate {
    TimeZones.today(in: TimeZones.zone(named: "Asia/Tokyo")!)
  }

  // MARK: - Dates a crontab can give

  @Test(arguments: [
    ("today", 0), ("tomorrow", 1), ("yesterday", -1), ("+0", 0), ("-0", 0), ("+1", 1),
    ("-7", -7), ("+36500", 36_500), ("-36500", -36_500), ("+007", 7),
  ])
  func relativeDates(text: String, offset: Int) throws {
    let today = try #require(DeckDate.parse("2026-12-03"))
    #expect(
      try DateArgument.parse(text, option: "--date", today: today) == today.adding(days: offset))
  }

  @Test func aDateIsADate() throws {
    let today = try #require(DeckDate.parse("2026-12-03"))
    #expect(
      try DateArgument.parse("2026-11-30", option: "--date", today: today)
        == DeckDate.parse("2026-11-30"))
  }

  @Test(arguments: ["Today", "tomorow", "+", "-", "+1.5", "1", "+ 1", "++1", "+1d", "2026-11-31"])
  func notADate(text: String) throws {
    let today = try #require(DeckDate.parse("2026-12-03"))
    #expect(throws: UsageError.self) {
      try DateArgument.parse(text, option: "--date", today: today)
    }
    let run = CLIRun(["deck", "--date", text])
    #expect(run.code == .usage)
    #expect(
      run.stderr.hasPrefix(
        "menudeck: error: invalid date '\(text)' for '--date'; expected YYYY-MM-DD, e.g. "
          + "2026-11-30, or today, tomorrow, yesterday, +N or -N (days from today in the "
          + "config's time zone)\n"), "\(run.stderr)")
  }

  @Test(arguments: ["+36501", "-36501", "+1000000", "-99999999999999999999999"])
  func tooManyDays(text: String) throws {
    let run = CLIRun(["deck", "--date", text])
    #expect(run.code == .usage)
    #expect(
      run.stderr.hasPrefix(
        "menudeck: error: '--date \(text)' counts more than 36500 days from today; give at most "
          + "+36500 or -36500, or a date YYYY-MM-DD\n"), "\(run.stderr)")
  }

  @Test func pastTheLastDate() throws {
    let today = try #require(DeckDate.parse("9999-12-30"))
    #expect(throws: UsageError.self) {
      try DateArgument.parse("+2", option: "--date", today: today)
    }
    #expect(
      try DateArgument.parse("+1", option: "--date", today: today) == DeckDate.parse("9999-12-31"))
  }

  /// `--date tomorrow` is tomorrow in the config's time zone, not the machine's: the same decks
  /// as the date written out.
  @Test func tomorrowInTheConfigsZone() throws {
    let before = Self.tokyoToday
    let words = CLIRun(["deck", "--date", "tomorrow", "--format", "jsonl", "--quiet"])
    let after = Self.tokyoToday
    #expect(words.code == .success, "\(words.stderr)")
    // Tokyo's midnight may pass during the run: then the later day.
    let dated = [before, after].map { today in
      CLIRun([
        "deck", "--date", today.adding(days: 1).description, "--format", "jsonl", "--quiet",
      ]).stdout
    }
    #expect(dated.contains(words.stdout))
    let minus = CLIRun(["deck", "--date", "-1", "--format", "csv", "--quiet", "--user", "u01"])
    let written = CLIRun([
      "deck", "--date", after.adding(days: -1).description, "--format", "csv", "--quiet",
      "--user", "u01",
    ])
    if before == after { #expect(minus.stdout == written.stdout) }
  }

  @Test func ingestBeforeTakesTheWords() throws {
    let dir = try TempDir()
    // Everything before today: the sample ends before it.
    let run = dir.run([
      "ingest", "--config", CLITest.repoRoot + "/Config/menudeck.json", Self.log, "--before",
      "today", "--into", dir.file("h.snap"),
    ])
    #expect(run.code == .success, "\(run.stderr)")
    #expect(run.stderr.contains("holds 1 log, 3379 swipes, 48 diners"), "\(run.stderr)")
    // ... and nothing from before 2026-11-16 (14 days ago and more).
    let none = dir.run([
      "ingest", "--config", CLITest.repoRoot + "/Config/menudeck.json", Self.log, "--before",
      "-36500", "--out", dir.file("none.snap"),
    ])
    #expect(none.code == .success, "\(none.stderr)")
    #expect(none.stderr.contains("3379 swipes dated on or after"), "\(none.stderr)")
    let bad = dir.run(["ingest", Self.log, "--before", "soon", "--out", "-"])
    #expect(bad.code == .usage)
    #expect(bad.stderr.contains("invalid date 'soon' for '--before'"), "\(bad.stderr)")
  }

  // MARK: - Ingest into the config's snapshot

  /// The issue's setup: the config's history is the snapshot that `ingest --into` keeps. Night
  /// 1 creates it; night 2 adds to it (it used to be refused as an output onto an input).
  @Test func ingestIntoTheConfigsSnapshotNightAfterNight() throws {
    let dir = try TempDir()
    let config = try Self.config(in: dir, history: ["srv/history.snap"])
    try FileManager.default.createDirectory(
      atPath: dir.file("srv"), withIntermediateDirectories: true)
    let lines = try String(contentsOfFile: Self.log, encoding: .utf8).split(separator: "\n")
    let first = try dir.write("a.jsonl", lines[..<1700].joined(separator: "\n") + "\n")
    let second = try dir.write("b.jsonl", lines[1700...].joined(separator: "\n") + "\n")
    // Before the first ingest the snapshot is missing: exit 66, and how to make it.
    let missing = dir.run(["deck", "--config", config, "--date", "2026-11-30"])
    #expect(missing.code == .noInput)
    #expect(
      missing.stderr
        == "menudeck: error: \(dir.file("srv/history.snap")): no such file (the history snapshot "
        + "that the config's \"history\" names; 'menudeck ingest --config \(config) LOG' creates "
        + "it from the first log); check the path or the config\n")
    // Night 1, explicitly; night 2 by default (no --into: the config's snapshot).
    let night1 = dir.run([
      "ingest", "--config", config, first, "--into", dir.file("srv/history.snap"),
    ])
    #expect(night1.code == .success, "\(night1.stderr)")
    let night2 = dir.run(["ingest", "--config", config, second])
    #expect(night2.code == .success, "\(night2.stderr)")
    #expect(
      night2.stderr.hasSuffix(
        "\(dir.file("srv/history.snap")) holds 2 logs, 3379 swipes, 48 diners\n"),
      "\(night2.stderr)")
    // Again: nothing counted twice, nothing written.
    let again = dir.run(["ingest", "--config", config, first, second])
    #expect(again.code == .success, "\(again.stderr)")
    #expect(again.stderr.contains("ingested 0 logs (0 swipes), skipped 2 already ingested"))
    // The decks are those of the whole log.
    let fromSnapshot = dir.run([
      "deck", "--config", config, "--date", "2026-11-30", "--format", "jsonl",
    ])
    let fromLog = dir.run([
      "deck", "--config", config, "--date", "2026-11-30", "--format", "jsonl", "--history",
      Self.log,
    ])
    #expect(fromSnapshot.code == .success, "\(fromSnapshot.stderr)")
    #expect(fromSnapshot.stdout == fromLog.stdout)
    #expect(fromSnapshot.stderr == "menudeck: note: 48 decks for 2026-11-30 with 'ease'\n")
  }

  /// Only `ingest --into` may replace the config's snapshot: every other output onto it, and
  /// onto any other file the config names, is still refused (exit 64), and nothing is written.
  @Test func everyOtherOutputOntoTheConfigsFilesIsRefused() throws {
    let dir = try TempDir()
    let config = try Self.config(in: dir, history: ["h.snap"])
    #expect(dir.run(["ingest", "--config", config, Self.log]).code == .success)
    let bytes = try dir.read("h.snap")
    try dir.write("old.jsonl", Self.goodLine)
    let logs = try Self.config(in: dir, history: ["old.jsonl", "h.snap"], name: "logs.json")
    let refused: [[String]] = [
      ["ingest", "--config", config, Self.log, "--out", dir.file("h.snap")],
      ["deck", "--config", config, "--date", "2026-11-30", "--out", dir.file("h.snap")],
      // (A rejects file must be named .jsonl, .ndjson or .csv: the config's log is one.)
      [
        "ingest", "--config", logs, Self.log, "--into", dir.file("other.snap"),
        "--skip-bad-lines", "--rejects", dir.file("old.jsonl"),
      ],
      ["ingest", "--config", config, Self.log, "--into", config],
      // A log of the config's history is not its snapshot.
      ["ingest", "--config", logs, Self.log, "--into", dir.file("old.jsonl")],
    ]
    for args in refused {
      let run = dir.run(args)
      #expect(run.code == .usage, "\(args): \(run.stderr)")
      #expect(run.stderr.contains("an output never replaces an input"), "\(run.stderr)")
    }
    #expect(try dir.read("h.snap") == bytes)
    #expect(try dir.read("old.jsonl") == Self.goodLine)
    #expect(!dir.exists("other.snap"))
  }

  @Test func withoutIntoAConfigMustNameOneSnapshot() throws {
    let dir = try TempDir()
    let none = try Self.config(in: dir, history: ["log.jsonl"], name: "none.json")
    let run = dir.run(["ingest", "--config", none, Self.log])
    #expect(run.code == .usage)
    #expect(
      run.stderr.hasPrefix(
        "menudeck: error: missing '--into <snapshot>' (the snapshot to add the logs to) or "
          + "'--out <snapshot>' (a new snapshot of these logs, '-' for standard output); the "
          + "config \(none) names no snapshot in its \"history\" to add to\n"), "\(run.stderr)")
    let two = try Self.config(in: dir, history: ["a.snap", "b.snap"], name: "two.json")
    let ambiguous = dir.run(["ingest", "--config", two, Self.log])
    #expect(ambiguous.code == .usage)
    #expect(
      ambiguous.stderr.hasPrefix(
        "menudeck: error: the config \(two) names 2 snapshots in its \"history\" ("
          + "\(dir.file("a.snap")), \(dir.file("b.snap"))); give '--into' with the one to add the "
          + "logs to\n"), "\(ambiguous.stderr)")
    // With --into, either may be chosen.
    let chosen = dir.run(["ingest", "--config", two, Self.log, "--into", dir.file("b.snap")])
    #expect(chosen.code == .success, "\(chosen.stderr)")
  }

  /// A config whose history reads a log directly beside the snapshot: ingest adds the command
  /// line's logs to the snapshot and leaves the config's log alone, and refuses to add that log
  /// to the snapshot too (deck would count it twice).
  @Test func aLogOfTheConfigIsNotAddedToItsSnapshot() throws {
    let dir = try TempDir()
    let lines = try String(contentsOfFile: Self.log, encoding: .utf8).split(separator: "\n")
    let old = try dir.write("old.jsonl", lines[..<2000].joined(separator: "\n") + "\n")
    let new = try dir.write("new.jsonl", lines[2000...].joined(separator: "\n") + "\n")
    let config = try Self.config(in: dir, history: ["old.jsonl", "h.snap"])
    let twice = dir.run(["ingest", "--config", config, old])
    #expect(twice.code == .usage)
    #expect(
      twice.stderr
        == "menudeck: error: '\(old)' is a log of the config's \"history\" (\(old)), which 'deck' "
        + "reads beside the snapshot \(dir.file("h.snap")): adding it to the snapshot too would "
        + "count its swipes twice. Leave it out, or take it out of \(config)'s \"history\" first\n"
        + "menudeck: note: see 'menudeck ingest --help'\n")
    #expect(!dir.exists("h.snap"))
    let added = dir.run(["ingest", "--config", config, new])
    #expect(added.code == .success, "\(added.stderr)")
    let decks = dir.run(["deck", "--config", config, "--date", "2026-11-30", "--format", "jsonl"])
    let whole = dir.run([
      "deck", "--config", config, "--date", "2026-11-30", "--format", "jsonl", "--history",
      Self.log,
    ])
    #expect(decks.code == .success, "\(decks.stderr)")
    #expect(decks.stdout == whole.stdout)
  }

  /// Without --config (a cron job started outside the config's folder), the error says what to
  /// give, before any log is read; nothing is written.
  @Test func aSnapshotOfAnotherZoneSaysWhichConfigToGive() throws {
    let dir = try TempDir()
    let config = try Self.config(in: dir, history: ["h.snap"])
    #expect(dir.run(["ingest", "--config", config, Self.log]).code == .success)
    let bytes = try dir.read("h.snap")
    let lines = try String(contentsOfFile: Self.log, encoding: .utf8).split(separator: "\n")
    let more = try dir.write("more.jsonl", String(lines[0]) + "\n")
    let bare = dir.run(["ingest", more, "--into", dir.file("h.snap")])
    #expect(bare.code == .dataError)
    #expect(
      bare.stderr.hasSuffix(
        "menudeck: error: \(dir.file("h.snap")): its swipes were read in time zone 'Asia/Tokyo', "
          + "but this run has no config file (none was given, and Config/menudeck.json is not in "
          + "the current directory), so it reads times in 'UTC'; the swipe days would disagree. "
          + "Give --config with the config that made the snapshot (its \"time_zone\" is "
          + "'Asia/Tokyo')\n"), "\(bare.stderr)")
    let utc = try dir.write(
      "utc.json", "{\"catalog\": \"\(Self.catalog)\", \"history\": \"h.snap\"}")
    let other = dir.run(["ingest", "--config", utc, more, "--log-format", "json"])
    #expect(other.code == .dataError)
    #expect(other.stderr.contains("\"code\":\"snapshot_mismatch\""), "\(other.stderr)")
    #expect(other.stderr.contains("but the config \(utc) says 'UTC'"), "\(other.stderr)")
    #expect(try dir.read("h.snap") == bytes)
  }

  @Test func aMissingHistoryIsMissing() throws {
    let dir = try TempDir()
    // Given on the command line, a snapshot says how to make it; a name of neither kind is a
    // missing file too, not a file of unknown format.
    let snap = CLIRun(["deck", "--history", dir.file("h.snap"), "--date", "2026-11-30"])
    #expect(snap.code == .noInput)
    #expect(
      snap.stderr
        == "menudeck: error: \(dir.file("h.snap")): no such file (the history snapshot; "
        + "'menudeck ingest --into \(dir.file("h.snap")) LOG' creates it from the first log); "
        + "check the path\n")
    let plain = CLIRun(["deck", "--history", dir.file("history"), "--date", "2026-11-30"])
    #expect(plain.code == .noInput)
    #expect(
      plain.stderr
        == "menudeck: error: \(dir.file("history")): no such file (the swipe log or history "
        + "snapshot); check the path\n")
    let validate = CLIRun(["validate", "--history", dir.file("h.snap"), "--log-format", "json"])
    #expect(validate.code == .noInput)
    #expect(validate.stderr.contains("\"code\":\"missing_file\""), "\(validate.stderr)")
    // stats, which takes logs as arguments, says the same; compare reads no snapshot, so
    // it names a swipe log and no ingest that would make a snapshot.
    let stats = CLIRun(["stats", dir.file("h.snap")])
    #expect(stats.code == .noInput, "\(stats.stderr)")
    #expect(
      stats.stderr.hasPrefix(
        "menudeck: error: \(dir.file("h.snap")): no such file (the history snapshot; "),
      "\(stats.stderr)")
    let compare = CLIRun([
      "compare", "-s", "random", "-s", "popularity", "--split", "2026-11-24", dir.file("h.snap"),
    ])
    #expect(compare.code == .noInput, "\(compare.stderr)")
    #expect(
      compare.stderr
        == "menudeck: error: \(dir.file("h.snap")): no such file (the swipe log); check the "
        + "path\n")
  }

  // MARK: - Stale or empty history

  @Test func aStaleHistoryIsWarnedWithItsDatesAndCounts() throws {
    let run = CLIRun(["deck", "--date", "2026-12-04", "--format", "csv"])
    #expect(run.code == .success)
    #expect(
      run.stderr
        == "menudeck: warning: the history ends on 2026-11-29, 5 days before the deck date "
        + "2026-12-04 (more than the default 2 of stale_history_days; set it in "
        + "Config/menudeck.json): 3379 "
        + "swipes of 48 diners in Data/swipes.jsonl. Add the missing days' logs (is the nightly "
        + "ingest running?), or raise stale_history_days\n"
        + "menudeck: note: 48 decks for 2026-12-04 with 'ease'\n")
    let json = CLIRun(["deck", "--date", "2026-12-04", "--log-format", "json", "--format", "csv"])
    let first = try #require(
      JSONSerialization.jsonObject(with: Data(json.stderr.split(separator: "\n")[0].utf8))
        as? [String: Any])
    #expect(first["level"] as? String == "warning")
    #expect(first["code"] as? String == "stale_history")
    #expect(first["file"] as? String == "Data/swipes.jsonl")
    // Two days are within the default: a closed day does not warn.
    let two = CLIRun(["deck", "--date", "2026-12-01", "--format", "csv"])
    #expect(two.stderr == "menudeck: note: 48 decks for 2026-12-01 with 'ease'\n")
  }

  /// `--strict`: the same message is the run's error (exit 65), and --out keeps its old bytes.
  @Test func strictFailsTheJobAndWritesNothing() throws {
    let dir = try TempDir()
    let out = try dir.write("decks.json", "yesterday's decks\n")
    let run = dir.run([
      "deck", "--config", CLITest.repoRoot + "/Config/menudeck.json", "--date", "2026-12-04",
      "--strict", "--out", out,
    ])
    #expect(run.code == .dataError)
    #expect(
      run.stderr.hasPrefix(
        "menudeck: error: the history ends on 2026-11-29, 5 days before the deck date 2026-12-04"),
      "\(run.stderr)")
    #expect(try dir.read("decks.json") == "yesterday's decks\n")
    #expect(try dir.names() == ["decks.json"])
    let fresh = dir.run([
      "deck", "--config", CLITest.repoRoot + "/Config/menudeck.json", "--date", "2026-11-30",
      "--strict", "--out", out,
    ])
    #expect(fresh.code == .success, "\(fresh.stderr)")
    #expect(try dir.read("decks.json").hasPrefix("{\"run\":"))
  }

  @Test func anEmptyOrTruncatedLogIsWarned() throws {
    let dir = try TempDir()
    let empty = try dir.write("empty.jsonl", "")
    let config = try Self.config(in: dir, history: ["empty.jsonl"])
    let run = dir.run(["deck", "--config", config, "--date", "2026-11-30", "--format", "csv"])
    #expect(run.code == .success)
    #expect(
      run.stderr
        == "menudeck: warning: the history (\(empty)) holds no swipes before the deck date "
        + "2026-11-30: every diner gets a first-visit deck. Check the logs and the nightly "
        + "ingest\nmenudeck: note: 48 decks for 2026-11-30 with 'ease'\n")
    let strict = dir.run([
      "deck", "--config", config, "--date", "2026-11-30", "--strict", "--log-format", "json",
    ])
    #expect(strict.code == .dataError)
    #expect(strict.stdout == "")
    #expect(strict.stderr.contains("\"code\":\"empty_history\""), "\(strict.stderr)")
    // A log with swipes only on or after the deck date teaches nothing either, and says why.
    let late = dir.run([
      "deck", "--config", config, "--history", Self.log, "--date", "2026-11-16", "--format", "csv",
    ])
    #expect(
      late.stderr.contains(
        "menudeck: warning: the history (\(Self.log)) holds no swipes before the deck date "
          + "2026-11-16 (3379 swipes on or after that date were left out): "), "\(late.stderr)")
  }

  /// No history at all is a choice (first-visit decks for everyone), not a stale one; and
  /// `stale_history_days: 0` turns the stale check off.
  @Test func whenNothingIsTold() throws {
    let dir = try TempDir()
    let bare = try dir.write(
      "bare.json", "{\"catalog\": \"\(Self.catalog)\", \"users\": \"\(Self.users)\"}")
    let none = dir.run(["deck", "--config", bare, "--date", "2026-12-20", "--strict"])
    #expect(none.code == .success, "\(none.stderr)")
    #expect(!none.stderr.contains("warning"), "\(none.stderr)")
    let off = try Self.config(
      in: dir, history: [Self.log], extra: ", \"stale_history_days\": 0", name: "off.json")
    let quiet = dir.run([
      "deck", "--config", off, "--date", "2027-06-01", "--strict", "--format", "csv",
    ])
    #expect(quiet.code == .success, "\(quiet.stderr)")
    #expect(quiet.stderr == "menudeck: note: 48 decks for 2027-06-01 with 'ease'\n")
    let wide = try Self.config(
      in: dir, history: [Self.log], extra: ", \"stale_history_days\": 10", name: "wide.json")
    let within = dir.run(["deck", "--config", wide, "--date", "2026-12-09", "--strict"])
    #expect(within.code == .success, "\(within.stderr)")
    let past = dir.run(["deck", "--config", wide, "--date", "2026-12-10", "--strict"])
    #expect(past.code == .dataError, "\(past.stderr)")
    // The config gives the number: the message says where it is set.
    #expect(
      past.stderr.contains(
        "11 days before the deck date 2026-12-10 (more than the 10 of stale_history_days in "
          + "\(wide)):"), "\(past.stderr)")
  }

  @Test(arguments: [
    ("-1", "'stale_history_days': '-1' is out of range: give a whole number from 0 to 36500"),
    ("1.5", "'stale_history_days': '1.5' is not a whole number; give a whole number from 0 to"),
    ("\"2\"", "'stale_history_days' is a string, not a whole number; give a whole number from"),
    ("36501", "'stale_history_days': '36501' is out of range: give a whole number from 0 to 36500"),
  ])
  func theSettingIsChecked(value: String, message: String) throws {
    let dir = try TempDir()
    let config = try dir.write(
      "c.json", "{\"catalog\": \"\(Self.catalog)\",\n \"stale_history_days\": \(value)}")
    let run = dir.run(["deck", "--config", config])
    #expect(run.code == .dataError)
    #expect(run.stderr.hasPrefix("menudeck: error: \(config):2:"), "\(run.stderr)")
    #expect(run.stderr.contains(message), "\(run.stderr)")
  }

  /// `validate` checks the history against the deck date as deck does: a warning, exit 1 with
  /// --strict.
  @Test func validateTellsAStaleHistory() throws {
    let run = CLIRun(["validate", "--date", "2026-12-04"])
    #expect(run.code == .success)
    #expect(run.stdout.hasSuffix("\nvalid with 1 warning\n"))
    #expect(
      run.stderr.hasPrefix(
        "menudeck: warning: the history ends on 2026-11-29, 5 days before the deck date 2026-12-04"
      ), "\(run.stderr)")
    let strict = CLIRun(["validate", "--date", "2026-12-04", "--strict", "--format", "json"])
    #expect(strict.code == .failure)
    let report = try #require(try strict.json() as? [String: Any])
    let warnings = try #require(report["warnings"] as? [[String: Any]])
    #expect(warnings.map { $0["code"] as? String } == ["stale_history"])
    #expect(warnings.first?["file"] as? String == "Data/swipes.jsonl")
    #expect(CLIRun(["validate", "--date", "2026-11-30", "--strict"]).code == .success)
    // Without --date there is no deck date to check against (an analyst's old data set).
    let undated = CLIRun(["validate", "--strict"])
    #expect(undated.code == .success)
    #expect(undated.stderr == "")
  }
}
