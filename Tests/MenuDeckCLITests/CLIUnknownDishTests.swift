import DeckJobs
import Foundation
import Testing

@testable import MenuDeckCLI

/// The warning about events naming dishes that are not in the catalog says where the first one
/// is: its file:line when one log has them (the JSON line's `file` and `line`), each log's count
/// and first line when several do, the snapshot when only a snapshot knows them; the same for
/// any `--jobs`.
@Suite struct CLIUnknownDishTests {
  static let config = "\(CLITest.repoRoot)/Config/menudeck.json"
  static let advice = "they were left out (correct the ids, or add the dishes to the catalog)"
  /// A snapshot has no lines and cannot be corrected: its ids are its logs', where `ingest`
  /// (with a catalog) named each log's first one.
  static let snapshotAdvice =
    "they were left out (add the dishes to the catalog, or correct the ids in the logs the "
    + "snapshot was made from and make it again from them; 'menudeck ingest' names each log's "
    + "first such line when its config or --catalog names the catalog)"

  static func event(_ item: String, _ swipe: String = "right") -> String {
    #"{"user":"u01","item":"\#(item)","swipe":"\#(swipe)","at":"2026-11-20T12:00:00+09:00"}"#
  }

  /// Three known swipes, then `unknown` at line 4 and 6 (and a known one between).
  static let oneLog = [
    event("edamame"), event("hiyayakko"), event("edamame", "left"), event("ghost-dish"),
    event("edamame"), event("phantom-dish"),
  ].map { $0 + "\n" }.joined()

  func deck(_ dir: TempDir, _ extra: [String]) -> CLIRun {
    dir.run(
      ["deck", "--config", Self.config, "--date", "2026-11-30", "--user", "u01", "-f", "jsonl"]
        + extra)
  }

