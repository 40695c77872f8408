import DeckBase
import DeckCommandLine
import DeckIO
import Foundation
import Testing

@testable import MenuDeckCLI

#if canImport(Glibc)
  import Glibc
#endif

/// The cases a review of the safe-operation layer found: lock files that are links or inputs,
/// standard input and descriptor paths as outputs, inputs the config names, the order of locks,
/// standard output that fails before the commit, mount points, FIFOs as snapshots, unbounded
/// records, modes and owners, long names, strict --wait.
@Suite struct CLISafetyReviewTests {
  static func fixture() throws -> TempDir { try CLISafetyTests.fixture() }
  static func deck(_ dir: TempDir) -> [String] { CLISafetyTests.deck(dir) }

  @Test func aLockFileThatIsALinkOrAnInputIsNeverWritten() throws {
    let dir = try Self.fixture()
    let log = try dir.read("swipes.jsonl")
    // A symbolic link at the lock file's name, pointing at an input.
    try FileManager.default.createSymbolicLink(
      atPath: dir.file(".decks.json.lock"), withDestinationPath: dir.file("swipes.jsonl"))
    let linked = dir.run(Self.deck(dir) + ["--out", dir.file("decks.json")])
    #expect(linked.code == .usage || linked.code == .ioError)
    #expect(linked.stderr.contains(".decks.json.lock"), "\(linked.stderr)")
    #expect(try dir.read("swipes.jsonl") == log)
    try FileManager.default.removeItem(atPath: dir.file(".decks.json.lock"))
    // A hard link at the lock file's name.
    try FileManager.default.linkItem(
      atPath: dir.file("swipes.jsonl"), toPath: dir.file(".decks.json.lock"))
    let hard = dir.run(Self.deck(dir) + ["--out", dir.file("decks.json")])
    #expect(hard.code == .usage)
    #expect(hard.stderr.contains("has a lock file"), "\(hard.stderr)")
    #expect(try dir.read("swipes.jsonl") == log)
    try FileManager.default.removeItem(atPath: dir.file(".decks.json.lock"))
    // A file of someone else's at the lock file's name.
    try dir.write(".decks.json.lock", "my notes")
    let other = dir.run(Self.deck(dir) + ["--out", dir.file("decks.json")])
    #expect(other.code == .ioError)
    #expect(other.stderr.contains("is not a menudeck lock file"), "\(other.stderr)")
    #expect(try dir.read(".decks.json.lock") == "my notes")
    // One output that is the other's lock file (--rejects takes only names that say its
    // format, so --out is the lock file of the rejects).
    try FileManager.default.removeItem(atPath: dir.file(".decks.json.lock"))
    let pair = dir.run(
      Self.deck(dir) + [
        "--out", dir.file(".rejects.jsonl.lock"), "--skip-bad-lines", "--rejects",
        dir.file("rejects.jsonl"),
      ])
    #expect(pair.code == .usage)
    #expect(pair.stderr.contains("one is the lock file of the other"))
  }

  @Test func theConfigsFilesAndPluginsAreInputsOfEveryRun() throws {
    let dir = try Self.fixture()
    try dir.write("users.json", #"[{"id": "u1"}]"#)
    try dir.write("plugin.py", "#!/usr/bin/env python3\n")
    try dir.write(
      "config.json",
      """
      {"catalog": "catalog.json", "users": "users.json", "history": ["swipes.jsonl"],
       "strategies": {"mine": {"plugin": "plugin.py"}}}
      """)
    let plugin = try dir.read("plugin.py")
    let users = try dir.read("users.json")
    for arguments in [
      Self.deck(dir) + ["--out", dir.file("plugin.py")],
      [
        "simulate", "--config", dir.file("config.json"), "--users", "3", "--days", "1", "--out",
        dir.file("plugin.py"),
      ],
      [
        "compare", "--config", dir.file("config.json"), "-s", "random", "-s", "popularity",
        "--split", "2026-11-21", dir.file("swipes.jsonl"), "--out", dir.file("users.json"),
      ],
    ] {
      let result = dir.run(arguments)
      #expect(result.code == .usage, "\(arguments)")
      #expect(result.stderr.contains("is an input of this run"), "\(result.stderr)")
      #expect(!result.stderr.contains("USAGE"), "a refused output is not a usage lesson")
    }
    #expect(try dir.read("plugin.py") == plugin)
    #expect(try dir.read("users.json") == users)
  }

  @Test func descriptorPathsAreStreamsNotFilesToReplace() throws {
    let dir = try Self.fixture()
    // In process, /dev/stdout is the command's standard output.
    let toStdout = dir.run(Self.deck(dir) + ["--format", "jsonl", "--out", "/dev/stdout"])
    #expect(toStdout.code == .success)
    #expect(toStdout.stdout == dir.run(Self.deck(dir) + ["--format", "jsonl"]).stdout)
    let twice = dir.run(
      Self.deck(dir) + ["--out", "/dev/stdout", "--skip-bad-lines", "--rejects", "-"])
    #expect(twice.code == .usage)
    #expect(FileSystem.descriptorPath("/proc/self/fd/7") == 7)
    #expect(FileSystem.descriptorPath("/dev/fd/3") == 3)
    #expect(FileSystem.descriptorPath("/proc/\(getpid())/fd/5") == 5)
    #expect(FileSystem.descriptorPath("/proc/1/fd/5") == nil)
    #expect(FileSystem.descriptorPath("/dev/fd") == nil)
  }

  @Test func ingestIntoSomethingThatIsNotARegularFileIsRefused() throws {
    let dir = try Self.fixture()
    #expect(mkfifo(dir.file("h.fifo"), 0o600) == 0)
    for into in [dir.file("h.fifo"), "/dev/zero"] {
      let result = dir.run(["ingest", dir.file("swipes.jsonl"), "--into", into])
      #expect(result.code == .usage)
      #expect(result.stderr.contains("is not a regular file"), "\(result.stderr)")
    }
  }

  @Test func aLogWithoutLineEndsStopsAtTheRecordLimit() throws {
    let dir = try Self.fixture()
    let result = dir.run(Self.deck(dir) + ["--history", "/dev/zero", "--out", dir.file("d.json")])
    #expect(result.code == .dataError)
    #expect(
      result.stderr
        == "menudeck: error: /dev/zero:1: a record of more than 16 MiB without a line end; a swipe log has "
        + "one event per line (is this the right file?)\n")
  }

