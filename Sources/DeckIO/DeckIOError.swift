import DeckBase

/// Errors of the input/output layer. Every message says what is wrong, where, and what to do.
package enum DeckIOError: Error, Sendable, Equatable, CustomStringConvertible {
  /// An input file that does not exist (exit 66).
  case missingFile(path: String, what: String)
  /// A file that exists but cannot be read, or cannot be written (exit 74).
  case io(path: String, message: String)
  /// Bad input data at a location (exit 65). `message` already says what to do.
  case malformed(SourceLocation, message: String)
  /// Bad input data that has no single location, e.g. an empty catalog (exit 65).
  case invalid(path: String, message: String)

  package var description: String {
    switch self {
    case .missingFile(let path, let what):
      return "\(path): no such file (the \(what)); check the path or the config"
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
