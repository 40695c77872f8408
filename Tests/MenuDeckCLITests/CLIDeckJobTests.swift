import DeckCommandLine
import DeckCore
import DeckJobs
import Foundation
import Testing

@testable import MenuDeckCLI

/// `menudeck deck` is its request, its job and the summary: the job called directly with the
/// request the command builds gives the command's bytes, on one thread and on four.
@Suite struct CLIDeckJobTests {
  /// What the job wrote, kept by the test's command.
  final class Kept: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: (DeckRequest, DeckJob.Outcome?)?
    var value: (DeckRequest, DeckJob.Outcome?)? {
      get { lock.withLock { kept } }
      set { lock.withLock { kept = newValue } }
    }
  }

  @Test(arguments: ["1", "4"])
  func theJobGivesTheCommandsBytes(jobs: String) throws {
    let arguments = ["--date", "2026-11-30", "--format", "jsonl", "--jobs", jobs]
    let run = CLIRun(["deck"] + arguments)
    #expect(run.code == .success, "\(run.stderr)")
    let kept = Kept()
    var spec = deckCommand
    spec.run = { args, context in
      let request = try DeckRequest(args, context)
      kept.value = (request, try DeckJob.run(request, context.job))
      return .success
    }
    let (io, out, err) = CLIStreams.capturing(currentDirectory: CLITest.repoRoot)
    #expect(runCommand(spec, arguments: arguments, io: io) == .success, "\(err.text)")
    let (request, done) = try #require(kept.value)
    let outcome = try #require(done)
    #expect(request.jobs == Int(jobs) && request.settings.format == .jsonl)
    #expect(request.diners == .everyone && request.outputs.path(request.out) == nil)
    #expect(outcome.decks == 48)
    #expect(out.text == run.stdout)
  }

  /// `{date}` in `--out` is the date `--date` resolved to; `--user` and `--diners` clash before
  /// anything is read.
  @Test func theRequestResolvesTheOutputsDateAndRefusesTwoDinerLists() throws {
    var spec = deckCommand
    let kept = Kept()
    spec.run = { args, context in
      kept.value = (try DeckRequest(args, context), nil)
      return .success
    }
    let (io, _, err) = CLIStreams.capturing(currentDirectory: CLITest.repoRoot)
    let code = runCommand(
      spec, arguments: ["--date", "2026-11-30", "--out", "decks-{date}.json", "-u", "u01"], io: io)
    #expect(code == .success, "\(err.text)")
    let request = try #require(kept.value?.0)
    #expect(request.outputs.path(request.out) == "decks-2026-11-30.json")
    #expect(request.diners == .ids(["u01"]))
    let clash = CLIRun(["deck", "--user", "u01", "--diners", "list.txt"])
    #expect(clash.code == .usage)
    #expect(
      clash.stderr.hasPrefix("menudeck: error: give either '--user' or '--diners', not both\n"))
  }
}
