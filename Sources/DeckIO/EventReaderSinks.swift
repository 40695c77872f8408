import DeckCore
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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
public struct HistoryIngest: EventSink {
  /// The builder with every accepted event in it.
  public var builder: HistoryBuilder {
    if pending.isEmpty { return aggregated }
    var copy = self
    copy.flush()
    return copy.aggregated
  }
  private var aggregated: HistoryBuilder
  /// Accepted events not yet in `aggregated` (at most `batchSize`). Until `flush`, the `user` of
  /// each is the index of its session in `sessions`.
  private var pending: [HistoryBuilder.Swipe] = []
  static let batchSize = 256
  /// The sessions of the queued events, in order: where each one's user id ends in
  /// `sessionBytes` (the ids back to back) and its builder slot, -1 until `flush` looks it up.
  /// The last session stays (resolved) across a flush, for the events that continue it.
  private var sessions: [(end: Int32, slot: Int32)] = []
  private var sessionBytes: [UInt8] = []
  /// Hashes of the sessions' ids (scratch space of `resolveSessions`).
  private var sessionHashes: [UInt64] = []
  /// Where `resolveSessions` leaves the table slots it reads ahead (so the reads are not dropped).
  private var touched: UInt32 = 0
  private let items: ItemIndex
  private var users = ByteTable(capacity: 1024)
  /// Builder slots by `users` index, unless `sameSlots`.
  private var userSlots: [Int32] = []
  /// Whether the builder started without users, so that its slots are the `users` indices.
  private var sameSlots: Bool

  /// A fresh builder over `catalog`; events on or after `cutoff` are not aggregated.
  public init(catalog: Catalog, cutoff: DeckDate? = nil) {
    self.init(catalog: catalog, builder: HistoryBuilder(itemCount: catalog.count, cutoff: cutoff))
  }

  /// Continues an existing builder (its item indices must be those of `catalog`).
  public init(catalog: Catalog, builder: HistoryBuilder) {
    precondition(builder.itemCount == catalog.count, "the builder is for another catalog")
    aggregated = builder
    pending.reserveCapacity(HistoryIngest.batchSize)
    sessions.reserveCapacity(HistoryIngest.batchSize + 1)
    sessionHashes.reserveCapacity(HistoryIngest.batchSize + 1)
    sessionBytes.reserveCapacity(64 * HistoryIngest.batchSize)
    sameSlots = builder.userCount == 0
    items = ItemIndex(ids: catalog.items.map(\.id))
  }

  @inline(__always)
  public mutating func event(_ e: RawEvent) -> EventDisposition {
    guard let item = items.find(e.item) else { return .unknownItem }
    if !continuesSession(e.user) { startSession(e.user) }
    pending.append(
      HistoryBuilder.Swipe(
        user: Int32(truncatingIfNeeded: sessions.count &- 1), item: item, swipe: e.swipe,
        day: e.day, position: e.position))
    if pending.count == HistoryIngest.batchSize { flush() }
    return .accepted
  }

  /// Whether `user` is the user id of the last session.
  @inline(__always)
  private func continuesSession(_ user: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let last = sessions.last else { return false }
    let start = sessions.count > 1 ? Int(sessions[sessions.count - 2].end) : 0
    let n = Int(last.end) - start
    guard n == user.count else { return false }
    if n == 0 { return true }
    return sessionBytes.withUnsafeBufferPointer {
      memEqual($0.baseAddress! + start, user.baseAddress!, n)
    }
  }

  /// Opens a session for `user` (looked up at the next flush).
  @inline(never)
  private mutating func startSession(_ user: UnsafeBufferPointer<UInt8>) {
    precondition(sessionBytes.count + user.count <= Int(Int32.max), "user ids too long")
    sessionBytes.append(contentsOf: user)
    sessions.append((Int32(sessionBytes.count), -1))
  }

  /// Adds the queued events to the builder (the reader calls it at the end of a run).
  public mutating func finish() { flush() }

