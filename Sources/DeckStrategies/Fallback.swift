import DeckCore

/// A strategy that stands in for another once it fails: what `--fallback STRATEGY` runs.
///
/// Until the primary fails, every batch goes to it. The first error it throws (from start-up,
/// `learn`, `score` or `finish`) is kept in `failure`; the batch being scored then, and every
/// later one, is scored by the fallback instead, and `fallbackDecks` counts those diners' decks.
/// The fallback learns from every history the primary does, so it is ready when needed. After
/// the run, `warning` is the one line to print.
///
/// It wraps any strategy, built-in or plugin, so it lives here rather than with the plugin host;
/// its file is not named `*Strategy.swift`, the name of the registered built-ins' files.
package final class FallbackStrategy: RankingStrategy {
  package let fallback: any RankingStrategy
  /// The primary, nil when it could not even start.
  package private(set) var primary: (any RankingStrategy)?
  /// The primary's configured name.
  package let primaryName: String
  /// The error that retired the primary, if any.
  package private(set) var failure: StrategyError?
  /// Decks (diner, date) scored by the fallback.
  package private(set) var fallbackDecks = 0

  package var description: StrategyDescription {
    primary?.description
      ?? StrategyDescription(
        identifier: primaryName, summary: "failed at start-up; " + fallback.description.summary)
  }

  package init(primary: any RankingStrategy, fallback: any RankingStrategy) {
    self.primary = primary
    self.primaryName = primary.description.identifier
    self.fallback = fallback
  }

  /// Starts the primary with `start`; if that throws, every diner gets the fallback.
  package init(
    name: String, starting start: () throws(StrategyError) -> any RankingStrategy,
    fallback: any RankingStrategy
  ) {
    self.primaryName = name
    self.fallback = fallback
    do {
      primary = try start()
    } catch {
      primary = nil
      failure = error
    }
  }

  package func prepare(seed: UInt64, jobs: Int) {
    fallback.prepare(seed: seed, jobs: jobs)
    primary?.prepare(seed: seed, jobs: jobs)
  }

  package func prepare(profiles: [UserProfile]) {
    fallback.prepare(profiles: profiles)
    primary?.prepare(profiles: profiles)
  }

  /// What the primary fitted (the run header describes the primary), nothing once it failed.
  package var fitted: [FittedValue] { primary?.fitted ?? [] }

  package func learn(catalog: Catalog, history: History) throws(StrategyError) {
    try fallback.learn(catalog: catalog, history: history)
    guard let primary else { return }
    do {
      try primary.learn(catalog: catalog, history: history)
    } catch {
      retire(error)
    }
  }

  package func score(_ batch: inout [ScoringContext]) throws(StrategyError) -> [Scores] {
    if let primary {
      let saved = batch
      do {
        return try primary.score(&batch)
      } catch {
        retire(error)
        batch = saved  // the fallback sees the untouched random streams
      }
    }
    fallbackDecks += batch.count
    return try fallback.score(&batch)
  }

  package func finish() throws(StrategyError) {
    if let primary {
      do {
        try primary.finish()
      } catch {
        retire(error)
      }
    }
    try fallback.finish()
  }

  /// "strategy 'veg-first': rank request 3 (...): ...; 1024 decks came from the fallback
  /// 'popularity'", or nil when the primary never failed.
  package var warning: String? {
    guard let failure else { return nil }
    let decks = fallbackDecks == 1 ? "1 deck" : "\(fallbackDecks) decks"
    return "\(failure); \(decks) came from the fallback '\(fallback.description.identifier)'"
  }

  private func retire(_ error: StrategyError) {
    failure = error
    primary = nil
  }
}
