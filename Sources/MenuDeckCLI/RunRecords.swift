import DeckBase
import DeckCommandLine
import DeckIO
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

/// The inputs of a run, by role, as the run header lists them.
enum RunInputs {
  /// The config file, when one was read.
  static func config(_ config: MenuDeckConfig) -> [RunInput] {
    config.bytes.isEmpty
      ? []
      : [RunInput(role: "config", path: config.path, sha256: ContentHash.sha256(config.bytes))]
        + config.included.map {
          RunInput(role: "include", path: $0.path, sha256: ContentHash.sha256($0.bytes))
        }
  }

  /// Each swipe log (`history`) and history snapshot (`snapshot`) read with hashing on, in the
  /// order read.
  static func history(_ stats: EventReadStats) -> [RunInput] {
    stats.files.compactMap { file in
      file.sha256.map {
        RunInput(role: file.snapshot ? "snapshot" : "history", path: file.file, sha256: $0)
      }
    }
  }

  /// The executable of each plugin among `strategies`, hashed (role `plugin`): a deck made by a
  /// plugin depends on its code as on any input. A plugin that cannot be read is left out (it
  /// cannot run either, and starting it says why), and so is one over 256 MiB, which is not
  /// read whole into memory for its hash.
  static func plugins(_ strategies: [NamedStrategy], _ io: CLIStreams) -> [RunInput] {
    var seen = Set<String>()
    return strategies.compactMap { named in
      guard let plugin = named.plugin, seen.insert(plugin).inserted else { return nil }
      let bytes = try? Paths.using(plugin, io) { opened throws(DeckIOError) in
        try TextInput.readBytes(path: opened, what: "plugin", maxBytes: 256 << 20)
      }
      return bytes.map { RunInput(role: "plugin", path: plugin, sha256: ContentHash.sha256($0)) }
    }
  }

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

  /// Under `--verbose`, one `info` line per input: its role, path, size and SHA-256.
  static func tell(_ inputs: [RunInput], _ context: CommandContext) {
    guard context.isVerbose else { return }
    for input in inputs {
      let size = Inputs.regularFileSize(input.path, context.io).map { plural($0, "byte") + ", " }
      context.info(
        "\(input.role) \(input.path): \(size ?? "")sha256 \(input.sha256)", code: "input",
        location: .wholeFile(input.path))
    }
  }
}
