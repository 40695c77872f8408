import DeckCore
import DeckIO

/// The training events of a comparison on logs as a swipe log (CSV, the columns `EventWriter`
/// writes), so that reference implementations elsewhere can learn from exactly the swipes the
/// strategies learned from: after the column mapping and the `--right`/`--left` rules (neutral
/// ratings are no event), without the events of dishes outside the catalog, and without the
/// evaluated events of the split or hold-out. One row per event, in the order read.
///
/// `compare --trec DIR` writes it as `DIR/train.csv`. A log without times (a column mapping
/// with no `at`) is read with every event at 1970-01-01T00:00, and so written.
package struct TrainingLog {
  private let memory = MemoryOutput()
  private let writer: EventWriter
  /// The first error of the writer, thrown by `bytes()` (an in-memory output does not fail).
  private var failure: DeckIOError?

  /// `zone` gives each time its offset from UTC, as every log menudeck writes carries.
  package init(zone: (any UTCOffsetProvider)?) {
    writer = EventWriter(format: .csv, output: memory, zone: zone)
  }

  /// Rows written so far.
  package var count: Int { writer.count }

  /// Adds one training event.
  package mutating func add(_ e: RawEvent) {
    guard failure == nil else { return }
    do { try writer.write(LogEvent(e)) } catch { failure = error }
  }

  /// The CSV: the header, then a row per event added.
  package func bytes() throws(DeckIOError) -> [UInt8] {
    if let failure { throw failure }
    try writer.finish()
    return memory.bytes
  }
}
