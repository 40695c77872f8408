import DeckBase

/// Parses `arguments` (the command line without the program name) against the command tree
/// rooted at `root` and runs what they ask for:
/// - a command: its `run` closure; a thrown error prints "<program>: error: <message>" and ends
///   with the code of `ExitCode.for(_:)`; when that is 64 (a `UsageError`, or any error whose
///   code is usage) a pointer to the command's help follows, as after the parser's errors;
/// - `--help`, `-h` or `help <subcommand>`: the help on standard output, exit 0;
/// - `--version` (when the root has a version): the version on standard output, exit 0;
/// - a wrong command line: "<program>: error: <message>" and "<program>: note: see '<command>
///   --help'" on standard error (the usage block is only in the help), exit 64.
/// Standard output is flushed at the end; a failed write there turns a success into exit 74.
///
/// When the root declares `DiagnosticOptions.all`, every line on standard error goes through one
/// `DiagnosticPrinter` with what they ask for (`--quiet`, `--verbose`, `--log-format`, the
/// progress line unless `--no-progress`), which the command finds in `context.diagnostics`.
package func runCommand(_ root: CommandSpec, arguments: [String], io: CLIStreams) -> ExitCode {
  var code: ExitCode
  var io = io
  let options = DiagnosticSetup(root: root, tokens: arguments, io: io)
  var diagnostics = DiagnosticPrinter(
    program: root.name, sink: io.stderr,
    settings: DiagnosticSettings(format: options.initialFormat))
  io.diagnostics = diagnostics
  let commandLine = [root.name] + arguments
  var progress: ProgressReporter?
  switch CommandLineParser(root: root, tokens: arguments).resolve() {
  case .help(let path):
    io.stdout.write(HelpFormatter.help(path))
    code = .success
  case .version(let version):
    io.stdout.write(version + "\n")
    code = .success
  case .usageError(let path, let message):
    diagnostics.command = commandName(path)
    diagnostics.usageError(message, help: HelpFormatter.helpPointer(path: path))
    code = .usage
  case .run(let path, let arguments):
    diagnostics.command = commandName(path)
    guard let run = path[path.count - 1].run else {
      diagnostics.usageError(
        "missing subcommand", help: HelpFormatter.helpPointer(path: path))
      code = .usage
      break
    }
    do {
      diagnostics.settings = try options.settings(arguments)
    } catch {
      diagnostics.usageError(error.message, help: HelpFormatter.helpPointer(path: path))
      code = .usage
      break
    }
    if let problem = options.environmentProblem {
      diagnostics.warning(problem, code: "environment")
    }
    progress = options.progressReporter(arguments, diagnostics.settings)
    diagnostics.progress = progress
    io.diagnostics = diagnostics
    if SignalHandling.isInstalled {
      let printer = diagnostics
      SignalHandling.setLineFormat { printer.formatted(Diagnostic(.error, code: "signal", $0)) }
    }
    progress?.start()
    let context = CommandContext(
      io: io, commandPath: path.map(\.name), arguments: commandLine)
    let started = monotonicSeconds()
    defer {
      diagnostics.info(
        "\(context.commandName) ended in \(formatSeconds(monotonicSeconds() - started)) "
          + "(exit \(code))", code: "timing")
    }
    do {
      code = try run(arguments, context)
    } catch {
      progress?.close()
      code = ExitCode.for(error)
      if !io.stdout.isBrokenPipe {
        diagnostics.error(error)
        // Every wrong command line (exit 64) points at the help, whatever error type says so
        // (`UsageError`, `CommandFailure(.usage, ...)`, an output that is an input).
        if code == .usage, ExitCode.message(for: error, program: root.name) != nil {
          diagnostics.helpNote(HelpFormatter.helpPointer(path: path))
        }
      }
    }
    progress?.close()
  }
  do {
    try io.stdout.flush()
  } catch {
    if !io.stdout.isBrokenPipe { diagnostics.error(error) }
    if code.isSuccess { code = ExitCode.for(error) }
  }
  // The reader of standard output has gone: whatever failed after that is its consequence.
  if io.stdout.isBrokenPipe { code = .brokenPipe }
  try? io.stderr.flush()
  return code
}

/// "deck", "import movielens": the command of `path` without the program; nil for the root.
private func commandName(_ path: [CommandSpec]) -> String? {
  path.count > 1 ? path.dropFirst().map(\.name).joined(separator: " ") : nil
}

/// The diagnostic options of a run, read from its command line and environment.
private struct DiagnosticSetup {
  let root: CommandSpec
  let io: CLIStreams
  /// Whether the root declares the options (a tree without them keeps the defaults).
  let declared: Bool
  /// The format before the command line is parsed: `--log-format`, else the environment's.
  let initialFormat: LogFormat
  /// A value of the environment's log format variable that is no format.
  let environmentProblem: String?

  init(root: CommandSpec, tokens: [String], io: CLIStreams) {
    self.root = root
    self.io = io
    declared = root.options.contains { $0.name == DiagnosticOptions.logFormat.spec.name }
    let variable = DiagnosticOptions.logFormatVariable(root.name)
    var fromEnvironment: LogFormat?
    var problem: String?
    if declared, let text = io.environment[variable], !text.isEmpty {
      fromEnvironment = LogFormat(rawValue: text)
      if fromEnvironment == nil {
        problem =
          "\(variable)='\(text)' is not a log format (text or json); writing text"
      }
    }
    environmentProblem = problem
    let given = declared ? DiagnosticOptions.scanLogFormat(tokens) : nil
    initialFormat = given ?? fromEnvironment ?? .text
  }

  /// The settings the parsed command line asks for.
  func settings(_ args: ParsedArguments) throws(UsageError) -> DiagnosticSettings {
    guard declared else { return DiagnosticSettings() }
    let quiet = args.flag(DiagnosticOptions.quiet)
    let verbose = args.flag(DiagnosticOptions.verbose)
    if quiet && verbose {
      throw UsageError("give '--quiet' or '--verbose', not both")
    }
    return DiagnosticSettings(
      verbosity: quiet ? .quiet : verbose ? .verbose : .normal, format: initialFormat)
  }

  /// The run's progress line: only on a terminal, in the text form, without `--quiet` or
  /// `--no-progress`, and when neither NO_COLOR (set and not empty) nor TERM=dumb asks for a
  /// plain terminal.
  func progressReporter(_ args: ParsedArguments, _ settings: DiagnosticSettings)
    -> ProgressReporter?
  {
    guard declared, io.stderrIsTerminal, settings.format == .text, settings.verbosity != .quiet,
      !args.flag(DiagnosticOptions.noProgress), io.environment["TERM"] != "dumb",
      io.environment["NO_COLOR"]?.isEmpty ?? true
    else { return nil }
    var delay = 0.5
    if let text = io.environment[DiagnosticOptions.progressDelayVariable(root.name)],
      let ms = Int(text), ms >= 0
    {
      delay = Double(ms) / 1000
    }
    let sink = io.stderr
    let descriptor = (sink as? FileDescriptorSink)?.fileDescriptor
    return ProgressReporter(
      ProgressReporter.Configuration(
        program: root.name, delay: delay, write: { sink.write(bytes: $0) },
        columns: { descriptor.flatMap { Terminal.size($0)?.columns } },
        signalDescriptor: descriptor))
  }
}
