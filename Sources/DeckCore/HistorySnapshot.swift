/// The aggregates of swipe logs, independent of any catalog: what `menudeck ingest` stores so
/// that a nightly job adds one day's log instead of re-reading every log, and what `merge`
/// combines across shards.
///
/// Everything in it is a sum or a maximum keyed by ids, and it is kept in one canonical order
/// (items and users by id bytes, records by item, sources by hash), so merging is associative and
/// commutative down to the byte, and a snapshot turns into exactly the `History` that reading the
/// same logs directly gives for any deck date after its aggregates' last day (see
/// `history(for:before:)`).
///
/// It keeps every swipe of the logs it records: those dated before the limit of the ingest that
/// read them are in the aggregates (items, users, days); the others are `pending`, kept one by
/// one as they were read until a later ingest, whose limit passes them, adds them up (`counting(
/// before:)`). A deck run applies the pending swipes dated before its deck date as if they were
/// added up, so a swipe stamped after midnight, or a day ingested before it ended, is never lost.
public struct HistorySnapshot: Sendable, Equatable {
  /// One ingested log file. Its SHA-256 identifies it: ingesting it again changes nothing.
  public struct Source: Sendable, Hashable {
    public var sha256: String
    /// The path it was read from (informative only).
    public var path: String
    public var bytes: Int64
    public var lines: Int64
    public var events: Int64
    /// The days of its first and last swipe (counted or pending), nil when it has none or when
    /// it was ingested by a menudeck that did not record them (snapshot format 1).
    public var firstDay: Int32?
    public var lastDay: Int32?

    public init(
      sha256: String, path: String, bytes: Int64, lines: Int64, events: Int64,
      firstDay: Int32? = nil, lastDay: Int32? = nil
    ) {
      self.sha256 = sha256
      self.path = path
      self.bytes = bytes
      self.lines = lines
      self.events = events
      self.firstDay = firstDay
      self.lastDay = lastDay
    }

    /// The file name of its path (what follows the last "/"), as a delivery names a day's log.
    public var fileName: String {
      path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
    }
  }

  /// A swipe of a log that the snapshot keeps as it was read, not added up yet: it was dated on
  /// or after the limit (`ingest --before`) of the run that read it. It holds what adding it up
  /// takes: the diner, the dish, the direction, the day (in the snapshot's time zone) and the
  /// position. Ordered by day, then diner and dish id bytes, direction (left first) and position,
  /// which is the canonical order of `pending`.
  public struct PendingSwipe: Sendable, Hashable, Comparable {
    public var day: Int32
    public var user: String
    public var item: String
    public var swipe: SwipeDirection
    /// 1-based, or 0 when the log gave none.
    public var position: Int32

    public init(day: Int32, user: String, item: String, swipe: SwipeDirection, position: Int32) {
      self.day = day
      self.user = user
      self.item = item
      self.swipe = swipe
      self.position = position
    }

    /// The canonical order: ids by their bytes (two spellings of one character are two ids).
    public static func < (a: PendingSwipe, b: PendingSwipe) -> Bool {
      if a.day != b.day { return a.day < b.day }
      if !IDKey.same(a.user, b.user) { return IDKey.precedes(a.user, b.user) }
      if !IDKey.same(a.item, b.item) { return IDKey.precedes(a.item, b.item) }
      if a.swipe != b.swipe { return a.swipe == .left }
      return a.position < b.position
    }

    /// Byte equality of the ids, as the order tells them apart.
    public static func == (a: PendingSwipe, b: PendingSwipe) -> Bool {
      a.day == b.day && IDKey.same(a.user, b.user) && IDKey.same(a.item, b.item)
        && a.swipe == b.swipe && a.position == b.position
    }

    public func hash(into hasher: inout Hasher) {
      hasher.combine(day)
      hasher.combine(IDKey(user))
      hasher.combine(IDKey(item))
      hasher.combine(swipe)
      hasher.combine(position)
    }
  }

  /// Swipes at one 1-based position.
  public struct PositionCount: Sendable, Hashable {
    public var position: Int32
    public var shown: Int64
    public var right: Int64

