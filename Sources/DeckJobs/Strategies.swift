import DeckBase
import DeckCore
import DeckIO
import DeckJobs
import DeckPlugins
import DeckStrategies
import Foundation

/// Creating strategies from names, in one place for `deck`, `play`, `simulate`, `validate`,
/// `compare`, `tune` and `strategies`: built-ins from the registry, external plugins as
/// processes.
package enum Strategies {
  /// The strategy a configured name stands for. A plugin is started here (once per run); its
  /// stderr goes to ours, each line a diagnostic of the plugin (`JobDiagnostics.pluginLog`).
  package static func make(_ named: NamedStrategy, _ io: JobIO) throws -> any RankingStrategy {
    if let plugin = named.plugin {
      return try PluginStrategy(configuration(named, plugin, io), log: log(named, io))
    }
    return try StrategyRegistry.make(named.use, options: named.options)
  }

  /// Where the stderr lines of the plugin `named` go: menudeck's stderr, as its diagnostics.
  package static func log(_ named: NamedStrategy, _ io: JobIO) -> (String) -> Void {
    let diagnostics = io.diagnostics
    return { line in
      pluginLogLock.withLock { diagnostics.pluginLog(plugin: named.name, line) }
    }
  }

  /// One plugin's log line at a time on stderr, when several plugin processes run side by side.
  private static let pluginLogLock = NSLock()

  /// For a plugin strategy and `jobs` above 1: more processes of the same plugin, learnt from
  /// the run's history (side by side), so that `jobs` of them score at once, one per worker
  /// (measured twice as fast on 2 cores as one process, which does all the scoring itself).
  /// None for a built-in (it scores concurrently itself), with `--fallback` (whose count of
  /// fallen-back diners belongs to one wrapper), or when the diners fill one batch.
  package static func replicas(
    of named: NamedStrategy, fallback: Bool, for diners: Int, batch: Int, jobs: Int,
    inputs: DeckInputs, _ io: JobIO
  ) throws -> [any RankingStrategy] {
    let batches = (diners + max(1, batch) - 1) / max(1, batch)
    let count = min(jobs, batches) - 1
    guard named.plugin != nil, !fallback, count > 0 else { return [] }
    let started = try (0..<count).map { _ in try make(named, io) }
    let box = Replicas(started)
    let (catalog, history) = (inputs.catalog, inputs.history)
    let learnt = Parallel.map(count: count, jobs: count) { k in
      Result { () throws(StrategyError) in
        try box.items[k].learn(catalog: catalog, history: history)
      }
    }
    for result in learnt { try result.get() }
    return started
  }

  /// Replicas learning side by side, each on its own thread.
  private final class Replicas: @unchecked Sendable {
    let items: [any RankingStrategy]
    init(_ items: [any RankingStrategy]) { self.items = items }
  }

  /// The strategy `--fallback` names (`name`), nil without one; a name the config does not
  /// know is a usage error.
  package static func fallback(named name: String?, _ config: MenuDeckConfig) throws(JobError)
    -> NamedStrategy?
  {
    guard let name else { return nil }
    let resolved: NamedStrategy?
    do {
      resolved = try config.resolveStrategy(name)
    } catch {
      throw .usage("--fallback: \(error)")
    }
    guard let fallback = resolved else {
      throw .usage(config.unknownStrategy(name, role: "fallback strategy"))
    }
    return fallback
  }

  /// `make`, wrapped so that diners whose plugin fails get `fallback`'s decks (one warning with
  /// a count at the end, see `fallbackWarning`).
  package static func make(
    _ named: NamedStrategy, fallback: NamedStrategy?, _ io: JobIO
  ) throws -> any RankingStrategy {
    guard let fallback else { return try make(named, io) }
    let backup = try make(fallback, io)
    return FallbackStrategy(
      name: named.name,
      starting: { () throws(StrategyError) -> any RankingStrategy in
        do {
          return try make(named, io)
        } catch let e as StrategyError {
          throw e
        } catch {
          throw StrategyError.failed(strategy: named.name, message: "\(error)")
        }
      },
      fallback: backup)
  }

  /// The one warning of a run that fell back, if it did.
  package static func fallbackWarning(_ strategy: any RankingStrategy) -> String? {
    (strategy as? FallbackStrategy)?.warning
  }

  /// The options to show in a run header: the strategy's declared options with their values.
  package static func headerOptions(_ strategy: any RankingStrategy, _ named: NamedStrategy)
    -> [(name: String, json: String)]
  {
    let description = (strategy as? FallbackStrategy)?.primary?.description ?? strategy.description
    if let options = try? StrategyOptions(raw: named.options, for: description) {
      return options.all.map { ($0.0, headerJSON($0.1)) }
    }
    return named.options.keys.sorted().map { key in
      (key, JSONWriter.text { $0.string(named.options[key]!) })
    }
  }

  /// What the strategy fitted in `learn`, for the run header: names and values as JSON text.
  package static func headerFitted(_ strategy: any RankingStrategy) -> [(
    name: String, json: String
  )] {
    strategy.fitted.map { ($0.name, headerJSON($0.value)) }
  }

  /// An option value in the run header: numbers as Swift writes them (a double keeps its point,
  /// `1.0`), unlike the whole-number form of the CLI's other JSON reports.
  private static func headerJSON(_ value: OptionValue) -> String {
    JSONWriter.text { w in
      switch value {
      // Swift's own text of a finite double is a JSON number (`1.0`, `-0.0`, `1e-07`).
      case .double(let d): if d.isFinite { w.number(text: String(d)) } else { w.null() }
      case .int(let i): w.int(i)
      case .bool(let b): w.bool(b)
      case .string(let s): w.string(s)
      }
    }
  }

  package static func configuration(_ named: NamedStrategy, _ plugin: String, _ io: JobIO)
    -> PluginStrategy.Configuration
  {
    PluginStrategy.Configuration(
      name: named.name, executable: Paths.open(plugin, io), options: named.options,
      timeout: named.timeout ?? PluginStrategy.defaultTimeout)
  }
}
