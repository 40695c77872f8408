import DeckBase
import DeckCore
import DeckIO
import DeckStrategies
import DeckTestSupport
import Testing

@testable import DeckEvaluation
@testable import DeckSimulation

private let prefixCatalog = try! Catalog(
  items: ["a", "b", "c", "d", "e"].map { MenuItem(id: $0, name: $0, category: "x") })
private let window = DeckDate(year: 2026, month: 11, day: 2)!

/// One JSON Lines event on the first day of the window (`day` later): `prefix` nil leaves the
/// field out.
private func event(
  _ user: String, _ item: String, _ position: Int, _ propensity: Double, _ prefix: Double?,
  day: Int = 0
) -> String {
  let date = window.adding(days: day)
  var line =
    #"{"user":"\#(user)","item":"\#(item)","swipe":"left","at":"\#(date)","position":"#
    + "\(position),\"propensity\":\(propensity)"
  if let prefix { line += ",\"prefix_propensity\":\(prefix)" }
  return line + "}"
}

/// The sink after reading each file (name, JSON Lines) in turn.
private func read(_ files: [(name: String, lines: [String])]) throws -> LoggedSessions {
  var sink = LoggedSessions(catalog: prefixCatalog, start: window)
  for file in files {
    sink.file = file.name
    _ = try EventReader().read(
      text: file.lines.joined(separator: "\n") + "\n", name: file.name, format: .jsonLines,
      into: &sink)
  }
  return sink
}

private func read(_ lines: [String]) throws -> LoggedSessions {
  try read([("log.jsonl", lines)])
}

private func checkError(_ sink: LoggedSessions) -> DeckIOError? {
  do {
    try sink.check()
    return nil
  } catch {
    return error
  }
}

private func at(_ line: Int, _ field: String, file: String = "log.jsonl")
  -> DeckBase
  .SourceLocation
{
  DeckBase.SourceLocation(file: file, line: line, field: field)
}

private let meaning =
  "a prefix propensity is the logging policy's probability of the session's cards from "
  + "position 1 to this one, in their order"

@Suite("Off-policy evaluation: prefix propensities in the evaluation log")
struct LoggedPrefixPropensityTests {
  @Test func aLogWithoutPrefixPropensitiesStaysValid() throws {
    // Without prefix propensities, positions may have gaps and repeats (the marginal
    // estimators do not need a whole prefix).
    let sink = try read([
      event("u1", "a", 1, 0.5, nil), event("u1", "b", 3, 0.25, nil),
      event("u2", "c", 2, 0.5, nil), event("u2", "d", 2, 0.5, nil),
    ])
    try sink.check()
    let log = sink.log()
    #expect(log.cardCount == 4)
    #expect(log.sessions.allSatisfy { $0.cards.allSatisfy { $0.prefixPropensity == nil } })
    #expect(!log.hasPrefixPropensities)
  }

