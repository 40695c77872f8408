import DeckCore

extension StatsAccumulator {
  /// The per-day curves of `metrics` for `strategies` (`StatsReport.dailySeries`), each day's
  /// value with its interval: the same diner-level bootstrap as the report's estimates, over the
  /// diners with a session that day (under any of `strategies`, so that the arms stay paired).
  ///
  /// A day's replicates come from a stream of their own, derived from `resampling.seed` and the
  /// day, so a day's interval does not depend on the other days, the order of the events or the
  /// number of threads. Only metrics made of each session alone (`Session.hasSums`: the counts,
  /// the like, pick, abandon and finished-without-pick rates, swipes to pick, diversity) get an
  /// interval; the others keep nil bounds. An interval needs the metric defined in
  /// `Resampling.minimumDefinedShare` of the replicates, as the report's do.
  package func dailySeries(
    strategies: [String],
    metrics: [StatsMetric] = [.likeRate, .pickRate, .meanSwipesToPick],
    resampling: ResamplingOptions
  ) -> [DailySeries] {
    var series = report().dailySeries(strategies: strategies, metrics: metrics)
    let banded = metrics.enumerated().filter { Session.hasSums($0.element) }
    guard !banded.isEmpty, let days = series.first?.points.map(\.day) else { return series }
    var armOfSlot = [Int](repeating: -1, count: strategyNames.count)
    for (a, label) in strategies.enumerated() {
      if let slot = strategyIndex[label], armOfSlot[Int(slot)] < 0 { armOfSlot[Int(slot)] = a }
    }
    var sessionsOfDay: [Int32: [Int]] = [:]
    for (i, session) in sessions.enumerated() where armOfSlot[Int(session.key.strategy)] >= 0 {
      sessionsOfDay[session.key.day, default: []].append(i)
    }
    let specs = banded.map { $0.element.metricSpec(catalogItems: catalog.count) }
    for (d, day) in days.enumerated() {
      guard let list = sessionsOfDay[day.daysSinceEpoch] else { continue }
      // The day's diners in byte order of their ids.
      var slots = Array(Set(list.map { sessions[$0].key.user }))
      let keys = Dictionary(uniqueKeysWithValues: slots.map { ($0, users.key(at: $0)) })
      slots.sort { keys[$0]!.lexicographicallyPrecedes(keys[$1]!) }
      var unitOfSlot: [Int32: Int] = [:]
      for (u, slot) in slots.enumerated() { unitOfSlot[slot] = u }
      var arms = strategies.map { ArmUnits(arm: $0, units: slots.count, metrics: banded.count) }
      for i in list {
        let session = sessions[i]
        let a = armOfSlot[Int(session.key.strategy)]
        let u = unitOfSlot[session.key.user]!
        let end = session.end(deckSize: options.deckSize)
        for (column, metric) in banded.enumerated() {
          guard let sums = session.sums(metric.element, end: end) else { continue }
          arms[a].add(
            unit: u, metric: column, numerator: sums.numerator, denominator: sums.denominator)
        }
      }
      let table = UnitTable(
        metrics: specs, units: slots.map { String(decoding: keys[$0]!, as: UTF8.self) },
        arms: arms)
      var hash = StableHash()
      hash.combine(resampling.seed)
      hash.combine("daily")
      hash.combine(UInt64(bitPattern: Int64(day.daysSinceEpoch)))
      let options = ResamplingOptions(
        resamples: resampling.resamples, seed: hash.finalized, level: resampling.level)
      let replicates = Resampling.bootstrap(table, options: options)
      for a in strategies.indices {
        for (column, metric) in banded.enumerated() {
          let s = metric.offset * strategies.count + a
          guard series[s].points[d].value != nil else { continue }
          let values = replicates.compactMap { $0[a * banded.count + column] }
          let (lower, upper) = Resampling.interval(
            values, level: resampling.level, of: resampling.resamples)
          series[s].points[d].lower = lower
          series[s].points[d].upper = upper
        }
      }
    }
    return series
  }
}
