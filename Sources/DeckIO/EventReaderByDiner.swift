import DeckBase
import DeckCore

// A history read on every core, partitioned by diner
// ===================================================
//
// Aggregating a log of many interleaved diners is bound by memory: every swipe reaches the
// table of another diner. Read in parts and merged (as `readSnapshot` does), each part's
// aggregation would be as big as the whole and the merge as slow as a part. So the work is split
// by diner instead, as column engines split a GROUP BY:
//
// 1. Each part of the file (`readInParts`, a few parts per worker), or each log read whole, is
//    parsed by a worker into buckets by a hash of the diner's id bytes: per swipe the diner's id
//    bytes, the dish's catalog index, the direction, the day and the position. The reader
//    counts lines, unknown dishes and rejects as it always does.
// 2. Each run of buckets is aggregated by a worker into a history (`HistoryIngest`), the parts
//    in file order: a diner's swipes arrive in the order of the files. The workers take the
//    next part, and the next run, as they come free.
// 3. The buckets' histories share no diner, so they are put side by side
//    (`History.combining`): item and position counts added, diners side by side.
//
// The result is the history one reader builds (tested). A diner is the bytes of its id (`IDKey`),
// and the buckets split by those bytes, so no two buckets hold one diner; should they (or a count
// pass Int32), `combining` says so and the caller reads the logs the one way.
//
// Memory: beside the history, every swipe is held once between the two steps (its diner's id
// bytes and 20 bytes), so it grows with the log, not with the number of threads.

/// One part's swipes, by bucket.
package struct DinerBuckets: EventSink, @unchecked Sendable {
  struct Swipe {
    var userStart: Int32
    var userLength: Int32
    var item: Int32
    var day: Int32
    var position: Int32
    var right: Bool
  }

  struct Bucket {
    var ids: [UInt8] = []
    var swipes: [Swipe] = []
    /// With `keepsTimes`: each swipe's time and its day for stats (the deck's, else its own).
    var times: [Int64] = []
    var statsDays: [Int32] = []

    /// Adds this bucket's swipes, in order, to `ingest`.
    func feed(into ingest: inout HistoryIngest) {
      ids.withUnsafeBufferPointer { ids in
        for s in swipes {
          ingest.add(
            user: UnsafeBufferPointer(
              rebasing: ids[Int(s.userStart)..<Int(s.userStart + s.userLength)]),
            item: s.item, swipe: s.right ? .right : .left, day: s.day, position: s.position)
        }
      }
    }
  }

  /// The buckets per worker when a history is read by diner: 32 buckets of 2 workers hold some
  /// 1,500 of 100,000 diners each, whose tables fit in a core's cache while they are added up.
  package static let bucketsPerWorker = 32
  /// Runs of buckets per worker when a history is built from them
  /// (`EventReader.history(of:catalog:cutoff:jobs:)`).
  package static let runsPerWorker = 4

  /// The catalog's dishes, made once and shared by the parts.
  package struct Items: @unchecked Sendable {
    let index: ItemIndex
    package init(catalog: Catalog) { index = ItemIndex(ids: catalog.items.map(\.id)) }
  }

  private let items: ItemIndex
  private(set) var buckets: [Bucket]
  /// Whether each swipe's time and deck day are kept too (for stats).
  let keepsTimes: Bool

  package init(items: Items, buckets: Int, keepsTimes: Bool = false) {
    self.items = items.index
    self.buckets = Array(repeating: Bucket(), count: max(1, buckets))
    self.keepsTimes = keepsTimes
  }

  /// Feeds every part's swipes, bucket by bucket, into one aggregation (the history does not
  /// depend on the order of the swipes).
  package static func feed(_ parts: [DinerBuckets], into ingest: inout HistoryIngest) {
    guard let count = parts.first?.buckets.count else { return }
    for b in 0..<count {
      for part in parts { part.buckets[b].feed(into: &ingest) }
    }
    ingest.finish()
  }

  /// The bucket of a diner id: the same for the same bytes in every part and run.
  @inline(__always)
  static func bucket(_ user: UnsafeBufferPointer<UInt8>, of count: Int) -> Int {
    Int(truncatingIfNeeded: ByteTable.hash(user) % UInt64(count))
  }

  @inline(__always)
  package mutating func event(_ e: RawEvent) -> EventDisposition {
    guard let item = items.find(e.item) else { return .unknownItem }
    let b = Self.bucket(e.user, of: buckets.count)
    let start = buckets[b].ids.count
    buckets[b].ids.append(contentsOf: e.user)
    buckets[b].swipes.append(
      Swipe(
        userStart: Int32(truncatingIfNeeded: start), userLength: Int32(e.user.count), item: item,
        day: e.day, position: e.position, right: e.swipe == .right))
    if keepsTimes {
      buckets[b].times.append(e.at)
      buckets[b].statsDays.append(e.deck?.daysSinceEpoch ?? e.day)
    }
    return .accepted
  }

  /// Calls `body` with each swipe of bucket `b` in order: the diner's id bytes, the dish's
  /// catalog index, the direction, the time, the position and the stats day (`keepsTimes`).
  package func forEachSwipe(
    inBucket b: Int,
    _ body: (UnsafeBufferPointer<UInt8>, Int32, SwipeDirection, Int64, Int32, Int32) -> Void
  ) {
    let bucket = buckets[b]
    precondition(keepsTimes, "the swipes' times were not kept")
    bucket.ids.withUnsafeBufferPointer { ids in
      for (k, s) in bucket.swipes.enumerated() {
        body(
          UnsafeBufferPointer(rebasing: ids[Int(s.userStart)..<Int(s.userStart + s.userLength)]),
          s.item, s.right ? .right : .left, bucket.times[k], s.position, bucket.statsDays[k])
      }
    }
  }

  /// How many buckets the swipes are in.
  package var bucketCount: Int { buckets.count }

  /// Whether a bucket's ids fit the 32-bit offsets (2 GiB of diner ids in one bucket of one
  /// part: a part is read whole beyond that).
  var fits: Bool { buckets.allSatisfy { $0.ids.count <= Int(Int32.max) } }
}

