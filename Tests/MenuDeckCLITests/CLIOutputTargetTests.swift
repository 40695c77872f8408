import DeckBase
import DeckCommandLine
import DeckIO
import Foundation
import Testing

@testable import MenuDeckCLI

#if canImport(Glibc)
  import Glibc
#endif

/// What an output path may name: never an input of the run (the config's files and plugins
/// included), a descriptor path as the stream it is, never a FIFO, device or mount point; a
/// replaced file keeps its owner but not its set-user-ID bit.
@Suite struct CLIOutputTargetTests {
  static func fixture() throws -> TempDir { try CLISafetyTests.fixture() }
  static func deck(_ dir: TempDir) -> [String] { CLISafetyTests.deck(dir) }

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
}
