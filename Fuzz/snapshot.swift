// The history snapshot decoder and merge (Sources/DeckIO/SnapshotFile.swift,
// Sources/DeckCore/HistorySnapshot.swift), and the history a deck run builds from a snapshot.
//
// Input: one option byte, then two payloads: the first `length` bytes (two bytes, little-endian,
// before them) and the rest. Each is wrapped in a valid header and checksum (else the fuzzer
// never gets past the checksum); with option bit 0, the bytes are decoded as a whole file
// instead (the header, the length and the checksum themselves).
// Invariants: a snapshot that decodes, encoded again, decodes to the same snapshot; so does a
// merge that succeeds; merging with the empty snapshot changes nothing; adding up its pending
// swipes leaves none pending and the same number of swipes.

import DeckCore

@testable import DeckIO

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSnapshot(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  var input = FuzzBytes(data, count)
  let option = input.take()
  if option & 1 != 0 {
    if let s = try? SnapshotFile.decode(input.bytes, file: "raw.snap") { check(s) }
    return 0
  }
  let length = Int(input.take()) | Int(input.take()) << 8
  let bytes = input.bytes
  let split = min(length, bytes.count)
  let a = try? SnapshotFile.decode(wrapped(Array(bytes[..<split])), file: "a.snap")
  let b = try? SnapshotFile.decode(wrapped(Array(bytes[split...])), file: "b.snap")
  if let a { check(a) }
  if let b { check(b) }
  if let a, let b, let merged = try? HistorySnapshot.merge(a, b) { check(merged) }
  return 0
}

/// `payload` as a snapshot file: magic, the current format version, length, payload, SHA-256.
private func wrapped(_ payload: [UInt8]) -> [UInt8] {
  var out = SnapshotFile.magic
  for k in 0..<4 { out.append(UInt8(truncatingIfNeeded: SnapshotFile.version >> (8 * UInt32(k)))) }
  let n = UInt64(payload.count)
  for k in 0..<8 { out.append(UInt8(truncatingIfNeeded: n >> (8 * UInt64(k)))) }
  return out + payload + SHA256.hash(payload)
}

private func check(_ s: HistorySnapshot) {
  let encoded = SnapshotFile.encode(s)
  do {
    let again = try SnapshotFile.decode(encoded, file: "again.snap")
    require(again == s, "a snapshot encoded again decodes differently")
  } catch {
    require(false, "a decoded snapshot, encoded again, does not decode: \(error)")
  }
  if let same = try? HistorySnapshot.merge(s, HistorySnapshot()) {
    require(same.items == s.items && same.users == s.users, "merging with nothing changed it")
  }
  // Adding up the pending swipes keeps every swipe.
  if let counted = try? s.counting(before: nil) {
    require(
      counted.pending.isEmpty && counted.events == s.events,
      "adding up the pending swipes changed the number of swipes")
  }
  // The history of a deck run, for a catalog of the snapshot's items.
  let items = s.items.map { MenuItem(id: $0.id, name: $0.id, category: "c") }
  if let catalog = try? Catalog(items: items) {
    _ = try? s.history(for: catalog, before: nil)
    if let last = s.lastDay, last < Int32.max {
      _ = try? s.history(for: catalog, before: DeckDate(daysSinceEpoch: last + 1))
    }
  }
}