extension EventReader {
  /// What reading logs into a history by diner gave.
  package struct HistoryRead: Sendable {
    package var history: History
    /// Swipes on or after the cutoff, not aggregated.
    package var skippedFuture: Int
  }

  /// The history of `parts` (each a part of a log, or a log, parsed into `DinerBuckets` of as
  /// many buckets), aggregated on `jobs` threads in runs of buckets (`runsPerWorker` each);
  /// nil when the buckets' histories cannot be put together (see above) and the logs must be
  /// read the one way.
  package static func history(
    of parts: [DinerBuckets], catalog: Catalog, cutoff: DeckDate?, jobs: Int
  ) throws(DeckCoreError) -> HistoryRead? {
    guard let count = parts.first?.buckets.count, parts.allSatisfy({ $0.fits }) else {
      return nil
    }
    let shared = SharedParts(parts: parts)
    let workers = max(1, min(jobs, count))
    // A few runs per worker, the workers taking the next run as they come free (a run of
    // buckets may take longer than another: more swipes, or memory that costs more to touch
    // first); the histories of the runs are put together in run order.
    let runs = workers == 1 ? 1 : min(count, workers * DinerBuckets.runsPerWorker)
    let built = Parallel.map(count: runs, jobs: workers) { w in
      Result { () throws(DeckCoreError) -> (History, Int) in
        var ingest = HistoryIngest(catalog: catalog, cutoff: cutoff)
        // A bucket's diners are interned together, so that their tables lie side by side.
        for b in (w * count / runs)..<((w + 1) * count / runs) {
          for part in shared.parts { part.buckets[b].feed(into: &ingest) }
        }
        ingest.finish()
        let builder = ingest.builder
        return (try builder.build(), builder.skippedFuture)
      }
    }
    var histories: [History] = []
    var skippedFuture = 0
    for result in built {
      let (history, future) = try result.get()
      histories.append(history)
      skippedFuture += future
    }
    guard let history = History.combining(histories) else { return nil }
    return HistoryRead(history: history, skippedFuture: skippedFuture)
  }
}

private struct SharedParts: @unchecked Sendable {
  let parts: [DinerBuckets]
}
