import DeckCore
import Testing

@testable import DeckEvaluation

@Suite struct SnapshotStatsLimitsTests {
  @Test func swipesThatDoNotAddUpIn64BitsAreAnErrorNotATrap() throws {
    let catalog = try Catalog(items: ["a", "b"].map { MenuItem(id: $0, name: $0, category: "c") })
    let snapshot = HistorySnapshot(
      items: [
        .init(id: "a", right: Int64.max - 1, left: 0, positions: []),
        .init(id: "b", right: 5, left: 0, positions: []),
      ], firstDay: 20_000, lastDay: 20_000)
    #expect(throws: DeckCoreError.self) {
      try SnapshotStats.report(snapshot, catalog: catalog, options: StatsOptions(deckSize: 10))
    }
    // At the limit the report is made.
    let full = HistorySnapshot(
      items: [
        .init(id: "a", right: Int64.max - 5, left: 0, positions: []),
        .init(id: "b", right: 5, left: 0, positions: []),
      ], firstDay: 20_000, lastDay: 20_000)
    let report = try SnapshotStats.report(
      full, catalog: catalog, options: StatsOptions(deckSize: 10))
    #expect(report.rows.count == 1)
  }
}
