import DeckBase
import Foundation
import Testing

@testable import MenuDeckCLI

/// A compressed swipe log is refused (exit 65) with what to run instead: the command as it was
/// typed, with the log decompressed into it (`zcat log.gz | <the command, '-' for the log>`; for
/// several compressed logs, or with standard input taken, each through process substitution),
/// so that what it says to run is the run that was asked for. And what it says to run works.
@Suite struct CLICompressedLogTests {
  static let config = "\(CLITest.repoRoot)/Config/menudeck.json"
  static let gzipHead: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]

  static let log =
    #"{"user":"u01","item":"edamame","swipe":"right","at":"2026-11-20T12:00:00+09:00"}"#
    + "\n"
    + #"{"user":"u02","item":"hiyayakko","swipe":"left","at":"2026-11-21T12:00:00+09:00"}"#
    + "\n"
  static let older =
    #"{"user":"u01","item":"hiyayakko","swipe":"left","at":"2026-11-10T12:00:00+09:00"}"#
    + "\n"

  /// The options of every deck run here, before the logs.
  static let deckOptions = [
    "deck", "--config", config, "--date", "2026-11-30", "--user", "u01", "-f", "jsonl",
  ]
  /// `deckOptions` as a message shows them.
  static let shownOptions = deckOptions.map { TextLayout.shellWord($0) }.joined(separator: " ")

  func deck(_ dir: TempDir, _ history: [String], stdin: [UInt8] = []) -> CLIRun {
    dir.run(Self.deckOptions + history.flatMap { ["--history", $0] }, stdin: stdin)
  }

  static func message(_ name: String, _ advice: String) -> String {
    "menudeck: error: \(name): the swipe log is compressed (gzip) and menudeck reads logs "
      + "uncompressed; \(advice)\n"
  }

  @Test func theCommandAsTypedWithTheLogPiped() throws {
    let dir = try TempDir("menudeck-gz")
    _ = try dir.write("today.jsonl.gz", Self.gzipHead)
    _ = try dir.write("older.jsonl", Self.older)
    // The other log, the date and the options stay: only the compressed log becomes '-'.
    let r = deck(dir, ["older.jsonl", "today.jsonl.gz"])
    #expect(r.code == .dataError)
    #expect(r.code.rawValue == 65)
    #expect(
      r.stderr
        == Self.message(
          "today.jsonl.gz",
          "pipe it through zcat and give '-' for the log: zcat today.jsonl.gz | "
            + "menudeck \(Self.shownOptions) --history older.jsonl --history -"))
    // --history=FILE keeps its form.
    let attached = dir.run(Self.deckOptions + ["--history=today.jsonl.gz"])
    #expect(attached.stderr.hasSuffix(" -f jsonl --history=-\n"), "\(attached.stderr)")
    // The log argument of ingest, with its --out, --before and --config where they were.
    let ingest = dir.run([
      "ingest", "--out", "h.snap", "--before", "2026-11-30", "-c", Self.config, "today.jsonl.gz",
    ])
    #expect(ingest.code == .dataError)
    #expect(
      ingest.stderr
        == Self.message(
          "today.jsonl.gz",
          "pipe it through zcat and give '-' for the log: zcat today.jsonl.gz | menudeck "
            + "ingest --out h.snap --before 2026-11-30 -c \(TextLayout.shellWord(Self.config)) -"))
    #expect(!dir.exists("h.snap"))
    let stats = dir.run(["stats", "--config", Self.config, "today.jsonl.gz", "older.jsonl"])
    #expect(stats.code == .dataError)
    #expect(
      stats.stderr.hasSuffix(
        "| menudeck stats --config \(TextLayout.shellWord(Self.config)) - older.jsonl\n"),
      "\(stats.stderr)")
  }

  /// Several compressed logs, or standard input already a log: each compressed log through
  /// process substitution, its own tool for each.
  @Test func severalCompressedLogsOrStandardInputTaken() throws {
    let dir = try TempDir("menudeck-gz")
    _ = try dir.write("a.jsonl.gz", Self.gzipHead)
    _ = try dir.write("b 2.jsonl.xz", [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0x00, 0x04, 0xE6, 0xD6])
    _ = try dir.write("older.jsonl", Self.older)
    let two = deck(dir, ["a.jsonl.gz", "older.jsonl", "b 2.jsonl.xz"])
    #expect(two.code == .dataError)
    #expect(
      two.stderr
        == Self.message(
          "a.jsonl.gz",
          "so is 'b 2.jsonl.xz': give each through process substitution (bash, zsh, ksh): "
            + "menudeck \(Self.shownOptions) --history <(zcat a.jsonl.gz) --history older.jsonl "
            + "--history <(xzcat 'b 2.jsonl.xz')"))
    let piped = deck(dir, ["-", "a.jsonl.gz"], stdin: Array(Self.older.utf8))
    #expect(piped.code == .dataError)
    #expect(
      piped.stderr
        == Self.message(
          "a.jsonl.gz",
          "standard input is taken by '-', so give it through process substitution (bash, zsh, "
            + "ksh): menudeck \(Self.shownOptions) --history - --history <(zcat a.jsonl.gz)"))
  }

  /// A log the config names: the command gets the config's logs, the compressed one piped.
  @Test func aLogTheConfigNames() throws {
    let dir = try TempDir("menudeck-gz")
    _ = try dir.write("today.jsonl.gz", Self.gzipHead)
    _ = try dir.write("older.jsonl", Self.older)
    let config = try dir.write(
      "gz.json",
      #"{"catalog": "\#(CLITest.repoRoot)/Data/catalog.json", "history": ["older.jsonl", "today.jsonl.gz"]}"#
    )
    let r = dir.run(["deck", "-c", config, "--date", "2026-11-30"])
    #expect(r.code == .dataError)
    #expect(
      r.stderr
        == Self.message(
          dir.file("today.jsonl.gz"),
          "pipe it through zcat and give '-' for the log: zcat "
            + "\(TextLayout.shellWord(dir.file("today.jsonl.gz"))) | menudeck deck -c "
            + "\(TextLayout.shellWord(config)) --date 2026-11-30 --history "
            + "\(TextLayout.shellWord(dir.file("older.jsonl"))) --history -"))
  }

  @Test func compressedBytesSayWhatToPipe() throws {
    let dir = try TempDir("menudeck-gz")
    let r = deck(dir, ["-"], stdin: Self.gzipHead + Array(repeating: 0, count: 64))
    #expect(r.code == .dataError)
    #expect(
      r.stderr
        == "menudeck: error: <stdin>: the swipe log is compressed (gzip) and menudeck reads logs "
        + "uncompressed; pipe it through zcat and give '-' for the log: zcat LOG | "
        + "menudeck \(Self.shownOptions) --history -\n")
    // A file whose name says JSON Lines but whose bytes are gzip's.
    _ = try dir.write("named.jsonl", Self.gzipHead)
    let named = deck(dir, ["named.jsonl"])
    #expect(named.code == .dataError)
    #expect(
      named.stderr.hasPrefix(
        "menudeck: error: named.jsonl: the swipe log is compressed (gzip, whatever its name "
          + "says)"))
    // A name that says nothing: the bytes tell, before the name is asked for.
    _ = try dir.write("today", Self.gzipHead)
    let bare = dir.run(["stats", "--config", Self.config, "today"])
    #expect(bare.code == .dataError)
    #expect(
      bare.stderr
        == Self.message(
          "today",
          "pipe it through zcat and give '-' for the log: zcat today | menudeck stats "
            + "--config \(TextLayout.shellWord(Self.config)) -"))
  }

  /// What the message says to run: the decompressed bytes on standard input give the decks the
  /// plain log gives, JSON Lines and CSV alike.
  @Test func theAdviceWorks() throws {
    let dir = try TempDir("menudeck-gz")
    _ = try dir.write("today.jsonl", Self.log)
    let plain = deck(dir, ["today.jsonl"])
    #expect(plain.code == .success, "\(plain.stderr)")
    let piped = deck(dir, ["-"], stdin: Array(Self.log.utf8))
    #expect(piped.code == .success, "\(piped.stderr)")
    #expect(piped.stdout == plain.stdout)
    let csv =
      "user,item,swipe,at\nu01,edamame,right,2026-11-20T12:00:00+09:00\n"
      + "u02,hiyayakko,left,2026-11-21T12:00:00+09:00\n"
    let pipedCSV = deck(dir, ["-"], stdin: Array(csv.utf8))
    #expect(pipedCSV.code == .success, "\(pipedCSV.stderr)")
    #expect(pipedCSV.stdout == plain.stdout)
  }

  /// Runs `command` with `shell` in `dir`: its status, standard output and standard error.
  static func shell(_ shell: String, _ command: String, in dir: TempDir) throws -> (
    Int32, String, String
  ) {
    let run = Process()
    run.executableURL = URL(fileURLWithPath: shell)
    run.arguments = ["-c", "{ " + command + "; } > out.txt 2> err.txt"]
    run.currentDirectoryURL = URL(fileURLWithPath: dir.path)
    try run.run()
    run.waitUntilExit()
    return (run.terminationStatus, try dir.read("out.txt"), try dir.read("err.txt"))
  }

  /// The advice as a shell runs it, whole, with the real gzip: the refused command's options
  /// (the date, the diner, the format, the other log) all reach the run it tells, whose decks
  /// are those of the plain logs. One log: a pipe, in /bin/sh; two: process substitution, in
  /// bash (skipped where there is none).
  @Test(
    .enabled(
      if: MenudeckBinary.path != nil && FileManager.default.isExecutableFile(atPath: "/bin/gzip"),
      "needs the menudeck binary (swift build) and /bin/gzip"))
  func theAdviceRunsWholeInAShell() throws {
    let dir = try TempDir("menudeck-gz")
    _ = try dir.write("today.jsonl", Self.log)
    _ = try dir.write("older.jsonl", Self.older)
    let binary = TextLayout.shellWord(try #require(MenudeckBinary.path))
    let made = try Self.shell(
      "/bin/sh", "gzip -c today.jsonl > today.jsonl.gz && gzip -c older.jsonl > 'old er.jsonl.gz'",
      in: dir)
    #expect(made.0 == 0, "\(made.2)")
    let options = ["--date", "2026-11-30", "--user", "u01", "-f", "csv"]
    func command(_ history: [String]) -> String {
      ([binary, "deck", "--config", TextLayout.shellWord(Self.config)] + options
        + history.flatMap { ["--history", TextLayout.shellWord($0)] }).joined(separator: " ")
    }
    let plain = try Self.shell("/bin/sh", command(["older.jsonl", "today.jsonl"]), in: dir)
    #expect(plain.0 == 0, "\(plain.2)")
    #expect(plain.1.hasPrefix("user,date,strategy"), "\(plain.1)")

    let shells =
      [("/bin/sh", ["older.jsonl", "today.jsonl.gz"], "give '-' for the log: ")]
      + (FileManager.default.isExecutableFile(atPath: "/bin/bash")
        ? [("/bin/bash", ["old er.jsonl.gz", "today.jsonl.gz"], "(bash, zsh, ksh): ")] : [])
    for (shell, history, marker) in shells {
      let refused = try Self.shell("/bin/sh", command(history), in: dir)
      #expect(refused.0 == 65, "\(refused.2)")
      let advice = try #require(
        refused.2.components(separatedBy: marker).last?.trimmingCharacters(in: .newlines))
      #expect(advice.contains("menudeck deck --config"), "\(advice)")
      #expect(advice.contains(options.joined(separator: " ")), "\(advice)")
      // The program as this test runs it, in place of the name the message shows.
      let run = try Self.shell(
        shell, advice.replacingOccurrences(of: "menudeck deck ", with: "\(binary) deck "), in: dir)
      #expect(run.0 == 0, "\(shell): \(advice): \(run.2)")
      #expect(run.1 == plain.1, "\(shell): \(advice)")
      #expect(run.2.contains("note: 1 deck for 2026-11-30 with 'ease'"), "\(run.2)")
    }
  }
}
