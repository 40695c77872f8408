import DeckCore
import DeckIO
import Foundation
import Testing

@testable import MenuDeckCLI

/// Snapshots through pipes: `ingest --out -` (binary or `--base64`), `merge -` reading any
/// number of them from standard input, and `--csv-header` for CSV parts without a header, as a
/// job that splits a log across machines (Spark's `rdd.pipe`) runs them.
@Suite struct CLISnapshotPipeTests {
  static let config = CLITest.repoRoot + "/Config/menudeck.json"
  static let csv = CLITest.repoRoot + "/Data/swipes.csv"

  /// The bundled CSV log's header and its data lines cut into `parts` parts (the last may be
  /// empty when `empty`).
  static func parts(_ parts: Int, empty: Bool = false) throws -> (String, [String]) {
    let lines = try String(contentsOfFile: csv, encoding: .utf8).split(separator: "\n")
    let body = Array(lines.dropFirst())
    let each = (body.count + parts - 1) / parts
    var out = (0..<parts).map { k in
      body[min(k * each, body.count)..<min((k + 1) * each, body.count)]
        .map { $0 + "\n" }.joined()
    }
    if empty { out += ["", ""] }
    return (String(lines[0]), out)
  }

  func ingest(_ part: String, header: String, base64: Bool, in dir: TempDir) -> CLIRun {
    var args = [
      "ingest", "--config", Self.config, "--before", "2027-01-01", "--csv-header", header,
      "--out", "-", "-",
    ]
    if base64 { args.append("--base64") }
    return dir.run(args, stdin: Array(part.utf8))
  }

  func deck(_ history: String, in dir: TempDir) -> CLIRun {
    dir.run([
      "deck", "--config", Self.config, "--date", "2026-12-01", "--format", "jsonl", "--quiet",
      "--history", history,
    ])
  }

  @Test(
    "headerless CSV parts piped through ingest and merge give the one-log decks",
    arguments: [false, true])
  func partsThroughPipesGiveTheOneLogDecks(base64: Bool) throws {
    let dir = try TempDir()
    let (header, parts) = try Self.parts(3, empty: true)
    var stream: [UInt8] = []
    for part in parts {
      let run = ingest(part, header: header, base64: base64, in: dir)
      #expect(run.code == .success, "\(run.stderr)")
      #expect(run.stderr.contains("standard output holds 1 log"), "\(run.stderr)")
      if base64 {
        #expect(run.stdout.hasPrefix("MDSNAP64:") && run.stdout.hasSuffix("\n"))
        #expect(run.stdoutLines.count == 2)
      } else {
        #expect(SnapshotFile.looksLikeSnapshot(run.stdoutBytes))
      }
      stream += run.stdoutBytes
    }
    // Two empty parts (the same content, no swipes) merge; the snapshot has them once.
    let merged = dir.run(["merge", "-", "--out", "merged.snap"], stdin: stream)
    #expect(merged.code == .success, "\(merged.stderr)")
    #expect(merged.stderr.contains("merged 5 snapshots into merged.snap: 4 logs"))
    let whole = deck(Self.csv, in: dir)
    let fromParts = deck(dir.file("merged.snap"), in: dir)
    #expect(whole.code == .success && fromParts.code == .success, "\(fromParts.stderr)")
    #expect(!whole.stdoutBytes.isEmpty)
    #expect(fromParts.stdoutBytes == whole.stdoutBytes)
    // The same merge written as text, read back by deck.
    let text = dir.run(["merge", "-", "--out", "-", "--base64"], stdin: stream)
    #expect(text.code == .success)
    _ = try dir.write("merged.txt", text.stdout)
    #expect(deck(dir.file("merged.txt"), in: dir).stdoutBytes == whole.stdoutBytes)
  }

