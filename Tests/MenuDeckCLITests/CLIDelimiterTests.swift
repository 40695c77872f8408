import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckIO
@testable import MenuDeckCLI

/// CSV inputs separated by semicolons or tabs through the commands (`--delimiter`, the config's
/// `csv_delimiter`): the same decks, snapshots and reports as from the comma files, and a
/// header separated by another delimiter than the one given refused with the one it has.
@Suite struct CLIDelimiterTests {
  static let config = CLITest.repoRoot + "/Config/menudeck.json"

  /// The bundled CSV file `relative` separated by `d`, quoted where RFC 4180 needs it.
  static func converted(_ relative: String, _ d: CSVDelimiter) throws -> String {
    let table = try CSVParser.parse(try CLITest.repoFile(relative), file: relative)
    let rows = [table.header] + table.records.map(\.fields)
    return rows.map { row in
      row.map { field in
        let special = field.utf8.contains {
          $0 == d.byte || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D
        }
        return special ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
      }.joined(separator: String(UnicodeScalar(d.byte)))
    }.joined(separator: "\n") + "\n"
  }

  /// The bundled catalog, users and log separated by `d`, written in `dir` with `suffix`.
  static func inputs(_ d: CSVDelimiter, in dir: TempDir, _ suffix: String = "") throws -> (
    catalog: String, users: String, log: String
  ) {
    (
      try dir.write("catalog\(suffix).csv", try converted("Data/catalog.csv", d)),
      try dir.write("users\(suffix).csv", try converted("Data/users.csv", d)),
      try dir.write("swipes\(suffix).csv", try converted("Data/swipes.csv", d))
    )
  }

  static func deck(_ dir: TempDir, _ files: (String, String, String), _ extra: [String] = [])
    -> CLIRun
  {
    dir.run(
      [
        "deck", "--config", config, "--catalog", files.0, "--users", files.1, "--history",
        files.2, "--date", "2026-11-30", "--format", "jsonl", "--quiet",
      ] + extra)
  }

  @Test(arguments: [
    (CSVDelimiter.semicolon, ";"), (.semicolon, "semicolon"), (.tab, "tab"), (.tab, "\t"),
    (.tab, "\\t"), (.comma, ","),
  ])
  func decksFromOtherDelimitersEqualDecksFromCommas(_ d: CSVDelimiter, _ spelling: String) throws {
    let dir = try TempDir()
    let comma = Self.deck(dir, try Self.inputs(.comma, in: dir, "-comma"))
    #expect(comma.code == .success)
    #expect(!comma.stdoutBytes.isEmpty)
    let other = Self.deck(dir, try Self.inputs(d, in: dir), ["--delimiter", spelling])
    #expect(other.code == .success, "\(other.stderr)")
    #expect(other.stdoutBytes == comma.stdoutBytes)
  }

  @Test(arguments: [CSVDelimiter.semicolon, .tab])
  func withoutTheDelimiterEachInputIsRefusedWithTheOneItHas(_ d: CSVDelimiter) throws {
    let dir = try TempDir()
    let (catalog, users, log) = try Self.inputs(d, in: dir)
    let message = CSVDelimiter.comma.wrongDelimiter(d)
    for (flag, path) in [("--catalog", catalog), ("--users", users), ("--history", log)] {
      let run = dir.run(["validate", "--config", Self.config, flag, path])
      #expect(run.code == .dataError, "\(flag)")
      #expect(run.stderr == "menudeck: error: \(path):1:1: \(message)\n", "\(flag)")
    }
    // The other way round: comma files read with the delimiter.
    let commaCatalog = CLITest.repoRoot + "/Data/catalog.csv"
    let run = dir.run([
      "validate", "--config", Self.config, "--catalog", commaCatalog, "--delimiter", d.spelling,
    ])
    #expect(run.code == .dataError)
    #expect(run.stderr == "menudeck: error: \(commaCatalog):1:1: \(d.wrongDelimiter(.comma))\n")
    // With it, valid, as the comma files are.
    let valid = dir.run([
      "validate", "--config", Self.config, "--catalog", catalog, "--users", users, "--history",
      log, "--delimiter", d.spelling,
    ])
    #expect(valid.code == .success, "\(valid.stderr)")
    #expect(valid.stdout.contains("109 items, 11 categories, 29 tags"))
    #expect(valid.stdout.contains("3379 swipes (353 right, 3026 left)"))
  }

