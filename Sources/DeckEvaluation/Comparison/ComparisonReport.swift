import DeckBase
import DeckCore
import DeckIO

/// A point estimate with its confidence interval; nil parts are undefined (for example a rate
/// with no denominator, or an interval when no resample defined the metric).
package struct Estimate: Sendable, Equatable {
  package var value: Double?
  package var lower: Double?
  package var upper: Double?

  package init(value: Double?, lower: Double?, upper: Double?) {
    self.value = value
    self.lower = lower
    self.upper = upper
  }
}

/// Every metric of one arm (strategy), in `ComparisonReport.metrics` order.
package struct ArmSummary: Sendable, Equatable {
  package var arm: String
  package var estimates: [Estimate]

  package init(arm: String, estimates: [Estimate]) {
    self.arm = arm
    self.estimates = estimates
  }
}

/// One arm minus the baseline, per metric: the paired difference with its interval and the
/// two-sided p-values (nil when undefined), every array in `ComparisonReport.metrics` order:
/// - `pValues`: the paired randomization test (`Resampling`), the report's main p-value;
/// - `pHolm`, `pBH`: `pValues` adjusted by Holm's step-down and by Benjamini-Hochberg over the
///   report's family of tests (`MultipleComparisons.adjust` fills them; empty before);
/// - `pT`, `pWilcoxon`: the paired t-test and the Wilcoxon signed-rank test on the per-diner
///   paired values (`PairedTests`); nil for coverage;
/// - `identical`: whether the two arms have the same sums for every diner
///   (`Resampling.identical`): then p is 1 whatever the data, and the test is left out of the
///   family (empty: none is).
package struct ArmDifference: Sendable, Equatable {
  package var arm: String
  package var baseline: String
  package var estimates: [Estimate]
  package var pValues: [Double?]
  package var pHolm: [Double?]
  package var pBH: [Double?]
  package var pT: [Double?]
  package var pWilcoxon: [Double?]
  package var identical: [Bool]

  package init(
    arm: String, baseline: String, estimates: [Estimate], pValues: [Double?],
    pHolm: [Double?] = [], pBH: [Double?] = [], pT: [Double?] = [], pWilcoxon: [Double?] = [],
    identical: [Bool] = []
  ) {
    self.arm = arm
    self.baseline = baseline
    self.estimates = estimates
    self.pValues = pValues
    self.pHolm = pHolm
    self.pBH = pBH
    self.pT = pT
    self.pWilcoxon = pWilcoxon
    self.identical = identical
  }

  /// Whether metric `n`'s arms are identical for every diner (false past the end of
  /// `identical`).
  package func isIdentical(_ n: Int) -> Bool { n < identical.count && identical[n] }

  /// Element `n` of `values`, nil past its end (an array filled for fewer metrics).
  package static func at(_ values: [Double?], _ n: Int) -> Double? {
    n < values.count ? values[n] : nil
  }
}

/// One point of a per-day curve: the day's value and its confidence interval (nil when
/// undefined, or not computed).
package struct DailyPoint: Sendable, Equatable {
  package var day: DeckDate
  package var value: Double?
  package var lower: Double?
  package var upper: Double?

  package init(day: DeckDate, value: Double?, lower: Double? = nil, upper: Double? = nil) {
    self.day = day
    self.value = value
    self.lower = lower
    self.upper = upper
  }
}

/// A per-day curve of one metric for one arm (simulations: like rate, pick rate, swipes to pick).
package struct DailySeries: Sendable, Equatable {
  package var arm: String
  /// A metric name (`like_rate`, `pick_rate`, `mean_swipes_to_pick`).
  package var metric: String
  package var points: [DailyPoint]

  package init(arm: String, metric: String, points: [DailyPoint]) {
    self.arm = arm
    self.metric = metric
    self.points = points
  }
}

/// The dishes a strategy showed most: what an analyst looks at to see what each strategy pushes.
package struct TopDishes: Sendable, Equatable {
  package struct Dish: Sendable, Equatable {
    package var id: String
    package var name: String
    package var category: String
    /// Times shown (simulation: cards swiped; logs: decks it was ranked in).
    package var count: Int
  }

  package var arm: String
  /// Most shown first; ties by catalog order.
  package var dishes: [Dish]
}

