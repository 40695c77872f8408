import DeckBase
import DeckCommandLine
import DeckIO
import Foundation
import Testing

@testable import MenuDeckCLI

#if canImport(Glibc)
  import Glibc
#endif

/// The lock file beside every output: never written when something else sits at its name (a
/// link, an input, another output, someone's file), short for a long output name, and `--wait`
/// read as plain decimal seconds.
@Suite struct CLILockFileTests {
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
}
