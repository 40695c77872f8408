/// How serious a diagnostic line is; its raw value is the word printed after the program name.
package enum Severity: String, Sendable, Equatable {
  case error
  case warning
  case note
}

/// The one printer of diagnostic lines on standard error, so that every line has the same form:
/// "menudeck: error: ...", "menudeck: warning: ...", "menudeck: note: ...".
package struct DiagnosticPrinter: Sendable {
  /// The program name each line starts with.
  package var program: String
  package var sink: any TextSink

  package init(program: String, sink: any TextSink) {
    self.program = program
    self.sink = sink
  }

  /// "<program>: <severity>: <message>" without the newline.
  package static func line(program: String, _ severity: Severity, _ message: String) -> String {
    program + ": " + severity.rawValue + ": " + message
  }

  package func print(_ severity: Severity, _ message: String) {
    sink.write(Self.line(program: program, severity, message) + "\n")
  }

  package func error(_ message: String) { print(.error, message) }
  package func warning(_ message: String) { print(.warning, message) }
  package func note(_ message: String) { print(.note, message) }
}
