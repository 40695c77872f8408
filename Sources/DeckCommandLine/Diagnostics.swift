/// How serious a diagnostic line is; its raw value is the word printed after the program name.
public enum Severity: String, Sendable, Equatable {
  case error
  case warning
  case note
}

/// The one printer of diagnostic lines on standard error, so that every line has the same form:
/// "menudeck: error: ...", "menudeck: warning: ...", "menudeck: note: ...".
public struct DiagnosticPrinter: Sendable {
  /// The program name each line starts with.
  public var program: String
  public var sink: any TextSink

  public init(program: String, sink: any TextSink) {
    self.program = program
    self.sink = sink
  }

  /// "<program>: <severity>: <message>" without the newline.
  public static func line(program: String, _ severity: Severity, _ message: String) -> String {
    program + ": " + severity.rawValue + ": " + message
  }

  public func print(_ severity: Severity, _ message: String) {
    sink.write(Self.line(program: program, severity, message) + "\n")
  }

  public func error(_ message: String) { print(.error, message) }
  public func warning(_ message: String) { print(.warning, message) }
  public func note(_ message: String) { print(.note, message) }
}
