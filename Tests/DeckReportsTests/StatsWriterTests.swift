import DeckBase
import DeckIO
import Foundation
import Testing

@testable import DeckReports

private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// The stats writer of every stats output (`stats`, `simulate`): CSV quoting, the aligned
/// table and its panels, JSON numbers and nulls, from a `StatsTable` built by hand.
@Suite("Stats: writers")
struct StatsWriterTests {
  @Test func writerQuotesAlignsWideTextAndHidesNonFiniteNumbers() {
    let table = StatsTable(
      parameters: [StatsParameter(name: "p", value: .number(0.1234567))],
      columns: ["n", "rate"],
      rows: [
        StatsTableRow(strategy: "a,\"b\"", day: nil, cells: [.count(-3), .number(.nan)]),
        StatsTableRow(strategy: "定食", day: "2026-11-01", cells: [.count(12), .number(-0.00004)]),
      ])
    #expect(
      text(StatsWriter.render(table, format: .csv)) == #"""
        strategy,day,overall,metric,value
        "a,""b""",,true,n,-3.0
        "a,""b""",,true,rate,
        定食,2026-11-01,false,n,12.0
        定食,2026-11-01,false,rate,-4e-05

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
        {"strategy":"a,\\"b\\"","day":null,"overall":true,"n":-3,"rate":null},
        {"strategy":"定食","day":"2026-11-01","overall":false,"n":12,"rate":-4e-05}
        ]}

        """)
  }

  @Test func wideTablesSplitIntoPanelsOfAtLeastOneMetric() {
    let wide = String(repeating: "w", count: 95)
    let table = StatsTable(
      parameters: [], columns: ["n", wide, "m"],
      rows: [StatsTableRow(strategy: "s", day: nil, cells: [.count(1), .count(2), .count(3)])])
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
      parameters: [], columns: [], rows: [StatsTableRow(strategy: "s", day: nil, cells: [])])
    #expect(text(StatsWriter.render(table, format: .table)) == "strategy  day\ns         all\n")
    #expect(text(StatsWriter.render(table, format: .csv)) == "strategy,day,overall,metric,value\n")
    #expect(text(StatsWriter.render(table, format: .jsonl)) == "")
  }

  @Test func emptyTable() {
    let table = StatsTable(parameters: [], columns: ["n"], rows: [])
    #expect(text(StatsWriter.render(table, format: .json)) == "{\"parameters\":{},\n\"rows\":[]}\n")
    #expect(text(StatsWriter.render(table, format: .csv)) == "strategy,day,overall,metric,value\n")
    #expect(text(StatsWriter.render(table, format: .table)) == "strategy  day  n\n")
  }

  @Test func writeSendsTheRenderedBytes() throws {
    let table = StatsTable(
      parameters: [StatsParameter(name: "p", value: .number(0.5))], columns: ["n"],
      rows: [StatsTableRow(strategy: "s", day: "2026-11-01", cells: [.count(2)])])
    let output = MemoryOutput()
    try StatsWriter.write(table, format: .csv, to: output)
    #expect(output.bytes == StatsWriter.render(table, format: .csv))
  }
}
