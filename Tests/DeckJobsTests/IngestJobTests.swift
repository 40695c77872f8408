import DeckBase
import DeckCore
import DeckIO
import Foundation
import Testing

@testable import DeckJobs

/// A directory of one test's own, removed when the test is done with it.
final class JobTempDir {
  let path: String

  init() throws {
    path =
      URL(fileURLWithPath: NSTemporaryDirectory())
      .appendingPathComponent("menudeck-jobs-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  func file(_ name: String) -> String { path + "/" + name }

  @discardableResult
  func write(_ name: String, _ text: String) throws -> String {
    try Data(text.utf8).write(to: URL(fileURLWithPath: file(name)))
    return file(name)
  }

  func bytes(_ name: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: file(name))))
  }

  func names() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: path).sorted()
  }
}

/// `IngestJob` and `MergeJob` called directly with typed requests, on the sample log.
@Suite struct IngestJobTests {
  static let log = JobTestSupport.root + "/Data/swipes.jsonl"
  static let before = DeckDate.parse("2026-12-01")!

  /// The request of `ingest LOGS --config Config/menudeck.json --before 2026-12-01` into
  /// `snapshot` (`--into` when `adding`, else `--out`).
  static func request(
    _ logs: [String], into snapshot: String, adding: Bool, jobs: Int = 1
  ) throws -> IngestRequest {
    let io = JobTestSupport.io()
    let config = try Inputs.loadConfig(
      "Config/menudeck.json", given: true, mayBeMissing: false, io)
    let settings = RunSettings.readingLogs(
      config, zone: try Inputs.timeZone(config), catalogPath: config.catalog!, logs: logs,
      skipBadLines: false)
    var request = IngestRequest(
      into: RequestedOutput(OutputKey(adding ? "--into" : "--out"), snapshot), adding: adding,
      before: before, settings: settings, rejects: OutputKey("--rejects"),
      plan: OutputPlan(inputs: logs.map { RunOutputs.File("the swipe log", $0) }))
    request.catalogPath = config.catalog
    request.catalog = try Inputs.loadCatalog(config.catalog!, io, delimiter: .comma).0
    request.jobs = jobs
    return request
  }

  @Test func theSampleLogMakesTheSameSnapshotOnOneThreadAndOnFour() throws {
    let dir = try JobTempDir()
    let one = try IngestJob.run(
      try Self.request([Self.log], into: dir.file("one.snap"), adding: false),
      JobTestSupport.io())
    let four = try IngestJob.run(
      try Self.request([Self.log], into: dir.file("four.snap"), adding: false, jobs: 4),
      JobTestSupport.io())
    #expect(try dir.bytes("one.snap") == dir.bytes("four.snap"))
    #expect(one.added.added == 1 && four.added.added == 1)
    #expect(one.added.events > 0)
    #expect(one.added.events == four.added.events)
    #expect(!one.dryRun)
    #expect(try dir.names() == ["four.snap", "one.snap"])
  }

  @Test func aLogTheSnapshotHoldsIsSkippedWithANote() throws {
    let dir = try JobTempDir()
    let snapshot = dir.file("history.snap")
    _ = try IngestJob.run(
      try Self.request([Self.log], into: snapshot, adding: true), JobTestSupport.io())
    let first = try dir.bytes("history.snap")
    let diagnostics = RecordedDiagnostics()
    let again = try IngestJob.run(
      try Self.request([Self.log], into: snapshot, adding: true), JobTestSupport.io(diagnostics))
    #expect(again.added.added == 0)
    #expect(again.added.skipped == 1)
    #expect(try dir.bytes("history.snap") == first)
    #expect(
      diagnostics.lines.contains(
        "note: \(Self.log) is already in \(snapshot) (same content); skipped"))
  }

  @Test func anIngestWhoseLogIsBadLeavesNoSnapshotBehind() throws {
    let dir = try JobTempDir()
    let bad = try dir.write(
      "bad.jsonl",
      """
      {"user":"u1","item":"hiyayakko","swipe":"left","at":"2026-11-16T17:06:18+09:00"}
      {"user":"u1","item":
      """ + "\n")
    let request = try Self.request([bad], into: dir.file("new.snap"), adding: false)
    #expect(throws: DeckIOError.self) { try IngestJob.run(request, JobTestSupport.io()) }
    #expect(try dir.names() == ["bad.jsonl"])
  }

  @Test func aBadLogAddedToASnapshotLeavesItAsItWas() throws {
    let dir = try JobTempDir()
    let snapshot = dir.file("history.snap")
    _ = try IngestJob.run(
      try Self.request([Self.log], into: snapshot, adding: true), JobTestSupport.io())
    let before = try dir.bytes("history.snap")
    let names = try dir.names()
    let bad = try dir.write("bad.jsonl", "{\"user\":\"u1\",\"item\":\n")
    let request = try Self.request([bad], into: snapshot, adding: true)
    #expect(throws: DeckIOError.self) { try IngestJob.run(request, JobTestSupport.io()) }
    #expect(try dir.bytes("history.snap") == before)
    #expect(try dir.names() == (names + ["bad.jsonl"]).sorted())
  }

  @Test func mergingTheShardsOfALogGivesTheSnapshotOfTheLog() throws {
    let dir = try JobTempDir()
    let lines = try String(contentsOfFile: Self.log, encoding: .utf8).split(separator: "\n")
    let half = lines.count / 2
    let a = try dir.write("a.jsonl", lines[..<half].joined(separator: "\n") + "\n")
    let b = try dir.write("b.jsonl", lines[half...].joined(separator: "\n") + "\n")
    for (log, snap) in [(a, "a.snap"), (b, "b.snap")] {
      _ = try IngestJob.run(
        try Self.request([log], into: dir.file(snap), adding: false), JobTestSupport.io())
    }
    let merged = try MergeJob.run(
      MergeRequest(
        snapshots: [dir.file("a.snap"), dir.file("b.snap")],
        out: RequestedOutput(OutputKey("--out"), dir.file("m.snap"))), JobTestSupport.io())
    #expect(merged.count == 2)
    #expect(merged.merged.sources.map(\.path) == [a, b])
    let whole = try IngestJob.run(
      try Self.request([a, b], into: dir.file("whole.snap"), adding: false), JobTestSupport.io())
    #expect(Int(merged.merged.events) == whole.added.events)
    #expect(try dir.bytes("m.snap") == dir.bytes("whole.snap"))
  }
}
