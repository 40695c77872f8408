import DeckCore
import DeckIO
import Foundation
import Testing

@testable import MenuDeckCLI

/// `menudeck ingest` and `merge`, and `deck --history` reading snapshots.
@Suite struct CLISnapshotTests {
  static let log = CLITest.repoRoot + "/Data/swipes.jsonl"

  /// The bundled log cut into three shards.
  static func shards(in dir: TempDir) throws -> [String] {
    let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
    let cuts = [0, 900, 2_100, lines.count]
    return try (0..<3).map { k in
      try dir.write("part\(k).jsonl", lines[cuts[k]..<cuts[k + 1]].joined(separator: "\n") + "\n")
    }
  }

  func deck(_ history: [String], in dir: TempDir) -> CLIRun {
    var args = [
      "deck", "--config", CLITest.repoRoot + "/Config/menudeck.json", "--date", "2026-11-30",
    ]
    args += ["--format", "jsonl", "--quiet"]
    for h in history { args += ["--history", h] }
    return dir.run(args)
  }

  /// The bundled log repeated (with its diners renamed per copy) past the size at which a log is
  /// read in parts, with a bad line every so often.
  static func bigLog(csv: Bool, in dir: TempDir) throws -> String {
    let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
    var out = csv ? "user,item,swipe,at,position,deck,note\n" : ""
    var copy = 0
    while out.utf8.count < 2 * EventReader.minimumPartBytes + 100_000 {
      for (k, line) in lines.enumerated() {
        let renamed = line.replacingOccurrences(of: "\"user\":\"u", with: "\"user\":\"c\(copy)u")
        if k == 700 && copy % 3 == 1 {
          out += csv ? "c\(copy),oops,sideways,2026-11-01,1,,\n" : "{\"user\":\"broken\n"
          continue
        }
        guard csv else {
          out += renamed + "\n"
          continue
        }
        // The same event as CSV, with a quoted note that has a comma and a line break.
        let object = try JSONSerialization.jsonObject(with: Data(renamed.utf8)) as! [String: Any]
        let fields = ["user", "item", "swipe", "at", "position", "deck"].map { key in
          object[key].map { "\($0)" } ?? ""
        }
        out += fields.joined(separator: ",") + (k % 5 == 0 ? ",\"a, b\nc\"\n" : ",\n")
      }
      copy += 1
    }
    return try dir.write(csv ? "big.csv" : "big.jsonl", out)
  }

