import DeckCore
import DeckIO
import Foundation
import Testing

@testable import DeckSimulation

/// The repository's Data/ directory, found from this file's path.
private let dataDirectory = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .appendingPathComponent("Data")

/// Generated once for the whole suite: the log takes a moment to simulate.
private let sampleFiles = SampleData.files()
private let sampleEvents = SampleData.events()

private func file(_ name: String) -> String {
  sampleFiles.first { $0.name == name }!.contents
}

@Suite("sample data: generator and checked-in files")
struct SampleDataFilesTests {
  @Test("two runs give identical files")
  func deterministic() {
    #expect(SampleData.files() == sampleFiles)
  }

  @Test("another seed changes the log but not the tables")
  func seedChangesOnlyTheLog() {
    let other = SampleData.files(seed: 7)
    for name in ["catalog.json", "catalog.csv", "users.json", "users.csv"] {
      #expect(other.first { $0.name == name } == sampleFiles.first { $0.name == name })
    }
    #expect(
      other.first { $0.name == "swipes.jsonl" } != sampleFiles.first { $0.name == "swipes.jsonl" })
  }

  /// Set MENUDECK_WRITE_SAMPLE=1 to regenerate Data/ from the generator before comparing.
  @Test("Data/ holds exactly what the generator writes")
  func checkedInFilesMatch() throws {
    if ProcessInfo.processInfo.environment["MENUDECK_WRITE_SAMPLE"] == "1" {
      try SampleData.write(to: dataDirectory.path)
    }
    let present = try FileManager.default.contentsOfDirectory(atPath: dataDirectory.path)
      .filter { !$0.hasPrefix(".") }.sorted()
    #expect(present == sampleFiles.map(\.name).sorted())
    for f in sampleFiles {
      let onDisk = try Data(contentsOf: dataDirectory.appendingPathComponent(f.name))
      #expect(
        onDisk == Data(f.contents.utf8),
        "Data/\(f.name) differs from the generator; run MENUDECK_WRITE_SAMPLE=1 swift test --filter DeckSimulationTests"
      )
    }
  }

  @Test("write creates the directory and returns the paths it wrote")
  func writeIntoFreshDirectory() throws {
    let dir = FileManager.default.temporaryDirectory
      .appendingPathComponent("menudeck-sample-\(UInt32.random(in: 0 ... .max))/nested")
    defer { try? FileManager.default.removeItem(at: dir.deletingLastPathComponent()) }
    let paths = try SampleData.write(to: dir.path, seed: 3)
    #expect(paths.map { URL(fileURLWithPath: $0).lastPathComponent } == sampleFiles.map(\.name))
    let readme = try String(contentsOf: dir.appendingPathComponent("README.md"), encoding: .utf8)
    #expect(readme == SampleData.files(seed: 3).last!.contents)
  }

  @Test("write into a path that is a file fails with an i/o error naming it")
  func writeFails() throws {
    let blocker = FileManager.default.temporaryDirectory
      .appendingPathComponent("menudeck-blocker-\(UInt32.random(in: 0 ... .max))")
    try Data("x".utf8).write(to: blocker)
    defer { try? FileManager.default.removeItem(at: blocker) }
    #expect {
      try SampleData.write(to: blocker.path + "/inside")
    } throws: { error in
      guard case .io(let path, _)? = error as? DeckIOError else { return false }
      return path == blocker.path + "/inside"
    }
  }
}

@Suite("sample data: scalar formatting")
struct SampleFormattingTests {
  @Test(
    "JSON strings escape quotes, backslashes and control characters only",
    arguments: [
      ("plain", "\"plain\""),
      ("Chef's \"special\"", "\"Chef's \\\"special\\\"\""),
      ("a\\b", "\"a\\\\b\""),
      ("line\nbreak\r\ttab", "\"line\\nbreak\\r\\ttab\""),
      ("\u{08}\u{0C}\u{01}\u{1F}", "\"\\b\\f\\u0001\\u001f\""),
      ("\u{20}~\u{7F}", "\" ~\u{7F}\""),
      ("肉じゃが", "\"肉じゃが\""),
    ])
  func jsonStrings(input: String, expected: String) {
    #expect(SampleData.jsonString(input) == expected)
  }

