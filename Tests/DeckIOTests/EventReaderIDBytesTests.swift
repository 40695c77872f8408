import DeckCore
import Testing

@testable import DeckIO

/// Diners and dishes are their ids' bytes: two spellings of one text (precomposed and
/// decomposed "café") are two ids in every sink, never one and never a crash.
@Suite struct EventReaderIDBytesTests {
  static let catalog = try! Catalog(items: [
    MenuItem(id: "a", name: "A", category: "x"), MenuItem(id: "b", name: "B", category: "y"),
  ])

  @Test func canonicallyEqualUserIdsAreTwoDinersAndDoNotCrash() throws {
    // "café" precomposed and with a combining accent: equal as Swift strings, two ids (bytes).
    let log =
      "{\"user\":\"caf\u{E9}\",\"item\":\"a\",\"swipe\":\"right\",\"at\":\"2026-11-20\"}\n"
      + "{\"user\":\"cafe\u{301}\",\"item\":\"b\",\"swipe\":\"left\",\"at\":\"2026-11-21\"}\n"
      + "{\"user\":\"u2\",\"item\":\"b\",\"swipe\":\"right\",\"at\":\"2026-11-21\"}\n"
    var sink = HistoryIngest(catalog: Self.catalog)
    _ = try EventReader().read(text: log, name: "log", format: .jsonLines, into: &sink)
    let history = try sink.build()
    #expect(history.users.count == 3)
    #expect(history.users["caf\u{E9}"]?.records.map(\.item) == [0])
    #expect(history.users["cafe\u{301}"]?.records.map(\.item) == [1])
    // In byte order (e 0x65 before é 0xC3), each spelling as it was.
    #expect(
      history.userIDs.map { Array($0.utf8) }
        == ["cafe\u{301}", "caf\u{E9}", "u2"].map { Array($0.utf8) })
    #expect(history.users["u2"]?.right == 1)
  }

  /// A dish is its id's bytes: a log's decomposed "café" is not the catalog's precomposed one. It
  /// is an unknown dish, counted and listed like any other, in every sink that reads the log.
  @Test func aDecomposedIDIsAnUnknownDishOfAPrecomposedCatalog() throws {
    let catalog = try Catalog(items: [
      MenuItem(id: "caf\u{E9}", name: "Café", category: "x"),
      MenuItem(id: "tea", name: "Tea", category: "x"),
    ])
    let log =
      "{\"user\":\"u\",\"item\":\"cafe\u{301}\",\"swipe\":\"right\",\"at\":\"2026-11-20\"}\n"
      + "{\"user\":\"u\",\"item\":\"caf\u{E9}\",\"swipe\":\"left\",\"at\":\"2026-11-20\"}\n"
      + "{\"user\":\"u\",\"item\":\"tea\",\"swipe\":\"right\",\"at\":\"2026-11-20\"}\n"
      + "{\"user\":\"u\",\"item\":\"t\u{E9}\",\"swipe\":\"right\",\"at\":\"2026-11-20\"}\n"
      + "{\"user\":\"u\",\"item\":\"te\u{301}\",\"swipe\":\"right\",\"at\":\"2026-11-20\"}\n"
    var sink = HistoryIngest(catalog: catalog)
    let stats = try EventReader().read(text: log, name: "log", format: .jsonLines, into: &sink)
    #expect(stats.unknownItemEvents == 3)
    // Both spellings of an unknown id are listed: they are two ids.
    #expect(
      stats.unknownItemIDs.map { Array($0.utf8) }
        == ["cafe\u{301}", "t\u{E9}", "te\u{301}"].map { Array($0.utf8) })
    let history = try sink.build()
    #expect(history.itemRight == [0, 1] && history.itemLeft == [1, 0])

    var collector = SwipeEventCollector(knownItems: [IDKey("caf\u{E9}"), "tea"])
    let viaValues = try EventReader().read(
      text: log, name: "log", format: .jsonLines, into: &collector)
    #expect(viaValues.unknownItemEvents == 3)
    #expect(
      collector.events.map { Array($0.item.utf8) } == [Array("caf\u{E9}".utf8), Array("tea".utf8)])

    // A snapshot keeps every id as it is: two dishes for the two spellings.
    var snapshot = SnapshotIngest()
    _ = try EventReader().read(text: log, name: "log", format: .jsonLines, into: &snapshot)
    let s = snapshot.builder.build()
    #expect(
      s.items.map { Array($0.id.utf8) }
        == ["cafe\u{301}", "caf\u{E9}", "tea", "te\u{301}", "t\u{E9}"].map { Array($0.utf8) })
  }
}
