import DeckEvaluation
import DeckIO
import DeckReports
import Testing

@testable import DeckJobs

/// `StatsJob` called directly with a typed request, on the sample data.
@Suite struct StatsJobTests {
  static func request(jobs: Int, logs: [String]? = nil) throws -> StatsRequest {
    let io = JobTestSupport.io()
    let config = try Inputs.loadConfig(
      "Config/menudeck.json", given: true, mayBeMissing: false, io)
    let logs = logs ?? config.history
    var settings = RunSettings.readingLogs(
      config, zone: try Inputs.timeZone(config), catalogPath: config.catalog!, logs: logs,
      skipBadLines: false)
    settings.hashesHistory = true
    return StatsRequest(
      settings: settings, options: StatsOptions(deckSize: config.rules.size, repeatWindowDays: nil),
      format: .csv,
      jobs: jobs)
  }

  @Test func theSampleLogsGiveTheSameReportOnOneThreadAndOnFour() throws {
    let one = try StatsJob.run(try Self.request(jobs: 1), JobTestSupport.io())
    let four = try StatsJob.run(try Self.request(jobs: 4), JobTestSupport.io())
    #expect(one.report.render(.csv) == four.report.render(.csv))
    #expect(one.inputs == four.inputs)
    #expect(one.inputs.map(\.role) == ["config", "catalog", "history"])
    let read = try #require(one.read)
    #expect(read.events > 0)
    #expect(one.report.rows.contains { $0.day == nil })
  }

  @Test func aMissingLogIsRefusedBeforeAnythingIsRead() throws {
    let request = try Self.request(jobs: 1, logs: ["Data/no-such-log.jsonl"])
    #expect(
      throws: DeckIOError.missingFile(
        path: "Data/no-such-log.jsonl", what: "swipe log",
        check: DeckIOError.checkPath)
    ) { try StatsJob.run(request, JobTestSupport.io()) }
  }
}
