import DeckCore
import DeckIO
import Foundation
import Testing

@testable import DeckLab

/// One session of strategy `x` on 11-01 (a left @1, b right @2), 11-02 listed with no sessions.
private func smallReport() -> StatsReport {
  var stats = StatsAccumulator(
    catalog: statsCatalog, options: StatsOptions(deckSize: 3, days: nov(1)...nov(2)))
  stats.add(statsSwipe("u1", "a", .left, day: 1, position: 1), strategy: "x")
  stats.add(statsSwipe("u1", "b", .right, day: 1, second: 1, position: 2), strategy: "x")
  return stats.report()
}

private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

@Suite("Stats: writers")
struct StatsWriterTests {
  @Test func csv() {
    #expect(
      text(smallReport().render(.csv)) == """
        strategy,day,decks,cards_shown,right_swipes,left_swipes,like_rate,pick_rate,mean_swipes_to_pick,abandon_rate,finished_without_pick_rate,catalog_coverage,intra_deck_diversity,novelty,repeat_pick_rate
        x,2026-11-01,1,2,1,1,0.5,1.0,2.0,0.0,0.0,0.4,1.0,1.0,0.0
        x,2026-11-02,0,0,0,0,,,,,,0.0,,,
        x,all,1,2,1,1,0.5,1.0,2.0,0.0,0.0,0.4,1.0,1.0,0.0

        """)
  }

  /// A simulation reports its ground-truth columns in every run, also one without a session
  /// (undefined values), so that a reader of the output always finds the same columns; a log,
  /// which has no ground truth, never has them.
  @Test func groundTruthColumnsStandWithoutSessions() {
    var simulated = StatsAccumulator(
      catalog: statsCatalog, options: StatsOptions(deckSize: 3, days: nov(1)...nov(1)))
    simulated.expectGroundTruth()
    let empty = simulated.report()
    #expect(empty.metrics.contains(.ndcgAtK) && empty.metrics.contains(.meanRegret))
    let header = text(empty.render(.csv)).split(separator: "\n").first ?? ""
    #expect(header.hasSuffix(",mean_pick_utility,mean_regret,ndcg_at_k"))
    #expect(empty.rows.allSatisfy { $0[.ndcgAtK] == nil })
    let table = simulated.unitTable(strategies: ["(all)"], units: ["u1"])
    #expect(table.metrics.map(\.name).contains("ndcg_at_k"))
    let (arms, _) = Resampling.analyze(
      table, baseline: 0, options: ResamplingOptions(resamples: 20, seed: 1))
    #expect(arms.count == 1)
    #expect(!smallReport().metrics.contains(.ndcgAtK))
  }

  @Test func json() {
    #expect(
      text(smallReport().render(.json)) == """
        {"parameters":{"deck_size":3,"ndcg_k":3,"repeat_window_days":null,"catalog_items":5},
        "rows":[
        {"strategy":"x","day":"2026-11-01","decks":1,"cards_shown":2,"right_swipes":1,"left_swipes":1,"like_rate":0.5,"pick_rate":1.0,"mean_swipes_to_pick":2.0,"abandon_rate":0.0,"finished_without_pick_rate":0.0,"catalog_coverage":0.4,"intra_deck_diversity":1.0,"novelty":1.0,"repeat_pick_rate":0.0},
        {"strategy":"x","day":"2026-11-02","decks":0,"cards_shown":0,"right_swipes":0,"left_swipes":0,"like_rate":null,"pick_rate":null,"mean_swipes_to_pick":null,"abandon_rate":null,"finished_without_pick_rate":null,"catalog_coverage":0.0,"intra_deck_diversity":null,"novelty":null,"repeat_pick_rate":null},
        {"strategy":"x","day":"all","decks":1,"cards_shown":2,"right_swipes":1,"left_swipes":1,"like_rate":0.5,"pick_rate":1.0,"mean_swipes_to_pick":2.0,"abandon_rate":0.0,"finished_without_pick_rate":0.0,"catalog_coverage":0.4,"intra_deck_diversity":1.0,"novelty":1.0,"repeat_pick_rate":0.0}
        ]}

        """)
  }

  @Test func jsonParsesAndHasNoNaN() throws {
    let data = Data(smallReport().render(.json))
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let rows = try #require(object["rows"] as? [[String: Any]])
    #expect(rows.count == 3)
    #expect(rows[1]["like_rate"] is NSNull)
    #expect(!text(Array(data)).lowercased().contains("nan"))
  }

  @Test func table() {
    #expect(
      text(smallReport().render(.table)) == """
        strategy  day         decks  cards_shown  right_swipes  left_swipes  like_rate  pick_rate
        x         2026-11-01      1            2             1            1     0.5000     1.0000
        x         2026-11-02      0            0             0            0          -          -
        x         all             1            2             1            1     0.5000     1.0000

        strategy  day         mean_swipes_to_pick  abandon_rate  finished_without_pick_rate
        x         2026-11-01               2.0000        0.0000                      0.0000
        x         2026-11-02                    -             -                           -
        x         all                      2.0000        0.0000                      0.0000

        strategy  day         catalog_coverage  intra_deck_diversity  novelty  repeat_pick_rate
        x         2026-11-01            0.4000                1.0000   1.0000            0.0000
        x         2026-11-02            0.0000                     -        -                 -
        x         all                   0.4000                1.0000   1.0000            0.0000

        """)
  }

  @Test func groundTruthColumnsAppearOnlyWithGroundTruth() {
    var stats = StatsAccumulator(catalog: statsCatalog, options: StatsOptions(deckSize: 2))
    stats.add(
      GroundTruthSession(
        strategy: "x", user: "u1", day: nov(1), deck: [0, 1], pickedPosition: 2,
        oracle: [1, 0]))
    #expect(
      text(stats.report().render(.csv)) == """
        strategy,day,decks,cards_shown,right_swipes,left_swipes,like_rate,pick_rate,mean_swipes_to_pick,abandon_rate,finished_without_pick_rate,catalog_coverage,intra_deck_diversity,novelty,repeat_pick_rate,mean_pick_utility,mean_regret,ndcg_at_k
        x,2026-11-01,0,0,0,0,,,,,,0.0,,,,1.0,0.0,0.9185141564547846
        x,all,0,0,0,0,,,,,,0.0,,,,1.0,0.0,0.9185141564547846

        """)
  }

  @Test func writerQuotesAlignsWideTextAndHidesNonFiniteNumbers() {
    let table = StatsTable(
      parameters: [StatsParameter(name: "p", value: .number(0.1234567))],
      columns: ["n", "rate"],
      rows: [
        StatsTableRow(strategy: "a,\"b\"", day: "all", cells: [.count(-3), .number(.nan)]),
        StatsTableRow(strategy: "定食", day: "2026-11-01", cells: [.count(12), .number(-0.00004)]),
      ])
    #expect(
      text(StatsWriter.render(table, format: .csv)) == #"""
        strategy,day,n,rate
        "a,""b""",all,-3,
        定食,2026-11-01,12,-4e-05

        """#)
    #expect(
      text(StatsWriter.render(table, format: .table)) == """
        strategy  day          n    rate
        a,"b"     all         -3       -
        定食      2026-11-01  12  0.0000

        """)
    #expect(
      text(StatsWriter.render(table, format: .json)) == """
        {"parameters":{"p":0.1234567},
        "rows":[
        {"strategy":"a,\\"b\\"","day":"all","n":-3,"rate":null},
        {"strategy":"定食","day":"2026-11-01","n":12,"rate":-4e-05}
        ]}

        """)
  }

  @Test func wideTablesSplitIntoPanelsOfAtLeastOneMetric() {
    let wide = String(repeating: "w", count: 95)
    let table = StatsTable(
      parameters: [], columns: ["n", wide, "m"],
      rows: [StatsTableRow(strategy: "s", day: "all", cells: [.count(1), .count(2), .count(3)])])
    let expected = [
      "strategy  day  n", "s         all  1", "",
      "strategy  day  " + wide, "s         all  " + String(repeating: " ", count: 94) + "2", "",
      "strategy  day  m", "s         all  3", "",
    ]
    #expect(text(StatsWriter.render(table, format: .table)) == expected.joined(separator: "\n"))
    #expect(StatsWriter.tableWidth == 100)
  }

  @Test func noMetricColumns() {
    let table = StatsTable(
      parameters: [], columns: [], rows: [StatsTableRow(strategy: "s", day: "all", cells: [])])
    #expect(text(StatsWriter.render(table, format: .table)) == "strategy  day\ns         all\n")
    #expect(text(StatsWriter.render(table, format: .csv)) == "strategy,day\ns,all\n")
  }

  @Test func emptyTable() {
    let table = StatsTable(parameters: [], columns: ["n"], rows: [])
    #expect(text(StatsWriter.render(table, format: .json)) == "{\"parameters\":{},\n\"rows\":[]}\n")
    #expect(text(StatsWriter.render(table, format: .csv)) == "strategy,day,n\n")
    #expect(text(StatsWriter.render(table, format: .table)) == "strategy  day  n\n")
  }

  @Test func writeSendsTheRenderedBytes() throws {
    let output = MemoryOutput()
    try StatsWriter.write(smallReport().table, format: .csv, to: output)
    #expect(output.bytes == smallReport().render(.csv))
  }
}
