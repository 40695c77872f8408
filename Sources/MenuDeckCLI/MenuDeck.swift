import DeckBase
import DeckCommandLine
import DeckCore
import DeckIO
import DeckStrategies

/// menudeck's version, printed by `--version` and written into run headers.
package let menudeckVersion = "0.1.0"

/// Runs menudeck with `arguments` (without the program name) on `io`; the whole program is this
/// function, so tests call it in process.
package func run(_ arguments: [String], _ io: CLIStreams) -> ExitCode {
  runCommand(menudeckCommand, arguments: arguments, io: io)
}

/// The binary's whole `main`: signal handling (SIGINT, SIGTERM and SIGHUP remove this run's
/// temporary files and end its plugins; SIGPIPE becomes EPIPE), then `run` on the process's own
/// streams. Returns the exit status.
package func runProcess(_ arguments: [String]) -> Int32 {
  SignalHandling.install(program: menudeckCommand.name)
  return run(arguments, .standard()).rawValue
}

/// The program name that starts every diagnostic line.
let programName = "menudeck"

extension CLIStreams {
  /// menudeck's diagnostic lines, for code that has the streams but no command context.
  var diagnostics: DiagnosticPrinter { DiagnosticPrinter(program: programName, sink: stderr) }
}

/// The command tree.
package let menudeckCommand = CommandSpec(
  name: programName,
  abstract: "Batch recommender for swipe-card menu decks.",
  discussion: """
    Builds every diner's deck of dish cards for a date from a menu catalog, the diners' \
    profiles and their swipe history, with a pluggable ranking strategy under shared deck rules. \
    Plain 'menudeck' runs 'menudeck deck' with Config/menudeck.json.

    Exit codes: 0 ok, 1 a check failed, 64 usage, 65 bad input data, 66 missing input, \
    69 plugin unavailable, 70 internal error, 74 I/O error, 75 an output is locked by another \
    run, 76 plugin protocol error, 141 standard output closed by its reader; 129, 130, 143 when \
    stopped by SIGHUP, SIGINT, SIGTERM.
    """,
  subcommands: [
    deckCommand, playCommand, validateCommand, strategiesCommand, ingestCommand, mergeCommand,
    simulateCommand,
    statsCommand, compareCommand, importCommand, sampleCommand, completionCommand,
    referenceCommand,
  ],
  defaultSubcommand: "deck",
  version: menudeckVersion)

// MARK: - Error to exit code, in one place

extension DeckIOError: ExitCodeProviding {
  package var exitCode: ExitCode {
    switch self {
    case .missingFile: return .noInput
    case .io: return .ioError
    case .malformed, .invalid: return .dataError
    }
  }
}

extension DeckCoreError: ExitCodeProviding {
  package var exitCode: ExitCode {
    switch self {
    // Memory the system refused is not the data's fault (sysexits has no code of its own).
    case .outOfMemory: return .software
    case .invalidDrag, .invalidCatalog, .invalidRules, .invalidSnapshot: return .dataError
    }
  }
}

extension StrategyError: ExitCodeProviding {
  package var exitCode: ExitCode {
    switch self {
    case .unknownStrategy, .unknownOption, .invalidOption: return .dataError
    // A built-in strategy that breaks its contract (wrong number of scores, NaN) is a bug.
    case .failed: return .software
    case .plugin(let fault):
      switch fault.kind {
      case .notStartable: return .noInput
      case .exitedEarly, .crashed, .timedOut: return .unavailable
      default: return .protocolError
      }
    }
  }
}

/// Bytes to the command's standard output.
final class StdoutOutput: ByteOutput {
  let sink: any TextSink
  init(_ sink: any TextSink) { self.sink = sink }
  func write(_ bytes: [UInt8]) throws(DeckIOError) {
    sink.write(bytes: bytes)
    // Stop at once when the reader has gone (`menudeck deck | head`), not after the last deck.
    if sink.isBrokenPipe {
      throw .io(path: "standard output", message: "the reader closed the pipe")
    }
  }
}

enum ContentHash {
  static func sha256(_ bytes: [UInt8]) -> String { SHA256.hex(SHA256.hash(bytes)) }
}