  @Test func oneLogGivesTheFirstOnesLine() throws {
    let dir = try TempDir("menudeck-unknown")
    _ = try dir.write("today.jsonl", Self.oneLog)
    let text = deck(dir, ["--history", "today.jsonl"])
    #expect(text.code == .success, "\(text.stderr)")
    #expect(
      text.stderr.hasPrefix(
        "menudeck: warning: today.jsonl:4: 2 events naming dishes that are not in the catalog "
          + "(e.g. 'ghost-dish', 'phantom-dish'), the first on this line; \(Self.advice)\n"),
      "\(text.stderr)")
    let json = deck(dir, ["--history", "today.jsonl", "--log-format", "json"])
    let line = try #require(
      json.stderr.split(separator: "\n").first { $0.contains("\"unknown_items\"") })
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    #expect(object["level"] as? String == "warning")
    #expect(object["file"] as? String == "today.jsonl")
    #expect(object["line"] as? Int == 4)
    #expect(
      object["message"] as? String
        == "2 events naming dishes that are not in the catalog (e.g. 'ghost-dish', "
        + "'phantom-dish'), the first on this line; \(Self.advice)")
  }

  @Test func severalLogsGiveEachOnesCountAndFirstLine() throws {
    let dir = try TempDir("menudeck-unknown")
    _ = try dir.write("a.jsonl", Self.oneLog)
    _ = try dir.write("b.jsonl", Self.event("edamame") + "\n" + Self.event("ghost-dish") + "\n")
    _ = try dir.write("c.jsonl", Self.event("edamame") + "\n")
    let r = deck(dir, ["--history", "a.jsonl", "--history", "c.jsonl", "--history", "b.jsonl"])
    #expect(r.code == .success, "\(r.stderr)")
    #expect(
      r.stderr.hasPrefix(
        "menudeck: warning: 3 events naming dishes that are not in the catalog (e.g. "
          + "'ghost-dish', 'phantom-dish'): 2 in a.jsonl from line 4, 1 in b.jsonl at line 2; "
          + "\(Self.advice)\n"),
      "\(r.stderr)")
    let json = deck(
      dir, ["--history", "a.jsonl", "--history", "b.jsonl", "--log-format", "json", "-q"])
    #expect(json.stderr.isEmpty, "--quiet: \(json.stderr)")
  }

  @Test func validateGivesTheLineInItsReportToo() throws {
    let dir = try TempDir("menudeck-unknown")
    _ = try dir.write("today.jsonl", Self.oneLog)
    let r = dir.run([
      "validate", "--config", Self.config, "--history", "today.jsonl", "--format", "json",
    ])
    #expect(r.code == .success, "\(r.stderr)")
    let report = try #require(try r.json() as? [String: Any])
    let warnings = try #require(report["warnings"] as? [[String: Any]])
    let warning = try #require(
      warnings.first { ($0["message"] as? String)?.contains("ghost") == true })
    #expect(warning["file"] as? String == "today.jsonl")
    #expect(warning["line"] as? Int == 4)
    #expect(r.stderr.contains("menudeck: warning: today.jsonl:4: 2 events naming dishes"))
  }

  @Test func aSnapshotHasNoLinesAndAMergeNoOneFile() throws {
    let dir = try TempDir("menudeck-unknown")
    _ = try dir.write("today.jsonl", Self.oneLog)
    _ = try dir.write("more.jsonl", Self.event("spectre-dish") + "\n")
    let ingest = dir.run(["ingest", "--config", Self.config, "today.jsonl", "--into", "h.snap"])
    #expect(ingest.code == .success, "\(ingest.stderr)")
    // The ingest, which reads the config's catalog, named the line.
    #expect(
      ingest.stderr.hasPrefix(
        "menudeck: warning: today.jsonl:4: 2 swipes naming dishes that are not in the catalog "),
      "\(ingest.stderr)")
    let alone = deck(dir, ["--history", "h.snap"])
    #expect(alone.code == .success, "\(alone.stderr)")
    #expect(
      alone.stderr.hasPrefix(
        "menudeck: warning: 2 events naming dishes that are not in the catalog (e.g. "
          + "'ghost-dish', 'phantom-dish') in h.snap; \(Self.snapshotAdvice)\n"),
      "\(alone.stderr)")
    let merged = deck(dir, ["--history", "h.snap", "--history", "more.jsonl"])
    #expect(merged.code == .success, "\(merged.stderr)")
    #expect(
      merged.stderr.hasPrefix(
        "menudeck: warning: 3 events naming dishes that are not in the catalog (e.g. "
          + "'ghost-dish', 'phantom-dish', 'spectre-dish'): 3 in the history merged from "
          + "h.snap, more.jsonl; \(Self.snapshotAdvice)\n"),
      "\(merged.stderr)")
  }

  /// Over two parts of the parallel reader (4 MiB each), the unknown dishes only in the second
  /// half: every `--jobs` names the same first line, byte for byte.
  @Test(arguments: ["jsonl", "csv"])
  func theFirstLineIsTheSameForAnyJobs(format: String) throws {
    let dir = try TempDir("menudeck-unknown-parts")
    let bundled = try String(
      contentsOfFile: "\(CLITest.repoRoot)/Data/swipes.jsonl", encoding: .utf8
    ).split(separator: "\n")
    var rows: [String] = []
    for line in bundled {
      guard format == "csv" else {
        rows.append(String(line))
        continue
      }
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      guard let swipe = object["swipe"] as? String else { continue }  // a drag
      let fields = [object["user"], object["item"], swipe, object["at"], object["position"]]
      rows.append(fields.map { "\($0!)" }.joined(separator: ","))
    }
    let ghost =
      format == "csv"
      ? "u01,ghost-dish,right,2026-11-20T12:00:00+09:00,1" : Self.event("ghost-dish")
    var text = format == "csv" ? "user,item,swipe,at,position\n" : ""
    var lines = format == "csv" ? 1 : 0
    var ghostLine = 0
    while text.utf8.count < 9 << 20 {
      for row in rows {
        text += row + "\n"
        lines += 1
      }
      if text.utf8.count > 6 << 20 {
        text += ghost + "\n"
        lines += 1
        if ghostLine == 0 { ghostLine = lines }
      }
    }
    let name = "big.\(format)"
    _ = try dir.write(name, text)
    var runs: [CLIRun] = []
    for jobs in ["1", "3"] {
      let r = deck(dir, ["--history", name, "--jobs", jobs])
      #expect(r.code == .success, "\(r.stderr)")
      runs.append(r)
    }
    #expect(ghostLine > 0)
    #expect(
      runs[0].stderr.hasPrefix("menudeck: warning: \(name):\(ghostLine): "), "\(runs[0].stderr)")
    #expect(runs[1].stderr == runs[0].stderr)
    #expect(runs[1].stdout == runs[0].stdout)
  }
}