  @Test(
    "ingest reads a big log in parts into the snapshot it reads on one thread",
    arguments: [false, true])
  func ingestInParts(csv: Bool) throws {
    let dir = try TempDir()
    let big = try Self.bigLog(csv: csv, in: dir)
    var snapshots: [[UInt8]] = []
    var rejects: [String] = []
    var notes: [String] = []
    for jobs in ["1", "3"] {
      let run = dir.run([
        "ingest", "--config", CLITest.repoRoot + "/Config/menudeck.json", big, "--into",
        dir.file("h\(jobs).snap"), "--jobs", jobs, "--skip-bad-lines", "--rejects",
        dir.file("r\(jobs).jsonl"),
      ])
      #expect(run.code == .success, "\(run.stderr)")
      snapshots.append(Array(try Data(contentsOf: URL(fileURLWithPath: dir.file("h\(jobs).snap")))))
      rejects.append(try dir.read("r\(jobs).jsonl"))
      notes.append(run.stderr.replacingOccurrences(of: "h\(jobs).snap", with: "h.snap"))
    }
    #expect(snapshots[1] == snapshots[0])

    #expect(rejects[1] == rejects[0])
    #expect(!rejects[0].isEmpty)
    #expect(notes[1] == notes[0])
    // Again: the log is in the snapshot already, found by its hash computed beside the parts;
    // its bad lines are neither an error nor rejects now.
    let again = dir.run([
      "ingest", "--config", CLITest.repoRoot + "/Config/menudeck.json", big, "--into",
      dir.file("h1.snap"), "--jobs", "3", "--rejects", dir.file("again.jsonl"), "--skip-bad-lines",
    ])
    #expect(again.code == .success, "\(again.stderr)")
    #expect(again.stderr.contains("is already in"), "\(again.stderr)")
    #expect(try dir.read("again.jsonl") == "")
    let strict = dir.run([
      "ingest", "--config", CLITest.repoRoot + "/Config/menudeck.json", big, "--into",
      dir.file("h1.snap"), "--jobs", "3",
    ])
    #expect(strict.code == .success, "\(strict.stderr)")
    #expect(
      Array(try Data(contentsOf: URL(fileURLWithPath: dir.file("h1.snap")))) == snapshots[0])
    // Without --skip-bad-lines: the same first error for every number of threads.
    let errors = ["1", "3"].map { jobs in
      dir.run([
        "ingest", "--config", CLITest.repoRoot + "/Config/menudeck.json", big, "--into",
        dir.file("e\(jobs).snap"), "--jobs", jobs,
      ])
    }
    #expect(errors[0].code == .dataError)
    #expect(errors[1].code == errors[0].code)
    #expect(errors[1].stderr == errors[0].stderr)
  }

  @Test(
    "stats reads a big log in parts: the same bytes and notes for every number of threads",
    arguments: [false, true])
  func statsInParts(csv: Bool) throws {
    let dir = try TempDir()
    let big = try Self.bigLog(csv: csv, in: dir)
    var outputs: [CLIRun] = []
    for jobs in ["1", "2", "3", "7"] {
      outputs.append(
        dir.run([
          "stats", "--config", CLITest.repoRoot + "/Config/menudeck.json", big, "--jobs", jobs,
          "--skip-bad-lines", "--format", "csv",
        ]))
    }
    #expect(outputs[0].code == .success, "\(outputs[0].stderr)")
    #expect(outputs[0].stdoutLines.count > 10)
    #expect(outputs[0].stderr.contains("skipped"), "\(outputs[0].stderr)")
    for run in outputs.dropFirst() {
      #expect(run.code == .success)
      #expect(run.stdoutBytes == outputs[0].stdoutBytes)
      #expect(run.stderr == outputs[0].stderr)
    }
  }

  @Test(
    "deck reads a big log on several threads, by diner: the same decks, rejects and notes",
    arguments: [false, true])
  func deckHistoryByDiner(csv: Bool) throws {
    let dir = try TempDir()
    let big = try Self.bigLog(csv: csv, in: dir)
    var runs: [(CLIRun, String)] = []
    for jobs in ["1", "2", "3", "7"] {
      let run = dir.run([
        "deck", "--config", CLITest.repoRoot + "/Config/menudeck.json", "--date", "2026-12-01",
        "--format", "jsonl", "--history", big, "--history", Self.log, "--jobs", jobs,
        "--skip-bad-lines", "--rejects", dir.file("r\(jobs).jsonl"),
      ])
      runs.append((run, try dir.read("r\(jobs).jsonl")))
    }
    let (first, rejects) = runs[0]
    #expect(first.code == .success, "\(first.stderr)")
    #expect(first.stdoutLines.count > 1_000)
    #expect(!rejects.isEmpty)
    for (run, r) in runs.dropFirst() {
      #expect(run.code == .success)
      #expect(run.stdoutBytes == first.stdoutBytes)
      #expect(r == rejects)
      #expect(run.stderr == first.stderr)
    }
  }

  @Test func decksFromASnapshotEqualDecksFromTheLogs() throws {
    let dir = try TempDir()
    let fromLog = deck([Self.log], in: dir)
    #expect(fromLog.code == .success)
    let ingest = dir.run([
      "ingest", "--config", CLITest.repoRoot + "/Config/menudeck.json", Self.log, "--into",
      dir.file("h.snap"),
    ])
    #expect(ingest.code == .success)
    let fromSnapshot = deck([dir.file("h.snap")], in: dir)
    #expect(fromSnapshot.code == .success)
    #expect(fromSnapshot.stdoutBytes == fromLog.stdoutBytes)
    // A snapshot of some shards plus the other shards as raw logs: the same decks.
    let parts = try Self.shards(in: dir)
    #expect(
      dir.run([
        "ingest", "--config", CLITest.repoRoot + "/Config/menudeck.json", parts[0], parts[1],
        "--into", dir.file("p.snap"),
      ]).code == .success)
    #expect(deck([dir.file("p.snap"), parts[2]], in: dir).stdoutBytes == fromLog.stdoutBytes)
  }

  @Test func ingestingTheSameLogTwiceCountsItOnce() throws {
    let dir = try TempDir()
    let config = CLITest.repoRoot + "/Config/menudeck.json"
    #expect(
      dir.run(["ingest", "--config", config, Self.log, "--into", dir.file("h.snap")]).code
        == .success)
    let once = try Data(contentsOf: dir.url("h.snap"))
    let again = dir.run(["ingest", "--config", config, Self.log, "--into", dir.file("h.snap")])
    #expect(again.code == .success)
    #expect(again.stderr.contains("is already in"))
    #expect(try Data(contentsOf: dir.url("h.snap")) == once)
    // The same content under another name is the same log.
    let copy = try dir.write("copy.jsonl", try String(contentsOfFile: Self.log, encoding: .utf8))
    #expect(
      dir.run(["ingest", "--config", config, copy, "--into", dir.file("h.snap")]).code == .success)
    #expect(try Data(contentsOf: dir.url("h.snap")) == once)
  }

  @Test func mergeIsAssociativeAndCommutativeAndEqualsOneIngest() throws {
    let dir = try TempDir()
    let config = CLITest.repoRoot + "/Config/menudeck.json"
    let parts = try Self.shards(in: dir)
    for (k, part) in parts.enumerated() {
      #expect(
        dir.run(["ingest", "--config", config, part, "--into", dir.file("s\(k).snap")]).code
          == .success)
    }
    func merge(_ inputs: [String], _ out: String) {
      #expect(
        dir.run(["merge"] + inputs.map(dir.file) + ["--out", dir.file(out)]).code == .success)
    }
    merge(["s0.snap", "s1.snap", "s2.snap"], "abc.snap")
    merge(["s2.snap", "s0.snap", "s1.snap"], "cab.snap")
    merge(["s0.snap", "s1.snap"], "ab.snap")
    merge(["ab.snap", "s2.snap"], "ab_c.snap")
    merge(["s1.snap", "s2.snap"], "bc.snap")
    merge(["s0.snap", "bc.snap"], "a_bc.snap")
    let abc = try Data(contentsOf: dir.url("abc.snap"))
    for other in ["cab.snap", "ab_c.snap", "a_bc.snap"] {
      #expect(try Data(contentsOf: dir.url(other)) == abc, "\(other) differs")
    }
    // One ingest of all shards gives the same snapshot.
    #expect(
      dir.run(["ingest", "--config", config] + parts + ["--into", dir.file("all.snap")]).code
        == .success)
    #expect(try Data(contentsOf: dir.url("all.snap")) == abc)
    // And the same decks as the raw log.
    #expect(
      deck([dir.file("abc.snap")], in: dir).stdoutBytes == deck([Self.log], in: dir).stdoutBytes)
    // A log in two inputs would be counted twice.
    let twice = dir.run([
      "merge", dir.file("abc.snap"), dir.file("s1.snap"), "--out", dir.file("x.snap"),
    ])
    #expect(twice.code == .dataError)
    #expect(twice.stderr.contains("would count its swipes twice"))
    #expect(!dir.exists("x.snap"))
  }

  @Test func badSnapshotsAreRefusedWithTheirOwnMessages() throws {
    let dir = try TempDir()
    let config = CLITest.repoRoot + "/Config/menudeck.json"
    #expect(
      dir.run(["ingest", "--config", config, Self.log, "--into", dir.file("h.snap")]).code
        == .success)
    let good = Array(try Data(contentsOf: dir.url("h.snap")))
    try dir.write("cut.snap", Array(good.dropLast(100)))
    var newer = good
    newer[9] = 7
    try dir.write("newer.snap", newer)
    var flipped = good
    flipped[good.count / 2] ^= 0x55
    try dir.write("bad.snap", flipped)
    for (name, text) in [
      ("cut.snap", "truncated"), ("newer.snap", "version 7 is newer"), ("bad.snap", "checksum"),
    ] {
      let r = deck([dir.file(name)], in: dir)
      #expect(r.code == .dataError, "\(name)")
      #expect(r.stderr.contains(text), "\(name): \(r.stderr)")
      let m = dir.run(["merge", dir.file(name), "--out", dir.file("m.snap")])
      #expect(m.code == .dataError)
      #expect(!dir.exists("m.snap"))
    }
    let missing = dir.run(["merge", dir.file("nope.snap"), "--out", dir.file("m.snap")])
    #expect(missing.code == .noInput)
    let tooRecent = dir.run([
      "deck", "--config", config, "--date", "2026-11-29", "--history", dir.file("h.snap"),
    ])
    #expect(tooRecent.code == .dataError)
    #expect(
      tooRecent.stderr.contains(
        "it has added up swipes of the days up to 2026-11-29, so it cannot"),
      "\(tooRecent.stderr)")
  }

  @Test func usageErrors() throws {
    let dir = try TempDir()
    #expect(dir.run(["ingest", Self.log]).code == .usage)
    #expect(dir.run(["ingest", "--into", dir.file("h.snap")]).code == .usage)
    #expect(dir.run(["merge", "--out", dir.file("m.snap")]).code == .usage)
    #expect(dir.run(["merge", dir.file("a.snap")]).code == .usage)
  }
}

