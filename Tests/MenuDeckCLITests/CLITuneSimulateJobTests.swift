import DeckCommandLine
import DeckJobs
import Foundation
import Testing

@testable import MenuDeckCLI

/// `menudeck tune` and `menudeck simulate` are their requests, their jobs and the summary: each
/// job called directly with the request the command builds gives the command's bytes.
@Suite struct CLITuneSimulateJobTests {
  /// Runs `spec` on `arguments` in process with its `run` replaced by `body`; the bytes of
  /// standard output.
  static func direct(
    _ spec: CommandSpec, _ arguments: [String],
    _ body: @escaping @Sendable (ParsedArguments, CommandContext) throws -> Void
  ) -> [UInt8] {
    var spec = spec
    spec.run = { args, context in
      try body(args, context)
      return .success
    }
    let (io, out, err) = CLIStreams.capturing(currentDirectory: CLITest.repoRoot)
    #expect(runCommand(spec, arguments: arguments, io: io) == .success, "\(err.text)")
    return out.bytes
  }

  @Test(arguments: ["1", "4"])
  func theTuneJobGivesTheCommandsBytes(jobs: String) throws {
    let arguments = [
      "--split", "2026-11-24", "--validation-days", "3", "-s", "itemknn", "--grid",
      "neighbours=5,10", "--format", "csv", "--jobs", jobs, "Data/swipes.jsonl",
    ]
    let run = CLIRun(["tune"] + arguments)
    #expect(run.code == .success, "\(run.stderr)")
    let bytes = Self.direct(tuneCommand, arguments) { args, context in
      let request = try TuneRequest(args, context)
      #expect(request.jobs == Int(jobs) && request.candidates.count == 2)
      _ = try TuneJob.run(request, context.job, strategies: RunStrategies(context.job))
    }
    #expect(!bytes.isEmpty)
    #expect(bytes == run.stdoutBytes)
  }

  @Test(arguments: ["1", "4"])
  func theSimulateJobGivesTheCommandsBytes(jobs: String) throws {
    let arguments = [
      "--users", "30", "--days", "3", "--start", "2026-11-01", "-s", "popularity", "-s",
      "random", "--format", "csv", "--jobs", jobs,
    ]
    let run = CLIRun(["simulate"] + arguments)
    #expect(run.code == .success, "\(run.stderr)")
    let bytes = Self.direct(simulateCommand, arguments) { args, context in
      let request = try SimulateRequest(args, context)
      #expect(request.parameters.jobs == Int(jobs) && request.names == ["popularity", "random"])
      _ = try SimulateJob.run(
        request, context.job, strategies: RunStrategies(context.job))
    }
    #expect(!bytes.isEmpty)
    #expect(bytes == run.stdoutBytes)
  }
}
