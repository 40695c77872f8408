import DeckBase
import DeckEvaluation

/// `compare --per-diner FILE`: every metric of every strategy for every diner, as `trec_eval -q`
/// gives every measure per query. One tidy CSV row per (strategy, diner, metric):
///
///     strategy,diner,metric,value,numerator,denominator
///     popularity,u01,ndcg_at_k,0.6309297535714574,0.6309297535714574,1
///     popularity,u01,like_rate,0.25,3,12
///
/// A diner's value is the metric over that diner alone: its sum for a count, its numerator over
/// its denominator for a ratio (empty when the diner has no denominator, e.g. no deck with a
/// pick for `mean_swipes_to_pick`), its distinct dishes over the catalog for coverage.
/// `numerator` and `denominator` are the diner's sums the value is made of (`UnitTable`): for a
/// ratio both (also when the denominator is 0), for a count the count and an empty denominator,
/// for coverage the distinct dishes and the catalog's size. The report's estimate of a ratio is
/// the sum of the numerators over the sum of the denominators, and the t-test and Wilcoxon
/// p-values are computed from them (`PairedTests`). Counts, and numerators and denominators that
/// are whole, are written as whole numbers; the rest in full precision (the shortest text that
/// reads back as the same double). Rows come in the strategies' order, then the diners' (byte
/// order of their ids), then the metrics'.
package enum PerDinerWriter {
  package static let header = "strategy,diner,metric,value,numerator,denominator\n"

  /// The CSV of `tables` (the report's unit tables). Tables may differ in their arms (a
  /// policy file has off-policy estimates only) and units (the ranking metrics judge the diners
  /// with a right swipe, the off-policy estimates every diner with a logged card): an arm's rows
  /// cover the union of the diners of the tables that hold it, in byte order of their ids, and
  /// each diner has the metrics of the tables that hold both.
  package static func csv(_ tables: [UnitTable]) -> [UInt8] {
    var out = Array(header.utf8)
    var armNames: [String] = []
    for table in tables {
      for arm in table.arms where !armNames.contains(arm.arm) { armNames.append(arm.arm) }
    }
    // Per table, the index of each unit by the bytes of its id.
    let unitIndex = tables.map { table in
      Dictionary(
        table.units.enumerated().map { (Array($1.utf8), $0) }, uniquingKeysWith: { a, _ in a })
    }
    for armName in armNames {
      let name = Array(TextLayout.csvField(armName).utf8)
      let holding = tables.indices.compactMap { t in
        tables[t].arms.firstIndex { $0.arm == armName }.map { (table: t, arm: $0) }
      }
      var diners: [[UInt8]] = []
      var seen = Set<[UInt8]>()
      for (t, _) in holding {
        for unit in tables[t].units where seen.insert(Array(unit.utf8)).inserted {
          diners.append(Array(unit.utf8))
        }
      }
      diners.sort { $0.lexicographicallyPrecedes($1) }
      for diner in diners {
        let field = Array(TextLayout.csvField(String(decoding: diner, as: UTF8.self)).utf8)
        for (t, a) in holding {
          guard let u = unitIndex[t][diner] else { continue }
          let table = tables[t]
          for (m, metric) in table.metrics.enumerated() {
            out += name
            out.append(0x2C)
            out += field
            out.append(0x2C)
            out += Array(metric.name.utf8)
            out.append(0x2C)
            if let v = value(table, arm: a, unit: u, metric: m) {
              // A count as a whole number; everything else in full precision.
              out += Array(number(v, whole: metric.isCount).utf8)
            }
            let (numerator, denominator) = sums(table, arm: a, unit: u, metric: m)
            out.append(0x2C)
            if let numerator { out += Array(number(numerator, whole: true).utf8) }
            out.append(0x2C)
            if let denominator { out += Array(number(denominator, whole: true).utf8) }
            out.append(0x0A)
          }
        }
      }
    }
    return out
  }

  /// `v` as a whole number when `whole` allows and it is one, else in full precision.
  private static func number(_ v: Double, whole: Bool) -> String {
    whole && v == v.rounded() && abs(v) < 9e15 ? "\(Int(v))" : Text.roundTrip(v)
  }

  /// The diner's numerator and denominator of the metric (see the type's documentation); nil
  /// for a part that is not there or not a finite number.
  package static func sums(_ table: UnitTable, arm: Int, unit: Int, metric: Int) -> (
    Double?, Double?
  ) {
    let a = table.arms[arm]
    func finite(_ v: Double) -> Double? { v.isFinite ? v : nil }
    switch table.metrics[metric].form {
    case .total: return (finite(a.numerator(unit: unit, metric: metric)), nil)
    case .ratio:
      return (
        finite(a.numerator(unit: unit, metric: metric)),
        finite(a.denominator(unit: unit, metric: metric))
      )
    case .coverage(let catalogItems):
      return (Double(a.items[unit].count), Double(catalogItems))
    }
  }

  /// The metric over one diner: nil when undefined or not a finite number.
  package static func value(_ table: UnitTable, arm: Int, unit: Int, metric: Int) -> Double? {
    let a = table.arms[arm]
    let v: Double
    switch table.metrics[metric].form {
    case .total:
      v = a.numerator(unit: unit, metric: metric)
    case .ratio:
      let den = a.denominator(unit: unit, metric: metric)
      guard den != 0 else { return nil }
      v = a.numerator(unit: unit, metric: metric) / den
    case .coverage(let catalogItems):
      guard catalogItems > 0 else { return nil }
      v = Double(a.items[unit].count) / Double(catalogItems)
    }
    return v.isFinite ? v : nil
  }
}
