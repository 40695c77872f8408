/// The aggregates of swipe logs, independent of any catalog: what `menudeck ingest` stores so
/// that a nightly job adds one day's log instead of re-reading every log, and what `merge`
/// combines across shards.
///
/// Everything in it is a sum or a maximum keyed by ids, and it is kept in one canonical order
/// (items and users by id bytes, records by item, sources by hash), so merging is associative and
/// commutative down to the byte, and a snapshot turns into exactly the `History` that reading the
/// same logs directly gives (events dated on or after the deck date excepted: a snapshot must end
/// before the deck date; see `history(for:before:)`).
public struct HistorySnapshot: Sendable, Equatable {
  /// One ingested log file. Its SHA-256 identifies it: ingesting it again changes nothing.
  public struct Source: Sendable, Hashable {
    public var sha256: String
    /// The path it was read from (informative only).
    public var path: String
    public var bytes: Int64
    public var lines: Int64
    public var events: Int64

    public init(sha256: String, path: String, bytes: Int64, lines: Int64, events: Int64) {
      self.sha256 = sha256
      self.path = path
      self.bytes = bytes
      self.lines = lines
      self.events = events
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

  public init(
    sources: [Source] = [], items: [Item] = [], users: [User] = [], firstDay: Int32? = nil,
    lastDay: Int32? = nil, hesitations: Int64 = 0, timeZone: String? = nil,
    dragRule: String? = nil
  ) {
    self.sources = sources
    self.items = items
    self.users = users
    self.firstDay = firstDay
    self.lastDay = lastDay
    self.hesitations = hesitations
    self.timeZone = timeZone
    self.dragRule = dragRule
  }

  public static let empty = HistorySnapshot()

  /// Swipes in the snapshot (`Int64.max` should they not fit: a decoded or merged snapshot
  /// always fits, see `totalSwipes()`).
  public var events: Int64 { (try? totalSwipes()) ?? .max }

  /// Swipes in the snapshot, or an error when they do not add up in 64 bits.
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
