import DeckCore
import DeckIO
import DeckStrategies
import DeckTestSupport
import Foundation
import Testing

@testable import DeckEvaluation
@testable import DeckSimulation

private let log3 = log2(3.0)
private let log12 = log2(12.0)

/// The hand-computed log (see `handEvents`), u1's and u3's sessions under `x`, u2's under `y`,
/// and ground truth for both strategies, also for `u7`, who swiped nothing.
private let labelledEvents: [(SwipeEvent, String)] = handEvents.map { e in
  (e, e.user == "u2" ? "y" : "x")
}
private let labelledTruth: [GroundTruthSession] = [
  GroundTruthSession(
    strategy: "x", user: "u1", day: nov(1), deck: [1, 0, -1], pickedPosition: 2,
    oracle: [0.5, 2, 1]),
  GroundTruthSession(
    strategy: "x", user: "u1", day: nov(2), deck: [0.25, 2], pickedPosition: 2, oracle: [2, 3]),
  GroundTruthSession(
    strategy: "x", user: "u3", day: nov(1), deck: [0.5], pickedPosition: nil, oracle: [-2, 0.5]),
  GroundTruthSession(
    strategy: "y", user: "u2", day: nov(1), deck: [-1, 1], pickedPosition: nil, oracle: [1, 1.5]),
  GroundTruthSession(
    strategy: "y", user: "u7", day: nov(3), deck: [], pickedPosition: nil, oracle: [1]),
  GroundTruthSession(
    strategy: "y", user: "u7", day: nov(4), deck: [0.75, 0.5], pickedPosition: 1,
    oracle: [0.75, 1]),
]

private func labelledStats(order seed: UInt64? = nil) -> StatsAccumulator {
  var stats = StatsAccumulator(
    catalog: statsCatalog, options: StatsOptions(deckSize: 3, days: nov(1)...nov(3)))
  let events = seed.map { seededShuffle(labelledEvents, seed: $0) } ?? labelledEvents
  let truth = seed.map { seededShuffle(labelledTruth, seed: $0 &+ 1) } ?? labelledTruth
  for (e, label) in events { stats.add(e, strategy: label) }
  for g in truth { stats.add(g) }
  return stats
}

private func handStats(events: [SwipeEvent] = handEvents) -> StatsAccumulator {
  var stats = StatsAccumulator(
    catalog: statsCatalog, options: StatsOptions(deckSize: 3, days: nov(1)...nov(3)))
  for e in events { stats.add(e) }
  return stats
}

/// Whether the metric's value is a ratio of whole numbers (so the table must give the row's value
/// bit for bit); the others are sums of reals taken in another order.
private func isExact(_ metric: StatsMetric) -> Bool {
  metric != .novelty && !metric.needsGroundTruth
}

/// For every metric of `table` and every arm: its value equals the all-days row of `report`
/// (undefined when the report has no row of the arm's strategy).
private func expectTableMatchesReport(
  _ table: UnitTable, _ report: StatsReport,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  #expect(table.metrics.map(\.name) == report.metrics.map(\.name), sourceLocation: sourceLocation)
  for (a, arm) in table.arms.enumerated() {
    let row = report.rows.first { $0.strategy == arm.arm && $0.day == nil }
    for (m, spec) in table.metrics.enumerated() {
      let metric = StatsMetric.allCases.first { $0.name == spec.name }!
      let want = row?[metric]
      let got = table.value(arm: a, metric: m)
      switch (want, got) {
      case (nil, nil): break
      case (let w?, let g?):
        if isExact(metric) {
          #expect(g == w, "\(arm.arm) \(spec.name)", sourceLocation: sourceLocation)
        } else {
          #expect(
            abs(g - w) <= 1e-12 * abs(w), "\(arm.arm) \(spec.name): \(g) != \(w)",
            sourceLocation: sourceLocation)
        }
      default:
        Issue.record(
          "\(arm.arm) \(spec.name): table \(String(describing: got)), report \(String(describing: want))",
          sourceLocation: sourceLocation)
      }
    }
  }
}

/// The (numerator, denominator) of every metric of one unit, by metric name.
private func sums(_ table: UnitTable, arm: Int, unit: Int) -> [String: [Double]] {
  var out: [String: [Double]] = [:]
  for (m, spec) in table.metrics.enumerated() {
    out[spec.name] = [
      table.arms[arm].numerator(unit: unit, metric: m),
      table.arms[arm].denominator(unit: unit, metric: m),
    ]
  }
  return out
}

private func metricIndex(_ table: UnitTable, _ metric: StatsMetric) -> Int {
  table.metrics.firstIndex { $0.name == metric.name }!
}

