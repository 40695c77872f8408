import DeckCore
import DeckIO
import Foundation

extension StatsAccumulator {
  /// The per-diner sums of every metric, one arm per strategy: the input of the diner-level
  /// bootstrap intervals and paired randomization tests of `compare` (`UnitTable`).
  ///
  /// - Parameters:
  ///   - strategies: the strategy labels (`(all)` for unlabelled input), distinct, in arm order.
  ///     A label without sessions or ground truth gets an arm of zeros.
  ///   - units: the diner ids, distinct; the table lists them sorted by UTF-8 bytes. A diner
  ///     without sessions gets a row of zeros (a simulation passes its whole population, also
  ///     the diners who never opened the app); users of the input who are not listed are left
  ///     out. nil: every user seen in an event or a ground-truth record.
  ///
  /// The metrics are `StatsMetric.allCases` (the ground-truth ones only with `hasGroundTruth`),
  /// each as `StatsMetric.metricSpec(catalogItems:)`. Over all the users seen, `value(arm:metric:)` is the all-days row of `report()` for that strategy: exactly for
  /// the counts and for the rates of counts; to rounding (the sums run in another order) for
  /// `novelty` and the ground-truth means. Per diner:
  /// - `decks`, `cards_shown`, `right_swipes`, `left_swipes`: the counts (`.total`);
  /// - `like_rate`: right swipes / cards shown; `pick_rate`, `abandon_rate`,
  ///   `finished_without_pick_rate`: such sessions / sessions; `mean_swipes_to_pick`: the sum of
  ///   the places of the picks / sessions with a pick; `intra_deck_diversity`: the sum of the
  ///   categories shown per session / sessions; `novelty`: the sum of -log2(p) over the cards
  ///   shown (p pooled over the whole input, as in the report) / cards shown;
  ///   `repeat_pick_rate`: repeat picks / right swipes (`.ratio`);
  /// - `catalog_coverage`: the distinct catalog indices shown, in `ArmUnits.items`; its sums are 0
  ///   (`.coverage`);
  /// - `mean_pick_utility`, `mean_regret`, `ndcg_at_k`: the sum of the defined values of the
  ///   diner's sessions, summed in ascending order / their number (`.ratio`).
  ///
  /// A ratio pooled this way weights each diner by its sessions (or cards, or picks), as the row
  /// does. The table depends neither on the order of the events nor on that of the records.
  package func unitTable(strategies: [String], units: [String]? = nil) -> UnitTable {
    let metrics = StatsMetric.written(
      groundTruth: hasGroundTruth, newDishes: options.newDishDays != nil)
    var columns: [StatsMetric: Int] = [:]
    for (m, metric) in metrics.enumerated() { columns[metric] = m }
    let (ids, unitOfUser) = unitIndices(units)
    let cells = UnitCells(armOfSlot: armIndices(strategies), unitOfUser: unitOfUser)
    var arms = strategies.map { ArmUnits(arm: $0, units: ids.count, metrics: metrics.count) }
    addSessions(to: &arms, cells, columns)
    addRepeatPicks(to: &arms, cells, column: columns[.repeatPickRate]!)
    addItemsShown(to: &arms, cells, noveltyColumn: columns[.novelty]!)
    addGroundTruth(to: &arms, cells, columns)
    return UnitTable(
      metrics: metrics.map { $0.metricSpec(catalogItems: catalog.count) }, units: ids, arms: arms)
  }

  /// The arm of each strategy slot (-1: not listed).
  private func armIndices(_ strategies: [String]) -> [Int] {
    var armOfSlot = Array(repeating: -1, count: strategyNames.count)
    for (a, label) in strategies.enumerated() {
      precondition(
        !strategies[..<a].contains { $0.utf8.elementsEqual(label.utf8) },
        "strategy '\(label)' is listed twice")
      if let slot = strategyIndex[label] { armOfSlot[Int(slot)] = a }
    }
    return armOfSlot
  }

  /// The table's diner ids in byte order, and the row of each user slot (-1: not listed).
  private func unitIndices(_ units: [String]?) -> (ids: [String], unitOfUser: [Int]) {
    var unitOfUser = Array(repeating: -1, count: users.count)
    let ids: [String]
    if let units {
      ids = units.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
      for (u, id) in ids.enumerated() {
        precondition(
          u == 0 || !ids[u - 1].utf8.elementsEqual(id.utf8), "diner '\(id)' is listed twice")
        if let user = users.find(id) { unitOfUser[Int(user)] = u }
      }
    } else {
      let keys = (0..<users.count).map { users.key(at: Int32($0)) }
      let order = keys.indices.sorted { keys[$0].lexicographicallyPrecedes(keys[$1]) }
      for (u, user) in order.enumerated() { unitOfUser[user] = u }
      ids = order.map { String(decoding: keys[$0], as: UTF8.self) }
    }
    return (ids, unitOfUser)
  }

