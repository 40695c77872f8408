import DeckCommandLine
import Foundation
import Testing

@testable import MenuDeckCLI

/// Runs menudeck in process and keeps what it wrote. Each call has its own streams and its own
/// current directory, so tests run in parallel without touching the process's state.
struct CLIRun {
  var code: ExitCode
  var stdoutBytes: [UInt8]
  var stderr: String

  var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }
  var stdoutLines: [Substring] { stdout.split(separator: "\n", omittingEmptySubsequences: false) }

  /// `menudeck <arguments>` with standard input `stdin`, relative paths against `directory`
  /// (the repository root unless told).
  init(_ arguments: [String], in directory: String = CLITest.repoRoot, stdin: [UInt8] = []) {
    let (io, out, err) = CLIStreams.capturing(stdin: stdin, currentDirectory: directory)
    code = run(arguments, io)
    stdoutBytes = out.bytes
    stderr = err.text
  }

  /// The deck objects of JSON output: the lines after the run header, without separators.
  var jsonDeckLines: [String] {
    stdoutLines.dropFirst(2).compactMap { line in
      var s = String(line)
      if s == "]}" || s.isEmpty { return nil }
      if s.hasSuffix(",") { s.removeLast() }
      return s
    }
  }

  /// Standard output parsed as one JSON document.
  func json() throws -> Any {
    try JSONSerialization.jsonObject(with: Data(stdoutBytes))
  }

  /// Standard output parsed as JSON Lines.
  func jsonLines() throws -> [[String: Any]] {
    try stdoutLines.filter { !$0.isEmpty }.map { line in
      try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }
  }
}

enum CLITest {
  /// `text` (a deck JSON document) without its run header's `arguments`, the one part of a
  /// deck file that records how the command line was spelt (`--jobs`, `--out`, ...).
  static func withoutArguments(_ text: String) -> String {
    guard let start = text.range(of: "\"arguments\":[") else { return text }
    guard let end = text[start.upperBound...].range(of: "],") else { return text }
    return String(text[..<start.lowerBound] + text[end.upperBound...])
  }

  /// The repository root, found from this file's path (Tests/MenuDeckCLITests/<file>).
  static let repoRoot: String = {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().path
  }()

  static func repoFile(_ relative: String) throws -> [UInt8] {
    try bytes(repoRoot + "/" + relative)
  }

  /// The bytes of the file at `path` (binary files: a snapshot is no text).
  static func bytes(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// The line after a usage error of `deck`: the pointer to its help (the usage block is only
  /// in the help).
  static let deckHelpNote = "menudeck: note: see 'menudeck deck --help'\n"
}

/// A directory of its own for one test, removed when the test is done with it.
final class TempDir {
  let path: String

  init(_ label: String = "menudeck-cli") throws {
    path =
      URL(fileURLWithPath: NSTemporaryDirectory())
      .appendingPathComponent("\(label)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  func url(_ name: String) -> URL { URL(fileURLWithPath: file(name)) }

  /// The absolute path of `name` in this directory.
  func file(_ name: String) -> String { path + "/" + name }

  @discardableResult
  func write(_ name: String, _ text: String) throws -> String {
    try write(name, Array(text.utf8))
  }

  @discardableResult
  func write(_ name: String, _ bytes: [UInt8]) throws -> String {
    try Data(bytes).write(to: url(name))
    return path + "/" + name
  }

  func read(_ name: String) throws -> String {
    String(decoding: try Data(contentsOf: url(name)), as: UTF8.self)
  }

  func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path + "/" + name) }

  /// Every name in the directory, hidden ones included, sorted.
  func names() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: path).sorted()
  }

  /// `menudeck <arguments>` with this directory as the current directory. Tests give absolute
  /// paths (`file(_:)`) where they pin messages: see `CLIPathDisplayTests` for relative ones.
  func run(_ arguments: [String], stdin: [UInt8] = []) -> CLIRun {
    CLIRun(arguments, in: path, stdin: stdin)
  }
}

/// Golden files in Tests/MenuDeckCLITests/Golden, compared byte for byte. They are rewritten only
/// when MENUDECK_RECORD_GOLDEN=1, and a recording run fails on purpose so that it is never silent:
/// rerun without the variable and review the diff in git.
enum Golden {
  static let directory: String = {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
      .path
  }()

  static var recording: Bool {
    ProcessInfo.processInfo.environment["MENUDECK_RECORD_GOLDEN"] == "1"
  }

  static func check(
    _ actual: String, _ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) {
    let path = directory + "/" + name
    if recording {
      do {
        try FileManager.default.createDirectory(
          atPath: directory, withIntermediateDirectories: true)
        try Data(actual.utf8).write(to: URL(fileURLWithPath: path))
        Issue.record(
          "recorded golden \(name); rerun without MENUDECK_RECORD_GOLDEN and review it in git diff",
          sourceLocation: sourceLocation)
      } catch {
        Issue.record("cannot record golden \(path): \(error)", sourceLocation: sourceLocation)
      }
      return
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      Issue.record(
        "golden \(name) is missing; record it with MENUDECK_RECORD_GOLDEN=1 swift test --filter MenuDeckCLITests and review it",
        sourceLocation: sourceLocation)
      return
    }
    let expected = String(decoding: data, as: UTF8.self)
    if expected == actual { return }
    let message: String = "output differs from golden \(name):\n" + diff(expected, actual)
    Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
  }

  /// The first differing block with a little context, `-` golden and `+` actual: the lines
  /// between the common prefix and the common suffix, at most `limit` of each.
  static func diff(_ expected: String, _ actual: String, context: Int = 2, limit: Int = 8)
    -> String
  {
    let a = expected.split(separator: "\n", omittingEmptySubsequences: false)
    let b = actual.split(separator: "\n", omittingEmptySubsequences: false)
    var first = 0
    while first < a.count, first < b.count, a[first] == b[first] { first += 1 }
    var suffix = 0
    while suffix < a.count - first, suffix < b.count - first,
      a[a.count - 1 - suffix] == b[b.count - 1 - suffix]
    {
      suffix += 1
    }
    let aEnd = a.count - suffix
    let bEnd = b.count - suffix
    var out = "@@ line \(first + 1) (golden \(a.count) lines, actual \(b.count) lines) @@\n"
    for i in max(0, first - context)..<first { out += "  \(a[i])\n" }
    for i in first..<min(aEnd, first + limit) { out += "- \(a[i])\n" }
    if aEnd - first > limit { out += "- ... \(aEnd - first - limit) more\n" }
    for i in first..<min(bEnd, first + limit) { out += "+ \(b[i])\n" }
    if bEnd - first > limit { out += "+ ... \(bEnd - first - limit) more\n" }
    for i in aEnd..<min(a.count, aEnd + context) { out += "  \(a[i])\n" }
    return out
  }
}
