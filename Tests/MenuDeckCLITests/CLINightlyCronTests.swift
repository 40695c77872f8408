import DeckCore
import DeckIO
import DeckJobs
import Foundation
import Testing

@testable import MenuDeckCLI

/// The nightly recipe (README.md, docs/cron.md), run as cron runs it: the shipped
/// crontab's job line and PATH, the shipped script and config (Config/cron/), copied with
/// Config/ and Data/ to a folder of their own, the real binary, a bare environment and the home
/// directory as the current directory. Night after night the sample's log, split by day, is
/// put in the spool; the snapshot must grow by exactly that day's swipes, and the decks must be
/// those built from the whole log directly.
@Suite(
  .enabled(
    if: MenudeckBinary.path != nil,
    "menudeck binary not found next to the test bundle or in .build/debug; run swift build first"))
struct CLINightlyCronTests {
  /// Config/ and Data/ copied to a new folder (the README's /srv/menudeck), the binary on a
  /// PATH directory of its own (its /usr/local/bin), and a home directory to run from.
  final class Deployment: @unchecked Sendable {
    let dir: TempDir
    var root: String { dir.path }
    var home: String { dir.file("home") }
    var bin: String { dir.file("bin") }
    /// The crontab's PATH and job command, with /srv/menudeck and /usr/local/bin mapped here.
    let path: String
    let command: String

    init() throws {
      dir = try TempDir("menudeck-cron")
      let files = FileManager.default
      for folder in ["Config", "Data"] {
        try files.copyItem(atPath: CLITest.repoRoot + "/" + folder, toPath: dir.file(folder))
      }
      try files.createDirectory(atPath: dir.file("home"), withIntermediateDirectories: true)
      try files.createDirectory(atPath: dir.file("bin"), withIntermediateDirectories: true)
      try files.createSymbolicLink(
        atPath: dir.file("bin/menudeck"), withDestinationPath: try #require(MenudeckBinary.path))
      let crontab = try String(
        contentsOfFile: CLITest.repoRoot + "/Config/cron/crontab", encoding: .utf8)
      let job = try CLINightlyCronTests.cronJob(crontab)
      path = job.path.replacingOccurrences(of: "/usr/local/bin", with: dir.file("bin"))
      command = job.command.replacingOccurrences(of: "/srv/menudeck", with: dir.path)
    }

    /// The crontab's job, as cron runs it (`/bin/sh -c`, cron's few variables, from the home
    /// directory), with `extra` appended to its command line; `path` instead of the crontab's
    /// PATH when given.
    func runJob(_ extra: String = "", path: String? = nil) throws -> MenudeckBinary.Result {
      try CLINightlyCronTests.shell(
        command + extra, directory: home,
        environment: [
          "PATH": path ?? self.path, "HOME": home, "SHELL": "/bin/sh", "LOGNAME": "menudeck",
        ])
    }

    /// Puts a day's log in the spool, as the app's log shipper does.
    func deliver(_ day: Day, as name: String? = nil, text: String? = nil) throws {
      try FileManager.default.createDirectory(
        atPath: dir.file("spool"), withIntermediateDirectories: true)
      try dir.write(
        "spool/\(name ?? "\(day.date).jsonl")", text ?? day.lines.joined(separator: "\n") + "\n")
    }

    /// The decks file the job wrote for `date`.
    func decks(_ date: DeckDate) throws -> String { try dir.read("decks/\(date).json") }

    /// The snapshot the config's history names, read back.
    func snapshot() throws -> HistorySnapshot {
      try SnapshotFile.read(path: dir.file("var/history.snap"))
    }

    func names(_ folder: String) throws -> [String] {
      try FileManager.default.contentsOfDirectory(atPath: dir.file(folder)).sorted()
    }
  }

  /// The PATH and the one job line of a crontab (the command: what follows the five time
  /// fields).
  static func cronJob(_ crontab: String) throws -> (path: String, command: String) {
    var path: String?
    var commands: [String] = []
    for line in crontab.split(separator: "\n") {
      let text = line.trimmingCharacters(in: .whitespaces)
      if text.isEmpty || text.hasPrefix("#") { continue }
      if text.hasPrefix("PATH=") {
        path = String(text.dropFirst(5))
        continue
      }
      let fields = text.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
      try #require(fields.count == 6, "not a crontab job line: \(text)")
      commands.append(String(fields[5]))
    }
    try #require(commands.count == 1, "the crontab should have one job: \(commands)")
    return (
      try #require(path, "the crontab sets no PATH (cron's own lacks /usr/local/bin)"), commands[0]
    )
  }

