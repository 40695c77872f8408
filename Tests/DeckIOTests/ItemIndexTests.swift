import Testing

@testable import DeckIO

/// The catalog index of the ingest: every id found at its index, nothing else found, ids that
/// share their first 8 bytes or differ only in length or in a late byte told apart.
@Suite struct ItemIndexTests {
  private static func find(_ index: ItemIndex, _ id: String) -> Int32? {
    var bytes = Array(id.utf8)
    return bytes.withUnsafeMutableBufferPointer { index.find(UnsafeBufferPointer($0)) }
  }

  @Test func findsEveryIDAtItsIndex() {
    var ids: [String] = []
    for n in 0..<3000 { ids.append("dish\(n)") }
    // Ids that share a first word, differ in length only, or past byte 8 (also overlapping the
    // last word), and non-ASCII ones.
    ids += [
      "dish-long-name", "dish-long-namf", "dish-long-name-2", "abcdefgh", "abcdefghi",
      "abcdefghij", "abcdefgh12345678", "abcdefgh12345679", "a", "ab", "abc", "肉じゃが", "肉じゃが定食",
    ]
    let index = ItemIndex(ids: ids)
    #expect(index.count == ids.count)
    for (i, id) in ids.enumerated() {
      #expect(Self.find(index, id) == Int32(i), "\(id)")
    }
  }

  @Test func findsNothingElse() {
    let index = ItemIndex(ids: ["nikujaga", "karaage", "abcdefgh12345678", "x"])
    for absent in [
      "", "nikujag", "nikujagA", "nikujaga ", "abcdefgh1234567", "abcdefgh123456789",
      "abcdefgh12345677", "y", "X", "karaage\0",
    ] {
      #expect(Self.find(index, absent) == nil, "\(absent.debugDescription)")
    }
  }

  @Test func emptyAndRepeatedIDs() {
    #expect(Self.find(ItemIndex(ids: []), "a") == nil)
    let index = ItemIndex(ids: ["a", "b", "a", ""])
    #expect(Self.find(index, "a") == 0)
    #expect(Self.find(index, "b") == 1)
    #expect(Self.find(index, "") == 3)
  }

  @Test func idsThatDifferLateAreToldApart() {
    // Many ids that differ only in their last byte (past the first word): every look-up ends,
    // whether found or not.
    let ids = (0..<256).map {
      "prefix--" + String(UnicodeScalar(UInt8($0 < 128 ? $0 : 65))) + "\($0)"
    }
    let index = ItemIndex(ids: ids)
    for (i, id) in ids.enumerated() { #expect(Self.find(index, id) == Int32(i)) }
    #expect(Self.find(index, "prefix--") == nil)
    #expect(Self.find(index, "prefix--z999") == nil)
  }
}
