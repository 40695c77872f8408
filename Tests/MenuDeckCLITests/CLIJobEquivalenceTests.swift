import DeckCommandLine
import DeckCore
import DeckIO
import DeckJobs
import DeckStrategies
import Foundation
import Testing

@testable import MenuDeckCLI

/// `ingest`, `merge`, `validate` and `import` write what their jobs give: each job called
/// directly with a request built by hand writes the same bytes as the command run in process.
@Suite struct CLIJobEquivalenceTests {
  static let config = CLITest.repoRoot + "/Config/menudeck.json"
  static let log = CLITest.repoRoot + "/Data/swipes.jsonl"

  /// A job's streams in `directory`, printed as a command's are.
  static func io(in directory: String) -> JobIO {
    CLIStreams.capturing(currentDirectory: directory).io.job
  }

  static func loadConfig(_ io: JobIO) throws -> MenuDeckConfig {
    try Inputs.loadConfig(config, given: true, mayBeMissing: false, io)
  }

  @Test func ingestWritesTheSnapshotItsJobMakes() throws {
    let dir = try TempDir()
    let result = dir.run([
      "ingest", Self.log, "--config", Self.config, "--before", "2026-12-01", "--out",
      dir.file("cli.snap"),
    ])
    #expect(result.code == .success)
    let io = Self.io(in: dir.path)
    let config = try Self.loadConfig(io)
    var request = IngestRequest(
      into: RequestedOutput(.out, dir.file("job.snap")), adding: false,
      before: DeckDate.parse("2026-12-01")!,
      settings: RunSettings.readingLogs(
        config, zone: try Inputs.timeZone(config), catalogPath: config.catalog!,
        logs: [Self.log], skipBadLines: false),
      rejects: .rejects)
    request.catalogPath = config.catalog
    request.catalog = try Inputs.loadCatalog(
      config.catalog!, io, delimiter: config.csvDelimiters.catalog
    ).0
    let outcome = try IngestJob.run(request, io)
    #expect(try CLITest.bytes(dir.file("job.snap")) == CLITest.bytes(dir.file("cli.snap")))
    #expect(
      result.stderr.contains(
        Ingest.summary(outcome, request).replacing("job.snap", with: "cli.snap")))
  }

  @Test func mergeWritesTheSnapshotItsJobMakes() throws {
    let dir = try TempDir()
    let lines = try String(contentsOfFile: Self.log, encoding: .utf8).split(separator: "\n")
    let a = try dir.write("a.jsonl", lines[..<1000].joined(separator: "\n") + "\n")
    let b = try dir.write("b.jsonl", lines[1000...].joined(separator: "\n") + "\n")
    for (log, snap) in [(a, "a.snap"), (b, "b.snap")] {
      let made = dir.run([
        "ingest", log, "--config", Self.config, "--before", "2026-12-01", "--out",
        dir.file(snap),
      ])
      #expect(made.code == .success)
    }
    let snapshots = [dir.file("a.snap"), dir.file("b.snap")]
    #expect(dir.run(["merge"] + snapshots + ["--out", dir.file("cli.snap")]).code == .success)
    let outcome = try MergeJob.run(
      MergeRequest(snapshots: snapshots, out: RequestedOutput(.out, dir.file("job.snap"))),
      Self.io(in: dir.path))
    #expect(outcome.count == 2)
    #expect(try CLITest.bytes(dir.file("job.snap")) == CLITest.bytes(dir.file("cli.snap")))
  }

  @Test func validatePrintsTheRowsItsJobFinds() throws {
    let result = CLIRun(["validate", "--config", Self.config])
    #expect(result.code == .success)
    let io = Self.io(in: CLITest.repoRoot)
    let config = try Self.loadConfig(io)
    let strategy = try #require(try config.resolveStrategy(config.strategy))
    let settings = RunSettings(
      config: config, catalogPath: config.catalog!, usersPath: config.users,
      historyPaths: config.history, strategyName: config.strategy, strategy: strategy,
      seed: config.seed, date: DeckDate.parse("2026-11-30")!,
      zone: try Inputs.timeZone(config), format: config.format, rules: config.rules,
      skipBadLines: false, rejectsPath: nil)
    let found = ValidateJob.run(
      ValidateRequest(
        config: .success(config), configGiven: Self.config, settings: .success(settings)), io,
      strategies: RunStrategies(io))
    #expect(found.problems.isEmpty)
    let rows = found.rows.map { $0.rendered + "\n" }.joined()
    #expect(result.stdout == rows + "valid\n")
  }

  @Test func importWritesTheFilesItsJobWrites() throws {
    let dir = try CLIImportTests.movieLensDir()
    #expect(dir.run(["import", "movielens", "ml", "--out", "cli"]).code == .success)
    let outcome = try ImportJob.run(
      ImportRequest(dataSet: .movielens, directory: "ml", out: "job", outKey: .out),
      Self.io(in: dir.path))
    #expect(outcome.imported.items.count == 4)
    for name in ["catalog.csv", "menudeck.json"] {
      #expect(try CLITest.bytes(dir.file("job/" + name)) == CLITest.bytes(dir.file("cli/" + name)))
    }
  }
}
