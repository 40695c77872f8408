import DeckCommandLine
import DeckLab
import DeckStrategies
import Foundation
import Testing

@testable import MenuDeckCLI

/// Keeps the README honest: every command, option, config key, format and exit code that the
/// code knows is documented there, and the README opens with the two commands of a fresh clone.
@Suite struct DocumentationTests {
  static let readme: String = {
    let url = URL(fileURLWithPath: CLITest.repoRoot).appendingPathComponent("README.md")
    return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
  }()

  @Test func readmeOpensWithTheTwoFreshCloneCommands() {
    let firstBlock = Self.readme.components(separatedBy: "```").dropFirst().first ?? ""
    #expect(firstBlock.contains("swift run menudeck"))
    #expect(firstBlock.contains("swift test"))
    #expect(Self.readme.prefix(400).contains("swift run menudeck"))
  }

  @Test(arguments: menudeckCommand.subcommands.filter { !$0.isHidden }.map(\.name))
  func everyCommandHasASection(_ name: String) {
    #expect(Self.readme.contains("### menudeck \(name)"), "README has no section for '\(name)'")
  }

  @Test func everyOptionOfEveryCommandIsDocumented() {
    for command in menudeckCommand.subcommands where !command.isHidden {
      for option in command.options where !option.isHidden {
        #expect(
          Self.readme.contains("--\(option.name)"),
          "option '--\(option.name)' of '\(command.name)' is not in the README")
      }
    }
  }

  @Test func everyConfigKeyIsDocumented() {
    for key in MenuDeckConfig.topLevelKeys {
      #expect(Self.readme.contains("| `\(key)` |"), "config key '\(key)' is not in the README")
    }
    for key in MenuDeckConfig.deckKeys {
      #expect(
        Self.readme.contains("| `deck.\(key)` |"), "config key 'deck.\(key)' is not in the README")
    }
  }

  @Test func everyStatsMetricIsDefinedInTheReadme() {
    for metric in StatsMetric.allCases {
      let row =
        "| `\(metric.name)` | \(metric.definition.replacingOccurrences(of: "|", with: "\\|")) |"
      #expect(Self.readme.contains(row), "metric '\(metric.name)' is not defined in the README")
    }
  }

  @Test func everyComparisonMetricIsDefinedInTheReadme() {
    let offline = OfflineMetric.allCases.map(\.name)
    let offPolicy = OffPolicy.metrics(positions: 1).map(\.name).filter { !$0.hasSuffix("_p1") }
    for name in offline + offPolicy {
      #expect(
        Self.readme.contains("| `\(name)` |"), "metric '\(name)' is not defined in the README")
    }
  }

  @Test func everySimulationKeyIsDocumented() {
    for key in SimulationConfig.keys {
      #expect(Self.readme.contains("| `\(key)` |"), "simulation key '\(key)' is not in the README")
    }
  }

  @Test func everyStrategyIsDocumented() {
    for identifier in StrategyRegistry.identifiers {
      #expect(
        Self.readme.contains("- **\(identifier)**"), "strategy '\(identifier)' is not in the README"
      )
    }
  }

  @Test func everyExitCodeIsDocumented() {
    for code: Int32 in [0, 1, 64, 65, 66, 69, 70, 74, 75, 76, 141] {
      #expect(Self.readme.contains("| \(code) |"), "exit code \(code) is not in the README's table")
    }
    #expect(Self.readme.contains("| 129, 130, 143 |"), "signal exits are not in the README's table")
  }

  @Test func theBundledConfigIsValidAndDocumentedKeysMatchIt() throws {
    let url = URL(fileURLWithPath: CLITest.repoRoot).appendingPathComponent("Config/menudeck.json")
    let bytes = Array(try Data(contentsOf: url))
    let config = try MenuDeckConfig.parse(bytes, path: "Config/menudeck.json")
    #expect(config.catalog == "Data/catalog.json")
    // The README shows the bundled config verbatim.
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(Self.readme.contains(text.trimmingCharacters(in: .whitespacesAndNewlines)))
  }

  @Test func ciRunsExactlyTheReadmeTestCommand() throws {
    let url = URL(fileURLWithPath: CLITest.repoRoot).appendingPathComponent(".ci/run")
    let script = try String(contentsOf: url, encoding: .utf8)
    let commands = script.split(separator: "\n").filter {
      !$0.hasPrefix("#") && !$0.hasPrefix("set ") && !$0.hasPrefix("cd ") && !$0.isEmpty
    }
    #expect(commands == ["swift test"])
  }
}
