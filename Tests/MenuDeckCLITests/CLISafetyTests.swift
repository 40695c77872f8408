import DeckBase
import DeckCommandLine
import DeckIO
import Foundation
import Testing

@testable import MenuDeckCLI

#if canImport(Glibc)
  import Glibc
#endif

/// Outputs never replace inputs, are locked, replaced together, keep modes and follow links.
@Suite struct CLISafetyTests {
  static let pythonAvailable =
    ProcessInfo.processInfo.environment["PATH"]?.split(separator: ":").contains(where: {
      FileManager.default.isExecutableFile(atPath: "\($0)/python3")
    }) == true
  static func fixture() throws -> TempDir {
    try CLIOutputFileTests.fixture(history: CLIOutputFileTests.good)
  }

  static func deck(_ dir: TempDir) -> [String] { CLIOutputFileTests.deckArgs(dir) }

  func expectRefused(
    _ result: CLIRun, _ message: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) {
    #expect(result.code == .usage, sourceLocation: sourceLocation)
    #expect(
      result.stderr.hasPrefix("menudeck: error: \(message)\n"), "\(result.stderr)",
      sourceLocation: sourceLocation)
  }

  // MARK: - Never write over an input

  @Test func anOutputThatIsAnInputIsRefusedAndTheInputKept() throws {
    let dir = try Self.fixture()
    let log = try dir.read("swipes.jsonl")
    let catalog = try dir.read("catalog.json")
    let config = try dir.read("config.json")
    let h = dir.file("swipes.jsonl")
    expectRefused(
      dir.run(Self.deck(dir) + ["--history", h, "--out", h]),
      "'--out \(h)' is an input of this run (--history '\(h)'); an output never replaces an "
        + "input: choose another --out")
    // Spelled otherwise: relative, through "..", through a symbolic link, a hard link.
    expectRefused(
      dir.run(Self.deck(dir) + ["--history", h, "--out", "./swipes.jsonl"]),
      "'--out ./swipes.jsonl' is an input of this run (--history '\(h)'); an output never "
        + "replaces an input: choose another --out")
    try FileManager.default.createDirectory(
      atPath: dir.file("sub"), withIntermediateDirectories: true)
    expectRefused(
      dir.run(Self.deck(dir) + ["--history", h, "--out", "sub/../swipes.jsonl"]),
      "'--out sub/../swipes.jsonl' is an input of this run (--history '\(h)'); an output "
        + "never replaces an input: choose another --out")
    try FileManager.default.createSymbolicLink(
      atPath: dir.file("link.jsonl"), withDestinationPath: h)
    #expect(dir.run(Self.deck(dir) + ["--out", dir.file("link.jsonl")]).code == .usage)
    try FileManager.default.linkItem(atPath: h, toPath: dir.file("hard.jsonl"))
    #expect(dir.run(Self.deck(dir) + ["--out", dir.file("hard.jsonl")]).code == .usage)
    // The config's own files.
    expectRefused(
      dir.run(Self.deck(dir) + ["--out", dir.file("catalog.json")]),
      "'--out \(dir.file("catalog.json"))' is an input of this run (the config's \"catalog\" "
        + "'\(dir.path)/catalog.json'); an output never replaces an input: choose another --out")
    #expect(dir.run(Self.deck(dir) + ["--out", dir.file("config.json")]).code == .usage)
    #expect(dir.run(Self.deck(dir) + ["--out", dir.file("swipes.jsonl")]).code == .usage)
    // --rejects naming the log being read.
    let rejects = dir.run(Self.deck(dir) + ["--skip-bad-lines", "--rejects", h, "--out", "-"])
    #expect(rejects.code == .usage)
    #expect(rejects.stderr.contains("'--rejects \(h)' is an input of this run"))
    #expect(try dir.read("swipes.jsonl") == log)
    #expect(try dir.read("catalog.json") == catalog)
    #expect(try dir.read("config.json") == config)
  }

  @Test func twoOutputsOnOneFileOrOnStandardOutputAreRefused() throws {
    let dir = try Self.fixture()
    let out = dir.file("decks.jsonl")
    expectRefused(
      dir.run(Self.deck(dir) + ["--out", out, "--skip-bad-lines", "--rejects", out]),
      "'--rejects \(out)' and '--out \(out)' name the same file; give each output its own file")
    expectRefused(
      dir.run(Self.deck(dir) + ["--skip-bad-lines", "--rejects", "-"]),
      "'--rejects -' writes to standard output, where --out goes when it is not given; give "
        + "--out a file")
    expectRefused(
      dir.run(Self.deck(dir) + ["--out", "-", "--skip-bad-lines", "--rejects", "-"]),
      "'--out -' and '--rejects -' both write to standard output; give one of them a file"
    )
    let simulate = dir.run([
      "simulate", "--config", dir.file("config.json"), "--users", "3", "--days", "1", "--events",
      "-",
    ])
    #expect(simulate.code == .usage)
    #expect(
      simulate.stderr.hasPrefix(
        "menudeck: error: '--events -' writes to standard output, where --out goes when it is not given; "
          + "give --out a file\n"))
    #expect(try dir.names() == ["catalog.json", "config.json", "swipes.jsonl"])
  }

  @Test func otherCommandsRefuseToWriteOverTheirInputs() throws {
    let dir = try Self.fixture()
    let log = dir.file("swipes.jsonl")
    let before = try dir.read("swipes.jsonl")
    // compare --out naming its own log.
    let compare = dir.run([
      "compare", "--config", dir.file("config.json"), "-s", "random", "-s", "popularity",
      "--split", "2026-11-21", log, "--out", log,
    ])
    #expect(compare.code == .usage)
    #expect(compare.stderr.contains("'--out \(log)' is an input of this run (the swipe log"))
    // simulate --events naming its users file (a CSV, a name the log may also have).
    try dir.write("users.csv", "id\nu1\nu2\n")
    let users = try dir.read("users.csv")
    let simulate = dir.run([
      "simulate", "--config", dir.file("config.json"), "--users", dir.file("users.csv"),
      "--days", "1", "--events", dir.file("users.csv"),
    ])
    #expect(simulate.code == .usage)
    #expect(simulate.stderr.contains("is an input of this run (--users"))
    #expect(try dir.read("users.csv") == users)
    // ingest --rejects naming a log, merge --out naming a snapshot it merges.
    let ingest = dir.run([
      "ingest", log, "--into", dir.file("h.snap"), "--skip-bad-lines", "--rejects", log,
    ])
    #expect(ingest.code == .usage)
    #expect(dir.run(["ingest", log, "--into", dir.file("h.snap")]).code == .success)
    let merge = dir.run(["merge", dir.file("h.snap"), "--out", dir.file("h.snap")])
    #expect(merge.code == .usage)
    #expect(merge.stderr.contains("is an input of this run (the snapshot"))
    #expect(try dir.read("swipes.jsonl") == before)
  }

  // MARK: - Locks

  @Test func aLockedOutputStopsTheRunWithExit75NamingTheHolder() throws {
    let dir = try Self.fixture()
    let out = dir.file("decks.json")
    try dir.write("decks.json", "old")
    let holder = try FileLock(
      target: out, wait: 0, holder: "pid 4242: menudeck deck --out decks.json")
    let busy = dir.run(Self.deck(dir) + ["--out", out])
    #expect(busy.code == .busy)
    #expect(busy.code.rawValue == 75)
    #expect(
      busy.stderr
        == "menudeck: error: \(out): another menudeck run is writing it (pid 4242: menudeck deck --out "
        + "decks.json); nothing was written. Run again when it has finished, or give --wait "
        + "SECONDS to wait for it\n")
    let waited = dir.run(Self.deck(dir) + ["--out", out, "--wait", "0.1"])
    #expect(waited.code == .busy)
    #expect(waited.stderr.contains("after waiting 0.1 s"))
    #expect(try dir.read("decks.json") == "old")
    holder.release()
    let free = dir.run(Self.deck(dir) + ["--out", out])
    #expect(free.code == .success)
    #expect(try dir.read("decks.json").hasPrefix("{"))
    #expect(try dir.names() == ["catalog.json", "config.json", "decks.json", "swipes.jsonl"])
  }

  @Test func waitIsRangeChecked() throws {
    let dir = try Self.fixture()
    for bad in ["-1", "604801", "nan", "x"] {
      let result = dir.run(Self.deck(dir) + ["--out", dir.file("d.json"), "--wait", bad])
      #expect(result.code == .usage, "--wait \(bad)")
    }
  }

  @Test func aRunWaitsForTheHolderWithWait() async throws {
    let dir = try Self.fixture()
    let out = dir.file("decks.json")
    let holder = try FileLock(target: out, wait: 0, holder: "pid 1: test")
    let args = Self.deck(dir) + ["--out", out, "--wait", "60"]
    let path = dir.path
    let waiting = Task.detached { CLIRun(args, in: path) }
    try await Task.sleep(nanoseconds: 100_000_000)
    #expect(!dir.exists("decks.json"))
    holder.release()
    let result = await waiting.value
    #expect(result.code == .success)
    #expect(dir.exists("decks.json"))
  }

  @Test func ingestFailsWithoutWritingWhenTheSnapshotChangedUnderIt() throws {
    // Something that does not take the lock replaces the snapshot while the ingest reads: the
    // ingest must notice before its rename. Simulated by a log on a FIFO whose writer replaces
    // the snapshot before it writes the log.
    let dir = try Self.fixture()
    let snap = dir.file("h.snap")
    #expect(dir.run(["ingest", dir.file("swipes.jsonl"), "--into", snap]).code == .success)
    let original = try Data(contentsOf: URL(fileURLWithPath: snap))
    let fifo = dir.file("more.jsonl")
    #expect(mkfifo(fifo, 0o600) == 0)
    let line = #"{"user":"u9","item":"a","swipe":"right","at":"2026-11-22T12:00:00Z"}"# + "\n"
    let writer = Thread {
      let fd = open(fifo, O_WRONLY | O_CLOEXEC)
      // Replace the snapshot behind the lock's back (same bytes, a new inode).
      try? Data(original).write(to: URL(fileURLWithPath: snap + ".other"))
      rename(snap + ".other", snap)
      _ = Array(line.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      close(fd)
    }
    writer.start()
    let result = dir.run(["ingest", fifo, "--into", snap])
    #expect(result.code == .busy)
    #expect(result.stderr.contains("changed on disk while this run read it"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: snap)) == original)
    #expect(try dir.names().filter { $0.hasPrefix(".") } == [])
  }

  // MARK: - Files

  @Test func aReplacedOutputKeepsItsModeAndALinkIsWrittenThrough() throws {
    let dir = try Self.fixture()
    try dir.write("decks.json", "old")
    chmod(dir.file("decks.json"), 0o600)
    #expect(dir.run(Self.deck(dir) + ["--out", dir.file("decks.json")]).code == .success)
    var info = stat()
    stat(dir.file("decks.json"), &info)
    #expect(info.st_mode & 0o777 == 0o600)

    try FileManager.default.createDirectory(
      atPath: dir.file("real"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: dir.file("current.json"), withDestinationPath: "real/2026-11-30.json")
    let linked = dir.run(Self.deck(dir) + ["--out", dir.file("current.json")])
    #expect(linked.code == .success)
    #expect(
      try FileManager.default.destinationOfSymbolicLink(atPath: dir.file("current.json"))
        == "real/2026-11-30.json")
    #expect(
      CLITest.withoutArguments(try dir.read("real/2026-11-30.json"))
        == CLITest.withoutArguments(try dir.read("decks.json")))
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: dir.file("real")) == ["2026-11-30.json"])
  }

  @Test func anOutputThatIsADeviceOrAFIFOIsWrittenAsAStream() throws {
    let dir = try Self.fixture()
    #expect(
      dir.run(["ingest", dir.file("swipes.jsonl"), "--into", dir.file("h.snap")]).code == .success)
    let toNull = dir.run(["merge", dir.file("h.snap"), "--out", "/dev/null"])
    #expect(toNull.code == .success)
    #expect(FileSystem.kind(of: "/dev/null") == .other)
    let fifo = dir.file("decks.fifo")
    #expect(mkfifo(fifo, 0o600) == 0)
    final class Box: @unchecked Sendable { var bytes: [UInt8] = [] }
    let box = Box()
    let reader = Thread {
      let fd = open(fifo, O_RDONLY | O_CLOEXEC)
      var chunk = [UInt8](repeating: 0, count: 65536)
      while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        box.bytes += chunk[..<n]
      }
      close(fd)
    }
    reader.start()
    let result = dir.run(Self.deck(dir) + ["--format", "jsonl", "--out", fifo])
    #expect(result.code == .success)
    while reader.isExecuting || !reader.isFinished { usleep(1000) }
    #expect(box.bytes == dir.run(Self.deck(dir) + ["--format", "jsonl"]).stdoutBytes)
    #expect(FileSystem.kind(of: fifo) == .fifo)
  }

  @Test func aStaleTemporaryOfAKilledRunIsRemovedWithANote() throws {
    let dir = try Self.fixture()
    let stale = ".decks.json.menudeck-99999999-k1lled00.tmp"
    try dir.write(stale, "half a deck")
    let result = dir.run(Self.deck(dir) + ["--out", dir.file("decks.json")])
    #expect(result.code == .success)
    #expect(
      result.stderr.hasPrefix(
        "menudeck: note: removed '\(dir.file(stale))', a temporary file of a run that was killed\n")
    )
    #expect(try dir.names() == ["catalog.json", "config.json", "decks.json", "swipes.jsonl"])
  }

  @Test(
    .enabled(
      if: CLISafetyTests.pythonAvailable, "python3 is not on PATH: the example plugins need it"))
  func aFailedRunReplacesNoneOfItsOutputs() throws {
    // simulate --events A --out B with a strategy that fails mid-run: neither file appears.
    let dir = try Self.fixture()
    try dir.write("events.jsonl", "old events")
    try dir.write(
      "config.json",
      """
      {"catalog": "catalog.json", "history": ["swipes.jsonl"],
       "strategies": {"crashing": {"plugin": "\(CLITest.repoRoot)/Tests/Fixtures/plugins/misbehave.py",
                                   "options": {"mode": "crash", "at": 3}}}}
      """)
    let result = dir.run([
      "simulate", "--config", dir.file("config.json"), "--users", "5", "--days", "4",
      "--strategy", "crashing", "--events", dir.file("events.jsonl"), "--out",
      dir.file("stats.txt"),
    ])
    #expect(result.code == .unavailable)
    #expect(try dir.read("events.jsonl") == "old events")
    #expect(!dir.exists("stats.txt"))
    #expect(try dir.names().filter { $0.hasPrefix(".") } == [])
  }

  @Test func dashMeansStandardOutputForEveryOutputOption() throws {
    let dir = try Self.fixture()
    let events = dir.run([
      "simulate", "--config", dir.file("config.json"), "--users", "3", "--days", "1",
      "--events", "-", "--out", dir.file("stats.txt"),
    ])
    #expect(events.code == .success)
    #expect(events.stdout.hasPrefix("{\"user\":"))
    #expect(dir.exists("stats.txt"))
    #expect(
      dir.run(["ingest", dir.file("swipes.jsonl"), "--into", dir.file("h.snap")]).code == .success)
    let merged = dir.run(["merge", dir.file("h.snap"), "--out", "-"])
    #expect(merged.code == .success)
    #expect(
      merged.stdoutBytes == Array(try Data(contentsOf: URL(fileURLWithPath: dir.file("h.snap")))))
    let badLog = dir.file("bad.jsonl")
    try dir.write("bad.jsonl", CLIOutputFileTests.badSwipe + "\n")
    let rejects = dir.run(
      Self.deck(dir) + [
        "--history", badLog, "--skip-bad-lines", "--rejects", "-", "--out", dir.file("d.json"),
      ])
    #expect(rejects.code == .success)
    #expect(rejects.stdout.hasPrefix("{\"file\":\"\(badLog)\",\"line\":1"))
    let report = dir.run([
      "compare", "--config", dir.file("config.json"), "-s", "random", "-s", "popularity",
      "--users", "5", "--days", "2", "--resamples", "10", "--report", "-", "--out",
      dir.file("c.txt"),
    ])
    #expect(report.code == .success)
    #expect(report.stdout.hasPrefix("<!DOCTYPE html>"))
  }

  @Test func aClosedStandardOutputStopsQuietlyWith141AndCommitsNothing() throws {
    let dir = try Self.fixture()
    let (io, _, err) = CLIStreams.capturing(currentDirectory: dir.path)
    var closed = io
    closed.stdout = FailingStdout(brokenPipe: true)
    let code = run(
      [
        "simulate", "--config", dir.file("config.json"), "--users", "50", "--days", "3",
        "--events", "-", "--out", dir.file("stats.txt"),
      ], closed)
    #expect(code == .brokenPipe)
    #expect(code.rawValue == 141)
    #expect(err.text == "")
    #expect(!dir.exists("stats.txt"))
    #expect(try dir.names() == ["catalog.json", "config.json", "swipes.jsonl"])
  }
}

/// Standard output that fails: its reader has gone (every write meets EPIPE) or its disk is
/// full. Writes are dropped; `flush()` reports the failure.
final class FailingStdout: TextSink, @unchecked Sendable {
  let isBrokenPipe: Bool

  init(brokenPipe: Bool) { isBrokenPipe = brokenPipe }

  func write(_ text: String) {}
  func write(bytes: UnsafeRawBufferPointer) {}
  func flush() throws {
    throw CommandFailure(
      .ioError,
      "cannot write to standard output: "
        + (isBrokenPipe ? "broken pipe" : "no space left on device"))
  }
}