/// A run parameter written with the report: its name, its value for people (table, Markdown,
/// HTML) and the same value as typed JSON text (a number, a list, an object by arm) for JSON.
package struct ReportParameter: Sendable, Equatable {
  package var name: String
  package var value: String
  package var json: String

  /// A text parameter: a JSON string.
  package init(name: String, value: String) {
    self.init(name: name, value: value, json: JSONWriter.text { $0.string(value) })
  }

  package init(name: String, value: String, json: String) {
    self.name = name
    self.value = value
    self.json = json
  }

  /// A whole number (a count, a seed), a JSON number.
  package static func integer<N: BinaryInteger>(_ name: String, _ n: N) -> ReportParameter {
    ReportParameter(
      name: name, value: String(n), json: JSONWriter.text { $0.number(text: String(n)) })
  }

  /// A real number in full precision.
  package static func number(_ name: String, _ x: Double) -> ReportParameter {
    ReportParameter(
      name: name, value: x.isFinite ? Text.roundTrip(x) : "undefined",
      json: JSONWriter.text { $0.roundTrip(x) })
  }

  /// A list of texts: shown joined by ", ", a JSON array of strings.
  package static func list(_ name: String, _ items: [String]) -> ReportParameter {
    ReportParameter(
      name: name, value: items.joined(separator: ", "),
      json: JSONWriter.text { $0.strings(items) })
  }

  /// A list of whole numbers: shown joined by ",", a JSON array of numbers.
  package static func integers(_ name: String, _ items: [Int]) -> ReportParameter {
    ReportParameter(
      name: name, value: items.map(String.init).joined(separator: ","),
      json: JSONWriter.text { w in
        w.beginArray()
        for n in items { w.int(n) }
        w.endArray()
      })
  }

  /// One number per arm: shown as "arm value, ...", a JSON object keyed by arm (null where
  /// undefined), keys in arm order. `shown` writes a value for people.
  package static func perArm(
    _ name: String, _ values: [(arm: String, value: Double?)],
    shown: (Double) -> String = { Text.roundTrip($0) }
  ) -> ReportParameter {
    ReportParameter(
      name: name,
      value: values.map { "\($0.arm) \($0.value.map(shown) ?? "undefined")" }
        .joined(separator: ", "),
      json: JSONWriter.text { w in
        w.beginObject()
        for (arm, value) in values {
          w.key(arm)
          if let value { w.roundTrip(value) } else { w.null() }
        }
        w.endObject()
      })
  }

  /// One text per arm: shown as "arm text, ...", a JSON object keyed by arm.
  package static func perArm(_ name: String, texts: [(arm: String, text: String)])
    -> ReportParameter
  {
    ReportParameter(
      name: name, value: texts.map { "\($0.arm) \($0.text)" }.joined(separator: ", "),
      json: JSONWriter.text { w in
        w.beginObject()
        for (arm, text) in texts { w.field(arm, text) }
        w.endObject()
      })
  }
}

/// The result of `menudeck compare`: what the writers (table, Markdown, JSON, CSV, HTML) render.
package struct ComparisonReport: Sendable, Equatable {
  /// One line: what was compared, e.g. "simulation: 1000 diners x 14 days from 2026-11-01".
  package var title: String
  /// Run parameters in display order (seed, resamples, confidence level, split date, ...).
  package var parameters: [ReportParameter]
  package var metrics: [MetricSpec]
  /// Arms in the order asked for.
  package var arms: [ArmSummary]
  /// The baseline arm's name, when one was given.
  package var baseline: String?
  /// Every other arm minus the baseline, in arm order (empty without a baseline).
  package var differences: [ArmDifference]
  /// Per-day curves (simulations); empty for logs.
  package var daily: [DailySeries]
  /// The confidence level of every interval, e.g. 0.95.
  package var level: Double
  /// The per-diner sums the estimates were made from (one table per group of metrics: the
  /// ranking metrics, the off-policy ones), for `--per-diner`.
  package var unitTables: [UnitTable] = []
  /// Bootstrap resamples.
  package var resamples: Int
  /// With a baseline: the randomization test's permutations, why that many, and whether a
  /// difference can be significant (its `tests` set by `MultipleComparisons.adjust`); nil
  /// without one.
  package var significance: Significance? = nil
  /// On logs evaluated without `--ope`: the note that the ranking metrics favour the logging
  /// strategy, and what the log holds to correct it; nil otherwise.
  package var loggingBias: LoggingBias? = nil
  /// Units (diners) the estimates are over.
  package var units: Int
  /// Remarks a reader must see (units left out, metrics undefined, ...).
  package var notes: [String]
  /// Per arm, the dishes it showed most (may be empty).
  package var topDishes: [TopDishes] = []
  /// The version, command line and inputs (with their hashes) the report was made from; nil
  /// when the caller did not record them (tests of the writers).
  package var run: RunRecord? = nil

  /// The notes of the table, Markdown and JSON: `notes`, then the logging bias's note and the
  /// note that no difference can be significant, when there are such. The HTML report shows
  /// these two in the summary instead.
  package var allNotes: [String] {
    notes + [loggingBias?.note, significance?.unattainable].compactMap { $0 }
  }

  package init(
    title: String, parameters: [ReportParameter], metrics: [MetricSpec], arms: [ArmSummary],
    baseline: String?, differences: [ArmDifference], daily: [DailySeries], level: Double,
    resamples: Int, units: Int, notes: [String]
  ) {
    self.title = title
    self.parameters = parameters
    self.metrics = metrics
    self.arms = arms
    self.baseline = baseline
    self.differences = differences
    self.daily = daily
    self.level = level
    self.resamples = resamples
    self.units = units
    self.notes = notes
  }
}
