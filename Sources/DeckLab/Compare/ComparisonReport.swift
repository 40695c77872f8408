import DeckCore

/// A point estimate with its confidence interval; nil parts are undefined (for example a rate
/// with no denominator, or an interval when no resample defined the metric).
public struct Estimate: Sendable, Equatable {
  public var value: Double?
  public var lower: Double?
  public var upper: Double?

  public init(value: Double?, lower: Double?, upper: Double?) {
    self.value = value
    self.lower = lower
    self.upper = upper
  }
}

/// Every metric of one arm (strategy), in `ComparisonReport.metrics` order.
public struct ArmSummary: Sendable, Equatable {
  public var arm: String
  public var estimates: [Estimate]

  public init(arm: String, estimates: [Estimate]) {
    self.arm = arm
    self.estimates = estimates
  }
}

/// One arm minus the baseline, per metric: the paired difference with its interval and the
/// two-sided paired randomization-test p-value (nil when undefined).
public struct ArmDifference: Sendable, Equatable {
  public var arm: String
  public var baseline: String
  public var estimates: [Estimate]
  public var pValues: [Double?]

  public init(arm: String, baseline: String, estimates: [Estimate], pValues: [Double?]) {
    self.arm = arm
    self.baseline = baseline
    self.estimates = estimates
    self.pValues = pValues
  }
}

/// One point of a per-day curve.
public struct DailyPoint: Sendable, Equatable {
  public var day: DeckDate
  public var value: Double?

  public init(day: DeckDate, value: Double?) {
    self.day = day
    self.value = value
  }
}

/// A per-day curve of one metric for one arm (simulations: like rate, pick rate, swipes to pick).
public struct DailySeries: Sendable, Equatable {
  public var arm: String
  /// A metric name (`like_rate`, `pick_rate`, `mean_swipes_to_pick`).
  public var metric: String
  public var points: [DailyPoint]

  public init(arm: String, metric: String, points: [DailyPoint]) {
    self.arm = arm
    self.metric = metric
    self.points = points
  }
}

/// The dishes a strategy showed most: what an analyst looks at to see what each strategy pushes.
public struct TopDishes: Sendable, Equatable {
  public struct Dish: Sendable, Equatable {
    public var id: String
    public var name: String
    public var category: String
    /// Times shown (simulation: cards swiped; logs: decks it was ranked in).
    public var count: Int

    public init(id: String, name: String, category: String, count: Int) {
      self.id = id
      self.name = name
      self.category = category
      self.count = count
    }
  }

  public var arm: String
  /// Most shown first; ties by catalog order.
  public var dishes: [Dish]

  public init(arm: String, dishes: [Dish]) {
    self.arm = arm
    self.dishes = dishes
  }
}

/// A run parameter written with the report (name and display value).
public struct ReportParameter: Sendable, Equatable {
  public var name: String
  public var value: String

  public init(name: String, value: String) {
    self.name = name
    self.value = value
  }
}

/// The result of `menudeck compare`: what the writers (table, Markdown, JSON, CSV, HTML) render.
public struct ComparisonReport: Sendable, Equatable {
  /// One line: what was compared, e.g. "simulation: 1000 diners x 14 days from 2026-11-01".
  public var title: String
  /// Run parameters in display order (seed, resamples, confidence level, split date, ...).
  public var parameters: [ReportParameter]
  public var metrics: [MetricSpec]
  /// Arms in the order asked for.
  public var arms: [ArmSummary]
  /// The baseline arm's name, when one was given.
  public var baseline: String?
  /// Every other arm minus the baseline, in arm order (empty without a baseline).
  public var differences: [ArmDifference]
  /// Per-day curves (simulations); empty for logs.
  public var daily: [DailySeries]
  /// The confidence level of every interval, e.g. 0.95.
  public var level: Double
  /// Bootstrap resamples (also the randomization test's permutations).
  public var resamples: Int
  /// Units (diners) the estimates are over.
  public var units: Int
  /// Remarks a reader must see (units left out, metrics undefined, ...).
  public var notes: [String]
  /// Per arm, the dishes it showed most (may be empty).
  public var topDishes: [TopDishes] = []

  public init(
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