/// Kills `menudeck ingest --into` at many moments: the snapshot is always the old one or the
/// complete new one, never a partial file.
@Suite(
  .enabled(if: MenudeckBinary.path != nil, "menudeck binary not found; run swift build first"))
struct IngestKillTests {
  @Test func aKilledIngestLeavesThePreviousSnapshotIntact() throws {
    let dir = try TempDir("menudeck-kill")
    let config = CLITest.repoRoot + "/Config/menudeck.json"
    // The previous snapshot.
    #expect(
      dir.run(["ingest", "--config", config, CLISnapshotTests.log, "--into", dir.file("h.snap")])
        .code == .success)
    let before = try Data(contentsOf: dir.url("h.snap"))
    // A large new log, so that the process is still working when it is killed.
    var text = ""
    text.reserveCapacity(30_000_000)
    var random = RandomStream(seed: 9)
    for n in 0..<250_000 {
      let day = 10 + n % 19
      text +=
        "{\"user\":\"k\(random.nextInt(below: 5_000))\",\"item\":\"i\(random.nextInt(below: 400))\",\"swipe\":\"\(random.nextInt(below: 5) == 0 ? "right" : "left")\",\"at\":\"2026-10-\(day)T12:00:00+09:00\"}\n"
    }
    let big = try dir.write("big.jsonl", text)
    var sawOld = 0
    var sawNew = 0
    var newBytes: Data?
    for delay in [0.05, 0.15, 0.3, 0.5, 0.8, 1.2, 1.8, 2.5, 3.5] {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: try #require(MenudeckBinary.path))
      process.arguments = ["ingest", "--config", config, big, "--into", dir.file("h.snap")]
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      Thread.sleep(forTimeInterval: delay)
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      let now = try Data(contentsOf: dir.url("h.snap"))
      // Whatever happened, the file decodes completely.
      let snapshot = try SnapshotFile.decode(Array(now), file: "h.snap")
      if now == before {
        sawOld += 1
      } else {
        #expect(snapshot.sources.count == 2, "a changed snapshot must hold both logs")
        if let newBytes { #expect(now == newBytes) }
        newBytes = now
        sawNew += 1
        // Start over from the old snapshot for the next kill.
        try before.write(to: dir.url("h.snap"))
      }
    }
    #expect(sawOld + sawNew == 9)
    #expect(sawOld > 0, "no kill landed before the ingest finished; the log is too small")
  }
}

