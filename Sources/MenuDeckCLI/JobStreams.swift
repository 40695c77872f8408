import DeckBase
import DeckCommandLine
import DeckJobs

/// The jobs' diagnostics (`DeckJobs.JobDiagnostics`) printed by the command's one diagnostics
/// printer: a job's note, warning or progress line comes out as the command's own would.
struct JobDiagnosticsPrinter: JobDiagnostics {
  let printer: DiagnosticPrinter

  var showsInfo: Bool { printer.shows(.info) }
  var showsProgress: Bool { printer.progress != nil }

  func note(_ message: String, code: String?, location: SourceLocation?) {
    printer.note(message, code: code, location: location)
  }

  func warning(_ message: String, code: String?, location: SourceLocation?) {
    printer.warning(message, code: code, location: location)
  }

  func info(_ message: String, code: String?, location: SourceLocation?) {
    printer.info(message, code: code, location: location)
  }

  func withProgress<T>(
    _ label: String, unit: ProgressUnit, total: Int?, _ body: (ProgressCounter?) throws -> T
  ) rethrows -> T {
    try printer.withProgress(label, unit: unit, total: total, body)
  }

  func pluginLog(plugin: String, _ line: String) {
    printer.pluginLog(plugin: plugin, line)
  }
}

/// A command's standard input as a job's.
final class JobInputStream: JobInput {
  let source: any ByteSource

  init(_ source: any ByteSource) {
    self.source = source
  }

  var fileDescriptor: Int32? { (source as? FileDescriptorSource)?.fileDescriptor }
  func readAll() throws -> [UInt8] { try source.readAll() }
  func readAll(maxBytes: Int) throws -> [UInt8]? { try source.readAll(maxBytes: maxBytes) }
}

/// A command's standard output or error as a job's.
final class JobOutputStream: JobOutput {
  let sink: any TextSink

  init(_ sink: any TextSink) {
    self.sink = sink
  }

  func write(bytes: [UInt8]) { sink.write(bytes: bytes) }
  func flush() throws { try sink.flush() }
  var isBrokenPipe: Bool { sink.isBrokenPipe }
}

extension CLIStreams {
  /// These streams, the directory and the diagnostics printer as a job's.
  var job: JobIO {
    JobIO(
      standardInput: JobInputStream(stdin), standardOutput: JobOutputStream(stdout),
      standardError: JobOutputStream(stderr),
      diagnostics: JobDiagnosticsPrinter(printer: diagnostics),
      currentDirectory: currentDirectory, environment: environment)
  }
}

extension CommandContext {
  /// The command's streams and command line as a job's.
  var job: JobIO {
    var io = io.job
    io.arguments = arguments
    return io
  }
}
