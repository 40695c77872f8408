import DeckCore
import DeckIO
import Foundation

/// Settings of a stats run.
public struct StatsOptions: Sendable, Equatable {
  /// Cards per deck (config `deck.size`): a session with no right swipe that has fewer swipes is
  /// counted as abandoned, one with this many or more as finished without a pick. Logs do not say
  /// how long each deck was, so a short deck swiped to its end counts as abandoned.
  public var deckSize: Int
  /// The k of `ndcg_at_k`.
  public var ndcgK: Int
  /// A right swipe repeats an earlier pick when the same user swiped the same item right (under
  /// the same strategy) 1 to this many days before; nil: on any earlier day in the input.
  public var repeatWindowDays: Int?
  /// Days listed for every strategy even when they have no sessions (a simulation's days).
  public var days: ClosedRange<DeckDate>?
  /// Strategy labels listed even when they have no sessions (a simulation's strategies).
  public var strategies: [String]

  /// `ndcgK` defaults to `deckSize`.
  public init(
    deckSize: Int, ndcgK: Int? = nil, repeatWindowDays: Int? = nil,
    days: ClosedRange<DeckDate>? = nil, strategies: [String] = []
  ) {
    precondition(deckSize >= 1, "the deck size must be 1 or more")
    precondition((ndcgK ?? 1) >= 1, "ndcg k must be 1 or more")
    precondition((repeatWindowDays ?? 1) >= 1, "the repeat window must be 1 day or more")
    self.deckSize = deckSize
    self.ndcgK = ndcgK ?? deckSize
    self.repeatWindowDays = repeatWindowDays
    self.days = days
    self.strategies = strategies
  }
}

/// The streaming stats engine: feed it swipes (as an `EventSink`, or `SwipeEvent` values) and,
/// for simulations, `GroundTruthSession` records; `report()` computes every `StatsMetric` per
/// strategy and day.
///
/// Memory grows with the distinct sessions, users, (strategy, day) groups times catalog items,
/// (strategy, user) pairs and (strategy, user, item) triples, not with the number of events: a
/// session costs about 150 bytes plus 8 bytes per swipe (its `at`, kept for the place of the pick
/// when positions are missing; the cards of one deck in practice), a (strategy, user) pair about
/// 30 bytes, a (strategy, user, item) triple shown 17 to 34 bytes (its show count, for the
/// per-diner `novelty` and `catalog_coverage` of `unitTable`) and, with a right swipe, about 80
/// more (its pick days), a ground-truth record 40 bytes. Nothing is flushed per day, so events
/// may come in any order.
///
/// The result does not depend on the order of the events or of the ground-truth records:
/// everything kept per event is an integer count, a minimum or a set, and sums of real numbers
/// are taken in sorted order.
///
/// Events whose item is not in the catalog are refused (`.unknownItem`) and left out, as the
/// deck job does.
public struct StatsAccumulator: EventSink, Sendable {
  /// The label of events and records that carry no strategy (real logs).
  public static let unlabelled = "(all)"

  public let catalog: Catalog
  public let options: StatsOptions

  /// The strategy label of the events fed through `event(_:)` (the `EventSink` entry point);
  /// nil: `(all)`. Set it before reading a simulation's log of one strategy.
  public var strategy: String? {
    didSet { currentStrategy = strategySlot(strategy) }
  }

  private var items: ByteTable
  private var users = ByteTable(capacity: 1024)
  private var lastUser: Int32 = -1
  private var strategyNames: [String] = []
  private var strategyIndex: [String: Int32] = [:]
  private var currentStrategy: Int32 = 0

  private var sessionIndex: [SessionKey: Int32] = [:]
  private var sessions: [Session] = []
  /// The previous event's session (logs come in sessions: one diner's swipes in a row).
  private var lastSession: Int32 = -1
  /// Dense indices of the (strategy, day) groups that have sessions.
  private var groupIndex: [GroupKey: Int32] = [:]
  private var lastGroup: (key: GroupKey, index: Int32)?
  /// Shows of each catalog item per group: `catalog.count` counts per group, flat.
  private var groupShows: [Int32] = []
  /// Shows of each catalog item over the whole input (the popularity of `novelty`).
  private var itemShows: [Int64]
  /// Per (strategy, user, item): the day of every right swipe.
  private var pickDays: [PickKey: [Int32]] = [:]
  /// Dense indices of the (strategy, user) pairs that have sessions: `UnitKey.packed` to index.
  private var unitIndex: [UInt64: Int32] = [:]
  /// The (strategy, user) pair of each index, packed.
  private var unitKeys: [UInt64] = []
  /// Shows per ((strategy, user) index, item).
  private var unitShows = UnitShowCounts()
  /// The ground truth of every simulated session, in arrival order.
  private var truth: [TruthRecord] = []
  /// Whether the input is a simulation (`expectGroundTruth()`), whose ground-truth metrics are
  /// reported even when it has no session at all.
  private var truthExpected = false

