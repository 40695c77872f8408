import DeckCore
import DeckIO
import Foundation
import Testing

@testable import MenuDeckCLI

#if canImport(Glibc)
  import Glibc
#endif

/// The real binary under concurrent runs, signals, SIGKILL, a closed pipe and FIFOs.
@Suite(
  .enabled(
    if: MenudeckBinary.path != nil,
    "menudeck binary not found next to the test bundle or in .build/debug; run swift build first"))
struct CLIReliabilityTests {
  /// A started `menudeck` process with stdout and stderr in files of `dir`.
  final class Started {
    let process = Process()
    let dir: TempDir
    let label: String

    init(
      _ arguments: [String], in dir: TempDir, label: String = "run",
      stdout: Any? = nil, stdin: Any? = nil
    ) throws {
      self.dir = dir
      self.label = label
      process.executableURL = URL(fileURLWithPath: try #require(MenudeckBinary.path))
      process.arguments = arguments
      process.currentDirectoryURL = URL(fileURLWithPath: CLITest.repoRoot)
      _ = FileManager.default.createFile(atPath: dir.file(label + ".stderr"), contents: nil)
      process.standardError = try FileHandle(forWritingTo: dir.url(label + ".stderr"))
      if let stdout {
        process.standardOutput = stdout
      } else {
        process.standardOutput = FileHandle.nullDevice
      }
      process.standardInput = stdin ?? FileHandle.nullDevice
      try process.run()
    }

    func wait() -> Int32 {
      process.waitUntilExit()
      return process.terminationStatus
    }

    var stderr: String { (try? dir.read(label + ".stderr")) ?? "" }
  }

  /// Waits until `condition` holds, up to `seconds`; false when it never did.
  static func eventually(_ seconds: Double = 60, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if condition() { return true }
      usleep(5_000)
    }
    return condition()
  }

  /// `count` logs of distinct swipes (`lines` each), as `log0.jsonl`...; returns their paths.
  static func logs(_ count: Int, lines: Int, in dir: TempDir) throws -> [String] {
    let items = ["tomato-soup", "caesar-salad", "mushroom-risotto", "beef-burger", "tiramisu"]
    return try (0..<count).map { n in
      var text = ""
      text.reserveCapacity(lines * 90)
      for i in 0..<lines {
        text +=
          "{\"user\":\"d\(n)-\(i % 97)\",\"item\":\"\(items[i % items.count])\",\"swipe\":\""
          + (i % 3 == 0 ? "right" : "left") + "\",\"at\":\"2026-11-2\(1 + i % 8)T12:00:00Z\"}\n"
      }
      return try dir.write("log\(n).jsonl", text)
    }
  }

  static func events(_ snapshot: String) throws -> (events: Int64, sources: Set<String>) {
    let s = try SnapshotFile.read(path: snapshot)
    return (s.events, Set(s.sources.map(\.path)))
  }

  // MARK: - Concurrent ingests

  @Test(arguments: [2, 8])
  func concurrentIngestsWithWaitCountEverySwipeOnce(_ runs: Int) throws {
    let dir = try TempDir("menudeck-ingest-race")
    let logs = try Self.logs(runs, lines: 20_000, in: dir)
    let snap = dir.file("history.snap")
    let started = try logs.enumerated().map { i, log in
      try Started(
        ["ingest", log, "--into", snap, "--wait", "300"], in: dir, label: "ingest\(i)")
    }
    let codes = started.map { $0.wait() }
    #expect(codes == Array(repeating: 0, count: runs), "\(started.map(\.stderr))")
    let (events, sources) = try Self.events(snap)
    #expect(events == Int64(runs * 20_000))
    #expect(sources == Set(logs))
    #expect(try dir.names().filter { $0.hasPrefix(".") } == [])
  }