  @Test func coherentPrefixPropensitiesReachTheLoggedCards() throws {
    let lines = [
      // Out of position order in the file, and the first card's prefix is its propensity.
      event("u1", "b", 2, 0.25, 0.125), event("u1", "a", 1, 0.5, 0.5),
      // Within the tolerance: 1e-10 above the card's propensity, and above the card before.
      event("u1", "c", 3, 0.125 / (1 + 1e-10), 0.125 * (1 + 1e-10)),
      event("u2", "a", 1, 1, 1), event("u2", "e", 2, 0.75, 0.75),
    ]
    let sink = try read(lines)
    try sink.check()
    let log = sink.log()
    #expect(
      log.sessions.map { $0.cards.map(\.prefixPropensity) } == [
        [0.5, 0.125, 0.125 * (1 + 1e-10)], [1, 0.75],
      ])
    #expect(log.sessions[0].cards.map(\.propensity) == [0.5, 0.25, 0.125 / (1 + 1e-10)])
    #expect(log.hasPrefixPropensities)
    // A session without any is valid too, but then not every session has them.
    let mixedLog = try read(lines + [event("u3", "a", 1, 0.5, nil)])
    try mixedLog.check()
    #expect(!mixedLog.log().hasPrefixPropensities)
  }

  @Test func hasPrefixPropensitiesNeedsEveryCardAndOne() {
    let day = window
    let with = LoggedCard(item: 0, position: 1, liked: true, propensity: 0.5, prefixPropensity: 0.5)
    let without = LoggedCard(item: 1, position: 2, liked: false, propensity: 0.5)
    func log(_ sessions: [[LoggedCard]]) -> OffPolicyLog {
      OffPolicyLog(
        diners: ["u"], sessions: sessions.map { LoggedSession(diner: 0, day: day, cards: $0) },
        itemCount: 2)
    }
    #expect(!OffPolicyLog(diners: [], sessions: [], itemCount: 2).hasPrefixPropensities)
    #expect(!log([[]]).hasPrefixPropensities)
    #expect(log([[with], []]).hasPrefixPropensities)
    #expect(!log([[with], [without]]).hasPrefixPropensities)
    #expect(!log([[with, without]]).hasPrefixPropensities)
  }

  @Test func aPrefixAboveTheCardsOwnPropensity() throws {
    let sink = try read([
      event("u1", "a", 1, 0.5, 0.5), event("u1", "b", 2, 0.25, 0.3),
    ])
    #expect(
      checkError(sink)
        == .malformed(
          at(2, "prefix_propensity"),
          message: "'0.3' is above the card's propensity '0.25'; \(meaning), which cannot exceed "
            + "the probability of this card at its position: log the probability of the whole "
            + "prefix (the product of the ranking's choices up to this card), not of the card "
            + "alone"))
    // More of them: the first few listed, the rest counted; just beyond the tolerance counts.
    let several = try read([
      event("u1", "a", 1, 0.5, 0.5 * (1 + 1e-8)), event("u1", "b", 2, 0.5, 0.25),
      event("u2", "a", 1, 0.5, 0.75), event("u2", "b", 2, 0.25, 0.5),
      event("u3", "a", 1, 0.5, 0.75),
    ])
    let error = try #require(checkError(several))
    #expect(
      error.description.hasPrefix(
        "log.jsonl:1: prefix_propensity: '\(0.5 * (1 + 1e-8))' is above the card's propensity "
          + "'0.5' (on 4 events from 2026-11-02 on: here, :3, :4 and 1 more); "))
  }

  @Test func prefixPropensitiesThatGrowAlongThePositions() throws {
    let sink = try read([
      event("u1", "a", 1, 0.5, 0.1), event("u1", "b", 2, 0.5, 0.1),
      event("u1", "c", 3, 0.5, 0.2), event("u2", "c", 1, 1, 1),
    ])
    #expect(
      checkError(sink)
        == .malformed(
          at(3, "prefix_propensity"),
          message: "'0.2' at position 3 is above '0.1' at position 2 in the session of diner "
            + "'u1' on 2026-11-02; \(meaning), so it cannot grow along the positions: log the "
            + "running product of the ranking's choices up to each card, not each choice alone"))
    // Several, in two sessions; equal ones and growth within the tolerance are fine.
    let several = try read([
      event("u1", "a", 1, 0.5, 0.1), event("u1", "b", 2, 0.5, 0.1 * (1 + 1e-10)),
      event("u2", "a", 1, 0.5, 0.25), event("u2", "b", 2, 0.5, 0.5),
      event("u2", "c", 3, 1, 0.5 * (1 + 2e-9)),
      event("u1", "c", 3, 0.5, 0.2),
    ])
    let error = try #require(checkError(several))
    #expect(
      error.description.hasPrefix(
        "log.jsonl:4: prefix_propensity: '0.5' at position 2 is above '0.25' at position 1 in "
          + "the session of diner 'u2' on 2026-11-02 (on 3 events from 2026-11-02 on: here, :5 "
          + "and :6); "))
  }

  @Test func aSessionWithPrefixPropensitiesOnSomeCardsOnly() throws {
    let one = try read([event("u1", "a", 1, 0.5, 0.5), event("u1", "b", 2, 0.5, nil)])
    #expect(
      checkError(one)
        == .malformed(
          at(2, "prefix_propensity"),
          message: "missing, though other cards of its session (diner 'u1' on 2026-11-02) carry "
            + "one; \(meaning), so the slate estimators need it on every card of a session or on "
            + "none: log it with every card the ranking showed, or with none"))
    // Sessions are (diner, deck day): u1's second day and u3 carry none, which is fine.
    let several = try read([
      event("u1", "a", 1, 0.5, 0.5), event("u2", "a", 1, 0.5, nil), event("u1", "b", 2, 0.5, nil),
      event("u1", "a", 1, 0.5, nil, day: 1), event("u2", "b", 2, 0.5, 0.25),
      event("u3", "a", 1, 0.5, nil), event("u1", "c", 3, 0.5, nil),
      event("u4", "c", 1, 0.5, nil), event("u4", "d", 2, 0.5, 0.5),
    ])
    #expect(
      checkError(several)
        == .malformed(
          at(2, "prefix_propensity"),
          message: "missing on 4 events of sessions whose other cards carry one (the first: "
            + "diner 'u2' on 2026-11-02): here, :3, :7 and 1 more; \(meaning), so the slate "
            + "estimators need it on every card of a session or on none: log it with every card "
            + "the ranking showed, or with none"))
  }

  @Test func positionsOfASessionWithPrefixPropensities() throws {
    let tail =
      "; \(meaning), which needs one card at each position 1, 2, 3, ...: log every card shown, "
      + "once, or leave out prefix_propensity"
    let gap = try read([
      event("u1", "a", 1, 0.5, 0.5), event("u1", "b", 2, 0.5, 0.25),
      event("u1", "c", 4, 0.5, 0.125),
    ])
    #expect(
      checkError(gap)
        == .malformed(
          at(3, "position"),
          message: "4 follows position 2 in the session of diner 'u1' on 2026-11-02, which "
            + "carries prefix propensities" + tail))
    let start = try read([event("u1", "b", 2, 0.5, 0.25), event("u1", "c", 3, 0.5, 0.125)])
    #expect(
      checkError(start)
        == .malformed(
          at(1, "position"),
          message: "2 is the first position of the session of diner 'u1' on 2026-11-02, which "
            + "carries prefix propensities" + tail))
    let twice = try read([
      event("u1", "a", 1, 0.5, 0.5), event("u1", "b", 2, 0.5, 0.25),
      event("u1", "c", 2, 0.5, 0.25),
    ])
    #expect(
      checkError(twice)
        == .malformed(
          at(3, "position"),
          message: "a second card at position 2 (the first is at :2) in the session of diner "
            + "'u1' on 2026-11-02, which carries prefix propensities" + tail))
    // Several sessions: the first in the order read, the others' lines listed (one per session).
    let several = try read([
      event("u2", "b", 2, 0.5, 0.25), event("u1", "a", 1, 0.5, 0.5),
      event("u1", "c", 3, 0.5, 0.125), event("u1", "d", 4, 0.5, 0.0625),
      event("u3", "a", 1, 0.5, 0.5), event("u3", "a", 1, 0.5, 0.5),
      event("u4", "a", 1, 0.5, 0.5), event("u4", "a", 2, 0.5, 0.25),
    ])
    #expect(
      checkError(several)
        == .malformed(
          at(1, "position"),
          message: "2 is the first position of the session of diner 'u2' on 2026-11-02, which "
            + "carries prefix propensities (in 3 sessions from 2026-11-02 on: here, :3 and :6)"
            + tail))
  }

  @Test func locationsAcrossFiles() throws {
    let sink = try read([
      ("a.jsonl", [event("u1", "a", 1, 0.5, 0.5), event("u2", "a", 1, 0.5, 0.5)]),
      ("b.jsonl", [event("u1", "b", 2, 0.25, 0.125), event("u2", "a", 1, 0.5, 0.5)]),
    ])
    #expect(
      checkError(sink)
        == .malformed(
          at(2, "position", file: "b.jsonl"),
          message: "a second card at position 1 (the first is at a.jsonl:2) in the session of "
            + "diner 'u2' on 2026-11-02, which carries prefix propensities; \(meaning), which "
            + "needs one card at each position 1, 2, 3, ...: log every card shown, once, or "
            + "leave out prefix_propensity"))
    let listed = try read([
      ("a.jsonl", [event("u1", "a", 1, 0.5, 0.75)]),
      ("b.jsonl", [event("u2", "a", 1, 0.5, 0.5), event("u3", "a", 1, 0.25, 0.5)]),
    ])
    let error = try #require(checkError(listed))
    #expect(
      error.description.hasPrefix(
        "a.jsonl:1: prefix_propensity: '0.75' is above the card's propensity '0.5' (on 2 events "
          + "from 2026-11-02 on: here and b.jsonl:2); "))
  }

  @Test func theRulesAreCheckedInOrderAfterThePropensities() throws {
    // Breaks the rules on values (a prefix above its propensity, and one above the card
    // before) and, in another session, the positions: the positions are reported.
    let lines = [
      event("u1", "a", 1, 0.5, 0.25), event("u1", "b", 2, 0.25, 0.5),
      event("u2", "a", 2, 0.5, 0.25),
    ]
    #expect(checkError(try read(lines))?.description.hasPrefix("log.jsonl:3: position: 2 ") == true)
    // A missing prefix comes before the positions.
    let missing = try read(lines + [event("u2", "b", 3, 0.5, nil)])
    #expect(
      checkError(missing)?.description.hasPrefix("log.jsonl:4: prefix_propensity: missing,")
        == true)
    // Without the bad positions, a prefix above its own propensity comes before growth.
    let values = try read(Array(lines.prefix(2)))
    #expect(
      checkError(values)?.description.hasPrefix(
        "log.jsonl:2: prefix_propensity: '0.5' is above the card's propensity '0.25';") == true)
    // A missing propensity is reported before anything about prefixes.
    let noPropensity = try read(
      lines + [#"{"user":"u5","item":"a","swipe":"left","at":"2026-11-02","position":1}"#])
    #expect(
      checkError(noPropensity)?.description.hasPrefix("log.jsonl:4: propensity: missing;")
        == true)
  }

  @Test func aPendingCardIs32Bytes() {
    // The memory per evaluated card the sink's documentation states.
    #expect(MemoryLayout<LoggedSessions.PendingCard>.stride == 32)
    // And per card of the log (`LoggedCard`, with its optional prefix propensity).
    #expect(MemoryLayout<LoggedCard>.stride == 40)
  }
}

