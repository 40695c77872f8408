import Foundation
import Testing

@testable import MenuDeckCLI

/// `--out` writes atomically; `--skip-bad-lines --rejects` keeps every skipped line.
@Suite struct CLIOutputFileTests {
  static let good = [
    #"{"user":"u1","item":"a","swipe":"right","at":"2026-11-20T12:00:00Z"}"#,
    #"{"user":"u1","item":"b","swipe":"left","at":"2026-11-20T12:01:00Z"}"#,
    #"{"user":"u2","item":"c","swipe":"left","at":"2026-11-21T12:00:00Z"}"#,
  ]
  static let badSwipe = #"{"user":"u2","item":"a","swipe":"rigt","at":"2026-11-21T12:01:00Z"}"#
  static let badJSON = #"{"user":"u2" "item":"b","swipe":"left","at":"2026-11-21T12:02:00Z"}"#

  static func fixture(history: [String]) throws -> TempDir {
    let dir = try TempDir()
    try dir.write(
      "catalog.json",
      """
      [
        {"id": "a", "name": "A", "category": "x"},
        {"id": "b", "name": "B", "category": "y"},
        {"id": "c", "name": "C", "category": "z"}
      ]
      """)
    try dir.write("swipes.jsonl", history.joined(separator: "\n") + "\n")
    try dir.write("config.json", #"{"catalog": "catalog.json", "history": ["swipes.jsonl"]}"#)
    return dir
  }

  static func deckArgs(_ dir: TempDir) -> [String] {
    ["deck", "--config", dir.file("config.json"), "--date", "2026-11-30"]
  }

  @Test func outWritesTheFileAndNoTemporaryFiles() throws {
    let dir = try Self.fixture(history: Self.good)
    let toStdout = dir.run(Self.deckArgs(dir) + ["--format", "jsonl"])
    let result = dir.run(
      Self.deckArgs(dir) + ["--format", "jsonl", "--out", dir.file("decks.jsonl")])
    #expect(result.code == .success)
    #expect(result.stdout == "")
    #expect(try dir.read("decks.jsonl") == toStdout.stdout)
    #expect(try dir.read("decks.jsonl").split(separator: "\n").count == 2)
    #expect(try dir.names() == ["catalog.json", "config.json", "decks.jsonl", "swipes.jsonl"])
    #expect(
      result.stderr.hasSuffix(
        "menudeck: note: 2 decks (2 short of 10 cards) for 2026-11-30 with 'ease' written to \(dir.file("decks.jsonl"))\n"
      ))
    let attributes = try FileManager.default.attributesOfItem(atPath: dir.path + "/decks.jsonl")
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o644)

