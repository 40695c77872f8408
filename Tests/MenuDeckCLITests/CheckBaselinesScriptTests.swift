import Foundation
import Testing

/// `python3` on the PATH, for the self-test of Scripts/check-baselines.py (the standard library
/// only: the test installs nothing and needs no venv).
enum SelfTestPython {
  static let path: String? = {
    let environment = ProcessInfo.processInfo.environment
    return (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
      .map { "\($0)/python3" }
      .first { FileManager.default.isExecutableFile(atPath: $0) }
  }()

  /// Runs a script of Scripts/ from the repository's root: its exit status and its output
  /// (standard output and error together).
  static func run(_ script: String, _ arguments: [String]) throws -> (status: Int32, output: String)
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try #require(path))
    process.arguments = [CLITest.repoRoot + "/Scripts/" + script] + arguments
    process.currentDirectoryURL = URL(fileURLWithPath: CLITest.repoRoot)
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, output)
  }
}

/// The pure parts of Scripts/check-baselines.py (its nDCG, the seeded hold-out and temporal
/// splits, the rankings that exclude what a diner swiped, the TREC files, the paired
/// difference) pass its `--self-test`. The reference fits themselves need its venv and the
/// real data, and run by hand (docs/real-data.md).
@Suite(.enabled(if: SelfTestPython.path != nil, "python3 is not on the PATH"))
struct CheckBaselinesScriptTests {
  @Test func selfTestPasses() throws {
    let (status, output) = try SelfTestPython.run("check-baselines.py", ["--self-test"])
    #expect(status == 0, "\(output)")
    #expect(output.hasSuffix("self-test: PASS\n"), "\(output)")
    #expect(!output.contains("FAIL"), "\(output)")
    // Every check ran: one line each.
    #expect(output.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count >= 19, "\(output)")
  }
}
