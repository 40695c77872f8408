import DeckCore
import DeckIO
import DeckTestSupport
import Foundation
import Testing

@testable import DeckEvaluation

/// Checks every metric of `row`: `nil` expects an undefined value, counts must match exactly,
/// rates and means to 1e-12.
private func expectRow(
  _ row: StatsRow, _ expected: [StatsMetric: Double?],
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  for metric in StatsMetric.allCases {
    let want = expected[metric] ?? nil
    let got = row[metric]
    switch (want, got) {
    case (nil, nil): break
    case (let w?, let g?):
      if metric.isCount {
        #expect(g == w, "\(metric.name) on \(row.dayLabel)", sourceLocation: sourceLocation)
      } else {
        #expect(
          abs(g - w) < 1e-12, "\(metric.name) on \(row.dayLabel): \(g) != \(w)",
          sourceLocation: sourceLocation)
      }
    default:
      Issue.record(
        "\(metric.name) on \(row.dayLabel): got \(String(describing: got)), expected \(String(describing: want))",
        sourceLocation: sourceLocation)
    }
  }
}

private let log3 = log2(3.0)
private let log12 = log2(12.0)

@Suite("Stats: hand-computed metrics")
struct StatsAccumulatorTests {
  @Test func rowsAreOrderedByStrategyThenDayWithAllDaysLast() {
    let report = handReport()
    #expect(report.rows.map(\.strategy) == Array(repeating: "(all)", count: 5))
    #expect(
      report.rows.map(\.dayLabel) == [
        "2026-11-01", "2026-11-02", "2026-11-03", "2026-11-04", "all",
      ])
    #expect(!report.hasGroundTruth)
    #expect(!report.metrics.contains { $0.needsGroundTruth })
  }

  @Test func firstDay() {
    // Shows: a 3, b 1, c 1, d 1; whole-input shows a 4, b 4, c 3, d 1 of 12.
    expectRow(
      handReport().rows[0],
      [
        .decks: 3, .cardsShown: 6, .rightSwipes: 1, .leftSwipes: 5, .likeRate: 1.0 / 6,
        .pickRate: 1.0 / 3, .meanSwipesToPick: 2, .abandonRate: 1.0 / 3,
        .finishedWithoutPickRate: 1.0 / 3, .catalogCoverage: 4.0 / 5, .intraDeckDiversity: 4.0 / 3,
        .novelty: (4 * log3 + 2 + log12) / 6, .repeatPickRate: 0,
      ])
  }

  @Test func secondDayUsesTimeOrderWithoutPositionsAndCountsTwoPicksInOneSession() {
    // u1 (no positions): c left then b right 60 s later: the pick is 2nd. u2: picks at 1 and 3.
    expectRow(
      handReport().rows[1],
      [
        .decks: 2, .cardsShown: 5, .rightSwipes: 3, .leftSwipes: 2, .likeRate: 3.0 / 5,
        .pickRate: 1, .meanSwipesToPick: 1.5, .abandonRate: 0, .finishedWithoutPickRate: 0,
        .catalogCoverage: 3.0 / 5, .intraDeckDiversity: 2, .novelty: (3 * log3 + 4) / 5,
        .repeatPickRate: 1.0 / 3,
      ])
  }

  @Test func aDayWithNoSessionsHasZeroCountsAndNoRates() {
    expectRow(
      handReport().rows[2],
      [.decks: 0, .cardsShown: 0, .rightSwipes: 0, .leftSwipes: 0, .catalogCoverage: 0])
  }

  @Test func fourthDayRepeatsAnEarlierPick() {
    expectRow(
      handReport().rows[3],
      [
        .decks: 1, .cardsShown: 1, .rightSwipes: 1, .leftSwipes: 0, .likeRate: 1, .pickRate: 1,
        .meanSwipesToPick: 1, .abandonRate: 0, .finishedWithoutPickRate: 0,
        .catalogCoverage: 1.0 / 5, .intraDeckDiversity: 1, .novelty: log3, .repeatPickRate: 1,
      ])
  }

  @Test func allDaysPoolsSessionsNotDailyMeans() {
    expectRow(
      handReport().rows[4],
      [
        .decks: 6, .cardsShown: 12, .rightSwipes: 5, .leftSwipes: 7, .likeRate: 5.0 / 12,
        .pickRate: 4.0 / 6, .meanSwipesToPick: 6.0 / 4, .abandonRate: 1.0 / 6,
        .finishedWithoutPickRate: 1.0 / 6, .catalogCoverage: 4.0 / 5, .intraDeckDiversity: 9.0 / 6,
        .novelty: (8 * log3 + 6 + log12) / 12, .repeatPickRate: 2.0 / 5,
      ])
  }

  @Test func pickRateAbandonAndFinishedPartitionTheSessions() {
    for row in handReport().rows where row[.decks]! > 0 {
      let sum = row[.pickRate]! + row[.abandonRate]! + row[.finishedWithoutPickRate]!
      #expect(abs(sum - 1) < 1e-12)
    }
  }

  @Test(
    arguments: [
      (nil, [0, 1.0 / 3, nil, 1, 2.0 / 5]),
      (1, [0, 1.0 / 3, nil, 0, 1.0 / 5]),  // 11-04 is 2 days after 11-02: outside a 1-day window
      (2, [0, 1.0 / 3, nil, 1, 2.0 / 5]),
    ] as [(Int?, [Double?])])
  func repeatWindow(days: Int?, expected: [Double?]) {
    #expect(handReport(repeatWindowDays: days).rows.map { $0[.repeatPickRate] } == expected)
  }

  @Test func sameDayPicksOfOneItemAreNotRepeats() {
    // Two right swipes of b by u1 on one day (all mode), then one the next day: only that one.
    let events = [
      statsSwipe("u1", "b", .right, day: 1, position: 1),
      statsSwipe("u1", "b", .right, day: 1, position: 2),
      statsSwipe("u1", "b", .right, day: 2, position: 1),
    ]
    #expect(
      handReport(events: events, days: nil).rows.map { $0[.repeatPickRate] } == [0, 1, 1.0 / 3])
  }

  @Test func repeatsCountOnlyUnderTheSameStrategy() {
    var stats = StatsAccumulator(catalog: statsCatalog, options: StatsOptions(deckSize: 3))
    stats.add(statsSwipe("u1", "b", .right, day: 1, position: 1), strategy: "x")
    stats.add(statsSwipe("u1", "b", .right, day: 2, position: 1), strategy: "y")
    stats.add(statsSwipe("u1", "b", .right, day: 3, position: 1), strategy: "y")
    let rows = stats.report().rows
    #expect(rows.map(\.strategy) == ["x", "x", "x", "x", "y", "y", "y", "y"])
    #expect(rows.map { $0[.repeatPickRate] } == [0, nil, nil, 0, nil, 0, 1, 0.5])
  }

  @Test func unknownItemsAreRefusedAndLeftOut() {
    var stats = StatsAccumulator(catalog: statsCatalog, options: StatsOptions(deckSize: 3))
    #expect(stats.add(statsSwipe("u1", "zz", .right, day: 1)) == .unknownItem)
    #expect(stats.add(statsSwipe("u1", "a", .left, day: 1)) == .accepted)
    let all = stats.report().rows.last!
    #expect(all[.cardsShown] == 1)
    #expect(all[.rightSwipes] == 0)
  }

  @Test func emptyInputGivesOneRowOfZerosAndNoRates() {
    let report = StatsAccumulator(catalog: statsCatalog, options: StatsOptions(deckSize: 10))
      .report()
    #expect(report.rows.count == 1)
    expectRow(
      report.rows[0],
      [.decks: 0, .cardsShown: 0, .rightSwipes: 0, .leftSwipes: 0, .catalogCoverage: 0])
    #expect(report.rows[0].strategy == "(all)")
    #expect(report.rows[0].day == nil)
  }

  @Test func swipesToPickByPositionIgnoresTimeWhenEveryCardHasOne() {
    // Logged out of order: the pick at position 4 has the earliest time.
    let events = [
      statsSwipe("u1", "a", .right, day: 1, second: 0, position: 4),
      statsSwipe("u1", "b", .left, day: 1, second: 9, position: 1),
    ]
    #expect(handReport(events: events, days: nil).rows[0][.meanSwipesToPick] == 4)
  }

  @Test func swipesToPickFallsBackToTimeWhenAnyPositionIsMissing() {
    // One swipe lacks a position: the session is ordered by time; equal times are not "earlier".
    let events = [
      statsSwipe("u1", "a", .left, day: 1, second: 0, position: 1),
      statsSwipe("u1", "b", .left, day: 1, second: 5),
      statsSwipe("u1", "c", .right, day: 1, second: 5, position: 7),
      statsSwipe("u1", "d", .left, day: 1, second: 9, position: 3),
    ]
    #expect(handReport(events: events, days: nil).rows[0][.meanSwipesToPick] == 2)
  }

  @Test func abandonBoundaryIsTheDeckSize() {
    // No picks: 2 swipes with deck size 3 is abandoned, 3 is finished, 4 (a reset) is finished.
    func rates(_ swipes: Int) -> (Double?, Double?) {
      let events = (0..<swipes).map { n in
        statsSwipe("u1", ["a", "b", "c", "d"][n], .left, day: 1, second: Int64(n), position: n + 1)
      }
      let row = handReport(events: events, days: nil).rows[0]
      return (row[.abandonRate], row[.finishedWithoutPickRate])
    }
    #expect(rates(1) == (1, 0))
    #expect(rates(2) == (1, 0))
    #expect(rates(3) == (0, 1))
    #expect(rates(4) == (0, 1))
  }

  @Test func aMissingDeckDateGroupsByTheEventsOwnDay() {
    // The same user on the same day, once with a deck date and once without: one session.
    let events = [
      statsSwipe("u1", "a", .left, day: 1, position: 1),
      statsSwipe("u1", "b", .right, day: 1, second: 1, position: 2, deck: false),
    ]
    let row = handReport(events: events, days: nil).rows[0]
    #expect(row[.decks] == 1)
    #expect(row[.meanSwipesToPick] == 2)
  }

  @Test func aLateSwipeCountsOnItsDecksDate() {
    // A swipe made on 11-02 of the deck of 11-01 belongs to the 11-01 session.
    var late = statsSwipe("u1", "b", .right, day: 2, position: 2)
    late.deck = nov(1)
    let events = [statsSwipe("u1", "a", .left, day: 1, position: 1), late]
    let rows = handReport(events: events, days: nil).rows
    #expect(rows.map(\.dayLabel) == ["2026-11-01", "all"])
    #expect(rows[0][.decks] == 1)
    #expect(rows[0][.pickRate] == 1)
  }

  @Test func noveltyIsZeroWhenOneItemIsEverything() {
    let events = [statsSwipe("u1", "a", .left, day: 1), statsSwipe("u2", "a", .right, day: 1)]
    #expect(handReport(events: events, days: nil).rows[0][.novelty] == 0)
  }

  @Test func listedStrategiesAndDaysGetRowsWithoutSessions() {
    var stats = StatsAccumulator(
      catalog: statsCatalog,
      options: StatsOptions(deckSize: 3, days: nov(2)...nov(3), strategies: ["zeta", "alpha"]))
    stats.add(statsSwipe("u1", "a", .right, day: 1, position: 1), strategy: "beta")
    let rows = stats.report().rows
    #expect(
      rows.map(\.strategy) == ["alpha", "beta", "zeta"].flatMap { Array(repeating: $0, count: 4) })
    #expect(
      rows.map(\.dayLabel)
        == Array(repeating: ["2026-11-01", "2026-11-02", "2026-11-03", "all"], count: 3).flatMap {
          $0
        })
    #expect(rows.map { $0[.decks]! } == [0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0])
  }

  @Test func strategyLabelsSortByBytes() {
    var stats = StatsAccumulator(catalog: statsCatalog, options: StatsOptions(deckSize: 3))
    for label in ["b", "B", "a", "Ä", "(all)"] {
      stats.add(statsSwipe("u1", "a", .left, day: 1), strategy: label == "(all)" ? nil : label)
    }
    let labels = stats.report().rows.map(\.strategy)
    #expect(labels == ["(all)", "(all)", "B", "B", "a", "a", "b", "b", "Ä", "Ä"])
  }

  @Test func theEventSinkUsesTheCurrentStrategyLabel() throws {
    let log = """
      {"user":"u1","item":"a","swipe":"left","at":"2026-11-01T12:00:00","position":1}
      {"user":"u1","item":"b","swipe":"right","at":"2026-11-01T12:00:05","position":2}
      {"user":"u2","item":"zz","swipe":"right","at":"2026-11-01T12:00:05","position":1}

      """
    var stats = StatsAccumulator(catalog: statsCatalog, options: StatsOptions(deckSize: 3))
    let reader = EventReader()
    stats.strategy = "one"
    let first = try reader.read(text: log, name: "one.jsonl", format: .jsonLines, into: &stats)
    stats.strategy = "two"
    _ = try reader.read(text: log, name: "two.jsonl", format: .jsonLines, into: &stats)
    #expect(first.unknownItemEvents == 1)
    let rows = stats.report().rows
    #expect(rows.map(\.strategy) == ["one", "one", "two", "two"])
    #expect(rows.map { $0[.meanSwipesToPick] } == [2, 2, 2, 2])
    #expect(rows.map { $0[.cardsShown] } == [2, 2, 2, 2])
  }
}
