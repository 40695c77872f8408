import DeckBase

/// How serious a diagnostic line is; its raw value is the word printed after the program name
/// and the `level` of its JSON form.
package enum Severity: String, Sendable, Equatable, CaseIterable {
  /// Always printed.
  case error
  /// Printed unless `--quiet`.
  case warning
  /// A summary or fact about the run; printed unless `--quiet`.
  case note
  /// Detail for an operator (inputs with their sizes and hashes, timings, threads): printed
  /// with `--verbose` only. Also the level of a plugin's own log lines.
  case info
}

/// How much a run says on standard error.
package enum Verbosity: Sendable, Equatable {
  case quiet
  case normal
  case verbose
}

/// The form of the diagnostic lines.
package enum LogFormat: String, Sendable, Equatable, CaseIterable {
  /// `menudeck: warning: ...`, for people.
  case text
  /// One JSON object per line, for log shippers.
  case json
}

/// What the diagnostic options of the command line (`DiagnosticOptions`) asked for.
package struct DiagnosticSettings: Sendable, Equatable {
  package var verbosity: Verbosity
  package var format: LogFormat

  package init(verbosity: Verbosity = .normal, format: LogFormat = .text) {
    self.verbosity = verbosity
    self.format = format
  }

  /// Whether a line of `severity` is printed.
  package func shows(_ severity: Severity) -> Bool {
    switch severity {
    case .error: return true
    case .warning, .note: return verbosity != .quiet
    case .info: return verbosity == .verbose
    }
  }
}

/// One diagnostic: its level, a stable snake_case code, the message (without the location),
/// and where in an input it is, when it is somewhere.
package struct Diagnostic: Sendable, Equatable {
  package var severity: Severity
  package var code: String
  package var message: String
  package var location: SourceLocation?
  /// The plugin whose log line this is (`plugin_log`).
  package var plugin: String?

  package init(
    _ severity: Severity, code: String, _ message: String, location: SourceLocation? = nil,
    plugin: String? = nil
  ) {
    self.severity = severity
    self.code = code
    self.message = message
    self.location = location
    self.plugin = plugin
  }

  /// The code of a line whose call site gives none: the level's name.
  package static func genericCode(_ severity: Severity) -> String { severity.rawValue }
}

