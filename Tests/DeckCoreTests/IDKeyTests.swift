import Testing

@testable import DeckCore

/// "café" precomposed (U+00E9) and decomposed (e + U+0301): one Swift `String`, two ids.
let nfcCafe = "caf\u{E9}"
let nfdCafe = "cafe\u{301}"

/// The UTF-8 bytes of ids, to compare them where `String` `==` would call two spellings equal.
func bytes(_ ids: [String]) -> [[UInt8]] { ids.map { Array($0.utf8) } }

/// The identity rule: an id is its UTF-8 bytes.
@Suite struct IDKeyTests {
  @Test func twoSpellingsOfOneTextAreTwoKeys() {
    #expect(nfcCafe == nfdCafe, "Swift's String equality is canonical equivalence")
    #expect(IDKey(nfcCafe) != IDKey(nfdCafe))
    #expect(!IDKey.same(nfcCafe, nfdCafe))
    #expect(Set([IDKey(nfcCafe), IDKey(nfdCafe), IDKey(nfcCafe)]).count == 2)
    var index: [IDKey: Int] = [:]
    index[IDKey(nfcCafe)] = 1
    index[IDKey(nfdCafe)] = 2
    #expect(index[IDKey(nfcCafe)] == 1 && index[IDKey(nfdCafe)] == 2)
    #expect(index[IDKey("cafe")] == nil)
  }

  @Test func theSameBytesAreTheSameKeyHoweverTheStringWasMade() {
    let literal: IDKey = "dish-with-a-long-id-\u{E9}"
    let decoded = IDKey(String(decoding: Array("dish-with-a-long-id-\u{E9}".utf8), as: UTF8.self))
    let sliced = IDKey(String("xxdish-with-a-long-id-\u{E9}".dropFirst(2)))
    let built = IDKey("dish-with-a-long-" + "id-" + "\u{E9}")
    for key in [decoded, sliced, built] {
      #expect(key == literal)
      #expect(key.hashValue == literal.hashValue)
    }
    #expect(Set([literal, decoded, sliced, built]).count == 1)
  }

  @Test func bytesDecideEveryLengthAndPlace() {
    #expect(IDKey.same("", ""))
    #expect(!IDKey.same("", "a"))
    #expect(!IDKey.same("abc", "abcd"), "a prefix is another id")
    #expect(IDKey.same("0123456789abcdefg", "0123456789abcdefg"))
    #expect(!IDKey.same("0123456789abcdefg", "0123456789abcdefh"), "the last byte past a word")
    #expect(!IDKey.same("x0123456789abcdef", "y0123456789abcdef"), "the first byte")
    #expect(!IDKey.same("Tea", "tea"), "no case folding either")
    #expect(IDKey("寿司").string == "寿司")
  }

  @Test func orderIsAscendingUTF8Bytes() {
    // e (0x65) before é (0xC3): the decomposed spelling first, where String sees a tie.
    #expect(IDKey(nfdCafe) < IDKey(nfcCafe))
    #expect(!(nfdCafe < nfcCafe) && !(nfcCafe < nfdCafe))
    // U+212B ANGSTROM SIGN is U+00C5 in its canonical form, before U+00C6 for String, but its
    // bytes (E2 84 AB) come after those of U+00C6 (C3 86).
    #expect("\u{212B}" < "\u{C6}")
    #expect(IDKey("\u{C6}") < IDKey("\u{212B}"))
    let sorted = ["b", nfcCafe, "a", "Z", nfdCafe, "ab"].map { IDKey($0) }.sorted().map(\.string)
    #expect(bytes(sorted) == bytes(["Z", "a", "ab", "b", nfdCafe, nfcCafe]))
    #expect(bytes(["b", nfcCafe, nfdCafe].sortedByBytes()) == bytes(["b", nfdCafe, nfcCafe]))
    #expect(IDKey.precedes("ab", "abc") && !IDKey.precedes("abc", "ab"))
  }

  /// `precedes` compares the bytes themselves; it agrees with the byte arrays' own order on
  /// ids of every length (inline and heap strings), shared prefixes and bytes past 0x7F.
  @Test func precedesIsTheByteArraysOrder() {
    var stream = RandomStream(seed: 3)
    let alphabet: [String] = ["a", "b", "Z", "0", "\u{E9}", "e\u{301}", "\u{212B}", "寿"]
    func id() -> String {
      (0..<stream.nextInt(below: 24)).map { _ in alphabet[stream.nextInt(below: alphabet.count)] }
        .joined()
    }
    var ids = (0..<300).map { _ in id() }
    ids += ids.prefix(50).map { $0 + "a" }  // prefixes of one another
    for a in ids {
      for b in ids.prefix(60) {
        let expected = Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
        #expect(IDKey.precedes(a, b) == expected, "\(bytes([a, b]))")
      }
    }
  }

  @Test func keepsTheIDAsGiven() {
    #expect(Array(IDKey(nfdCafe).string.utf8) == Array(nfdCafe.utf8))
    #expect(IDKey(nfdCafe).description.utf8.elementsEqual(nfdCafe.utf8))
  }
}

/// The rule where the model keys, merges and checks ids.
@Suite struct IDRuleModelTests {
  static func item(_ id: String, _ category: String = "x") -> MenuItem {
    MenuItem(id: id, name: id.uppercased(), category: category)
  }

