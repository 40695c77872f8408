import Testing

@testable import DeckEvaluation
@testable import DeckReports

@Suite("compare --per-diner: one row per strategy, diner and metric")
struct PerDinerWriterTests {
  @Test func eachFormIsTheMetricOverOneDinerAndIdsAreQuoted() {
    let metrics = [
      MetricSpec(name: "decks", definition: "", form: .total),
      MetricSpec(name: "like_rate", definition: "", form: .ratio),
      MetricSpec(name: "coverage", definition: "", form: .coverage(catalogItems: 4)),
    ]
    var a = ArmUnits(arm: "pop", units: 2, metrics: 3)
    a.add(unit: 0, metric: 0, numerator: 3)
    a.add(unit: 0, metric: 1, numerator: 1, denominator: 3)
    a.items[0] = [0, 2]
    // Diner 1: no cards, so its like rate is undefined (an empty value), its sums 0 and 0.
    let table = UnitTable(metrics: metrics, units: ["a,b", "c"], arms: [a])
    let text = String(decoding: PerDinerWriter.csv([table]), as: UTF8.self)
    #expect(
      text == """
        strategy,diner,metric,value,numerator,denominator
        pop,"a,b",decks,3,3,
        pop,"a,b",like_rate,0.3333333333333333,1,3
        pop,"a,b",coverage,0.5,2,4
        pop,c,decks,0,0,
        pop,c,like_rate,,0,0
        pop,c,coverage,0.0,0,4

        """)
    #expect(String(decoding: PerDinerWriter.csv([]), as: UTF8.self) == PerDinerWriter.header)
  }
}
