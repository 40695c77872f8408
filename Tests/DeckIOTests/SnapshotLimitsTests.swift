import DeckCore
import Testing

@testable import DeckIO

/// A snapshot payload written field by field with the format's own `Encoder`, for payloads that
/// no builder makes: counts that overflow, days out of range, records that do not add up.
enum CraftedPayload {
  struct Item {
    var id: String
    var right: UInt64
    var left: UInt64
    /// (position, shown, right)
    var positions: [(UInt64, UInt64, UInt64)] = []
  }

  struct Record {
    var delta: UInt64
    var right: UInt64
    var left: UInt64
    var lastRight: Int64
    var lastLeft: Int64
  }

  /// One pending swipe as written: day, ids, and position * 2 + (1 if right).
  struct Pending {
    var day: Int64
    var user: String
    var item: String
    var bits: UInt64
  }

  /// A whole payload (format 2): no sources, days `first...last` (none when nil), no reading
  /// settings, and the `pending` swipes.
  static func snapshot(
    days: (Int64, Int64)? = (20_000, 20_001), hesitations: UInt64 = 0, items: [Item],
    users: [(String, [Record])], pending: [Pending] = [], pendingCount: UInt64? = nil
  ) -> [UInt8] {
    var p = Encoder()
    p.u(0)
    p.u(days == nil ? 0 : 1)
    if let (first, last) = days {
      p.z(first)
      p.z(last)
    }
    p.u(hesitations)
    p.u(UInt64(items.count))
    for item in items {
      p.s(item.id)
      p.u(item.right)
      p.u(item.left)
      p.u(UInt64(item.positions.count))
      for (position, shown, right) in item.positions {
        p.u(position)
        p.u(shown)
        p.u(right)
      }
    }
    p.u(UInt64(users.count))
    for (id, records) in users {
      p.s(id)
      p.u(UInt64(records.count))
      for r in records {
        p.u(r.delta)
        p.u(r.right)
        p.u(r.left)
        p.z(r.lastRight)
        p.z(r.lastLeft)
      }
    }
    p.u(pendingCount ?? UInt64(pending.count))
    for swipe in pending {
      p.z(swipe.day)
      p.s(swipe.user)
      p.s(swipe.item)
      p.u(swipe.bits)
    }
    return p.bytes
  }

  /// `payload` in a snapshot file with a valid header and checksum, so that the decoder gets to
  /// it.
  static func framed(_ payload: [UInt8], version: UInt32 = SnapshotFile.version) -> [UInt8] {
    var out = SnapshotFile.magic
    for k in 0..<4 { out.append(UInt8((version >> (8 * UInt32(k))) & 0xff)) }
    for k in 0..<8 { out.append(UInt8((UInt64(payload.count) >> (8 * UInt64(k))) & 0xff)) }
    out += payload
    out += SHA256.hash(payload)
    return out
  }
}

private let never = Int64(Int32.min)

/// The message of the `.invalid` error decoding `bytes` throws, or nil when it decodes.
private func refusal(_ bytes: [UInt8]) -> String? {
  do {
    _ = try SnapshotFile.decode(bytes, file: "h.snap")
    return nil
  } catch {
    guard case .invalid(let path, let message) = error else { return "unexpected \(error)" }
    return path == "h.snap" ? message : "wrong path \(path)"
  }
}

@Suite struct SnapshotLimitsTests {
  /// One dish, two diners: a payload that decodes (so that the others differ from it in one way).
  static let good = CraftedPayload.snapshot(
    items: [.init(id: "a", right: 2, left: 1, positions: [(1, 2, 1), (3, 1, 1)])],
    users: [
      ("u1", [.init(delta: 0, right: 1, left: 1, lastRight: 20_001, lastLeft: 20_000)]),
      ("u2", [.init(delta: 0, right: 1, left: 0, lastRight: 20_000, lastLeft: never)]),
    ])

