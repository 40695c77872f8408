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
