import DeckBase
import DeckCore
import DeckIO
import Testing

@testable import DeckEvaluation

@Suite("Evaluation: the logging strategy's bias")
struct LoggingBiasTests {
  private static let catalog = try! Catalog(
    items: ["a", "b"].map { MenuItem(id: $0, name: $0, category: "c") })

  private static func event(_ day: Int, _ item: String, propensity: String?) -> String {
    #"{"user":"u1","item":"\#(item)","swipe":"right","at":"2026-11-\#(day)","position":1"#
      + (propensity.map { ",\"propensity\":\($0)" } ?? "") + "}"
  }

  private static func sink(_ lines: [String], split: LogSplit) throws -> LogSplitSink {
    var sink = LogSplitSink(catalog: catalog, split: split, seed: 1)
    _ = try EventReader().read(
      text: lines.joined(separator: "\n") + "\n", name: "log.jsonl", format: .jsonLines,
      into: &sink)
    return sink
  }

  /// The sink counts the evaluated events that carry a propensity, not the training ones nor
  /// those of dishes outside the catalog.
  @Test func theSplitCountsTheEvaluatedEventsWithAPropensity() throws {
    let sink = try Self.sink(
      [
        Self.event(20, "a", propensity: "0.5"), Self.event(22, "a", propensity: "0.5"),
        Self.event(22, "b", propensity: nil), Self.event(23, "zz", propensity: "0.5"),
      ], split: .date(DeckDate(year: 2026, month: 11, day: 22)!))
    let bias = sink.loggingBias
    #expect(bias.evaluationEvents == 2 && bias.withPropensity == 1)
    #expect(bias.propensities == .some && bias.byDate)
  }

  @Test func theNoteSaysWhatTheLogHoldsToCorrectIt() {
    let start =
      "the ranking metrics favour the logging strategy: a diner could swipe right only on the"
      + " dishes the logged decks showed, so strategies that rank like the logging strategy (and"
      + " its deck rules) are favoured and dishes it seldom showed count as misses (only a"
      + " logging policy that gave every dish the same chance judges all strategies alike); "
    let all = LoggingBias(evaluationEvents: 10, withPropensity: 10, byDate: true)
    #expect(all.propensities == .all)
    #expect(
      all.note
        == start
        + "the log carries propensities: add --ope for off-policy estimates that correct for"
        + " what was shown")
    let some = LoggingBias(evaluationEvents: 10, withPropensity: 4, byDate: true)
    #expect(
      some.note.hasSuffix(
        "only 4 of the 10 evaluated events carry a propensity, and --ope"
          + " needs one on every event: log each card's position and propensity (the logging"
          + " strategy's probability of showing that dish there)"))
    let none = LoggingBias(evaluationEvents: 10, withPropensity: 0, byDate: true)
    #expect(none.propensities == .none)
    #expect(none.note.hasSuffix("then compare with --ope"))
    let untimed = LoggingBias(evaluationEvents: 10, withPropensity: 10, byDate: false)
    #expect(untimed.note.contains("need logs with times (--split DATE)"))
    #expect(
      none.json
        == "{\"propensities\":\"none\",\"evaluation_events\":10,\"with_propensity\":0,\"note\":"
        + JSONText.string(none.note) + "}")
  }
}