  /// `/bin/sh -c command` in `directory` with exactly `environment`.
  static func shell(_ command: String, directory: String, environment: [String: String]) throws
    -> MenudeckBinary.Result
  {
    let dir = try TempDir("menudeck-cron-run")
    _ = FileManager.default.createFile(atPath: dir.file("stdout"), contents: nil)
    _ = FileManager.default.createFile(atPath: dir.file("stderr"), contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    process.environment = environment
    let out = try FileHandle(forWritingTo: dir.url("stdout"))
    let err = try FileHandle(forWritingTo: dir.url("stderr"))
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    try out.close()
    try err.close()
    return MenudeckBinary.Result(
      status: process.terminationStatus, stdout: try dir.read("stdout"),
      stderr: try dir.read("stderr"))
  }

  /// `count` calls of `body` on threads of their own, started together; their results in order.
  static func together(_ count: Int, _ body: @escaping @Sendable () throws -> MenudeckBinary.Result)
    throws -> [MenudeckBinary.Result]
  {
    final class Results: @unchecked Sendable {
      let lock = NSLock()
      var values: [Int: Result<MenudeckBinary.Result, any Error>] = [:]
    }
    let results = Results()
    DispatchQueue.concurrentPerform(iterations: count) { k in
      let value = Result { try body() }
      results.lock.withLock { results.values[k] = value }
    }
    return try (0..<count).map { try results.values[$0]!.get() }
  }

  /// One day of the sample's log: its lines and how many of them are swipes.
  struct Day {
    var date: DeckDate
    var lines: [String] = []
    var swipes = 0
  }

  /// The sample's log moved by whole days so that its last day is `last`, split by its local
  /// (Tokyo) day. Swipes are counted here from the log's own fields: a `swipe`, or a drag past
  /// 0.45 of the card's width (the config's relative rule); the rest are hesitations.
  static func sampleDays(endingOn last: DeckDate) throws -> [Day] {
    let text = try String(contentsOfFile: CLITest.repoRoot + "/Data/swipes.jsonl", encoding: .utf8)
    let lines = text.split(separator: "\n").map(String.init)
    func date(after key: String, in line: String) -> (Range<String.Index>, DeckDate)? {
      guard let start = line.range(of: "\"\(key)\":\"") else { return nil }
      let end = line.index(start.upperBound, offsetBy: 10)
      guard let day = DeckDate.parse(line[start.upperBound..<end]) else { return nil }
      return (start.upperBound..<end, day)
    }
    let stamped = lines.compactMap { date(after: "at", in: $0)?.1 }
    let sampleLast = try #require(stamped.max())
    let shift = last.days(since: sampleLast)
    var days: [DeckDate: Day] = [:]
    for var line in lines {
      for key in ["deck", "at"] {
        if let (range, day) = date(after: key, in: line) {
          line.replaceSubrange(range, with: day.adding(days: shift).description)
        }
      }
      let day = try #require(date(after: "at", in: line)).1
      let object = try #require(
        JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      let isSwipe: Bool
      if object["swipe"] != nil {
        isSwipe = true
      } else {
        let dx = try #require(object["dx"] as? Double)
        let width = try #require(object["width"] as? Double)
        isSwipe = abs(dx) / width > 0.45
      }
      days[day, default: Day(date: day)].lines.append(line)
      if isSwipe { days[day]!.swipes += 1 }
    }
    return days.values.sorted { $0.date < $1.date }
  }

  /// The decks of a deck JSON document: every line after the run header (which names the
  /// inputs and the command line, and so differs between a snapshot and the log).
  static func decks(_ document: String) -> String {
    String(document.drop { $0 != "\n" })
  }

  /// The decks for `date` built directly from the whole log, with the same config.
  static func directDecks(_ deployment: Deployment, log: String, date: String) throws -> String {
    let result = try shell(
      "menudeck deck --config Config/cron/menudeck.json --history \(log) --date \(date)",
      directory: deployment.root,
      environment: ["PATH": deployment.path])
    #expect(result.status == 0, "\(result.stderr)")
    return decks(result.stdout)
  }

  @Test func theNightlyRecipeRunsAsWrittenNightAfterNight() throws {
    let deployment = try Deployment()
    // The log ends yesterday in Tokyo, so that the last night runs the job line exactly as
    // written, for today.
    let tokyo = try #require(TimeZones.zone(named: "Asia/Tokyo"))
    let today = TimeZones.today(in: tokyo)
    let days = try Self.sampleDays(endingOn: today.adding(days: -1))
    try #require(days.count == 14)
    let whole = days.flatMap(\.lines).joined(separator: "\n") + "\n"
    let log = try deployment.dir.write("whole.jsonl", whole)
    func deliver(_ day: Day) throws { try deployment.deliver(day) }

    // Night 1 catches up on the first ten days; nights 2 to 5 get one day each; the last night
    // is today's, with the job line as written (no date given).
    var nights: [(logs: ArraySlice<Day>, date: String?)] = [
      (days[0..<10], days[10].date.description)
    ]
    for k in 10..<13 { nights.append((days[k...k], days[k + 1].date.description)) }
    nights.append((days[13...13], nil))
    var expectedSwipes = 0
    var expectedLogs = 0
    var lastDate = today.description
    for (n, night) in nights.enumerated() {
      for day in night.logs { try deliver(day) }
      let extra = night.date.map { " " + $0 } ?? ""
      // On night 2 a retry by hand starts while cron's job runs: both succeed, and the day is
      // ingested once.
      let runs =
        n == 1
        ? try Self.together(2) { try deployment.runJob(extra) } : [try deployment.runJob(extra)]
      for run in runs { #expect(run.status == 0, "night \(n + 1): \(run.stderr)") }
      if runs.count == 2 {
        #expect(
          runs.filter { $0.stderr.contains("ingested 1 log") }.count == 1,
          "\(runs.map(\.stderr))")
      }
      let result = runs[0]
      expectedSwipes += night.logs.reduce(0) { $0 + $1.swipes }
      expectedLogs += night.logs.count
      let snapshot = try deployment.snapshot()
      #expect(Int(snapshot.events) == expectedSwipes, "night \(n + 1): lost or doubled swipes")
      #expect(snapshot.sources.count == expectedLogs)
      #expect(try deployment.names("spool") == [])
      #expect(try deployment.names("logs").count == expectedLogs)
      for unexpected in ["history ends", "holds no swipes", "wait in the snapshot", "error"] {
        #expect(!result.stderr.contains(unexpected), "night \(n + 1): \(result.stderr)")
      }

      // The date the job chose (today in Tokyo; a run across Tokyo's midnight gives the next),
      // which names the decks file.
      let date = try #require(
        result.stderr.split(separator: "\n").compactMap { line -> String? in
          guard
            line.contains(" decks "),
            let at = line.range(of: #" for \d{4}-\d\d-\d\d"#, options: .regularExpression)
          else { return nil }
          return String(line[at].suffix(10))
        }.first, "\(result.stderr)")
      if let given = night.date {
        #expect(date == given)
      } else {
        #expect([today.description, today.adding(days: 1).description].contains(date))
      }
      lastDate = date
      let written = try deployment.dir.read("decks/\(date).json")
      let document = try #require(
        JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any])
      let run = try #require(document["run"] as? [String: Any])
      #expect(run["date"] as? String == date)
      #expect(Self.decks(written) == (try Self.directDecks(deployment, log: log, date: date)))
    }
    #expect(expectedSwipes == 3379, "the sample's swipes, all of them, once")
    #expect(!deployment.dir.exists("decks/today.json"), "decks are named by their date")

