import DeckBase
import DeckCore
import DeckIO
import DeckJobs
import Foundation
import Testing

@testable import MenuDeckCLI

/// "Never a lost swipe" (issue 26's review): the swipes that `ingest --before` does not add up
/// wait in the snapshot for their day, decks for a later date learn from them exactly as from
/// the logs, a later ingest adds them up; a day's log delivered again with other bytes is
/// refused; and what ingest says about a log (waiting swipes, unknown dishes, skipped lines)
/// names the file and line.
@Suite struct CLIPendingSwipesTests {
  static let config = CLITest.repoRoot + "/Config/menudeck.json"
  static let log = CLITest.repoRoot + "/Data/swipes.jsonl"

  /// The sample's log cut by Tokyo day (its times carry +09:00): `day-2026-11-16.jsonl`, ...
  /// in `dir`, the paths by day.
  static func dayLogs(in dir: TempDir) throws -> [String: String] {
    let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
    var days: [String: [Substring]] = [:]
    for line in lines {
      let at = try #require(line.range(of: "\"at\":\""))
      let day = String(line[at.upperBound...].prefix(10))
      days[day, default: []].append(line)
    }
    var paths: [String: String] = [:]
    for (day, lines) in days {
      paths[day] = try dir.write("\(day).jsonl", lines.joined(separator: "\n") + "\n")
    }
    return paths
  }

  /// The decks (JSON Lines, no run header) for `date` from `history`.
  static func decks(_ history: [String], _ date: String, in dir: TempDir) -> CLIRun {
    dir.run(
      ["deck", "--config", config, "--date", date, "--format", "jsonl"]
        + history.flatMap { ["--history", $0] })
  }

  // MARK: - Waiting swipes

