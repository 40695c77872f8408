import DeckBase

/// Standard input as a job sees it.
package protocol JobInput: AnyObject, Sendable {
  /// The descriptor when this is the process's own standard input (read as a stream, named
  /// by its identity); nil for bytes given in process (tests).
  var fileDescriptor: Int32? { get }
  /// Everything up to the end.
  func readAll() throws -> [UInt8]
  /// Everything up to the end, or nil when there is more than `maxBytes`.
  func readAll(maxBytes: Int) throws -> [UInt8]?
}

/// Standard output or standard error as a job sees it.
package protocol JobOutput: AnyObject, Sendable {
  func write(bytes: [UInt8])
  func flush() throws
  /// Whether the reader went away (`menudeck deck | head`).
  var isBrokenPipe: Bool { get }
}

/// What a job touches of the process besides the files it names: standard input and output,
/// the directory relative paths are resolved against, the command line (named in an output
/// lock's holder line) and where it says what it noticed. The command line builds it once from
/// its streams (`CLIStreams.job` in MenuDeckCLI); a test builds one with bytes of its own.
package struct JobIO: Sendable {
  package var standardInput: any JobInput
  package var standardOutput: any JobOutput
  package var standardError: any JobOutput
  package var diagnostics: any JobDiagnostics
  /// The directory relative paths are resolved against (see `resolvePath(_:)`).
  package var currentDirectory: String
  package var environment: [String: String]
  /// The program and arguments of the run, for the holder line of its output locks.
  package var arguments: [String]

  package init(
    standardInput: any JobInput, standardOutput: any JobOutput, standardError: any JobOutput,
    diagnostics: any JobDiagnostics, currentDirectory: String,
    environment: [String: String] = [:], arguments: [String] = []
  ) {
    self.standardInput = standardInput
    self.standardOutput = standardOutput
    self.standardError = standardError
    self.diagnostics = diagnostics
    self.currentDirectory = currentDirectory
    self.environment = environment
    self.arguments = arguments
  }

  /// `path` made absolute against `currentDirectory` ("-" and absolute paths are kept).
  package func resolvePath(_ path: String) -> String {
    FileSystem.resolve(path, in: currentDirectory)
  }
}
