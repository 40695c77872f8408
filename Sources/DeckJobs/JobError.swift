/// The typed error of the run layer: a job's refusal or failure with its message, in the same
/// words the commands printed before the jobs moved out of them. `kind` names the class of
/// failure; `MenuDeckCLI/MenuDeck.swift` maps it to the exit code, with every other layer's error.
package struct JobError: Error, CustomStringConvertible, Equatable, Sendable {
  /// The class of a job's failure: what the command line makes of it (its exit code).
  package enum Kind: Sendable, Equatable {
    /// A request that cannot be run as given (a value out of range, options that clash): 64.
    case usage
    /// An input with bad data (a config value, a snapshot that does not fit): 65.
    case dataError
    /// An input that does not exist: 66.
    case noInput
    /// Reading or writing a file failed: 74.
    case ioError
    /// A state the job should never reach, that is a bug: 70.
    case software
    /// An output changed under the run by something that does not take menudeck's lock: 75.
    case busy
  }

  package var kind: Kind
  package var message: String
  /// The code of the error's JSON diagnostic when it is finer than its kind's.
  package var code: String?

  package init(_ kind: Kind, _ message: String, code: String? = nil) {
    self.kind = kind
    self.message = message
    self.code = code
  }

  package var description: String { message }

  /// A request that cannot be run as given.
  package static func usage(_ message: String) -> JobError { JobError(.usage, message) }
}
