import DeckBase
import DeckCommandLine
import DeckIO
import Foundation
import Testing

@testable import MenuDeckCLI

#if canImport(Glibc)
  import Glibc
#endif

/// A run that fails commits no output: not when standard output fails before the commit, and
/// not a directory of a refused `--trec`.
@Suite struct CLIOutputCommitTests {
  static func fixture() throws -> TempDir { try CLISafetyTests.fixture() }

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
}