  @Test func aCatalogHoldsBothSpellingsAsTwoDishesAndFindsEachByItsBytes() throws {
    let catalog = try Catalog(items: [Self.item(nfcCafe), Self.item("tea"), Self.item(nfdCafe)])
    #expect(catalog.index(of: nfcCafe) == 0)
    #expect(catalog.index(of: nfdCafe) == 2)
    #expect(catalog.index(of: "cafe") == nil)
    let only = try Catalog(items: [Self.item(nfcCafe)])
    #expect(only.index(of: nfdCafe) == nil, "the decomposed id is not the catalog's dish")
  }

  @Test func aDuplicateIDIsTheSameBytes() {
    #expect(
      throws: DeckCoreError.invalidCatalog(
        item: 2, message: "duplicate id 'tea' (first used by item 2)")
    ) {
      try Catalog(items: [Self.item(nfcCafe), Self.item("tea"), Self.item("tea")])
    }
  }

  @Test func categoriesAreTheirBytesAndADislikeNamesExactlyThose() throws {
    let catalog = try Catalog(items: [
      Self.item("a", nfcCafe), Self.item("b", nfdCafe), Self.item("c", nfcCafe),
    ])
    #expect(bytes(catalog.categories) == bytes([nfcCafe, nfdCafe]))
    #expect(catalog.itemCategory == [0, 1, 0])
    var rules = DeckRules()
    rules.maxPerCategory = nil
    let builder = try DeckBuilder(catalog: catalog, rules: rules)
    let date = DeckDate(year: 2026, month: 11, day: 10)!
    let user = UserProfile(id: "u", dislikedCategories: [nfdCafe])
    let set = builder.candidates(for: user, history: nil, date: date)
    #expect(set.items == [0, 2])
    #expect(set.heldBack[HoldBackReason.dislikedCategory.rawValue] == 1)
  }

  @Test func pinsAndExclusionsNameDishesByTheirBytes() throws {
    let catalog = try Catalog(items: [Self.item(nfcCafe), Self.item(nfdCafe), Self.item("tea")])
    var rules = DeckRules()
    rules.pinned = [nfdCafe]
    rules.excluded = [nfcCafe]
    let builder = try DeckBuilder(catalog: catalog, rules: rules)
    let date = DeckDate(year: 2026, month: 11, day: 10)!
    let set = builder.candidates(for: UserProfile(id: "u"), history: nil, date: date)
    #expect(set.items == [1, 2])
    #expect(set.pinned == [1])
    rules.excluded = [nfdCafe]
    #expect(throws: DeckCoreError.self) { try DeckBuilder(catalog: catalog, rules: rules) }
  }

  @Test func dinersAreTheirBytesInTheHistory() throws {
    var builder = HistoryBuilder(itemCount: 2)
    let a = builder.userSlot(nfcCafe)
    let b = builder.userSlot(nfdCafe)
    #expect(a != b)
    #expect(builder.userSlot(nfcCafe) == a)
    builder.add(user: a, item: 0, swipe: .right, day: 10)
    builder.add(user: b, item: 1, swipe: .left, day: 11)
    let history = try builder.build()
    #expect(history.users.count == 2)
    #expect(history.users[nfcCafe]?.records.map(\.item) == [0])
    #expect(history.users[nfdCafe]?.records.map(\.item) == [1])
    #expect(history.users["cafe"] == nil)
    #expect(bytes(history.userIDs) == bytes([nfdCafe, nfcCafe]))
    #expect(history.users[nfdCafe].map { Array($0.id.utf8) } == Array(nfdCafe.utf8))
  }

  @Test func snapshotsKeepBothSpellingsApartWhenBuiltAndMerged() throws {
    var x = SnapshotBuilder()
    let ux = x.userSlot(nfcCafe)
    x.add(user: ux, item: x.itemSlot(nfcCafe), swipe: .right, day: 10)
    x.add(user: x.userSlot(nfdCafe), item: x.itemSlot(nfdCafe), swipe: .left, day: 10)
    let one = x.build()
    #expect(bytes(one.items.map(\.id)) == bytes([nfdCafe, nfcCafe]))
    #expect(bytes(one.users.map(\.id)) == bytes([nfdCafe, nfcCafe]))

    var a = SnapshotBuilder()
    a.add(user: a.userSlot(nfcCafe), item: a.itemSlot(nfcCafe), swipe: .right, day: 10)
    var b = SnapshotBuilder()
    b.add(user: b.userSlot(nfdCafe), item: b.itemSlot(nfdCafe), swipe: .left, day: 11)
    let merged = try HistorySnapshot.merge(a.build(), b.build())
    #expect(bytes(merged.items.map(\.id)) == bytes([nfdCafe, nfcCafe]))
    #expect(merged.items.map(\.right) == [0, 1] && merged.items.map(\.left) == [1, 0])
    #expect(bytes(merged.users.map(\.id)) == bytes([nfdCafe, nfcCafe]))
    #expect(try HistorySnapshot.merge(b.build(), a.build()) == merged)

    // Through a catalog of the precomposed dish only, the decomposed one is unknown.
    let catalog = try Catalog(items: [Self.item(nfcCafe)])
    let (history, unknown, unknownIDs) = try merged.history(for: catalog, before: nil)
    #expect(history.itemRight == [1] && history.itemLeft == [0])
    #expect(unknown == 1 && bytes(unknownIDs) == bytes([nfdCafe]))
    #expect(history.users.count == 1 && history.users[nfcCafe] != nil)
  }
}
