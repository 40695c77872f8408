import DeckCore

// The payload of a snapshot file (its layout is in SnapshotFile.swift): decoded part by part,
// every byte bounds-checked, every sum checked before anything adds it up.
extension SnapshotFile {
  /// The snapshot in a payload of format `version` (1 or 2) whose frame (length, checksum) is
  /// already checked.
  static func decodePayload(_ payload: [UInt8], version: UInt32) throws(DecodeFailure)
    -> HistorySnapshot
  {
    var d = Decoder(bytes: payload)
    var snapshot = HistorySnapshot()
    snapshot.sources = try decodeSources(&d, days: version >= 2)
    try decodeFlags(&d, into: &snapshot)
    snapshot.hesitations = try d.i64()
    let total: Int64
    (snapshot.items, total) = try decodeItems(&d)
    try decodeUsers(&d, into: &snapshot)
    guard total == 0 || snapshot.firstDay != nil else {
      throw DecodeFailure(message: "it holds swipes but no days")
    }
    if version >= 2 { snapshot.pending = try decodePending(&d) }
    guard d.atEnd else {
      throw DecodeFailure(
        message: "unexpected bytes after the " + (version >= 2 ? "pending swipes" : "users"))
    }
    return snapshot
  }

  /// The sources; from format 2 on with the days of their swipes.
  private static func decodeSources(_ d: inout Decoder, days: Bool) throws(DecodeFailure)
    -> [HistorySnapshot.Source]
  {
    var sources: [HistorySnapshot.Source] = []
    let sourceCount = try d.count()
    for _ in 0..<sourceCount {
      var source = HistorySnapshot.Source(
        sha256: try d.s(), path: try d.s(), bytes: try d.i64(), lines: try d.i64(),
        events: try d.i64())
      if days {
        let first = try d.day()
        let last = try d.day()
        if first != SnapshotFile.noDay || last != SnapshotFile.noDay {
          guard first != SnapshotFile.noDay, last != SnapshotFile.noDay, first <= last else {
            throw DecodeFailure(
              message: "the log '\(source.path)' has the days \(first) to \(last)")
          }
          source.firstDay = first
          source.lastDay = last
        }
      }
      sources.append(source)
    }
    return sources
  }

  /// The pending swipes, in canonical order (a swipe may be there several times). The count is
  /// checked against the bytes left (each swipe takes at least four), so memory stays within
  /// what the file holds.
  private static func decodePending(_ d: inout Decoder) throws(DecodeFailure)
    -> [HistorySnapshot.PendingSwipe]
  {
    let count = try d.count()
    guard count <= d.remaining / 4 else {
      throw DecodeFailure(
        message: "a count of \(count) pending swipes is larger than the file holds")
    }
    var pending: [HistorySnapshot.PendingSwipe] = []
    pending.reserveCapacity(count)
    for _ in 0..<count {
      let day = try d.day()
      guard day != SnapshotFile.noDay else {
        throw DecodeFailure(message: "a pending swipe has no day")
      }
      let user = try d.s()
      let item = try d.s()
      let bits = try d.u()
      guard bits >> 1 <= UInt64(Int32.max) else {
        throw DecodeFailure(message: "a pending swipe's position \(bits >> 1) is out of range")
      }
      let swipe = HistorySnapshot.PendingSwipe(
        day: day, user: user, item: item, swipe: bits & 1 == 1 ? .right : .left,
        position: Int32(bits >> 1))
      if let previous = pending.last, swipe < previous {
        throw DecodeFailure(message: "pending swipes out of order")
      }
      pending.append(swipe)
    }
    return pending
  }

  /// The flags and what they announce: the days, the reading settings.
  private static func decodeFlags(_ d: inout Decoder, into snapshot: inout HistorySnapshot)
    throws(DecodeFailure)
  {
    let flags = try d.u()
    guard flags < 4 else { throw DecodeFailure(message: "unknown flags \(flags)") }
    if flags & 1 != 0 {
      let first = try d.day()
      let last = try d.day()
      guard first != SnapshotFile.noDay, last != SnapshotFile.noDay, first <= last else {
        throw DecodeFailure(message: "its first day \(first) is after its last day \(last)")
      }
      snapshot.firstDay = first
      snapshot.lastDay = last
    }
    if flags & 2 != 0 {
      let zone = try d.s()
      let rule = try d.s()
      snapshot.timeZone = zone.isEmpty ? nil : zone
      snapshot.dragRule = rule.isEmpty ? nil : rule
    }
  }

