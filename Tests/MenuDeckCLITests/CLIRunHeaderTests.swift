import DeckCore
import Foundation
import Testing

@testable import MenuDeckCLI

/// The run header of `deck --format json` names every input with the SHA-256 of its bytes, the
/// history included (logs as read, snapshots, standard input), and the exact command line.
@Suite struct CLIRunHeaderTests {
  static func header(_ r: CLIRun) throws -> [String: Any] {
    let first = try #require(r.stdout.split(separator: "\n").first)
    // The first line is `{"run":{...},`: the header object and a comma.
    let text = "{" + first.dropFirst().dropLast() + "}"
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    return try #require(json["run"] as? [String: Any])
  }

  static func inputs(_ header: [String: Any]) throws -> [[String: String]] {
    try #require(header["inputs"] as? [[String: String]])
  }

  static func sha256(_ path: String) throws -> String {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    return SHA256.hex(SHA256.hash(bytes))
  }

  @Test func theBundledRunNamesItsHistoryAndArguments() throws {
    let r = CLIRun(["deck", "--format", "json"])
    #expect(r.code == .success, "\(r.stderr)")
    let header = try Self.header(r)
    #expect(header["arguments"] as? [String] == ["menudeck", "deck", "--format", "json"])
    let inputs = try Self.inputs(header)
    #expect(inputs.map { $0["role"] ?? "" } == ["config", "catalog", "users", "history"])
    let history = try #require(inputs.last)
    #expect(history["path"] == "Data/swipes.jsonl")
    #expect(history["sha256"] == (try Self.sha256("\(CLITest.repoRoot)/Data/swipes.jsonl")))
  }

  /// A plugin strategy's executable and a `--diners` list decide the decks as the data do:
  /// both are inputs with their hashes; `simulate` and `compare` record every strategy's
  /// options and their plugins too.
  @Test func pluginsAndDinerListsAreInputs() throws {
    let dir = try TempDir()
    let list = try dir.write("diners.txt", "u01\nu02\n")
    let plugin = "\(CLITest.repoRoot)/Config/plugins/veg_first.py"
    let r = CLIRun(["deck", "--date", "2026-11-30", "--diners", list, "-s", "veg-first"])
    #expect(r.code == .success, "\(r.stderr)")
    let inputs = try Self.inputs(try Self.header(r))
    #expect(
      inputs.map { $0["role"] ?? "" } == [
        "config", "catalog", "users", "plugin", "history", "diners",
      ])
    #expect(inputs[3]["path"] == "Config/plugins/veg_first.py")
    #expect(inputs[3]["sha256"] == (try Self.sha256(plugin)))
    let listHash = try Self.sha256(list)
    #expect(inputs[5]["path"] == list && inputs[5]["sha256"] == listHash)

    let ok = CLIRun([
      "simulate", "--users", "3", "--days", "1", "-s", "veg-first", "-s", "affinity",
      "--format", "json",
    ])
    #expect(ok.code == .success, "\(ok.stderr)")
    let json = try #require(try ok.json() as? [String: Any])
    let run = try #require(json["run"] as? [String: Any])
    #expect(run["strategies"] as? [String] == ["veg-first", "affinity"])
    let options = try #require(run["options"] as? [String: [String: Any]])
    #expect(options["affinity"]?["weight_tags"] as? Double == 0.5)
    #expect(options["veg-first"]?["diet"] as? String == "vegetarian")
    let simInputs = try #require(run["inputs"] as? [[String: String]])
    #expect(simInputs.map { $0["role"] ?? "" } == ["config", "catalog", "plugin"])
  }

  @Test func standardInputAndSnapshotsAreHashedAsRead() throws {
    let dir = try TempDir("menudeck-run-header")
    let log = try [UInt8](
      Data(contentsOf: URL(fileURLWithPath: "\(CLITest.repoRoot)/Data/swipes.jsonl")))
    let config = "\(CLITest.repoRoot)/Config/menudeck.json"
    let piped = CLIRun(["deck", "--config", config, "--history", "-"], stdin: log)
    #expect(piped.code == .success, "\(piped.stderr)")
    let stdin = try #require(try Self.inputs(Self.header(piped)).last)
    #expect(stdin["role"] == "history")
    #expect(stdin["path"] == "<stdin>")
    #expect(stdin["sha256"] == SHA256.hex(SHA256.hash(log)))

    let ingest = CLIRun(
      ["ingest", "--config", config, "--out", "h.snap", "\(CLITest.repoRoot)/Data/swipes.jsonl"],
      in: dir.path)
    #expect(ingest.code == .success, "\(ingest.stderr)")
    let fromSnapshot = CLIRun(
      ["deck", "--config", config, "--history", "h.snap"], in: dir.path)
    #expect(fromSnapshot.code == .success, "\(fromSnapshot.stderr)")
    let snapshot = try #require(try Self.inputs(Self.header(fromSnapshot)).last)
    #expect(snapshot["role"] == "snapshot")
    #expect(snapshot["path"] == "h.snap")
    #expect(snapshot["sha256"] == (try Self.sha256("\(dir.path)/h.snap")))
    // The same decks as from the log itself.
    let fromLog = CLIRun(["deck", "--config", config])
    #expect(
      fromSnapshot.stdout.split(separator: "\n").dropFirst()
        == fromLog.stdout.split(separator: "\n").dropFirst())
  }

  @Test func aLogReadInPartsIsHashedAsAWholeFile() throws {
    // Over two parts of the parallel reader (4 MiB each): the bundled log repeated.
    let dir = try TempDir("menudeck-run-header-parts")
    let line = try String(
      contentsOfFile: "\(CLITest.repoRoot)/Data/swipes.jsonl", encoding: .utf8)
    var text = ""
    while text.utf8.count < 9 << 20 { text += line }
    _ = try dir.write("big.jsonl", text)
    let config = "\(CLITest.repoRoot)/Config/menudeck.json"
    let expected = SHA256.hex(SHA256.hash(Array(text.utf8)))
    for jobs in ["1", "2"] {
      let r = CLIRun(
        ["deck", "--config", config, "--history", "big.jsonl", "--jobs", jobs, "-q"],
        in: dir.path)
      #expect(r.code == .success, "\(r.stderr)")
      let history = try #require(try Self.inputs(Self.header(r)).last)
      #expect(history["path"] == "big.jsonl")
      #expect(history["sha256"] == expected, "--jobs \(jobs)")
    }
  }
}