  @Test func concurrentIngestsWithoutWaitLoseNothingTheyReportedAsDone() throws {
    // Each run ends with 0 (its log is in the snapshot) or 75 (nothing written): the snapshot
    // holds exactly the logs of the runs that said 0.
    let dir = try TempDir("menudeck-ingest-race")
    let logs = try Self.logs(8, lines: 20_000, in: dir)
    let snap = dir.file("history.snap")
    let started = try logs.enumerated().map { i, log in
      try Started(["ingest", log, "--into", snap], in: dir, label: "ingest\(i)")
    }
    let codes = started.map { $0.wait() }
    #expect(codes.allSatisfy { $0 == 0 || $0 == 75 }, "\(codes) \(started.map(\.stderr))")
    let done = Set(zip(logs, codes).filter { $0.1 == 0 }.map(\.0))
    #expect(!done.isEmpty)
    let (events, sources) = try Self.events(snap)
    #expect(sources == done)
    #expect(events == Int64(done.count * 20_000))
    for (run, code) in zip(started, codes) where code == 75 {
      #expect(run.stderr.contains("another menudeck run is writing it (pid "), "\(run.stderr)")
    }
  }

  // MARK: - Signals

  static func longSimulation(_ dir: TempDir) -> [String] {
    [
      "simulate", "--users", "20000", "--days", "200", "--events", dir.file("events.jsonl"),
      "--out", dir.file("stats.txt"),
    ]
  }

  static func temporaries(_ dir: TempDir) -> [String] {
    ((try? dir.names()) ?? []).filter { $0.hasPrefix(".") && $0.hasSuffix(".tmp") }
  }