  private mutating func flush() {
    if pending.isEmpty { return }
    resolveSessions()
    sessions.withUnsafeBufferPointer { s in
      pending.withUnsafeMutableBufferPointer { p in
        for i in p.indices { p[i].user = s[Int(p[i].user)].slot }
      }
    }
    pending.withUnsafeBufferPointer { aggregated.add($0) }
    pending.removeAll(keepingCapacity: true)
    // The last session goes on into the next batch, resolved.
    let last = sessions[sessions.count - 1]
    let start = sessions.count > 1 ? Int(sessions[sessions.count - 2].end) : 0
    sessionBytes.removeSubrange(0..<start)
    sessions.removeAll(keepingCapacity: true)
    sessions.append((last.end - Int32(start), last.slot))
  }

  /// Looks up the user ids of the sessions that have no slot yet, interning new ones in order:
  /// their hashes first, then a tight loop that reads each one's home slot (independent loads, in
  /// flight together), then the probes, now mostly in cache.
  private mutating func resolveSessions() {
    sessionHashes.removeAll(keepingCapacity: true)
    sessionBytes.withUnsafeBufferPointer { bytes in
      var start = 0
      for s in sessions {
        let end = Int(s.end)
        sessionHashes.append(
          s.slot >= 0 ? 0 : ByteTable.hash(UnsafeBufferPointer(rebasing: bytes[start..<end])))
        start = end
      }
    }
    var t: UInt32 = 0
    for k in sessions.indices where sessions[k].slot < 0 {
      t |= users.touch(hash: sessionHashes[k])
    }
    touched = t
    var start = 0
    for k in sessions.indices {
      let end = Int(sessions[k].end)
      if sessions[k].slot < 0 {
        sessions[k].slot = sessionBytes.withUnsafeBufferPointer { bytes in
          intern(UnsafeBufferPointer(rebasing: bytes[start..<end]), hash: sessionHashes[k])
        }
      }
      start = end
    }
  }

  /// The builder slot of a user id, interned on first sight.
  private mutating func intern(_ user: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Int32 {
    let (index, inserted) = users.insert(user, hash: hash)
    if inserted {
      let slot = aggregated.userSlot(String(decoding: user, as: UTF8.self))
      if sameSlots && slot != index {
        // Two byte spellings of one id that Swift's String equality treats as the same text
        // (precomposed "é" and "e" + combining accent) share one diner: keep an explicit map.
        userSlots = (0..<index).map { $0 }
        sameSlots = false
      }
      if !sameSlots { userSlots.append(slot) }
    }
    return sameSlots ? index : userSlots[Int(index)]
  }

  /// The aggregated history.
  public func build() -> History { builder.build() }
}

/// Collects events as `SwipeEvent` values (tests and small tools; allocates per event).
public struct SwipeEventCollector: EventSink {
  public var events: [SwipeEvent] = []
  /// When set, events for other items are refused as unknown and not collected.
  public let knownItems: Set<String>?

  public init(knownItems: Set<String>? = nil) {
    self.knownItems = knownItems
  }

  public mutating func event(_ e: RawEvent) -> EventDisposition {
    let event = e.swipeEvent
    if let knownItems, !knownItems.contains(event.item) { return .unknownItem }
    events.append(event)
    return .accepted
  }
}

/// Writes skipped lines to a rejects file, one JSON object per line:
///
///     {"file":"swipes.jsonl","line":12,"column":31,"field":"swipe","reason":"...","text":"..."}
///
/// `text` is the rejected line (a whole CSV record, line breaks inside quotes included) exactly as
/// read, without its final line break, as a JSON string. A line that is not valid UTF-8 cannot be
/// a JSON string without loss, so it gets `"base64"` with its exact bytes instead of `"text"`.
/// `column` and `field` are `null` when unknown.
///
/// The file is written atomically: to a temporary file beside it, renamed by `finish()`.
public final class RejectsWriter {
  public let path: String
  private let temporaryPath: String
  private var fd: Int32
  private var buffer: [UInt8] = []
  public private(set) var count = 0

