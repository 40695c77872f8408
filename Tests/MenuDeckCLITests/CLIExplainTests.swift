import Foundation
import Testing

@testable import MenuDeckCLI

/// `menudeck deck --explain` on the bundled sample (Config/menudeck.json on Data/), pinned byte
/// for byte in every format (Golden/deck-explain-2026-11-30.*). To change them on purpose:
/// `MENUDECK_RECORD_GOLDEN=1 swift test --filter CLIExplainTests`, then review the diff in git.
@Suite struct CLIExplainTests {
  static let arguments = [
    "deck", "--date", "2026-11-30", "--user", "u01", "--user", "u04", "--explain",
  ]
  static let summary = "menudeck: note: 2 decks for 2026-11-30 with 'ease'\n"

  @Test(arguments: ["json", "jsonl", "csv", "table"])
  func explainForTheSampleDate(format: String) {
    let result = CLIRun(Self.arguments + ["--format", format])
    #expect(result.code == .success)
    #expect(result.stderr == Self.summary)
    Golden.check(result.stdout, "deck-explain-2026-11-30.\(format)")
  }

  @Test func theExplainedDecksAreTheDecks() throws {
    let explained = CLIRun(Self.arguments + ["--format", "jsonl"])
    let plain = CLIRun(Array(Self.arguments.dropLast()) + ["--format", "jsonl"])
    let cards = try explained.jsonLines().filter { $0["rank"] != nil }.map {
      ($0["user"] as? String, $0["item"] as? String, $0["rank"] as? Int)
    }
    let decks = try plain.jsonLines().flatMap { deck in
      try #require(deck["cards"] as? [[String: Any]]).map {
        (deck["user"] as? String, $0["item"] as? String, $0["rank"] as? Int)
      }
    }
    #expect(cards.count == decks.count && cards.count == 20)
    #expect(zip(cards, decks).allSatisfy { $0 == $1 })
  }
}
