/// What one diner did with one dish. Days are `DeckDate.daysSinceEpoch`; `History.never` when
/// it never happened.
public struct UserItemRecord: Sendable, Hashable {
  public var item: Int32
  public var right: Int32
  public var left: Int32
  public var lastRight: Int32
  public var lastLeft: Int32

  public init(item: Int32, right: Int32, left: Int32, lastRight: Int32, lastLeft: Int32) {
    self.item = item
    self.right = right
    self.left = left
    self.lastRight = lastRight
    self.lastLeft = lastLeft
  }

  public var shown: Int32 { right &+ left }
  /// The last day the dish was shown (swiped either way).
  public var lastShown: Int32 { max(lastRight, lastLeft) }
}

/// One diner's history, items sorted by catalog index.
public struct UserHistory: Sendable, Hashable {
  public let id: String
  public let records: UserItemRecords
  public let right: Int32
  public let left: Int32

  public var shown: Int32 { right &+ left }

  /// The record of one item, if the diner ever swiped it (binary search).
  public func record(for item: Int32) -> UserItemRecord? {
    var lo = 0
    var hi = records.count
    while lo < hi {
      let mid = (lo + hi) / 2
      if records[mid].item < item { lo = mid + 1 } else { hi = mid }
    }
    return lo < records.count && records[lo].item == item ? records[lo] : nil
  }
}

/// Aggregated swipe history: everything strategies and deck rules need, independent of the order
/// in which events arrived (all aggregates are integer counts and maxima).
public struct History: Sendable {
  public static let never: Int32 = .min
  /// Per-position counts are kept for positions 1...maxTrackedPosition; swipes at later
  /// positions count everywhere else.
  public static let maxTrackedPosition: Int32 = 1000

  /// Right swipes per catalog item.
  public let itemRight: [Int32]
  /// Left swipes per catalog item.
  public let itemLeft: [Int32]
  /// Per diner, keyed by user id.
  public let users: [String: UserHistory]
  /// Swipes per 1-based position (index 0 = position 1); right swipes likewise.
  public let positionShown: [Int32]
  public let positionRight: [Int32]
  /// Totals of the events that went into the aggregates.
  public let right: Int
  public let left: Int

  public var events: Int { right + left }

  /// An empty history over a catalog of `itemCount` items.
  public init(itemCount: Int) {
    itemRight = Array(repeating: 0, count: itemCount)
    itemLeft = Array(repeating: 0, count: itemCount)
    users = [:]
    positionShown = []
    positionRight = []
    right = 0
    left = 0
  }

  init(
    itemRight: [Int32], itemLeft: [Int32], users: [String: UserHistory], positionShown: [Int32],
    positionRight: [Int32], right: Int, left: Int
  ) {
    self.itemRight = itemRight
    self.itemLeft = itemLeft
    self.users = users
    self.positionShown = positionShown
    self.positionRight = positionRight
    self.right = right
    self.left = left
  }

  public var itemCount: Int { itemRight.count }

  /// Times an item was shown (swiped either way).
  @inline(__always)
  public func shown(_ item: Int32) -> Int32 { itemRight[Int(item)] &+ itemLeft[Int(item)] }

  /// User ids in byte order (stable across runs and platforms).
  public var userIDs: [String] {
    users.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) })
  }
}
