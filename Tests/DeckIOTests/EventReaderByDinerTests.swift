import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckIO

/// `EventReader.history(of:)`: a log read in parts into buckets by diner and aggregated one
/// bucket per thread gives the history one reader builds, and says so when it cannot.
@Suite("History by diner on several threads")
struct EventReaderByDinerTests {
  static let catalog = try! Catalog(
    items: (0..<25).map { MenuItem(id: "dish-\($0)", name: "Dish \($0)", category: "c\($0 % 4)") })

  static func same(_ a: History, _ b: History) -> Bool {
    a.itemRight == b.itemRight && a.itemLeft == b.itemLeft && a.users == b.users
      && a.positionShown == b.positionShown && a.positionRight == b.positionRight
      && a.right == b.right && a.left == b.left
  }

  static func serial(_ path: String, _ format: EventFormat, cutoff: DeckDate?) throws -> (
    History, EventReadStats, Int
  ) {
    var ingest = HistoryIngest(catalog: catalog, cutoff: cutoff)
    let stats = try EventReader().read([EventSource(path: path, format: format)], into: &ingest)
    return (try ingest.build(), stats, ingest.builder.skippedFuture)
  }

  static func byDiner(
    _ path: String, _ format: EventFormat, cutoff: DeckDate?, jobs: Int, bucketsPerWorker: Int = 1
  ) throws -> (EventReader.HistoryRead?, EventReadStats, [DinerBuckets]) {
    let items = DinerBuckets.Items(catalog: catalog)
    let read = try EventReader().readInParts(
      path: path, format: format, jobs: jobs, minimumPartBytes: 64,
      sink: { DinerBuckets(items: items, buckets: jobs * bucketsPerWorker) }, finish: { $0 })
    return (
      try EventReader.history(of: read.results, catalog: catalog, cutoff: cutoff, jobs: jobs),
      read.stats, read.results
    )
  }

  @Test(
    "every number of threads and both formats: the one reader's history and counts",
    arguments: [EventFormat.csv, .jsonLines], [2, 3, 7])
  func sameHistory(format: EventFormat, jobs: Int) throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    // The parallel reader's test log: 40 diners, dishes 0 to 24 (some sessions cross parts).
    var text = EventReaderParallelTests.log(format, n: 900, seed: UInt64(jobs))
    // Dishes not in the catalog are counted as unknown, as one reader counts them.
    text = text.replacingOccurrences(of: "dish-24", with: "dish-99")
    let path = dir.appendingPathComponent(format == .csv ? "log.csv" : "log.jsonl").path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    // One bucket per worker, and the many small buckets a history read by diner uses (each
    // worker a run of them).
    for cutoff in [nil, DeckDate(year: 2026, month: 11, day: 20)] {
      for perWorker in [1, 3, DinerBuckets.bucketsPerWorker] {
        let (want, wantStats, wantFuture) = try Self.serial(path, format, cutoff: cutoff)
        let (got, stats, _) = try Self.byDiner(
          path, format, cutoff: cutoff, jobs: jobs, bucketsPerWorker: perWorker)
        let read = try #require(got)
        #expect(Self.same(read.history, want))
        #expect(read.skippedFuture == wantFuture)
        #expect(stats.events == wantStats.events && stats.unknownItemEvents > 0)
        #expect(stats.unknownItemEvents == wantStats.unknownItemEvents)
        #expect(want.users.count > 30)
      }
    }
  }

  @Test func oneIDSpeltTwoWaysIsTwoDinersAndTheBucketsCombine() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    // "café" precomposed and decomposed: two byte strings, one Swift String, two diners.
    var text = ""
    for k in 0..<400 {
      let user = k % 2 == 0 ? "caf\u{E9}" : "cafe\u{301}"
      text += "{\"user\":\"\(user)-\(k % 3)\",\"item\":\"dish-\(k % 25)\",\"swipe\":\"right\","
      text += "\"at\":\"2026-11-\(10 + k % 9)T12:00:00Z\",\"position\":\(1 + k % 5)}\n"
    }
    let path = dir.appendingPathComponent("log.jsonl").path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    let (want, _, _) = try Self.serial(path, .jsonLines, cutoff: nil)
    #expect(want.users.count == 6)
    #expect(
      want.userIDs.filter { $0.hasSuffix("-0") }.map { Array($0.utf8) } == [
        Array("cafe\u{301}-0".utf8), Array("caf\u{E9}-0".utf8),
      ])
    let (got, _, parts) = try Self.byDiner(path, .jsonLines, cutoff: nil, jobs: 7)
    #expect(Self.same(try #require(got).history, want))
    var ingest = HistoryIngest(catalog: Self.catalog)
    DinerBuckets.feed(parts, into: &ingest)
    #expect(Self.same(try ingest.build(), want))
  }

  @Test func combiningRefusesADinerInTwoPartsAndCountsPastInt32() throws {
    var a = HistoryBuilder(itemCount: 2)
    var b = HistoryBuilder(itemCount: 2)
    let ua = a.userSlot("u1")
    let ub = b.userSlot("u2")
    a.add(user: ua, item: 0, swipe: .right, day: 10, position: 3)
    b.add(user: ub, item: 1, swipe: .left, day: 11, position: 1)
    let (ha, hb) = (try a.build(), try b.build())
    let both = try #require(History.combining([ha, hb]))
    #expect(both.userIDs == ["u1", "u2"])
    #expect(both.itemRight == [1, 0] && both.itemLeft == [0, 1])
    #expect(both.positionShown == [1, 0, 1] && both.positionRight == [0, 0, 1])
    #expect(History.combining([ha, ha]) == nil)
  }
}
