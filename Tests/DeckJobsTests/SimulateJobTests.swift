import DeckCore
import DeckEvaluation
import DeckIO
import DeckReports
import DeckSimulation
import Foundation
import Testing

@testable import DeckJobs

/// `SimulateJob` called directly with a typed request, on the sample catalog.
@Suite struct SimulateJobTests {
  static func request(jobs: Int, diners: SimulationParameters.Diners = .count(40)) throws
    -> SimulateRequest
  {
    let io = JobTestSupport.io()
    let config = try Inputs.loadConfig(
      "Config/menudeck.json", given: true, mayBeMissing: false, io)
    let parameters = SimulationParameters(
      config: config, catalogPath: config.catalog!, delimiters: config.csvDelimiters,
      diners: diners, simulation: config.simulation, seed: 7, rules: config.rules,
      start: try #require(DeckDate(year: 2026, month: 11, day: 1)), days: 4,
      zone: try Inputs.timeZone(config), jobs: jobs)
    let names = ["popularity", "random"]
    var request = SimulateRequest(
      parameters: parameters, names: names,
      strategies: try names.map { try #require(try config.resolveStrategy($0)) },
      out: RequestedOutput(OutputKey("--out"), nil),
      events: RequestedOutput(OutputKey("--events"), nil),
      run: RunRecord(version: "test", command: "simulate", arguments: [], inputs: []))
    request.format = .csv
    return request
  }

  static func run(_ request: SimulateRequest) throws -> ([UInt8], SimulateJob.Outcome) {
    let io = JobTestSupport.io()
    let outcome = try SimulateJob.run(request, io, strategies: BuiltInStrategies())
    return ((io.standardOutput as! TestOutput).bytes, outcome)
  }

  @Test func theStatsAreTheSameOnOneThreadAndOnFour() throws {
    let (one, outcome) = try Self.run(try Self.request(jobs: 1))
    let (four, other) = try Self.run(try Self.request(jobs: 4))
    #expect(!one.isEmpty)
    #expect(one == four)
    #expect(outcome.setup.population.count == 40 && outcome.setup.days == 4)
    #expect(outcome.sessions == other.sessions && outcome.swipes == other.swipes)
    #expect(outcome.sessions > 0 && outcome.swipes >= outcome.sessions)
    let text = String(decoding: one, as: UTF8.self)
    #expect(text.contains("popularity") && text.contains("random"))
  }

  @Test func anEmptyUsersFileIsADataError() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
      "simulate-job-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let users = dir.appendingPathComponent("users.json").path
    try Data("[]".utf8).write(to: URL(fileURLWithPath: users))
    let request = try Self.request(jobs: 1, diners: .file(users))
    #expect(throws: JobError(.dataError, "\(users): the users file has no users to simulate")) {
      try Self.run(request)
    }
  }
}
