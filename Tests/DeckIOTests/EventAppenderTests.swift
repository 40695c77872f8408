import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckIO

@Suite struct EventAppenderTests {
  let swipe = LogEvent(
    user: "u01", item: "gyudon", swipe: .left, at: 1_764_500_000, position: 1,
    deck: DeckDate.parse("2026-11-30"), propensity: 0.25)
  let drag = LogEvent(
    user: "u01", item: "oyakodon", swipe: nil, drag: LoggedDrag(dx: 58.5, width: 390),
    at: 1_764_500_001, position: 2, deck: DeckDate.parse("2026-11-30"))

  func directory() throws -> String {
    let path = NSTemporaryDirectory() + "menudeck-appender-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
  }

  func read(_ path: String) throws -> String {
    String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
  }

  @Test func formatFromTheName() {
    #expect(EventAppender.format(path: "a.jsonl") == .jsonLines)
    #expect(EventAppender.format(path: "a.NDJSON") == .jsonLines)
    #expect(EventAppender.format(path: "a.csv") == .csv)
    #expect(EventAppender.format(path: "a.json") == nil)
    #expect(EventAppender.format(path: "log") == nil)
  }

  /// Each event is on disk as soon as `append` returns; a second appender adds to the file.
  @Test func jsonLinesAppendedLineByLine() throws {
    let dir = try directory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/log.jsonl"
    let log = try EventAppender(path: path, name: "log.jsonl", format: .jsonLines)
    try log.append(swipe)
    #expect(
      try read(path)
        == #"{"user":"u01","item":"gyudon","swipe":"left","at":"2025-11-30T10:53:20","position":1,"deck":"2026-11-30","propensity":0.25}"#
        + "\n")
    try EventAppender(path: path, name: "log.jsonl", format: .jsonLines).append(drag)
    let lines = try read(path).split(separator: "\n")
    #expect(lines.count == 2)
    #expect(lines[1].hasSuffix(#""position":2,"deck":"2026-11-30","dx":58.5,"width":390}"#))
    #expect(log.count == 1)
  }

  @Test func csvHeaderOnceAndOtherHeadersRefused() throws {
    let dir = try directory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/log.csv"
    try EventAppender(path: path, name: "log.csv", format: .csv).append(swipe)
    try EventAppender(path: path, name: "log.csv", format: .csv).append(drag)
    #expect(
      try read(path)
        == "user,item,swipe,at,position,deck,propensity,prefix_propensity,dx,width\n"
        + "u01,gyudon,left,2025-11-30T10:53:20,1,2026-11-30,0.25,,,\n"
        + "u01,oyakodon,,2025-11-30T10:53:21,2,2026-11-30,,,58.5,390\n")
    let other = dir + "/other.csv"
    try Data("user,item,swipe,at\n".utf8).write(to: URL(fileURLWithPath: other))
    #expect(throws: DeckIOError.self) {
      try EventAppender(path: other, name: "other.csv", format: .csv)
    }
  }

  /// A log appended to before the prefix_propensity column: refused, saying why and how to add
  /// the column; once added, appending goes on.
  @Test func csvLogsWithoutThePrefixPropensityColumnAreRefused() throws {
    let dir = try directory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let path = dir + "/old.csv"
    let row = "u01,gyudon,left,2025-11-30T10:53:20,1,2026-11-30,0.25,,\n"
    try Data(("user,item,swipe,at,position,deck,propensity,dx,width\n" + row).utf8).write(
      to: URL(fileURLWithPath: path))
    #expect(
      throws: DeckIOError.invalid(
        path: "old.csv",
        message: "the CSV log has the columns of menudeck before prefix_propensity "
          + "('user,item,swipe,at,position,deck,propensity,dx,width'), so new rows would not line "
          + "up; give a new file (or a .jsonl log), or add the column: put ',prefix_propensity' "
          + "after 'propensity' in the header and an empty field after the propensity of every "
          + "row")
    ) {
      try EventAppender(path: path, name: "old.csv", format: .csv)
    }
    // The same log with the column added.
    try Data(
      ("user,item,swipe,at,position,deck,propensity,prefix_propensity,dx,width\n"
        + "u01,gyudon,left,2025-11-30T10:53:20,1,2026-11-30,0.25,,,\n").utf8
    ).write(to: URL(fileURLWithPath: path))
    try EventAppender(path: path, name: "old.csv", format: .csv).append(drag)
    #expect(
      try read(path).hasSuffix("\nu01,oyakodon,,2025-11-30T10:53:21,2,2026-11-30,,,58.5,390\n"))
  }
}
