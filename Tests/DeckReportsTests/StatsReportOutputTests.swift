import DeckCore
import DeckIO
import DeckTestSupport
import Foundation
import Testing

@testable import DeckEvaluation
@testable import DeckReports

/// One session of strategy `x` on 11-01 (a left @1, b right @2), 11-02 listed with no sessions.
private func smallReport() -> StatsReport {
  var stats = StatsAccumulator(
    catalog: statsCatalog, options: StatsOptions(deckSize: 3, days: nov(1)...nov(2)))
  stats.add(statsSwipe("u1", "a", .left, day: 1, position: 1), strategy: "x")
  stats.add(statsSwipe("u1", "b", .right, day: 1, second: 1, position: 2), strategy: "x")
  return stats.report()
}

private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// A stats report as the writers get it (`StatsReport.table`): its columns, rows and values in
/// every format.
@Suite("Stats: the report's outputs")
struct StatsReportOutputTests {
  /// The tidy CSV: a row per strategy, day and metric; the row over every day marked by
  /// `overall`, with no day; every value a floating-point number, undefined ones empty.
  @Test func csv() {
    let lines = text(smallReport().render(.csv)).split(
      separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.first == "strategy,day,overall,metric,value")
    #expect(lines.count == 1 + 3 * 13 + 1 && lines.last == "")
    #expect(
      Array(lines[1...6]) == [
        "x,2026-11-01,false,decks,1.0", "x,2026-11-01,false,cards_shown,2.0",
        "x,2026-11-01,false,right_swipes,1.0", "x,2026-11-01,false,left_swipes,1.0",
        "x,2026-11-01,false,like_rate,0.5", "x,2026-11-01,false,pick_rate,1.0",
      ])
    #expect(lines.contains("x,2026-11-02,false,like_rate,"))
    #expect(lines.contains("x,,true,like_rate,0.5"))
    #expect(lines[lines.count - 2] == "x,,true,repeat_pick_rate,0.0")
  }

  /// The tidy JSON Lines hold the same records as the CSV, one object each, nulls for the
  /// undefined values and for the day of the row over every day.
  @Test func jsonLinesMatchTheWideRows() throws {
    let report = smallReport()
    let lines = text(report.render(.jsonl)).split(separator: "\n")
    #expect(lines.count == 3 * 13)
    #expect(
      lines[0]
        == #"{"strategy":"x","day":"2026-11-01","overall":false,"metric":"decks","value":1.0}"#)
    #expect(
      lines.contains(
        #"{"strategy":"x","day":null,"overall":true,"metric":"like_rate","value":0.5}"#))
    #expect(
      lines.contains(
        #"{"strategy":"x","day":"2026-11-02","overall":false,"metric":"like_rate","value":null}"#))
    for line in lines {
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      #expect(object.keys.sorted() == ["day", "metric", "overall", "strategy", "value"])
    }
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
    let lines = text(empty.render(.csv)).split(separator: "\n")
    #expect(
      lines.suffix(3).map { $0.split(separator: ",", omittingEmptySubsequences: false)[3] } == [
        "mean_pick_utility", "mean_regret", "ndcg_at_k",
      ])
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
        {"strategy":"x","day":"2026-11-01","overall":false,"decks":1,"cards_shown":2,"right_swipes":1,"left_swipes":1,"like_rate":0.5,"pick_rate":1.0,"mean_swipes_to_pick":2.0,"abandon_rate":0.0,"finished_without_pick_rate":0.0,"catalog_coverage":0.4,"intra_deck_diversity":1.0,"novelty":1.0,"repeat_pick_rate":0.0},
        {"strategy":"x","day":"2026-11-02","overall":false,"decks":0,"cards_shown":0,"right_swipes":0,"left_swipes":0,"like_rate":null,"pick_rate":null,"mean_swipes_to_pick":null,"abandon_rate":null,"finished_without_pick_rate":null,"catalog_coverage":0.0,"intra_deck_diversity":null,"novelty":null,"repeat_pick_rate":null},
        {"strategy":"x","day":null,"overall":true,"decks":1,"cards_shown":2,"right_swipes":1,"left_swipes":1,"like_rate":0.5,"pick_rate":1.0,"mean_swipes_to_pick":2.0,"abandon_rate":0.0,"finished_without_pick_rate":0.0,"catalog_coverage":0.4,"intra_deck_diversity":1.0,"novelty":1.0,"repeat_pick_rate":0.0}
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
    let lines = text(stats.report().render(.csv)).split(separator: "\n").map(String.init)
    #expect(lines.count == 1 + 2 * 16)
    for day in ["2026-11-01,false", ",true"] {
      for (metric, value) in [
        ("decks", "0.0"), ("like_rate", ""), ("catalog_coverage", "0.0"),
        ("mean_pick_utility", "1.0"), ("mean_regret", "0.0"), ("ndcg_at_k", "0.9185141564547846"),
      ] {
        #expect(lines.contains("x,\(day),\(metric),\(value)"))
      }
    }
  }
}
