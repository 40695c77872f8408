import Foundation
import Testing

@testable import MenuDeckCLI

/// `--rejects FILE` writes the format its name says (CSV for `.csv`, JSON Lines for `.jsonl`,
/// `.ndjson` and `-`), and refuses any other name before anything is read or written.
@Suite struct CLIRejectsNameTests {
  static let log =
    CLIOutputFileTests.good + [
      CLIOutputFileTests.badSwipe, CLIOutputFileTests.badJSON,
    ]

  @Test func aCSVNameGetsCSV() throws {
    let dir = try CLIOutputFileTests.fixture(history: Self.log)
    let r = dir.run(
      CLIOutputFileTests.deckArgs(dir) + [
        "--skip-bad-lines", "--rejects", dir.file("rejects.csv"), "--out", dir.file("d.json"),
      ])
    #expect(r.code == .success, "\(r.stderr)")
    let text = try dir.read("rejects.csv")
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.count == 3)
    #expect(lines[0] == "file,line,column,field,reason,text,base64")
    #expect(lines[1].hasPrefix(dir.file("swipes.jsonl") + ",4,"), "\(lines[1])")
    #expect(lines[2].hasPrefix(dir.file("swipes.jsonl") + ",5,"), "\(lines[2])")
    #expect(!text.contains("{\"file\""), "no JSON in a .csv file")
  }

  @Test(arguments: ["rejects.jsonl", "rejects.NDJSON"])
  func aJSONLinesNameGetsJSONLines(name: String) throws {
    let dir = try CLIOutputFileTests.fixture(history: Self.log)
    let r = dir.run(
      CLIOutputFileTests.deckArgs(dir) + [
        "--skip-bad-lines", "--rejects", dir.file(name), "--out", dir.file("d.json"),
      ])
    #expect(r.code == .success, "\(r.stderr)")
    let lines = try dir.read(name).split(separator: "\n")
    #expect(lines.count == 2)
    for line in lines {
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      #expect(object?["file"] as? String == dir.file("swipes.jsonl"))
    }
    // '-' is standard output, in JSON Lines too.
    let piped = dir.run(
      CLIOutputFileTests.deckArgs(dir) + [
        "--skip-bad-lines", "--rejects", "-", "--out", dir.file("d2.json"),
      ])
    #expect(piped.code == .success, "\(piped.stderr)")
    #expect(
      piped.stdout.hasPrefix("{\"file\":\"\(dir.file("swipes.jsonl"))\",\"line\":4,"),
      "\(piped.stdout)")
  }

  @Test(arguments: [
    ("rej.txt", "the name must say the format"),
    ("rej", "the name must say the format"),
    (
      "rej.json",
      "a .json name says one JSON document, but the rejects are one record per line"
    ),
  ])
  func otherNamesAreRefusedBeforeAnythingIsWritten(name: String, why: String) throws {
    let dir = try CLIOutputFileTests.fixture(history: Self.log)
    let path = dir.file(name)
    let message =
      "'--rejects \(path)': \(why); name it .jsonl or .ndjson (JSON Lines) or .csv (CSV), or "
      + "give '-' for standard output (JSON Lines)"
    let deck = dir.run(
      CLIOutputFileTests.deckArgs(dir) + [
        "--skip-bad-lines", "--rejects", path, "--out", dir.file("d.json"),
      ])
    #expect(deck.code == .usage)
    #expect(deck.code.rawValue == 64)
    #expect(
      deck.stderr
        == "menudeck: error: \(message)\nmenudeck: note: see 'menudeck deck --help'\n")
    let ingest = dir.run([
      "ingest", dir.file("swipes.jsonl"), "--out", dir.file("h.snap"), "--skip-bad-lines",
      "--rejects", path,
    ])
    #expect(ingest.code == .usage)
    #expect(ingest.stderr.contains("menudeck: error: \(message)\n"), "\(ingest.stderr)")
    #expect(try dir.names() == ["catalog.json", "config.json", "swipes.jsonl"])
  }
}