  @Test func aMergeOfStandardInputAndFilesAddsThemAllUp() throws {
    let dir = try TempDir()
    let (header, parts) = try Self.parts(2)
    let a = ingest(parts[0], header: header, base64: true, in: dir)
    let b = ingest(parts[1], header: header, base64: false, in: dir)
    _ = try dir.write("b.snap", b.stdoutBytes)
    let run = dir.run(["merge", "b.snap", "-", "--out", "ab.snap"], stdin: a.stdoutBytes)
    #expect(run.code == .success, "\(run.stderr)")
    let whole = dir.run([
      "ingest", "--config", Self.config, "--before", "2027-01-01", Self.csv, "--out", "w.snap",
    ])
    #expect(whole.code == .success)
    let ab = try SnapshotFile.read(path: dir.file("ab.snap"))
    let w = try SnapshotFile.read(path: dir.file("w.snap"))
    #expect(ab.users == w.users && ab.items == w.items && ab.events == w.events)
    #expect(ab.sources.count == 2)
  }

  @Test func aPartGivenTwiceIsStillRefused() throws {
    let dir = try TempDir()
    let (header, parts) = try Self.parts(2)
    let a = ingest(parts[0], header: header, base64: true, in: dir)
    let run = dir.run(["merge", "-", "--out", "x.snap"], stdin: a.stdoutBytes + a.stdoutBytes)
    #expect(run.code == .dataError)
    #expect(run.stderr.contains("both snapshots contain the log '-'"), "\(run.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir.file("x.snap")))
  }

  @Test func badStreamsAndOptionsAreRefusedWithWhatToDo() throws {
    let dir = try TempDir()
    let (header, parts) = try Self.parts(2)
    let a = ingest(parts[0], header: header, base64: true, in: dir)
    // Cut short in a pipe: the base64 line is not whole.
    let cut = dir.run(["merge", "-", "--out", "x.snap"], stdin: Array(a.stdoutBytes.prefix(200)))
    #expect(cut.code == .dataError)
    #expect(cut.stderr.contains("<stdin>: the text snapshot is not valid base64"), "\(cut.stderr)")
    // A log where a snapshot should be, after a good one: named by its place in the stream, with
    // how many bytes there are to the end.
    let mixed = dir.run(
      ["merge", "-", "--out", "x.snap"], stdin: a.stdoutBytes + Array("user,item\n".utf8))
    #expect(mixed.code == .dataError)
    let at = a.stdoutBytes.count
    #expect(
      mixed.stderr.contains(
        "<stdin> (at byte \(at)): the 10 bytes from byte \(at) to the end, after snapshot 1, do "
          + "not start with a snapshot header"),
      "\(mixed.stderr)")
    let twice = dir.run(["merge", "-", "-", "--out", "x.snap"])
    #expect(twice.code == .usage)
    #expect(twice.stderr.contains("'-' (standard input) can be given once"))
    let both = dir.run(["ingest", Self.csv, "--into", "a.snap", "--out", "b.snap"])
    #expect(both.code == .usage)
    #expect(both.stderr.contains("give '--into' (add to a snapshot) or '--out'"))
    let intoStdout = dir.run(["ingest", Self.csv, "--into", "-"])
    #expect(intoStdout.code == .usage)
    #expect(intoStdout.stderr.contains("'--out -' writes a new snapshot to standard output"))
    let badHeader = dir.run([
      "ingest", "--config", Self.config, "--csv-header", "user,item,swipe,user", "--out", "-",
      "-",
    ])
    #expect(badHeader.code == .usage)
    #expect(
      badHeader.stderr.contains("'--csv-header user,item,swipe,user':"), "\(badHeader.stderr)")
    #expect(FileManager.default.subpaths(atPath: dir.path)?.isEmpty ?? true)
  }

  @Test func aHeaderlessPartsLineNumbersAreItsOwn() throws {
    let dir = try TempDir()
    let part = "u1,oden,right,2026-11-20T12:00:00Z,1,,,\nu1,oden,sideways,2026-11-20,2,,,\n"
    let run = ingest(
      part, header: "user,item,swipe,at,position,deck,dx,width", base64: false, in: dir)
    #expect(run.code == .dataError)
    #expect(run.stderr.contains("<stdin>:2:"), "\(run.stderr)")
  }
}