  /// The counts of the sessions (`Session.sums`), and the denominators of `novelty` and
  /// `repeat_pick_rate`, whose numerators come from the items shown and the pick days.
  private func addSessions(
    to arms: inout [ArmUnits], _ cells: UnitCells, _ columns: [StatsMetric: Int]
  ) {
    let perSession = StatsMetric.allCases.compactMap { metric in
      Session.hasSums(metric) ? columns[metric].map { (metric, $0) } : nil
    }
    let novelty = columns[.novelty]!
    let repeatRate = columns[.repeatPickRate]!
    for session in sessions {
      guard let (a, u) = cells.cell(session.key.strategy, session.key.user) else { continue }
      let end = session.end(deckSize: options.deckSize)
      for (metric, column) in perSession {
        guard let sums = session.sums(metric, end: end) else { continue }
        arms[a].add(
          unit: u, metric: column, numerator: sums.numerator, denominator: sums.denominator)
      }
      arms[a].add(
        unit: u, metric: novelty, numerator: 0, denominator: Double(session.right + session.left))
      arms[a].add(unit: u, metric: repeatRate, numerator: 0, denominator: Double(session.right))
    }
  }

  /// The repeat picks.
  private func addRepeatPicks(to arms: inout [ArmUnits], _ cells: UnitCells, column: Int) {
    for (key, days) in pickDays {
      guard let (a, u) = cells.cell(key.strategy, key.user) else { continue }
      let repeated = repeats(days.sorted()).reduce(0) { $0 + $1.1 }
      arms[a].add(unit: u, metric: column, numerator: Double(repeated))
    }
  }

  /// The items shown: coverage lists and novelty bits, per (strategy, user) in item order.
  private func addItemsShown(to arms: inout [ArmUnits], _ cells: UnitCells, noveltyColumn: Int) {
    let information = selfInformation()
    let shows = unitShows.sortedEntries()
    var n = 0
    while n < shows.count {
      let slot = shows[n].unit
      var end = n + 1
      while end < shows.count && shows[end].unit == slot { end += 1 }
      let pair = UnitKey(packed: unitKeys[Int(slot)])
      if let (a, u) = cells.cell(pair.strategy, pair.user) {
        var items: [Int32] = []
        items.reserveCapacity(end - n)
        var bits = 0.0
        for entry in shows[n..<end] {
          items.append(entry.item)
          bits += Double(entry.shows) * information[Int(entry.item)]
        }
        arms[a].items[u] = items
        arms[a].add(unit: u, metric: noveltyColumn, numerator: bits)
      }
      n = end
    }
  }

  /// The ground truth: each diner's values summed in ascending order.
  private func addGroundTruth(
    to arms: inout [ArmUnits], _ cells: UnitCells, _ columns: [StatsMetric: Int]
  ) {
    guard !truth.isEmpty else { return }
    let parts: [(StatsMetric, KeyPath<TruthRecord, Double?>)] = [
      (.meanPickUtility, \.pickUtility), (.meanRegret, \.regret), (.ndcgAtK, \.ndcg),
    ]
    for (metric, path) in parts {
      var values: [(arm: Int, unit: Int, value: Double)] = []
      for record in truth {
        guard let value = record[keyPath: path],
          let (a, u) = cells.cell(record.strategy, record.user)
        else { continue }
        values.append((a, u, value))
      }
      values.sort { ($0.arm, $0.unit, $0.value) < ($1.arm, $1.unit, $1.value) }
      let m = columns[metric]!
      for v in values {
        arms[v.arm].add(unit: v.unit, metric: m, numerator: v.value, denominator: 1)
      }
    }
  }
}

/// Where a (strategy slot, user slot) pair of the accumulator goes in a `UnitTable`.
private struct UnitCells {
  var armOfSlot: [Int]
  var unitOfUser: [Int]

  /// The arm and row of a pair, nil when either is not listed.
  func cell(_ strategy: Int32, _ user: Int32) -> (arm: Int, unit: Int)? {
    let a = armOfSlot[Int(strategy)]
    let u = unitOfUser[Int(user)]
    return a >= 0 && u >= 0 ? (a, u) : nil
  }
}