  /// The items, and their swipes in all. Every sum of decoded counts is checked here, so that
  /// nothing that adds them up later can overflow: the items' swipes fit in 64 bits together, a
  /// position has no more right swipes than swipes and the positions of a dish no more swipes
  /// than the dish.
  private static func decodeItems(_ d: inout Decoder) throws(DecodeFailure)
    -> (items: [HistorySnapshot.Item], swipes: Int64)
  {
    var items: [HistorySnapshot.Item] = []
    let itemCount = try d.count()
    var previousID: String?
    var total: Int64 = 0
    for _ in 0..<itemCount {
      let id = try d.s()
      if let previousID, !previousID.utf8.lexicographicallyPrecedes(id.utf8) {
        throw DecodeFailure(message: "items out of order")
      }
      previousID = id
      var item = HistorySnapshot.Item(id: id, right: try d.i64(), left: try d.i64(), positions: [])
      let (swipes, o1) = item.right.addingReportingOverflow(item.left)
      let (sum, o2) = total.addingReportingOverflow(swipes)
      guard !o1, !o2 else {
        throw DecodeFailure(message: "the swipes add up to more than \(Int64.max) at item '\(id)'")
      }
      total = sum
      item.positions = try decodePositions(&d, item: id, swipes: swipes)
      items.append(item)
    }
    return (items, total)
  }

  /// The positions of item `id`, which has `swipes` swipes.
  private static func decodePositions(_ d: inout Decoder, item id: String, swipes: Int64)
    throws(DecodeFailure) -> [HistorySnapshot.PositionCount]
  {
    var out: [HistorySnapshot.PositionCount] = []
    let positions = try d.count()
    var previousPosition: UInt64 = 0
    var positioned: Int64 = 0
    for _ in 0..<positions {
      let position = try d.u()
      guard position >= 1, position <= UInt64(History.maxTrackedPosition) else {
        throw DecodeFailure(message: "position \(position) out of range")
      }
      guard position > previousPosition else {
        throw DecodeFailure(message: "positions of item '\(id)' out of order")
      }
      previousPosition = position
      let count = HistorySnapshot.PositionCount(
        position: Int32(position), shown: try d.i64(), right: try d.i64())
      let (p, o3) = positioned.addingReportingOverflow(count.shown)
      guard count.right <= count.shown, !o3, p <= swipes else {
        throw DecodeFailure(
          message: "item '\(id)' counts more swipes at position \(position) than it has")
      }
      positioned = p
      out.append(count)
    }
    return out
  }

  /// The users and their records; the records of each item add up to the item's swipes.
  private static func decodeUsers(_ d: inout Decoder, into snapshot: inout HistorySnapshot)
    throws(DecodeFailure)
  {
    var recordRight = [Int64](repeating: 0, count: snapshot.items.count)
    var recordLeft = [Int64](repeating: 0, count: snapshot.items.count)
    let userCount = try d.count()
    var previousUser: String?
    for _ in 0..<userCount {
      let id = try d.s()
      if let previousUser, !previousUser.utf8.lexicographicallyPrecedes(id.utf8) {
        throw DecodeFailure(message: "users out of order")
      }
      previousUser = id
      let recordCount = try d.count()
      var records: [HistorySnapshot.Record] = []
      records.reserveCapacity(recordCount)
      var item: UInt64 = 0
      for n in 0..<recordCount {
        let delta = try d.u()
        if n > 0 && delta == 0 { throw DecodeFailure(message: "records out of order") }
        item += delta
        guard item < UInt64(snapshot.items.count) else {
          throw DecodeFailure(message: "a record names item \(item) of \(snapshot.items.count)")
        }
        let record = HistorySnapshot.Record(
          item: Int32(item), right: try d.i32(), left: try d.i32(),
          lastRightDay: try recordDay(&d, snapshot), lastLeftDay: try recordDay(&d, snapshot))
        guard (record.right > 0) == (record.lastRightDay != nil),
          (record.left > 0) == (record.lastLeftDay != nil)
        else {
          throw DecodeFailure(message: "a record of user '\(id)' has days without swipes")
        }
        // Each sum stays below its item's count (checked to fit): no overflow.
        recordRight[Int(item)] += Int64(record.right)
        recordLeft[Int(item)] += Int64(record.left)
        guard recordRight[Int(item)] <= snapshot.items[Int(item)].right,
          recordLeft[Int(item)] <= snapshot.items[Int(item)].left
        else {
          throw DecodeFailure(
            message: "the records of item '\(snapshot.items[Int(item)].id)' count more swipes "
              + "than the item")
        }
        records.append(record)
      }
      snapshot.users.append(HistorySnapshot.User(id: id, records: records))
    }
    for (k, item) in snapshot.items.enumerated()
    where recordRight[k] != item.right || recordLeft[k] != item.left {
      throw DecodeFailure(
        message: "item '\(item.id)' has \(item.right) right and \(item.left) left swipes, its "
          + "records \(recordRight[k]) and \(recordLeft[k])")
    }
  }

