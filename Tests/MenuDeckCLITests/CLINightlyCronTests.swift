import DeckCore
import DeckIO
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
    /// directory), with `extra` appended to its command line.
    func runJob(_ extra: String = "") throws -> MenudeckBinary.Result {
      try CLINightlyCronTests.shell(
        command + extra, directory: home,
        environment: [
          "PATH": path, "HOME": home, "SHELL": "/bin/sh", "LOGNAME": "menudeck",
        ])
    }

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
    try FileManager.default.createDirectory(
      atPath: deployment.dir.file("spool"), withIntermediateDirectories: true)
    func deliver(_ day: Day) throws {
      try deployment.dir.write("spool/\(day.date).jsonl", day.lines.joined(separator: "\n") + "\n")
    }

    // Night 1 catches up on the first ten days; nights 2 to 5 get one day each; the last night
    // is today's, with the job line as written (no date given).
    var nights: [(logs: ArraySlice<Day>, date: String?)] = [
      (days[0..<10], days[10].date.description)
    ]
    for k in 10..<13 { nights.append((days[k...k], days[k + 1].date.description)) }
    nights.append((days[13...13], nil))
    var expectedSwipes = 0
    var expectedLogs = 0
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
      for unexpected in ["history ends", "holds no swipes", "not ingested", "error"] {
        #expect(!result.stderr.contains(unexpected), "night \(n + 1): \(result.stderr)")
      }

      let name = night.date ?? "today"
      let written = try deployment.dir.read("decks/\(name).json")
      // The date the job chose (today in Tokyo; a run across Tokyo's midnight gives the next).
      let document = try #require(
        JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any])
      let run = try #require(document["run"] as? [String: Any])
      let date = try #require(run["date"] as? String)
      if let given = night.date {
        #expect(date == given)
      } else {
        #expect([today.description, today.adding(days: 1).description].contains(date))
      }
      #expect(Self.decks(written) == (try Self.directDecks(deployment, log: log, date: date)))
    }
    #expect(expectedSwipes == 3379, "the sample's swipes, all of them, once")

    // The last night again: nothing new in the spool, the snapshot untouched, the same decks
    // (unless Tokyo's midnight passed in between, which changes the date).
    let snapshotBytes = try deployment.dir.read("var/history.snap")
    let decksBefore = try deployment.dir.read("decks/today.json")
    let again = try deployment.runJob()
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try deployment.dir.read("var/history.snap") == snapshotBytes)
    let decksAgain = try deployment.dir.read("decks/today.json")
    if TimeZones.today(in: tokyo) == today {
      #expect(decksAgain == decksBefore)
    }

    // A log delivered twice is skipped (same content) and moved on: nothing counted twice.
    try deliver(days[12])
    let twice = try deployment.runJob()
    #expect(twice.status == 0, "\(twice.stderr)")
    #expect(
      twice.stderr.contains("\(days[12].date).jsonl is already in"), "\(twice.stderr)")
    #expect(try deployment.dir.read("var/history.snap") == snapshotBytes)
    #expect(try deployment.names("spool") == [])

    // Nights with no log: the history ends 3 days before the deck date, more than the
    // config's stale_history_days (2), and --strict fails the job with the dates and counts;
    // no decks are written for that date.
    let stale = try deployment.runJob(" +2")
    #expect(stale.status == 65, "\(stale.stderr)")
    let last = days[13].date
    #expect(
      stale.stderr.contains(
        "the history ends on \(last), 3 days before the deck date \(today.adding(days: 2))")
        || stale.stderr.contains(
          "the history ends on \(last), 4 days before the deck date \(today.adding(days: 3))"),
      "\(stale.stderr)")
    #expect(stale.stderr.contains("3379 swipes of 48 diners"), "\(stale.stderr)")
    #expect(!deployment.dir.exists("decks/+2.json"))
  }
}
