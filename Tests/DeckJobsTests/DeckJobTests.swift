import DeckBase
import DeckCore
import DeckIO
import Foundation
import Testing

@testable import DeckJobs

/// `DeckJob` called directly with a typed request, on the bundled Config/ and Data/.
@Suite struct DeckJobTests {
  /// Every diner once, in ascending id bytes: the users file's profile (its first of an id),
  /// the history's diners it does not name as bare profiles, within the shard; the same
  /// whether the users file comes in id order or not.
  @Test func everyoneIsEachDinerOnceInIDOrder() throws {
    var builder = HistoryBuilder(itemCount: 1)
    for id in ["h2", Self.nfdCafeID, "b", "h1"] {
      builder.add(user: builder.userSlot(id), item: 0, swipe: .right, day: 100)
    }
    let history = try builder.build()
    let users = [
      UserProfile(id: "c", diets: ["vegan"]), UserProfile(id: "a"), UserProfile(id: "b"),
      UserProfile(id: Self.nfcCafeID), UserProfile(id: "c"),
    ]
    let io = JobTestSupport.io()
    let expected = ["a", "b", "c", Self.nfdCafeID, Self.nfcCafeID, "h1", "h2"]
    let inOrder = [users[1], users[2], users[0], users[4], users[3]]
    for given in [users, inOrder] {
      let (all, listed) = try DeckJob.diners(
        .everyone, shard: nil, users: given, history: history, io)
      #expect(listed == nil)
      #expect(all.map { Array($0.id.utf8) } == expected.map { Array($0.utf8) })
      #expect(all.first { $0.id == "c" }?.diets == ["vegan"])
      #expect(all.first { $0.id == "h1" } == UserProfile(id: "h1"))
      let shard = try #require(DinerShard(index: 2, count: 3))
      let (part, _) = try DeckJob.diners(
        .everyone, shard: shard, users: given, history: history, io)
      #expect(part.map(\.id) == all.map(\.id).filter { shard.contains($0) })
    }
  }

  static let nfcCafeID = "caf\u{E9}"
  static let nfdCafeID = "cafe\u{301}"

  static let date = DeckDate.parse("2026-11-30")!

  /// The settings `menudeck deck --date 2026-11-30` runs with: the bundled config's.
  static func settings(format: DeckFormat = .json) throws -> RunSettings {
    let io = JobTestSupport.io()
    let config = try Inputs.loadConfig(
      Inputs.defaultConfig, given: false, mayBeMissing: false, io)
    let strategy = try #require(try config.resolveStrategy(config.strategy))
    var settings = RunSettings(
      config: config, catalogPath: try #require(config.catalog), usersPath: config.users,
      historyPaths: config.history, strategyName: config.strategy, strategy: strategy,
      seed: config.seed, date: date, zone: try Inputs.timeZone(config), format: format,
      rules: config.rules, skipBadLines: false, rejectsPath: nil)
    settings.delimiters = config.csvDelimiters
    return settings
  }

  static func request(jobs: Int, format: DeckFormat = .json) throws -> DeckRequest {
    DeckRequest(
      settings: try settings(format: format), out: .init(OutputKey("--out"), nil),
      rejects: .init(OutputKey("--rejects"), nil), jobs: jobs, version: "0.1.0")
  }

  /// Runs `request` with standard output captured: the outcome and the bytes written.
  static func run(_ request: DeckRequest, arguments: [String] = []) throws -> (
    DeckJob.Outcome, [UInt8]
  ) {
    var io = JobTestSupport.io()
    io.arguments = arguments
    let outcome = try DeckJob.run(request, io)
    return (outcome, (io.standardOutput as! TestOutput).bytes)
  }

  /// The golden file the command's tests pin `menudeck deck --date 2026-11-30 --format F` to.
  static func golden(_ format: String) throws -> [UInt8] {
    let url = URL(fileURLWithPath: JobTestSupport.root)
      .appendingPathComponent("Tests/MenuDeckCLITests/Golden/deck-2026-11-30.\(format)")
    return Array(try Data(contentsOf: url))
  }

  @Test(arguments: [(DeckFormat.json, "json"), (.jsonl, "jsonl"), (.csv, "csv"), (.table, "table")])
  func theRequestGivesTheCommandsBytes(format: DeckFormat, name: String) throws {
    let arguments = ["menudeck", "deck", "--date", "2026-11-30", "--format", name]
    let (outcome, bytes) = try Self.run(
      try Self.request(jobs: 2, format: format), arguments: arguments)
    #expect(bytes == (try Self.golden(name)))
    #expect(outcome.decks == 48)
    #expect(outcome.shortDecks == 0)
    #expect(outcome.read.events > 0)
    #expect(!outcome.dryRun)
  }

  @Test func oneThreadAndFourGiveTheSameBytes() throws {
    let (one, oneBytes) = try Self.run(try Self.request(jobs: 1))
    let (four, fourBytes) = try Self.run(try Self.request(jobs: 4))
    #expect(!oneBytes.isEmpty)
    #expect(oneBytes == fourBytes)
    #expect(one.decks == four.decks)
    #expect(one.warningLines == four.warningLines)
    #expect(one.read.events == four.read.events)
  }

