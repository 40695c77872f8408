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
    Self.report(of: [reportParts()], catalog: catalog, options: options)
  }

  /// The report of accumulators that share no diner (the buckets of a log split by diner):
  /// the report one accumulator fed all their swipes gives, since every metric is made of
  /// per-(strategy, day) counts and shows, which add up across diners.
  package static func report(of parts: [StatsAccumulator]) -> StatsReport {
    precondition(!parts.isEmpty, "a report of no accumulator")
    return report(
      of: parts.map { $0.reportParts() }, catalog: parts[0].catalog, options: parts[0].options)
  }

  /// What a report is made of before its rows, by strategy label and day.
  struct ReportParts {
    struct Key: Hashable {
      var label: String
      var day: Int32
    }
    var tallies: [Key: Tally] = [:]
    var shows: [Key: [Int32]] = [:]
    var itemShows: [Int64]
    var days: Set<Int32> = []
    var labels: Set<String> = []
    var unlabelledUsed = false
    var hasGroundTruth = false
  }

  func reportParts() -> ReportParts {
    var parts = ReportParts(itemShows: itemShows)
    parts.labels = Set(strategyNames)
    let unlabelled = strategyIndex[StatsAccumulator.unlabelled]!
    parts.unlabelledUsed =
      sessions.contains { $0.key.strategy == unlabelled }
      || truth.contains { $0.strategy == unlabelled }
    parts.hasGroundTruth = hasGroundTruth
    parts.days = Set(sessions.map(\.key.day))
    parts.days.formUnion(truth.map(\.day))
    func key(_ strategy: Int32, _ day: Int32) -> ReportParts.Key {
      ReportParts.Key(label: strategyNames[Int(strategy)], day: day)
    }
    for session in sessions {
      parts.tallies[key(session.key.strategy, session.key.day), default: Tally()]
        .add(session, deckSize: options.deckSize)
    }
    for (k, days) in pickDays {
      for (day, repeated) in repeats(days.sorted()) {
        parts.tallies[key(k.strategy, day), default: Tally()].repeatPicks += repeated
      }
    }
    for record in truth {
      parts.tallies[key(record.strategy, record.day), default: Tally()].truth.add(record)
    }
    for (group, _) in groupIndex {
      parts.shows[key(group.strategy, group.day)] = Array(shows(of: group)!)
    }
    return parts
  }

  private static func report(
    of parts: [ReportParts], catalog: Catalog, options: StatsOptions
  ) -> StatsReport {
    // Add the parts up (one part: itself).
    var all = parts[0]
    for p in parts.dropFirst() {
      for (k, t) in p.tallies { all.tallies[k, default: Tally()].merge(t) }
      for (k, shows) in p.shows {
        if var mine = all.shows[k] {
          for i in mine.indices { mine[i] += shows[i] }
          all.shows[k] = mine
        } else {
          all.shows[k] = shows
        }
      }
      for i in all.itemShows.indices { all.itemShows[i] += p.itemShows[i] }
      all.days.formUnion(p.days)
      all.labels.formUnion(p.labels)
      all.unlabelledUsed = all.unlabelledUsed || p.unlabelledUsed
      all.hasGroundTruth = all.hasGroundTruth || p.hasGroundTruth
    }
    var labels = all.labels
    labels.formUnion(options.strategies)
    // `(all)` exists from init; drop it when nothing carries it and other labels exist.
    let unlabelledUsed =
      all.unlabelledUsed || options.strategies.contains(StatsAccumulator.unlabelled)
    if !unlabelledUsed && labels.count > 1 { labels.remove(StatsAccumulator.unlabelled) }
    let ordered = labels.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    var daySet = all.days
    if let range = options.days {
      for d in range.lowerBound.daysSinceEpoch...range.upperBound.daysSinceEpoch {
        daySet.insert(d)
      }
    }
    let days = daySet.sorted()

    let information = selfInformation(all.itemShows)
    var rows: [StatsRow] = []
    for label in ordered {
      var total = Tally()
      var totalShows = Array(repeating: Int32(0), count: catalog.count)
      for day in days {
        let k = ReportParts.Key(label: label, day: day)
        let tally = all.tallies[k] ?? Tally()
        let shows = all.shows[k]
        rows.append(
          row(
            strategy: label, day: DeckDate(daysSinceEpoch: day), tally: tally, shows: shows?[...],
            information: information, catalog: catalog))
        total.merge(tally)
        if let shows {
          for (i, n) in shows.enumerated() { totalShows[i] += n }
        }
      }
      rows.append(
        row(
          strategy: label, day: nil, tally: total, shows: totalShows[...],
          information: information, catalog: catalog))
    }
    return StatsReport(
      options: options, catalogItems: catalog.count, hasGroundTruth: all.hasGroundTruth,
      rows: rows)
  }

  /// -log2(shows_i / all shows) per item, 0 for items never shown (never used: they add nothing).
  func selfInformation() -> [Double] { Self.selfInformation(itemShows) }

  static func selfInformation(_ itemShows: [Int64]) -> [Double] {
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

  private static func row(
    strategy: String, day: DeckDate?, tally t: Tally, shows: ArraySlice<Int32>?,
    information: [Double], catalog: Catalog
  ) -> StatsRow {
    var values: [StatsMetric: Double] = [:]
    func ratio(_ a: Int, _ b: Int) -> Double? { b > 0 ? Double(a) / Double(b) : nil }
    values[.decks] = Double(t.decks)
    values[.cardsShown] = Double(t.right + t.left)
    values[.rightSwipes] = Double(t.right)
    values[.leftSwipes] = Double(t.left)
    values[.likeRate] = ratio(t.right, t.right + t.left)
    values[.newDishLikeRate] = ratio(t.newRight, t.newRight + t.newLeft)
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
  private static func mean(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    return values.sorted().reduce(0, +) / Double(values.count)
  }
}