  @Test(arguments: [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP")])
  func aSignalRemovesTheTemporariesSaysSoAndEndsByTheSignal(_ signal: Int32, _ name: String)
    throws
  {
    let dir = try TempDir("menudeck-signal")
    try dir.write("events.jsonl", "old log")
    let run = try Started(Self.longSimulation(dir), in: dir)
    #expect(Self.eventually { !Self.temporaries(dir).isEmpty }, "no temporary file appeared")
    kill(run.process.processIdentifier, signal)
    _ = run.wait()
    #expect(run.process.terminationReason == .uncaughtSignal)
    #expect(run.process.terminationStatus == signal)
    #expect(run.stderr.hasSuffix("menudeck: error: stopped by \(name); removed 1 temporary file\n"))
    #expect(try dir.read("events.jsonl") == "old log")
    #expect(try dir.names() == ["events.jsonl", "run.stderr"])
  }

  /// The pids of the processes whose parent is `pid`.
  static func children(of pid: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { Int32($0) }.filter { child in
      guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { return false }
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      return fields.count > 2 && fields[0] != "Z" && Int32(fields[1]) == pid
    }
  }

  /// Whether `pid` is gone (or a zombie waiting for its parent).
  static func isGone(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return true }
    return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
  }

  @Test(
    .enabled(
      if: CLISafetyTests.pythonAvailable, "python3 is not on PATH: the example plugins need it"))
  func aSignalEndsThePluginsProcessGroupToo() throws {
    let dir = try TempDir("menudeck-signal-plugin")
    try dir.write(
      "config.json",
      """
      {"catalog": "\(CLITest.repoRoot)/Data/catalog.json", "history": [],
       "strategies": {"stuck": {"plugin": "\(CLITest.repoRoot)/Tests/Fixtures/plugins/misbehave.py",
                                "timeout": 600, "options": {"mode": "hang"}}}}
      """)
    let run = try Started(
      [
        "deck", "--config", dir.file("config.json"), "--date", "2026-11-30", "--user", "u1",
        "--strategy", "stuck", "--out", dir.file("decks.json"),
      ], in: dir)
    let menudeck = run.process.processIdentifier
    var plugin: Int32?
    #expect(
      Self.eventually {
        plugin = Self.children(of: menudeck).first
        return plugin != nil && !Self.temporaries(dir).isEmpty
      }, "the plugin never started")
    kill(menudeck, SIGTERM)
    _ = run.wait()
    #expect(run.process.terminationReason == .uncaughtSignal)
    #expect(run.process.terminationStatus == SIGTERM)
    #expect(
      run.stderr.hasSuffix(
        "menudeck: error: stopped by SIGTERM; removed 1 temporary file, ended 1 plugin\n"),
      "\(run.stderr)"
    )
    if let plugin {
      #expect(Self.eventually(10) { Self.isGone(plugin) }, "the plugin outlived the run")
    }
    #expect(try dir.names() == ["config.json", "run.stderr"])
  }

  @Test func aKilledRunsDebrisIsRemovedByTheNextRunWithANote() throws {
    let dir = try TempDir("menudeck-kill9")
    let run = try Started(Self.longSimulation(dir), in: dir)
    #expect(Self.eventually { !Self.temporaries(dir).isEmpty }, "no temporary file appeared")
    kill(run.process.processIdentifier, SIGKILL)
    _ = run.wait()
    let left = Self.temporaries(dir)
    #expect(left.count == 1)
    let next = try Started(
      [
        "simulate", "--users", "10", "--days", "1", "--events", dir.file("events.jsonl"),
        "--out", dir.file("stats.txt"),
      ], in: dir, label: "next")
    #expect(next.wait() == 0)
    #expect(
      next.stderr.contains(
        "menudeck: note: removed '\(dir.file(left[0]))', a temporary file of a run that was killed")
    )
    #expect(Self.temporaries(dir).isEmpty)
    // The killed run's lock files went with the next run on the same targets.
    #expect(try dir.names() == ["events.jsonl", "next.stderr", "run.stderr", "stats.txt"])
  }

  @Test func aClosedPipeEndsTheRunWith141QuietlyAndCommitsNothing() throws {
    let dir = try TempDir("menudeck-pipe")
    let pipe = Pipe()
    let run = try Started(
      [
        "simulate", "--users", "5000", "--days", "30", "--events", "-", "--out",
        dir.file("stats.txt"),
      ], in: dir, stdout: pipe)
    // Read a little, as `head` would, then go away.
    _ = pipe.fileHandleForReading.readData(ofLength: 100)
    try pipe.fileHandleForReading.close()
    try pipe.fileHandleForWriting.close()
    #expect(run.wait() == 141)
    #expect(run.process.terminationReason == .exit)
    #expect(run.stderr == "")
    #expect(try dir.names() == ["run.stderr"])
  }

  // MARK: - Standard streams as inputs and outputs

  @Test func anOutputThatIsStandardInputIsRefused() throws {
    let dir = try TempDir("menudeck-stdin")
    let log = try dir.write(
      "h.jsonl", String(decoding: try CLITest.repoFile("Data/swipes.jsonl"), as: UTF8.self))
    let before = try dir.read("h.jsonl")
    for out in [log, "/dev/stdin", "/proc/self/fd/0"] {
      let input = try FileHandle(forReadingFrom: URL(fileURLWithPath: log))
      let run = try Started(
        ["deck", "--date", "2026-11-30", "--history", "-", "--out", out], in: dir,
        label: "stdin", stdin: input)
      #expect(run.wait() == 64, "--out \(out): \(run.stderr)")
      #expect(run.stderr.contains("is an input of this run (--history '-')"), "\(run.stderr)")
      try input.close()
    }
    #expect(try dir.read("h.jsonl") == before)
  }

  @Test func devStdoutAppendsToWhatTheShellOpenedAndWorksOnAPipe() throws {
    let dir = try TempDir("menudeck-devstdout")
    try dir.write("cron.log", "previous run\n")
    let appending = try FileHandle(forWritingTo: dir.url("cron.log"))
    try appending.seekToEnd()  // as `>> cron.log` leaves it
    // O_APPEND as the shell's >> sets it.
    _ = fcntl(
      appending.fileDescriptor, F_SETFL, fcntl(appending.fileDescriptor, F_GETFL) | O_APPEND)
    let run = try Started(
      ["deck", "--date", "2026-11-30", "--format", "jsonl", "--out", "/dev/stdout"], in: dir,
      stdout: appending)
    #expect(run.wait() == 0, "\(run.stderr)")
    try appending.close()
    let text = try dir.read("cron.log")
    #expect(text.hasPrefix("previous run\n{\"user\":"))
    #expect(text.split(separator: "\n").count == 49)
    let pipe = Pipe()
    let piped = try Started(
      ["deck", "--date", "2026-11-30", "--format", "jsonl", "--out", "/dev/stdout"], in: dir,
      label: "piped", stdout: pipe)
    try pipe.fileHandleForWriting.close()
    let bytes = pipe.fileHandleForReading.readDataToEndOfFile()
    #expect(piped.wait() == 0, "\(piped.stderr)")
    #expect(String(decoding: bytes, as: UTF8.self).split(separator: "\n").count == 48)
  }

  // MARK: - FIFOs

  @Test func aLogOnAFIFOIsOpenedOnceForDeckAndIngest() throws {
    let dir = try TempDir("menudeck-fifo")
    let text = try CLITest.repoFile("Data/swipes.jsonl")
    for (label, arguments) in [
      (
        "deck",
        [
          "deck", "--date", "2026-11-30", "--history", dir.file("log.jsonl"), "--out",
          dir.file("decks.json"),
        ]
      ),
      ("ingest", ["ingest", dir.file("log.jsonl"), "--into", dir.file("h.snap")]),
      (
        "pipe",
        [
          "deck", "--date", "2026-11-30", "--history", dir.file("log"), "--out",
          dir.file("decks2.json"),
        ]
      ),
    ] {
      let fifo = label == "pipe" ? dir.file("log") : dir.file("log.jsonl")
      unlink(fifo)
      #expect(mkfifo(fifo, 0o600) == 0)
      let writer = Thread {
        let fd = open(fifo, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = text.withUnsafeBytes { writeAll(fd, $0) }
        close(fd)
      }
      writer.start()
      let run = try Started(arguments, in: dir, label: label)
      let ended = Self.eventually(120) { !run.process.isRunning }
      if !ended {
        run.process.terminate()
        // Unblock the writer if the run never opened the FIFO.
        let fd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if fd >= 0 { close(fd) }
      }
      #expect(ended, "\(label): the run did not end (a FIFO opened twice blocks forever)")
      #expect(run.wait() == 0, "\(label): \(run.stderr)")
    }
    let snapshot = try SnapshotFile.read(path: dir.file("h.snap"))
    #expect(snapshot.events > 3000)
    // The same decks (the headers name the logs by their paths, log.jsonl and log).
    #expect(
      try dir.read("decks.json").split(separator: "\n").dropFirst()
        == dir.read("decks2.json").split(separator: "\n").dropFirst())
  }
}