  /// Whether the ground-truth metrics are reported: the input is a simulation, or has ground
  /// truth. Their columns then stand whatever the number of sessions (undefined without any), so
  /// that a reader of the output finds the same columns in every run.
  public var hasGroundTruth: Bool { truthExpected || !truth.isEmpty }

  /// Declares the input a simulation: its ground-truth metrics are reported even if no session
  /// comes.
  public mutating func expectGroundTruth() { truthExpected = true }

  public init(catalog: Catalog, options: StatsOptions) {
    self.catalog = catalog
    self.options = options
    items = ByteTable(capacity: catalog.count)
    for item in catalog.items { _ = items.insert(item.id) }
    itemShows = Array(repeating: 0, count: catalog.count)
    currentStrategy = strategySlot(nil)
  }

  // MARK: - Input

  /// Adds one decoded swipe under the current `strategy`.
  @inline(__always)
  public mutating func event(_ e: RawEvent) -> EventDisposition {
    guard let item = items.find(e.item) else { return .unknownItem }
    let user: Int32
    if lastUser >= 0 && users.keyEquals(lastUser, e.user) {
      user = lastUser
    } else {
      user = users.insert(e.user).index
      lastUser = user
    }
    add(
      strategy: currentStrategy, user: user, item: item, swipe: e.swipe, at: e.at,
      position: e.position, day: e.deck?.daysSinceEpoch ?? e.day)
    return .accepted
  }

  /// Adds one swipe under `strategy` (nil: `(all)`).
  @discardableResult
  public mutating func add(_ e: SwipeEvent, strategy: String? = nil) -> EventDisposition {
    guard let item = catalog.index(of: e.item) else { return .unknownItem }
    let user = users.insert(e.user).index
    add(
      strategy: strategySlot(strategy), user: user, item: item, swipe: e.swipe, at: e.at,
      position: Int32(clamping: e.position ?? 0), day: (e.deck ?? e.day).daysSinceEpoch)
    return .accepted
  }

  /// Adds the ground truth of one simulated session.
  public mutating func add(_ session: GroundTruthSession) {
    truth.append(
      TruthRecord(
        session, strategy: strategySlot(session.strategy), user: users.insert(session.user).index,
        k: options.ndcgK))
  }

  private mutating func strategySlot(_ label: String?) -> Int32 {
    let name = label ?? StatsAccumulator.unlabelled
    if let s = strategyIndex[name] { return s }
    let s = Int32(strategyNames.count)
    strategyNames.append(name)
    strategyIndex[name] = s
    return s
  }

  private mutating func add(
    strategy: Int32, user: Int32, item: Int32, swipe: SwipeDirection, at: Int64, position: Int32,
    day: Int32
  ) {
    let key = SessionKey(strategy: strategy, user: user, day: day)
    let s: Int
    if lastSession >= 0 && sessions[Int(lastSession)].key == key {
      s = Int(lastSession)
    } else if let existing = sessionIndex[key] {
      s = Int(existing)
    } else {
      s = sessions.count
      sessionIndex[key] = Int32(s)
      sessions.append(Session(key: key, unit: unitSlot(strategy: strategy, user: user)))
    }
    lastSession = Int32(s)
    sessions[s].add(
      swipe: swipe, at: at, position: position, category: catalog.itemCategory[Int(item)])
    unitShows.increment(unit: sessions[s].unit, item: item)

    let g = groupSlot(GroupKey(strategy: strategy, day: day))
    groupShows[Int(g) * catalog.count + Int(item)] += 1
    itemShows[Int(item)] += 1
    if swipe == .right {
      pickDays[PickKey(strategy: strategy, user: user, item: item), default: []].append(day)
    }
  }

