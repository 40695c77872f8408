import DeckCore
import Foundation

/// The stats a history snapshot can give. A snapshot keeps totals per item and per diner and
/// item, not sessions or days, so only the card-level metrics are known: `cards_shown`,
/// `right_swipes`, `left_swipes`, `like_rate`, `catalog_coverage` and `novelty`, with exactly the
/// definitions (and the same arithmetic, in catalog order) used on logs, in one `(all)`/`all`
/// row. Session metrics (decks, pick rate, swipes to pick, abandonment, diversity, repeat picks)
/// are written as missing. Items missing from the catalog are left out, as on logs.
package enum SnapshotStats {
  /// - Throws: `DeckCoreError.invalidSnapshot` when the snapshot's swipes do not add up in 64
  ///   bits (a decoded or merged snapshot always does).
  package static func report(
    _ snapshot: HistorySnapshot, catalog: Catalog, options: StatsOptions
  ) throws(DeckCoreError) -> StatsReport {
    // Every sum below is a part of this one, which fits.
    _ = try snapshot.totalSwipes()
    guard snapshot.items.allSatisfy({ $0.right >= 0 && $0.left >= 0 }) else {
      throw .invalidSnapshot("a dish has a negative count of swipes")
    }
    var right = [Int](repeating: 0, count: catalog.count)
    var left = [Int](repeating: 0, count: catalog.count)
    for item in snapshot.items {
      guard let i = catalog.index(of: item.id) else { continue }
      right[Int(i)] = Int(item.right)
      left[Int(i)] = Int(item.left)
    }
    let totalRight = right.reduce(0, +)
    let totalLeft = left.reduce(0, +)
    let all = totalRight + totalLeft
    var values: [StatsMetric: Double] = [
      .cardsShown: Double(all), .rightSwipes: Double(totalRight), .leftSwipes: Double(totalLeft),
    ]
    var distinct = 0
    var bits = 0.0
    for i in 0..<catalog.count {
      let n = right[i] + left[i]
      guard n > 0 else { continue }
      distinct += 1
      bits += Double(n) * -log2(Double(n) / Double(all))
    }
    if all > 0 {
      values[.likeRate] = Double(totalRight) / Double(all)
      values[.novelty] = bits / Double(all)
    }
    if catalog.count > 0 { values[.catalogCoverage] = Double(distinct) / Double(catalog.count) }
    return StatsReport(
      options: options, catalogItems: catalog.count, hasGroundTruth: false,
      rows: [StatsRow(strategy: StatsAccumulator.unlabelled, day: nil, values: values)])
  }
}
