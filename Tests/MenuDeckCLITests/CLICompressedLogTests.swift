import Foundation
import Testing

@testable import MenuDeckCLI

/// A compressed swipe log is refused (exit 65) with what to run instead, and what it says to
/// run works: the log decompressed into standard input, JSON Lines or CSV told by its bytes.
@Suite struct CLICompressedLogTests {
  static let config = "\(CLITest.repoRoot)/Config/menudeck.json"
  static let gzipHead: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]

  static let log =
    #"{"user":"u01","item":"edamame","swipe":"right","at":"2026-11-20T12:00:00+09:00"}"#
    + "\n"
    + #"{"user":"u02","item":"hiyayakko","swipe":"left","at":"2026-11-21T12:00:00+09:00"}"#
    + "\n"

  func deck(_ dir: TempDir, _ history: String, stdin: [UInt8] = []) -> CLIRun {
    dir.run(
      [
        "deck", "--config", Self.config, "--date", "2026-11-30", "--user", "u01", "-f", "jsonl",
        "--history", history,
      ], stdin: stdin)
  }

  @Test func aCompressedNameSaysWhatToPipe() throws {
    let dir = try TempDir("menudeck-gz")
    _ = try dir.write("today.jsonl.gz", Self.gzipHead)
    let r = deck(dir, "today.jsonl.gz")
    #expect(r.code == .dataError)
    #expect(r.code.rawValue == 65)
    #expect(
      r.stderr
        == "menudeck: error: today.jsonl.gz: the swipe log is compressed (gzip) and menudeck "
        + "reads logs uncompressed; pipe it through zcat and give '-' for the log: zcat "
        + "today.jsonl.gz | menudeck deck --history -\n")
    // The log argument of ingest, stats and compare: the pipe into that command.
    let ingest = dir.run(["ingest", "--config", Self.config, "today.jsonl.gz", "--out", "h.snap"])
    #expect(ingest.code == .dataError)
    #expect(
      ingest.stderr.hasSuffix(
        "today.jsonl.gz: the swipe log is compressed (gzip) and menudeck reads logs "
          + "uncompressed; pipe it through zcat and give '-' for the log: zcat today.jsonl.gz | "
          + "menudeck ingest -\n"), "\(ingest.stderr)")
    #expect(!dir.exists("h.snap"))
    let stats = dir.run(["stats", "--config", Self.config, "today.jsonl.gz"])
    #expect(stats.code == .dataError)
    #expect(stats.stderr.hasSuffix("| menudeck stats -\n"), "\(stats.stderr)")
  }

  @Test func compressedBytesOnStandardInputSayWhatToPipe() throws {
    let dir = try TempDir("menudeck-gz")
    let r = deck(dir, "-", stdin: Self.gzipHead + Array(repeating: 0, count: 64))
    #expect(r.code == .dataError)
    #expect(
      r.stderr
        == "menudeck: error: <stdin>: the swipe log is compressed (gzip) and menudeck reads logs "
        + "uncompressed; pipe it through zcat and give '-' for the log: zcat LOG | menudeck deck "
        + "--history -\n")
    // A file whose name says JSON Lines but whose bytes are gzip's.
    _ = try dir.write("named.jsonl", Self.gzipHead)
    let named = deck(dir, "named.jsonl")
    #expect(named.code == .dataError)
    #expect(
      named.stderr.hasPrefix(
        "menudeck: error: named.jsonl: the swipe log is compressed (gzip, whatever its name "
          + "says)"))
  }

  /// What the message says to run: the decompressed bytes on standard input give the decks the
  /// plain log gives, JSON Lines and CSV alike.
  @Test func theAdviceWorks() throws {
    let dir = try TempDir("menudeck-gz")
    _ = try dir.write("today.jsonl", Self.log)
    let plain = deck(dir, "today.jsonl")
    #expect(plain.code == .success, "\(plain.stderr)")
    let piped = deck(dir, "-", stdin: Array(Self.log.utf8))
    #expect(piped.code == .success, "\(piped.stderr)")
    #expect(piped.stdout == plain.stdout)
    let csv =
      "user,item,swipe,at\nu01,edamame,right,2026-11-20T12:00:00+09:00\n"
      + "u02,hiyayakko,left,2026-11-21T12:00:00+09:00\n"
    let pipedCSV = deck(dir, "-", stdin: Array(csv.utf8))
    #expect(pipedCSV.code == .success, "\(pipedCSV.stderr)")
    #expect(pipedCSV.stdout == plain.stdout)
  }

  /// The advice as a shell runs it, with the real gzip (skipped where there is none).
  @Test(
    .enabled(
      if: MenudeckBinary.path != nil && FileManager.default.isExecutableFile(atPath: "/bin/gzip"),
      "needs the menudeck binary (swift build) and /bin/gzip"))
  func theAdviceWorksInAShell() throws {
    let dir = try TempDir("menudeck-gz")
    _ = try dir.write("today.jsonl", Self.log)
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/bin/sh")
    shell.arguments = ["-c", "gzip -c today.jsonl > today.jsonl.gz"]
    shell.currentDirectoryURL = URL(fileURLWithPath: dir.path)
    try shell.run()
    shell.waitUntilExit()
    #expect(shell.terminationStatus == 0)
    let binary = try #require(MenudeckBinary.path)
    let refused = try MenudeckBinary.run([
      "deck", "--config", Self.config, "--date", "2026-11-30", "--user", "u01", "-f", "jsonl",
      "--history", dir.file("today.jsonl.gz"),
    ])
    #expect(refused.status == 65)
    let advice = try #require(
      refused.stderr.components(separatedBy: "give '-' for the log: ").last?
        .trimmingCharacters(in: .newlines))
    #expect(advice == "zcat \(dir.file("today.jsonl.gz")) | menudeck deck --history -")
    let command =
      advice.replacingOccurrences(of: "menudeck deck", with: "'\(binary)' deck")
      + " --config '\(Self.config)' --date 2026-11-30 --user u01 -f jsonl"
    let run = Process()
    run.executableURL = URL(fileURLWithPath: "/bin/sh")
    run.arguments = ["-c", command + " > out.jsonl 2> err.txt"]
    run.currentDirectoryURL = URL(fileURLWithPath: dir.path)
    try run.run()
    run.waitUntilExit()
    let errors = try dir.read("err.txt")
    #expect(run.terminationStatus == 0, "\(errors)")
    #expect(try dir.read("out.jsonl") == deck(dir, "today.jsonl").stdout)
  }
}
