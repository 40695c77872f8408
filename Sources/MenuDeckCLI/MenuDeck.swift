import DeckBase
import DeckCommandLine
import DeckCore
import DeckIO
import DeckJobs
import DeckPlay
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

    Every command takes --quiet, --verbose, --log-format json (one JSON object per line on \
    stderr, also set by MENUDECK_LOG_FORMAT) and --no-progress; see docs/diagnostics.md.
    """,
  options: DiagnosticOptions.all,
  subcommands: [
    deckCommand, playCommand, validateCommand, strategiesCommand, ingestCommand, mergeCommand,
    simulateCommand,
    statsCommand, compareCommand, tuneCommand, importCommand, sampleCommand, completionCommand,
    referenceCommand,
  ],
  defaultSubcommand: "deck",
  version: menudeckVersion)

// MARK: - Error to exit code and diagnostic code, in one place

extension DeckIOError: ExitCodeProviding, DiagnosticDescribing {
  package var exitCode: ExitCode {
    switch self {
    case .missingFile: return .noInput
    case .io: return .ioError
    case .malformed, .invalid: return .dataError
    }
  }

  package var diagnosticCode: String? {
    switch self {
    case .missingFile: return "missing_file"
    case .io: return "io_error"
    case .malformed: return "malformed_input"
    case .invalid: return "invalid_input"
    }
  }

  /// The file of every case; the line, column and field of a malformed one (line 0: the whole
  /// file).
  package var sourceLocation: SourceLocation? {
    switch self {
    case .malformed(let location, _): return location
    case .missingFile(let path, _, _), .io(let path, _), .invalid(let path, _):
      return SourceLocation(file: path, line: 0)
    }
  }

  package var diagnosticMessage: String {
    switch self {
    case .malformed(_, let message), .io(_, let message), .invalid(_, let message):
      return message
    case .missingFile(let path, _, _):
      let text = description
      return text.hasPrefix(path + ": ") ? String(text.dropFirst(path.count + 2)) : text
    }
  }
}

extension JobError: ExitCodeProviding, DiagnosticDescribing {
  package var exitCode: ExitCode {
    switch kind {
    case .usage: return .usage
    case .dataError: return .dataError
    case .noInput: return .noInput
    case .ioError: return .ioError
    case .software: return .software
    case .busy: return .busy
    }
  }
  package var diagnosticCode: String? { code }
}

extension PlayTerminalError: ExitCodeProviding {
  package var exitCode: ExitCode { .ioError }
}

extension LockBusy: ExitCodeProviding {
  package var exitCode: ExitCode { .busy }
}

extension HistoryFreshness: ExitCodeProviding, DiagnosticDescribing {
  /// Only `deck --strict` throws it: the history is unfit for the deck date.
  package var exitCode: ExitCode { .dataError }
  package var diagnosticCode: String? { code }
  package var sourceLocation: SourceLocation? { file.map { SourceLocation(file: $0, line: 0) } }
}

extension DeckCoreError: ExitCodeProviding, DiagnosticDescribing {
  package var exitCode: ExitCode {
    switch self {
    // Memory the system refused is not the data's fault (sysexits has no code of its own).
    case .outOfMemory: return .software
    case .invalidDrag, .invalidCatalog, .invalidRules, .invalidSnapshot: return .dataError
    case .invalidRestaurantRule: return .dataError
    }
  }

  package var diagnosticCode: String? {
    switch self {
    case .outOfMemory: return "out_of_memory"
    case .invalidDrag: return "invalid_drag"
    case .invalidCatalog: return "invalid_catalog"
    case .invalidRules: return "invalid_rules"
    case .invalidSnapshot: return "invalid_snapshot"
    case .invalidRestaurantRule: return "invalid_rules"
    }
  }
}

extension StrategyError: ExitCodeProviding, DiagnosticDescribing {
  package var exitCode: ExitCode {
    switch self {
    case .unknownStrategy, .unknownOption, .invalidOption, .optionOutOfRange: return .dataError
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

  package var diagnosticCode: String? {
    switch self {
    case .unknownStrategy: return "unknown_strategy"
    case .unknownOption: return "unknown_strategy_option"
    case .invalidOption, .optionOutOfRange: return "invalid_strategy_option"
    case .failed: return "strategy_failed"
    // "plugin_exited_early", "plugin_timed_out", "plugin_malformed", ...
    case .plugin(let fault): return "plugin_" + fault.kind.rawValue.replacing("-", with: "_")
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
