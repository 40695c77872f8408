import DeckJobs
import Foundation
import Testing

@testable import MenuDeckCLI

/// An id is its UTF-8 bytes, through every command: a log's decomposed "café" is not the
/// catalog's precomposed one (an unknown dish for training, `stats`, the judgements of `compare`,
/// its TREC files and its off-policy estimates alike), and a users file's precomposed diner is
/// not the log's decomposed one.
@Suite struct CLIIDBytesTests {
  static let nfc = "caf\u{E9}"
  static let nfd = "cafe\u{301}"
  static let chloeNFC = "chlo\u{E9}"
  static let chloeNFD = "chloe\u{301}"

  static func catalog(_ ids: [String] = [nfc]) -> String {
    let extra = ids.map { #"{"id": "\#($0)", "name": "Coffee", "category": "drinks"}"# }
    let items =
      extra + [
        #"{"id": "tea", "name": "Tea", "category": "drinks"}"#,
        #"{"id": "tamago", "name": "Tamago", "category": "sides", "allergens": ["egg"]}"#,
        #"{"id": "miso", "name": "Miso", "category": "soup"}"#,
        #"{"id": "ramen", "name": "Ramen", "category": "noodles"}"#,
      ]
    return "[\n" + items.joined(separator: ",\n") + "\n]\n"
  }

  /// One swipe as a JSON line; `ope` adds a position and a propensity of 0.5.
  static func event(
    _ user: String, _ item: String, _ swipe: String, _ at: String, position: Int? = nil
  ) -> String {
    let logged = position.map { #","position":\#($0),"propensity":0.5"# } ?? ""
    return #"{"user":"\#(user)","item":"\#(item)","swipe":"\#(swipe)","at":"\#(at)"\#(logged)}"#
  }

  static func fixture(
    catalog: String = catalog(), users: String? = nil, log: [String], size: Int = 5
  ) throws -> TempDir {
    let dir = try TempDir("menudeck-ids")
    try dir.write("catalog.json", catalog)
    try dir.write("log.jsonl", log.map { $0 + "\n" }.joined())
    var config = #""catalog": "catalog.json", "history": "log.jsonl", "time_zone": "UTC""#
    if let users {
      try dir.write("users.json", users)
      config += #", "users": "users.json""#
    }
    try dir.write("config.json", "{\(config), \"deck\": {\"size\": \(size)}}")
    return dir
  }

  /// Whether `text`'s UTF-8 bytes hold `needle`'s (byte for byte: `String.contains` would match
  /// either spelling).
  static func holds(_ text: [UInt8], _ needle: String) -> Bool {
    let n = Array(needle.utf8)
    guard !n.isEmpty, text.count >= n.count else { return n.isEmpty }
    return (0...(text.count - n.count)).contains { text[$0..<($0 + n.count)].elementsEqual(n) }
  }

  static func holds(_ text: String, _ needle: String) -> Bool { holds(Array(text.utf8), needle) }

  /// The deck line of `user` (its bytes) in JSON Lines output.
  static func deckLine(_ run: CLIRun, of user: String) -> String? {
    run.stdoutLines.map(String.init).first {
      $0.utf8.starts(with: #"{"user":"\#(user)","#.utf8)
    }
  }

  // MARK: - Dishes

  @Test func deckLearnsNothingFromADecomposedSwipeOnAPrecomposedDish() throws {
    let dir = try Self.fixture(log: [
      Self.event("u1", Self.nfd, "right", "2026-11-08T12:00:00"),
      Self.event("u1", "tea", "right", "2026-11-08T12:00:01"),
    ])
    let r = dir.run([
      "deck", "--config", dir.file("config.json"), "--date", "2026-11-10", "--user", "u1",
      "--format", "jsonl",
    ])
    #expect(r.code == .success, "\(r.stderr)")
    #expect(
      Self.holds(
        r.stderr,
        "log.jsonl:1: 1 event naming dishes that are not in the catalog (e.g. '\(Self.nfd)'); "
          + "they were left out (correct the ids, or add the dishes to the catalog)\n"),
      "\(r.stderr)")
    // Tea was picked two days ago and is held back; the catalog's café was never picked.
    let line = try #require(Self.deckLine(r, of: "u1"))
    #expect(!Self.holds(line, #""item":"tea""#))
    #expect(Self.holds(line, #""item":"\#(Self.nfc)""#))
    #expect(!Self.holds(r.stdoutBytes, Self.nfd), "the log's spelling is no dish")
  }

  @Test func aCatalogMayHoldBothSpellingsAsTwoDishesWrittenBackByteForByte() throws {
    let dir = try Self.fixture(
      catalog: Self.catalog([Self.nfc, Self.nfd]),
      log: [Self.event("u1", Self.nfd, "right", "2026-11-08T12:00:00")], size: 6)
    let r = dir.run([
      "deck", "--config", dir.file("config.json"), "--date", "2026-11-10", "--user", "u1",
      "--user", "u2", "--format", "jsonl",
    ])
    #expect(r.code == .success, "\(r.stderr)")
    #expect(!r.stderr.contains("not in the catalog"), "\(r.stderr)")
    // u1 picked the decomposed dish: held back; the precomposed one is another dish.
    let u1 = try #require(Self.deckLine(r, of: "u1"))
    #expect(Self.holds(u1, #""item":"\#(Self.nfc)""#) && !Self.holds(u1, Self.nfd))
    let u2 = try #require(Self.deckLine(r, of: "u2"))
    #expect(Self.holds(u2, #""item":"\#(Self.nfc)""#) && Self.holds(u2, #""item":"\#(Self.nfd)""#))

    let same = try Self.fixture(catalog: Self.catalog([Self.nfd, Self.nfd]), log: [])
    let refused = same.run(["validate", "--config", same.file("config.json")])
    #expect(refused.code == .dataError, "\(refused.stderr)")
    #expect(Self.holds(refused.stderr, "duplicate id '\(Self.nfd)'"), "\(refused.stderr)")
  }

  @Test func statsCountsADecomposedSwipeAsAnUnknownDish() throws {
    let dir = try Self.fixture(log: [
      Self.event("u1", Self.nfd, "right", "2026-11-08T12:00:00", position: 1),
      Self.event("u1", Self.nfc, "left", "2026-11-08T12:00:01", position: 2),
      Self.event("u1", "tea", "right", "2026-11-08T12:00:02", position: 3),
    ])
    let r = dir.run(["stats", "--config", dir.file("config.json"), "--format", "json"])
    #expect(r.code == .success, "\(r.stderr)")
    #expect(
      Self.holds(
        r.stderr,
        "log.jsonl:1: 1 event naming dishes that are not in the catalog (e.g. '\(Self.nfd)')"),
      "\(r.stderr)")
    let json = try #require(try r.json() as? [String: Any])
    let rows = try #require(json["rows"] as? [[String: Any]])
    let all = try #require(rows.first { $0["overall"] as? Bool == true && $0["day"] is NSNull })
    #expect(all["cards_shown"] as? Int == 2)
    #expect(all["right_swipes"] as? Int == 1 && all["left_swipes"] as? Int == 1)
  }

  /// The evaluation period of `compare` on logs: d1 swipes tea and the decomposed café right, d2
  /// the catalog's café right and miso left, d3 only the decomposed café.
  static let evaluationLog = [
    event("u1", "tea", "right", "2026-11-01T12:00:00"),
    event("u2", "miso", "right", "2026-11-02T12:00:00"),
    event("d1", "tea", "right", "2026-11-10T12:00:00", position: 1),
    event("d1", nfd, "right", "2026-11-10T12:00:01", position: 2),
    event("d2", nfc, "right", "2026-11-10T12:00:00", position: 1),
    event("d2", "miso", "left", "2026-11-10T12:00:01", position: 2),
    event("d3", nfd, "right", "2026-11-11T12:00:00", position: 1),
  ]

  @Test(arguments: [false, true])
  func compareJudgesNoDishForADecomposedSwipeAndCountsItUnknown(ope: Bool) throws {
    let dir = try Self.fixture(log: Self.evaluationLog)
    let r = dir.run(
      [
        "compare", "--config", dir.file("config.json"), "-s", "popularity", "-s", "random",
        "--split", "2026-11-10", "--resamples", "10", "--format", "json", "--trec",
        dir.file("trec"), dir.file("log.jsonl"),
      ] + (ope ? ["--ope"] : []))
    #expect(r.code == .success, "\(r.stderr)")
    // Both decomposed swipes are unknown dishes, reported once, as the training side reports
    // its own: no sink matched them to the catalog's café. The first is on line 4.
    let warning =
      "menudeck: warning: \(dir.file("log.jsonl")):4: 2 events naming dishes that are not in the "
      + "catalog (e.g. '\(Self.nfd)'), the first on this line; they were left out (correct the "
      + "ids, or add the dishes to the catalog)\n"
    #expect(Self.holds(r.stderr, warning), "\(r.stderr)")
    let qrels = try dir.read("trec/qrels.txt")
    #expect(Array(qrels.utf8) == Array("d1 0 tea 1\nd2 0 \(Self.nfc) 1\nd2 0 miso 0\n".utf8))
    let json = try #require(try r.json() as? [String: Any])
    let parameters = try #require(json["parameters"] as? [String: Any])
    #expect(parameters["evaluation_events"] as? Int == 3)
    #expect(parameters["evaluated_diners"] as? Int == 2, "d3 swiped no dish of the catalog")
    if ope {
      // d3's only card is no dish: no session of d3 is replayed either.
      #expect(parameters["ope_sessions"] as? Int == 2 && parameters["ope_diners"] as? Int == 2)
    }
  }

  // MARK: - Diners

  static let users = #"{"users": [{"id": "\#(chloeNFC)", "allergens": ["egg"]}]}"#

  @Test func aPrecomposedDinerOfTheUsersFileIsNotTheDecomposedOneOfTheLog() throws {
    let dir = try Self.fixture(
      users: Self.users, log: [Self.event(Self.chloeNFD, "miso", "right", "2026-11-01T12:00:00")])
    let config = dir.file("config.json")
    let all = dir.run(["deck", "--config", config, "--date", "2026-11-10", "--format", "jsonl"])
    #expect(all.code == .success, "\(all.stderr)")
    // Two diners, two decks, in byte order (e 0x65 before é 0xC3); only the users file's diner
    // avoids egg.
    #expect(all.stdoutLines.filter { !$0.isEmpty }.count == 2)
    let decomposed = try #require(Self.deckLine(all, of: Self.chloeNFD))
    let precomposed = try #require(Self.deckLine(all, of: Self.chloeNFC))
    #expect(all.stdoutLines.first.map(String.init) == decomposed)
    #expect(Self.holds(decomposed, #""item":"tamago""#))
    #expect(!Self.holds(precomposed, #""item":"tamago""#))

    // --user names one of them by its bytes: the history's diner has no profile, and no warning.
    let one = dir.run([
      "deck", "--config", config, "--date", "2026-11-10", "--format", "jsonl", "--user",
      Self.chloeNFD,
    ])
    #expect(one.code == .success && !one.stderr.contains("neither"), "\(one.stderr)")
    #expect(one.stdoutLines.map(String.init) == [decomposed, ""])
    let both = dir.run([
      "deck", "--config", config, "--date", "2026-11-10", "--format", "jsonl", "--user",
      Self.chloeNFC, "--user", Self.chloeNFD,
    ])
    #expect(both.stdoutLines.map(String.init) == [decomposed, precomposed, ""])

    // A --diners file may list both: they are not one diner listed twice.
    try dir.write("diners.txt", "\(Self.chloeNFC)\n\(Self.chloeNFD)\n")
    let listed = dir.run([
      "deck", "--config", config, "--date", "2026-11-10", "--format", "jsonl", "--diners",
      dir.file("diners.txt"),
    ])
    #expect(listed.code == .success, "\(listed.stderr)")
    #expect(listed.stdoutLines.map(String.init) == [decomposed, precomposed, ""])
    try dir.write("twice.txt", "\(Self.chloeNFD)\n\(Self.chloeNFD)\n")
    let twice = dir.run([
      "deck", "--config", config, "--date", "2026-11-10", "--diners", dir.file("twice.txt"),
    ])
    #expect(twice.code == .dataError)
    #expect(Self.holds(twice.stderr, "diner '\(Self.chloeNFD)' is listed twice"), "\(twice.stderr)")
  }

  @Test func compareRanksTheLogsDecomposedDinerWithoutTheUsersFilesProfile() throws {
    let dir = try Self.fixture(
      users: Self.users,
      log: [
        Self.event(Self.chloeNFD, "miso", "right", "2026-11-01T12:00:00"),
        Self.event(Self.chloeNFD, "tea", "right", "2026-11-10T12:00:00", position: 1),
        Self.event(Self.chloeNFD, "tamago", "left", "2026-11-10T12:00:01", position: 2),
      ])
    let r = dir.run([
      "compare", "--config", dir.file("config.json"), "-s", "popularity", "-s", "random",
      "--split", "2026-11-10", "--resamples", "10", "--format", "json", "--ope", "--trec",
      dir.file("trec"), dir.file("log.jsonl"),
    ])
    #expect(r.code == .success, "\(r.stderr)")
    let qrels = try dir.read("trec/qrels.txt")
    #expect(
      Array(qrels.utf8)
        == Array("\(Self.chloeNFD) 0 tea 1\n\(Self.chloeNFD) 0 tamago 0\n".utf8))
    // The users file's diner avoids egg; the log's is another diner, whose deck may hold tamago.
    let run = try dir.read("trec/popularity.run")
    #expect(Self.holds(run, "\(Self.chloeNFD) Q0 tamago "), "\(run)")
    let json = try #require(try r.json() as? [String: Any])
    let parameters = try #require(json["parameters"] as? [String: Any])
    #expect(parameters["evaluated_diners"] as? Int == 1 && parameters["ope_diners"] as? Int == 1)
  }
}