  private mutating func unitSlot(strategy: Int32, user: Int32) -> Int32 {
    let key = UnitKey(strategy: strategy, user: user).packed
    if let existing = unitIndex[key] { return existing }
    let u = Int32(unitKeys.count)
    unitIndex[key] = u
    unitKeys.append(key)
    return u
  }

  private mutating func groupSlot(_ key: GroupKey) -> Int32 {
    if let lastGroup, lastGroup.key == key { return lastGroup.index }
    let g: Int32
    if let existing = groupIndex[key] {
      g = existing
    } else {
      g = Int32(groupIndex.count)
      groupIndex[key] = g
      groupShows.append(contentsOf: repeatElement(0, count: catalog.count))
    }
    lastGroup = (key, g)
    return g
  }

  /// The item shows of a group, or nil when it has no session.
  private func shows(of key: GroupKey) -> ArraySlice<Int32>? {
    guard let g = groupIndex[key] else { return nil }
    let start = Int(g) * catalog.count
    return groupShows[start..<(start + catalog.count)]
  }

  // MARK: - Report

  /// Computes every metric per strategy and day, and over all days.
  ///
  /// Rows: strategies in byte order of their labels (with none at all, `(all)`); for each, every
  /// day that has a session or a ground-truth record under any strategy, plus `options.days`,
  /// ascending, then the row over all days.
  public func report() -> StatsReport {
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
  private func selfInformation() -> [Double] {
    let all = itemShows.reduce(0, +)
    return itemShows.map { n in n > 0 ? -log2(Double(n) / Double(all)) : 0 }
  }

  /// For sorted pick days of one (strategy, user, item): the number of picks per day that repeat
  /// a pick of an earlier day within the window.
  private func repeats(_ days: [Int32]) -> [(Int32, Int)] {
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

// MARK: - Per-diner sums

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
  public func unitTable(strategies: [String], units: [String]? = nil) -> UnitTable {
    let metrics = StatsMetric.allCases.filter { hasGroundTruth || !$0.needsGroundTruth }
    var columns: [StatsMetric: Int] = [:]
    for (m, metric) in metrics.enumerated() { columns[metric] = m }

    var armOfSlot = Array(repeating: -1, count: strategyNames.count)
    for (a, label) in strategies.enumerated() {
      precondition(
        !strategies[..<a].contains { $0.utf8.elementsEqual(label.utf8) },
        "strategy '\(label)' is listed twice")
      if let slot = strategyIndex[label] { armOfSlot[Int(slot)] = a }
    }

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

    var arms = strategies.map { ArmUnits(arm: $0, units: ids.count, metrics: metrics.count) }
    func cell(_ strategy: Int32, _ user: Int32) -> (arm: Int, unit: Int)? {
      let a = armOfSlot[Int(strategy)]
      let u = unitOfUser[Int(user)]
      return a >= 0 && u >= 0 ? (a, u) : nil
    }

    // Counts of the sessions.
    let decks = columns[.decks]!
    let cardsShown = columns[.cardsShown]!
    let rightSwipes = columns[.rightSwipes]!
    let leftSwipes = columns[.leftSwipes]!
    let likeRate = columns[.likeRate]!
    let pickRate = columns[.pickRate]!
    let swipesToPick = columns[.meanSwipesToPick]!
    let abandonRate = columns[.abandonRate]!
    let finishedRate = columns[.finishedWithoutPickRate]!
    let diversity = columns[.intraDeckDiversity]!
    let novelty = columns[.novelty]!
    let repeatRate = columns[.repeatPickRate]!
    for session in sessions {
      guard let (a, u) = cell(session.key.strategy, session.key.user) else { continue }
      let right = Double(session.right)
      let cards = Double(session.right + session.left)
      arms[a].add(unit: u, metric: decks, numerator: 1)
      arms[a].add(unit: u, metric: cardsShown, numerator: cards)
      arms[a].add(unit: u, metric: rightSwipes, numerator: right)
      arms[a].add(unit: u, metric: leftSwipes, numerator: Double(session.left))
      arms[a].add(unit: u, metric: likeRate, numerator: right, denominator: cards)
      arms[a].add(
        unit: u, metric: diversity, numerator: Double(session.categoryCount), denominator: 1)
      arms[a].add(unit: u, metric: novelty, numerator: 0, denominator: cards)
      arms[a].add(unit: u, metric: repeatRate, numerator: 0, denominator: right)
      var picked = 0.0
      var abandoned = 0.0
      var finished = 0.0
      switch session.end(deckSize: options.deckSize) {
      case .pick(let place):
        picked = 1
        arms[a].add(unit: u, metric: swipesToPick, numerator: Double(place), denominator: 1)
      case .abandoned: abandoned = 1
      case .finishedWithoutPick: finished = 1
      }
      arms[a].add(unit: u, metric: pickRate, numerator: picked, denominator: 1)
      arms[a].add(unit: u, metric: abandonRate, numerator: abandoned, denominator: 1)
      arms[a].add(unit: u, metric: finishedRate, numerator: finished, denominator: 1)
    }

    // Repeat picks.
    for (key, days) in pickDays {
      guard let (a, u) = cell(key.strategy, key.user) else { continue }
      let repeated = repeats(days.sorted()).reduce(0) { $0 + $1.1 }
      arms[a].add(unit: u, metric: repeatRate, numerator: Double(repeated))
    }

    // The items shown: coverage lists and novelty bits, per (strategy, user) in item order.
    let information = selfInformation()
    let shows = unitShows.sortedEntries()
    var n = 0
    while n < shows.count {
      let slot = shows[n].unit
      var end = n + 1
      while end < shows.count && shows[end].unit == slot { end += 1 }
      let pair = UnitKey(packed: unitKeys[Int(slot)])
      if let (a, u) = cell(pair.strategy, pair.user) {
        var items: [Int32] = []
        items.reserveCapacity(end - n)
        var bits = 0.0
        for entry in shows[n..<end] {
          items.append(entry.item)
          bits += Double(entry.shows) * information[Int(entry.item)]
        }
        arms[a].items[u] = items
        arms[a].add(unit: u, metric: novelty, numerator: bits)
      }
      n = end
    }

    // Ground truth: each diner's values summed in ascending order.
    if !truth.isEmpty {
      let parts: [(StatsMetric, KeyPath<TruthRecord, Double?>)] = [
        (.meanPickUtility, \.pickUtility), (.meanRegret, \.regret), (.ndcgAtK, \.ndcg),
      ]
      for (metric, path) in parts {
        var values: [(arm: Int, unit: Int, value: Double)] = []
        for record in truth {
          guard let value = record[keyPath: path],
            let (a, u) = cell(record.strategy, record.user)
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
    return UnitTable(
      metrics: metrics.map { $0.metricSpec(catalogItems: catalog.count) }, units: ids, arms: arms)
  }
}

// MARK: - State

private struct SessionKey: Hashable, Sendable {
  var strategy: Int32
  var user: Int32
  var day: Int32
}

private struct GroupKey: Hashable {
  var strategy: Int32
  var day: Int32
}

/// A (strategy, user) pair: a diner under one strategy.
private struct UnitKey: Hashable {
  var strategy: Int32
  var user: Int32

  init(strategy: Int32, user: Int32) {
    self.strategy = strategy
    self.user = user
  }

  init(packed: UInt64) {
    strategy = Int32(bitPattern: UInt32(truncatingIfNeeded: packed >> 32))
    user = Int32(bitPattern: UInt32(truncatingIfNeeded: packed))
  }

  var packed: UInt64 {
    UInt64(UInt32(bitPattern: strategy)) << 32 | UInt64(UInt32(bitPattern: user))
  }
}

private struct PickKey: Hashable {
  var strategy: Int32
  var user: Int32
  var item: Int32
}

/// One session's running state.
private struct Session {
  var key: SessionKey
  /// The index of the session's (strategy, user) pair.
  var unit: Int32
  var right: Int32 = 0
  var left: Int32 = 0
  /// Whether some swipe had no position.
  var unpositioned = false
  /// The smallest position of a right swipe (Int32.max: none).
  var firstRightPosition = Int32.max
  /// The earliest `at` of a right swipe (Int64.max: none).
  var firstRightAt = Int64.max
  /// `at` of every swipe (for the place of the pick when positions are missing).
  var times: [Int64] = []
  /// Distinct categories of the cards shown: indices below 64 as bits, the others listed.
  var categoryBits: UInt64 = 0
  var moreCategories: [Int32] = []

  init(key: SessionKey, unit: Int32) {
    self.key = key
    self.unit = unit
  }

  mutating func add(swipe: SwipeDirection, at: Int64, position: Int32, category: Int32) {
    if swipe == .right {
      right += 1
      firstRightAt = min(firstRightAt, at)
      if position > 0 { firstRightPosition = min(firstRightPosition, position) }
    } else {
      left += 1
    }
    if position <= 0 { unpositioned = true }
    times.append(at)
    if category < 64 {
      categoryBits |= 1 << UInt64(category)
    } else if !moreCategories.contains(category) {
      moreCategories.append(category)
    }
  }

  /// The number of distinct categories shown.
  var categoryCount: Int { categoryBits.nonzeroBitCount + moreCategories.count }

  /// The 1-based place of the first right swipe, or nil without one.
  var swipesToPick: Int? {
    guard right > 0 else { return nil }
    if !unpositioned { return Int(firstRightPosition) }
    return 1 + times.reduce(0) { $0 + ($1 < firstRightAt ? 1 : 0) }
  }

  /// How the session ended, for decks of `deckSize` cards.
  func end(deckSize: Int) -> SessionEnd {
    if let place = swipesToPick { return .pick(place: place) }
    return Int(right + left) < deckSize ? .abandoned : .finishedWithoutPick
  }
}

/// How a session ended: with a pick at a 1-based place, or without one before the deck's last card
/// (abandoned) or at it.
private enum SessionEnd {
  case pick(place: Int)
  case abandoned
  case finishedWithoutPick
}

/// Counts of one (strategy, day), or of one strategy over all days.
private struct Tally {
  var decks = 0
  var right = 0
  var left = 0
  var pickSessions = 0
  var swipesToPick = 0
  var abandoned = 0
  var finishedWithoutPick = 0
  var categories = 0
  var repeatPicks = 0
  var truth = TruthValues()

  mutating func add(_ s: Session, deckSize: Int) {
    decks += 1
    right += Int(s.right)
    left += Int(s.left)
    categories += s.categoryCount
    switch s.end(deckSize: deckSize) {
    case .pick(let place):
      pickSessions += 1
      swipesToPick += place
    case .abandoned: abandoned += 1
    case .finishedWithoutPick: finishedWithoutPick += 1
    }
  }

  mutating func merge(_ o: Tally) {
    decks += o.decks
    right += o.right
    left += o.left
    pickSessions += o.pickSessions
    swipesToPick += o.swipesToPick
    abandoned += o.abandoned
    finishedWithoutPick += o.finishedWithoutPick
    categories += o.categories
    repeatPicks += o.repeatPicks
    truth.pickUtilities += o.truth.pickUtilities
    truth.regrets += o.truth.regrets
    truth.ndcgs += o.truth.ndcgs
  }
}

/// The ground-truth values of one simulated session (40 bytes).
private struct TruthRecord {
  var strategy: Int32
  var user: Int32
  var day: Int32
  /// Bit 0, 1, 2: whether the pick utility, the regret, the NDCG is defined.
  private var defined: UInt8
  private var values: (pickUtility: Double, regret: Double, ndcg: Double)

  init(_ g: GroundTruthSession, strategy: Int32, user: Int32, k: Int) {
    self.strategy = strategy
    self.user = user
    day = g.day.daysSinceEpoch
    let pickUtility = g.pickUtility
    let regret = g.regret
    let ndcg = g.ndcg(k: k)
    defined =
      (pickUtility == nil ? 0 : 1) | (regret == nil ? 0 : 2) | (ndcg == nil ? 0 : 4)
    values = (pickUtility ?? 0, regret ?? 0, ndcg ?? 0)
  }

  var pickUtility: Double? { defined & 1 != 0 ? values.pickUtility : nil }
  var regret: Double? { defined & 2 != 0 ? values.regret : nil }
  var ndcg: Double? { defined & 4 != 0 ? values.ndcg : nil }
}

/// The ground-truth values of a group's sessions, each defined one kept (summed in sorted order
/// when the report is made).
private struct TruthValues {
  var pickUtilities: [Double] = []
  var regrets: [Double] = []
  var ndcgs: [Double] = []

  mutating func add(_ r: TruthRecord) {
    if let u = r.pickUtility { pickUtilities.append(u) }
    if let r = r.regret { regrets.append(r) }
    if let n = r.ndcg { ndcgs.append(n) }
  }
}
