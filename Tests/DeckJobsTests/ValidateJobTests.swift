import DeckBase
import DeckCore
import DeckIO
import DeckStrategies
import Foundation
import Testing

@testable import DeckJobs

/// `ValidateJob` called directly with a typed request, on the sample data.
@Suite struct ValidateJobTests {
  /// The request of `validate --config Config/menudeck.json`, with `history` for the config's.
  static func request(history: [String]? = nil) throws -> ValidateRequest {
    let io = JobTestSupport.io()
    let config = try Inputs.loadConfig(
      "Config/menudeck.json", given: true, mayBeMissing: false, io)
    let strategy = try #require(try config.resolveStrategy(config.strategy))
    let settings = RunSettings(
      config: config, catalogPath: config.catalog!, usersPath: config.users,
      historyPaths: history ?? config.history, strategyName: config.strategy,
      strategy: strategy, seed: config.seed, date: DeckDate.parse("2026-11-30")!,
      zone: try Inputs.timeZone(config), format: config.format, rules: config.rules,
      skipBadLines: false, rejectsPath: nil)
    return ValidateRequest(
      config: .success(config), configGiven: "Config/menudeck.json", settings: .success(settings))
  }

  static func run(_ request: ValidateRequest) -> ValidateJob.Findings {
    ValidateJob.run(request, JobTestSupport.io(), strategies: BuiltInStrategies())
  }

  @Test func theSampleInputsAreValidAndEachHasItsRow() throws {
    let found = Self.run(try Self.request())
    #expect(found.problems.isEmpty)
    #expect(found.rows.map(\.input) == ["config", "catalog", "users", "strategy", "history"])
    #expect(found.rows[3].status == "ok (ease)")
    #expect(found.hashed.map(\.role) == ["config", "catalog", "users", "history"])
    #expect(try #require(found.history).events > 0)
  }

  @Test func everyBadLineOfALogIsAnErrorOfItsOwn() throws {
    let dir = try JobTempDir()
    let log = try dir.write(
      "bad.jsonl",
      """
      {"user":"u1","item":"hiyayakko","swipe":"left","at":"2026-11-16T17:06:18+09:00"}
      {"user":"u1","item":
      {"user":"u2","item":"hiyayakko","swipe":"sideways","at":"2026-11-16T17:06:18+09:00"}
      """ + "\n")
    let found = Self.run(try Self.request(history: [log]))
    let lines = found.problems.compactMap { problem -> Int? in
      guard case .error(let error) = problem,
        case .malformed(let location, _)? = error as? DeckIOError
      else { return nil }
      return location.line
    }
    #expect(lines == [2, 3])
    #expect(found.problems.count == 2)
    #expect(found.rows.last?.status.hasSuffix("2 bad lines") == true)
  }

  @Test func aConfigThatCannotBeReadIsTheOnlyErrorWhenNothingElseCanBeChecked() throws {
    let missing = JobError(.noInput, "no catalog")
    let found = Self.run(
      ValidateRequest(
        config: .failure(DeckIOError.missingFile(path: "x.json", what: "config", check: "")),
        configGiven: "x.json", settings: .failure(missing)))
    #expect(found.problems.count == 1)
    #expect(found.rows.map(\.status) == ["invalid"])
    #expect(found.rows[0].path == "x.json")
  }

  @Test func theJSONReportNamesEachErrorWhereItIs() throws {
    let found = Self.run(try Self.request())
    let error = ValidateJob.ReportedError(
      exitCode: 65, code: "malformed_input", text: "a.jsonl:2:3: bad", message: "bad",
      location: SourceLocation(file: "a.jsonl", line: 2, column: 3))
    let run = RunRecord(version: "0", command: "validate", arguments: [], inputs: found.hashed)
    let text = ValidateJob.report(found, errors: [error], exitCode: 65, run: run)
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    #expect(json["valid"] as? Bool == false)
    #expect(json["exit_code"] as? Int == 65)
    let errors = try #require(json["errors"] as? [[String: Any]])
    #expect(errors.count == 1)
    #expect(errors[0]["line"] as? Int == 2)
    #expect(errors[0]["column"] as? Int == 3)
    #expect(errors[0]["field"] is NSNull)
    #expect((json["inputs"] as? [Any])?.count == found.rows.count)
    #expect(text.hasSuffix("}\n"))
  }
}