// MARK: - Simulation

/// A short simulation of `strategies` on one population with common random numbers, fed to the
/// stats as `menudeck simulate` does. Diners open the app on 35% of days, so some never do;
/// satiation is off and the deck rules neither hold back earlier picks nor put recent cards last,
/// so that picks repeat.
private func simulatedStats(
  strategies: [String], users: Int = 40, days: Int = 5, seed: UInt64 = 11
) throws -> (stats: StatsAccumulator, diners: [String]) {
  var config = SimulationConfig()
  config.openProbability = 0.35
  config.satiationStrength = 0
  let population = Population(catalog: simulationCatalog, count: users, config: config, seed: seed)
  var rules = DeckRules()
  rules.repeatPickDays = 0
  rules.reshowDays = 0
  let builder = try DeckBuilder(catalog: simulationCatalog, rules: rules)
  let last = simulationStart.adding(days: days - 1)
  var stats = StatsAccumulator(
    catalog: simulationCatalog,
    options: StatsOptions(
      deckSize: rules.size, repeatWindowDays: 3, days: simulationStart...last,
      strategies: strategies))
  for name in strategies {
    let simulator = Simulator(
      population: population, builder: builder, seed: seed, start: simulationStart, days: days)
    _ = try simulator.run(
      strategy: try StrategyRegistry.make(name),
      events: { e in
        guard let swipe = e.swipe else { return }
        stats.add(
          SwipeEvent(
            user: e.user, item: e.item, swipe: swipe, at: e.at, position: e.position,
            deck: e.deck, propensity: e.propensity),
          strategy: name)
      },
      sessions: { s in
        stats.add(
          GroundTruthSession(
            strategy: name, user: s.user, day: s.date, deck: s.cards.map(\.trueUtility),
            pickedPosition: s.picked.map { $0 + 1 }, oracle: s.oracleUtilities))
      })
  }
  return (stats, population.diners.map(\.profile.id))
}

@Suite("Stats: per-diner sums and daily curves")
struct StatsUnitsTests {
  @Test func handLogPerDinerSums() {
    let table = handStats().unitTable(strategies: ["(all)"])
    #expect(table.units == ["u1", "u2", "u3"])  // u9's only event is for an unknown item
    #expect(table.arms.map(\.arm) == ["(all)"])
    #expect(table.metrics.count == 13)
    // name: [numerator, denominator] of u1, u2, u3.
    let expected: [String: [[Double]]] = [
      "decks": [[3, 0], [2, 0], [1, 0]],
      "cards_shown": [[5, 0], [6, 0], [1, 0]],
      "right_swipes": [[3, 0], [2, 0], [0, 0]],
      "left_swipes": [[2, 0], [4, 0], [1, 0]],
      "like_rate": [[3, 5], [2, 6], [0, 1]],
      "pick_rate": [[3, 3], [1, 2], [0, 1]],
      "mean_swipes_to_pick": [[5, 3], [1, 1], [0, 0]],
      "abandon_rate": [[0, 3], [0, 2], [1, 1]],
      "finished_without_pick_rate": [[0, 3], [1, 2], [0, 1]],
      "catalog_coverage": [[0, 0], [0, 0], [0, 0]],
      "intra_deck_diversity": [[4, 3], [4, 2], [1, 1]],
      // u1: a once, b 3 times (4 of 12 shows each: log2 3), c once (3 of 12: 2 bits).
      "novelty": [[4 * log3 + 2, 5], [3 * log3 + 4 + log12, 6], [log3, 1]],
      "repeat_pick_rate": [[2, 3], [0, 2], [0, 0]],
    ]
    for unit in 0..<3 {
      let got = sums(table, arm: 0, unit: unit)
      for (name, rows) in expected {
        let want = rows[unit]
        let have = got[name]!
        #expect(abs(have[0] - want[0]) <= 1e-12 && have[1] == want[1], "\(name) of u\(unit)")
      }
    }
    #expect(table.arms[0].items == [[0, 1, 2], [0, 1, 2, 3], [0]])
    expectTableMatchesReport(table, handStats().report())
  }

