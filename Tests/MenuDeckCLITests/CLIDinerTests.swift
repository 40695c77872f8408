import DeckJobs
import Foundation
import Testing

@testable import MenuDeckCLI

/// Which diners get decks, short decks, standard input and the configured time zone.
@Suite struct CLIDinerTests {
  static let catalog = """
    [
      {"id": "tofu", "name": "Tofu", "category": "sides", "diets": ["vegan", "vegetarian"]},
      {"id": "salad", "name": "Salad", "category": "salad", "diets": ["vegan", "vegetarian"]},
      {"id": "curry", "name": "Curry", "category": "curry", "allergens": ["milk"]},
      {"id": "ramen", "name": "Ramen", "category": "noodles", "allergens": ["wheat"]},
      {"id": "don", "name": "Don", "category": "donburi"},
      {"id": "katsu", "name": "Katsu", "category": "yoshoku"}
    ]
    """

  static func fixture(
    users: String = #"{"users": [{"id": "v1", "diets": ["vegan"]}, {"id": "m1"}]}"#,
    history: [String] = [], extra: String = ""
  ) throws -> TempDir {
    let dir = try TempDir()
    try dir.write("catalog.json", catalog)
    try dir.write("users.json", users)
    try dir.write("swipes.jsonl", history.map { $0 + "\n" }.joined())
    try dir.write(
      "config.json",
      #"{"catalog": "catalog.json", "users": "users.json", "history": "swipes.jsonl", "deck": {"size": 4}\#(extra)}"#
    )
    return dir
  }

  static func event(_ user: String, _ item: String, _ swipe: String, _ at: String) -> String {
    #"{"user":"\#(user)","item":"\#(item)","swipe":"\#(swipe)","at":"\#(at)"}"#
  }

  static func cards(_ deck: [String: Any]) -> [String] {
    (deck["cards"] as? [[String: Any]] ?? []).map { $0["item"] as? String ?? "?" }
  }

  // MARK: --user

  @Test func userBuildsOnlyThoseDecksInIDOrder() throws {
    let all = CLIRun(["deck", "--date", "2026-11-30", "--format", "jsonl"])
    let some = CLIRun([
      "deck", "--date", "2026-11-30", "--format", "jsonl", "--user", "u10", "-u", "u02",
      "--user", "u10",
    ])
    #expect(some.code == .success)
    #expect(some.stderr == "menudeck: note: 2 decks for 2026-11-30 with 'ease'\n")
    let u02 = try #require(all.stdoutLines.first { $0.hasPrefix(#"{"user":"u02","#) })
    let u10 = try #require(all.stdoutLines.first { $0.hasPrefix(#"{"user":"u10","#) })
    #expect(some.stdoutLines == [u02, u10, ""])
  }

  @Test func unknownUserGetsAFirstVisitDeckAndAWarning() throws {
    let result = CLIRun([
      "deck", "--date", "2026-11-30", "--format", "jsonl", "--user", "zz9", "--user", "u01",
    ])
    #expect(result.code == .success)
    #expect(
      result.stderr == """
        menudeck: warning: user 'zz9' is in neither the users file nor the history; building a first-visit deck
        menudeck: note: 2 decks for 2026-11-30 with 'ease'

        """)
    let decks = try result.jsonLines()
    #expect(decks.map { $0["user"] as? String } == ["u01", "zz9"])
    #expect(Self.cards(decks[1]).count == 10)
    #expect(decks[1]["warnings"] == nil)