  /// A record's day: one of the snapshot's days, or nil for the format's `noDay`.
  private static func recordDay(_ d: inout Decoder, _ snapshot: HistorySnapshot)
    throws(DecodeFailure) -> Int32?
  {
    let day = try d.day()
    if day == SnapshotFile.noDay { return nil }
    guard let first = snapshot.firstDay, let last = snapshot.lastDay, first <= day, day <= last
    else {
      let days = snapshot.firstDay.map { "\($0)...\(snapshot.lastDay ?? $0)" } ?? "none"
      throw DecodeFailure(
        message: "a record's day \(day) is outside the snapshot's days (\(days))")
    }
    return day
  }
}

struct DecodeFailure: Error {
  var message: String
}

/// The payload writer: unsigned LEB128 numbers, zigzag signed ones, length-prefixed strings
/// (internal: tests write payloads no builder makes with it).
struct Encoder {
  var bytes: [UInt8] = []

  mutating func u(_ value: UInt64) {
    var v = value
    while v >= 0x80 {
      bytes.append(UInt8(v & 0x7f) | 0x80)
      v >>= 7
    }
    bytes.append(UInt8(v))
  }

  mutating func z(_ value: Int64) {
    u(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
  }

  mutating func s(_ value: String) {
    u(UInt64(value.utf8.count))
    bytes.append(contentsOf: value.utf8)
  }
}

private struct Decoder {
  let bytes: [UInt8]
  var offset = 0

  var atEnd: Bool { offset == bytes.count }
  /// Bytes not read yet.
  var remaining: Int { bytes.count - offset }

  mutating func u() throws(DecodeFailure) -> UInt64 {
    var value: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard offset < bytes.count else { throw DecodeFailure(message: "it ends inside a number") }
      let b = bytes[offset]
      offset += 1
      guard shift < 64 else { throw DecodeFailure(message: "a number is too long") }
      value |= UInt64(b & 0x7f) << shift
      if b & 0x80 == 0 { return value }
      shift += 7
    }
  }

  mutating func z() throws(DecodeFailure) -> Int64 {
    let v = try u()
    return Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1)
  }

  mutating func count() throws(DecodeFailure) -> Int {
    let v = try u()
    // Every counted element takes at least one byte.
    guard v <= UInt64(bytes.count - offset) else {
      throw DecodeFailure(message: "a count of \(v) is larger than the file")
    }
    return Int(v)
  }

  mutating func i64() throws(DecodeFailure) -> Int64 {
    let v = try u()
    guard v <= UInt64(Int64.max) else { throw DecodeFailure(message: "a count is out of range") }
    return Int64(v)
  }

  mutating func i32() throws(DecodeFailure) -> Int32 {
    let v = try u()
    guard v <= UInt64(Int32.max) else { throw DecodeFailure(message: "a count is out of range") }
    return Int32(v)
  }

  /// A day of `DeckDate.supportedDays`, or the format's `SnapshotFile.noDay`.
  mutating func day() throws(DecodeFailure) -> Int32 {
    let v = try z()
    guard
      v == Int64(SnapshotFile.noDay)
        || (v >= Int64(DeckDate.supportedDays.lowerBound)
          && v <= Int64(DeckDate.supportedDays.upperBound))
    else {
      throw DecodeFailure(message: "day \(v) is out of range (years 1 to 9999)")
    }
    return Int32(v)
  }

  mutating func s() throws(DecodeFailure) -> String {
    let n = try count()
    let slice = bytes[offset..<(offset + n)]
    offset += n
    guard let s = String(validating: slice, as: UTF8.self) else {
      throw DecodeFailure(message: "a string is not valid UTF-8")
    }
    return s
  }
}
