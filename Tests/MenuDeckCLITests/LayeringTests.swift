import Foundation
import Testing

/// The run layer's line: parsed arguments stop at the command files. `ParsedArguments` and
/// `.declares(` may appear only in MenuDeckCLI's `*Command*.swift`, `*Options.swift` and
/// `*Requests.swift` files (and in DeckCommandLine, which defines them); DeckJobs never imports
/// DeckCommandLine. A failure names `file:line`.
@Suite struct LayeringTests {
  /// Files of MenuDeckCLI that still read parsed arguments outside a command, options or
  /// requests file: each is work left to move into a request. The list only shrinks.
  static let notYetMoved: Set<String> = []

  static var sources: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Sources")
  }

  /// Every Swift file under `root`, as (path relative to `root`, lines).
  static func swiftFiles(_ root: URL) throws -> [(String, [Substring])] {
    let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
    var result: [(String, [Substring])] = []
    while let url = files?.nextObject() as? URL {
      guard url.pathExtension == "swift" else { continue }
      let relative = String(url.path.dropFirst(root.path.count + 1))
      let text = try String(contentsOf: url, encoding: .utf8)
      result.append((relative, text.split(separator: "\n", omittingEmptySubsequences: false)))
    }
    return result.sorted { $0.0 < $1.0 }
  }

  /// Whether `relative` (under Sources/) may read parsed arguments.
  static func mayParse(_ relative: String) -> Bool {
    if relative.hasPrefix("DeckCommandLine/") { return true }
    guard relative.hasPrefix("MenuDeckCLI/") else { return false }
    let name = relative.split(separator: "/").last.map(String.init) ?? ""
    return name.contains("Command") || name.hasSuffix("Options.swift")
      || name.hasSuffix("Requests.swift")
  }

  /// The places under `root` where parsed arguments leak below the command files.
  static func leaks(_ root: URL, allowed: Set<String>) throws -> [String] {
    var found: [String] = []
    for (relative, lines) in try swiftFiles(root) where !mayParse(relative) {
      guard !allowed.contains(relative) else { continue }
      for (n, line) in lines.enumerated()
      where line.contains("ParsedArguments") || line.contains(".declares(") {
        found.append("Sources/\(relative):\(n + 1): \(line.trimmingCharacters(in: .whitespaces))")
      }
    }
    return found
  }

  /// The places under `root` where DeckJobs imports DeckCommandLine.
  static func jobImports(_ root: URL) throws -> [String] {
    var found: [String] = []
    for (relative, lines) in try swiftFiles(root) where relative.hasPrefix("DeckJobs/") {
      for (n, line) in lines.enumerated()
      where line.trimmingCharacters(in: .whitespaces).hasSuffix("import DeckCommandLine") {
        found.append("Sources/\(relative):\(n + 1): DeckJobs imports DeckCommandLine")
      }
    }
    return found
  }

  @Test func parsedArgumentsStayInTheCommandFiles() throws {
    let found = try Self.leaks(Self.sources, allowed: Self.notYetMoved)
    #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
  }

  @Test func theRunLayerDoesNotKnowTheCommandLine() throws {
    let found = try Self.jobImports(Self.sources)
    #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
  }

  @Test func notYetMovedFilesStillExistAndStillParse() throws {
    // An entry that no longer reads arguments must leave the list, so it cannot hide a leak.
    let files = Dictionary(uniqueKeysWithValues: try Self.swiftFiles(Self.sources))
    for name in Self.notYetMoved {
      let lines = try #require(files[name], "\(name) is gone: take it off notYetMoved")
      #expect(
        lines.contains { $0.contains("ParsedArguments") || $0.contains(".declares(") },
        "\(name) reads no arguments any more: take it off notYetMoved")
    }
  }

  @Test func rulesCatchALeakAndAnImport() throws {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("layering-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    for dir in ["DeckJobs", "MenuDeckCLI", "DeckIO"] {
      try FileManager.default.createDirectory(
        at: root.appendingPathComponent(dir), withIntermediateDirectories: true)
    }
    func write(_ path: String, _ text: String) throws {
      try Data(text.utf8).write(to: root.appendingPathComponent(path))
    }
    try write("DeckJobs/Job.swift", "import DeckCommandLine\nfunc f(_ a: ParsedArguments) {}\n")
    try write("MenuDeckCLI/Helper.swift", "let x = args.declares(InputOptions.seed)\n")
    try write("MenuDeckCLI/DeckCommand.swift", "func run(_ args: ParsedArguments) {}\n")
    try write("MenuDeckCLI/DeckRequests.swift", "func make(_ args: ParsedArguments) {}\n")
    try write("DeckIO/Reader.swift", "let ok = 1\n")
    let leaks = try Self.leaks(root, allowed: [])
    #expect(
      leaks == [
        "Sources/DeckJobs/Job.swift:2: func f(_ a: ParsedArguments) {}",
        "Sources/MenuDeckCLI/Helper.swift:1: let x = args.declares(InputOptions.seed)",
      ])
    #expect(
      try Self.jobImports(root) == [
        "Sources/DeckJobs/Job.swift:1: DeckJobs imports DeckCommandLine"
      ])
  }
}
