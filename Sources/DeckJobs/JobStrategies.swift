import DeckIO
import DeckStrategies

/// How a job makes the strategies it runs from their configurations, and what a run header
/// says of them once they ran. The command line gives its own (`MenuDeckCLI/Strategies.swift`:
/// plugins as processes whose stderr lines are its diagnostics, `--fallback` wrappers, the
/// options as `deck`'s header writes them); a test gives built-ins.
package protocol StrategyMaking: Sendable {
  /// The strategy `named` stands for; with `fallback`, wrapped so that the diners whose plugin
  /// fails get the fallback's decks.
  func make(_ named: NamedStrategy, fallback: NamedStrategy?) throws -> any RankingStrategy
  /// The run header's settings of the strategies run (their options and what they fitted).
  func headerSettings(
    _ strategies: [(name: String, strategy: any RankingStrategy, named: NamedStrategy)]
  ) -> [RunRecord.Setting]
}

/// An output a request names: the key the command line declared for it (beside its option)
/// and its path as written ("-" is standard output; nil when it was not given).
package struct RequestedOutput: Sendable, Equatable {
  package var key: OutputKey
  package var path: String?

  package init(_ key: OutputKey, _ path: String?) {
    self.key = key
    self.path = path
  }
}
