import DeckCommandLine
import DeckEvaluation
import DeckIO
import DeckJobs
import DeckReports
import Foundation
import Testing

@testable import MenuDeckCLI

/// `menudeck stats` is its request, its job and the report written: the job called directly
/// with the request the command builds gives the command's bytes.
@Suite struct CLIStatsJobTests {
  /// What the job gave, kept by the test's command.
  final class Kept: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: (StatsRequest, [UInt8])?
    var value: (StatsRequest, [UInt8])? {
      get { lock.withLock { kept } }
      set { lock.withLock { kept = newValue } }
    }
  }

  @Test(arguments: ["1", "3"])
  func theJobGivesTheCommandsBytes(jobs: String) throws {
    let arguments = ["--format", "csv", "--jobs", jobs]
    let run = CLIRun(["stats"] + arguments)
    #expect(run.code == .success, "\(run.stderr)")
    let kept = Kept()
    var spec = statsCommand
    spec.run = { args, context in
      let request = try StatsRequest(args, context)
      let outcome = try StatsJob.run(request, context.job)
      kept.value = (request, outcome.report.render(request.format))
      return .success
    }
    let (io, _, err) = CLIStreams.capturing(currentDirectory: CLITest.repoRoot)
    #expect(runCommand(spec, arguments: arguments, io: io) == .success, "\(err.text)")
    let (request, bytes) = try #require(kept.value)
    #expect(request.format == .csv && request.jobs == Int(jobs))
    #expect(bytes == run.stdoutBytes)
  }
}
