import DeckCommandLine
import Foundation
import Testing

@testable import MenuDeckCLI

/// Messages name files as the user wrote them (relative to the command's current directory),
/// the same in process as in the real binary: `run(_:_:)` with `CLIStreams.currentDirectory` set
/// must not leak the absolute path it opened.
@Suite struct CLIPathDisplayTests {
  static let goodLine = #"{"user":"u1","item":"a","swipe":"right","at":"2026-11-20T12:00:00Z"}"#
  static let badLine = #"{"user":"u1","item":"a","swipe":"rigt","at":"2026-11-20T12:00:00Z"}"#

  static func fixture() throws -> TempDir {
    let dir = try TempDir()
    try dir.write("catalog.json", #"[{"id": "a", "name": "A", "category": "x"}]"#)
    try dir.write("swipes.jsonl", goodLine + "\n" + badLine + "\n")
    try dir.write("config.json", #"{"catalog": "catalog.json", "history": ["swipes.jsonl"]}"#)
    return dir
  }

  /// Paths that are only parsed, never opened through `Paths.open`, already show as written.
  @Test func catalogErrorsNameTheRelativePath() throws {
    let dir = try Self.fixture()
    try dir.write("catalog.json", #"[{"id": "a", "name": "A", "category": "x", "price": -1}]"#)
    let result = dir.run(["--config", "config.json", "--date", "2026-11-30"])
    #expect(result.code == .dataError)
    #expect(
      result.stderr == "menudeck: error: catalog.json:1:53: price '-1' must be a number 0 or more\n"
    )
  }

  @Test
  func openedFilesAreNamedAsWritten() throws {
    let dir = try Self.fixture()
    let args = ["--config", "config.json", "--date", "2026-11-30"]

    let bad = dir.run(args)
    #expect(bad.code == .dataError)
    #expect(
      bad.stderr
        == #"menudeck: error: swipes.jsonl:2:34: swipe: 'rigt' is not right or left; use "right" or "left" (lowercase)"#
        + "\n")

    let skipped = dir.run(args + ["--skip-bad-lines", "--rejects", "rejects.jsonl", "-q"])
    #expect(skipped.code == .success)
    #expect(try dir.read("rejects.jsonl").hasPrefix(#"{"file":"swipes.jsonl","line":2,"#))

    let missing = dir.run(["--config", "nope.json"])
    #expect(
      missing.stderr
        == "menudeck: error: nope.json: no such file (the config); check the path\n")

    let missingLog = dir.run(args + ["--history", "old.jsonl"])
    #expect(
      missingLog.stderr
        == "menudeck: error: old.jsonl: no such file (the swipe log); check the path\n"
    )

    let validate = dir.run(["validate", "--config", "config.json"])
    #expect(validate.stderr.hasPrefix("menudeck: error: swipes.jsonl:2:34: "))

    let out = dir.run(args + ["--skip-bad-lines", "--out", "no/decks.json"])
    #expect(out.code == .ioError)
    #expect(
      out.stderr
        == "menudeck: error: no/decks.json: no directory 'no'; create it or choose another --out\n")
  }
}