  /// The issue's night: the 11-16 to 11-19 logs ingested with --before 2026-11-18. Every swipe
  /// is in the snapshot, the summary counts both kinds, the decks of 11-18 to 11-21 are those of
  /// the logs, and the next night's ingest adds the waiting ones up: the snapshot is then the one
  /// the later limit gives from the start, to the byte.
  @Test func theIssuesNightKeepsEverySwipe() throws {
    let dir = try TempDir()
    let days = try Self.dayLogs(in: dir)
    let four = ["2026-11-16", "2026-11-17", "2026-11-18", "2026-11-19"].map { days[$0]! }
    let snap = dir.file("h.snap")
    let night = dir.run(
      ["ingest", "--config", Self.config, "--before", "2026-11-18", "--into", snap] + four)
    #expect(night.code == .success, "\(night.stderr)")
    #expect(
      night.stderr
        == "menudeck: note: \(four[2]):1: 263 swipes dated on or after 2026-11-18 (the first on "
        + "this line) wait in the snapshot for their day: decks count each from the day after its "
        + "own, and an ingest with a later --before adds them up\n"
        + "menudeck: note: \(four[3]):1: 265 swipes dated on or after 2026-11-18 (the first on "
        + "this line) wait in the snapshot for their day: decks count each from the day after its "
        + "own, and an ingest with a later --before adds them up\n"
        + "menudeck: note: ingested 4 logs (998 swipes: 470 counted, 528 waiting for their day); "
        + "\(snap) holds 4 logs, 998 swipes (470 counted, 528 waiting for their day), 47 diners\n")
    let snapshot = try SnapshotFile.read(path: snap)
    #expect(snapshot.pending.count == 528)
    #expect(snapshot.lastDay == DeckDate.parse("2026-11-17")?.daysSinceEpoch)
    #expect(
      snapshot.sources.first { $0.path == four[3] }.map { [$0.firstDay, $0.lastDay] }
        == [
          DeckDate.parse("2026-11-19")?.daysSinceEpoch,
          DeckDate.parse("2026-11-19")?
            .daysSinceEpoch,
        ])

    // Decks for each later date learn exactly what the logs teach.
    for date in ["2026-11-18", "2026-11-19", "2026-11-20", "2026-11-21"] {
      let fromSnapshot = Self.decks([snap], date, in: dir)
      let fromLogs = Self.decks(four, date, in: dir)
      #expect(fromSnapshot.code == .success, "\(date): \(fromSnapshot.stderr)")
      #expect(fromSnapshot.stdout == fromLogs.stdout, "\(date)")
    }
    // The same for validate and stats: every swipe is counted.
    let stats = dir.run(["stats", "--config", Self.config, snap, "--format", "csv"])
    #expect(stats.code == .success, "\(stats.stderr)")
    let logStats = dir.run(["stats", "--config", Self.config, "--format", "csv"] + four)
    #expect(Self.cards(stats.stdout) == 998)
    #expect(Self.cards(logStats.stdout) == 998)
    let validate = dir.run(["validate", "--config", Self.config, "--history", snap])
    #expect(validate.code == .success, "\(validate.stderr)")
    #expect(validate.stdout.contains("998 swipes"), "\(validate.stdout)")

    // A log delivered again is skipped, and the waiting swipes stay as they were.
    let bytes = try CLITest.bytes(dir.file("h.snap"))
    let again = dir.run(
      ["ingest", "--config", Self.config, "--before", "2026-11-18", "--into", snap, four[2]])
    #expect(again.code == .success)
    #expect(again.stderr.contains("\(four[2]) is already in \(snap) (same content); skipped"))
    #expect(try CLITest.bytes(dir.file("h.snap")) == bytes)

    // The next night adds up what waited.
    let next = dir.run([
      "ingest", "--config", Self.config, "--before", "2026-11-21", "--into", snap,
      days["2026-11-20"]!,
    ])
    #expect(next.code == .success, "\(next.stderr)")
    #expect(
      next.stderr.hasSuffix(
        "menudeck: note: ingested 1 log (263 swipes), counted 528 swipes that waited for their "
          + "day; \(snap) holds 5 logs, 1261 swipes, 48 diners\n"), "\(next.stderr)")
    let fresh = dir.run(
      ["ingest", "--config", Self.config, "--before", "2026-11-21", "--out", dir.file("f.snap")]
        + four + [days["2026-11-20"]!])
    #expect(fresh.code == .success)
    #expect(try CLITest.bytes(dir.file("h.snap")) == (try CLITest.bytes(dir.file("f.snap"))))
  }

  /// The cards_shown of the overall row of a stats CSV (`strategy,day,overall,metric,value`).
  static func cards(_ csv: String) -> Double? {
    for line in csv.split(separator: "\n") {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false)
      if fields.count == 5, fields[2] == "true", fields[3] == "cards_shown" {
        return Double(fields[4])
      }
    }
    return nil
  }

  /// A swipe stamped just after midnight in the day that ended: it waits for its day, the decks
  /// of that day leave it out and those of the next count it, as from the log.
  @Test func anAfterMidnightSwipeWaitsForItsDay() throws {
    let dir = try TempDir()
    let days = try Self.dayLogs(in: dir)
    let late =
      #"{"user":"u07","item":"oyakodon","swipe":"right","at":"2026-11-23T00:05:00+09:00","position":1,"deck":"2026-11-22"}"#
    let day = try String(contentsOfFile: days["2026-11-22"]!, encoding: .utf8)
    let log = try dir.write("2026-11-22.jsonl", day + late + "\n")
    let line = day.split(separator: "\n").count + 1
    let snap = dir.file("h.snap")
    let run = dir.run([
      "ingest", "--config", Self.config, "--before", "2026-11-23", "--into", snap, log,
    ])
    #expect(run.code == .success, "\(run.stderr)")
    #expect(
      run.stderr.hasPrefix(
        "menudeck: note: \(log):\(line): 1 swipe dated on or after 2026-11-23 waits in the "
          + "snapshot for its day: decks count it from the day after, and an ingest with a later "
          + "--before adds it up\n"), "\(run.stderr)")
    for date in ["2026-11-23", "2026-11-24"] {
      #expect(Self.decks([snap], date, in: dir).stdout == Self.decks([log], date, in: dir).stdout)
    }
    // The day after, a deck learns it: u07's deck differs from the one without it.
    let without = try dir.write("without.jsonl", day)
    #expect(
      Self.decks([snap], "2026-11-24", in: dir).stdout
        != Self.decks([without], "2026-11-24", in: dir).stdout)
  }

  /// The issue's "ingested 1 log (1 swipe); ... holds 1 log, 0 swipes", told as it is.
  @Test func oneSwipeOfTheLimitsOwnDay() throws {
    let dir = try TempDir()
    let log = try dir.write(
      "one.jsonl",
      #"{"user":"u01","item":"oyakodon","swipe":"left","at":"2026-11-17T12:00:00+09:00"}"# + "\n")
    let snap = dir.file("h.snap")
    let run = dir.run([
      "ingest", "--config", Self.config, "--before", "2026-11-17", "--into", snap, log,
    ])
    #expect(run.code == .success)
    #expect(
      run.stderr
        == "menudeck: note: \(log):1: 1 swipe dated on or after 2026-11-17 waits in the snapshot "
        + "for its day: decks count it from the day after, and an ingest with a later --before "
        + "adds it up\n"
        + "menudeck: note: ingested 1 log (1 swipe: 0 counted, 1 waiting for its day); \(snap) "
        + "holds 1 log, 1 swipe (0 counted, 1 waiting for its day), 1 diner\n")
  }

  /// Snapshots with waiting swipes merge in any order to the same bytes, from files or from one
  /// file that holds them one after the other; decks from the merge are those of the logs.
  @Test func mergeKeepsTheWaitingSwipesOfEverySnapshot() throws {
    let dir = try TempDir()
    let days = try Self.dayLogs(in: dir)
    let a = ["2026-11-16", "2026-11-17", "2026-11-18"].map { days[$0]! }
    let b = ["2026-11-19", "2026-11-20"].map { days[$0]! }
    for (logs, before, name) in [(a, "2026-11-17", "a.snap"), (b, "2026-11-20", "b.snap")] {
      let run = dir.run(
        ["ingest", "--config", Self.config, "--before", before, "--out", dir.file(name)] + logs)
      #expect(run.code == .success, "\(run.stderr)")
    }
    let ab = dir.run([
      "merge", dir.file("a.snap"), dir.file("b.snap"), "--out", dir.file("ab.snap"),
    ])
    let ba = dir.run([
      "merge", dir.file("b.snap"), dir.file("a.snap"), "--out", dir.file("ba.snap"),
    ])
    #expect(ab.code == .success, "\(ab.stderr)")
    #expect(ba.code == .success)
    #expect(try CLITest.bytes(dir.file("ab.snap")) == (try CLITest.bytes(dir.file("ba.snap"))))
    #expect(
      ab.stderr.contains("1261 swipes (506 counted, 755 waiting for their day), 48 diners"),
      "\(ab.stderr)")
    // One file that holds both (cat a.snap b.snap > c.snap) merges as the two files do.
    let both = try CLITest.bytes(dir.file("a.snap")) + CLITest.bytes(dir.file("b.snap"))
    try dir.write("c.snap", both)
    let c = dir.run(["merge", dir.file("c.snap"), "--out", dir.file("mc.snap")])
    #expect(c.code == .success, "\(c.stderr)")
    #expect(c.stderr.contains("merged 2 snapshots into"), "\(c.stderr)")
    #expect(try CLITest.bytes(dir.file("mc.snap")) == (try CLITest.bytes(dir.file("ab.snap"))))
    // (b.snap added up 11-19: the merge builds decks from 11-20 on.)
    for date in ["2026-11-20", "2026-11-21"] {
      #expect(
        Self.decks([dir.file("ab.snap")], date, in: dir).stdout
          == Self.decks(a + b, date, in: dir).stdout, "\(date)")
    }
    // Nothing else may follow the snapshots of a file, as a file of one.
    try dir.write("junk.snap", both + Array("\n".utf8))
    let junk = dir.run(["merge", dir.file("junk.snap"), "--out", dir.file("mj.snap")])
    #expect(junk.code == .dataError)
    #expect(
      junk.stderr.contains(
        "junk.snap: 1 byte after the end of the snapshot, from byte \(both.count) on"),
      "\(junk.stderr)")
    #expect(!dir.exists("mj.snap"))
    // The readers of one history still send such a file to merge (exit 65).
    let deck = Self.decks([dir.file("c.snap")], "2026-11-21", in: dir)
    #expect(deck.code == .dataError)
    #expect(
      deck.stderr.contains(
        "\(dir.file("c.snap")): holds 2 snapshots one after the other; give it to 'menudeck "
          + "merge' to add them up into one"), "\(deck.stderr)")
    let stats = dir.run(["stats", "--config", Self.config, dir.file("c.snap")])
    #expect(stats.code == .dataError)
    #expect(stats.stderr.contains("give it to 'menudeck merge'"))
    // An empty file is still no snapshot.
    try dir.write("empty.snap", "")
    let empty = dir.run(["merge", dir.file("empty.snap"), "--out", dir.file("e.snap")])
    #expect(empty.code == .dataError)
    #expect(empty.stderr.contains("the snapshot file is empty"), "\(empty.stderr)")
  }

  // MARK: - A day delivered again

  /// A log whose name the snapshot holds with other content (its line ends converted, the full
  /// log after a part of it, a corrected log) is refused with both logs told, and nothing is
  /// written; renamed, it is counted.
  @Test func anotherLogOfAHeldNameIsRefused() throws {
    let dir = try TempDir()
    let days = try Self.dayLogs(in: dir)
    let full = try String(contentsOfFile: days["2026-11-18"]!, encoding: .utf8)
    let lines = full.split(separator: "\n")
    try FileManager.default.createDirectory(
      atPath: dir.file("spool"), withIntermediateDirectories: true)
    let partial = try dir.write(
      "spool/2026-11-18.jsonl", lines[..<100].joined(separator: "\n") + "\n")
    let snap = dir.file("h.snap")
    #expect(
      dir.run(["ingest", "--config", Self.config, "--into", snap, partial]).code == .success)
    let bytes = try CLITest.bytes(dir.file("h.snap"))
    let corrected = full.replacingOccurrences(of: "\"u48\"", with: "\"u47\"")
    for (label, text) in [
      ("the full log", full),
      (
        "its line ends converted",
        full.replacingOccurrences(
          of: "\n", with: "\r\n")
      ),
      ("a corrected log", corrected),
    ] {
      try FileManager.default.createDirectory(
        atPath: dir.file("again"), withIntermediateDirectories: true)
      let log = try dir.write("again/2026-11-18.jsonl", text)
      let run = dir.run(["ingest", "--config", Self.config, "--into", snap, log])
      #expect(run.code == .dataError, "\(label): \(run.stderr)")
      #expect(
        run.stderr.hasPrefix(
          "menudeck: error: \(log): \(snap) already holds a log named '2026-11-18.jsonl' with "
            + "other content (read from \(partial), sha256 "), "\(label): \(run.stderr)")
      #expect(
        run.stderr.contains(", 100 lines, 98 swipes of 2026-11-18; this one sha256 "),
        "\(run.stderr)")
      #expect(
        run.stderr.hasSuffix(
          "would count its swipes twice, so nothing was written. If both logs are to be counted, "
            + "rename this one; to replace the day, rebuild the snapshot from the logs "
            + "(docs/cron.md, \"Replacing a day's log\")\n"), "\(run.stderr)")
      #expect(try CLITest.bytes(dir.file("h.snap")) == bytes, "\(label)")
    }
    let json = dir.run([
      "ingest", "--config", Self.config, "--into", snap, dir.file("again/2026-11-18.jsonl"),
      "--log-format", "json",
    ])
    #expect(json.stderr.contains("\"code\":\"log_name_taken\""), "\(json.stderr)")
    // Renamed, it is another log.
    let renamed = dir.file("again/2026-11-18-corrected.jsonl")
    try FileManager.default.moveItem(atPath: dir.file("again/2026-11-18.jsonl"), toPath: renamed)
    let counted = dir.run(["ingest", "--config", Self.config, "--into", snap, renamed])
    #expect(counted.code == .success, "\(counted.stderr)")
    #expect(counted.stderr.contains("holds 2 logs"), "\(counted.stderr)")
    // Standard input has no name to compare.
    let piped = dir.run(
      ["ingest", "--config", Self.config, "--into", snap, "-"], stdin: Array(lines[100].utf8) + [10]
    )
    #expect(piped.code == .success, "\(piped.stderr)")
  }

  // MARK: - Unknown dishes, skipped lines

  /// With a catalog (the config's or --catalog) ingest names the first unknown dish's line of
  /// each log; the snapshot keeps those swipes, and deck says where to look instead of telling
  /// to correct the snapshot.
  @Test func ingestLocatesUnknownDishes() throws {
    let dir = try TempDir()
    let good = #"{"user":"u01","item":"oyakodon","swipe":"right","at":"2026-11-20T12:00:00+09:00"}"#
    let bad =
      #"{"user":"u02","item":"nonexistent-dish","swipe":"left","at":"2026-11-20T12:01:00+09:00"}"#
    let log = try dir.write(
      "2026-11-20.jsonl", [good, good, bad, bad, good].joined(separator: "\n") + "\n")
    let snap = dir.file("h.snap")
    let run = dir.run(["ingest", "--config", Self.config, "--into", snap, log])
    #expect(run.code == .success, "\(run.stderr)")
    let catalog = CLITest.repoRoot + "/Data/catalog.json"
    #expect(
      run.stderr.hasPrefix(
        "menudeck: warning: \(log):3: 2 swipes naming dishes that are not in the catalog "
          + "\(catalog) (e.g. 'nonexistent-dish'), the first on this line; the snapshot keeps "
          + "them, and decks leave them out until the catalog has the dish: add the dishes to the "
          + "catalog, or correct the ids in the log and rebuild the snapshot from the logs\n"),
      "\(run.stderr)")
    #expect(try SnapshotFile.read(path: snap).events == 5)
    // --catalog instead of the config's: a catalog with the dish warns nothing.
    let withDish = try dir.write(
      "catalog.json",
      #"{"items":[{"id":"oyakodon","name":"Oyakodon","category":"don"},"#
        + #"{"id":"nonexistent-dish","name":"?","category":"don"}]}"#)
    let quiet = dir.run([
      "ingest", "--config", Self.config, "--catalog", withDish, "--out", dir.file("q.snap"), log,
    ])
    #expect(quiet.code == .success, "\(quiet.stderr)")
    #expect(!quiet.stderr.contains("warning"), "\(quiet.stderr)")
    // The deck's warning about the snapshot says where the lines are told.
    let deck = dir.run([
      "deck", "--config", Self.config, "--history", snap, "--date", "2026-11-21", "--format",
      "csv",
    ])
    #expect(deck.code == .success)
    #expect(
      deck.stderr.contains(
        "2 events naming dishes that are not in the catalog (e.g. 'nonexistent-dish') in \(snap); "
          + "they were left out (add the dishes to the catalog, or correct the ids in the logs the "
          + "snapshot was made from and make it again from them; 'menudeck ingest' names each "
          + "log's first such line when its config or --catalog names the catalog)"),
      "\(deck.stderr)")
    #expect(!deck.stderr.contains("correct the ids, or add"), "\(deck.stderr)")
  }

  @Test func ingestNamesTheFirstSkippedLine() throws {
    let dir = try TempDir()
    let good = #"{"user":"u01","item":"oyakodon","swipe":"right","at":"2026-11-20T12:00:00+09:00"}"#
    let bad = #"{"user":"u01","item":"oyakodon","swipe":"up","at":"2026-11-20T12:00:00+09:00"}"#
    let log = try dir.write("l.jsonl", [good, bad, good, bad].joined(separator: "\n") + "\n")
    let run = dir.run([
      "ingest", "--config", Self.config, "--out", dir.file("h.snap"), "--skip-bad-lines", log,
    ])
    #expect(run.code == .success)
    #expect(
      run.stderr.hasPrefix(
        "menudeck: warning: \(log):2: skipped 2 malformed event lines, the first on this line\n"),
      "\(run.stderr)")
  }

  // MARK: - Where the snapshot's path came from

  /// The config's snapshot in a directory that does not exist: exit 74 naming the config's
  /// "history" (no --into was given), and a dry run says the real run would fail.
  @Test func aMissingDirectoryOfTheConfigsSnapshotNamesTheConfig() throws {
    let dir = try TempDir()
    let config = try CLINightlyTests.config(in: dir, history: ["var/history.snap"])
    for dry in [false, true] {
      let run = dir.run(
        ["ingest", "--config", config, Self.log] + (dry ? ["--dry-run"] : []))
      #expect(run.code == .ioError, "\(run.stderr)")
      #expect(
        run.stderr
          == "menudeck: error: " + (dry ? "the real run would fail: " : "")
          + "\(dir.file("var/history.snap")) (the snapshot that the \"history\" of \(config) "
          + "names): no directory '\(dir.file("var"))'; create it or choose another --into\n")
    }
    #expect(try dir.names() == ["menudeck.json"])
  }

  // MARK: - Snapshots of format 1

  /// A snapshot written before pending swipes (format 1, checked in) still reads: the same
  /// decks as its log, and an ingest into it writes format 2 with its old log kept.
  @Test func aFormatOneSnapshotStillReads() throws {
    let dir = try TempDir()
    let fixtures = CLITest.repoRoot + "/Tests/Fixtures/snapshots"
    let old = try dir.write(
      "old.snap", try CLITest.repoFile("Tests/Fixtures/snapshots/format-1.snap"))
    #expect(Array(try Data(contentsOf: dir.url("old.snap")))[9] == 1)
    let log = fixtures + "/format-1.jsonl"
    for date in ["2026-11-17", "2026-11-20"] {
      let fromOld = Self.decks([old], date, in: dir)
      #expect(fromOld.code == .success, "\(fromOld.stderr)")
      #expect(fromOld.stdout == Self.decks([log], date, in: dir).stdout)
    }
    // Its aggregates are those this menudeck makes of the log; only the log's days are unknown.
    let decoded = try SnapshotFile.read(path: old)
    #expect(
      dir.run([
        "ingest", "--config", Self.config, "--before", "2026-11-17", "--out", dir.file("new.snap"),
        log,
      ]).code == .success)
    var new = try SnapshotFile.read(path: dir.file("new.snap"))
    #expect(new.sources.map(\.firstDay) == [DeckDate.parse("2026-11-16")?.daysSinceEpoch])
    new.sources = decoded.sources
    #expect(new == decoded)
    #expect(decoded.sources.map(\.path) == ["format-1.jsonl"])
    #expect(decoded.sources.map(\.firstDay) == [nil])
    // Added to, it is written in format 2.
    let more = try dir.write(
      "more.jsonl",
      #"{"user":"u01","item":"oyakodon","swipe":"right","at":"2026-11-20T12:00:00+09:00"}"# + "\n")
    let ingest = dir.run(["ingest", "--config", Self.config, "--into", old, more])
    #expect(ingest.code == .success, "\(ingest.stderr)")
    #expect(Array(try Data(contentsOf: dir.url("old.snap")))[9] == 2)
    #expect(try SnapshotFile.read(path: old).sources.count == 2)
  }

  // MARK: - deck --out {date}

  /// `{date}` in --out is the resolved deck date: the file a cron job writes for `--date today`
  /// is named by that day; an expanded path onto an input is refused, and a lock on it waits.
  @Test func deckOutNamesTheFileByTheDate() throws {
    let dir = try TempDir()
    let run = dir.run([
      "deck", "--config", Self.config, "--date", "2026-11-30", "--out", dir.file("d-{date}.json"),
    ])
    #expect(run.code == .success, "\(run.stderr)")
    #expect(try dir.names() == ["d-2026-11-30.json"])
    #expect(run.stderr.contains("written to \(dir.file("d-2026-11-30.json"))"), "\(run.stderr)")
    let tokyo = try #require(TimeZones.zone(named: "Asia/Tokyo"))
    let before = TimeZones.today(in: tokyo)
    let tomorrow = dir.run([
      "deck", "--config", Self.config, "--date", "tomorrow", "--out", dir.file("d-{date}.json"),
      "--quiet",
    ])
    let after = TimeZones.today(in: tokyo)
    #expect(tomorrow.code == .success, "\(tomorrow.stderr)")
    let names = try dir.names()
    #expect(
      names.contains("d-\(before.adding(days: 1)).json")
        || names.contains("d-\(after.adding(days: 1)).json"), "\(names)")
    // The expanded path is the output that is checked: onto an input it is refused.
    let log = try dir.write(
      "h-2026-11-30.jsonl", try String(contentsOfFile: Self.log, encoding: .utf8))
    let onto = dir.run([
      "deck", "--config", Self.config, "--date", "2026-11-30", "--history", log, "--out",
      dir.file("h-{date}.jsonl"),
    ])
    #expect(onto.code == .usage, "\(onto.stderr)")
    #expect(onto.stderr.contains("an output never replaces an input"), "\(onto.stderr)")
    #expect(
      try dir.read("h-2026-11-30.jsonl") == (try String(contentsOfFile: Self.log, encoding: .utf8)))
    // ... and its lock is the expanded file's.
    let holder = try FileLock(target: dir.file("d-2026-11-30.json"), wait: 0, holder: "pid 1: test")
    defer { holder.release() }
    let busy = dir.run([
      "deck", "--config", Self.config, "--date", "2026-11-30", "--out", dir.file("d-{date}.json"),
    ])
    #expect(busy.code == .busy, "\(busy.stderr)")
    #expect(busy.stderr.contains(dir.file("d-2026-11-30.json")), "\(busy.stderr)")
  }
}
