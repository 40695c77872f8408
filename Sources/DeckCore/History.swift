/// What one diner did with one dish: swipe counts and the last day of each direction
/// (`DeckDate.daysSinceEpoch`), nil for a direction never swiped.
public struct UserItemRecord: Sendable, Hashable {
  public var item: Int32
  public var right: Int32
  public var left: Int32
  /// The last right-swipe day, `History.never` for none: the packed form of the table engine;
  /// everything outside DeckCore reads `lastRightDay`.
  package var lastRight: Int32
  /// The last left-swipe day, `History.never` for none (see `lastRight`).
  package var lastLeft: Int32

  package init(item: Int32, right: Int32, left: Int32, lastRight: Int32, lastLeft: Int32) {
    self.item = item
    self.right = right
    self.left = left
    self.lastRight = lastRight
    self.lastLeft = lastLeft
  }

  /// A record with its last days as optional days (nil: never swiped that way).
  public init(item: Int32, right: Int32, left: Int32, lastRightDay: Int32?, lastLeftDay: Int32?) {
    self.init(
      item: item, right: right, left: left, lastRight: lastRightDay ?? History.never,
      lastLeft: lastLeftDay ?? History.never)
  }

  public var shown: Int32 { right &+ left }

  /// The last day the diner swiped the dish right (picked it), nil when never.
  @inline(__always)
  public var lastRightDay: Int32? { lastRight == History.never ? nil : lastRight }

  /// The last day the diner swiped the dish left, nil when never.
  @inline(__always)
  public var lastLeftDay: Int32? { lastLeft == History.never ? nil : lastLeft }

  /// The last day the dish was shown (swiped either way), nil when never.
  @inline(__always)
  public var lastShownDay: Int32? {
    let day = max(lastRight, lastLeft)
    return day == History.never ? nil : day
  }

  /// `lastShownDay` in the packed form (`History.never` for none).
  package var lastShown: Int32 { max(lastRight, lastLeft) }
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

/// The diners of a history, each under the UTF-8 bytes of its id (see `IDKey`): two ids that
/// differ in their bytes are two diners, even when Swift's `String` equality calls them equal
/// (precomposed and decomposed "café").
///
/// The ids are DeckCore's byte-string table (`ByteIndex`), a diner's history at its id's index:
/// a history built from a log takes the table its builder interned the ids in, so that 100,000
/// diners are hashed once per run, not again into a dictionary of strings.
public struct UserHistories: Sendable, Equatable {
  /// The ids; diner `k`'s history is `histories[k]`.
  private let index: ByteIndex
  private let histories: [UserHistory]

  /// No diner.
  package init() {
    index = ByteIndex()
    histories = []
  }

  /// `histories`, the diner of id index `k` at `k` (`index` holds their ids in that order).
  package init(index: ByteIndex, histories: [UserHistory]) {
    precondition(index.count == histories.count, "an id for every diner")
    self.index = index
    self.histories = histories
  }

  /// `histories` under their ids; nil when two have the same id (its bytes).
  package init?(unique histories: [UserHistory]) {
    var index = ByteIndex(
      capacity: histories.count, bytes: histories.reduce(0) { $0 + $1.id.utf8.count })
    for h in histories where !index.insert(h.id).inserted { return nil }
    self.init(index: index, histories: histories)
  }

  /// The history of the diner whose id has exactly these bytes, nil when there is none.
  public subscript(id: String) -> UserHistory? { index.find(id).map { histories[Int($0)] } }

  /// Number of diners.
  public var count: Int { histories.count }

  public var isEmpty: Bool { histories.isEmpty }

  /// Every diner's history, in no particular order (`History.userIDs` is the byte order).
  public var values: some Collection<UserHistory> { histories }

  /// The diners' ids in byte order (`IDKey`'s).
  package var sortedIDs: [String] { index.indicesInKeyOrder().map { histories[Int($0)].id } }

  /// The same diners with the same histories, whatever their order.
  public static func == (a: UserHistories, b: UserHistories) -> Bool {
    a.count == b.count && a.histories.allSatisfy { b[$0.id] == $0 }
  }
}

/// Aggregated swipe history: everything strategies and deck rules need, independent of the order
/// in which events arrived (all aggregates are integer counts and maxima).
public struct History: Sendable {
  /// "No day" in the packed day fields (`UserItemRecord.lastRight`, the builder's tables); the
  /// API outside DeckCore says nil instead (`UserItemRecord.lastRightDay`).
  @usableFromInline package static let never: Int32 = .min
  /// Per-position counts are kept for positions 1...maxTrackedPosition; swipes at later
  /// positions count everywhere else.
  public static let maxTrackedPosition: Int32 = 1000

  /// Right swipes per catalog item.
  public let itemRight: [Int32]
  /// Left swipes per catalog item.
  public let itemLeft: [Int32]
  /// Per diner, keyed by the bytes of the user id.
  public let users: UserHistories
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
    users = UserHistories()
    positionShown = []
    positionRight = []
    right = 0
    left = 0
  }

  init(
    itemRight: [Int32], itemLeft: [Int32], users: UserHistories, positionShown: [Int32],
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
  public var userIDs: [String] { users.sortedIDs }
}

extension History {
  /// The history of the swipes of all `parts` together, when no diner is in two of them (the
  /// parts of a log split by the bytes of diner ids): item and position counts added, diners side
  /// by side. nil when a diner id (its bytes) is in two parts or a count passes `Int32.max`, so
  /// that the caller reads the log the one way instead.
  public static func combining(_ parts: [History]) -> History? {
    guard let first = parts.first else { return nil }
    guard parts.count > 1 else { return first }
    var itemRight = first.itemRight
    var itemLeft = first.itemLeft
    var positionShown = first.positionShown
    var positionRight = first.positionRight
    var users = Array(first.users.values)
    var right = first.right
    var left = first.left
    func add(_ a: inout [Int32], _ b: [Int32]) -> Bool {
      if a.count < b.count { a += repeatElement(0, count: b.count - a.count) }
      for (i, x) in b.enumerated() {
        let (sum, overflow) = a[i].addingReportingOverflow(x)
        if overflow { return false }
        a[i] = sum
      }
      return true
    }
    users.reserveCapacity(parts.reduce(0) { $0 + $1.users.count })
    for part in parts.dropFirst() {
      guard part.itemCount == first.itemCount, add(&itemRight, part.itemRight),
        add(&itemLeft, part.itemLeft), add(&positionShown, part.positionShown),
        add(&positionRight, part.positionRight)
      else { return nil }
      users += part.users.values
      right += part.right
      left += part.left
    }
    // A diner in two parts makes the ids clash.
    guard let users = UserHistories(unique: users) else { return nil }
    return History(
      itemRight: itemRight, itemLeft: itemLeft, users: users,
      positionShown: positionShown, positionRight: positionRight, right: right, left: left)
  }
}