    public init(position: Int32, shown: Int64, right: Int64) {
      self.position = position
      self.shown = shown
      self.right = right
    }
  }

  /// Totals of one item over all diners.
  public struct Item: Sendable, Hashable {
    public var id: String
    public var right: Int64
    public var left: Int64
    /// Ascending by position; positions above `History.maxTrackedPosition` are not kept.
    public var positions: [PositionCount]

    public init(id: String, right: Int64, left: Int64, positions: [PositionCount]) {
      self.id = id
      self.right = right
      self.left = left
      self.positions = positions
    }
  }

  /// What one diner did with one item: the history's own record; `item` indexes `items`.
  public typealias Record = UserItemRecord

  public struct User: Sendable, Hashable {
    public var id: String
    /// Ascending by item index.
    public var records: [Record]

    public init(id: String, records: [Record]) {
      self.id = id
      self.records = records
    }
  }

  /// Ingested files, ascending by hash.
  public var sources: [Source]
  /// Ascending by id bytes.
  public var items: [Item]
  /// Ascending by id bytes.
  public var users: [User]
  /// Days (`DeckDate.daysSinceEpoch`) of the first and last swipe, nil when empty.
  public var firstDay: Int32?
  public var lastDay: Int32?
  /// Drags that did not commit.
  public var hesitations: Int64
  /// The time zone the logs' timestamps were read in (it decides each swipe's day), as the
  /// config names it; nil for an empty snapshot.
  public var timeZone: String?
  /// The drag rule raw drags were decided by ("relative" or "absolute"); nil when empty.
  public var dragRule: String?
  /// The swipes not added up yet, in canonical order (`PendingSwipe`'s), one entry per swipe
  /// (a swipe logged twice is there twice). `firstDay`, `lastDay`, `items` and `users` do not
  /// count them.
  public var pending: [PendingSwipe]

  public init(
    sources: [Source] = [], items: [Item] = [], users: [User] = [], firstDay: Int32? = nil,
    lastDay: Int32? = nil, hesitations: Int64 = 0, timeZone: String? = nil,
    dragRule: String? = nil, pending: [PendingSwipe] = []
  ) {
    self.sources = sources
    self.items = items
    self.users = users
    self.firstDay = firstDay
    self.lastDay = lastDay
    self.hesitations = hesitations
    self.timeZone = timeZone
    self.dragRule = dragRule
    self.pending = pending
  }

  public static let empty = HistorySnapshot()

  /// Swipes in the snapshot, added up and pending (`Int64.max` should they not fit: a decoded
  /// or merged snapshot always fits, see `totalSwipes()`).
  public var events: Int64 {
    guard let counted = try? totalSwipes() else { return .max }
    let (sum, overflow) = counted.addingReportingOverflow(Int64(pending.count))
    return overflow ? .max : sum
  }

  /// Swipes added up in the aggregates (pending swipes not included), or an error when they do
  /// not add up in 64 bits.
  public func totalSwipes() throws(DeckCoreError) -> Int64 {
    var total: Int64 = 0
    for item in items {
      total = try checkedSum(total, item.right, item.left) {
        "the swipes add up to more than \(Int64.max) (at item '\(item.id)')"
      }
    }
    return total
  }

  /// Whether the log with this content hash is already in the snapshot.
  public func contains(sha256: String) -> Bool {
    sources.contains { $0.sha256 == sha256 }
  }
}

/// `a + b + c`, or an `invalidSnapshot` error saying `what` when it does not fit in 64 bits.
func checkedSum(
  _ a: Int64, _ b: Int64, _ c: Int64 = 0, _ what: () -> String
) throws(DeckCoreError) -> Int64 {
  let (ab, o1) = a.addingReportingOverflow(b)
  let (abc, o2) = ab.addingReportingOverflow(c)
  guard !o1, !o2 else {
    throw .invalidSnapshot(
      what() + "; the snapshots are corrupt or hold too much: merge or ingest fewer of them")
  }
  return abc
}
