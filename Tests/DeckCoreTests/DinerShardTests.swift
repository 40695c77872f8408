import Testing

@testable import DeckCore

@Suite("Diner shards")
struct DinerShardTests {
  /// Computed with Python's hashlib:
  /// `int.from_bytes(hashlib.sha256(id.encode()).digest()[:8], "big") % n + 1`.
  @Test(
    "the shard is the documented function of the id's bytes, as Python computes it",
    arguments: [
      ("u01", [1, 2, 1, 2, 650]), ("u02", [1, 2, 3, 4, 140]), ("café", [1, 2, 2, 7, 650]),
      ("", [1, 1, 2, 2, 653]), ("007", [1, 1, 2, 3, 997]), ("diner-12345", [1, 2, 1, 4, 660]),
    ])
  func matchesPython(id: String, shards: [Int]) {
    #expect([1, 2, 3, 7, 1000].map { DinerShard.shard(of: id, count: $0) } == shards)
  }

  @Test("the shards of N partition the diners")
  func partition() throws {
    let ids = (0..<2000).map { "d\($0)" }
    for n in [1, 2, 3, 7, 16] {
      let shards = (1...n).map { DinerShard(index: $0, count: n)! }
      for id in ids { #expect(shards.filter { $0.contains(id) }.count == 1) }
      // Roughly even: every shard holds some diners.
      for s in shards { #expect(ids.filter { s.contains($0) }.count > 2000 / n / 2) }
    }
  }

  @Test(
    "K/N is read strictly",
    arguments: [
      ("1/1", "1/1" as String?), ("3/8", "3/8"), ("8/8", "8/8"), ("0/8", nil), ("9/8", nil),
      ("1/0", nil), ("-1/2", nil), ("+1/2", nil), ("1/2/3", nil), ("1", nil), ("/2", nil),
      ("1/", nil), (" 1/2", nil), ("1/1000000", "1/1000000"), ("1/1000001", nil),
      ("1/99999999999999999999", nil), ("١/٢", nil),
    ])
  func parse(text: String, expected: String?) {
    #expect(DinerShard(text)?.description == expected)
  }
}
