import DeckCore

/// How a metric's value is made from per-unit sums. A *unit* is the thing that is resampled by
/// the bootstrap and swapped by the randomization test: a diner. A diner's sessions are not
/// independent of each other (the same tastes, the same learning history), so resampling
/// sessions would give intervals that are too narrow; resampling diners keeps that correlation.
package enum MetricForm: Sendable, Equatable {
  /// Σ numerator / Σ denominator over the units; undefined when Σ denominator is 0. Means over
  /// sessions (denominator: the unit's sessions), rates over cards, and estimators such as IPS
  /// all take this form.
  case ratio
  /// Σ numerator over the units: a count (decks, swipes). Denominators are ignored.
  case total
  /// Distinct catalog items over the units' `ArmUnits.items` / the given catalog size: not a
  /// sum, so it is recomputed from the item lists of the resampled units.
  case coverage(catalogItems: Int)
}

/// One metric of a comparison: its stable snake_case name, a one-line definition and its form.
package struct MetricSpec: Sendable, Equatable {
  package var name: String
  package var definition: String
  package var form: MetricForm
  /// Which way is better (`MetricMeaning`'s table by default; `.neither` for a name it lacks).
  package var direction: MetricDirection
  /// The unit of the value, for an axis title (`MetricMeaning`'s table by default; empty for a
  /// name it lacks).
  package var unit: String

  package init(
    name: String, definition: String, form: MetricForm, direction: MetricDirection? = nil,
    unit: String? = nil
  ) {
    self.name = name
    self.definition = definition
    self.form = form
    let meaning = MetricMeaning.of(name)
    self.direction = direction ?? meaning?.direction ?? .neither
    self.unit = unit ?? meaning?.unit ?? ""
  }

  /// Whether the value is a whole-number count.
  package var isCount: Bool { form == .total }
}

/// The per-unit sums of one arm (a strategy) for every metric of a `UnitTable`.
///
/// For unit `u` and metric `m` of `metricCount` metrics, the sums are at `u * metricCount + m`.
package struct ArmUnits: Sendable, Equatable {
  package var arm: String
  package let metricCount: Int
  package var numerators: [Double]
  package var denominators: [Double]
  /// Per unit, the distinct catalog indices it was shown (sorted ascending): the input of
  /// `.coverage` metrics. Empty arrays when the table has no coverage metric.
  package var items: [[Int32]]

  /// An arm with every sum 0 and no items.
  package init(arm: String, units: Int, metrics: Int) {
    self.arm = arm
    metricCount = metrics
    numerators = Array(repeating: 0, count: units * metrics)
    denominators = Array(repeating: 0, count: units * metrics)
    items = Array(repeating: [], count: units)
  }

  package var unitCount: Int { items.count }

  /// Adds to unit `unit`'s sums of metric `metric`.
  @inline(__always)
  package mutating func add(unit: Int, metric: Int, numerator: Double, denominator: Double = 0) {
    numerators[unit * metricCount + metric] += numerator
    denominators[unit * metricCount + metric] += denominator
  }

  package func numerator(unit: Int, metric: Int) -> Double {
    numerators[unit * metricCount + metric]
  }

  package func denominator(unit: Int, metric: Int) -> Double {
    denominators[unit * metricCount + metric]
  }
}

/// Per-unit sums of several arms over the same units, in the same order: the input of the
/// bootstrap and of the paired randomization test (`Resampling`).
///
/// Every arm has a row for every unit, also for units it has no data for (all zeros): in a
/// simulation every strategy serves the same diners; on logs every strategy is evaluated on the
/// same diners of the evaluation period.
package struct UnitTable: Sendable, Equatable {
  package var metrics: [MetricSpec]
  /// Unit ids (diner ids), in a stable order (ascending by UTF-8 bytes).
  package var units: [String]
  package var arms: [ArmUnits]

  package init(metrics: [MetricSpec], units: [String], arms: [ArmUnits]) {
    precondition(
      arms.allSatisfy { $0.unitCount == units.count && $0.metricCount == metrics.count },
      "every arm needs a row of every metric for every unit")
    self.metrics = metrics
    self.units = units
    self.arms = arms
  }

  /// The metric's value for arm `arm` over all units (each weight 1): the point estimate.
  /// Sums run in unit order, so the value is the same on every run. nil when undefined, and when
  /// the sums are not finite numbers.
  package func value(arm: Int, metric: Int) -> Double? {
    let a = arms[arm]
    switch metrics[metric].form {
    case .total:
      var sum = 0.0
      for u in 0..<units.count { sum += a.numerator(unit: u, metric: metric) }
      return sum.isFinite ? sum : nil
    case .ratio:
      var num = 0.0
      var den = 0.0
      for u in 0..<units.count {
        num += a.numerator(unit: u, metric: metric)
        den += a.denominator(unit: u, metric: metric)
      }
      guard den != 0 else { return nil }
      let r = num / den
      return r.isFinite ? r : nil
    case .coverage(let catalogItems):
      guard catalogItems > 0 else { return nil }
      var seen = Set<Int32>()
      for list in a.items { seen.formUnion(list) }
      return Double(seen.count) / Double(catalogItems)
    }
  }
}