  @Test func aShardAndTheNamedDinersKeepTheirDecks() throws {
    var request = try Self.request(jobs: 1, format: .jsonl)
    let (_, all) = try Self.run(request)
    let lines = all.split(separator: UInt8(ascii: "\n")).map { Array($0) }
    request.diners = .ids(["u02", "u01", "u02"])
    let (named, two) = try Self.run(request)
    #expect(named.decks == 2)
    #expect(two.split(separator: UInt8(ascii: "\n")).map { Array($0) } == Array(lines[0..<2]))
    request.diners = .everyone
    request.shard = DinerShard("1/2")
    let (half, _) = try Self.run(request)
    request.shard = DinerShard("2/2")
    let (other, _) = try Self.run(request)
    #expect(half.decks + other.decks == 48)
    #expect(half.decks > 0 && other.decks > 0)
  }

  @Test func anEmptyDinerIdIsAUsageError() throws {
    var request = try Self.request(jobs: 1)
    request.diners = .ids([""])
    #expect(throws: JobError.usage("'--user' needs a diner id, got an empty string")) {
      try Self.run(request)
    }
  }

  @Test func anUnknownFallbackIsAUsageError() throws {
    var request = try Self.request(jobs: 1)
    request.fallback = "no-such-strategy"
    #expect(throws: JobError.self) { try Self.run(request) }
  }
}

/// `PlayJob`: the deck `play` shows, and the one it fetches again after a session.
@Suite struct PlayJobTests {
  static func request(user: String?) throws -> PlayRequest {
    var request = PlayRequest(settings: try DeckJobTests.settings(), version: "0.1.0")
    request.user = user
    return request
  }

  /// `f` (fetch the cards again) rebuilds with the session's swipes added to the history: a
  /// left swipe the day before the deck date holds the dish back under the cooldown rule; one
  /// on the deck date itself changes nothing (a deck never sees its own day).
  @Test func fetchingAgainAddsTheSessionsSwipesToTheHistory() throws {
    let request = try Self.request(user: "u01")
    let io = JobTestSupport.io()
    let start = try PlayJob.start(request, io)
    func ids(_ inputs: DeckInputs, _ deck: Deck) -> [String] {
      deck.cards.map { inputs.catalog.items[Int($0.item)].id }
    }
    let before = ids(start.inputs, start.deck)
    #expect(before.count == 10)
    let day = Int64(request.settings.date.daysSinceEpoch)
    func left(onDay day: Int64) -> SwipeEvent {
      SwipeEvent(
        user: start.diner.id, item: before[0], swipe: .left, at: day * 86_400 + 12 * 3_600,
        position: 1, deck: request.settings.date)
    }
    let yesterday = try PlayJob.fetchAgain(
      request, diner: start.diner, session: [left(onDay: day - 1)], io)
    let today = try PlayJob.fetchAgain(
      request, diner: start.diner, session: [left(onDay: day)], io)
    #expect(!ids(yesterday.0, yesterday.1).contains(before[0]))
    #expect(ids(today.0, today.1) == before)
  }

  @Test func withoutAUserTheUsersFileMustHoldOneDiner() throws {
    #expect(
      throws: JobError.usage(
        "play swipes one diner's deck: give --user ID (the users file has 48 diners)")
    ) { try PlayJob.start(try Self.request(user: nil), JobTestSupport.io()) }
  }

  @Test func anUnknownDinerGetsAFirstVisitDeckWithAWarning() throws {
    let diagnostics = RecordedDiagnostics()
    let start = try PlayJob.start(try Self.request(user: "nobody"), JobTestSupport.io(diagnostics))
    #expect(start.diner.id == "nobody")
    #expect(
      diagnostics.lines.contains(
        "warning: user 'nobody' is in neither the users file nor the history; building a "
          + "first-visit deck"))
  }
}

/// `StrategiesJob`: the built-ins, and the config's named configurations.
@Suite struct StrategiesJobTests {
  @Test func theBuiltInsComeFirstThenTheConfigsNamedOnes() throws {
    let io = JobTestSupport.io()
    let config = try Inputs.loadConfig(
      Inputs.defaultConfig, given: false, mayBeMissing: false, io)
    let with = StrategiesJob.run(StrategiesRequest(config: config, format: .table), io)
    let without = StrategiesJob.run(StrategiesRequest(config: nil, format: .json), io)
    #expect(without.named.isEmpty && without.inputs.isEmpty)
    #expect(without.descriptions.map(\.identifier).first == "random")
    #expect(with.named.map(\.name) == config.strategies.keys.sorted())
    #expect(with.inputs.map(\.role).first == "config")
    #expect(
      Array(with.descriptions.prefix(without.descriptions.count)).map(\.identifier)
        == without.descriptions.map(\.identifier))
  }
}