    // The last night again: nothing new in the spool, the snapshot untouched, the same decks
    // (unless Tokyo's midnight passed in between, which changes the date).
    let snapshotBytes = try deployment.dir.read("var/history.snap")
    let decksBefore = try deployment.dir.read("decks/\(lastDate).json")
    let again = try deployment.runJob()
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try deployment.dir.read("var/history.snap") == snapshotBytes)
    if TimeZones.today(in: tokyo).description == lastDate {
      #expect(try deployment.dir.read("decks/\(lastDate).json") == decksBefore)
    }

    // A log delivered twice is skipped (same content), and its copy in the spool removed:
    // nothing counted twice, nothing in logs/ replaced.
    let kept = try deployment.dir.read("logs/\(days[12].date).jsonl")
    try deliver(days[12])
    let twice = try deployment.runJob()
    #expect(twice.status == 0, "\(twice.stderr)")
    #expect(
      twice.stderr.contains("\(days[12].date).jsonl is already in"), "\(twice.stderr)")
    #expect(try deployment.dir.read("var/history.snap") == snapshotBytes)
    #expect(try deployment.names("spool") == [])
    #expect(try deployment.dir.read("logs/\(days[12].date).jsonl") == kept)

    // The same day again with other bytes (its line ends converted): the job stops before
    // anything changes, the log stays in the spool, logs/ keeps the one it had.
    let converted = days[12].lines.joined(separator: "\r\n") + "\r\n"
    try deployment.deliver(days[12], text: converted)
    let other = try deployment.runJob()
    #expect(other.status == 65, "\(other.stderr)")
    #expect(
      other.stderr.contains(
        "nightly.sh: \(deployment.root)/spool/\(days[12].date).jsonl: logs/ already holds "
          + "another log of that name"), "\(other.stderr)")
    #expect(try deployment.dir.read("var/history.snap") == snapshotBytes)
    #expect(try deployment.names("spool") == ["\(days[12].date).jsonl"])
    #expect(try deployment.dir.read("logs/\(days[12].date).jsonl") == kept)
    // ... and so does ingest when logs/ no longer has it: the snapshot knows its name.
    try FileManager.default.removeItem(atPath: deployment.dir.file("logs/\(days[12].date).jsonl"))
    let refused = try deployment.runJob()
    #expect(refused.status == 65, "\(refused.stderr)")
    #expect(
      refused.stderr.contains("already holds a log named '\(days[12].date).jsonl' with other"),
      "\(refused.stderr)")
    #expect(try deployment.dir.read("var/history.snap") == snapshotBytes)
    try FileManager.default.removeItem(atPath: deployment.dir.file("spool/\(days[12].date).jsonl"))
    try deployment.dir.write("logs/\(days[12].date).jsonl", kept)

    // A missed night: tomorrow's job without today's log. The history ends 2 days before the
    // deck date, more than the config's stale_history_days (1): --strict fails the job with the
    // dates and counts, and no decks are written for that date.
    let missed = try deployment.runJob(" +1")
    #expect(missed.status == 65, "\(missed.stderr)")
    let last = days[13].date
    #expect(
      missed.stderr.contains(
        "the history ends on \(last), 2 days before the deck date \(today.adding(days: 1)) (more "
          + "than the 1 of stale_history_days in \(deployment.root)/Config/cron/menudeck.json)")
        || missed.stderr.contains(
          "the history ends on \(last), 3 days before the deck date \(today.adding(days: 2))"),
      "\(missed.stderr)")
    #expect(missed.stderr.contains("3379 swipes of 48 diners"), "\(missed.stderr)")
    #expect(!deployment.dir.exists("decks/\(today.adding(days: 1)).json"))
    #expect(!deployment.dir.exists("decks/+1.json"))
  }

  /// The issue's night: the spool holds four days, and the job runs for the third. Every swipe
  /// is kept (the last two days wait in the snapshot for their day), the decks of each night are
  /// those of the logs read directly, and the night a later log arrives the waiting swipes are
  /// added up: the snapshot is then the one of all the logs.
  @Test func aNightForAnEarlierDateLosesNoSwipe() throws {
    let deployment = try Deployment()
    let days = try Self.sampleDays(endingOn: try #require(DeckDate.parse("2026-11-29")))
    let first = days[0..<4]
    for day in first { try deployment.deliver(day) }
    let whole = try deployment.dir.write(
      "four.jsonl", first.flatMap(\.lines).joined(separator: "\n") + "\n")
    let night = try deployment.runJob(" \(days[2].date)")
    #expect(night.status == 0, "\(night.stderr)")
    let waiting = days[2].swipes + days[3].swipes
    let all = first.reduce(0) { $0 + $1.swipes }
    #expect(
      night.stderr.contains(
        "ingested 4 logs (\(all) swipes: \(all - waiting) counted, \(waiting) waiting for their "
          + "day)"), "\(night.stderr)")
    var snapshot = try deployment.snapshot()
    #expect(Int(snapshot.events) == all)
    #expect(snapshot.pending.count == waiting)
    #expect(try deployment.names("logs").count == 4)
    for date in [days[2].date, days[3].date, days[4].date] {
      if date != days[2].date {
        let next = try deployment.runJob(" \(date)")
        #expect(next.status == 0, "\(date): \(next.stderr)")
      }
      #expect(
        Self.decks(try deployment.decks(date))
          == (try Self.directDecks(deployment, log: whole, date: date.description)), "\(date)")
    }
    // The fifth day's log: the job for the sixth adds up what waited.
    try deployment.deliver(days[4])
    let later = try deployment.runJob(" \(days[5].date)")
    #expect(later.status == 0, "\(later.stderr)")
    #expect(
      later.stderr.contains("counted \(waiting) swipes that waited for their day"),
      "\(later.stderr)")
    snapshot = try deployment.snapshot()
    #expect(snapshot.pending.isEmpty)
    #expect(Int(snapshot.events) == all + days[4].swipes)
    let fresh = try Self.shell(
      "menudeck ingest --config Config/cron/menudeck.json --before \(days[5].date) --out "
        + "fresh.snap logs/*.jsonl", directory: deployment.root,
      environment: ["PATH": deployment.path])
    #expect(fresh.status == 0, "\(fresh.stderr)")
    var rebuilt = try SnapshotFile.read(path: deployment.dir.file("fresh.snap"))
    rebuilt.sources = snapshot.sources
    #expect(rebuilt == snapshot)
  }

  /// Without flock(1) (not every system has it) two jobs started together still run one after
  /// the other, quietly: the second finds nothing left in the spool. The lock is gone after.
  @Test func twoJobsWithoutFlockRunOneAfterTheOther() throws {
    let deployment = try Deployment()
    let tools = deployment.dir.file("tools")
    try FileManager.default.createDirectory(atPath: tools, withIntermediateDirectories: true)
    for tool in ["dirname", "mkdir", "cmp", "basename", "mv", "rm", "rmdir", "sleep"] {
      let found = ["/usr/bin/" + tool, "/bin/" + tool].first {
        FileManager.default.isExecutableFile(atPath: $0)
      }
      try FileManager.default.createSymbolicLink(
        atPath: tools + "/" + tool, withDestinationPath: try #require(found, "no \(tool)"))
    }
    let path = deployment.bin + ":" + tools
    let probe = try Self.shell(
      "command -v flock || echo none", directory: deployment.home, environment: ["PATH": path])
    #expect(probe.stdout == "none\n")
    let days = try Self.sampleDays(endingOn: try #require(DeckDate.parse("2026-11-29")))
    try deployment.deliver(days[0])
    let runs = try Self.together(2) { try deployment.runJob(" \(days[1].date)", path: path) }
    for run in runs { #expect(run.status == 0, "\(run.stderr)") }
    #expect(
      runs.filter { $0.stderr.contains("ingested 1 log") }.count == 1, "\(runs.map(\.stderr))")
    #expect(!runs.contains { $0.stderr.contains("no such file") || $0.stderr.contains("error") })
    #expect(Int(try deployment.snapshot().events) == days[0].swipes)
    #expect(try deployment.names("logs") == ["\(days[0].date).jsonl"])
    #expect(!deployment.dir.exists("var/.nightly.lock.d"))
  }

  /// Replacing a day's log (docs/cron.md): the corrected log in logs/ under the old one's name,
  /// then `nightly.sh --rebuild`. The snapshot is made again from logs/, the night runs, and the
  /// decks are those of the logs as they now are.
  @Test func aRebuildReplacesADaysLog() throws {
    let deployment = try Deployment()
    let days = try Self.sampleDays(endingOn: try #require(DeckDate.parse("2026-11-29")))
    for day in days[0..<5] { try deployment.deliver(day) }
    #expect(try deployment.runJob(" \(days[5].date)").status == 0)
    // The fourth day corrected: its first ten swipes dropped.
    var corrected = days[3]
    corrected.lines.removeFirst(10)
    try deployment.dir.write(
      "logs/\(corrected.date).jsonl", corrected.lines.joined(separator: "\n") + "\n")
    // Delivered to the spool instead, it would be refused: the snapshot has that name.
    try deployment.deliver(corrected, text: corrected.lines.joined(separator: "\n") + "\n")
    let refused = try deployment.runJob(" \(days[5].date)")
    #expect(refused.status == 65, "\(refused.stderr)")
    try FileManager.default.removeItem(atPath: deployment.dir.file("spool/\(corrected.date).jsonl"))
    // The next day's log waits in the spool, as it would.
    try deployment.deliver(days[5])
    let rebuild = try deployment.runJob(" --rebuild \(days[6].date)")
    #expect(rebuild.status == 0, "\(rebuild.stderr)")
    #expect(!deployment.dir.exists("var/history.snap.rebuilt"))
    let logs = try deployment.names("logs")
    #expect(logs.count == 6)
    let text = try logs.map { try deployment.dir.read("logs/" + $0) }.joined()
    let now = try deployment.dir.write("now.jsonl", text)
    #expect(
      Self.decks(try deployment.decks(days[6].date))
        == (try Self.directDecks(deployment, log: now, date: days[6].date.description)))
    let snapshot = try deployment.snapshot()
    #expect(snapshot.sources.count == 6)
    let swipes = days[0..<6].reduce(0) { $0 + $1.swipes }
    #expect(Int(snapshot.events) < swipes && Int(snapshot.events) >= swipes - 10)
    // Without logs there is nothing to rebuild from.
    let empty = try Deployment()
    let none = try empty.runJob(" --rebuild")
    #expect(none.status == 66, "\(none.stderr)")
    #expect(none.stderr.contains("no logs in"), "\(none.stderr)")
  }
}
