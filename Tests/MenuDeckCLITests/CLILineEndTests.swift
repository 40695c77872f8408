import DeckBase
import Foundation
import Testing

@testable import DeckIO
@testable import MenuDeckCLI

/// CR-only line ends (old Mac files) through the commands: every reader of line records (logs,
/// CSV files) refuses them with the same message at the first CR (exit 65), never 0 swipes from
/// a full file; CRLF reads as LF; JSON documents read the same with any of them.
@Suite struct CLILineEndTests {
  static let config = CLITest.repoRoot + "/Config/menudeck.json"

  /// The repository's file `relative` with its line ends made `eol` ("\r" or "\r\n").
  static func converted(_ relative: String, _ eol: String) throws -> String {
    let text = String(decoding: try CLITest.repoFile(relative), as: UTF8.self)
    return text.replacingOccurrences(of: "\n", with: eol)
  }

  /// `error: <path>:1:<column>: <the message>`, the line of stderr that names the first CR.
  static func loneCRLine(_ path: String, column: Int) -> String {
    "menudeck: error: \(path):1:\(column): \(loneCarriageReturnMessage)"
  }

  /// Column of the first CR of the CR-only version of `relative` (its first line's length + 1).
  static func firstCR(_ relative: String) throws -> Int {
    let text = String(decoding: try CLITest.repoFile(relative), as: UTF8.self)
    return text.split(separator: "\n", omittingEmptySubsequences: false)[0].unicodeScalars.count
      + 1
  }

  @Test(arguments: ["Data/swipes.csv", "Data/swipes.jsonl"])
  func validateRefusesALogWithCROnlyLineEnds(_ log: String) throws {
    let dir = try TempDir()
    let name = (log as NSString).lastPathComponent
    let path = try dir.write(name, try Self.converted(log, "\r"))
    let result = dir.run(["validate", "--config", Self.config, "--history", path])
    #expect(result.code == .dataError)
    #expect(!result.stdout.contains("\nvalid\n"))
    #expect(result.stdout.hasSuffix("invalid: 1 error, 0 warnings\n"))
    #expect(result.stderr == Self.loneCRLine(path, column: try Self.firstCR(log)) + "\n")
  }

  @Test(arguments: ["Data/swipes.csv", "Data/swipes.jsonl"])
  func validateReadsALogWithCRLFLineEndsAsWithLF(_ log: String) throws {
    let dir = try TempDir()
    let name = (log as NSString).lastPathComponent
    let path = try dir.write(name, try Self.converted(log, "\r\n"))
    let crlf = dir.run(["validate", "--config", Self.config, "--history", path])
    let lf = dir.run([
      "validate", "--config", Self.config, "--history", CLITest.repoRoot + "/" + log,
    ])
    #expect(crlf.code == .success)
    #expect(crlf.stdout.contains("3379 swipes (353 right, 3026 left)"))
    #expect(crlf.stdout.hasSuffix("\nvalid\n"))
    #expect(lf.stdout.contains("3379 swipes (353 right, 3026 left)"))
  }

