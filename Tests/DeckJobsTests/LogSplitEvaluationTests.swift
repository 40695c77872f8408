import DeckCore
import DeckEvaluation
import DeckIO
import Testing

@testable import DeckJobs

/// The checks that `compare` on logs, `tune` and `compare --tune` make alike on a log split:
/// one message each, with the advice and the asking option of the caller.
struct LogSplitEvaluationTests {
  private static let catalog = try! Catalog(
    items: ["a", "b"].map { MenuItem(id: $0, name: $0, category: "c") })

  private static func sink(_ lines: [String], split: LogSplit) throws -> LogSplitSink {
    var sink = LogSplitSink(catalog: catalog, split: split, seed: 1)
    _ = try EventReader().read(
      text: lines.joined(separator: "\n") + "\n", name: "log.jsonl", format: .jsonLines,
      into: &sink)
    return sink
  }

  private static func like(_ item: String, on day: Int) -> String {
    #"{"user":"u1","item":"\#(item)","swipe":"right","at":"2026-11-\#(day)"}"#
  }

  @Test func anEvaluationPeriodWithoutARightSwipeSaysWhereTheLogEnds() throws {
    let split = LogSplit.date(try #require(DeckDate(year: 2026, month: 11, day: 20)))
    let sink = try Self.sink([Self.like("a", on: 10)], split: split)
    #expect(
      throws: JobError(
        .dataError,
        "no diner swiped right in the evaluation period (\(split.describe(sink.deckDate))):"
          + " nothing to evaluate; choose an earlier --split (the last event is dated 2026-11-10)")
    ) { try CompareLogs.judgedDiners(sink, deckDate: sink.deckDate) }
  }

  @Test func aTuningValidationWithoutARightSwipeNamesTheOptionThatAsked() throws {
    let sink = LogSplitSink(catalog: Self.catalog, split: .holdout(0.2), seed: 1)
    #expect(
      throws: JobError(
        .dataError,
        "--tune: no diner swiped right in the validation (the validation): nothing to tune on;"
          + " give a larger --validation-fraction")
    ) {
      try TuningValidation(
        sink, cut: .fraction(0.1), validationText: "the validation", prefix: "--tune: ",
        catalog: Self.catalog, profiles: [:],
        builder: DeckBuilder(catalog: Self.catalog, rules: DeckRules()), cutoffs: [10],
        runSeed: 1, jobs: 1, JobTestSupport.io())
    }
  }

  @Test func aValidationWithNothingBeforeItWarnsThatEverySettingLearnedNothing() throws {
    let split = LogSplit.date(try #require(DeckDate(year: 2026, month: 11, day: 20)))
    let sink = try Self.sink([Self.like("a", on: 25)], split: split)
    let diagnostics = RecordedDiagnostics()
    let validation = try TuningValidation(
      sink, cut: .days(7), validationText: "the last 7 days", prefix: "--tune: ",
      catalog: Self.catalog, profiles: [:],
      builder: DeckBuilder(catalog: Self.catalog, rules: DeckRules()), cutoffs: [10],
      runSeed: 1, jobs: 1, JobTestSupport.io(diagnostics))
    #expect(validation.diners.map(\.id) == ["u1"])
    #expect(
      diagnostics.lines == [
        "warning: --tune: no training event before the validation (the last 7 days): every"
          + " setting learned nothing; give fewer --validation-days"
      ])
  }
}
