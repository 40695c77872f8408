import DeckBase
import DeckCore
import Foundation

// History snapshot files
// ======================
//
// A snapshot file holds one `HistorySnapshot` in a compact binary form:
//
//     offset  size  contents
//     0       9     magic: "MDSNAP\r\n" followed by 0x1A (tells text tools it is binary)
//     9       4     format version, little-endian UInt32 (this writer: 2; this reader: 1 and 2)
//     13      8     payload length in bytes, little-endian UInt64
//     21      n     payload
//     21+n    32    SHA-256 of the payload
//
// The payload is a sequence of unsigned LEB128 varints (`u`), zigzag varints for values that
// may be negative (`z`), and strings (`s` = u byte length + UTF-8 bytes):
//
//     u sources;    per source (ascending hash): s sha256 (hex), s path, u bytes, u lines,
//                   u events, z firstDay, z lastDay  (the days of its swipes; -2147483648 for
//                   none)
//     u flags (bit 0: has days, bit 1: has reading settings);
//                   bit 0: z firstDay, z lastDay  (days since 1970-01-01)
//                   bit 1: s time zone, s drag rule  (as the config names them)
//     u hesitations
//     u items;      per item (ascending id bytes): s id, u right, u left,
//                   u positions; per position (ascending): u position, u shown, u right
//     u users;      per user (ascending id bytes): s id, u records;
//                   per record (ascending item): u item-index delta from the previous record,
//                   u right, u left, z lastRight, z lastLeft  (-2147483648 = never)
//     u pending;    per pending swipe (a swipe not added up yet, in the order of
//                   `HistorySnapshot.PendingSwipe`: day, user bytes, item bytes, left before
//                   right, position): z day, s user, s item, u position * 2 + (1 if right)
//
// Format 1 (menudeck before pending swipes) has neither the sources' days nor the pending
// swipes; it is read as a snapshot without them (the days of its sources unknown).
//
// A reader checks the magic, the version (a newer one is refused with a message to upgrade),
// the length (a truncated file is refused) and the checksum (a corrupt one is refused) before it
// decodes anything, and decodes every byte with bounds checks: it either returns the whole
// snapshot or throws, never a part. Writers write a temporary file and rename it over the
// target, so a killed writer leaves the previous snapshot as it was.
//
// The text form, for pipes that carry lines (Spark's `rdd.pipe`), is one line: "MDSNAP64:",
// the whole binary form above in base64 (RFC 4648, with padding), and a line feed. Every reader
// takes either form. Snapshots concatenated on a stream (binary frames and text lines, mixed)
// are read one after the other by `decodeAll`: each binary frame carries its own length.

