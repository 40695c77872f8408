import DeckCore
import DeckEvaluation
import DeckIO
import DeckReports
import DeckStrategies
import Foundation
import Testing

@testable import DeckJobs

/// `CompareJob` called directly with a typed request, on the sample data: no argument is
/// parsed and no command runs.
@Suite struct CompareJobTests {
  /// `compare -s popularity -s random --baseline popularity --split 2026-11-24
  /// --resamples 200 --format csv Data/swipes.jsonl` as a request.
  static func request(jobs: Int, baseline: String = "popularity", trec: String? = nil) throws
    -> CompareRequest
  {
    let io = JobTestSupport.io()
    let config = try Inputs.loadConfig(
      "Config/menudeck.json", given: true, mayBeMissing: false, io)
    let logs = ["Data/swipes.jsonl"]
    let split = LogSplit.date(try #require(DeckDate(year: 2026, month: 11, day: 24)))
    var settings = RunSettings.readingLogs(
      config, zone: try Inputs.timeZone(config), catalogPath: config.catalog!, logs: logs,
      seed: config.seed, rules: config.rules, skipBadLines: false)
    settings.hashesHistory = true
    var logsRequest = CompareLogsRequest(
      settings: settings, usersPath: config.users, split: split, cutoffs: [config.rules.size])
    logsRequest.jobs = jobs
    logsRequest.trec = trec
    var resampling = ResamplingOptions()
    resampling.resamples = 200
    resampling.seed = config.seed
    var request = CompareRequest(
      config: config, mode: .logs(logsRequest), names: ["popularity", "random"],
      strategies: try ["popularity", "random"].map { try #require(try config.resolveStrategy($0)) },
      out: .init(OutputKey("--out"), nil), report: .init(OutputKey("--report"), nil),
      perDiner: .init(OutputKey("--per-diner"), nil), trec: OutputKey("--trec"),
      run: RunRecord(version: "test", command: "compare", arguments: [], inputs: []))
    request.format = .csv
    request.resampling = resampling
    request.baseline = baseline
    return request
  }

  /// The job's standard output for `request`.
  static func output(_ request: CompareRequest) throws -> [UInt8] {
    let out = TestOutput()
    var io = JobTestSupport.io()
    io.standardOutput = out
    _ = try CompareJob.run(request, io, strategies: BuiltInStrategies())
    return out.bytes
  }

  @Test func theJobWritesWhatTheCommandWrites() throws {
    // The same comparison as `menudeck compare` writes it (CLICompareGoldenTests checks the
    // command against the same file).
    let golden = try Data(
      contentsOf: URL(
        fileURLWithPath: JobTestSupport.root
          + "/Tests/MenuDeckCLITests/Golden/compare-logs.csv"))
    #expect(try Self.output(try Self.request(jobs: 1)) == Array(golden))
  }

  @Test func oneThreadAndFourWriteTheSameBytes() throws {
    let one = try Self.output(try Self.request(jobs: 1))
    let four = try Self.output(try Self.request(jobs: 4))
    #expect(!one.isEmpty)
    #expect(one == four)
  }

  @Test func aBaselineThatIsNotComparedIsRefusedBeforeTheLogsAreRead() throws {
    let request = try Self.request(jobs: 1, baseline: "affinity")
    #expect(
      throws: JobError.usage(
        "the baseline 'affinity' is not among the compared strategies; compared: popularity,"
          + " random")
    ) { try Self.output(request) }
  }

  @Test func theTrecFilesAreWrittenWithTheComparison() throws {
    let dir = FileManager.default.temporaryDirectory
      .appendingPathComponent("compare-job-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let output = try Self.output(try Self.request(jobs: 1, trec: dir))
    #expect(!output.isEmpty)
    let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
    #expect(names == ["popularity.run", "qrels.txt", "random.run", "train.csv"])
    let run = try String(contentsOfFile: dir + "/popularity.run", encoding: .utf8)
    #expect(run.split(separator: "\n").first?.hasSuffix(" popularity") == true)
  }
}
