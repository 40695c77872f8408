import DeckBase
import Foundation

@testable import DeckJobs

/// Standard input a test gives: its bytes, read whole.
final class TestInput: JobInput {
  let bytes: [UInt8]
  init(_ bytes: [UInt8] = []) { self.bytes = bytes }
  var fileDescriptor: Int32? { nil }
  func readAll() throws -> [UInt8] { bytes }
  func readAll(maxBytes: Int) throws -> [UInt8]? { bytes.count > maxBytes ? nil : bytes }
}

/// Standard output or error a test captures.
final class TestOutput: JobOutput, @unchecked Sendable {
  private let lock = NSLock()
  private var captured: [UInt8] = []
  var bytes: [UInt8] { lock.withLock { captured } }
  func write(bytes: [UInt8]) { lock.withLock { captured += bytes } }
  func flush() throws {}
  var isBrokenPipe: Bool { false }
}

/// The jobs' diagnostics a test reads back, one "severity: message" line each.
final class RecordedDiagnostics: JobDiagnostics, @unchecked Sendable {
  private let lock = NSLock()
  private var recorded: [String] = []
  var lines: [String] { lock.withLock { recorded } }
  var showsInfo: Bool { true }
  var showsProgress: Bool { false }
  func note(_ message: String, code: String?, location: SourceLocation?) {
    lock.withLock { recorded.append("note: \(message)") }
  }
  func warning(_ message: String, code: String?, location: SourceLocation?) {
    lock.withLock { recorded.append("warning: \(message)") }
  }
  func info(_ message: String, code: String?, location: SourceLocation?) {
    lock.withLock { recorded.append("info: \(message)") }
  }
  func withProgress<T>(
    _ label: String, unit: ProgressUnit, total: Int?, _ body: (ProgressCounter?) throws -> T
  ) rethrows -> T {
    try body(nil)
  }
  func pluginLog(plugin: String, _ line: String) {
    lock.withLock { recorded.append("plugin \(plugin): \(line)") }
  }
}

enum JobTestSupport {
  /// The repository's root, where `Config/` and `Data/` are.
  static var root: String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().path
  }

  /// A job's streams in the repository's root, with `diagnostics` recorded.
  static func io(_ diagnostics: RecordedDiagnostics = RecordedDiagnostics()) -> JobIO {
    JobIO(
      standardInput: TestInput(), standardOutput: TestOutput(), standardError: TestOutput(),
      diagnostics: diagnostics, currentDirectory: root)
  }
}
