import DeckCommandLine
import DeckEvaluation
import DeckJobs
import DeckSimulation
import DeckStrategies
import Foundation
import Testing

@testable import MenuDeckCLI

/// Keeps the manual honest: every command, option, config key, format and exit code that the code
/// knows is documented on its page under docs/, the generated pages are those the specs give,
/// every link leads somewhere, and the README is a front page that opens with the two commands
/// of a fresh clone.
@Suite struct DocumentationTests {
  static func text(_ path: String) -> String {
    let url = URL(fileURLWithPath: CLITest.repoRoot).appendingPathComponent(path)
    return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
  }

  static let readme = text("README.md")

  static let visibleCommands = menudeckCommand.subcommands.filter { !$0.isHidden }

  @Test func readmeOpensWithTheTwoFreshCloneCommands() {
    let firstBlock = Self.readme.components(separatedBy: "```").dropFirst().first ?? ""
    #expect(firstBlock.contains("swift run menudeck"))
    #expect(firstBlock.contains("swift test"))
    #expect(Self.readme.prefix(400).contains("swift run menudeck"))
  }

  @Test func readmeIsAFrontPageNotAManual() {
    let bytes = Self.readme.utf8.count
    #expect(bytes > 2_000 && bytes < 14_000, "README.md has \(bytes) bytes; the manual is docs/")
  }

