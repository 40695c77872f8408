import DeckBase
import DeckCommandLine
import DeckIO
import DeckJobs
import DeckStrategies

/// The `run` object of every command's JSON output: what the run was made from.
extension RunRecord {
  /// The running command's record: menudeck's version, the command's name, the command line
  /// exactly as given and `inputs` in the order read.
  init(_ context: CommandContext, inputs: [RunInput]) {
    self.init(
      version: menudeckVersion, command: context.commandPath.dropFirst().joined(separator: " "),
      arguments: context.arguments, inputs: inputs)
  }
}

/// The settings of the run header that the strategies give.
extension RunInputs {
  /// The run header's `options` setting: per strategy name, every option value, defaults
  /// included, as `deck`'s header writes them.
  static func options(
    _ strategies: [(name: String, strategy: any RankingStrategy, named: NamedStrategy)]
  ) -> RunRecord.Setting {
    .init(
      "options"
    ) { w in
      w.beginObject()
      for s in strategies {
        w.key(s.name)
        w.beginObject()
        // Each value written by Strategies' own JSONWriter, which knows the option's type.
        for (name, json) in Strategies.headerOptions(s.strategy, s.named) {
          w.key(name)
          w.fragment(json)
        }
        w.endObject()
      }
      w.endObject()
    }
  }

  /// The run header's `fitted` setting: per strategy name, what it fitted from the history it
  /// learned last (`RankingStrategy.fitted`), an empty object when nothing.
  static func fitted(_ strategies: [(name: String, strategy: any RankingStrategy)])
    -> RunRecord.Setting
  {
    .init(
      "fitted"
    ) { w in
      w.beginObject()
      for s in strategies {
        w.key(s.name)
        w.beginObject()
        // Each value written by Strategies' own JSONWriter, which knows the option's type.
        for (name, json) in Strategies.headerFitted(s.strategy) {
          w.key(name)
          w.fragment(json)
        }
        w.endObject()
      }
      w.endObject()
    }
  }
}
