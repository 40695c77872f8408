/// The options that say how a run talks on standard error, declared once on the root command
/// (`options: DiagnosticOptions.all`) so that every command takes them, before or after its
/// name. `runCommand` reads them into the run's `DiagnosticPrinter`.
package enum DiagnosticOptions {
  package static let quiet = Flag(
    "quiet", short: "q", help: "No notes or warnings on stderr; errors still print.")
  package static let verbose = Flag(
    "verbose", short: "v",
    help:
      "More notes on stderr: the inputs read with their sizes and hashes, phase timings, "
      + "threads.")
  package static let logFormat = Option<LogFormat>(
    "log-format", valueName: "format", default: LogFormat.text.rawValue,
    choices: LogFormat.allCases.map(\.rawValue),
    help: "Diagnostics on stderr as text lines, or one JSON object per line.",
    expected: "text or json", { LogFormat(rawValue: $0) })
  package static let noProgress = Flag(
    "no-progress", help: "No progress line on stderr (drawn only when it is a terminal).")

  /// The four, for the root command's spec.
  package static let all = [quiet.spec, verbose.spec, logFormat.spec, noProgress.spec]

  /// The environment variable that gives the log format when the command line does not:
  /// `MENUDECK_LOG_FORMAT` for the root command `menudeck`.
  package static func logFormatVariable(_ program: String) -> String {
    variable(program, "LOG_FORMAT")
  }

  /// The environment variable, for tests only, that sets the milliseconds before a progress
  /// line is first drawn (default 500): `MENUDECK_PROGRESS_DELAY_MS`.
  package static func progressDelayVariable(_ program: String) -> String {
    variable(program, "PROGRESS_DELAY_MS")
  }

  private static func variable(_ program: String, _ name: String) -> String {
    String(program.uppercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }) + "_" + name
  }

  /// The log format the command line asks for, found without parsing it (a usage error is
  /// printed before the parse has any values): the value of the last `--log-format`, before
  /// `--`. An option's value never starts with "--", so a token "--log-format" is always the
  /// option.
  static func scanLogFormat(_ tokens: [String]) -> LogFormat? {
    var found: LogFormat?
    var index = 0
    let spelling = "--" + logFormat.spec.name
    while index < tokens.count, tokens[index] != "--" {
      let token = tokens[index]
      if token == spelling, index + 1 < tokens.count {
        found = LogFormat(rawValue: tokens[index + 1]) ?? found
        index += 2
        continue
      }
      if token.hasPrefix(spelling + "=") {
        found = LogFormat(rawValue: String(token.dropFirst(spelling.count + 1))) ?? found
      }
      index += 1
    }
    return found
  }
}