  @Test(arguments: visibleCommands.map(\.name))
  func everyCommandHasAPageLinkedFromTheReadme(_ name: String) {
    let page = Self.text("docs/commands/\(name).md")
    #expect(page.contains("# menudeck \(name)\n"), "docs/commands/\(name).md is missing")
    #expect(
      Self.readme.contains("(docs/commands/\(name).md)"), "README does not link the '\(name)' page")
  }

  @Test func everyOptionOfEveryCommandIsOnItsPage() {
    for command in Self.visibleCommands {
      let page = Self.text("docs/commands/\(command.name).md")
      for sub in [command] + command.subcommands {
        for option in sub.options where !option.isHidden {
          #expect(
            page.contains("--\(option.name)"),
            "option '--\(option.name)' of '\(sub.name)' is not in docs/commands/\(command.name).md")
        }
      }
    }
  }

  @Test func everyConfigKeyIsDocumented() {
    let page = Self.text("docs/config.md")
    for key in MenuDeckConfig.topLevelKeys {
      #expect(page.contains("| `\(key)` |"), "config key '\(key)' is not in docs/config.md")
    }
    for key in MenuDeckConfig.deckKeys {
      #expect(
        page.contains("| `deck.\(key)` |"), "config key 'deck.\(key)' is not in docs/config.md")
    }
  }

  @Test func everyStatsMetricIsDefined() {
    let page = Self.text("docs/metrics.md")
    for metric in StatsMetric.allCases {
      let row =
        "| `\(metric.name)` | \(metric.definition.replacingOccurrences(of: "|", with: "\\|")) |"
      #expect(page.contains(row), "metric '\(metric.name)' is not defined in docs/metrics.md")
    }
  }

  @Test func everyComparisonMetricIsDefined() {
    let page = Self.text("docs/metrics.md")
    let offline = OfflineMetric.allCases.map(\.pattern)
    let offPolicy = OffPolicy.metrics(positions: 1).map(\.name).filter { !$0.hasSuffix("_p1") }
    for name in offline + offPolicy {
      #expect(page.contains("| `\(name)` |"), "metric '\(name)' is not defined in docs/metrics.md")
    }
  }

  /// The table "Directions and units" of docs/metrics.md says what `MetricMeaning` says.
  @Test func metricDirectionsAreDocumentedAsTheCodeHasThem() throws {
    let page = Self.text("docs/metrics.md")
    let start = try #require(page.range(of: "## Directions and units"))
    let table = String(page[start.upperBound...]).components(separatedBy: "\n## ")[0]
    var checked = 0
    for line in table.split(separator: "\n") where line.hasPrefix("| `") {
      let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
      let arrow = try #require(cells[1].first)
      let names = cells[0].components(separatedBy: "`").enumerated()
        .filter { $0.offset % 2 == 1 }.map(\.element)
      for name in names where name != "_pP" {
        let meaning = try #require(
          MetricMeaning.of(name.replacingOccurrences(of: "<k>", with: "5")), "\(name)")
        #expect(String(arrow) == meaning.direction.arrow, "\(name)")
        checked += 1
      }
    }
    #expect(checked >= 40)
  }

  @Test func everySimulationKeyIsDocumented() {
    let page = Self.text("docs/commands/simulate.md")
    for key in SimulationConfig.keys {
      #expect(
        page.contains("| `\(key)` |"), "simulation key '\(key)' is not in docs/commands/simulate.md"
      )
    }
  }

  @Test func everyStrategyIsDescribed() {
    let page = Self.text("docs/strategies.md")
    for identifier in StrategyRegistry.identifiers {
      #expect(
        page.contains("- **\(identifier)**"),
        "strategy '\(identifier)' is not in docs/strategies.md")
    }
  }

  @Test func everyExitCodeIsDocumented() {
    let page = Self.text("docs/exit-codes.md")
    for code: Int32 in [0, 1, 64, 65, 66, 69, 70, 74, 75, 76, 141] {
      #expect(page.contains("| \(code) |"), "exit code \(code) is not in docs/exit-codes.md")
    }
    #expect(page.contains("| 129, 130, 143 |"), "signal exits are not in docs/exit-codes.md")
  }

  @Test func theBundledConfigIsValidAndShownVerbatim() throws {
    let url = URL(fileURLWithPath: CLITest.repoRoot).appendingPathComponent("Config/menudeck.json")
    let bytes = Array(try Data(contentsOf: url))
    let config = try MenuDeckConfig.parse(bytes, path: "Config/menudeck.json")
    #expect(config.catalog == "Data/catalog.json")
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(
      Self.text("docs/config.md").contains(text.trimmingCharacters(in: .whitespacesAndNewlines)))
  }

  /// The generator walks the real command tree: it is well formed.
  @Test func theCommandTreeIsWellFormed() {
    #expect(menudeckCommand.definitionProblems() == [])
  }

  /// The generated reference, rendered in memory from the specs and the hand-written text of the
  /// pages, is what docs/ holds.
  @Test func theGeneratedReferenceIsUpToDate() throws {
    let docs = CLITest.repoRoot + "/docs"
    for page in try Reference.pages(in: docs) {
      let onDisk = try? String(contentsOfFile: docs + "/" + page.path, encoding: .utf8)
      #expect(
        onDisk == page.content,
        "docs/\(page.path) is stale: run '\(Reference.regenerateCommand)' and commit the result")
    }
  }

  /// Every relative link of the README and of docs/ names a file that exists.
  @Test func everyRelativeLinkLeadsToAFile() throws {
    let root = URL(fileURLWithPath: CLITest.repoRoot)
    var pages = ["README.md", "CONTRIBUTING.md", "CHANGELOG.md"]
    let docs = root.appendingPathComponent("docs")
    if let walker = FileManager.default.enumerator(atPath: docs.path) {
      for case let path as String in walker where path.hasSuffix(".md") {
        pages.append("docs/" + path)
      }
    }
    let link = /\]\(([^)\s#]+)(#[^)\s]*)?\)/
    for page in pages {
      let directory = root.appendingPathComponent(page).deletingLastPathComponent()
      for match in Self.text(page).matches(of: link) {
        let target = String(match.output.1)
        if target.hasPrefix("http:") || target.hasPrefix("https:") { continue }
        let file = directory.appendingPathComponent(target).standardizedFileURL.path
        #expect(
          FileManager.default.fileExists(atPath: file), "\(page) links to '\(target)', not a file")
      }
    }
  }

  /// Every `Sources/...` and `Tests/...` path quoted in code spans of the README, CONTRIBUTING and
  /// docs/ names a file or folder that exists, so that a moved file cannot leave the manual
  /// pointing at nothing. A `*` in the last component must match something; paths with a
  /// placeholder (`NAME`, `<Module>`) are patterns, not paths, and are skipped.
  @Test func everyQuotedSourcePathExists() {
    let root = CLITest.repoRoot
    var pages = ["README.md", "CONTRIBUTING.md"]
    if let walker = FileManager.default.enumerator(atPath: root + "/docs") {
      for case let path as String in walker where path.hasSuffix(".md") {
        pages.append("docs/" + path)
      }
    }
    let span = /`([^`\n]+)`/
    let path = /(?:Sources|Tests)\/[A-Za-z0-9_.\/*-]*/
    var checked = 0
    for page in pages {
      for code in Self.text(page).matches(of: span) {
        for match in code.output.1.matches(of: path) {
          var quoted = String(match.output)
          while quoted.hasSuffix(".") { quoted.removeLast() }
          if quoted.contains("NAME") { continue }
          checked += 1
          #expect(Self.exists(quoted, in: root), "\(page) quotes '\(quoted)', which does not exist")
        }
      }
    }
    #expect(checked > 20, "only \(checked) quoted paths found: is the pattern still right?")
  }

  /// Whether `path` (relative to `root`, `*` allowed in its last component) names something.
  static func exists(_ path: String, in root: String) -> Bool {
    guard path.contains("*") else {
      return FileManager.default.fileExists(atPath: root + "/" + path)
    }
    let parts = path.split(separator: "/", omittingEmptySubsequences: false)
    let directory = root + "/" + parts.dropLast().joined(separator: "/")
    let pattern = parts.last.map(String.init) ?? ""
    let pieces = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.contains { name in
      guard let first = pieces.first, let last = pieces.last, name.hasPrefix(first),
        name.hasSuffix(last), name.count >= first.count + last.count
      else { return false }
      var rest = Substring(name.dropFirst(first.count).dropLast(last.count))
      for piece in pieces.dropFirst().dropLast() {
        guard let range = rest.range(of: piece) else { return false }
        rest = rest[range.upperBound...]
      }
      return true
    }
  }

  /// .ci/run runs the test command the README gives and the formatter's lint, nothing else.
  @Test func ciRunsTheReadmeTestCommandAndTheLint() throws {
    let url = URL(fileURLWithPath: CLITest.repoRoot).appendingPathComponent(".ci/run")
    let script = try String(contentsOf: url, encoding: .utf8)
    let commands = script.split(separator: "\n").filter {
      !$0.hasPrefix("#") && !$0.hasPrefix("set ") && !$0.hasPrefix("cd ") && !$0.isEmpty
    }
    let lint = "swift format lint --strict -r Sources Tests"
    #expect(commands.contains("swift test"), ".ci/run does not run 'swift test'")
    #expect(Set(commands).isSubset(of: ["swift test", Substring(lint)]), "\(commands)")
    #expect(Set(commands).count == commands.count, "a command runs twice: \(commands)")
    #expect(Self.readme.contains("swift test"))
  }
}

/// The reference generator itself: hand-written text survives, a changed spec shows as stale,
/// and `menudeck reference` writes and checks a docs directory.
@Suite struct ReferenceGeneratorTests {
  @Test func spliceReplacesOnlyTheGeneratedBlock() throws {
    let page =
      "intro\n" + GeneratedBlock.begin + "\n\nold text\n\n" + GeneratedBlock.end + "\n\nmore\n"
    let spliced = try GeneratedBlock.splice("new text\n", into: page, path: "p.md")
    #expect(
      spliced
        == "intro\n" + GeneratedBlock.begin + "\n\nnew text\n\n" + GeneratedBlock.end + "\n\nmore\n"
    )
    #expect(try GeneratedBlock.splice("new text\n", into: spliced, path: "p.md") == spliced)
    #expect(
      try GeneratedBlock.splice("x", into: nil, path: "p.md")
        == GeneratedBlock.begin + "\n\nx\n\n" + GeneratedBlock.end + "\n")
  }

  @Test func aPageWithoutMarkersIsRefused() {
    #expect(throws: ReferenceError.missingMarkers(path: "p.md")) {
      try GeneratedBlock.splice("x", into: "# hand-written only\n", path: "p.md")
    }
  }

  /// The staleness test can fail: a spec that changes changes its page, and only its page.
  @Test func aChangedSpecChangesItsPage() throws {
    var root = menudeckCommand
    let index = try #require(root.subcommands.firstIndex { $0.name == "merge" })
    root.subcommands[index].abstract = "Something else entirely."
    let docs = CLITest.repoRoot + "/docs"
    let read = { (path: String) in try? String(contentsOfFile: docs + "/" + path, encoding: .utf8) }
    let current = try Reference.pages(existing: read)
    let changed = try Reference.pages(root: root, existing: read)
    let differing = zip(current, changed).filter { $0 != $1 }.map(\.0.path)
    #expect(differing == ["commands/merge.md", "man/menudeck.1"])
  }

  @Test func theCommandWritesChecksAndKeepsTheHandWrittenText() throws {
    let dir = try TempDir("menudeck-reference")
    let first = CLIRun(["reference", "--out", dir.path])
    #expect(first.code == .success, "\(first.stderr)")
    #expect(CLIRun(["reference", "--out", dir.path, "--check"]).code == .success)
    let page = dir.file("commands/merge.md")
    let generated = try String(contentsOfFile: page, encoding: .utf8)
    try dir.write("commands/merge.md", generated + "\n## Details\n\nBy hand.\n")
    try dir.write(
      "commands/stats.md",
      try String(contentsOfFile: dir.file("commands/stats.md"), encoding: .utf8)
        .replacingOccurrences(of: "# menudeck stats", with: "# menudeck statz"))
    let check = CLIRun(["reference", "--out", dir.path, "--check"])
    #expect(check.code == .failure)
    #expect(check.stderr.contains("commands/stats.md is stale"))
    #expect(!check.stderr.contains("merge.md"))
    #expect(check.stderr.contains(Reference.regenerateCommand))
    #expect(CLIRun(["reference", "--out", dir.path]).code == .success)
    #expect(CLIRun(["reference", "--out", dir.path, "--check"]).code == .success)
    #expect(
      try String(contentsOfFile: page, encoding: .utf8).hasSuffix("\n## Details\n\nBy hand.\n"))
  }

  @Test func theCommandIsHidden() {
    let help = CLIRun(["--help"])
    #expect(!help.stdout.contains("reference"))
    #expect(menudeckCommand.subcommand(named: "reference")?.isHidden == true)
  }
}
