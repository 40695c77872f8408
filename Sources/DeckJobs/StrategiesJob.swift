import DeckBase
import DeckIO
import DeckPlugins
import DeckStrategies

/// `menudeck strategies`: the built-in strategies and the config's named configurations.
package struct StrategiesRequest: Sendable {
  package enum Format: String, Sendable {
    /// The summaries and options as text; the named configurations after them.
    case table
    /// One document with the run header, the strategies and the named configurations.
    case json
    /// One strategy object per line.
    case jsonl
  }

  /// The config whose named configurations are listed; nil when there is none (the default
  /// config is missing): the built-ins only.
  package var config: MenuDeckConfig?
  package var format: Format

  package init(config: MenuDeckConfig?, format: Format) {
    self.config = config
    self.format = format
  }
}

/// Runs a `StrategiesRequest`: every built-in's description, and each plugin the config names
/// started for its handshake only, to describe itself.
package enum StrategiesJob {
  package struct Outcome {
    /// The built-ins, then the plugins that described themselves, in the config's name order.
    package var descriptions: [StrategyDescription]
    /// The config's named configurations, sorted by name.
    package var named: [NamedStrategy]
    /// The run header's inputs: the config and what it includes.
    package var inputs: [RunInput]
  }

  package static func run(_ request: StrategiesRequest, _ io: JobIO) -> Outcome {
    var named: [NamedStrategy] = []
    var inputs: [RunInput] = []
    if let config = request.config {
      named = config.strategies.keys.sorted().map { config.strategies[$0]! }
      inputs = RunInputs.config(config)
    }
    var descriptions = StrategyRegistry.builtins.map { $0.description }
    // Plugins describe themselves: start each for its handshake only.
    for n in named {
      guard let plugin = n.plugin else { continue }
      do {
        descriptions.append(
          try PluginStrategy.describe(
            Strategies.configuration(n, plugin, io), log: Strategies.log(n, io)))
      } catch {
        io.diagnostics.warning(
          "plugin '\(n.name)' (\(plugin)) cannot describe itself: \(error)",
          code: "plugin_unavailable", location: nil)
      }
    }
    return Outcome(descriptions: descriptions, named: named, inputs: inputs)
  }
}