/// `--dry-run` on `deck` and `ingest`: everything is read and checked, nothing is written,
/// created or locked, and stderr says what would have been written.
@Suite struct CLIDryRunTests {
  @Test func deckWritesNothingAndSaysWhatItWouldWrite() throws {
    let dir = try TempDir("menudeck-dry-run")
    let config = "\(CLITest.repoRoot)/Config/menudeck.json"
    let real = CLIRun(
      ["deck", "--config", config, "--date", "2026-11-30", "--out", "d.json"], in: dir.path)
    #expect(real.code == .success, "\(real.stderr)")
    let bytes = try dir.read("d.json").utf8.count
    try FileManager.default.removeItem(atPath: dir.file("d.json"))
    let dry = CLIRun(
      ["deck", "--config", config, "--date", "2026-11-30", "--out", "d.json", "--dry-run"],
      in: dir.path)
    #expect(dry.code == .success, "\(dry.stderr)")
    #expect(dry.stdout.isEmpty)
    // The header records `--dry-run` too: 12 bytes more (`,"--dry-run"`).
    #expect(
      dry.stderr.contains(
        "menudeck: note: dry run: --out would write \(bytes + 12) bytes to d.json; nothing was "
          + "written"), "\(dry.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    // To standard output: nothing on standard output either.
    let toStdout = CLIRun(["deck", "--config", config, "--dry-run"], in: dir.path)
    #expect(toStdout.code == .success)
    #expect(toStdout.stdout.isEmpty)
    // --out was not given: the note does not name it.
    #expect(toStdout.stderr.hasPrefix("menudeck: note: dry run: would write "))
    #expect(toStdout.stderr.contains(" bytes to standard output; nothing was written\n"))
    #expect(!toStdout.stderr.contains("--out"), "\(toStdout.stderr)")
  }

  @Test func deckStillFailsOnBadInput() throws {
    let dir = try TempDir("menudeck-dry-run-bad")
    _ = try dir.write(
      "bad.jsonl",
      "{\"user\":\"u1\",\"item\":\"gyudon\",\"swipe\":\"up\",\"at\":\"2026-11-01T12:00:00Z\"}\n")
    let r = CLIRun(
      [
        "deck", "--config", "\(CLITest.repoRoot)/Config/menudeck.json", "--history", "bad.jsonl",
        "--out", "d.json", "--dry-run",
      ], in: dir.path)
    #expect(r.code == .dataError)
    #expect(r.stderr.contains("bad.jsonl:1"), "\(r.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["bad.jsonl"])
  }

  @Test func ingestLeavesTheSnapshotAsItWas() throws {
    let dir = try TempDir("menudeck-dry-run-ingest")
    let config = "\(CLITest.repoRoot)/Config/menudeck.json"
    let log = "\(CLITest.repoRoot)/Data/swipes.jsonl"
    let fresh = CLIRun(["ingest", "-c", config, "--out", "h.snap", log, "--dry-run"], in: dir.path)
    #expect(fresh.code == .success, "\(fresh.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    #expect(fresh.stderr.contains("dry run: would ingest 1 log (3379 swipes); h.snap would hold"))
    // Into an existing snapshot: it is read and checked (the log is already in it), unchanged.
    #expect(
      CLIRun(["ingest", "-c", config, "--out", "h.snap", log], in: dir.path).code == .success)
    let before = try Data(contentsOf: URL(fileURLWithPath: dir.file("h.snap")))
    let again = CLIRun(
      ["ingest", "-c", config, "--into", "h.snap", log, "--dry-run"], in: dir.path)
    #expect(again.code == .success, "\(again.stderr)")
    #expect(again.stderr.contains("already in h.snap"), "\(again.stderr)")
    // Nothing new: the snapshot would stay as it is (not "would write 0 bytes").
    #expect(
      again.stderr.contains(
        "menudeck: note: dry run: h.snap would stay as it is; nothing was written\n"),
      "\(again.stderr)")
    #expect(!again.stderr.contains("0 bytes"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("h.snap"))) == before)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["h.snap"])
  }
}
