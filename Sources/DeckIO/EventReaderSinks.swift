import DeckBase
import DeckCore
import Foundation

/// Feeds events into a `HistoryBuilder`: item ids are looked up in the catalog and user ids
/// interned, both through byte-keyed tables, so a `String` is made once per distinct user and
/// never per event. Events whose item is not in the catalog are refused (`.unknownItem`) and left
/// out of the aggregates; their users are not created either.
///
/// Accepted events are queued and added to the builder in batches (`HistoryBuilder.add(_:)`),
/// whose cache misses overlap; `builder` and `build()` always include the queued events. User ids
/// are resolved per batch too: logs come in sessions (one diner's swipes in a row), an event
/// whose user id is the previous event's joins its session by a byte comparison in cache, and
/// the batch's new sessions look their ids up together, their table reads in flight at once.
///
/// The queue lives in manually managed buffers (no per-append checks of an array); the ingest is
/// still a value: a copy of it gets its own queue before either one changes a shared one.
package struct HistoryIngest: EventSink {
  /// The builder with every accepted event in it.
  package var builder: HistoryBuilder {
    if queue.state.pointee.count == 0 { return aggregated }
    var copy = self
    copy.flush()
    return copy.aggregated
  }
  private var aggregated: HistoryBuilder
  /// Accepted events not yet in `aggregated`, and their sessions.
  private var queue = IngestQueue()
  static let batchSize = 256
  private let items: ItemIndex
  private var users = ByteTable(capacity: 1024)
  /// Builder slots by `users` index, unless `sameSlots`.
  private var userSlots: [Int32] = []
  /// Whether the builder started without users, so that its slots are the `users` indices.
  private var sameSlots: Bool
  /// Where `resolveSessions` leaves the table slots it reads ahead (so the reads are not dropped).
  private var touched: UInt32 = 0

  /// A fresh builder over `catalog`; events on or after `cutoff` are not aggregated. `hugePages`:
  /// whether its memory is advised as huge pages (`HistoryBuilder.hugePages`).
  package init(catalog: Catalog, cutoff: DeckDate? = nil, hugePages: Bool = true) {
    var builder = HistoryBuilder(itemCount: catalog.count, cutoff: cutoff)
    builder.hugePages = hugePages
    self.init(catalog: catalog, builder: builder)
  }

  /// Continues an existing builder (its item indices must be those of `catalog`).
  package init(catalog: Catalog, builder: HistoryBuilder) {
    precondition(builder.itemCount == catalog.count, "the builder is for another catalog")
    aggregated = builder
    sameSlots = builder.userCount == 0
    items = ItemIndex(ids: catalog.items.map(\.id))
  }

  @inline(__always)
  package mutating func event(_ e: RawEvent) -> EventDisposition {
    guard let item = items.find(e.item) else { return .unknownItem }
    add(user: e.user, item: item, swipe: e.swipe, day: e.day, position: e.position)
    return .accepted
  }

  /// Adds one swipe whose item is known (its catalog index), as `event` does.
  @inline(__always)
  mutating func add(
    user: UnsafeBufferPointer<UInt8>, item: Int32, swipe: SwipeDirection, day: Int32,
    position: Int32
  ) {
    if !isKnownUniquelyReferenced(&queue) { queue = queue.copy() }
    let q = queue.state
    if !q.pointee.continuesSession(user) { q.pointee.startSession(user) }
    (q.pointee.swipes + q.pointee.count).initialize(
      to: HistoryBuilder.Swipe(
        user: Int32(truncatingIfNeeded: q.pointee.sessionCount &- 1), item: item, swipe: swipe,
        day: day, position: position))
    q.pointee.count &+= 1
    if q.pointee.count == HistoryIngest.batchSize { flush() }
  }

  /// Adds the queued events to the builder (the reader calls it at the end of a run).
  package mutating func finish() { flush() }

  private mutating func flush() {
    if queue.state.pointee.count == 0 { return }
    if !isKnownUniquelyReferenced(&queue) { queue = queue.copy() }
    let q = queue.state
    resolveSessions(q)
    let swipes = q.pointee.swipes
    let sessions = q.pointee.sessions
    for i in 0..<q.pointee.count { swipes[i].user = sessions[Int(swipes[i].user)].slot }
    aggregated.add(UnsafeBufferPointer(start: swipes, count: q.pointee.count))
    q.pointee.count = 0
    q.pointee.keepLastSession()
  }

  /// Looks up the user ids of the sessions that have no slot yet, interning new ones in order:
  /// their hashes first, then a tight loop that reads each one's home slot (independent loads, in
  /// flight together), then the probes, now mostly in cache.
  private mutating func resolveSessions(_ q: UnsafeMutablePointer<IngestQueue.State>) {
    let sessions = q.pointee.sessions
    let hashes = q.pointee.hashes
    let count = q.pointee.sessionCount
    for k in 0..<count where sessions[k].slot < 0 {
      hashes[k] = ByteTable.hash(q.pointee.userID(k))
    }
    var t: UInt32 = 0
    for k in 0..<count where sessions[k].slot < 0 {
      t |= users.touch(hash: hashes[k])
    }
    touched = t
    for k in 0..<count where sessions[k].slot < 0 {
      sessions[k].slot = intern(q.pointee.userID(k), hash: hashes[k])
    }
  }

  /// The builder slot of a user id, interned on first sight.
  private mutating func intern(_ user: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Int32 {
    let (index, inserted) = users.insert(user, hash: hash)
    if inserted {
      // The builder keys diners by their bytes too (`IDKey`), so a new id here is a new diner
      // there: a fresh builder's slots are this table's indices.
      let slot = aggregated.userSlot(bytes: user)
      precondition(!sameSlots || slot == index, "the builder and the table disagree on an id")
      if !sameSlots { userSlots.append(slot) }
    }
    return sameSlots ? index : userSlots[Int(index)]
  }

  /// The aggregated history.
  ///
  /// - Throws: `DeckCoreError.outOfMemory` when the system refused memory for it.
  package func build() throws(DeckCoreError) -> History { try builder.build() }
}

/// The queue of a `HistoryIngest`: up to a batch of swipes, whose `user` is the index of their
/// session until the flush, and the sessions: where each one's user id ends in `bytes` (the ids
/// back to back) and its builder slot, -1 until the flush looks it up. The last session stays
/// (resolved) across a flush, for the events that continue it.
private final class IngestQueue {
  struct State {
    var swipes: UnsafeMutablePointer<HistoryBuilder.Swipe>
    var count = 0
    var sessions: UnsafeMutablePointer<(end: Int32, slot: Int32)>
    var sessionCount = 0
    /// Hashes of the sessions' ids (scratch space of `resolveSessions`).
    var hashes: UnsafeMutablePointer<UInt64>
    var bytes: UnsafeMutablePointer<UInt8>
    var byteCount = 0
    var byteCapacity: Int

    /// The user id of session `k`.
    @inline(__always)
    func userID(_ k: Int) -> UnsafeBufferPointer<UInt8> {
      let start = k > 0 ? Int(sessions[k &- 1].end) : 0
      return UnsafeBufferPointer(start: bytes + start, count: Int(sessions[k].end) &- start)
    }

    /// Whether `user` is the user id of the last session.
    @inline(__always)
    func continuesSession(_ user: UnsafeBufferPointer<UInt8>) -> Bool {
      guard sessionCount > 0 else { return false }
      let last = userID(sessionCount &- 1)
      guard last.count == user.count else { return false }
      return last.count == 0 || memEqual(last.baseAddress!, user.baseAddress!, last.count)
    }

    /// Opens a session for `user` (looked up at the next flush).
    @inline(never)
    mutating func startSession(_ user: UnsafeBufferPointer<UInt8>) {
      precondition(byteCount + user.count <= Int(Int32.max), "user ids too long")
      if byteCount + user.count > byteCapacity {
        let capacity = max(byteCapacity * 2, byteCount + user.count)
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        bigger.initialize(from: bytes, count: byteCount)
        bytes.deallocate()
        bytes = bigger
        byteCapacity = capacity
      }
      if let base = user.baseAddress {
        (bytes + byteCount).initialize(from: base, count: user.count)
      }
      byteCount += user.count
      sessions[sessionCount] = (Int32(byteCount), -1)
      sessionCount += 1
    }

    /// Keeps only the last session (after a flush), its id moved to the front.
    mutating func keepLastSession() {
      let last = sessions[sessionCount - 1]
      let id = userID(sessionCount - 1)
      if id.count > 0 { bytes.update(from: id.baseAddress!, count: id.count) }
      byteCount = id.count
      sessions[0] = (Int32(id.count), last.slot)
      sessionCount = 1
    }
  }

  let state: UnsafeMutablePointer<State>

  init(byteCapacity: Int = 64 * HistoryIngest.batchSize) {
    // At most one session per swipe, and the one carried over.
    let sessionCapacity = HistoryIngest.batchSize + 1
    state = .allocate(capacity: 1)
    state.initialize(
      to: State(
        swipes: .allocate(capacity: HistoryIngest.batchSize),
        sessions: .allocate(capacity: sessionCapacity),
        hashes: .allocate(capacity: sessionCapacity),
        bytes: .allocate(capacity: byteCapacity), byteCapacity: byteCapacity))
  }

  deinit {
    state.pointee.swipes.deallocate()
    state.pointee.sessions.deallocate()
    state.pointee.hashes.deallocate()
    state.pointee.bytes.deallocate()
    state.deinitialize(count: 1)
    state.deallocate()
  }

  /// An independent copy.
  func copy() -> IngestQueue {
    let s = state.pointee
    let c = IngestQueue(byteCapacity: max(s.byteCapacity, 1))
    c.state.pointee.swipes.initialize(from: s.swipes, count: s.count)
    c.state.pointee.count = s.count
    c.state.pointee.sessions.initialize(from: s.sessions, count: s.sessionCount)
    c.state.pointee.sessionCount = s.sessionCount
    c.state.pointee.bytes.initialize(from: s.bytes, count: s.byteCount)
    c.state.pointee.byteCount = s.byteCount
    return c
  }
}

/// Collects events as `SwipeEvent` values (tests and small tools; allocates per event).
package struct SwipeEventCollector: SwipeEventSink {
  package var events: [SwipeEvent] = []
  /// When set, events for other items (by their bytes, `IDKey`) are refused as unknown and not
  /// collected.
  package let knownItems: Set<IDKey>?

  package init(knownItems: Set<IDKey>? = nil) {
    self.knownItems = knownItems
  }

  package mutating func event(_ event: SwipeEvent) -> EventDisposition {
    if let knownItems, !knownItems.contains(IDKey(event.item)) { return .unknownItem }
    events.append(event)
    return .accepted
  }
}

/// Writes skipped lines to a rejects file, in JSON Lines, one object per line:
///
///     {"file":"swipes.jsonl","line":12,"column":31,"field":"swipe","reason":"...","text":"..."}
///
/// or in CSV, one row per line after the header `file,line,column,field,reason,text,base64`.
///
/// `text` is the rejected line (a whole CSV record, line breaks inside quotes included) exactly as
/// read, without its final line break. A line that is not valid UTF-8 cannot be a JSON string
/// or CSV text without loss, so it gets `base64` with its exact bytes instead of `text` (in CSV,
/// the other of the two is empty). `column` and `field` are `null` (CSV: empty) when unknown.
///
/// The rejects go to a `ByteOutput` (a run's pending file, replaced with its other outputs, or
/// standard output); `finish()` writes what is still buffered.
package final class RejectsWriter {
  private let output: any ByteOutput
  private let format: EventFormat
  private var buffer: [UInt8] = []
  package private(set) var count = 0

  /// The CSV header: the columns of the JSON Lines form, in its order.
  package static let csvHeader = "file,line,column,field,reason,text,base64"

  /// The format a rejects file's name asks for: JSON Lines for `.jsonl` and `.ndjson` (and
  /// `-`, standard output), CSV for `.csv` (case-insensitive); nil for any other name.
  package static func format(path: String) -> EventFormat? {
    if path == "-" { return .jsonLines }
    return EventAppender.format(path: path)
  }

  package init(output: any ByteOutput, format: EventFormat = .jsonLines) {
    self.output = output
    self.format = format
    buffer.reserveCapacity(1 << 16)
    // A CSV file has its header even with no row: an empty table, not an empty file.
    if format == .csv { buffer.append(contentsOf: Array((Self.csvHeader + "\n").utf8)) }
  }

  /// Appends one rejected line.
  package func write(_ reject: EventReject) throws(DeckIOError) {
    switch format {
    case .jsonLines: appendJSON(reject)
    case .csv: appendCSV(reject)
    }
    count += 1
    if buffer.count >= 1 << 16 { try flush() }
  }

  private func appendJSON(_ reject: EventReject) {
    let loc = reject.location
    JSONWriter.append(to: &buffer) { w in
      w.beginObject()
      w.field("file", loc.file)
      w.field("line", int: loc.line)
      w.field("column", int: loc.column)
      w.field("field", loc.field)
      w.field("reason", reject.reason)
      if String(validating: reject.text, as: UTF8.self) != nil {
        w.key("text")
        reject.text.withUnsafeBufferPointer { w.string(bytes: $0) }
      } else {
        w.field("base64", Data(reject.text).base64EncodedString())
      }
      w.endObject()
      w.layout("\n")
    }
  }

  private func appendCSV(_ reject: EventReject) {
    let loc = reject.location
    let comma = UInt8(ascii: ",")
    Text.appendCSVField(loc.file, to: &buffer)
    buffer.append(contentsOf: Array(",\(loc.line),".utf8))
    buffer.append(contentsOf: Array((loc.column.map { String($0) } ?? "").utf8))
    buffer.append(comma)
    Text.appendCSVField(loc.field ?? "", to: &buffer)
    buffer.append(comma)
    Text.appendCSVField(reject.reason, to: &buffer)
    buffer.append(comma)
    if let text = String(validating: reject.text, as: UTF8.self) {
      Text.appendCSVField(text, to: &buffer)
      buffer.append(comma)
    } else {
      buffer.append(comma)
      buffer.append(contentsOf: Array(Data(reject.text).base64EncodedString().utf8))
    }
    buffer.append(UInt8(ascii: "\n"))
  }

  /// Writes what is still buffered.
  package func finish() throws(DeckIOError) {
    try flush()
  }

  private func flush() throws(DeckIOError) {
    guard !buffer.isEmpty else { return }
    try output.write(buffer)
    buffer.removeAll(keepingCapacity: true)
  }

}
