import DeckBase

/// Errors of the input/output layer. Every message says what is wrong, where, and what to do.
package enum DeckIOError: Error, Sendable, Equatable, CustomStringConvertible {
  /// An input file that does not exist (exit 66): `what` it is for, and what to check (the
  /// path, or also the config when the config may have named it).
  case missingFile(path: String, what: String, check: String = DeckIOError.checkPathOrConfig)
  /// A file that exists but cannot be read, or cannot be written (exit 74).
  case io(path: String, message: String)
  /// Bad input data at a location (exit 65). `message` already says what to do.
  case malformed(SourceLocation, message: String)
  /// Bad input data that has no single location, e.g. an empty catalog (exit 65).
  case invalid(path: String, message: String)

  /// What a missing file's message says to check when the file may come from the config.
  package static let checkPathOrConfig = "check the path or the config"
  /// What it says when only the command line named the file (the config itself, `merge`'s
  /// snapshots, `compare`'s logs).
  package static let checkPath = "check the path"

  /// This error with what to check `check`, when it is a missing file.
  package func checking(_ check: String) -> DeckIOError {
    guard case .missingFile(let path, let what, _) = self else { return self }
    return .missingFile(path: path, what: what, check: check)
  }

  package var description: String {
    switch self {
    case .missingFile(let path, let what, let check):
      return "\(path): no such file (the \(what)); \(check)"
    case .io(let path, let message):
      return "\(path): \(message)"
    case .malformed(let location, let message):
      if let field = location.field { return "\(location): \(field): \(message)" }
      return "\(location): \(message)"
    case .invalid(let path, let message):
      return "\(path): \(message)"
    }
  }
}