    // --quiet keeps stderr empty.
    let quiet = CLIRun(["deck", "--date", "2026-11-30", "--user", "zz9", "-q"])
    #expect(quiet.code == .success)
    #expect(quiet.stderr == "")
  }

  @Test func historyUsersMissingFromTheUsersFileGetDecks() throws {
    let dir = try Self.fixture(history: [
      Self.event("u9", "don", "left", "2026-11-20T12:00:00Z"),
      Self.event("u10", "katsu", "right", "2026-11-21T12:00:00Z"),
      Self.event("m1", "curry", "left", "2026-11-22T12:00:00Z"),
    ])
    let result = dir.run([
      "--config", dir.file("config.json"), "--date", "2026-11-30", "--format", "jsonl",
    ])
    #expect(result.code == .success)
    let decks = try result.jsonLines()
    // Sorted by the bytes of the id: "u10" before "u9".
    #expect(decks.map { $0["user"] as? String } == ["m1", "u10", "u9", "v1"])
    #expect(decks.map { Self.cards($0).count } == [4, 4, 4, 2])
    #expect(!result.stderr.contains("neither"))

    // An explicit --user list leaves the others out, and a history user needs no warning.
    let one = dir.run([
      "--config", dir.file("config.json"), "--date", "2026-11-30", "--format", "jsonl", "--user",
      "u9",
    ])
    #expect(try one.jsonLines().map { $0["user"] as? String } == ["u9"])
    #expect(!one.stderr.contains("neither"))
  }

  // MARK: short decks

  @Test func veganWithFewDishesGetsAShortDeckAndAWarning() throws {
    let dir = try Self.fixture()
    let result = dir.run([
      "--config", dir.file("config.json"), "--date", "2026-11-30", "--format", "json",
    ])
    #expect(result.code == .success)
    #expect(
      result.stderr == """
        menudeck: warning: user 'v1': deck has 2 of 4 cards (held back: 4 by diet)
        menudeck: warning: the history (\(dir.file("swipes.jsonl"))) holds no swipes before the deck date 2026-11-30: every diner gets a first-visit deck. Check the logs and the nightly ingest
        menudeck: note: 2 decks (1 short of 4 cards) for 2026-11-30 with 'ease'

        """)
    let root = try #require(try result.json() as? [String: Any])
    let decks = try #require(root["decks"] as? [[String: Any]])
    #expect(decks.map { $0["user"] as? String } == ["m1", "v1"])
    #expect(Self.cards(decks[0]) == ["tofu", "salad", "curry", "ramen"])
    #expect(decks[0]["warnings"] == nil)
    #expect(Self.cards(decks[1]) == ["tofu", "salad"])
    #expect(decks[1]["warnings"] as? [String] == ["deck has 2 of 4 cards (held back: 4 by diet)"])

    // The table shows the warning under the deck.
    let table = dir.run([
      "--config", dir.file("config.json"), "--date", "2026-11-30", "--format", "table", "-q",
    ])
    #expect(table.stderr == "")
    #expect(table.stdout.contains("v1  2026-11-30 (mon)  ease  seed 0  2 cards\n"))
    #expect(table.stdout.hasSuffix("  warning: deck has 2 of 4 cards (held back: 4 by diet)\n"))
  }

  // MARK: standard input

  @Test func historyDashReadsStandardInput() throws {
    let dir = try Self.fixture()
    let log = Self.event("m1", "tofu", "right", "2026-11-29T12:00:00Z") + "\n"
    try dir.write("today.jsonl", log)
    let fromFile = dir.run([
      "--config", dir.file("config.json"), "--date", "2026-11-30", "--format", "jsonl", "--history",
      dir.file("today.jsonl"),
    ])
    let fromStdin = dir.run(
      [
        "--config", dir.file("config.json"), "--date", "2026-11-30", "--format", "jsonl",
        "--history", "-",
      ],
      stdin: Array(log.utf8))
    #expect(fromStdin.code == .success)
    #expect(fromStdin.stdout == fromFile.stdout)
    // The same swipe as CSV: standard input is told by its first character.
    let fromCSV = dir.run(
      [
        "--config", dir.file("config.json"), "--date", "2026-11-30", "--format", "jsonl",
        "--history", "-",
      ],
      stdin: Array("user,item,swipe,at\nm1,tofu,right,2026-11-29T12:00:00Z\n".utf8))
    #expect(fromCSV.code == .success)
    #expect(fromCSV.stdout == fromFile.stdout)
    // m1 picked tofu yesterday: held back from m1's deck, and more popular for v1.
    let decks = try fromStdin.jsonLines()
    #expect(Self.cards(decks[0]) == ["salad", "curry", "ramen", "don"])
    #expect(Self.cards(decks[1]) == ["tofu", "salad"])
    let noHistory = dir.run([
      "--config", dir.file("config.json"), "--date", "2026-11-30", "--format", "jsonl",
    ])
    #expect(fromStdin.stdout != noHistory.stdout)

    // Bad lines on standard input are named "<stdin>".
    let bad = dir.run(
      ["--config", dir.file("config.json"), "--date", "2026-11-30", "--history", "-"],
      stdin: Array((log + "{\"user\":\n").utf8))
    #expect(bad.code == .dataError)
    #expect(bad.stderr.hasPrefix("menudeck: error: <stdin>:2:"))
  }

  @Test func standardInputBesideAFile() throws {
    let dir = try Self.fixture()
    let first = Self.event("m1", "tofu", "right", "2026-11-29T12:00:00Z")
    let second = Self.event("v1", "salad", "right", "2026-11-29T12:00:00Z")
    try dir.write("a.jsonl", first + "\n")
    try dir.write("both.jsonl", first + "\n" + second + "\n")
    let split = dir.run(
      [
        "--config", dir.file("config.json"), "--date", "2026-11-30", "--format", "jsonl",
        "--history",
        dir.file("a.jsonl"), "--history", "-",
      ], stdin: Array((second + "\n").utf8))
    let whole = dir.run([
      "--config", dir.file("config.json"), "--date", "2026-11-30", "--format", "jsonl", "--history",
      dir.file("both.jsonl"),
    ])
    #expect(split.code == .success)
    #expect(split.stdout == whole.stdout)
  }

  // MARK: time zone

  /// 2026-11-29T16:30:00Z is 2026-11-30 01:30 in Tokyo: part of the deck date there, so a deck
  /// for 2026-11-30 does not learn it, and the one for 2026-12-01 does.
  @Test func eventsBelongToTheDayOfTheConfiguredTimeZone() throws {
    let pick = Self.event("m1", "tofu", "right", "2026-11-29T16:30:00Z")
    let tokyo = try Self.fixture(history: [pick], extra: #", "time_zone": "Asia/Tokyo""#)
    let args = [
      "--config", tokyo.file("config.json"), "--format", "jsonl", "--user", "m1", "--size", "6",
    ]

    let sameDay = tokyo.run(args + ["--date", "2026-11-30"])
    #expect(sameDay.code == .success)
    #expect(
      Self.cards(try sameDay.jsonLines()[0]) == ["tofu", "salad", "curry", "ramen", "don", "katsu"])
    #expect(
      sameDay.stderr == """
        menudeck: note: 1 event on or after 2026-11-30 was not learned from (a deck never sees its own day)
        menudeck: warning: the history (\(tokyo.file("swipes.jsonl"))) holds no swipes before the deck date 2026-11-30 (1 swipe on or after that date was left out): every diner gets a first-visit deck. Check the logs and the nightly ingest
        menudeck: note: 1 deck for 2026-11-30 with 'ease'

        """)

    let nextDay = tokyo.run(args + ["--date", "2026-12-01"])
    #expect(nextDay.code == .success)
    let deck = try nextDay.jsonLines()[0]
    #expect(Self.cards(deck) == ["salad", "curry", "ramen", "don", "katsu"])
    #expect(
      deck["warnings"] as? [String] == ["deck has 5 of 6 cards (held back: 1 by recent pick)"])
    #expect(!nextDay.stderr.contains("not learned"))

    // In UTC the same instant is 2026-11-29: learned for the deck of 2026-11-30.
    let utc = try Self.fixture(history: [pick], extra: #", "time_zone": "UTC""#)
    let utcArgs = [
      "--config", utc.file("config.json"), "--format", "jsonl", "--user", "m1", "--size", "6",
    ]
    let utcDeck = utc.run(utcArgs + ["--date", "2026-11-30"])
    #expect(Self.cards(try utcDeck.jsonLines()[0]) == ["salad", "curry", "ramen", "don", "katsu"])
    #expect(!utcDeck.stderr.contains("not learned"))
  }

  /// One second before midnight in Tokyo (2026-11-29T14:59:59Z) is still 2026-11-29 there.
  @Test func lastSecondBeforeMidnightInTokyoIsLearned() throws {
    let pick = Self.event("m1", "tofu", "right", "2026-11-29T14:59:59Z")
    let atMidnight = Self.event("m1", "tofu", "right", "2026-11-29T15:00:00Z")
    let before = try Self.fixture(history: [pick], extra: #", "time_zone": "Asia/Tokyo""#)
    let at = try Self.fixture(history: [atMidnight], extra: #", "time_zone": "Asia/Tokyo""#)
    func args(_ dir: TempDir) -> [String] {
      ["--config", dir.file("config.json"), "--format", "jsonl", "--user", "m1", "--size", "6"]
    }
    let learned = before.run(args(before) + ["--date", "2026-11-30"])
    let notLearned = at.run(args(at) + ["--date", "2026-11-30"])
    #expect(Self.cards(try learned.jsonLines()[0]).first == "salad")
    #expect(Self.cards(try notLearned.jsonLines()[0]).first == "tofu")
    #expect(notLearned.stderr.contains("menudeck: note: 1 event on or after 2026-11-30"))
  }

  /// Without --date the deck is for today in the config's time zone (Asia/Tokyo for the sample).
  @Test func defaultDateIsTodayInTheConfigTimeZone() throws {
    let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
    let before = TimeZones.today(in: tokyo).description
    let result = CLIRun(["deck", "--format", "jsonl", "--user", "u01", "-q"])
    let after = TimeZones.today(in: tokyo).description
    #expect(result.code == .success)
    let date = try #require(try result.jsonLines().first?["date"] as? String)
    #expect(date == before || date == after)
  }

  @Test func fixedOffsetTimeZone() throws {
    let pick = Self.event("m1", "tofu", "right", "2026-11-29T16:30:00Z")
    let dir = try Self.fixture(history: [pick], extra: #", "time_zone": "+09:00""#)
    let result = dir.run([
      "--config", dir.file("config.json"), "--format", "jsonl", "--user", "m1", "--date",
      "2026-11-30",
    ])
    #expect(result.code == .success)
    #expect(
      result.stderr.hasPrefix(
        "menudeck: note: 1 event on or after 2026-11-30 was not learned from"))
    #expect(result.stderr.contains("holds no swipes before the deck date 2026-11-30"))
    #expect(Self.cards(try result.jsonLines()[0]).first == "tofu")
  }

  @Test func unknownTimeZoneInTheConfig() throws {
    let dir = try Self.fixture(extra: #", "time_zone": "Tokyo""#)
    let result = dir.run(["--config", dir.file("config.json"), "--date", "2026-11-30"])
    #expect(result.code == .dataError)
    #expect(result.stderr.hasPrefix("menudeck: error: \(dir.file("config.json")):1:"))
    #expect(
      result.stderr.hasSuffix(
        "unknown time zone 'Tokyo'; use an IANA name such as 'Asia/Tokyo' or 'UTC'\n"))
  }
}
