/// The status a command ends with, as documented in docs/exit-codes.md (the BSD `sysexits.h`
/// values).
///
/// `ExitCode` is itself an `Error`: a `run` closure that has already printed its own diagnostics
/// can `throw ExitCode.failure` to stop with that status and no further message.
package struct ExitCode: RawRepresentable, Hashable, Sendable, Error, CustomStringConvertible {
  package let rawValue: Int32

  package init(rawValue: Int32) {
    self.rawValue = rawValue
  }

  package init(_ rawValue: Int32) {
    self.rawValue = rawValue
  }

  /// 0: the command did what was asked.
  package static let success = ExitCode(0)
  /// 1: the run finished but failed its own check (for example a comparison that did not pass).
  package static let failure = ExitCode(1)
  /// 64: the command line is wrong (unknown option, missing value, bad option value).
  package static let usage = ExitCode(64)
  /// 65: an input file has bad data (malformed line, duplicate id, unknown key).
  package static let dataError = ExitCode(65)
  /// 66: an input file does not exist.
  package static let noInput = ExitCode(66)
  /// 70: an internal error, that is a bug in menudeck.
  package static let software = ExitCode(70)
  /// A service menudeck depends on is unavailable: an external plugin exited early, crashed or
  /// did not answer in time (sysexits EX_UNAVAILABLE).
  package static let unavailable = ExitCode(69)
  /// An external plugin broke the protocol: malformed JSON, wrong counts, unknown ids, NaN
  /// (sysexits EX_PROTOCOL).
  package static let protocolError = ExitCode(76)
  /// 74: reading or writing a file or a stream failed.
  package static let ioError = ExitCode(74)
  /// 75: another run holds the lock of an output file; nothing was written, try again later
  /// (sysexits EX_TEMPFAIL).
  package static let busy = ExitCode(75)
  /// 141: the reader of standard output went away (`menudeck deck | head`): the run stops
  /// quietly, as a program killed by SIGPIPE would, and commits no output file.
  package static let brokenPipe = ExitCode(141)

  package var isSuccess: Bool { rawValue == 0 }

  package var description: String { String(rawValue) }
}

/// An error that knows the exit code it ends the process with. Conform the error types of the
/// lower modules (in MenuDeckCLI) so that `ExitCode.for(_:)` maps them; the error's
/// `description` is the message printed after "<program>: error: ".
package protocol ExitCodeProviding: Error {
  var exitCode: ExitCode { get }
}

extension ExitCode: ExitCodeProviding {
  package var exitCode: ExitCode { self }
}

extension ExitCode {
  /// The exit code for an error thrown by a command: the error's own code when it provides one,
  /// otherwise 70 (an error nobody expected is a bug).
  package static func `for`(_ error: any Error) -> ExitCode {
    if let provider = error as? any ExitCodeProviding { return provider.exitCode }
    return .software
  }

  /// The message printed after "<program>: error: " for `error`, or nil when the error carries no
  /// message (a thrown `ExitCode`). Errors that do not provide an exit code are internal errors and
  /// ask for a bug report.
  package static func message(for error: any Error, program: String) -> String? {
    if error is ExitCode { return nil }
    if error is any ExitCodeProviding { return String(describing: error) }
    return "internal error: \(String(describing: error)); this is a bug in \(program), "
      + "please report it with the command line that caused it"
  }
}

/// A failure with a message and an exit code, for `run` closures:
/// `throw CommandFailure(.noInput, "'data/x.json': no such file; check --catalog")`.
/// `code`, when given, is its JSON diagnostic's code, finer than the exit code's class.
package struct CommandFailure: ExitCodeProviding, DiagnosticDescribing, Sendable, Equatable,
  CustomStringConvertible
{
  package var exitCode: ExitCode
  package var message: String
  package var code: String?

  package init(_ exitCode: ExitCode, _ message: String, code: String? = nil) {
    self.exitCode = exitCode
    self.message = message
    self.code = code
  }

  package var description: String { message }
  package var diagnosticCode: String? { code }
}

/// A wrong command line (exit 64). Printed as "<program>: error: <message>", the command's usage
/// line and a pointer to its help. Thrown by the parser and by the typed accessors of
/// `ParsedArguments`; `run` closures throw it for option values they reject.
package struct UsageError: ExitCodeProviding, Sendable, Equatable, CustomStringConvertible {
  package var message: String

  package init(_ message: String) {
    self.message = message
  }

  package var exitCode: ExitCode { .usage }
  package var description: String { message }
}

extension ExitCode {
  /// The snake_case code of this exit code's class, the `code` of an error's JSON diagnostic
  /// when the error has no finer one (docs/diagnostics.md lists them).
  package var diagnosticCode: String {
    switch rawValue {
    case 0: return "ok"
    case 1: return "check_failed"
    case 64: return "usage"
    case 65: return "bad_input"
    case 66: return "missing_input"
    case 69: return "plugin_unavailable"
    case 70: return "internal_error"
    case 74: return "io_error"
    case 75: return "busy"
    case 76: return "plugin_protocol"
    case 141: return "broken_pipe"
    default: return "exit_\(rawValue)"
    }
  }

  /// The code of `error`'s JSON diagnostic: its own (`DiagnosticDescribing`), else its exit
  /// code's class.
  package static func code(for error: any Error) -> String {
    if let described = error as? any DiagnosticDescribing, let code = described.diagnosticCode {
      return code
    }
    return ExitCode.for(error).diagnosticCode
  }
}