  @Test func everyMetricOfEveryStrategyEqualsTheAllDaysRow() {
    let stats = labelledStats()
    let report = stats.report()
    #expect(report.hasGroundTruth)
    let table = stats.unitTable(strategies: ["y", "x"])
    #expect(table.arms.map(\.arm) == ["y", "x"])
    #expect(table.units == ["u1", "u2", "u3", "u7"])
    #expect(
      table.metrics.map(\.name)
        == StatsMetric.written(groundTruth: true, newDishes: false).map(\.name))
    expectTableMatchesReport(table, report)
    // Spot checks against the hand-computed log: x holds u1 and u3, y holds u2.
    #expect(table.value(arm: 1, metric: metricIndex(table, .likeRate)) == 3.0 / 6)
    #expect(table.value(arm: 0, metric: metricIndex(table, .likeRate)) == 2.0 / 6)
    #expect(table.value(arm: 1, metric: metricIndex(table, .catalogCoverage)) == 3.0 / 5)
    #expect(table.value(arm: 0, metric: metricIndex(table, .catalogCoverage)) == 4.0 / 5)
  }

  @Test func groundTruthSumsPerDiner() throws {
    let table = labelledStats().unitTable(strategies: ["x", "y"])
    let pick = metricIndex(table, .meanPickUtility)
    let regret = metricIndex(table, .meanRegret)
    let ndcg = metricIndex(table, .ndcgAtK)
    let x = table.arms[0]
    let y = table.arms[1]
    // u1 under x: picks of utility 0 and 2; regrets 1 and 1.
    #expect(x.numerator(unit: 0, metric: pick) == 2 && x.denominator(unit: 0, metric: pick) == 2)
    #expect(
      x.numerator(unit: 0, metric: regret) == 2 && x.denominator(unit: 0, metric: regret) == 2)
    let u1NDCG = labelledTruth[0].ndcg(k: 3)! + labelledTruth[1].ndcg(k: 3)!
    #expect(abs(x.numerator(unit: 0, metric: ndcg) - u1NDCG) <= 1e-15)
    #expect(x.denominator(unit: 0, metric: ndcg) == 2)
    // u3 under x: no pick; regret 0.
    #expect(x.denominator(unit: 2, metric: pick) == 0)
    #expect(
      x.numerator(unit: 2, metric: regret) == 0 && x.denominator(unit: 2, metric: regret) == 1)
    // u7 under y: an empty deck (no regret, no NDCG), then a pick of 0.75 with regret 0.25.
    #expect(y.numerator(unit: 3, metric: pick) == 0.75 && y.denominator(unit: 3, metric: pick) == 1)
    #expect(
      y.numerator(unit: 3, metric: regret) == 0.25 && y.denominator(unit: 3, metric: regret) == 1)
    #expect(y.denominator(unit: 3, metric: ndcg) == 1)
    // u7 swiped nothing: no sessions, no cards.
    #expect(y.numerator(unit: 3, metric: metricIndex(table, .decks)) == 0)
    #expect(y.items[3].isEmpty)
    // Nothing of x's under y and the reverse.
    #expect(y.numerator(unit: 0, metric: pick) == 0 && y.denominator(unit: 0, metric: pick) == 0)
    #expect(x.denominator(unit: 1, metric: regret) == 0)
  }

  @Test func listedDinersWithoutSessionsGetZeroRows() {
    let stats = labelledStats()
    let all = stats.unitTable(strategies: ["x", "y"])
    let listed = stats.unitTable(
      strategies: ["x", "y"], units: ["u3", "zz", "u7", "u1", "a0", "u2"])
    #expect(listed.units == ["a0", "u1", "u2", "u3", "u7", "zz"])
    for (a, arm) in listed.arms.enumerated() {
      for unit in [0, 5] {
        for m in listed.metrics.indices {
          #expect(arm.numerator(unit: unit, metric: m) == 0)
          #expect(arm.denominator(unit: unit, metric: m) == 0)
        }
        #expect(arm.items[unit].isEmpty)
      }
      for unit in 0..<4 {
        #expect(sums(listed, arm: a, unit: unit + 1) == sums(all, arm: a, unit: unit))
        #expect(arm.items[unit + 1] == all.arms[a].items[unit])
      }
      for m in listed.metrics.indices {
        #expect(listed.value(arm: a, metric: m) == all.value(arm: a, metric: m))
      }
    }
    expectTableMatchesReport(listed, stats.report())
  }

  @Test func dinersNotListedAreLeftOut() {
    let table = handStats().unitTable(strategies: ["(all)"], units: ["u1"])
    #expect(table.units == ["u1"])
    #expect(table.value(arm: 0, metric: metricIndex(table, .likeRate)) == 3.0 / 5)
    #expect(table.value(arm: 0, metric: metricIndex(table, .meanSwipesToPick)) == 5.0 / 3)
    #expect(table.value(arm: 0, metric: metricIndex(table, .repeatPickRate)) == 2.0 / 3)
    #expect(table.value(arm: 0, metric: metricIndex(table, .catalogCoverage)) == 3.0 / 5)
  }

  @Test func aStrategyWithoutDataGetsAnArmOfZeros() {
    let table = labelledStats().unitTable(strategies: ["x", "nobody"])
    #expect(table.arms[1].arm == "nobody")
    for (m, spec) in table.metrics.enumerated() {
      let value = table.value(arm: 1, metric: m)
      switch spec.form {
      case .total, .coverage: #expect(value == 0, "\(spec.name)")
      case .ratio: #expect(value == nil, "\(spec.name)")
      }
    }
    #expect(table.arms[1].numerators.allSatisfy { $0 == 0 })
    #expect(table.arms[1].items.allSatisfy { $0.isEmpty })
  }

  @Test func theOrderOfEventsAndRecordsDoesNotChangeTheTable() {
    let reference = labelledStats().unitTable(strategies: ["x", "y"])
    for seed: UInt64 in [3, 4, 5] {
      #expect(labelledStats(order: seed).unitTable(strategies: ["x", "y"]) == reference)
    }
  }

  @Test func metricsCarryTheStatsNamesDefinitionsAndForms() {
    let plain = handStats().unitTable(strategies: ["(all)"])
    #expect(
      plain.metrics.map(\.name)
        == StatsMetric.written(groundTruth: false, newDishes: false).map(\.name))
    let table = labelledStats().unitTable(strategies: ["x"])
    #expect(table.metrics.count == 16)
    for (spec, metric) in zip(table.metrics, StatsMetric.allCases) {
      #expect(spec == metric.metricSpec(catalogItems: 5))
      #expect(spec.name == metric.name && spec.definition == metric.definition)
      #expect(spec.isCount == metric.isCount)
    }
    #expect(StatsMetric.catalogCoverage.unitForm(catalogItems: 5) == .coverage(catalogItems: 5))
    #expect(StatsMetric.decks.unitForm(catalogItems: 5) == .total)
    #expect(StatsMetric.novelty.unitForm(catalogItems: 5) == .ratio)
    #expect(StatsMetric.ndcgAtK.unitForm(catalogItems: 5) == .ratio)
  }

  @Test func dailySeriesFollowTheDayRows() {
    let stats = handStats()
    let series = stats.dailySeries(strategies: ["(all)", "none"])
    #expect(
      series.map(\.metric) == [
        "like_rate", "like_rate", "pick_rate", "pick_rate", "mean_swipes_to_pick",
        "mean_swipes_to_pick",
      ])
    #expect(series.map(\.arm) == ["(all)", "none", "(all)", "none", "(all)", "none"])
    // 11-03 (in options.days) has no session; 11-04 (outside them) has one.
    let days = [nov(1), nov(2), nov(3), nov(4)]
    #expect(series.allSatisfy { $0.points.map(\.day) == days })
    let likeRates: [Double?] = [1.0 / 6, 3.0 / 5, nil, 1]
    let pickRates: [Double?] = [1.0 / 3, 1, nil, 1]
    let swipesToPick: [Double?] = [2, 1.5, nil, 1]
    #expect(series[0].points.map(\.value) == likeRates)
    #expect(series[2].points.map(\.value) == pickRates)
    #expect(series[4].points.map(\.value) == swipesToPick)
    for s in [series[1], series[3], series[5]] {
      #expect(s.points.allSatisfy { $0.value == nil })
    }
    let counts = stats.dailySeries(strategies: ["(all)"], metrics: [.decks])
    let decks: [[Double?]] = [[3, 2, 0, 1]]
    #expect(counts.map { $0.points.map(\.value) } == decks)
    #expect(
      stats.report().dailySeries(strategies: ["(all)"]) == series.filter { $0.arm == "(all)" })
  }

  @Test func aSimulationsTableEqualsItsStatsForEveryMetricAndStrategy() throws {
    let strategies = ["popularity", "affinity", "random"]
    let (stats, diners) = try simulatedStats(strategies: strategies)
    let report = stats.report()
    let table = stats.unitTable(strategies: strategies, units: diners)
    #expect(table.units == diners)  // zero-padded ids: population order is byte order
    #expect(table.metrics.count == 16)
    expectTableMatchesReport(table, report)
    // Some diners never opened the app: zero rows under every strategy.
    let decks = metricIndex(table, .decks)
    let absent = table.units.indices.filter { u in
      table.arms.allSatisfy { $0.numerator(unit: u, metric: decks) == 0 }
    }
    #expect(!absent.isEmpty && absent.count < diners.count / 2)
    for u in absent {
      for arm in table.arms {
        #expect(arm.items[u].isEmpty)
        #expect(table.metrics.indices.allSatisfy { arm.denominator(unit: u, metric: $0) == 0 })
      }
    }
    // Every metric is exercised: picks, repeats and abandoned sessions happen.
    for arm in table.arms.indices {
      for metric in [StatsMetric.repeatPickRate, .abandonRate, .meanSwipesToPick] {
        #expect(
          (table.value(arm: arm, metric: metricIndex(table, metric)) ?? 0) > 0,
          "\(metric.name) of \(strategies[arm])")
      }
    }
    // The same diners, found from the input: only those seen.
    let seen = stats.unitTable(strategies: strategies)
    #expect(seen.units == diners.enumerated().filter { !absent.contains($0.offset) }.map(\.element))
    expectTableMatchesReport(seen, report)

    // Daily curves: the per-day rows, every day of the run.
    let series = stats.dailySeries(strategies: strategies)
    #expect(series.count == 9)
    for s in series {
      #expect(s.points.count == 5)
      let metric = StatsMetric.allCases.first { $0.name == s.metric }!
      for point in s.points {
        let row = report.rows.first { $0.strategy == s.arm && $0.day == point.day }!
        #expect(point.value == row[metric])
      }
    }
  }

  /// Per-day intervals: a bootstrap over the day's diners, from a stream of (seed, day) alone,
  /// so the same whatever the event order, the other metrics or the other days.
  @Test func dailySeriesCarryADinerBootstrapIntervalPerDay() throws {
    let strategies = ["popularity", "random"]
    let (stats, _) = try simulatedStats(strategies: strategies, users: 60, days: 4)
    let options = ResamplingOptions(resamples: 200, seed: 9, level: 0.9)
    let banded = stats.dailySeries(strategies: strategies, resampling: options)
    let plain = stats.dailySeries(strategies: strategies)
    #expect(banded.map { $0.points.map(\.value) } == plain.map { $0.points.map(\.value) })
    var inside = 0
    var total = 0
    for series in banded {
      for p in series.points {
        guard let v = p.value else {
          #expect(p.lower == nil && p.upper == nil)
          continue
        }
        let lower = try #require(p.lower, "\(series.arm) \(series.metric) \(p.day)")
        let upper = try #require(p.upper)
        #expect(lower <= upper)
        total += 1
        if lower <= v && v <= upper { inside += 1 }
      }
    }
    #expect(total > 0 && inside * 10 >= total * 9)
    // Deterministic, and a metric's band does not depend on the other metrics asked for.
    #expect(stats.dailySeries(strategies: strategies, resampling: options) == banded)
    let alone = stats.dailySeries(
      strategies: strategies, metrics: [.pickRate], resampling: options)
    #expect(alone == banded.filter { $0.metric == "pick_rate" })
    // Another seed, other bands; the same events in another order, the same bands.
    var other = options
    other.seed = 10
    #expect(stats.dailySeries(strategies: strategies, resampling: other) != banded)
    let events = handEvents
    let forward = handStats(events: events).dailySeries(
      strategies: ["(all)"], resampling: options)
    let backward = handStats(events: events.reversed()).dailySeries(
      strategies: ["(all)"], resampling: options)
    #expect(forward == backward)
    #expect(forward[0].points[0].lower != nil)
    // Metrics not made of each session alone (novelty) keep no band.
    let novelty = stats.dailySeries(
      strategies: strategies, metrics: [.novelty], resampling: options)
    #expect(novelty.allSatisfy { $0.points.allSatisfy { $0.lower == nil && $0.upper == nil } })
  }

  @Test func showCountsAgreeWithADictionaryThroughGrowth() {
    var counts = UnitShowCounts()
    var reference: [UInt64: Int32] = [:]
    var rng = RandomStream(seed: 5)
    for _ in 0..<20_000 {
      let unit = Int32(rng.next() % 900) + (rng.next() % 10 == 0 ? Int32.max - 900 : 0)
      let item = Int32(rng.next() % 12)
      counts.increment(unit: unit, item: item)
      reference[UInt64(unit) << 32 | UInt64(item), default: 0] += 1
    }
    #expect(counts.count == reference.count)
    #expect(reference.count > 2_000)  // more than the 1,024 first slots hold
    let entries = counts.sortedEntries()
    #expect(entries.map { UInt64($0.unit) << 32 | UInt64($0.item) } == reference.keys.sorted())
    for e in entries {
      #expect(e.shows == reference[UInt64(e.unit) << 32 | UInt64(e.item)])
      #expect(counts.shows(unit: e.unit, item: e.item) == e.shows)
    }
    #expect(counts.shows(unit: 901, item: 0) == 0)
  }
}
