import DeckCommandLine
import DeckIO
import DeckJobs

extension CompressedLogs {
  /// The advice for a run of `args` that reads `logs` (as `RunSettings.historyPaths` holds
  /// them): where the command line names the logs (the `--history` values, the `<log>`
  /// arguments, or nowhere: the config's), and the command as typed.
  static func advice(_ args: ParsedArguments, logs: [String], _ io: CLIStreams)
    -> EventFormat.CompressedLogAdvice
  {
    let option = args.declares(InputOptions.history) ? InputOptions.history.spec.name : nil
    let argument = args.declaresArgument("log") ? "log" : nil
    let onCommandLine =
      option.map { args.isGiven($0) && !args.values($0).isEmpty } == true
      || argument.map { !args.arguments($0).isEmpty } == true
    let namedBy = onCommandLine ? option.flatMap { args.isGiven($0) ? $0 : nil } ?? argument : nil
    let command = LogCommandLine(option: option, namedBy: namedBy) { name, replace, appending in
      args.shellCommand(replacingValuesOf: name ?? "", with: replace, appending: appending)
    }
    return advice(command, logs: logs, io.job)
  }
}
