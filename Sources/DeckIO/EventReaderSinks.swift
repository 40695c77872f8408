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
/// whose cache misses overlap; `builder` and `build()` always include the queued events.
public struct HistoryIngest: EventSink {
  /// The builder with every accepted event in it.
  public var builder: HistoryBuilder {
    if pending.isEmpty { return aggregated }
    var b = aggregated
    pending.withUnsafeBufferPointer { b.add($0) }
    return b
  }
  private var aggregated: HistoryBuilder
  /// Accepted events not yet in `aggregated` (at most `batchSize`).
  private var pending: [HistoryBuilder.Swipe] = []
  static let batchSize = 256
  private var items: ByteTable
  private var users = ByteTable(capacity: 1024)
  /// Builder slots by `users` index, unless `sameSlots`.
  private var userSlots: [Int32] = []
  /// Whether the builder started without users, so that its slots are the `users` indices.
  private var sameSlots: Bool
  /// The previous event's user (logs come in sessions: one diner's swipes in a row): a copy of
  /// its bytes, compared in cache without touching `users`, and its builder slot (-1 at first).
  private var lastUser: [UInt8] = []
  private var lastSlot: Int32 = -1

  /// A fresh builder over `catalog`; events on or after `cutoff` are not aggregated.
  public init(catalog: Catalog, cutoff: DeckDate? = nil) {
    self.init(catalog: catalog, builder: HistoryBuilder(itemCount: catalog.count, cutoff: cutoff))
  }

  /// Continues an existing builder (its item indices must be those of `catalog`).
  public init(catalog: Catalog, builder: HistoryBuilder) {
    precondition(builder.itemCount == catalog.count, "the builder is for another catalog")
    aggregated = builder
    pending.reserveCapacity(HistoryIngest.batchSize)
    sameSlots = builder.userCount == 0
    items = ByteTable(capacity: catalog.count)
    for item in catalog.items { items.insert(item.id) }
  }

  @inline(__always)
  public mutating func event(_ e: RawEvent) -> EventDisposition {
    guard let item = items.find(e.item) else { return .unknownItem }
    let slot: Int32
    let n = e.user.count
    if lastSlot >= 0 && n == lastUser.count
      && (n == 0
        || lastUser.withUnsafeBufferPointer { memEqual($0.baseAddress!, e.user.baseAddress!, n) })
    {
      slot = lastSlot
    } else {
      slot = newSession(e.user)
    }
    pending.append(
      HistoryBuilder.Swipe(user: slot, item: item, swipe: e.swipe, day: e.day, position: e.position)
    )
    if pending.count == HistoryIngest.batchSize { flush() }
    return .accepted
  }

  /// Adds the queued events to the builder (the reader calls it at the end of a run).
  public mutating func finish() { flush() }

  private mutating func flush() {
    pending.withUnsafeBufferPointer { aggregated.add($0) }
    pending.removeAll(keepingCapacity: true)
  }

  /// The builder slot of a user who is not the previous event's, interned on first sight.
  @inline(never)
  private mutating func newSession(_ user: UnsafeBufferPointer<UInt8>) -> Int32 {
    let (index, inserted) = users.insert(user)
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
    lastUser.removeAll(keepingCapacity: true)
    lastUser.append(contentsOf: user)
    lastSlot = sameSlots ? index : userSlots[Int(index)]
    return lastSlot
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