  @Test func theCraftedPayloadIsValid() throws {
    let s = try SnapshotFile.decode(CraftedPayload.framed(Self.good), file: "h.snap")
    #expect(s.events == 3)
    #expect(s.users.map(\.id) == ["u1", "u2"])
    #expect(SnapshotFile.encode(s) == CraftedPayload.framed(Self.good))
  }

  /// The 8 bytes of the payload length flipped, or set to lengths near 2^64: refused before any
  /// arithmetic on them can overflow (it trapped).
  @Test(arguments: [
    UInt64.max, UInt64.max - 20, UInt64.max - 52, UInt64(Int64.max), UInt64(Int64.max) - 52,
    1 << 63, 1 << 40,
  ])
  func aHugeLengthInTheHeaderIsRefused(length: UInt64) {
    var bytes = CraftedPayload.framed(Self.good)
    for k in 0..<8 { bytes[13 + k] = UInt8((length >> (8 * UInt64(k))) & 0xff) }
    let message = refusal(bytes)
    #expect(message != nil)
    if length > UInt64(Int.max) - 52 {
      #expect(
        message
          == "the snapshot's header gives a payload of \(length) bytes, more than a file holds: "
          + "the file is corrupt; ingest the logs again or restore a copy")
    }
  }

  @Test func eightFlippedHeaderBytesAreRefused() {
    let good = CraftedPayload.framed(Self.good)
    for start in 0...(good.count - 8) {
      var bytes = good
      for k in start..<(start + 8) { bytes[k] ^= 0xff }
      #expect(refusal(bytes) != nil, "bytes \(start)..<\(start + 8)")
    }
  }

  @Test func countsThatOverflowWhenAddedAreRefused() {
    // One dish's right and left swipes overflow together...
    let one = CraftedPayload.snapshot(
      items: [.init(id: "a", right: UInt64(Int64.max), left: 1)], users: [])
    #expect(
      refusal(CraftedPayload.framed(one))
        == "the snapshot is corrupt (the swipes add up to more than \(Int64.max) at item 'a'); "
        + "ingest the logs again")
    // ...and so do two dishes.
    let two = CraftedPayload.snapshot(
      items: [
        .init(id: "a", right: UInt64(Int64.max) / 2 + 1, left: 0),
        .init(id: "b", right: UInt64(Int64.max) / 2 + 1, left: 0),
      ], users: [])
    #expect(refusal(CraftedPayload.framed(two))?.contains("add up to more than") == true)
    // A count beyond Int64 is refused where it is read.
    let huge = CraftedPayload.snapshot(
      items: [.init(id: "a", right: UInt64(Int64.max) + 1, left: 0)], users: [])
    #expect(refusal(CraftedPayload.framed(huge))?.contains("a count is out of range") == true)
  }

  @Test func positionsThatCountMoreThanTheDishAreRefused() {
    let moreRightThanShown = CraftedPayload.snapshot(
      items: [.init(id: "a", right: 1, left: 0, positions: [(1, 1, 2)])],
      users: [("u1", [.init(delta: 0, right: 1, left: 0, lastRight: 20_000, lastLeft: never)])])
    #expect(
      refusal(CraftedPayload.framed(moreRightThanShown))?.contains(
        "item 'a' counts more swipes at position 1 than it has") == true)
    let moreShownThanSwipes = CraftedPayload.snapshot(
      items: [
        .init(id: "a", right: 1, left: 0, positions: [(1, 1, 1), (2, UInt64(Int64.max), 0)])
      ],
      users: [("u1", [.init(delta: 0, right: 1, left: 0, lastRight: 20_000, lastLeft: never)])])
    #expect(refusal(CraftedPayload.framed(moreShownThanSwipes))?.contains("position 2") == true)
    let outOfOrder = CraftedPayload.snapshot(
      items: [.init(id: "a", right: 2, left: 0, positions: [(2, 1, 1), (1, 1, 1)])],
      users: [("u1", [.init(delta: 0, right: 2, left: 0, lastRight: 20_000, lastLeft: never)])])
    #expect(refusal(CraftedPayload.framed(outOfOrder))?.contains("out of order") == true)
  }

  @Test func recordsThatDoNotAddUpToTheDishAreRefused() {
    let more = CraftedPayload.snapshot(
      items: [.init(id: "a", right: 1, left: 0)],
      users: [
        ("u1", [.init(delta: 0, right: 1, left: 0, lastRight: 20_000, lastLeft: never)]),
        ("u2", [.init(delta: 0, right: 1, left: 0, lastRight: 20_000, lastLeft: never)]),
      ])
    #expect(
      refusal(CraftedPayload.framed(more))
        == "the snapshot is corrupt (the records of item 'a' count more swipes than the item); "
        + "ingest the logs again")
    let fewer = CraftedPayload.snapshot(
      items: [.init(id: "a", right: 3, left: 0)],
      users: [("u1", [.init(delta: 0, right: 1, left: 0, lastRight: 20_000, lastLeft: never)])])
    #expect(
      refusal(CraftedPayload.framed(fewer))
        == "the snapshot is corrupt (item 'a' has 3 right and 0 left swipes, its records 1 and 0);"
        + " ingest the logs again")
    let daysWithoutSwipes = CraftedPayload.snapshot(
      items: [.init(id: "a", right: 1, left: 0)],
      users: [("u1", [.init(delta: 0, right: 1, left: 0, lastRight: 20_000, lastLeft: 20_000)])])
    #expect(refusal(CraftedPayload.framed(daysWithoutSwipes))?.contains("days without") == true)
  }

  @Test(arguments: [
    Int64(Int32.max), Int64(Int32.min) + 1, Int64(Int32.max) + 1, 2_932_897, -719_163, Int64.max,
  ])
  func daysOutsideYearsOneTo9999AreRefused(day: Int64) {
    let first = CraftedPayload.snapshot(days: (day, 20_001), items: [], users: [])
    #expect(refusal(CraftedPayload.framed(first))?.contains("out of range") == true)
    let record = CraftedPayload.snapshot(
      items: [.init(id: "a", right: 1, left: 0)],
      users: [("u1", [.init(delta: 0, right: 1, left: 0, lastRight: day, lastLeft: never)])])
    #expect(refusal(CraftedPayload.framed(record))?.contains("out of range") == true)
  }

  @Test func recordDaysOutsideTheSnapshotsDaysAreRefused() {
    let later = CraftedPayload.snapshot(
      days: (20_000, 20_001), items: [.init(id: "a", right: 1, left: 0)],
      users: [("u1", [.init(delta: 0, right: 1, left: 0, lastRight: 20_002, lastLeft: never)])])
    #expect(
      refusal(CraftedPayload.framed(later))
        == "the snapshot is corrupt (a record's day 20002 is outside the snapshot's days "
        + "(20000...20001)); ingest the logs again")
    let reversed = CraftedPayload.snapshot(days: (20_001, 20_000), items: [], users: [])
    #expect(refusal(CraftedPayload.framed(reversed))?.contains("after its last day") == true)
    let noDays = CraftedPayload.snapshot(
      days: nil, items: [.init(id: "a", right: 1, left: 0)],
      users: [("u1", [.init(delta: 0, right: 1, left: 0, lastRight: 20_000, lastLeft: never)])])
    #expect(refusal(CraftedPayload.framed(noDays))?.contains("outside the snapshot's days") == true)
  }

  /// The extremes that are valid still decode: the first and last supported days.
  @Test func theSupportedDaysDecode() throws {
    let payload = CraftedPayload.snapshot(
      days: (-719_162, 2_932_896), items: [.init(id: "a", right: 1, left: 1)],
      users: [
        ("u1", [.init(delta: 0, right: 1, left: 1, lastRight: -719_162, lastLeft: 2_932_896)])
      ])
    let s = try SnapshotFile.decode(CraftedPayload.framed(payload), file: "h.snap")
    #expect(s.firstDay == DeckDate(year: 1, month: 1, day: 1)!.daysSinceEpoch)
    #expect(s.lastDay == DeckDate(year: 9999, month: 12, day: 31)!.daysSinceEpoch)
  }

  /// Pending swipes (format 2) are read one by one with every field range-checked, in the
  /// canonical order, and their count checked against the bytes left before anything is
  /// reserved for them.
  @Test func pendingSwipesAreCheckedOneByOne() throws {
    typealias P = CraftedPayload.Pending
    func payload(_ pending: [P], count: UInt64? = nil) -> [UInt8] {
      CraftedPayload.framed(
        CraftedPayload.snapshot(items: [], users: [], pending: pending, pendingCount: count))
    }
    let good = payload([
      P(day: 20_005, user: "u1", item: "a", bits: 3),
      P(day: 20_005, user: "u1", item: "a", bits: 3),
      P(day: 20_005, user: "u2", item: "a", bits: 0),
      P(day: 20_006, user: "u0", item: "b", bits: 9),
    ])
    let s = try SnapshotFile.decode(good, file: "h.snap")
    #expect(
      s.pending.first
        == HistorySnapshot.PendingSwipe(
          day: 20_005, user: "u1", item: "a", swipe: .right, position: 1))
    #expect(s.pending.count == 4)
    #expect(s.pending.last?.position == 4)
    #expect(s.events == 4)
    #expect(SnapshotFile.encode(s) == good)
    let refused: [([P], UInt64?, String)] = [
      (
        [
          P(day: 20_006, user: "u0", item: "b", bits: 0),
          P(day: 20_005, user: "u1", item: "a", bits: 0),
        ],
        nil, "pending swipes out of order"
      ),
      (
        [
          P(day: 20_005, user: "u2", item: "a", bits: 0),
          P(day: 20_005, user: "u1", item: "a", bits: 0),
        ],
        nil, "pending swipes out of order"
      ),
      (
        [
          P(day: 20_005, user: "u1", item: "a", bits: 1),
          P(day: 20_005, user: "u1", item: "a", bits: 0),
        ],
        nil, "pending swipes out of order"
      ),
      ([P(day: Int64(Int32.min), user: "u1", item: "a", bits: 0)], nil, "has no day"),
      ([P(day: 2_932_897, user: "u1", item: "a", bits: 0)], nil, "out of range"),
      (
        [P(day: 20_005, user: "u1", item: "a", bits: (UInt64(Int32.max) + 1) << 1)], nil,
        "position 2147483648 is out of range"
      ),
      ([], 1 << 40, "larger than the file"),
      ([P(day: 20_005, user: "u1", item: "a", bits: 0)], 3, "larger than the file"),
    ]
    for (pending, count, message) in refused {
      let text = refusal(payload(pending, count: count))
      #expect(text?.contains(message) == true, "\(pending): \(text ?? "decoded")")
    }
  }

  /// A format-1 payload (before pending swipes and the sources' days) still decodes, without
  /// them; with the bytes of a pending list after its users it is corrupt.
  @Test func aFormatOnePayloadHasNoPendingSwipes() throws {
    // `good` ends with the pending count 0, one byte: format 1 ends before it.
    let one = Array(Self.good.dropLast())
    let s = try SnapshotFile.decode(CraftedPayload.framed(one, version: 1), file: "h.snap")
    #expect(s.pending.isEmpty)
    #expect(s.events == 3)
    #expect(
      refusal(CraftedPayload.framed(Self.good, version: 1))
        == "the snapshot is corrupt (unexpected bytes after the users); ingest the logs again")
    // Written again, it is format 2, and reads back the same.
    let again = SnapshotFile.encode(s)
    #expect(again[9] == 2)
    #expect(try SnapshotFile.decode(again, file: "h.snap") == s)
  }
}