  @Test(
    "CSV fields are quoted only for comma, quote, CR or LF",
    arguments: [
      ("plain", "plain"),
      ("", ""),
      ("a|b", "a|b"),
      ("it's", "it's"),
      ("a,b", "\"a,b\""),
      ("say \"hi\"", "\"say \"\"hi\"\"\""),
      ("two\nlines", "\"two\nlines\""),
      ("cr\r", "\"cr\r\""),
      ("Chef's \"special\" curry, extra hot", "\"Chef's \"\"special\"\" curry, extra hot\""),
    ])
  func csvFields(input: String, expected: String) {
    #expect(SampleData.csvField(input) == expected)
  }

  @Test(
    "tenths print with exactly one decimal",
    arguments: [
      (-2125, "-212.5"), (3900, "390.0"), (0, "0.0"), (5, "0.5"), (-5, "-0.5"), (-10, "-1.0"),
    ])
  func tenths(value: Int, expected: String) {
    #expect(SampleData.tenths(value) == expected)
  }

  @Test(
    "whole numbers print as integers",
    arguments: [(980.0, "980"), (0.0, "0"), (1680.0, "1680"), (980.5, "980.5"), (0.25, "0.25")])
  func numbers(value: Double, expected: String) {
    #expect(SampleData.number(value) == expected)
  }

  @Test("timestamps are local wall-clock times with the +09:00 offset, at day boundaries too")
  func timestamps() {
    let day = Int64(DeckDate.parse("2026-11-20")!.daysSinceEpoch) * 86_400
    #expect(SampleData.timestamp(day) == "2026-11-20T00:00:00+09:00")
    #expect(SampleData.timestamp(day - 1) == "2026-11-19T23:59:59+09:00")
    #expect(SampleData.timestamp(day + 19 * 3600 + 5 * 60 + 12) == "2026-11-20T19:05:12+09:00")
    #expect(SampleData.timestamp(day + 86_399) == "2026-11-20T23:59:59+09:00")
    #expect(SampleData.timestamp(day + 86_400) == "2026-11-21T00:00:00+09:00")
    #expect(SampleData.timestamp(-1) == "1969-12-31T23:59:59+09:00")
  }

  @Test("an event line has its keys in the documented order and no spaces")
  func eventLine() {
    let day = DeckDate.parse("2026-11-20")!
    let at = Int64(day.daysSinceEpoch) * 86_400 + 19 * 3600 + 5 * 60 + 12
    let swipe = LogEvent(
      user: "u07", item: "nikujaga", swipe: .right, at: at, position: 3, deck: day)
    #expect(
      SampleData.eventJSON(swipe)
        == #"{"user":"u07","item":"nikujaga","swipe":"right","at":"2026-11-20T19:05:12+09:00","position":3,"deck":"2026-11-20"}"#
    )
    let drag = LogEvent(
      user: "u07", item: "nikujaga", swipe: nil,
      drag: SampleDrag(dxTenths: -2125, width: 390).logged, at: at, position: 3, deck: day)
    #expect(
      SampleData.eventJSON(drag)
        == #"{"user":"u07","item":"nikujaga","dx":-212.5,"width":390,"at":"2026-11-20T19:05:12+09:00","position":3,"deck":"2026-11-20"}"#
    )
    #expect(
      SampleData.eventsCSV([swipe, drag])
        == "user,item,swipe,at,position,deck,dx,width\n"
        + "u07,nikujaga,right,2026-11-20T19:05:12+09:00,3,2026-11-20,,\n"
        + "u07,nikujaga,,2026-11-20T19:05:12+09:00,3,2026-11-20,-212.5,390\n")
  }

  @Test("drags decide by the food-menu rule: commit above 0.45 of the width, not at it")
  func dragOutcomes() {
    // 0.45 * 400 = 180 points exactly: springs back (hint); 180.1 commits.
    #expect(SampleDrag(dxTenths: 1800, width: 400).outcome == .hint(.right))
    #expect(SampleDrag(dxTenths: 1801, width: 400).outcome == .swipe(.right))
    #expect(SampleDrag(dxTenths: -1801, width: 400).outcome == .swipe(.left))
    #expect(SampleDrag(dxTenths: -479, width: 400).outcome == .none)
    #expect(SampleDrag(dxTenths: -480, width: 400).outcome == .hint(.left))
  }
}
