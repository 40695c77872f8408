/// Parses `arguments` (the command line without the program name) against the command tree
/// rooted at `root` and runs what they ask for:
/// - a command: its `run` closure; a thrown `UsageError` prints the usage (exit 64), any other
///   error prints "<program>: error: <message>" with the code of `ExitCode.for(_:)`;
/// - `--help`, `-h` or `help <subcommand>`: the help on standard output, exit 0;
/// - `--version` (when the root has a version): the version on standard output, exit 0;
/// - a wrong command line: "<program>: error: <message>", the usage line and a pointer to the help
///   on standard error, exit 64.
/// Standard output is flushed at the end; a failed write there turns a success into exit 74.
package func runCommand(_ root: CommandSpec, arguments: [String], io: CLIStreams) -> ExitCode {
  var code: ExitCode
  let diagnostics = DiagnosticPrinter(program: root.name, sink: io.stderr)
  let commandLine = [root.name] + arguments
  switch CommandLineParser(root: root, tokens: arguments).resolve() {
  case .help(let path):
    io.stdout.write(HelpFormatter.help(path))
    code = .success
  case .version(let version):
    io.stdout.write(version + "\n")
    code = .success
  case .usageError(let path, let message):
    io.stderr.write(HelpFormatter.usageError(message, path: path))
    code = .usage
  case .run(let path, let arguments):
    guard let run = path[path.count - 1].run else {
      io.stderr.write(HelpFormatter.help(path))
      code = .usage
      break
    }
    let context = CommandContext(
      io: io, commandPath: path.map(\.name), arguments: commandLine)
    do {
      code = try run(arguments, context)
    } catch let error as UsageError {
      io.stderr.write(HelpFormatter.usageError(error.message, path: path))
      code = .usage
    } catch {
      code = ExitCode.for(error)
      if !io.stdout.isBrokenPipe, let message = ExitCode.message(for: error, program: root.name) {
        diagnostics.error(message)
      }
    }
  }
  do {
    try io.stdout.flush()
  } catch {
    if !io.stdout.isBrokenPipe { diagnostics.error("\(error)") }
    if code.isSuccess { code = ExitCode.for(error) }
  }
  // The reader of standard output has gone: whatever failed after that is its consequence.
  if io.stdout.isBrokenPipe { code = .brokenPipe }
  try? io.stderr.flush()
  return code
}
