import Foundation
import Testing

/// Scripts/peers.py's sections that need no peers (no venv, no network), small, through the built
/// binary: `--only ingest,json` on 3,000 generated swipes. The ingest section runs the log at 1x
/// and 2x (the second copy a year later) into snapshots, and the targets block closes the run.
/// Nothing here asserts a time.
@Suite(
  .enabled(if: SelfTestPython.path != nil, "python3 is not on the PATH"),
  .enabled(if: MenudeckBinary.path != nil, "the menudeck binary is not built"))
struct PeersScriptTests {
  @Test func ingestAndJSONSectionsEndWithTheTargets() throws {
    let dir = FileManager.default.temporaryDirectory
      .appendingPathComponent("menudeck-peers-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dir) }
    let (status, output) = try SelfTestPython.run(
      "peers.py",
      [
        "--menudeck", try #require(MenudeckBinary.path), "--events", "3000", "--diners", "300",
        "--dishes", "20", "--rounds", "1", "--only", "ingest,json", "--ingest-scales", "2,1",
        "--keep", dir.path,
      ])
    #expect(status == 0, "\(output)")
    let lines = output.split(separator: "\n").map(String.init)
    #expect(lines.contains { $0.hasPrefix("   1x:       3,000 events,") }, "\(output)")
    #expect(lines.contains { $0.hasPrefix("   2x:       6,000 events,") }, "\(output)")
    #expect(output.contains("ratio json / jsonl "), "\(output)")
    #expect(!output.contains("duckdb") && !output.contains("numpy"), "\(output)")
    // The targets block comes last: one line per target, each met or not.
    let block = try #require(lines.firstIndex { $0.hasPrefix("targets (issue 30") })
    let targets = lines[(block + 1)...]
    #expect(targets.count == 3, "\(output)")
    #expect(targets.allSatisfy { $0.hasSuffix("  met") || $0.hasSuffix("  not met") }, "\(output)")
    #expect(targets.contains { $0.contains("deck --format json / jsonl") }, "\(output)")
    #expect(targets.contains { $0.contains("ingest, CPU ns/event: max / min") }, "\(output)")
    #expect(targets.contains { $0.contains("ingest, peak memory 2x / 1x") }, "\(output)")
    // The 2x log: the header once, then the log and the log a year later.
    let log = try String(contentsOf: dir.appendingPathComponent("log.csv"), encoding: .utf8)
    let doubled = try String(
      contentsOf: dir.appendingPathComponent("ingest-scales/log-2x.csv"), encoding: .utf8)
    let body = log.drop { $0 != "\n" }.dropFirst()
    #expect(
      doubled
        == log + body.replacingOccurrences(of: ",2026-", with: ",2027-"))
    #expect(
      FileManager.default.fileExists(
        atPath: dir.appendingPathComponent("ingest-scales/history-2x.snap").path))
  }
}
