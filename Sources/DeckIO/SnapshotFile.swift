import DeckBase
import DeckCore

// History snapshot files
// ======================
//
// A snapshot file holds one `HistorySnapshot` in a compact binary form:
//
//     offset  size  contents
//     0       8     magic "MDSNAP\r\n" followed by 0x1A (tells text tools it is binary)
//     8       4     format version, little-endian UInt32 (this reader: 1)
//     12      8     payload length in bytes, little-endian UInt64
//     20      n     payload
//     20+n    32    SHA-256 of the payload
//
// The payload is a sequence of unsigned LEB128 varints (`u`), zigzag varints for values that
// may be negative (`z`), and strings (`s` = u byte length + UTF-8 bytes):
//
//     u sources;    per source: s sha256 (hex), s path, u bytes, u lines, u events
//     u flags (bit 0: has days, bit 1: has reading settings);
//                   bit 0: z firstDay, z lastDay  (days since 1970-01-01)
//                   bit 1: s time zone, s drag rule  (as the config names them)
//     u hesitations
//     u items;      per item (ascending id bytes): s id, u right, u left,
//                   u positions; per position (ascending): u position, u shown, u right
//     u users;      per user (ascending id bytes): s id, u records;
//                   per record (ascending item): u item-index delta from the previous record,
//                   u right, u left, z lastRight, z lastLeft  (-2147483648 = never)
//
// A reader checks the magic, the version (a newer one is refused with a message to upgrade),
// the length (a truncated file is refused) and the checksum (a corrupt one is refused) before it
// decodes anything, and decodes every byte with bounds checks: it either returns the whole
// snapshot or throws, never a part. Writers write a temporary file and rename it over the
// target, so a killed writer leaves the previous snapshot as it was.

public enum SnapshotFile {
  public static let magic: [UInt8] = Array("MDSNAP\r\n".utf8) + [0x1A]
  public static let version: UInt32 = 1
  static let headerSize = 9 + 4 + 8
  static let checksumSize = 32

  /// Whether `bytes` start like a snapshot (used to tell snapshots from logs).
  public static func looksLikeSnapshot(_ prefix: [UInt8]) -> Bool {
    prefix.count >= magic.count && Array(prefix.prefix(magic.count)) == magic
  }

  /// Whether the file at `path` starts with the snapshot magic.
  /// Only regular files are looked at: a pipe or FIFO can be read once, and that read belongs
  /// to the reader of the log (a snapshot is always a regular file).
  public static func isSnapshot(path: String) -> Bool {
    guard FileSystem.kind(of: path) == .regular else { return false }
    guard let prefix = try? TextInput.readPrefix(path: path, count: magic.count) else {
      return false
    }
    return looksLikeSnapshot(prefix)
  }

  public static func encode(_ snapshot: HistorySnapshot) -> [UInt8] {
    var p = Encoder()
    p.u(UInt64(snapshot.sources.count))
    for s in snapshot.sources {
      p.s(s.sha256)
      p.s(s.path)
      p.u(UInt64(s.bytes))
      p.u(UInt64(s.lines))
      p.u(UInt64(s.events))
    }
    let days = snapshot.firstDay != nil && snapshot.lastDay != nil
    let settings = snapshot.timeZone != nil || snapshot.dragRule != nil
    p.u((days ? 1 : 0) | (settings ? 2 : 0))
    if days {
      p.z(Int64(snapshot.firstDay!))
      p.z(Int64(snapshot.lastDay!))
    }
    if settings {
      p.s(snapshot.timeZone ?? "")
      p.s(snapshot.dragRule ?? "")
    }
    p.u(UInt64(snapshot.hesitations))
    p.u(UInt64(snapshot.items.count))
    for item in snapshot.items {
      p.s(item.id)
      p.u(UInt64(item.right))
      p.u(UInt64(item.left))
      p.u(UInt64(item.positions.count))
      for pos in item.positions {
        p.u(UInt64(pos.position))
        p.u(UInt64(pos.shown))
        p.u(UInt64(pos.right))
      }
    }
    p.u(UInt64(snapshot.users.count))
    for user in snapshot.users {
      p.s(user.id)
      p.u(UInt64(user.records.count))
      var previous: Int32 = 0
      for r in user.records {
        p.u(UInt64(r.item - previous))
        previous = r.item
        p.u(UInt64(UInt32(bitPattern: r.right)))
        p.u(UInt64(UInt32(bitPattern: r.left)))
        p.z(Int64(r.lastRight))
        p.z(Int64(r.lastLeft))
      }
    }
    var out = magic
    var v = version
    for _ in 0..<4 {
      out.append(UInt8(v & 0xff))
      v >>= 8
    }
    var n = UInt64(p.bytes.count)
    for _ in 0..<8 {
      out.append(UInt8(n & 0xff))
      n >>= 8
    }
    out.append(contentsOf: p.bytes)
    out.append(contentsOf: SHA256.hash(p.bytes))
    return out
  }

