import DeckCore
import Testing

@testable import DeckIO

/// A position beyond the 32-bit range is an error of its line, never a crash, in JSON Lines and
/// CSV logs.
@Suite struct EventReaderPositionLimitTests {
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
}
