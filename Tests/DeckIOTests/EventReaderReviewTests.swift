import DeckCore
import Testing

@testable import DeckIO

/// Inputs that once crashed the reader or its history sink.
@Suite struct EventReaderReviewTests {
  static let catalog = try! Catalog(items: [
    MenuItem(id: "a", name: "A", category: "x"), MenuItem(id: "b", name: "B", category: "y"),
  ])

  @Test(arguments: ["2147483648", "3000000000", "9999999999", "99999999999999999999"])
  func positionsBeyondInt32AreAnErrorNotACrash(_ position: String) {
    let line =
      "{\"user\":\"u\",\"item\":\"a\",\"swipe\":\"left\",\"at\":\"2026-11-20\",\"position\":\(position)}\n"
    var sink = HistoryIngest(catalog: Self.catalog)
    #expect(throws: DeckIOError.self) {
      _ = try EventReader().read(text: line, name: "log", format: .jsonLines, into: &sink)
    }
    var csvSink = HistoryIngest(catalog: Self.catalog)
    #expect(throws: DeckIOError.self) {
      _ = try EventReader().read(
        text: "user,item,swipe,at,position\nu,a,left,2026-11-20,\(position)\n", name: "log",
        format: .csv, into: &csvSink)
    }
  }

  @Test func canonicallyEqualUserIdsAreOneDinerAndDoNotCrash() throws {
    // "café" precomposed and with a combining accent: equal as Swift strings.
    let log =
      "{\"user\":\"caf\u{E9}\",\"item\":\"a\",\"swipe\":\"right\",\"at\":\"2026-11-20\"}\n"
      + "{\"user\":\"cafe\u{301}\",\"item\":\"b\",\"swipe\":\"left\",\"at\":\"2026-11-21\"}\n"
      + "{\"user\":\"u2\",\"item\":\"b\",\"swipe\":\"right\",\"at\":\"2026-11-21\"}\n"
    var sink = HistoryIngest(catalog: Self.catalog)
    _ = try EventReader().read(text: log, name: "log", format: .jsonLines, into: &sink)
    let history = try sink.build()
    #expect(history.users.count == 2)
    #expect(history.users["caf\u{E9}"]?.records.count == 2)
    #expect(history.users["u2"]?.right == 1)
  }
}