private func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
  var offset = 0
  while offset < bytes.count {
    let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
    if n <= 0 { return }
    offset += n
  }
}

/// A small tmpfs mounted for one test (needs root, or CAP_SYS_ADMIN): a disk that fills up.
final class SmallDisk {
  let dir: TempDir
  var path: String { dir.path }

  init?(kilobytes: Int) {
    guard let dir = try? TempDir("menudeck-small-disk") else { return nil }
    self.dir = dir
    guard
      SmallDisk.command(
        "/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", dir.path])
    else { return nil }
  }

  deinit { _ = SmallDisk.command("/bin/umount", [dir.path]) }

  static func command(_ tool: String, _ arguments: [String]) -> Bool {
    guard FileManager.default.isExecutableFile(atPath: tool) else { return false }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
  }

  /// Whether this machine lets the tests mount one (checked once).
  static let available: Bool = SmallDisk(kilobytes: 16) != nil
}

@Suite(.enabled(if: SmallDisk.available, "cannot mount a tmpfs (not root?): no full-disk tests"))
struct CLIFullDiskTests {
  @Test func aFullDiskFailsWith74AndLeavesTheOldFileAndNoTemporary() throws {
    let disk = try #require(SmallDisk(kilobytes: 64))
    let out = disk.path + "/decks.json"
    try Data("yesterday's decks".utf8).write(to: URL(fileURLWithPath: out))
    let result = CLIRun([
      "deck", "--date", "2026-11-30", "--format", "json", "--out", out,
    ])
    #expect(result.code == .ioError)
    #expect(
      result.stderr.contains("\(out): cannot write: no space left on device"), "\(result.stderr)")
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "yesterday's decks")
    #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path) == ["decks.json"])
  }

  @Test func aRunWithOneOutputOnAFullDiskReplacesNoneOfItsOutputs() throws {
    let disk = try #require(SmallDisk(kilobytes: 16))
    let dir = try TempDir()
    try dir.write("c.txt", "old comparison")
    let report = disk.path + "/report.html"
    let result = CLIRun([
      "compare", "-s", "random", "-s", "popularity", "--users", "30", "--days", "3",
      "--resamples", "20", "--out", dir.file("c.txt"), "--report", report,
    ])
    #expect(result.code == .ioError)
    #expect(try dir.read("c.txt") == "old comparison")
    #expect(try dir.names() == ["c.txt"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path) == [])
  }
}
