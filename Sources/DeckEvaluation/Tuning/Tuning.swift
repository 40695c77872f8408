import DeckBase
import DeckCore
import DeckIO
import DeckStrategies

/// The validation a tuning evaluates its candidates on: the training history of the validation
/// split and the diners it judges, with the deck rules and cut-offs of the comparison. Each
/// candidate learns from `history` and ranks a deck for every diner on `date`, scored by the
/// offline ranking metrics (`OfflineEvaluation`), as `compare` scores its strategies.
package struct TuningValidation {
  package var catalog: Catalog
  /// The judged diners, ascending by the UTF-8 bytes of their ids, with their profiles.
  package var diners: [UserProfile]
  /// Per diner, the dishes swiped right in the validation period (ascending).
  package var relevant: [[Int32]]
  package var history: History
  package var builder: DeckBuilder
  package var cutoffs: [Int]
  package var seed: UInt64
  package var date: DeckDate
  package var jobs: Int

  package init(
    catalog: Catalog, diners: [UserProfile], relevant: [[Int32]], history: History,
    builder: DeckBuilder, cutoffs: [Int], seed: UInt64, date: DeckDate, jobs: Int
  ) {
    self.catalog = catalog
    self.diners = diners
    self.relevant = relevant
    self.history = history
    self.builder = builder
    self.cutoffs = cutoffs
    self.seed = seed
    self.date = date
    self.jobs = jobs
  }

  /// Every ranking metric of `strategy` on the validation diners (the point estimates, nil
  /// where undefined), after it has learned the validation's training history; `finish` is
  /// called on it once its decks are ranked (a plugin's process ends there).
  package func evaluate(
    _ strategy: any RankingStrategy, progress: ProgressCounter? = nil
  ) throws -> (metrics: [MetricSpec], values: [Double?]) {
    let (rankings, _) = try LogEvaluation.rankDecks(
      [(name: "candidate", strategy: strategy)], diners: diners, catalog: catalog,
      history: history, builder: builder, seed: seed, date: date, jobs: jobs, progress: progress)
    try strategy.finish()
    let table = OfflineEvaluation(
      cutoffs: cutoffs, depth: builder.rules.size, itemCategory: catalog.itemCategory,
      trainingPopularity: history.itemRight
    ).evaluate(
      users: diners.map(\.id), relevant: relevant,
      arms: [OfflineArm(name: "candidate", rankings: rankings[0])]
    ).table
    return (table.metrics, table.metrics.indices.map { table.value(arm: 0, metric: $0) })
  }
}

/// What a tuning found: every candidate setting with every ranking metric on the validation,
/// and the one selected by the tuning's metric.
package struct TuningResult: Sendable, Equatable {
  /// The strategy tuned, as spelt (a built-in, a named configuration or a variant).
  package var strategy: String
  /// The name the tuned configuration is written under (`NAME-tuned` unless told).
  package var name: String
  /// The candidate settings, in the order evaluated.
  package var candidates: [[OptionSetting]]
  /// Each candidate as a strategy spelling (`itemknn:neighbours=50`), which `-s` takes.
  package var spellings: [String]
  package var metrics: [MetricSpec]
  /// `values[candidate][metric]`: nil where the metric is undefined.
  package var values: [[Double?]]
  /// The index in `metrics` of the metric the winner is chosen by.
  package var metric: Int
  /// The winner: the best defined value of `metric` (the first candidate of equal ones); nil
  /// when no candidate has one.
  package var selected: Int?
  /// The diners of the validation.
  package var diners: Int

  package init(
    strategy: String, name: String, candidates: [[OptionSetting]], spellings: [String],
    metrics: [MetricSpec], values: [[Double?]], metric: Int, diners: Int
  ) {
    self.strategy = strategy
    self.name = name
    self.candidates = candidates
    self.spellings = spellings
    self.metrics = metrics
    self.values = values
    self.metric = metric
    self.diners = diners
    selected = Self.select(values.map { $0[metric] }, direction: metrics[metric].direction)
  }

  /// The index of the best defined value (the highest, or the lowest when lower is better),
  /// the first of equal ones: a grid's order breaks ties, so the choice is the same on every
  /// run.
  package static func select(_ values: [Double?], direction: MetricDirection) -> Int? {
    var best: Int?
    for (i, v) in values.enumerated() {
      guard let v else { continue }
      guard let b = best, let current = values[b] else {
        best = i
        continue
      }
      if direction == .lower ? v < current : v > current { best = i }
    }
    return best
  }

  /// The winner's settings, nil when nothing was selected.
  package var winner: [OptionSetting]? { selected.map { candidates[$0] } }
}