  @Test func aFailingStandardOutputCommitsNoFile() throws {
    let dir = try Self.fixture()
    let (io, _, err) = CLIStreams.capturing(currentDirectory: dir.path)
    var failing = io
    failing.stdout = FailingStdout(brokenPipe: false)
    let code = run(
      [
        "simulate", "--config", dir.file("config.json"), "--users", "5", "--days", "1",
        "--events", "-", "--out", dir.file("stats.txt"),
      ], failing)
    #expect(code == .ioError)
    #expect(err.text.contains("no space left on device"))
    #expect(!dir.exists("stats.txt"))
    #expect(try dir.names() == ["catalog.json", "config.json", "swipes.jsonl"])
  }

  @Test func aReplacedFileKeepsItsOwnerButNotSetUserID() throws {
    let dir = try Self.fixture()
    try dir.write("decks.json", "old")
    chmod(dir.file("decks.json"), 0o4755)
    let root = getuid() == 0
    if root { chown(dir.file("decks.json"), 65534, 65534) }
    #expect(dir.run(Self.deck(dir) + ["--out", dir.file("decks.json")]).code == .success)
    var info = stat()
    stat(dir.file("decks.json"), &info)
    #expect(info.st_mode & 0o7777 == 0o755)
    if root {
      #expect(info.st_uid == 65534)
      #expect(info.st_gid == 65534)
    }
  }

  @Test func aLongOutputNameGetsShortLockAndTemporaryNames() throws {
    let dir = try Self.fixture()
    let name = String(repeating: "d", count: 240) + ".json"
    let result = dir.run(Self.deck(dir) + ["--out", dir.file(name)])
    #expect(result.code == .success, "\(result.stderr)")
    #expect(try dir.names() == ["catalog.json", "config.json", name, "swipes.jsonl"])
    let side = FileSystem.sideName(of: name)
    #expect(side.utf8.count == 117)
    #expect(side.hasPrefix(String(repeating: "d", count: 100) + "~"))
  }

  @Test func waitTakesPlainDecimalSecondsOnly() throws {
    let dir = try Self.fixture()
    for bad in ["0x10", "1e3", "+5", " 5"] {
      let result = dir.run(Self.deck(dir) + ["--out", dir.file("d.json"), "--wait", bad])
      #expect(result.code == .usage, "--wait \(bad)")
    }
    #expect(
      dir.run(Self.deck(dir) + ["--out", dir.file("d.json"), "--wait", "0.5"]).code == .success)
  }

  @Test func aRefusedCompareCreatesNoTrecDirectory() throws {
    let dir = try Self.fixture()
    let log = dir.file("swipes.jsonl")
    let result = dir.run([
      "compare", "--config", dir.file("config.json"), "-s", "random", "-s", "popularity",
      "--split", "2026-11-21", log, "--out", log, "--trec", dir.file("trec/run1"),
    ])
    #expect(result.code == .usage)
    #expect(!dir.exists("trec"))
  }

  @Test func aMountPointIsRefusedBeforeAnythingIsWritten() throws {
    let dir = try Self.fixture()
    try dir.write("events.jsonl", "old events")
    try dir.write("stats.txt", "old stats")
    try dir.write("source.txt", "mounted")
    guard
      SmallDisk.command("/bin/mount", ["--bind", dir.file("source.txt"), dir.file("stats.txt")])
    else {
      print("skipped: cannot bind-mount here (not root?)")
      return
    }
    defer { _ = SmallDisk.command("/bin/umount", [dir.file("stats.txt")]) }
    let result = dir.run([
      "simulate", "--config", dir.file("config.json"), "--users", "3", "--days", "1", "--events",
      dir.file("events.jsonl"), "--out", dir.file("stats.txt"),
    ])
    #expect(result.code == .ioError)
    #expect(result.stderr.contains("is a mount point"), "\(result.stderr)")
    #expect(try dir.read("events.jsonl") == "old events")
  }
}
