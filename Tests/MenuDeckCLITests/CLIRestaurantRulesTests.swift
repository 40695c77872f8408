import DeckJobs
import Foundation
import Testing

@testable import MenuDeckCLI

/// The config's `rules` section end to end: read, checked against the catalog with the place of
/// the field at fault, applied to the decks, and counted in the run summary.
@Suite struct CLIRestaurantRulesTests {
  static let catalog = """
    [
      {"id": "tofu", "name": "Tofu", "category": "sides", "tags": ["vegan"]},
      {"id": "salad", "name": "Salad", "category": "salad", "tags": ["vegan"]},
      {"id": "curry", "name": "Curry", "category": "curry"},
      {"id": "ramen", "name": "Ramen", "category": "noodles", "tags": ["spicy"]},
      {"id": "don", "name": "Don", "category": "donburi"},
      {"id": "katsu", "name": "Katsu", "category": "yoshoku", "tags": ["fried"]}
    ]
    """

  /// A config with these rules (a JSON array's text) over the catalog, two diners, and a log
  /// where everyone liked katsu and passed ramen.
  static func fixture(rules: String) throws -> TempDir {
    let dir = try TempDir()
    try dir.write("catalog.json", catalog)
    try dir.write("users.json", #"{"users": [{"id": "d1"}, {"id": "d2"}]}"#)
    let lines = ["d1", "d2"].flatMap { user in
      [("katsu", "right"), ("ramen", "left")].map { item, swipe in
        #"{"user":"\#(user)","item":"\#(item)","swipe":"\#(swipe)","at":"2026-11-02T12:00:00Z"}"#
      }
    }
    try dir.write("swipes.jsonl", lines.map { $0 + "\n" }.joined())
    try dir.write(
      "config.json",
      """
      {"catalog": "catalog.json", "users": "users.json", "history": "swipes.jsonl",
       "strategy": "popularity", "deck": {"size": 4},
       "strategies": {"popularity": {"options": {"prior": "fixed"}}},
       "rules": \(rules)}
      """)
    return dir
  }

  static func decks(_ run: CLIRun) throws -> [String: [String]] {
    var out: [String: [String]] = [:]
    for deck in try run.jsonLines() {
      let user = try #require(deck["user"] as? String)
      out[user] = (deck["cards"] as? [[String: Any]] ?? []).map { $0["item"] as? String ?? "?" }
    }
    return out
  }

  @Test func rulesActInTheirWindowAndAreCountedPerRule() throws {
    let dir = try Self.fixture(
      rules: """
        [{"name": "spicy week", "boost": 10, "tag": "spicy",
          "valid_from": "2026-11-09", "valid_until": "2026-11-15"},
         {"hide": true, "dish": "katsu", "diners": ["d2"]},
         {"pin": 1, "dish": "curry", "weekdays": ["sunday"]}]
        """)
    // Monday 2026-11-09: the boost lifts ramen (passed twice: 1/4 under Beta(1, 1), boosted
    // 2.5) over katsu (liked twice: 3/4) and the dishes never shown (1/2); d2 does not see
    // katsu; Sunday's pin is not in force.
    let monday = dir.run([
      "deck", "--config", dir.file("config.json"), "--date", "2026-11-09", "--format", "jsonl",
    ])
    #expect(monday.code == .success)
    let decks = try Self.decks(monday)
    #expect(decks["d1"] == ["ramen", "katsu", "tofu", "salad"])
    #expect(decks["d2"] == ["ramen", "tofu", "salad", "curry"])
    #expect(
      monday.stderr.split(separator: "\n").map(String.init).contains(
        "menudeck: note: rule 1 'spicy week' (boost tag 'spicy' by 10): boosted a dish 2 times, "
          + "on 2 of 2 decks"))
    #expect(
      monday.stderr.split(separator: "\n").map(String.init).contains(
        "menudeck: note: rule 2 (hide dish 'katsu'): hid a dish once, on 1 of 2 decks"))
    #expect(
      monday.stderr.split(separator: "\n").map(String.init).contains(
        "menudeck: note: rule 3 (pin dish 'curry' at 1): acted on no deck (not in force, or its "
          + "dishes were not candidates)"))
    // Sunday 2026-11-15: curry first for both; the boost is still in force.
    let sunday = dir.run([
      "deck", "--config", dir.file("config.json"), "--date", "2026-11-15", "--format", "jsonl",
    ])
    #expect(try Self.decks(sunday)["d1"]?.first == "curry")
    #expect(try Self.decks(sunday)["d2"]?.first == "curry")
    // After the window: the same decks as with no rules but the hide and the pin (a Monday).
    let after = dir.run([
      "deck", "--config", dir.file("config.json"), "--date", "2026-11-16", "--format", "jsonl",
    ])
    let plain = try Self.fixture(rules: #"[{"hide": true, "dish": "katsu", "diners": ["d2"]}]"#)
    let without = plain.run([
      "deck", "--config", plain.file("config.json"), "--date", "2026-11-16", "--format", "jsonl",
    ])
    #expect(try Self.decks(after) == Self.decks(without))
  }

  @Test func anUnknownDishIsNamedAtItsFieldWithADidYouMean() throws {
    let dir = try Self.fixture(
      rules: """
        [{"boost": 2, "tag": "vegan"},
         {"pin": 2, "dish": "currry"}]
        """)
    let run = dir.run(["deck", "--config", dir.file("config.json"), "--date", "2026-11-09"])
    #expect(run.code == .dataError)
    #expect(
      run.stderr.hasPrefix(
        "menudeck: error: \(dir.file("config.json")):5:21: dish: rule 2: unknown dish 'currry' "
          + "(did you mean 'curry'?)"))
    #expect(run.stdout.isEmpty)
    let validate = dir.run(["validate", "--config", dir.file("config.json")])
    #expect(validate.code == .dataError)
    #expect(validate.stderr.contains(":5:21: dish: rule 2: unknown dish 'currry'"))
  }

  @Test func aRuleCheckedAloneFailsWhenTheConfigIsRead() throws {
    let dir = try Self.fixture(
      rules:
        #"[{"bury": 2, "category": "curry", "valid_from": "2026-11-10", "valid_until": "2026-11-09"}]"#
    )
    let run = dir.run(["deck", "--config", dir.file("config.json"), "--date", "2026-11-09"])
    #expect(run.code == .dataError)
    #expect(
      run.stderr.contains("rule 1: the window ends (2026-11-09) before it starts (2026-11-10)"))
    let unknownKey = try Self.fixture(rules: #"[{"boost": 2, "tag": "vegan", "until": "x"}]"#)
    let bad = unknownKey.run([
      "deck", "--config", unknownKey.file("config.json"), "--date", "2026-11-09",
    ])
    #expect(bad.code == .dataError)
    #expect(bad.stderr.contains("'until'"))
  }

  @Test func compareOpeSaysWhichArmsTheRulesMovedCardsOf() throws {
    // A log with plackett-luce's propensities, from a run without rules.
    let dir = try Self.fixture(rules: "[]")
    let simulate = dir.run([
      "simulate", "--config", dir.file("config.json"), "--users", "30", "--days", "6",
      "--start", "2026-11-10", "--strategy", "plackett-luce", "--events", dir.file("log.jsonl"),
      "--out", dir.file("sim.json"),
    ])
    #expect(simulate.code == .success)
    func compare(_ rules: String) throws -> CLIRun {
      let ruled = try Self.fixture(rules: rules)
      return ruled.run([
        "compare", "--config", ruled.file("config.json"), "--split", "2026-11-14", "--ope",
        "--strategy", "popularity", "--strategy", "plackett-luce", "--format", "table",
        dir.file("log.jsonl"),
      ])
    }
    let boosted = try compare(#"[{"boost": 4, "tag": "spicy"}]"#)
    #expect(boosted.code == .success)
    for arm in ["popularity", "plackett-luce"] {
      #expect(
        boosted.stdout.contains(
          "- \(arm): the restaurant's rules boosted, buried or pinned cards in "))
    }
    // A rule whose window has passed moves nothing: no such note.
    let past = try compare(#"[{"boost": 4, "tag": "spicy", "valid_until": "2026-11-01"}]"#)
    #expect(past.code == .success)
    #expect(!past.stdout.contains("the restaurant's rules"))
  }

  @Test func theDocsExampleRunsOnTheBundledData() throws {
    let page = String(decoding: try CLITest.repoFile("docs/deck-building.md"), as: UTF8.self)
    let section = try #require(page.range(of: "## The restaurant's rules"))
    let open = try #require(page.range(of: "```json\n", range: section.upperBound..<page.endIndex))
    let close = try #require(page.range(of: "\n```", range: open.upperBound..<page.endIndex))
    let example = String(page[open.upperBound..<close.lowerBound])
    #expect(example.hasPrefix("\"rules\": ["))
    let dir = try TempDir()
    let data = CLITest.repoRoot + "/Data/"
    try dir.write(
      "config.json",
      """
      {"catalog": "\(data)catalog.json", "users": "\(data)users.json",
       "history": "\(data)swipes.jsonl", "time_zone": "Asia/Tokyo",
       \(example)}
      """)
    // 2026-12-08 is a Tuesday in the fish week's window.
    let run = dir.run([
      "deck", "--config", dir.file("config.json"), "--date", "2026-12-08", "--user", "u01",
      "--format", "jsonl",
    ])
    #expect(run.code == .success)
    let deck = try #require(try run.jsonLines().first)
    let cards = (deck["cards"] as? [[String: Any]] ?? []).map { $0["item"] as? String ?? "?" }
    #expect(cards.count == 10 && cards[1] == "gyudon")
    #expect(run.stderr.contains("rule 1 'fish week' (boost tag 'seafood' by 3): boosted a dish"))
  }

  @Test func explainTableShowsTheBoostOnTheNewDishWithLints() throws {
    // "kani" arrives on 2026-11-10 with no swipes; its features (donburi, seafood) are liked.
    let dir = try TempDir()
    try dir.write(
      "catalog.json",
      """
      [
        {"id": "ten", "name": "Ten", "category": "donburi", "tags": ["seafood"]},
        {"id": "una", "name": "Una", "category": "donburi", "tags": ["seafood"]},
        {"id": "soba", "name": "Soba", "category": "noodles", "tags": ["cold"]},
        {"id": "udon", "name": "Udon", "category": "noodles", "tags": ["cold"]},
        {"id": "kani", "name": "Kani", "category": "donburi", "tags": ["seafood"],
         "available": {"from": "2026-11-10"}}
      ]
      """)
    try dir.write("users.json", #"{"users": [{"id": "d1"}, {"id": "d2"}]}"#)
    var lines: [String] = []
    for (n, user) in ["d1", "d2", "d1", "d2"].enumerated() {
      for (item, swipe) in [("ten", "right"), ("una", "right"), ("soba", "left"), ("udon", "left")]
      {
        lines.append(
          #"{"user":"\#(user)","item":"\#(item)","swipe":"\#(swipe)","at":"2026-11-0\#(n + 1)T12:00:00Z"}"#
        )
      }
    }
    try dir.write("swipes.jsonl", lines.map { $0 + "\n" }.joined())
    try dir.write(
      "config.json",
      """
      {"catalog": "catalog.json", "users": "users.json", "history": "swipes.jsonl",
       "deck": {"size": 3, "repeat_pick_days": 0, "cooldown_days": 0, "reshow_days": 0,
                "avoid_adjacent_category": false, "max_per_category": null},
       "rules": [{"name": "crab week", "boost": 3, "dish": "kani",
                  "valid_from": "2026-11-10", "valid_until": "2026-11-16"}]}
      """)
    let before = dir.run([
      "deck", "--config", dir.file("config.json"), "--strategy", "lints", "--date", "2026-11-09",
      "--user", "d1", "--format", "jsonl",
    ])
    #expect(before.code == .success)
    #expect(!before.stdout.contains("kani"))
    let run = dir.run([
      "deck", "--config", dir.file("config.json"), "--strategy", "lints", "--option", "v=0",
      "--date", "2026-11-10", "--user", "d1", "--explain", "--format", "table",
    ])
    #expect(run.code == .success)
    let table = run.stdout.split(separator: "\n").map(String.init)
    // v = 0: the posterior mean, from the features; kani's donburi and seafood were liked.
    #expect(table.count > 1 && table[1].contains("kani"))
    #expect(table.contains { $0.contains("rule: boosted by rule 1 'crab week' from ") })
    #expect(table.contains { $0.contains("feature category=donburi") })
    #expect(
      run.stderr.contains(
        "rule 1 'crab week' (boost dish 'kani' by 3): boosted a dish once, on 1 of 1 deck"))
  }
}