  /// Decodes a whole snapshot file's bytes; `file` names it in errors.
  public static func decode(_ bytes: [UInt8], file: String) throws(DeckIOError) -> HistorySnapshot {
    func refuse(_ message: String) -> DeckIOError { .invalid(path: file, message: message) }
    guard looksLikeSnapshot(bytes) else {
      throw refuse(
        "not a menudeck history snapshot (it does not start with the snapshot header); give a "
          + "file written by 'menudeck ingest' or 'menudeck merge'")
    }
    guard bytes.count >= headerSize + checksumSize else {
      throw refuse("the snapshot is truncated (\(bytes.count) bytes); ingest the logs again")
    }
    var version: UInt32 = 0
    for k in 0..<4 { version |= UInt32(bytes[9 + k]) << (8 * UInt32(k)) }
    guard version <= SnapshotFile.version else {
      throw refuse(
        "snapshot format version \(version) is newer than this menudeck reads "
          + "(\(SnapshotFile.version)); use a newer menudeck")
    }
    guard version >= 1 else {
      throw refuse("snapshot format version 0 is not valid; the file is corrupt")
    }
    var length: UInt64 = 0
    for k in 0..<8 { length |= UInt64(bytes[13 + k]) << (8 * UInt64(k)) }
    // The length comes from the file: compare it with what is there before adding to it.
    let room = UInt64(bytes.count - headerSize - checksumSize)
    guard length == room else {
      if length > room {
        let frame = UInt64(headerSize + checksumSize)
        guard length <= UInt64(Int.max) - frame else {
          throw refuse(
            "the snapshot's header gives a payload of \(length) bytes, more than a file holds: "
              + "the file is corrupt; ingest the logs again or restore a copy")
        }
        throw refuse(
          "the snapshot is truncated (\(bytes.count) of \(length + frame) bytes); it was not "
            + "written completely: ingest the logs again or restore a copy")
      }
      throw refuse("the snapshot has \(room - length) bytes after its end; the file is corrupt")
    }
    let payload = bytes[headerSize..<(headerSize + Int(length))]
    let checksum = Array(bytes[(headerSize + Int(length))...])
    guard SHA256.hash(payload) == checksum else {
      throw refuse(
        "the snapshot's checksum does not match its contents: the file is corrupt; ingest the "
          + "logs again or restore a copy")
    }
    var d = Decoder(bytes: Array(payload))
    do throws(DecodeFailure) {
      let snapshot = try decodePayload(&d)
      guard d.atEnd else { throw DecodeFailure(message: "unexpected bytes after the users") }
      return snapshot
    } catch {
      throw refuse("the snapshot is corrupt (\(error.message)); ingest the logs again")
    }
  }

