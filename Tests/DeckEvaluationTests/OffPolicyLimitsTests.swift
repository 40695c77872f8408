import DeckBase
import DeckCore
import DeckIO
import Testing

@testable import DeckEvaluation

@Suite struct OffPolicyLimitsTests {
  private static let day = DeckDate(year: 2026, month: 11, day: 22)!
  private static let catalog = try! Catalog(
    items: ["a", "b"].map { MenuItem(id: $0, name: $0, category: "c") })

  private static func read(_ lines: [String]) throws -> LoggedSessions {
    var sink = LoggedSessions(catalog: catalog, start: day, file: "log.jsonl")
    _ = try EventReader().read(
      text: lines.joined(separator: "\n") + "\n", name: "log.jsonl", format: .jsonLines,
      into: &sink)
    return sink
  }

  private static func event(_ user: String, _ item: String, _ position: Int, _ p: String)
    -> String
  {
    #"{"user":"\#(user)","item":"\#(item)","swipe":"right","at":"2026-11-22","position":"#
      + "\(position),\"propensity\":\(p)}"
  }

  @Test func propensitiesBelowTheFloorAreRefusedWithTheirLines() throws {
    let sink = try Self.read([
      Self.event("u1", "a", 1, "0.5"), Self.event("u1", "b", 2, "1e-320"),
      Self.event("u2", "a", 1, "0.0000009"), Self.event("u2", "b", 2, "0.000001"),
    ])
    #expect(
      throws: DeckIOError.malformed(
        SourceLocation(file: "log.jsonl", line: 2, field: "propensity"),
        message:
          "'1e-320' is below 0.000001, the smallest propensity off-policy estimates use (on 2 "
          + "events from 2026-11-22 on: here and :3): a card's weight is 1 / propensity, and one "
          + "such card would outweigh a million others; log propensities of at least 0.000001, "
          + "or give a --split after these events")
    ) { try sink.check() }
    // The floor itself is used.
    let atTheFloor = try Self.read([Self.event("u1", "a", 1, "0.000001")])
    try atTheFloor.check()
    #expect(atTheFloor.cardCount == 1)
  }

  /// A weight that is not a finite number (a propensity far below the floor, given to the
  /// library directly) makes IPS, SNIPS and DR undefined: no value, no interval, no p-value.
  @Test func anUndefinedEstimateHasNoIntervalAndNoPValue() {
    let log = OffPolicyLog(
      diners: ["u1", "u2", "u3"],
      sessions: [
        LoggedSession(
          diner: 0, day: Self.day,
          cards: [LoggedCard(item: 0, position: 1, liked: true, propensity: 1e-320)]),
        LoggedSession(
          diner: 1, day: Self.day,
          cards: [LoggedCard(item: 1, position: 1, liked: false, propensity: 0.5)]),
        LoggedSession(
          diner: 2, day: Self.day,
          cards: [LoggedCard(item: 0, position: 1, liked: false, propensity: 0.5)]),
      ], itemCount: 2)
    let targets = [
      OffPolicyTarget(name: "a-first", rankings: [[0, 1], [0, 1], [0, 1]]),
      OffPolicyTarget(name: "b-first", rankings: [[1, 0], [1, 0], [1, 0]]),
    ]
    let table = OffPolicy.evaluate(log, targets: targets)
    let (arms, differences) = Resampling.analyze(
      table, baseline: 1, options: ResamplingOptions(resamples: 200))
    for name in ["ips", "snips", "dr", "ips_p1", "dr_p1"] {
      let m = table.metrics.firstIndex { $0.name == name }!
      #expect(table.value(arm: 0, metric: m) == nil, "\(name)")
      let e = arms[0].estimates[m]
      #expect(e.value == nil && e.lower == nil && e.upper == nil, "\(name)")
      let d = differences[0].estimates[m]
      #expect(d.value == nil && d.lower == nil && d.upper == nil, "\(name)")
      #expect(differences[0].pValues[m] == nil, "\(name)")
    }
    // Replay does not weigh by propensity: it stays defined, with its p-value.
    let replay = table.metrics.firstIndex { $0.name == "replay" }!
    #expect(arms[0].estimates[replay].value != nil)
    #expect(differences[0].pValues[replay] != nil)
  }

  @Test func noPValueIsBelowOneOverNPlusOne() {
    // Drawn permutations: (1 + extreme) / (1 + N).
    let drawn = Resampling.pValue(observed: 5, permuted: [1, 2, 3, nil, .nan, .infinity])
    #expect(drawn == 0.25)
    // Exact enumeration normally counts the identity; if rounding ever lost it, the floor holds.
    let exact = Resampling.pValue(observed: 5, permuted: [1, 2, 3], exact: true)
    #expect(exact == 0.25)
    #expect(Resampling.pValue(observed: .infinity, permuted: [1, 2]) == 1)
    #expect(Resampling.pValue(observed: .nan, permuted: [1, 2], exact: true) == 1)
    for n in [1, 10, 999] {
      let p = Resampling.pValue(
        observed: 1e9, permuted: Array(repeating: 0.5, count: n), exact: false)
      #expect(p >= 1 / Double(n + 1))
    }
  }

  @Test func positionsStopAtTheCapByDefault() {
    let log = OffPolicyLog(
      diners: ["u1"],
      sessions: [
        LoggedSession(
          diner: 0, day: Self.day,
          cards: [
            LoggedCard(item: 0, position: 1, liked: true, propensity: 0.5),
            LoggedCard(item: 1, position: 5_000, liked: true, propensity: 0.5),
          ])
      ], itemCount: 2)
    let table = OffPolicy.evaluate(
      log, targets: [OffPolicyTarget(name: "t", rankings: [[0, 1]])])
    #expect(table.metrics.count == 7 + 6 * OffPolicy.maxPositions)
    #expect(table.metrics.last?.name == "replay_matches_p100")
    let cards = table.metrics.firstIndex { $0.name == "evaluated_cards" }!
    #expect(table.value(arm: 0, metric: cards) == 1)
  }
}
