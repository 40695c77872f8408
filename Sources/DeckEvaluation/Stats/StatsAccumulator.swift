import DeckCore
import DeckIO
import Foundation

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
package struct StatsAccumulator: EventSink, Sendable {
  /// The label of events and records that carry no strategy (real logs).
  package static let unlabelled = "(all)"

  package let catalog: Catalog
  package let options: StatsOptions

  /// The strategy label of the events fed through `event(_:)` (the `EventSink` entry point);
  /// nil: `(all)`. Set it before reading a simulation's log of one strategy.
  package var strategy: String? {
    didSet { currentStrategy = strategySlot(strategy) }
  }

  private(set) var items: ByteTable
  private(set) var users = ByteTable(capacity: 1024)
  private(set) var lastUser: Int32 = -1
  private(set) var strategyNames: [String] = []
  private(set) var strategyIndex: [String: Int32] = [:]
  private(set) var currentStrategy: Int32 = 0

  /// Sessions by (unit, day): `UInt64(unit) << 32 | day`.
  private(set) var sessionIndex = PackedIndex()
  private(set) var sessions: [Session] = []
  /// The previous event's session (logs come in sessions: one diner's swipes in a row).
  private(set) var lastSession: Int32 = -1
  /// Dense indices of the (strategy, day) groups that have sessions.
  private(set) var groupIndex: [GroupKey: Int32] = [:]
  private(set) var lastGroup: (key: GroupKey, index: Int32)?
  /// Shows of each catalog item per group: `catalog.count` counts per group, flat.
  private(set) var groupShows: [Int32] = []
  /// Shows of each catalog item over the whole input (the popularity of `novelty`).
  private(set) var itemShows: [Int64]
  /// Per (strategy, user, item): the day of every right swipe.
  private(set) var pickDays: [PickKey: [Int32]] = [:]
  /// Dense indices of the (strategy, user) pairs that have sessions: `UnitKey.packed` to index.
  private(set) var unitIndex = PackedIndex()
  /// The (strategy, user) pair of each index, packed.
  private(set) var unitKeys: [UInt64] = []
  /// Shows per ((strategy, user) index, item).
  private(set) var unitShows = UnitShowCounts()
  /// The ground truth of every simulated session, in arrival order.
  private(set) var truth: [TruthRecord] = []
  /// Whether the input is a simulation (`expectGroundTruth()`), whose ground-truth metrics are
  /// reported even when it has no session at all.
  private(set) var truthExpected = false

  /// Whether the ground-truth metrics are reported: the input is a simulation, or has ground
  /// truth. Their columns then stand whatever the number of sessions (undefined without any), so
  /// that a reader of the output finds the same columns in every run.
  package var hasGroundTruth: Bool { truthExpected || !truth.isEmpty }

  /// Declares the input a simulation: its ground-truth metrics are reported even if no session
  /// comes.
  package mutating func expectGroundTruth() { truthExpected = true }

  package init(catalog: Catalog, options: StatsOptions) {
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
  package mutating func event(_ e: RawEvent) -> EventDisposition {
    guard let item = items.find(e.item) else { return .unknownItem }
    add(
      user: e.user, item: item, swipe: e.swipe, at: e.at, position: e.position,
      day: e.deck?.daysSinceEpoch ?? e.day)
    return .accepted
  }

  /// Adds one swipe whose dish is known (its catalog index) under the current `strategy`, as
  /// `event` does; `day` is the session's day (the deck's, else the swipe's own).
  @inline(__always)
  package mutating func add(
    user id: UnsafeBufferPointer<UInt8>, item: Int32, swipe: SwipeDirection, at: Int64,
    position: Int32, day: Int32
  ) {
    let user: Int32
    if lastUser >= 0 && users.keyEquals(lastUser, id) {
      user = lastUser
    } else {
      user = users.insert(id).index
      lastUser = user
    }
    add(
      strategy: currentStrategy, user: user, item: item, swipe: swipe, at: at,
      position: position, day: day)
  }

  /// Adds one swipe under `strategy` (nil: `(all)`).
  @discardableResult
  package mutating func add(_ e: SwipeEvent, strategy: String? = nil) -> EventDisposition {
    guard let item = catalog.index(of: e.item) else { return .unknownItem }
    let user = users.insert(e.user).index
    add(
      strategy: strategySlot(strategy), user: user, item: item, swipe: e.swipe, at: e.at,
      position: Int32(clamping: e.position ?? 0), day: (e.deck ?? e.day).daysSinceEpoch)
    return .accepted
  }

  /// Adds the ground truth of one simulated session.
  package mutating func add(_ session: GroundTruthSession) {
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
    } else {
      let unit = unitSlot(strategy: strategy, user: user)
      let (index, inserted) = sessionIndex.insert(Self.sessionSlotKey(unit: unit, day: day))
      s = Int(index)
      if inserted { sessions.append(Session(key: key, unit: unit)) }
    }
    lastSession = Int32(s)
    sessions[s].add(
      swipe: swipe, at: at, position: position, category: catalog.itemCategory[Int(item)],
      newDish: isNew(item, day: day))
    unitShows.increment(unit: sessions[s].unit, item: item)

    let g = groupSlot(GroupKey(strategy: strategy, day: day))
    groupShows[Int(g) * catalog.count + Int(item)] += 1
    itemShows[Int(item)] += 1
    if swipe == .right {
      pickDays[PickKey(strategy: strategy, user: user, item: item), default: []].append(day)
    }
  }

  /// Whether `item` is new on `day` (`StatsOptions.newDishDays`): its catalog `available.from`
  /// is 0 to that many days minus 1 before it.
  @inline(__always)
  private func isNew(_ item: Int32, day: Int32) -> Bool {
    guard let days = options.newDishDays,
      let from = catalog.items[Int(item)].availability.from?.daysSinceEpoch
    else { return false }
    let age = Int(day) - Int(from)
    return age >= 0 && age < days
  }

  private mutating func unitSlot(strategy: Int32, user: Int32) -> Int32 {
    let key = UnitKey(strategy: strategy, user: user).packed
    let (u, inserted) = unitIndex.insert(key)
    if inserted { unitKeys.append(key) }
    return u
  }

  /// The key of a session in `sessionIndex`: its (strategy, user) pair's index and its day.
  @inline(__always)
  private static func sessionSlotKey(unit: Int32, day: Int32) -> UInt64 {
    UInt64(UInt32(bitPattern: unit)) << 32 | UInt64(UInt32(bitPattern: day))
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
  func shows(of key: GroupKey) -> ArraySlice<Int32>? {
    guard let g = groupIndex[key] else { return nil }
    let start = Int(g) * catalog.count
    return groupShows[start..<(start + catalog.count)]
  }

}