    // A second run replaces the file whole.
    let again = dir.run(Self.deckArgs(dir) + ["--format", "csv", "--out", dir.file("decks.jsonl")])
    #expect(again.code == .success)
    #expect(try dir.read("decks.jsonl").hasPrefix("user,date,strategy,seed,rank,item"))
    #expect(try dir.names() == ["catalog.json", "config.json", "decks.jsonl", "swipes.jsonl"])
  }

  @Test func absoluteOutPath() throws {
    let dir = try Self.fixture(history: Self.good)
    let out = dir.path + "/decks.json"
    let result = CLIRun(
      ["deck", "--config", dir.path + "/config.json", "--date", "2026-11-30", "--out", out, "-q"])
    #expect(result.code == .success)
    #expect(result.stderr == "")
    #expect(try dir.read("decks.json").hasPrefix("{\"run\":{\"version\":"))
  }

  @Test func aFailingRunLeavesThePreviousFileIntact() throws {
    let dir = try Self.fixture(history: Self.good + [Self.badSwipe])
    let previous = "yesterday's decks\n"
    try dir.write("decks.json", previous)
    let result = dir.run(Self.deckArgs(dir) + ["--out", dir.file("decks.json")])
    #expect(result.code == .dataError)
    #expect(
      result.stderr
        == "menudeck: error: \(dir.file("swipes.jsonl")):4:34: swipe: 'rigt' is not right or left; "
        + #"use "right" or "left" (lowercase)"# + "\n")
    #expect(try dir.read("decks.json") == previous)
    #expect(try dir.names() == ["catalog.json", "config.json", "decks.json", "swipes.jsonl"])
  }

  @Test func aFailingRunCreatesNoFile() throws {
    let dir = try Self.fixture(history: [Self.badJSON])
    let result = dir.run(Self.deckArgs(dir) + ["--out", dir.file("decks.json")])
    #expect(result.code == .dataError)
    #expect(try dir.names() == ["catalog.json", "config.json", "swipes.jsonl"])
  }

  // MARK: --skip-bad-lines --rejects

  @Test func skippedLinesGoToTheRejectsFileVerbatim() throws {
    let lines = [Self.good[0], Self.badSwipe, Self.good[1], Self.badJSON, Self.good[2]]
    let dir = try Self.fixture(history: lines)
    let result = dir.run(
      Self.deckArgs(dir) + [
        "--format", "jsonl", "--skip-bad-lines", "--rejects", dir.file("rejects.jsonl"),
      ])
    #expect(result.code == .success)
    // At the first skipped line.
    #expect(
      result.stderr.contains(
        "menudeck: warning: \(dir.file("swipes.jsonl")):2: skipped 2 malformed event lines, the "
          + "first on this line\n"), "\(result.stderr)")
    let rejects = try dir.read("rejects.jsonl").split(separator: "\n").map { line in
      try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
    #expect(rejects.count == 2)
    #expect(
      rejects.map { $0["file"] as? String } == [dir.file("swipes.jsonl"), dir.file("swipes.jsonl")])
    #expect(rejects.map { $0["line"] as? Int } == [2, 4])
    #expect(rejects.map { $0["text"] as? String } == [Self.badSwipe, Self.badJSON])
    #expect(rejects[0]["field"] as? String == "swipe")
    #expect((rejects[0]["reason"] as? String)?.contains("'rigt' is not right or left") == true)
    #expect((rejects[1]["reason"] as? String)?.contains("expected ',' or '}'") == true)
    #expect(try dir.names() == ["catalog.json", "config.json", "rejects.jsonl", "swipes.jsonl"])

    // The good lines were learned: the same decks as from a log of only those.
    let clean = try Self.fixture(history: Self.good)
    #expect(clean.run(Self.deckArgs(clean) + ["--format", "jsonl"]).stdout == result.stdout)

    // Without --skip-bad-lines the first bad line stops the run.
    let strict = dir.run(Self.deckArgs(dir) + ["--format", "jsonl"])
    #expect(strict.code == .dataError)
    #expect(strict.stdout == "")
    #expect(
      strict.stderr.hasPrefix("menudeck: error: \(dir.file("swipes.jsonl")):2:34: swipe: 'rigt'"))
  }

  @Test func skipBadLinesWithoutRejectsStillCounts() throws {
    let dir = try Self.fixture(history: [Self.badSwipe] + Self.good + [Self.badJSON])
    let result = dir.run(Self.deckArgs(dir) + ["--format", "jsonl", "--skip-bad-lines"])
    #expect(result.code == .success)
    #expect(
      result.stderr.contains(
        "menudeck: warning: \(dir.file("swipes.jsonl")):1: skipped 2 malformed event lines, the "
          + "first on this line\n"), "\(result.stderr)")
    #expect(try dir.names() == ["catalog.json", "config.json", "swipes.jsonl"])
  }

  @Test func rejectsFromCSVLogs() throws {
    let dir = try Self.fixture(history: [])
    let csv = """
      user,item,swipe,at
      u1,a,right,2026-11-20T12:00:00Z
      u1,b,sideways,2026-11-20T12:01:00Z
      u2,c,left,not-a-date

      """
    try dir.write("swipes.csv", csv)
    let result = dir.run(
      Self.deckArgs(dir) + [
        "--history", dir.file("swipes.csv"), "--skip-bad-lines", "--rejects",
        dir.file("rejects.jsonl"), "-q",
      ])
    #expect(result.code == .success)
    let rejects = try dir.read("rejects.jsonl").split(separator: "\n").map { line in
      try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
    #expect(
      rejects.map { $0["file"] as? String } == [dir.file("swipes.csv"), dir.file("swipes.csv")])
    #expect(rejects.map { $0["line"] as? Int } == [3, 4])
    #expect(
      rejects.map { $0["text"] as? String } == [
        "u1,b,sideways,2026-11-20T12:01:00Z", "u2,c,left,not-a-date",
      ])
  }
}
