import DeckBase
import DeckIO
import DeckStrategies

/// How a job makes the strategies it runs from their configurations, and what a run header
/// says of them once they ran. A run gives `RunStrategies`; a test gives built-ins.
package protocol StrategyMaking: Sendable {
  /// The strategy `named` stands for; with `fallback`, wrapped so that the diners whose plugin
  /// fails get the fallback's decks.
  func make(_ named: NamedStrategy, fallback: NamedStrategy?) throws -> any RankingStrategy
  /// The run header's settings of the strategies run (their options and what they fitted).
  func headerSettings(
    _ strategies: [(name: String, strategy: any RankingStrategy, named: NamedStrategy)]
  ) -> [RunRecord.Setting]
}

/// The strategies of a run (`Strategies`): plugins as processes whose stderr lines are the
/// job's diagnostics, `--fallback` wrappers; the run header's options and fitted values as
/// `deck`'s header writes them.
package struct RunStrategies: StrategyMaking {
  package let io: JobIO

  package init(_ io: JobIO) { self.io = io }

  package func make(_ named: NamedStrategy, fallback: NamedStrategy?) throws
    -> any RankingStrategy
  {
    try Strategies.make(named, fallback: fallback, io)
  }

  package func headerSettings(
    _ strategies: [(name: String, strategy: any RankingStrategy, named: NamedStrategy)]
  ) -> [RunRecord.Setting] {
    [
      Self.setting(
        "options", strategies.map { ($0.name, Strategies.headerOptions($0.strategy, $0.named)) }),
      Self.setting("fitted", strategies.map { ($0.name, Strategies.headerFitted($0.strategy)) }),
    ]
  }

  /// A run header setting that holds, per strategy name, an object of its values (each
  /// written by Strategies' own JSONWriter, which knows the option's type), an empty object
  /// when none.
  private static func setting(_ key: String, _ values: [(String, [(name: String, json: String)])])
    -> RunRecord.Setting
  {
    .init(key) { w in
      w.beginObject()
      for (strategy, pairs) in values {
        w.key(strategy)
        w.beginObject()
        for (name, json) in pairs {
          w.key(name)
          w.fragment(json)
        }
        w.endObject()
      }
      w.endObject()
    }
  }
}

extension Strategies {
  /// The strategies `names` name, each a named configuration or a built-in with `options`
  /// (the command line's `--option`s) over its own, in order: a name the config does not
  /// know, or options a built-in refuses, are usage errors.
  package static func resolve(
    _ names: [String], options: [(key: String, value: String)], _ config: MenuDeckConfig
  ) throws(JobError) -> [NamedStrategy] {
    var strategies: [NamedStrategy] = []
    for name in names {
      let resolved: NamedStrategy?
      do {
        resolved = try config.resolveStrategy(name)
      } catch {
        throw .usage(error.description)
      }
      guard var named = resolved else { throw .usage(config.unknownStrategy(name)) }
      named.override(with: options)
      if named.plugin == nil {
        do {
          _ = try StrategyRegistry.make(named.use, options: named.options)
        } catch {
          throw .usage(error.description)
        }
      }
      strategies.append(named)
    }
    return strategies
  }
}