  @Test func validateRefusesCSVCatalogsAndUsersWithCROnlyLineEnds() throws {
    let dir = try TempDir()
    for (flag, relative) in [("--catalog", "Data/catalog.csv"), ("--users", "Data/users.csv")] {
      let path = try dir.write(
        (relative as NSString).lastPathComponent, try Self.converted(relative, "\r"))
      let result = dir.run(["validate", "--config", Self.config, flag, path])
      #expect(result.code == .dataError, "\(relative)")
      #expect(
        result.stderr == Self.loneCRLine(path, column: try Self.firstCR(relative)) + "\n",
        "\(relative)")
    }
  }

  /// JSON documents are no lists of lines: a CR is white space there (RFC 8259), so a CR-only
  /// catalog, users file or config reads as its LF version.
  @Test func validateReadsJSONCatalogsUsersAndConfigsWithCROnlyLineEndsAsWithLF() throws {
    let dir = try TempDir()
    for (flag, relative) in [("--catalog", "Data/catalog.json"), ("--users", "Data/users.json")] {
      let name = (relative as NSString).lastPathComponent
      let cr = try dir.write("cr-" + name, try Self.converted(relative, "\r"))
      let lf = try dir.write("lf-" + name, try Self.converted(relative, "\n"))
      let fromCR = dir.run(["validate", "--config", Self.config, flag, cr])
      let fromLF = dir.run(["validate", "--config", Self.config, flag, lf])
      #expect(fromCR.code == .success, "\(relative): \(fromCR.stderr)")
      #expect(fromCR.stdout.hasSuffix("\nvalid\n"))
      #expect(fromCR.stdout.replacingOccurrences(of: "cr-", with: "lf-") == fromLF.stdout)
    }
    // The bundled config with its paths made absolute, so that it reads from here.
    let text = try Self.converted("Config/menudeck.json", "\n")
      .replacingOccurrences(of: "\"../Data/", with: "\"\(CLITest.repoRoot)/Data/")
      .replacingOccurrences(of: "\"plugins/", with: "\"\(CLITest.repoRoot)/Config/plugins/")
    let cr = try dir.write("cr.json", text.replacingOccurrences(of: "\n", with: "\r"))
    let lf = try dir.write("lf.json", text)
    let fromCR = dir.run(["validate", "--config", cr])
    let fromLF = dir.run(["validate", "--config", lf])
    #expect(fromCR.code == .success, "\(fromCR.stderr)")
    #expect(fromLF.code == .success)
    #expect(fromCR.stdout.replacingOccurrences(of: "cr.json", with: "lf.json") == fromLF.stdout)
    // Its errors are at their line and column, a CR ending a line.
    let bad = try dir.write(
      "bad.json",
      text.replacingOccurrences(of: "\n", with: "\r")
        .replacingOccurrences(of: "\"seed\": 20261130", with: "\"seed\": -1"))
    let refused = dir.run(["validate", "--config", bad])
    #expect(refused.code == .dataError)
    let line = text.split(separator: "\n").firstIndex { $0.contains("\"seed\"") }! + 1
    #expect(refused.stderr.contains("\(bad):\(line):11: 'seed': '-1' is out of range"))
  }

  @Test func deckRefusesALogWithCROnlyLineEndsEvenWhenSkippingBadLines() throws {
    let dir = try TempDir()
    let path = try dir.write("swipes.csv", try Self.converted("Data/swipes.csv", "\r"))
    for skip in [false, true] {
      var args = [
        "deck", "--config", Self.config, "--history", path, "--date", "2026-11-30", "--quiet",
        "--out", dir.file("decks.json"),
      ]
      if skip { args.append("--skip-bad-lines") }
      let result = dir.run(args)
      #expect(result.code == .dataError)
      #expect(
        result.stderr.contains(
          Self.loneCRLine(path, column: 42).dropFirst("menudeck: error: ".count)))
      #expect(!dir.exists("decks.json"))
    }
  }

  @Test func deckFromCRLFLogsEqualsDeckFromLFLogs() throws {
    let dir = try TempDir()
    let path = try dir.write("swipes.csv", try Self.converted("Data/swipes.csv", "\r\n"))
    func decks(_ log: String) -> CLIRun {
      dir.run([
        "deck", "--config", Self.config, "--history", log, "--date", "2026-11-30", "--quiet",
        "--format", "jsonl",
      ])
    }
    let crlf = decks(path)
    let lf = decks(CLITest.repoRoot + "/Data/swipes.csv")
    #expect(crlf.code == .success)
    #expect(!crlf.stdoutBytes.isEmpty)
    #expect(crlf.stdoutBytes == lf.stdoutBytes)
  }

  @Test(arguments: ["Data/swipes.csv", "Data/swipes.jsonl"])
  func ingestRefusesALogWithCROnlyLineEndsAndWritesNoSnapshot(_ log: String) throws {
    let dir = try TempDir()
    let name = (log as NSString).lastPathComponent
    let path = try dir.write(name, try Self.converted(log, "\r"))
    let result = dir.run(["ingest", "--config", Self.config, path, "--into", dir.file("h.snap")])
    #expect(result.code == .dataError)
    #expect(
      result.stderr.contains(
        Self.loneCRLine(path, column: try Self.firstCR(log)).dropFirst("menudeck: error: ".count)))
    #expect(!dir.exists("h.snap"))
    // The same log with CRLF line ends ingests like the LF one.
    let crlfPath = try dir.write("crlf-" + name, try Self.converted(log, "\r\n"))
    let crlf = dir.run(["ingest", "--config", Self.config, crlfPath, "--into", dir.file("a.snap")])
    let lf = dir.run([
      "ingest", "--config", Self.config, CLITest.repoRoot + "/" + log, "--into", dir.file("b.snap"),
    ])
    #expect(crlf.code == .success)
    #expect(lf.code == .success)
    // (The snapshots differ in the logs' checksums only: the same decks from both.)
    func decks(_ snapshot: String) -> CLIRun {
      dir.run([
        "deck", "--config", Self.config, "--history", dir.file(snapshot), "--date", "2026-11-30",
        "--quiet", "--format", "jsonl",
      ])
    }
    let fromCRLF = decks("a.snap")
    #expect(fromCRLF.code == .success)
    #expect(!fromCRLF.stdoutBytes.isEmpty)
    #expect(fromCRLF.stdoutBytes == decks("b.snap").stdoutBytes)
  }

  @Test func ingestFromStandardInputRefusesCROnlyLineEnds() throws {
    let dir = try TempDir()
    let stdin = Array(try Self.converted("Data/swipes.csv", "\r").utf8)
    let result = dir.run(
      ["ingest", "--config", Self.config, "-", "--into", dir.file("h.snap")], stdin: stdin)
    #expect(result.code == .dataError)
    #expect(result.stderr.contains("<stdin>:1:42: \(loneCarriageReturnMessage)"))
    #expect(!dir.exists("h.snap"))
  }
}
