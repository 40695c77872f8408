import Foundation
import Testing

@testable import MenuDeckCLI

/// The built `menudeck` binary, next to the test bundle (SwiftPM puts both in the same build
/// directory) or in the repository's .build/debug; nil when neither exists.
enum MenudeckBinary {
  static let path: String? = {
    var candidates: [String] = []
    if let executable = Bundle.main.executableURL {
      candidates.append(
        executable.deletingLastPathComponent().appendingPathComponent("menudeck").path)
    }
    candidates.append(
      Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("menudeck").path)
    candidates.append(CLITest.repoRoot + "/.build/debug/menudeck")
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
  }()

  struct Result {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// Runs the binary in the repository root; stdout and stderr go to separate files so that a
  /// large output cannot fill a pipe.
  static func run(_ arguments: [String], stdin: String? = nil) throws -> Result {
    let dir = try TempDir("menudeck-process")
    let outURL = dir.url("stdout")
    let errURL = dir.url("stderr")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try #require(path))
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: CLITest.repoRoot)
    let out = try FileHandle(forWritingTo: outURL)
    let err = try FileHandle(forWritingTo: errURL)
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    process.waitUntilExit()
    try out.close()
    try err.close()
    return Result(
      status: process.terminationStatus, stdout: try dir.read("stdout"),
      stderr: try dir.read("stderr"))
  }
}

@Suite(
  .enabled(
    if: MenudeckBinary.path != nil,
    "menudeck binary not found next to the test bundle or in .build/debug; run swift build first"))
struct CLIProcessTests {
  @Test func version() throws {
    let result = try MenudeckBinary.run(["--version"])
    #expect(result.status == 0)
    #expect(result.stdout == menudeckVersion + "\n")
    #expect(result.stderr == "")
  }

  @Test func jsonlOnStdoutSummaryOnStderr() throws {
    let result = try MenudeckBinary.run(["deck", "--date", "2026-11-30", "--format", "jsonl"])
    #expect(result.status == 0)
    #expect(result.stderr == "menudeck: note: 48 decks for 2026-11-30 with 'ease'\n")
    #expect(result.stdout.hasSuffix("\n"))
    let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    #expect(lines.count == 48)
    for line in lines {
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      #expect(object?["user"] is String, "not a deck: \(line.prefix(80))")
    }
    // The same bytes as the in-process run.
    #expect(result.stdout == CLIRun(["deck", "--date", "2026-11-30", "--format", "jsonl"]).stdout)
  }

  @Test func usageErrorExitsWith64AndWritesOnlyToStderr() throws {
    let result = try MenudeckBinary.run(["deck", "--dat", "2026-11-30"])
    #expect(result.status == 64)
    #expect(result.stdout == "")
    #expect(
      result.stderr
        == "menudeck: error: unknown option '--dat' (did you mean '--date'?)\n"
        + CLITest.deckHelpNote)
  }

  /// A CSV log on the process's own standard input: told from JSON Lines by its first character,
  /// which is read ahead and then read again; a long log crosses the 4 KiB read ahead.
  @Test func csvHistoryFromRealStandardInput() throws {
    let json = #"{"user":"p1","item":"nikujaga","swipe":"right","at":"2026-11-29T12:00:00+09:00"}"#
    let csv = "user,item,swipe,at\np1,nikujaga,right,2026-11-29T12:00:00+09:00\n"
    let arguments = [
      "deck", "--date", "2026-11-30", "--format", "jsonl", "--history", "-", "--user", "p1",
    ]
    let fromJSON = try MenudeckBinary.run(arguments, stdin: json + "\n")
    let fromCSV = try MenudeckBinary.run(arguments, stdin: csv)
    #expect(fromCSV.status == 0, "\(fromCSV.stderr)")
    #expect(fromCSV.stdout == fromJSON.stdout)
    // 3,000 left swipes of other diners on one dish after it: every line is read.
    let long =
      csv
      + (0..<3000).map { "x\($0 % 40),miso-soup,left,2026-11-2\($0 % 9)T08:00:00Z\n" }.joined()
    let fromLong = try MenudeckBinary.run(arguments, stdin: long)
    #expect(fromLong.status == 0, "\(fromLong.stderr)")
    let counted = try MenudeckBinary.run(["validate", "--history", "-"], stdin: long)
    #expect(counted.stdout.contains("3002 lines, 3001 swipes (1 right, 3000 left)"))
    // A foreign CSV with a column mapping, from standard input too.
    let rated = "uid,dish,stars,when\np1,nikujaga,5,2026-11-29T12:00:00+09:00\n"
    let mapped = try MenudeckBinary.run(
      arguments + [
        "--columns", "user=uid,item=dish,rating=stars,at=when", "--right", "rating>=4", "--left",
        "rating<=2",
      ], stdin: rated)
    #expect(mapped.status == 0, "\(mapped.stderr)")
    #expect(mapped.stdout == fromJSON.stdout)
  }

  @Test func historyFromRealStandardInput() throws {
    let log = #"{"user":"p1","item":"nikujaga","swipe":"right","at":"2026-11-29T12:00:00+09:00"}"#
    let result = try MenudeckBinary.run(
      ["deck", "--date", "2026-11-30", "--format", "jsonl", "--history", "-", "--user", "p1"],
      stdin: log + "\n")
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix(#"{"user":"p1","date":"2026-11-30""#))
    #expect(!result.stdout.contains(#""item":"nikujaga""#))
    #expect(result.stderr == "menudeck: note: 1 deck for 2026-11-30 with 'ease'\n")
  }
}
