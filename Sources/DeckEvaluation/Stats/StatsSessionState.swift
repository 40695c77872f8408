import DeckCore

// The per-session and per-diner state of a StatsAccumulator.

struct SessionKey: Hashable, Sendable {
  var strategy: Int32
  var user: Int32
  var day: Int32
}

struct GroupKey: Hashable {
  var strategy: Int32
  var day: Int32
}

/// A (strategy, user) pair: a diner under one strategy.
struct UnitKey: Hashable {
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

struct PickKey: Hashable {
  var strategy: Int32
  var user: Int32
  var item: Int32
}

/// One session's running state.
struct Session {
  var key: SessionKey
  /// The index of the session's (strategy, user) pair.
  var unit: Int32
  var right: Int32 = 0
  var left: Int32 = 0
  /// The right and left swipes of dishes new on the deck date (`StatsOptions.newDishDays`).
  var newRight: Int32 = 0
  var newLeft: Int32 = 0
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

  mutating func add(
    swipe: SwipeDirection, at: Int64, position: Int32, category: Int32, newDish: Bool = false
  ) {
    if newDish {
      if swipe == .right { newRight += 1 } else { newLeft += 1 }
    }
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

  /// How the session ended, for decks of `deckSize` cards: DeckCore's ``SessionEnd``, the one
  /// definition shared with the simulator's and `play`'s ``DeckState``.
  func end(deckSize: Int) -> SessionEnd {
    SessionEnd(swiped: Int(right + left), deckSize: deckSize, firstRightPlace: swipesToPick)
  }

  /// Whether `sums` knows `metric`: the metrics made of each session alone.
  static func hasSums(_ metric: StatsMetric) -> Bool {
    switch metric {
    case .decks, .cardsShown, .rightSwipes, .leftSwipes, .likeRate, .pickRate, .meanSwipesToPick,
      .abandonRate, .finishedWithoutPickRate, .intraDeckDiversity, .newDishLikeRate:
      true
    default: false
    }
  }

  /// The session's numerator and denominator of `metric` (a count's denominator is 0; a session
  /// without a pick adds nothing to `mean_swipes_to_pick`), given how it ended; nil for a metric
  /// not made of each session alone (`hasSums`).
  func sums(_ metric: StatsMetric, end: SessionEnd) -> (numerator: Double, denominator: Double)? {
    let cards = Double(right + left)
    switch metric {
    case .decks: return (1, 0)
    case .cardsShown: return (cards, 0)
    case .rightSwipes: return (Double(right), 0)
    case .leftSwipes: return (Double(left), 0)
    case .likeRate: return (Double(right), cards)
    case .newDishLikeRate: return (Double(newRight), Double(newRight + newLeft))
    case .intraDeckDiversity: return (Double(categoryCount), 1)
    case .pickRate, .meanSwipesToPick, .abandonRate, .finishedWithoutPickRate:
      switch (metric, end) {
      case (.pickRate, .picked), (.abandonRate, .abandoned),
        (.finishedWithoutPickRate, .finishedWithoutPick):
        return (1, 1)
      case (.meanSwipesToPick, .picked(let place)): return (Double(place), 1)
      case (.meanSwipesToPick, _): return (0, 0)
      default: return (0, 1)
      }
    default: return nil
    }
  }
}

/// Counts of one (strategy, day), or of one strategy over all days.
struct Tally {
  var decks = 0
  var right = 0
  var left = 0
  var newRight = 0
  var newLeft = 0
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
    newRight += Int(s.newRight)
    newLeft += Int(s.newLeft)
    categories += s.categoryCount
    switch s.end(deckSize: deckSize) {
    case .picked(let place):
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
    newRight += o.newRight
    newLeft += o.newLeft
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
struct TruthRecord {
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
struct TruthValues {
  var pickUtilities: [Double] = []
  var regrets: [Double] = []
  var ndcgs: [Double] = []

  mutating func add(_ r: TruthRecord) {
    if let u = r.pickUtility { pickUtilities.append(u) }
    if let r = r.regret { regrets.append(r) }
    if let n = r.ndcg { ndcgs.append(n) }
  }
}
