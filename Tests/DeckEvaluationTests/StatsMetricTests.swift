import DeckCore
import DeckIO
import DeckTestSupport
import Foundation
import Testing

@testable import DeckEvaluation
@testable import DeckReports
@testable import DeckSimulation

@Suite("Stats: metric list and determinism")
struct StatsMetricTests {
  @Test func namesAreUniqueSnakeCaseAndDefinitionsAreOneLine() {
    let names = StatsMetric.allCases.map(\.name)
    #expect(Set(names).count == names.count)
    for metric in StatsMetric.allCases {
      #expect(
        metric.name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") },
        "\(metric.name)")
      #expect(metric.name.first!.isLetter)
      #expect(!metric.definition.isEmpty)
      #expect(!metric.definition.contains("\n"))
      #expect(!metric.definition.hasSuffix("."))
    }
  }

  @Test func theGroundTruthMetricsComeLastThenTheOptionalOne() {
    let flags = StatsMetric.allCases.map(\.needsGroundTruth)
    #expect(
      flags == Array(repeating: false, count: 13) + Array(repeating: true, count: 3) + [false])
    #expect(StatsMetric.allCases.last == .newDishLikeRate)
    #expect(
      StatsMetric.allCases.filter { $0.isCount } == [
        .decks, .cardsShown, .rightSwipes, .leftSwipes,
      ])
  }

  @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
  func shuffledHandEventsGiveIdenticalBytes(seed: UInt64) {
    let expected = handReport()
    let report = handReport(events: seededShuffle(handEvents, seed: seed))
    for format in StatsFormat.allCases {
      #expect(report.render(format) == expected.render(format))
    }
  }

  /// The bundled sample's two weeks of swipes, under two labels, with ground truth made up from
  /// them: the order of events and records must not change a byte.
  @Test func shuffledSampleLogAndTruthGiveIdenticalBytes() throws {
    let catalog = try Catalog(items: SampleData.items)
    let log = SampleData.files().first { $0.name == "swipes.jsonl" }!.contents
    var collector = SwipeEventCollector()
    _ = try EventReader().read(
      text: log, name: "swipes.jsonl", format: .jsonLines, into: &collector)
    let events = collector.events
    #expect(events.count > 3000)
    let labelled = events.enumerated().map { (n, e) in (e, n % 3 == 0 ? "b" : "a") }
    let truth = events.enumerated().compactMap { (n, e) -> GroundTruthSession? in
      guard n % 7 == 0 else { return nil }
      let u = Double(n % 13) / 3 - 2
      return GroundTruthSession(
        strategy: n % 2 == 0 ? "a" : "b", user: e.user, day: e.deck ?? e.day,
        deck: [u, u / 2, 0.1 * Double(n % 5)], pickedPosition: n % 4 == 0 ? nil : 1 + n % 3,
        oracle: [u + 1, u, -u])
    }
    func render(_ order: UInt64?) -> [[UInt8]] {
      var stats = StatsAccumulator(
        catalog: catalog, options: StatsOptions(deckSize: 10, repeatWindowDays: 6))
      let evs = order.map { seededShuffle(labelled, seed: $0) } ?? labelled
      let gts = order.map { seededShuffle(truth, seed: $0 &+ 100) } ?? truth
      for (e, label) in evs { stats.add(e, strategy: label) }
      for g in gts { stats.add(g) }
      let report = stats.report()
      return StatsFormat.allCases.map { report.render($0) }
    }
    let reference = render(nil)
    #expect(render(7) == reference)
    #expect(render(8) == reference)
    // The EventSink path gives the same as SwipeEvent values.
    var viaSink = StatsAccumulator(catalog: catalog, options: StatsOptions(deckSize: 10))
    _ = try EventReader().read(text: log, name: "swipes.jsonl", format: .jsonLines, into: &viaSink)
    var viaValues = StatsAccumulator(catalog: catalog, options: StatsOptions(deckSize: 10))
    for e in events { viaValues.add(e) }
    #expect(viaSink.report() == viaValues.report())
    #expect(viaSink.report().rows.count == SampleData.historyDays + 1)
  }
}
