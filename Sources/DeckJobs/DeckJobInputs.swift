import DeckBase
import DeckCore
import DeckIO
import DeckStrategies

/// Everything a run reads to build decks, loaded the one way `deck` and `play` share: the
/// catalog, the users, the history before the deck date (with `extra` swipes added, which
/// `play` uses to fetch the cards again after a session), the strategy learnt from it, and the
/// pipeline that builds a diner's deck.
package struct DeckInputs {
  package var config: MenuDeckConfig
  package var settings: RunSettings
  package var catalog: Catalog
  package var users: [UserProfile]
  package var history: History
  package var stats: EventReadStats
  /// Events on or after the deck date, not learnt from.
  package var future: Int
  package var strategy: any RankingStrategy
  package var header: RunHeader
  package var pipeline: DeckPipeline

  /// Loads the inputs `settings` name: the catalog, the users, the history by whichever path
  /// fits it (`Inputs.loadHistory`: by diner on `jobs` threads, plain, or merged with
  /// snapshots), then the strategy (`fallback`: the name of `--fallback`) learnt from it.
  /// `version` is menudeck's, for the run header.
  package static func load(
    _ settings: RunSettings, fallback: String?, jobs: Int, version: String, _ io: JobIO,
    rejects: RejectsWriter? = nil, extra: [SwipeEvent] = []
  ) throws -> DeckInputs {
    let config = settings.config
    let (catalog, catalogHash) = try Inputs.loadCatalog(
      settings.catalogPath, io, delimiter: settings.delimiters.catalog)
    var users: [UserProfile] = []
    var usersHash: String?
    if let path = settings.usersPath {
      (users, usersHash) = try Inputs.loadUsers(path, io, delimiter: settings.delimiters.users)
    }
    let builder = try Inputs.deckBuilder(catalog, settings.rules, config)
    // Only the JSON run header and --verbose show the history's hashes.
    var hashing = settings
    hashing.hashesHistory = settings.format == .json || io.diagnostics.showsInfo
    let (history, stats, future) = try Inputs.loadHistory(
      hashing, catalog: catalog, cutoff: settings.date, io: io, rejects: rejects, extra: extra,
      jobs: jobs)

    let fallback = try Strategies.fallback(named: fallback, config)
    let strategy = try Strategies.make(settings.strategy, fallback: fallback, io)
    strategy.prepare(seed: settings.seed, jobs: jobs)
    strategy.prepare(profiles: users)
    try strategy.learn(catalog: catalog, history: history)
    var header = RunHeader(
      version: version, date: settings.date,
      strategy: settings.strategyName,
      options: Strategies.headerOptions(strategy, settings.strategy), seed: settings.seed,
      size: settings.rules.size,
      inputs: headerInputs(settings, catalogHash: catalogHash, usersHash: usersHash, stats, io))
    header.fitted = Strategies.headerFitted(strategy)
    let pipeline = DeckPipeline(
      builder: builder, strategy: strategy, history: history, seed: settings.seed,
      date: settings.date)
    return DeckInputs(
      config: config, settings: settings, catalog: catalog, users: users, history: history,
      stats: stats, future: future, strategy: strategy, header: header, pipeline: pipeline)
  }

  /// The input files the run header names, with their content hashes.
  static func headerInputs(
    _ settings: RunSettings, catalogHash: String, usersHash: String?,
    _ history: EventReadStats, _ io: JobIO
  ) -> [RunInput] {
    var inputs = RunInputs.config(settings.config)
    inputs.append(RunInput(role: "catalog", path: settings.catalogPath, sha256: catalogHash))
    if let usersHash, let path = settings.usersPath {
      inputs.append(RunInput(role: "users", path: path, sha256: usersHash))
    }
    return inputs + RunInputs.plugins([settings.strategy], io) + RunInputs.history(history)
  }

  /// What is wrong with the history, when it is empty or stale (`HistoryFreshness`).
  package var freshness: HistoryFreshness? {
    HistoryFreshness.check(
      history, stats: stats, future: future, paths: settings.historyPaths, date: settings.date,
      config: config)
  }

  /// One diner's deck, built by the pipeline as `deck` builds every diner's.
  package func deck(for diner: UserProfile) throws -> Deck {
    var built: Deck?
    try pipeline.build(users: [diner]) { built = $0 }
    guard let built else {
      throw JobError(.software, "the pipeline built no deck for '\(diner.id)'")
    }
    return built
  }
}
