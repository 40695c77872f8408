import DeckCore
import DeckIO
import Foundation
import Testing

@testable import MenuDeckCLI

/// Every limit an error: out-of-range options (64), config values and input data (65), memory
/// (70); never a trap.
@Suite struct CLILimitsTests {
  /// A snapshot of one dish "a" of the CLIExitCodeTests catalog, read in UTC with the relative
  /// drag rule (the fixture config's), with the given diners' right swipes on it.
  static func snapshot(source: String, rights: [(String, Int32)]) -> HistorySnapshot {
    HistorySnapshot(
      sources: [
        HistorySnapshot.Source(
          sha256: String(repeating: source, count: 64), path: source + ".jsonl", bytes: 1,
          lines: 1, events: 1)
      ],
      items: [
        .init(
          id: "a", right: rights.reduce(0) { $0 + Int64($1.1) }, left: 0, positions: [])
      ],
      users: rights.map { id, n in
        .init(
          id: id,
          records: [
            .init(item: 0, right: n, left: 0, lastRight: 20_000, lastLeft: History.never)
          ])
      }, firstDay: 20_000, lastDay: 20_000, timeZone: "UTC", dragRule: "relative")
  }

  // MARK: Snapshots

  @Test func aSnapshotWithAFlippedHeaderIsBadDataNotATrap() throws {
    let dir = try CLIExitCodeTests.fixture()
    var bytes = SnapshotFile.encode(Self.snapshot(source: "a", rights: [("u1", 1)]))
    for k in 13..<21 { bytes[k] ^= 0xff }
    try dir.write("h.snap", bytes)
    let result = dir.run([
      "deck", "--config", dir.file("config.json"), "--history", dir.file("h.snap"), "--date",
      "2026-11-30",
    ])
    #expect(result.code == .dataError)
    #expect(result.stdout == "")
    #expect(
      result.stderr.hasPrefix(
        "Error: \(dir.file("h.snap")): the snapshot's header gives a payload of "))
  }

  @Test func aMergeWhoseSumsOverflowIsBadDataAndWritesNothing() throws {
    let dir = try CLIExitCodeTests.fixture()
    try dir.write(
      "a.snap", SnapshotFile.encode(Self.snapshot(source: "a", rights: [("u1", .max)])))
    try dir.write("b.snap", SnapshotFile.encode(Self.snapshot(source: "b", rights: [("u1", 1)])))
    let result = dir.run([
      "merge", dir.file("a.snap"), dir.file("b.snap"), "--out", dir.file("m.snap"),
    ])
    #expect(result.code == .dataError)
    #expect(
      result.stderr
        == "Error: \(dir.file("b.snap")): the swipes of diner 'u1' on one dish add up to more "
        + "than 2147483647; the snapshots are corrupt or hold too much: merge fewer of them\n")
    #expect(!dir.exists("m.snap"))
  }

  @Test func aSnapshotBeyondWhatADeckHistoryCountsIsBadData() throws {
    let dir = try CLIExitCodeTests.fixture()
    try dir.write(
      "h.snap",
      SnapshotFile.encode(Self.snapshot(source: "a", rights: [("u1", .max), ("u2", 1)])))
    let result = dir.run([
      "deck", "--config", dir.file("config.json"), "--history", dir.file("h.snap"), "--date",
      "2026-11-30",
    ])
    #expect(result.code == .dataError)
    #expect(
      result.stderr
        == "Error: \(dir.file("h.snap")): dish 'a' has more swipes than a deck history counts "
        + "(2147483647); the snapshot is corrupt or holds too much: ingest fewer logs into it\n")
  }

  // MARK: Memory

  @Test func outOfMemoryIsExit70WithItsMessage() {
    let error = DeckCoreError.outOfMemory(what: "the history of 3 diners", bytes: 4_194_304)
    #expect(ExitCode.for(error) == .software)
    #expect(ExitCode.for(error).rawValue == 70)
    #expect(
      ExitCode.message(for: error, program: "menudeck")
        == "out of memory building the history of 3 diners (a block of 4194304 bytes was "
        + "refused); give menudeck more memory (see 'ulimit -v' and the container's memory "
        + "limit) or fewer swipe logs")
    // The other core errors stay data errors.
    #expect(ExitCode.for(DeckCoreError.invalidSnapshot("x")) == .dataError)
  }
}
