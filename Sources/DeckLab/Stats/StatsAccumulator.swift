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
/// and (strategy, user, item) triples with a right swipe, not with the number of events: a session
/// costs about 150 bytes plus 8 bytes per swipe (its `at`, kept for the place of the pick when
/// positions are missing; the cards of one deck in practice), a ground-truth record three numbers.
/// Nothing is flushed per day, so events may come in any order.
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
  /// Per (strategy, day): the ground-truth values of its sessions (three numbers a session).
  private var truth: [GroupKey: TruthValues] = [:]

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
    let key = GroupKey(
      strategy: strategySlot(session.strategy), day: session.day.daysSinceEpoch)
    truth[key, default: TruthValues()].add(session, k: options.ndcgK)
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
      sessions.append(Session(key: key))
    }
    lastSession = Int32(s)
    sessions[s].add(
      swipe: swipe, at: at, position: position, category: catalog.itemCategory[Int(item)])

    let g = groupSlot(GroupKey(strategy: strategy, day: day))
    groupShows[Int(g) * catalog.count + Int(item)] += 1
    itemShows[Int(item)] += 1
    if swipe == .right {
      pickDays[PickKey(strategy: strategy, user: user, item: item), default: []].append(day)
    }
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
      || truth.keys.contains { $0.strategy == unlabelled }
      || options.strategies.contains(StatsAccumulator.unlabelled)
    if !unlabelledUsed && labels.count > 1 { labels.remove(StatsAccumulator.unlabelled) }
    let ordered = labels.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }

    var daySet = Set(sessions.map(\.key.day))
    daySet.formUnion(truth.keys.map(\.day))
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
    for (key, values) in truth { tallies[key, default: Tally()].truth = values }

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
      options: options, catalogItems: catalog.count, hasGroundTruth: !truth.isEmpty, rows: rows)
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
      if let previous, options.repeatWindowDays.map({ Int(day - previous) <= $0 }) ?? true {
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

private struct PickKey: Hashable {
  var strategy: Int32
  var user: Int32
  var item: Int32
}

/// One session's running state.
private struct Session {
  var key: SessionKey
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

  init(key: SessionKey) {
    self.key = key
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
    if let place = s.swipesToPick {
      pickSessions += 1
      swipesToPick += place
    } else if Int(s.right + s.left) < deckSize {
      abandoned += 1
    } else {
      finishedWithoutPick += 1
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

/// The ground-truth values of a group's sessions, each defined one kept (summed in sorted order
/// when the report is made).
private struct TruthValues {
  var pickUtilities: [Double] = []
  var regrets: [Double] = []
  var ndcgs: [Double] = []

  mutating func add(_ g: GroundTruthSession, k: Int) {
    if let u = g.pickUtility { pickUtilities.append(u) }
    if let r = g.regret { regrets.append(r) }
    if let n = g.ndcg(k: k) { ndcgs.append(n) }
  }
}
