import DeckBase

/// Where a job says what it noticed while running: notes, warnings and the progress of long
/// work. The jobs call it; the command line implements it once, on top of its diagnostics
/// printer (`MenuDeckCLI/JobDiagnosticsPrinter.swift`), so that a job's words come out as every
/// other diagnostic does (`--quiet`, `--verbose`, `--log-format json`). Tests pass a recorder.
package protocol JobDiagnostics: Sendable {
  /// Whether an info line would be shown: a job skips work done only to say it otherwise.
  var showsInfo: Bool { get }
  /// Whether a progress line is drawn: a job counts its work only when it is.
  var showsProgress: Bool { get }
  func note(_ message: String, code: String?, location: SourceLocation?)
  func warning(_ message: String, code: String?, location: SourceLocation?)
  func info(_ message: String, code: String?, location: SourceLocation?)
  /// Runs `body` with a counter of its work shown as a progress line labelled `label`; the
  /// counter is nil when no progress line is drawn, and the work then counts nothing.
  func withProgress<T>(
    _ label: String, unit: ProgressUnit, total: Int?, _ body: (ProgressCounter?) throws -> T
  ) rethrows -> T
  /// A line the plugin `plugin` wrote on its standard error, said even under `--quiet`: the
  /// plugin's own words, which its error points at.
  func pluginLog(plugin: String, _ line: String)
}

/// The diagnostics of a job nobody watches: nothing is said and no progress is drawn.
package struct SilentJobDiagnostics: JobDiagnostics {
  package init() {}
  package var showsInfo: Bool { false }
  package var showsProgress: Bool { false }
  package func note(_ message: String, code: String?, location: SourceLocation?) {}
  package func warning(_ message: String, code: String?, location: SourceLocation?) {}
  package func info(_ message: String, code: String?, location: SourceLocation?) {}
  package func withProgress<T>(
    _ label: String, unit: ProgressUnit, total: Int?, _ body: (ProgressCounter?) throws -> T
  ) rethrows -> T {
    try body(nil)
  }
  package func pluginLog(plugin: String, _ line: String) {}
}