package enum SnapshotFile {
  package static let magic: [UInt8] = Array("MDSNAP\r\n".utf8) + [0x1A]
  package static let version: UInt32 = 2
  static let headerSize = 9 + 4 + 8
  static let checksumSize = 32
  /// The format's "no day" in a record's lastRight/lastLeft (a day field of the format, not a
  /// value of DeckCore: the format was fixed with it).
  static let noDay = Int32.min

  /// The start of a snapshot's text form.
  package static let textMagic: [UInt8] = Array("MDSNAP64:".utf8)

  /// Whether `bytes` start like a snapshot, in either form (used to tell snapshots from logs).
  package static func looksLikeSnapshot(_ prefix: [UInt8]) -> Bool {
    startsBinary(prefix[...]) || (prefix.count >= textMagic.count && prefix.starts(with: textMagic))
  }

  private static func startsBinary(_ bytes: ArraySlice<UInt8>) -> Bool {
    bytes.count >= magic.count && bytes.starts(with: magic)
  }

  /// Whether the file at `path` starts with the snapshot magic.
  /// Only regular files are looked at: a pipe or FIFO can be read once, and that read belongs
  /// to the reader of the log (a snapshot is always a regular file).
  package static func isSnapshot(path: String) -> Bool {
    guard FileSystem.kind(of: path) == .regular else { return false }
    guard let prefix = try? TextInput.readPrefix(path: path, count: magic.count) else {
      return false
    }
    return looksLikeSnapshot(prefix)
  }

  package static func encode(_ snapshot: HistorySnapshot) -> [UInt8] {
    var p = Encoder()
    p.u(UInt64(snapshot.sources.count))
    for s in snapshot.sources {
      p.s(s.sha256)
      p.s(s.path)
      p.u(UInt64(s.bytes))
      p.u(UInt64(s.lines))
      p.u(UInt64(s.events))
      p.z(Int64(s.firstDay ?? noDay))
      p.z(Int64(s.lastDay ?? noDay))
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
        p.z(Int64(r.lastRightDay ?? noDay))
        p.z(Int64(r.lastLeftDay ?? noDay))
      }
    }
    p.u(UInt64(snapshot.pending.count))
    for swipe in snapshot.pending {
      p.z(Int64(swipe.day))
      p.s(swipe.user)
      p.s(swipe.item)
      p.u(UInt64(UInt32(bitPattern: swipe.position)) << 1 | (swipe.swipe == .right ? 1 : 0))
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

  /// The text form of `snapshot`: one line, "MDSNAP64:" and the binary form in base64.
  package static func encodeText(_ snapshot: HistorySnapshot) -> [UInt8] {
    textMagic + Array(Data(encode(snapshot)).base64EncodedString().utf8) + [0x0A]
  }

  /// Decodes a whole snapshot file's bytes, in either form; `file` names it in errors. The file
  /// holds one snapshot and nothing else: bytes after its end (past the binary frame, or past
  /// the line feed of the text form) are refused with their offset and count, as are several
  /// snapshots one after the other (which `merge` adds up).
  package static func decode(_ bytes: [UInt8], file: String) throws(DeckIOError) -> HistorySnapshot
  {
    guard bytes.contains(where: { !isBlank($0) }) else {
      throw .invalid(path: file, message: "the snapshot file is empty; ingest the logs again")
    }
    let (snapshot, end) = try decodeOne(bytes, at: 0, file: file)
    guard end < bytes.count else { return snapshot }
    // Snapshots after it (a stream saved to a file) are told apart from other bytes (and a
    // broken one is named by its place).
    if startsBinary(bytes[end...]) || bytes[end...].starts(with: textMagic) {
      let all = try decodeAll(bytes, file: file)
      throw .invalid(
        path: file,
        message: "holds \(all.count) snapshots one after the other; give it to 'menudeck merge' "
          + "to add them up into one")
    }
    throw bytesAfterTheEnd(bytes.count - end, from: end, file: file)
  }

  /// Bytes after the end of the (last) snapshot of a file that are no snapshot.
  private static func bytesAfterTheEnd(_ extra: Int, from end: Int, file: String) -> DeckIOError {
    .invalid(
      path: file,
      message: "\(extra) byte\(extra == 1 ? "" : "s") after the end of the snapshot, from byte "
        + "\(end) on; a snapshot file holds one snapshot and nothing after it (the snapshot "
        + "itself is whole and its checksum matches): remove them with 'truncate -s \(end) "
        + "FILE', or ingest the logs again")
  }

  /// Decodes the snapshots that follow one another in `bytes` (a stream: binary frames and
  /// text lines, in any mix, with white space between them allowed, as text lines and pipes
  /// add it). Bytes that are neither are refused with their byte offset and how many there are
  /// to the end. `file` names the stream in errors.
  package static func decodeAll(_ bytes: [UInt8], file: String) throws(DeckIOError)
    -> [HistorySnapshot]
  {
    var snapshots: [HistorySnapshot] = []
    var at = 0
    while at < bytes.count {
      if isBlank(bytes[at]) {
        at += 1
        continue
      }
      let rest = bytes[at...]
      if !snapshots.isEmpty && !startsBinary(rest) && !rest.starts(with: textMagic) {
        throw .invalid(
          path: "\(file) (at byte \(at))",
          message: "the \(rest.count) byte\(rest.count == 1 ? "" : "s") from byte \(at) to the "
            + "end, after snapshot \(snapshots.count), do not start with a snapshot header: not a "
            + "snapshot; give only what 'menudeck ingest' and 'menudeck merge' write")
      }
      // Named by its place when the stream holds more than one.
      let name = at == 0 ? file : "\(file) (snapshot \(snapshots.count + 1), at byte \(at))"
      let (snapshot, end) = try decodeOne(bytes, at: at, file: name)
      snapshots.append(snapshot)
      at = end
    }
    return snapshots
  }

  /// White space between the snapshots of a stream.
  private static func isBlank(_ b: UInt8) -> Bool {
    b == 0x0A || b == 0x0D || b == 0x20 || b == 0x09
  }

  /// The snapshot that starts at `at`, in either form, and where it ends: after its binary
  /// frame, or after the line feed (or CRLF) that ends its text line (the end of the bytes when
  /// the line has none).
  private static func decodeOne(_ bytes: [UInt8], at: Int, file: String) throws(DeckIOError)
    -> (HistorySnapshot, end: Int)
  {
    let rest = bytes[at...]
    if startsBinary(rest) {
      let end = try frameEnd(rest, file: file)
      return (try decodeBinary(Array(bytes[at..<end]), file: file), end)
    }
    guard rest.starts(with: textMagic) else {
      throw .invalid(
        path: file,
        message: "not a menudeck history snapshot (it does not start with the snapshot "
          + "header); give a file written by 'menudeck ingest' or 'menudeck merge'")
    }
    let start = at + textMagic.count
    let lineEnd = bytes[start...].firstIndex(of: 0x0A)
    var text = bytes[start..<(lineEnd ?? bytes.count)]
    if text.last == 0x0D { text = text.dropLast() }
    guard let data = Data(base64Encoded: Data(text)) else {
      throw .invalid(
        path: file,
        message: "the text snapshot is not valid base64 (broken or cut short in a pipe?); "
          + "write it again with 'ingest --base64' or 'merge --base64'")
    }
    return (try decodeBinary([UInt8](data), file: file), lineEnd.map { $0 + 1 } ?? bytes.count)
  }

  /// Where the binary frame that starts `bytes` ends (its header's length, range-checked
  /// against the bytes there are).
  private static func frameEnd(_ bytes: ArraySlice<UInt8>, file: String) throws(DeckIOError)
    -> Int
  {
    let start = bytes.startIndex
    let frame = headerSize + checksumSize
    guard bytes.count >= frame else {
      throw .invalid(
        path: file,
        message:
          "the snapshot is truncated (\(TextLayout.plural(bytes.count, "byte"))); ingest the logs "
          + "again")
    }
    var length: UInt64 = 0
    for k in 0..<8 { length |= UInt64(bytes[start + 13 + k]) << (8 * UInt64(k)) }
    guard length <= UInt64(bytes.count - frame) else {
      guard length <= UInt64(Int.max) - UInt64(frame) else {
        throw .invalid(
          path: file,
          message: "the snapshot's header gives a payload of \(length) bytes, more than a file "
            + "holds: the file is corrupt; ingest the logs again or restore a copy")
      }
      throw .invalid(
        path: file,
        message: "the snapshot is truncated (\(bytes.count) of \(length + UInt64(frame)) bytes); "
          + "it was not written completely: ingest the logs again or restore a copy")
    }
    return start + frame + Int(length)
  }

  /// Decodes one binary snapshot, all of `bytes`.
  private static func decodeBinary(_ bytes: [UInt8], file: String) throws(DeckIOError)
    -> HistorySnapshot
  {
    func refuse(_ message: String) -> DeckIOError { .invalid(path: file, message: message) }
    guard startsBinary(bytes[...]) else {
      throw refuse(
        "not a menudeck history snapshot (it does not start with the snapshot header); give a "
          + "file written by 'menudeck ingest' or 'menudeck merge'")
    }
    guard bytes.count >= headerSize + checksumSize else {
      throw refuse(
        "the snapshot is truncated (\(TextLayout.plural(bytes.count, "byte"))); ingest the logs "
          + "again")
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
    do throws(DecodeFailure) {
      return try decodePayload(Array(payload), version: version)
    } catch {
      throw refuse("the snapshot is corrupt (\(error.message)); ingest the logs again")
    }
  }

  /// Reads and decodes the snapshot at `path`.
  package static func read(path: String, displayName: String? = nil) throws(DeckIOError)
    -> HistorySnapshot
  {
    let bytes = try TextInput.readBytes(path: path, what: "history snapshot")
    return try decode(bytes, file: displayName ?? path)
  }

  /// Reads and decodes the snapshots at `path`: one, or several one after the other (snapshot
  /// files put together, `cat a.snap b.snap > c.snap`). As in a file of one, nothing else may
  /// follow a snapshot (a blank line either): what does not start another is refused with its
  /// offset, and an empty file as `decode` refuses it. Each snapshot after the first is named by
  /// its place in errors.
  package static func readAll(path: String, displayName: String? = nil) throws(DeckIOError)
    -> [HistorySnapshot]
  {
    let bytes = try TextInput.readBytes(path: path, what: "history snapshot")
    let file = displayName ?? path
    guard bytes.contains(where: { !isBlank($0) }) else {
      throw .invalid(path: file, message: "the snapshot file is empty; ingest the logs again")
    }
    var snapshots: [HistorySnapshot] = []
    var at = 0
    while true {
      let name = at == 0 ? file : "\(file) (snapshot \(snapshots.count + 1), at byte \(at))"
      let (snapshot, end) = try decodeOne(bytes, at: at, file: name)
      snapshots.append(snapshot)
      guard end < bytes.count else { return snapshots }
      guard startsBinary(bytes[end...]) || bytes[end...].starts(with: textMagic) else {
        throw bytesAfterTheEnd(bytes.count - end, from: end, file: file)
      }
      at = end
    }
  }

  /// `read(path:displayName:)`, with the SHA-256 (hex) of the bytes it read when `hashing`.
  package static func read(path: String, displayName: String? = nil, hashing: Bool)
    throws(DeckIOError) -> (HistorySnapshot, String?)
  {
    let bytes = try TextInput.readBytes(path: path, what: "history snapshot")
    let snapshot = try decode(bytes, file: displayName ?? path)
    return (snapshot, hashing ? SHA256.hex(SHA256.hash(bytes)) : nil)
  }

  /// The most bytes of snapshots read from a stream (standard input): a bound, not a limit
  /// a real history reaches (a snapshot of 100,000 diners and 2 M swipes is about 20 MB).
  package static let maxStreamBytes = 1 << 34

  /// Writes `snapshot` to `path` atomically (under its lock; temporary file, fsync, rename).
  package static func write(_ snapshot: HistorySnapshot, to path: String) throws(DeckIOError) {
    try replaceFile(at: path, with: encode(snapshot))
  }
}