  public init(path: String) throws(DeckIOError) {
    self.path = path
    temporaryPath = path + ".tmp-\(getpid())"
    fd = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    if fd < 0 {
      throw .io(path: path, message: "cannot create the rejects file: \(errnoText())")
    }
    buffer.reserveCapacity(1 << 16)
  }

  deinit {
    if fd >= 0 {
      close(fd)
      unlink(temporaryPath)
    }
  }

  /// Appends one rejected line.
  public func write(_ reject: EventReject) throws(DeckIOError) {
    let loc = reject.location
    buffer.append(contentsOf: Array("{\"file\":".utf8))
    appendJSONString(Array(loc.file.utf8))
    buffer.append(contentsOf: Array(",\"line\":\(loc.line),\"column\":".utf8))
    buffer.append(contentsOf: Array((loc.column.map { String($0) } ?? "null").utf8))
    buffer.append(contentsOf: Array(",\"field\":".utf8))
    if let field = loc.field {
      appendJSONString(Array(field.utf8))
    } else {
      buffer.append(contentsOf: Array("null".utf8))
    }
    buffer.append(contentsOf: Array(",\"reason\":".utf8))
    appendJSONString(Array(reject.reason.utf8))
    if String(validating: reject.text, as: UTF8.self) != nil {
      buffer.append(contentsOf: Array(",\"text\":".utf8))
      appendJSONString(reject.text)
    } else {
      buffer.append(contentsOf: Array(",\"base64\":\"".utf8))
      buffer.append(contentsOf: Array(Data(reject.text).base64EncodedString().utf8))
      buffer.append(UInt8(ascii: "\""))
    }
    buffer.append(contentsOf: Array("}\n".utf8))
    count += 1
    if buffer.count >= 1 << 16 { try flush() }
  }

  /// Flushes, closes and renames the file into place.
  public func finish() throws(DeckIOError) {
    try flush()
    guard fd >= 0 else { return }
    let closed = close(fd)
    fd = -1
    if closed != 0 {
      unlink(temporaryPath)
      throw .io(path: path, message: "cannot write the rejects file: \(errnoText())")
    }
    if rename(temporaryPath, path) != 0 {
      let text = errnoText()
      unlink(temporaryPath)
      throw .io(path: path, message: "cannot write the rejects file: \(text)")
    }
  }

  private func flush() throws(DeckIOError) {
    var written = 0
    while written < buffer.count {
      let n = buffer.withUnsafeBytes { b in
        #if canImport(Glibc)
          Glibc.write(fd, b.baseAddress! + written, b.count - written)
        #else
          Darwin.write(fd, b.baseAddress! + written, b.count - written)
        #endif
      }
      if n < 0 {
        if errno == EINTR { continue }
        throw .io(path: path, message: "cannot write the rejects file: \(errnoText())")
      }
      written += n
    }
    buffer.removeAll(keepingCapacity: true)
  }

  private func appendJSONString(_ bytes: [UInt8]) {
    buffer.append(UInt8(ascii: "\""))
    for b in bytes {
      switch b {
      case UInt8(ascii: "\""): buffer.append(contentsOf: [0x5C, 0x22])
      case UInt8(ascii: "\\"): buffer.append(contentsOf: [0x5C, 0x5C])
      case 0x0A: buffer.append(contentsOf: [0x5C, UInt8(ascii: "n")])
      case 0x0D: buffer.append(contentsOf: [0x5C, UInt8(ascii: "r")])
      case 0x09: buffer.append(contentsOf: [0x5C, UInt8(ascii: "t")])
      case 0..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        buffer.append(contentsOf: Array("\\u00".utf8))
        buffer.append(hex[Int(b >> 4)])
        buffer.append(hex[Int(b & 15)])
      default: buffer.append(b)
      }
    }
    buffer.append(UInt8(ascii: "\""))
  }
}

private func errnoText() -> String { String(cString: strerror(errno)).lowercased() }
