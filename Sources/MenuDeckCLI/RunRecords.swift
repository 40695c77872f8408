import DeckBase
import DeckCommandLine
import DeckIO

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
      ? [] : [RunInput(role: "config", path: config.path, sha256: ContentHash.sha256(config.bytes))]
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