  private static func decodePayload(_ d: inout Decoder) throws(DecodeFailure) -> HistorySnapshot {
    var snapshot = HistorySnapshot()
    let sourceCount = try d.count()
    for _ in 0..<sourceCount {
      snapshot.sources.append(
        HistorySnapshot.Source(
          sha256: try d.s(), path: try d.s(), bytes: try d.i64(), lines: try d.i64(),
          events: try d.i64()))
    }
    let flags = try d.u()
    guard flags < 4 else { throw DecodeFailure(message: "unknown flags \(flags)") }
    if flags & 1 != 0 {
      let first = try d.day()
      let last = try d.day()
      guard first != History.never, last != History.never, first <= last else {
        throw DecodeFailure(message: "its first day \(first) is after its last day \(last)")
      }
      snapshot.firstDay = first
      snapshot.lastDay = last
    }
    /// A record's day: one of the snapshot's days, or `History.never`.
    func recordDay() throws(DecodeFailure) -> Int32 {
      let day = try d.day()
      if day == History.never { return day }
      guard let first = snapshot.firstDay, let last = snapshot.lastDay, first <= day, day <= last
      else {
        let days = snapshot.firstDay.map { "\($0)...\(snapshot.lastDay ?? $0)" } ?? "none"
        throw DecodeFailure(
          message: "a record's day \(day) is outside the snapshot's days (\(days))")
      }
      return day
    }
    if flags & 2 != 0 {
      let zone = try d.s()
      let rule = try d.s()
      snapshot.timeZone = zone.isEmpty ? nil : zone
      snapshot.dragRule = rule.isEmpty ? nil : rule
    }
    snapshot.hesitations = try d.i64()
    let itemCount = try d.count()
    var previousID: String?
    // Every sum of decoded counts is checked here, so that nothing that adds them up later can
    // overflow: the items' swipes fit in 64 bits together, a position has no more right swipes
    // than swipes and the positions of a dish no more swipes than the dish.
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
        item.positions.append(count)
      }
      snapshot.items.append(item)
    }
    // The records of each item add up to the item's swipes (checked after the users).
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
          item: Int32(item), right: try d.i32(), left: try d.i32(), lastRight: try recordDay(),
          lastLeft: try recordDay())
        guard (record.right > 0) == (record.lastRight != History.never),
          (record.left > 0) == (record.lastLeft != History.never)
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
    guard total == 0 || snapshot.firstDay != nil else {
      throw DecodeFailure(message: "it holds swipes but no days")
    }
    return snapshot
  }

  /// Reads and decodes the snapshot at `path`.
  public static func read(path: String, displayName: String? = nil) throws(DeckIOError)
    -> HistorySnapshot
  {
    let bytes = try TextInput.readBytes(path: path, what: "history snapshot")
    return try decode(bytes, file: displayName ?? path)
  }

  /// Writes `snapshot` to `path` atomically (under its lock; temporary file, fsync, rename).
  public static func write(_ snapshot: HistorySnapshot, to path: String) throws(DeckIOError) {
    try replaceFile(at: path, with: encode(snapshot))
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

  /// A day of `DeckDate.supportedDays`, or `History.never`.
  mutating func day() throws(DecodeFailure) -> Int32 {
    let v = try z()
    guard
      v == Int64(History.never)
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

/// Reads swipe logs into a `SnapshotBuilder` (ids kept as they are, whatever the catalog).
public struct SnapshotIngest: EventSink {
  public private(set) var builder = SnapshotBuilder()
  private var items = ByteTable(capacity: 1024)
  private var itemSlots: [Int32] = []
  private var users = ByteTable(capacity: 1024)
  private var userSlots: [Int32] = []
  private var lastUser: Int32 = -1
  /// Swipes on or after this day are not aggregated (counted in `skippedFuture`).
  public let cutoff: DeckDate?
  public private(set) var skippedFuture = 0

  public init(cutoff: DeckDate? = nil) {
    self.cutoff = cutoff
  }

  public mutating func event(_ e: RawEvent) -> EventDisposition {
    if let cutoff, e.day >= cutoff.daysSinceEpoch {
      skippedFuture += 1
      return .accepted
    }
    let (itemIndex, newItem) = items.insert(e.item)
    if newItem { itemSlots.append(builder.itemSlot(String(decoding: e.item, as: UTF8.self))) }
    let u: Int32
    if lastUser >= 0 && users.keyEquals(lastUser, e.user) {
      u = lastUser
    } else {
      let (index, inserted) = users.insert(e.user)
      if inserted { userSlots.append(builder.userSlot(String(decoding: e.user, as: UTF8.self))) }
      u = index
      lastUser = index
    }
    builder.add(
      user: userSlots[Int(u)], item: itemSlots[Int(itemIndex)], swipe: e.swipe, day: e.day,
      position: e.position)
    return .accepted
  }
}