  @Test func aBadDelimiterIsAUsageError() throws {
    let run = CLIRun(["validate", "--delimiter", "|"])
    #expect(run.code == .usage)
    #expect(
      run.stderr.hasPrefix(
        "menudeck: error: invalid value '|' for '--delimiter'; expected " + CSVDelimiter.expected))
  }

  /// The bundled config with absolute paths and `extra` keys, written in `dir`.
  static func config(_ dir: TempDir, _ extra: String) throws -> String {
    let text = String(decoding: try CLITest.repoFile("Config/menudeck.json"), as: UTF8.self)
      .replacingOccurrences(of: "\"../Data/", with: "\"\(CLITest.repoRoot)/Data/")
      .replacingOccurrences(of: "\"plugins/", with: "\"\(CLITest.repoRoot)/Config/plugins/")
      .replacingOccurrences(of: "\"seed\":", with: extra + "\n  \"seed\":")
    return try dir.write("config.json", text)
  }

  @Test func theConfigGivesOneDelimiterOrOnePerKindAndTheOptionReplacesIt() throws {
    let dir = try TempDir()
    let comma = Self.deck(dir, try Self.inputs(.comma, in: dir, "-comma"))
    let semi = try Self.inputs(.semicolon, in: dir, "-semi")
    let tab = try Self.inputs(.tab, in: dir, "-tab")
    func deck(_ configExtra: String, _ files: (String, String, String), _ args: [String] = [])
      throws -> CLIRun
    {
      let path = try Self.config(dir, configExtra)
      return dir.run(
        [
          "deck", "--config", path, "--catalog", files.0, "--users", files.1, "--history",
          files.2, "--date", "2026-11-30", "--format", "jsonl", "--quiet",
        ] + args)
    }
    // One for all.
    let all = try deck("\"csv_delimiter\": \";\",", semi)
    #expect(all.code == .success, "\(all.stderr)")
    #expect(all.stdoutBytes == comma.stdoutBytes)
    // One per kind: a semicolon catalog, tab users, the comma log (a kind left out).
    let mixed = (semi.catalog, tab.users, CLITest.repoRoot + "/Data/swipes.csv")
    let perKind = try deck("\"csv_delimiter\": {\"catalog\": \";\", \"users\": \"tab\"},", mixed)
    #expect(perKind.code == .success, "\(perKind.stderr)")
    #expect(perKind.stdoutBytes == comma.stdoutBytes)
    // --delimiter replaces the config's, for every kind.
    let replaced = try deck("\"csv_delimiter\": \";\",", tab, ["--delimiter", "tab"])
    #expect(replaced.stdoutBytes == comma.stdoutBytes)
    let refused = try deck("\"csv_delimiter\": \";\",", semi, ["--delimiter", ","])
    #expect(refused.code == .dataError)
    #expect(refused.stderr.contains(CSVDelimiter.comma.wrongDelimiter(.semicolon)))
  }

  @Test func badCsvDelimiterKeysNameTheirPlace() throws {
    let dir = try TempDir()
    for (extra, message) in [
      (
        "\"csv_delimiter\": \"|\",",
        "'csv_delimiter': unknown delimiter '|'; use \(CSVDelimiter.expected)"
      ),
      (
        "\"csv_delimiter\": {\"catalogue\": \";\"},",
        "unknown field 'catalogue' in 'csv_delimiter' (did you mean 'catalog'?)"
      ),
      (
        "\"csv_delimiter\": {\"history\": 3},",
        "csv_delimiter.history"
      ),
    ] {
      let path = try Self.config(dir, extra)
      let run = dir.run(["validate", "--config", path])
      #expect(run.code == .dataError, "\(extra)")
      #expect(run.stderr.contains("\(path):13:"), "\(extra): \(run.stderr)")
      #expect(run.stderr.contains(message), "\(extra): \(run.stderr)")
    }
  }

  @Test func ingestStatsSimulateAndCompareTakeTheDelimiter() throws {
    let dir = try TempDir()
    let comma = try Self.inputs(.comma, in: dir, "-comma")
    let tab = try Self.inputs(.tab, in: dir)
    // ingest: the snapshots differ only in the logs' names and checksums.
    for (files, name, args) in [(comma, "a", [String]()), (tab, "b", ["--delimiter", "tab"])] {
      let run = dir.run(
        ["ingest", "--config", Self.config, files.log, "--out", dir.file("\(name).snap")] + args)
      #expect(run.code == .success, "\(run.stderr)")
    }
    let a = try SnapshotFile.read(path: dir.file("a.snap"))
    var b = try SnapshotFile.read(path: dir.file("b.snap"))
    #expect(b.events == 3379)
    b.sources = a.sources
    #expect(b == a)
    // stats: the same table.
    let statsComma = dir.run(["stats", "--config", Self.config, comma.log, "--quiet"])
    let statsTab = dir.run([
      "stats", "--config", Self.config, tab.log, "--delimiter", "tab", "--quiet",
    ])
    #expect(statsTab.code == .success)
    #expect(statsTab.stdout == statsComma.stdout)
    // simulate with a users file and catalog separated by tabs.
    func simulate(_ files: (String, String, String), _ args: [String]) -> CLIRun {
      dir.run(
        [
          "simulate", "--config", Self.config, "--catalog", files.0, "--users", files.1, "--days",
          "2", "--start", "2026-11-01", "--quiet",
        ] + args)
    }
    let simComma = simulate(comma, [])
    #expect(simComma.code == .success)
    #expect(simulate(tab, ["--delimiter", "tab"]).stdout == simComma.stdout)
    #expect(simulate(tab, []).code == .dataError)
    // compare on logs.
    func compare(_ files: (String, String, String), _ args: [String]) -> CLIRun {
      dir.run(
        [
          "compare", "--config", Self.config, "--catalog", files.0, "--users", files.1, "-s",
          "random", "-s", "popularity", "--split", "2026-11-25", "--quiet", "--format", "json",
          files.2,
        ] + args)
    }
    let compareComma = compare(comma, [])
    let compareTab = compare(tab, ["--delimiter", "tab"])
    #expect(compareComma.code == .success, "\(compareComma.stderr)")
    #expect(compareTab.code == .success, "\(compareTab.stderr)")
    // The reports differ in their run header (arguments, inputs) and the log's name only.
    func body(_ r: CLIRun) -> String { r.stdoutLines.dropFirst().joined(separator: "\n") }
    #expect(body(compareComma).contains("\"evaluated_diners\":42"))
    #expect(
      body(compareTab).replacingOccurrences(of: tab.log, with: comma.log) == body(compareComma))
  }

  @Test func aGivenHeaderIsReadWithTheDelimiter() throws {
    let dir = try TempDir()
    let text = try Self.converted("Data/swipes.csv", .semicolon)
    let cut = text.firstIndex(of: "\n")!
    let body = try dir.write("body.csv", String(text[text.index(after: cut)...]))
    let header = String(text[..<cut])
    let run = dir.run([
      "ingest", "--config", Self.config, "--delimiter", ";", "--csv-header", header, body,
      "--out", dir.file("h.snap"),
    ])
    #expect(run.code == .success, "\(run.stderr)")
    #expect(try SnapshotFile.read(path: dir.file("h.snap")).events == 3379)
    // Given with commas while the logs are read with semicolons: a usage error.
    let wrong = dir.run([
      "ingest", "--config", Self.config, "--delimiter", ";", "--csv-header",
      "user,item,swipe,at", body, "--out", dir.file("x.snap"),
    ])
    #expect(wrong.code == .usage)
    #expect(wrong.stderr.contains(CSVDelimiter.semicolon.wrongDelimiter(.comma)))
  }

  /// A log past the size at which it is read in parts (`--jobs`), separated by semicolons, with
  /// quoted notes holding semicolons and line breaks: the cuts keep their rule (a line feed
  /// outside quotes), so the snapshot is the one read on one thread, and the one of the same
  /// log with commas.
  @Test func aBigSemicolonLogReadInPartsGivesTheSerialSnapshot() throws {
    let dir = try TempDir()
    let lines = try String(contentsOfFile: CLITest.repoRoot + "/Data/swipes.csv", encoding: .utf8)
      .split(separator: "\n").dropFirst()
    var semi = "user;item;swipe;at;position;deck;dx;width;note\n"
    var comma = "user,item,swipe,at,position,deck,dx,width,note\n"
    var copy = 0
    while semi.utf8.count < 2 * EventReader.minimumPartBytes + 100_000 {
      for (k, line) in lines.enumerated() {
        let fields = line.split(separator: ",", omittingEmptySubsequences: false)
        let renamed = ["c\(copy)" + fields[0]] + fields.dropFirst().map(String.init)
        // A quoted note in both; one that holds a comma, quoted in the comma log only.
        let (semiNote, commaNote) =
          k % 7 == 0
          ? ("\"a; b, c\nd\"", "\"a; b, c\nd\"")
          : k % 7 == 1 ? ("plain, with a comma", "\"plain, with a comma\"") : ("", "")
        semi += renamed.joined(separator: ";") + ";" + semiNote + "\n"
        comma += renamed.joined(separator: ",") + "," + commaNote + "\n"
      }
      copy += 1
    }
    let semiPath = try dir.write("big.csv", semi)
    let commaPath = try dir.write("big-comma.csv", comma)
    var snapshots: [HistorySnapshot] = []
    for (path, jobs, args) in [
      (semiPath, "1", ["--delimiter", ";"]), (semiPath, "2", ["--delimiter", ";"]),
      (commaPath, "2", []),
    ] {
      let out = dir.file("s\(snapshots.count).snap")
      let run = dir.run(
        ["ingest", "--config", Self.config, path, "--out", out, "--jobs", jobs, "--verbose"] + args)
      #expect(run.code == .success, "\(run.stderr)")
      var snapshot = try SnapshotFile.read(path: out)
      snapshot.sources = []
      snapshots.append(snapshot)
    }
    #expect(snapshots[0].events > 3379 * 20)
    #expect(snapshots[1] == snapshots[0])
    #expect(snapshots[2] == snapshots[0])
  }

  // MARK: - Snapshot files with bytes after their end

  @Test func everyReaderOfASnapshotFileRefusesBytesAfterItsEnd() throws {
    let dir = try TempDir()
    let good = dir.file("good.snap")
    let made = dir.run([
      "ingest", "--config", Self.config, CLITest.repoRoot + "/Data/swipes.jsonl", "--out", good,
    ])
    #expect(made.code == .success)
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: good)))
    let bad = try dir.write("bad.snap", bytes + Array("\n\n".utf8))
    let message =
      "menudeck: error: \(bad): 2 bytes after the end of the snapshot, from byte \(bytes.count) "
      + "on; a snapshot file holds one snapshot and nothing after it (the snapshot itself is whole "
      + "and its checksum matches): remove them with 'truncate -s \(bytes.count) FILE', or ingest "
      + "the logs again\n"
    for args in [
      ["validate", "--config", Self.config, "--history", bad],
      ["stats", "--config", Self.config, bad],
      ["deck", "--config", Self.config, "--history", bad, "--date", "2026-12-30"],
      ["ingest", "--config", Self.config, CLITest.repoRoot + "/Data/swipes.csv", "--into", bad],
      ["merge", bad, "--out", dir.file("m.snap")],
    ] {
      let run = dir.run(args)
      #expect(run.code == .dataError, "\(args[0])")
      #expect(run.stderr.hasSuffix(message), "\(args[0]): \(run.stderr)")
    }
    #expect(Array(try Data(contentsOf: URL(fileURLWithPath: bad))) == bytes + Array("\n\n".utf8))
    #expect(!dir.exists("m.snap"))
    // Concatenated on a pipe, snapshots still add up (white space between them allowed), and
    // junk after them is named by its offset.
    let other = dir.file("other.snap")
    _ = dir.run([
      "ingest", "--config", Self.config, CLITest.repoRoot + "/Data/swipes.csv", "--out", other,
    ])
    let second = Array(try Data(contentsOf: URL(fileURLWithPath: other)))
    let merged = dir.run(
      ["merge", "-", "--out", dir.file("m.snap")], stdin: bytes + [0x0A] + second)
    #expect(merged.code == .success, "\(merged.stderr)")
    #expect(try SnapshotFile.read(path: dir.file("m.snap")).sources.count == 2)
    let junk = dir.run(
      ["merge", "-", "--out", dir.file("j.snap")], stdin: bytes + second + Array("oops".utf8))
    #expect(junk.code == .dataError)
    #expect(
      junk.stderr.contains(
        "<stdin> (at byte \(bytes.count + second.count)): the 4 bytes from byte "
          + "\(bytes.count + second.count) to the end, after snapshot 2, do not start with a "
          + "snapshot header"))
  }
}
