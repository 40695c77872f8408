import DeckCore
import DeckIO
import Foundation

// The report of a StatsAccumulator: every metric per strategy and day.
extension StatsAccumulator {
  /// Computes every metric per strategy and day, and over all days.
  ///
  /// Rows: strategies in byte order of their labels (with none at all, `(all)`); for each, every
  /// day that has a session or a ground-truth record under any strategy, plus `options.days`,
  /// ascending, then the row over all days.
  package func report() -> StatsReport {
    var labels = Set(strategyNames)
    labels.formUnion(options.strategies)
    // `(all)` exists from init; drop it when nothing carries it and other labels exist.
    let unlabelled = strategyIndex[StatsAccumulator.unlabelled]!
    let unlabelledUsed =
      sessions.contains { $0.key.strategy == unlabelled }
      || truth.contains { $0.strategy == unlabelled }
      || options.strategies.contains(StatsAccumulator.unlabelled)
    if !unlabelledUsed && labels.count > 1 { labels.remove(StatsAccumulator.unlabelled) }
    let ordered = labels.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }

    var daySet = Set(sessions.map(\.key.day))
    daySet.formUnion(truth.map(\.day))
    if let range = options.days {
      for d in range.lowerBound.daysSinceEpoch...range.upperBound.daysSinceEpoch {
        daySet.insert(d)
      }
    }
    let days = daySet.sorted()

    // Tallies per (strategy slot, day).
    var tallies: [GroupKey: Tally] = [:]
    for session in sessions {
      tallies[GroupKey(strategy: session.key.strategy, day: session.key.day), default: Tally()]
        .add(session, deckSize: options.deckSize)
    }
    for (key, days) in pickDays {
      for (day, repeated) in repeats(days.sorted()) {
        tallies[GroupKey(strategy: key.strategy, day: day), default: Tally()].repeatPicks +=
          repeated
      }
    }
    for record in truth {
      tallies[GroupKey(strategy: record.strategy, day: record.day), default: Tally()].truth.add(
        record)
    }

    let information = selfInformation()
    var rows: [StatsRow] = []
    for label in ordered {
      let slot = strategyIndex[label]
      var total = Tally()
      var totalShows = Array(repeating: Int32(0), count: catalog.count)
      for day in days {
        let key = slot.map { GroupKey(strategy: $0, day: day) }
        let tally = key.flatMap { tallies[$0] } ?? Tally()
        let shows = key.flatMap { self.shows(of: $0) }
        rows.append(
          row(
            strategy: label, day: DeckDate(daysSinceEpoch: day), tally: tally, shows: shows,
            information: information))
        total.merge(tally)
        if let shows {
          for (i, n) in shows.enumerated() { totalShows[i] += n }
        }
      }
      rows.append(
        row(
          strategy: label, day: nil, tally: total, shows: totalShows[...],
          information: information))
    }
    return StatsReport(
      options: options, catalogItems: catalog.count, hasGroundTruth: hasGroundTruth, rows: rows)
  }

  /// -log2(shows_i / all shows) per item, 0 for items never shown (never used: they add nothing).
  func selfInformation() -> [Double] {
    let all = itemShows.reduce(0, +)
    return itemShows.map { n in n > 0 ? -log2(Double(n) / Double(all)) : 0 }
  }

  /// For sorted pick days of one (strategy, user, item): the number of picks per day that repeat
  /// a pick of an earlier day within the window.
  func repeats(_ days: [Int32]) -> [(Int32, Int)] {
    var out: [(Int32, Int)] = []
    var previous: Int32? = nil  // the latest day before the current one
    var n = 0
    while n < days.count {
      let day = days[n]
      var m = n
      while m < days.count && days[m] == day { m += 1 }
      if let previous, options.repeatWindowDays.map({ Int(day) - Int(previous) <= $0 }) ?? true {
        out.append((day, m - n))
      }
      previous = day
      n = m
    }
    return out
  }

  private func row(
    strategy: String, day: DeckDate?, tally t: Tally, shows: ArraySlice<Int32>?,
    information: [Double]
  ) -> StatsRow {
    var values: [StatsMetric: Double] = [:]
    func ratio(_ a: Int, _ b: Int) -> Double? { b > 0 ? Double(a) / Double(b) : nil }
    values[.decks] = Double(t.decks)
    values[.cardsShown] = Double(t.right + t.left)
    values[.rightSwipes] = Double(t.right)
    values[.leftSwipes] = Double(t.left)
    values[.likeRate] = ratio(t.right, t.right + t.left)
    values[.pickRate] = ratio(t.pickSessions, t.decks)
    values[.meanSwipesToPick] = ratio(t.swipesToPick, t.pickSessions)
    values[.abandonRate] = ratio(t.abandoned, t.decks)
    values[.finishedWithoutPickRate] = ratio(t.finishedWithoutPick, t.decks)
    values[.intraDeckDiversity] = ratio(t.categories, t.decks)
    values[.repeatPickRate] = ratio(t.repeatPicks, t.right)
    if let shows {
      var distinct = 0
      var bits = 0.0
      for (i, n) in shows.enumerated() where n > 0 {
        distinct += 1
        bits += Double(n) * information[i]
      }
      values[.catalogCoverage] = ratio(distinct, catalog.count)
      values[.novelty] = t.right + t.left > 0 ? bits / Double(t.right + t.left) : nil
    } else {
      values[.catalogCoverage] = ratio(0, catalog.count)
    }
    values[.meanPickUtility] = mean(t.truth.pickUtilities)
    values[.meanRegret] = mean(t.truth.regrets)
    values[.ndcgAtK] = mean(t.truth.ndcgs)
    return StatsRow(strategy: strategy, day: day, values: values)
  }

  /// The mean of `values` summed in ascending order (so it does not depend on input order).
  private func mean(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    return values.sorted().reduce(0, +) / Double(values.count)
  }
}