/// The one printer of diagnostic lines on standard error, so that every line has the same form:
/// "menudeck: error: ...", "menudeck: warning: ...", "menudeck: note: ...", "menudeck: info:
/// ..." (and a plugin's log lines "menudeck: plugin NAME: ..."), or with `--log-format json` one
/// JSON object per line:
/// `{"level","code","message","file","line","column","field","program","command"}`.
/// It holds the run's settings (quiet, verbose, the format) and its progress line, which it
/// erases before each line it prints.
package struct DiagnosticPrinter: Sendable {
  /// The program name each line starts with (none when empty).
  package var program: String
  /// The running command without the program ("deck", "import movielens"); nil before the
  /// command line names one.
  package var command: String?
  package var sink: any TextSink
  package var settings: DiagnosticSettings
  /// The run's progress line on a terminal, if it has one.
  package var progress: ProgressReporter?

  package init(
    program: String, command: String? = nil, sink: any TextSink,
    settings: DiagnosticSettings = DiagnosticSettings(), progress: ProgressReporter? = nil
  ) {
    self.program = program
    self.command = command
    self.sink = sink
    self.settings = settings
    self.progress = progress
  }

  /// "<program>: <severity>: <message>" without the newline.
  package static func line(program: String, _ severity: Severity, _ message: String) -> String {
    (program.isEmpty ? "" : program + ": ") + severity.rawValue + ": " + message
  }

  /// Whether a line of `severity` is printed.
  package func shows(_ severity: Severity) -> Bool { settings.shows(severity) }

  /// Prints `message` at `severity` (unless the settings hide it); `code` is the JSON form's
  /// (default: the level's name). `location`, when given, fills the JSON form's location fields;
  /// a location in a file (line 1 or more) also starts the text form ("file:line:column:
  /// message"), while a line about a whole file (line 0) names the file in its message, in its
  /// own words ("history Data/swipes.jsonl: ...").
  package func print(
    _ severity: Severity, _ message: String, code: String? = nil, location: SourceLocation? = nil
  ) {
    guard shows(severity) else { return }
    emit(
      Diagnostic(
        severity, code: code ?? Diagnostic.genericCode(severity), message, location: location))
  }

  /// Prints a warning even with `--quiet`: for the one line a cron operator must see.
  package func warnAlways(_ message: String, code: String) {
    emit(Diagnostic(.warning, code: code, message))
  }

  /// Prints a thrown error: its description in the text form; its code, message and location
  /// (`DiagnosticDescribing`) in the JSON form.
  package func error(_ error: any Error) {
    guard let text = ExitCode.message(for: error, program: program) else { return }
    var diagnostic = Diagnostic(.error, code: ExitCode.code(for: error), text)
    if let described = error as? any DiagnosticDescribing {
      diagnostic.location = described.sourceLocation
      if settings.format == .json { diagnostic.message = described.diagnosticMessage }
    }
    if settings.format == .text {
      write(Self.line(program: program, .error, text))
    } else {
      emit(diagnostic)
    }
  }

  /// A wrong command line: the error (code `usage`) and a note pointing at the command's help
  /// (code `help`), "see 'menudeck deck --help'", as two lines in either form. Both print with
  /// `--quiet` too: the pointer belongs to the error, and the command line that asked for quiet
  /// may be the one that is wrong.
  package func usageError(_ message: String, help: String) {
    emit(Diagnostic(.error, code: "usage", message))
    helpNote(help)
  }

  /// The note after a usage error that points at the command's help (code `help`), printed
  /// with `--quiet` too.
  package func helpNote(_ help: String) {
    emit(Diagnostic(.note, code: "help", help))
  }

  /// A line a plugin wrote on its standard error: "<program>: plugin NAME: <line>" or a JSON
  /// object of level `info` and code `plugin_log` with the plugin's name. Printed with
  /// `--quiet` too: the plugin's own words, which a plugin's error points at ("see its log
  /// above").
  package func pluginLog(plugin: String, _ line: String) {
    switch settings.format {
    case .text:
      write((program.isEmpty ? "" : program + ": ") + "plugin " + plugin + ": " + line)
    case .json:
      emit(Diagnostic(.info, code: "plugin_log", line, plugin: plugin))
    }
  }

  package func error(_ message: String, code: String? = nil) { print(.error, message, code: code) }
  package func warning(
    _ message: String, code: String? = nil, location: SourceLocation? = nil
  ) {
    print(.warning, message, code: code, location: location)
  }
  package func note(_ message: String, code: String? = nil, location: SourceLocation? = nil) {
    print(.note, message, code: code, location: location)
  }
  package func info(_ message: String, code: String? = nil, location: SourceLocation? = nil) {
    print(.info, message, code: code, location: location)
  }

  /// Runs `body` as the task `label` of the progress line, counted in `unit` (`total` units, or
  /// unknown, or counted by the work itself with `addTotal`), and erases the line when it
  /// returns. `body` gets the counter to count on, nil when the run draws no progress line
  /// (not a terminal, `--no-progress`, `--quiet`, JSON lines): the work then counts nothing.
  package func withProgress<T>(
    _ label: String, unit: ProgressUnit, total: Int? = nil,
    _ body: (ProgressCounter?) throws -> T
  ) rethrows -> T {
    guard let progress else { return try body(nil) }
    let counter = progress.begin(label, unit: unit, total: total)
    defer { progress.end() }
    return try body(counter)
  }

  /// `diagnostic` in the run's format, whatever the verbosity.
  package func emit(_ diagnostic: Diagnostic) {
    write(formatted(diagnostic))
  }

  /// `diagnostic` in the JSON form, or `text` after "<program>: <level>: " in the text form (for
  /// a message that words its location its own way), unless the settings hide its level.
  package func emit(_ diagnostic: Diagnostic, text: String) {
    guard shows(diagnostic.severity) else { return }
    switch settings.format {
    case .text: write(Self.line(program: program, diagnostic.severity, text))
    case .json: emit(diagnostic)
    }
  }

  /// The line of `diagnostic` in the run's format, without the newline.
  package func formatted(_ diagnostic: Diagnostic) -> String {
    switch settings.format {
    case .text:
      var message = diagnostic.message
      if let location = diagnostic.location, location.line > 0 {
        message = "\(location): " + (location.field.map { "\($0): " } ?? "") + message
      }
      if let plugin = diagnostic.plugin {
        return (program.isEmpty ? "" : program + ": ") + "plugin " + plugin + ": " + message
      }
      return Self.line(program: program, diagnostic.severity, message)
    case .json:
      return json(diagnostic)
    }
  }

  /// The JSON object of `diagnostic`: every field present, null when unknown (a line number of
  /// 0 means the whole file).
  package func json(_ d: Diagnostic) -> String {
    var w = JSONWriter(capacity: 256)
    w.beginObject()
    w.field("level", d.severity.rawValue)
    w.field("code", d.code)
    w.field("message", d.message)
    w.field("file", d.location?.file)
    w.field("line", int: d.location.flatMap { $0.line > 0 ? $0.line : nil })
    w.field("column", int: d.location?.column)
    w.field("field", d.location?.field)
    if let plugin = d.plugin { w.field("plugin", plugin) }
    w.field("program", program)
    w.field("command", command)
    w.endObject()
    return w.text
  }

  private func write(_ line: String) {
    writeRaw(line + "\n")
  }

  private func writeRaw(_ text: String) {
    if let progress {
      progress.withLineErased { sink.write(text) }
    } else {
      sink.write(text)
    }
  }
}

/// An error that can say where in an input it is and what it says without that location, for
/// the JSON form of diagnostics; and its code, finer than its exit code's class. Conform the
/// lower layers' error types in MenuDeckCLI (`MenuDeck.swift`), beside `ExitCodeProviding`.
package protocol DiagnosticDescribing: Error {
  /// Where the error is, when it is in an input (a line number of 0: the whole file).
  var sourceLocation: SourceLocation? { get }
  /// The message without the location that starts the error's description.
  var diagnosticMessage: String { get }
  /// A stable snake_case code; nil: the code of the exit code's class.
  var diagnosticCode: String? { get }
}

extension DiagnosticDescribing {
  package var sourceLocation: SourceLocation? { nil }
  package var diagnosticMessage: String { String(describing: self) }
  package var diagnosticCode: String? { nil }
}
