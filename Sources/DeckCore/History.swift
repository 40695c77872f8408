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
  public let records: [UserItemRecord]
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
  public var userIDs: [String] { users.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) }
}

/// Accumulates swipes into a `History`. Feed it in any order; the result is the same.
///
/// Memory grows with distinct (user, item) pairs, never with the number of events.
public struct HistoryBuilder: Sendable {
  public let itemCount: Int
  /// Events on or after this day are not aggregated (counted in `skippedFuture`): a deck for a
  /// date never learns from that date or later.
  public let cutoff: DeckDate?
  public private(set) var skippedFuture = 0

  private var userNames: [String] = []
  private var userSlots: [String: Int32] = [:]
  private var itemRight: [Int32]
  private var itemLeft: [Int32]
  private var userRight: [Int32] = []
  private var userLeft: [Int32] = []
  private var positionShown: [Int32] = []
  private var positionRight: [Int32] = []
  private var pairs = PairTable()
  private var right = 0
  private var left = 0

  public init(itemCount: Int, cutoff: DeckDate? = nil) {
    self.itemCount = itemCount
    self.cutoff = cutoff
    itemRight = Array(repeating: 0, count: itemCount)
    itemLeft = Array(repeating: 0, count: itemCount)
  }

  /// The dense slot of a user id, created on first use. Readers intern once per distinct user.
  public mutating func userSlot(_ id: String) -> Int32 {
    if let s = userSlots[id] { return s }
    let s = Int32(userNames.count)
    userSlots[id] = s
    userNames.append(id)
    userRight.append(0)
    userLeft.append(0)
    return s
  }

  /// Adds one swipe. `item` is a catalog index; `position` is 1-based or 0 when unknown.
  public mutating func add(
    user: Int32, item: Int32, swipe: SwipeDirection, day: Int32, position: Int32 = 0
  ) {
    precondition(item >= 0 && Int(item) < itemCount, "item index out of range")
    if let cutoff, day >= cutoff.daysSinceEpoch {
      skippedFuture += 1
      return
    }
    let isRight = swipe == .right
    if isRight {
      itemRight[Int(item)] &+= 1
      userRight[Int(user)] &+= 1
      right += 1
    } else {
      itemLeft[Int(item)] &+= 1
      userLeft[Int(user)] &+= 1
      left += 1
    }
    if position > 0 && position <= History.maxTrackedPosition {
      let p = Int(position)
      if positionShown.count < p {
        positionShown.append(contentsOf: repeatElement(0, count: p - positionShown.count))
        positionRight.append(contentsOf: repeatElement(0, count: p - positionRight.count))
      }
      positionShown[p - 1] &+= 1
      if isRight { positionRight[p - 1] &+= 1 }
    }
    pairs.add(user: user, item: item, right: isRight, day: day)
  }

  /// Convenience for one decoded event.
  public mutating func add(_ event: SwipeEvent, item: Int32) {
    if let cutoff, event.day >= cutoff {
      skippedFuture += 1
      return
    }
    let slot = userSlot(event.user)
    add(
      user: slot, item: item, swipe: event.swipe, day: event.day.daysSinceEpoch,
      position: Int32(clamping: event.position ?? 0))
  }

  public func build() -> History {
    var perUser = Array(repeating: [UserItemRecord](), count: userNames.count)
    pairs.forEach { user, record in perUser[Int(user)].append(record) }
    var users: [String: UserHistory] = [:]
    users.reserveCapacity(userNames.count)
    for (slot, name) in userNames.enumerated() {
      let records = perUser[slot].sorted { $0.item < $1.item }
      users[name] = UserHistory(
        id: name, records: records, right: userRight[slot], left: userLeft[slot])
    }
    return History(
      itemRight: itemRight, itemLeft: itemLeft, users: users, positionShown: positionShown,
      positionRight: positionRight, right: right, left: left)
  }
}

/// Open-addressing hash table from (user slot, item) to counts. Each slot keeps its key and its
/// counts together (24 bytes), so an update touches one cache line; Fibonacci hashing on the top
/// bits of the product mixes user and item bits, and is independent of Swift's per-process seed.
struct PairTable: Sendable {
  private struct Entry: Sendable {
    var key: UInt64
    var right: Int32
    var left: Int32
    var lastRight: Int32
    var lastLeft: Int32
  }
  private static let empty = Entry(
    key: .max, right: 0, left: 0, lastRight: History.never, lastLeft: History.never)
  private var entries: [Entry] = Array(repeating: PairTable.empty, count: 1024)
  private var shift: UInt64 = 64 - 10
  private(set) var count = 0

  @inline(__always)
  private static func slot(_ key: UInt64, _ shift: UInt64) -> Int {
    Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
  }

  @inline(__always)
  mutating func add(user: Int32, item: Int32, right isRight: Bool, day: Int32) {
    if (count + 1) * 4 > entries.count * 3 { grow() }
    let key = UInt64(UInt32(bitPattern: user)) << 32 | UInt64(UInt32(bitPattern: item))
    let shift = self.shift
    let inserted = entries.withUnsafeMutableBufferPointer { e -> Bool in
      let mask = e.count - 1
      var i = PairTable.slot(key, shift)
      while true {
        let k = e[i].key
        if k == key || k == .max {
          e[i].key = key
          if isRight {
            e[i].right &+= 1
            if day > e[i].lastRight { e[i].lastRight = day }
          } else {
            e[i].left &+= 1
            if day > e[i].lastLeft { e[i].lastLeft = day }
          }
          return k == .max
        }
        i = (i + 1) & mask
      }
    }
    if inserted { count += 1 }
  }

  private mutating func grow() {
    let old = entries
    entries = Array(repeating: PairTable.empty, count: old.count * 2)
    shift -= 1
    let mask = entries.count - 1
    for entry in old where entry.key != .max {
      var i = PairTable.slot(entry.key, shift)
      while entries[i].key != .max { i = (i + 1) & mask }
      entries[i] = entry
    }
  }

  func forEach(_ body: (Int32, UserItemRecord) -> Void) {
    for e in entries where e.key != .max {
      body(
        Int32(bitPattern: UInt32(truncatingIfNeeded: e.key >> 32)),
        UserItemRecord(
          item: Int32(bitPattern: UInt32(truncatingIfNeeded: e.key)), right: e.right, left: e.left,
          lastRight: e.lastRight, lastLeft: e.lastLeft))
    }
  }
}