/// Keeps the candidates' order and logs the probabilities of a uniform shuffle: each candidate
/// 1 / n at its position, and the cards up to the k-th 1 / (n (n - 1) ... (n - k + 1)).
private final class UniformPrefixes: RankingStrategy {
  var description: StrategyDescription {
    StrategyDescription(identifier: "uniform-prefixes", summary: "a shuffle's probabilities")
  }

  func learn(catalog: Catalog, history: History) throws(StrategyError) {}

  func score(_ batch: inout [ScoringContext]) throws(StrategyError) -> [Scores] {
    batch.map { c in
      let n = c.candidates.count
      var prefix: [Double] = []
      var p = 1.0
      for k in 0..<n {
        p /= Double(n - k)
        prefix.append(p)
      }
      return Scores(
        c.candidates.indices.map { -Double($0) },
        propensities: Array(repeating: 1 / Double(n), count: n), prefixPropensities: prefix)
    }
  }
}

@Suite("Off-policy evaluation: simulated prefix propensities through the log")
struct SimulatedPrefixPropensityTests {
  @Test(arguments: EventFormat.allCases)
  func simulatedPrefixPropensitiesReachTheLoggedCards(format: EventFormat) throws {
    var rules = DeckRules()
    rules.maxPerCategory = nil
    rules.avoidAdjacentCategory = false
    rules.reshowDays = 0
    let population = Population(
      catalog: simulationCatalog, count: 30, config: SimulationConfig(), seed: 11)
    let builder = try DeckBuilder(catalog: simulationCatalog, rules: rules)
    let simulator = Simulator(
      population: population, builder: builder, seed: 11, start: simulationStart, days: 2)
    var events: [LogEvent] = []
    var sessions: [SimulatedSession] = []
    _ = try simulator.run(
      strategy: UniformPrefixes(), events: { events.append($0) }, sessions: { sessions.append($0) })
    #expect(events.contains { $0.prefixPropensity != nil })
    let out = MemoryOutput()
    let writer = EventWriter(format: format, output: out, drags: true)
    for e in events { try writer.write(e) }
    try writer.finish()

    var sink = LoggedSessions(catalog: simulationCatalog, start: simulationStart, file: "sim")
    _ = try EventReader().read(text: out.text, name: "sim", format: format, into: &sink)
    try sink.check()
    let log = sink.log()
    #expect(log.hasPrefixPropensities)
    #expect(log.cardCount > 20)
    #expect(log.sessions.count == sessions.filter { $0.cards.contains { $0.swipe != nil } }.count)
    for s in log.sessions {
      let simulated = try #require(
        sessions.first { $0.user == log.diners[s.diner] && $0.date == s.day })
      let swiped = simulated.cards.filter { $0.swipe != nil }
      #expect(s.cards.map(\.position) == swiped.map { Int32($0.position) })
      #expect(s.cards.map(\.prefixPropensity) == swiped.map(\.prefixPropensity))
      // The shuffle's probabilities of the deck's first cards, exactly as the strategy gave.
      let n = Double(simulated.candidateCount)
      var expected = 1.0
      for (k, card) in s.cards.enumerated() {
        expected /= n - Double(k)
        #expect(card.prefixPropensity == expected)
        #expect(card.propensity == 1 / n)
      }
    }
  }
}