/// Ways a snapshot could silently disagree with the logs, each refused.
@Suite struct CLISnapshotSafetyTests {
  static let config = CLITest.repoRoot + "/Config/menudeck.json"

  @Test func aLogAlreadyInTheSnapshotIsRefused() throws {
    let dir = try TempDir()
    #expect(
      dir.run([
        "ingest", "--config", Self.config, CLISnapshotTests.log, "--into", dir.file("h.snap"),
      ])
      .code == .success)
    let both = dir.run([
      "deck", "--config", Self.config, "--date", "2026-11-30", "--history", dir.file("h.snap"),
      "--history", CLISnapshotTests.log,
    ])
    #expect(both.code == .dataError)
    #expect(both.stderr.contains("would count its swipes twice"))
  }

  @Test func anotherTimeZoneIsRefused() throws {
    let dir = try TempDir()
    let utc = try dir.write(
      "utc.json",
      try String(contentsOfFile: Self.config, encoding: .utf8)
        .replacingOccurrences(of: "\"Asia/Tokyo\"", with: "\"UTC\"")
        .replacingOccurrences(of: "\"../Data/", with: "\"\(CLITest.repoRoot)/Data/"))
    #expect(
      dir.run(["ingest", "--config", utc, CLISnapshotTests.log, "--into", dir.file("u.snap")]).code
        == .success)
    let deck = dir.run([
      "deck", "--config", Self.config, "--date", "2026-11-30", "--history", dir.file("u.snap"),
    ])
    #expect(deck.code == .dataError)
    #expect(deck.stderr.contains("ingested in time zone 'UTC'"))
    // Adding a log read in Tokyo to a snapshot read in UTC is refused too.
    let mixed = dir.run([
      "ingest", "--config", Self.config,
      try dir.write(
        "one.jsonl",
        "{\"user\":\"u1\",\"item\":\"oden\",\"swipe\":\"left\",\"at\":\"2026-11-20\"}\n"),
      "--into", dir.file("u.snap"),
    ])
    #expect(mixed.code == .dataError)
  }

  /// A swipe from the future is not added up (the snapshot still builds decks for the days
  /// before it) but kept, waiting for its day: nothing is lost.
  @Test func swipesFromTheFutureWaitForTheirDay() throws {
    let dir = try TempDir()
    let log = try dir.write(
      "f.jsonl",
      "{\"user\":\"u1\",\"item\":\"oden\",\"swipe\":\"left\",\"at\":\"2026-11-20\"}\n"
        + "{\"user\":\"u1\",\"item\":\"oden\",\"swipe\":\"left\",\"at\":\"2036-01-01\"}\n")
    let r = dir.run([
      "ingest", "--config", Self.config, log, "--into", dir.file("h.snap"), "--before",
      "2026-11-29",
    ])
    #expect(r.code == .success)
    #expect(
      r.stderr.contains(
        "menudeck: note: \(log):2: 1 swipe dated on or after 2026-11-29 waits in the snapshot for "
          + "its day"), "\(r.stderr)")
    #expect(
      r.stderr.contains(
        "ingested 1 log (2 swipes: 1 counted, 1 waiting for its day); \(dir.file("h.snap")) holds "
          + "1 log, 2 swipes (1 counted, 1 waiting for its day), 1 diner"), "\(r.stderr)")
    #expect(try SnapshotFile.read(path: dir.file("h.snap")).pending.count == 1)
    #expect(
      dir.run([
        "deck", "--config", Self.config, "--date", "2026-11-30", "--history", dir.file("h.snap"),
      ]).code == .success)
  }
}
