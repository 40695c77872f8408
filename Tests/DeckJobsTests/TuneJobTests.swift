import DeckCore
import DeckEvaluation
import DeckIO
import DeckReports
import DeckStrategies
import Testing

@testable import DeckJobs

/// The built-in strategies of the registry, for the jobs the tests run (no plugins; the run
/// header records nothing of their options).
struct BuiltInStrategies: StrategyMaking {
  func make(_ named: NamedStrategy, fallback: NamedStrategy?) throws -> any RankingStrategy {
    try StrategyRegistry.make(named.use, options: named.options)
  }

  func headerSettings(
    _ strategies: [(name: String, strategy: any RankingStrategy, named: NamedStrategy)]
  ) -> [RunRecord.Setting] { [] }
}

/// `TuneJob` called directly with a typed request, on the sample data.
@Suite struct TuneJobTests {
  /// itemknn's neighbours tuned on the validation of the last 3 days before 2026-11-24.
  static func request(jobs: Int, grid: String = "neighbours=5,10") throws -> TuneRequest {
    let io = JobTestSupport.io()
    let config = try Inputs.loadConfig(
      "Config/menudeck.json", given: true, mayBeMissing: false, io)
    let named = try #require(try config.resolveStrategy("itemknn"))
    let space = try Tuning.space(
      [try Tuning.gridArgument(grid, scoped: false)], for: named, pinned: [])
    let (candidates, duplicates) = try Tuning.settings(
      space, random: nil, seed: config.seed, what: "'itemknn'")
    var settings = RunSettings.readingLogs(
      config, zone: try Inputs.timeZone(config), catalogPath: config.catalog!,
      logs: config.history, seed: config.seed, rules: config.rules, skipBadLines: false)
    settings.hashesHistory = true
    var request = TuneRequest(
      settings: settings, split: .date(try #require(DeckDate(year: 2026, month: 11, day: 24))),
      cut: .days(3), metric: "ndcg_at_10", cutoffs: [10], named: named, candidates: candidates,
      name: "itemknn-tuned", results: RequestedOutput(OutputKey("--results"), nil),
      out: RequestedOutput(OutputKey("--out"), nil))
    request.usersPath = config.users
    request.duplicates = duplicates
    request.jobs = jobs
    request.format = .csv
    return request
  }

  /// The grid the job writes to standard output, and its outcome.
  static func run(_ request: TuneRequest) throws -> ([UInt8], TuneJob.Outcome) {
    let io = JobTestSupport.io()
    let outcome = try TuneJob.run(request, io, strategies: BuiltInStrategies())
    return ((io.standardOutput as! TestOutput).bytes, outcome)
  }

  @Test func theGridIsTheSameOnOneThreadAndOnFour() throws {
    let (one, outcome) = try Self.run(try Self.request(jobs: 1))
    let (four, _) = try Self.run(try Self.request(jobs: 4))
    #expect(!one.isEmpty)
    #expect(one == four)
    #expect(outcome.result.spellings == ["itemknn:neighbours=5", "itemknn:neighbours=10"])
    #expect(outcome.result.selected == outcome.winner)
    let text = String(decoding: one, as: UTF8.self)
    #expect(text.contains("itemknn:neighbours=5") && text.contains("ndcg_at_10"))
  }

  @Test func theReadIsToldBeforeTheTuningAndTheInputsAreHashed() throws {
    let diagnostics = RecordedDiagnostics()
    let io = JobTestSupport.io(diagnostics)
    var events = 0
    _ = try TuneJob.run(try Self.request(jobs: 2), io, strategies: BuiltInStrategies()) {
      events = $0.events
    }
    #expect(events > 0)
    #expect(diagnostics.lines.contains { $0.hasPrefix("info: set aside ") })
    #expect(diagnostics.lines.contains { $0.hasPrefix("info: evaluated 2 settings on ") })
  }

  @Test func aValidationBeforeTheLogsHasNoDinerToTuneOn() throws {
    var request = try Self.request(jobs: 1)
    request.split = .date(try #require(DeckDate(year: 2020, month: 1, day: 1)))
    #expect(
      throws: JobError(
        .dataError,
        "no diner swiped right in the validation (\(request.validationText)): nothing to tune"
          + " on; give more --validation-days, or a later --split")
    ) { try Self.run(request) }
  }
}
