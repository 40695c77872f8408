import DeckBase
import Foundation

/// Where a command writes text or bytes: standard output, standard error, a capture in tests.
///
/// Writes never throw: a sink that fails keeps the first error and drops later output, and
/// `flush()` reports it, so a command can write freely and `runCommand` turns a failed write into
/// exit 74 at the end.
package protocol TextSink: AnyObject, Sendable {
  /// Appends the UTF-8 bytes of `text`.
  func write(_ text: String)
  /// Appends raw bytes.
  func write(bytes: UnsafeRawBufferPointer)
  /// Sends buffered output on; throws the first write error the sink met, if any.
  func flush() throws
  /// Whether the reader of this sink has gone (a write met EPIPE): the run stops quietly with
  /// exit 141, as if killed by SIGPIPE, committing no output file.
  var isBrokenPipe: Bool { get }
}

extension TextSink {
  package var isBrokenPipe: Bool { false }

  /// Appends raw bytes.
  package func write(bytes: [UInt8]) {
    bytes.withUnsafeBytes { write(bytes: $0) }
  }

  /// Appends `text` and a newline.
  package func writeLine(_ text: String = "") {
    write(text + "\n")
  }
}

/// Where a command reads standard input from.
package protocol ByteSource: AnyObject, Sendable {
  /// Reads up to `buffer.count` bytes into `buffer`; returns how many, 0 at the end of input.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

extension ByteSource {
  /// Reads everything that is left.
  package func readAll() throws -> [UInt8] {
    try readAll(maxBytes: Int.max)!
  }

  /// Reads everything that is left, or nil as soon as it is more than `maxBytes`.
  package func readAll(maxBytes: Int) throws -> [UInt8]? {
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = try chunk.withUnsafeMutableBytes { try read(into: $0) }
      if count == 0 { return result }
      guard count <= maxBytes - result.count else { return nil }
      result.append(contentsOf: chunk[0..<count])
    }
  }
}

/// The streams and process facts a command runs with. Commands touch the process only through
/// this value, so tests run them in process, in parallel, with captured streams.
package struct CLIStreams: Sendable {
  package var stdout: any TextSink
  package var stderr: any TextSink
  package var stdin: any ByteSource
  /// Whether standard error is a terminal.
  package var stderrIsTerminal: Bool
  package var environment: [String: String]
  /// The directory relative paths are resolved against (see `resolvePath(_:)`).
  package var currentDirectory: String
  /// The diagnostic lines of the run on `stderr`, with the run's settings and progress line:
  /// `runCommand` sets the root command's printer; until then lines carry no program name.
  package var diagnostics: DiagnosticPrinter

  package init(
    stdout: any TextSink, stderr: any TextSink, stdin: any ByteSource,
    stderrIsTerminal: Bool = false, environment: [String: String] = [:],
    currentDirectory: String = "/"
  ) {
    self.stdout = stdout
    self.stderr = stderr
    self.stdin = stdin
    self.stderrIsTerminal = stderrIsTerminal
    self.environment = environment
    self.currentDirectory = currentDirectory
    self.diagnostics = DiagnosticPrinter(program: "", sink: stderr)
  }

  /// The process's own streams: buffered standard output, unbuffered standard error, standard
  /// input, the real environment and working directory.
  package static func standard() -> CLIStreams {
    CLIStreams(
      stdout: FileDescriptorSink(fileDescriptor: 1, name: "standard output"),
      stderr: FileDescriptorSink(fileDescriptor: 2, name: "standard error", bufferCapacity: 0),
      stdin: FileDescriptorSource(fileDescriptor: 0, name: "standard input"),
      stderrIsTerminal: isatty(2) == 1,
      environment: ProcessInfo.processInfo.environment,
      currentDirectory: FileManager.default.currentDirectoryPath)
  }

  /// Streams for tests: standard input from `stdin`, output captured in the returned sinks.
  package static func capturing(
    stdin: [UInt8] = [], stderrIsTerminal: Bool = false, environment: [String: String] = [:],
    currentDirectory: String = "/"
  ) -> (io: CLIStreams, stdout: CapturingSink, stderr: CapturingSink) {
    let out = CapturingSink()
    let err = CapturingSink()
    let io = CLIStreams(
      stdout: out, stderr: err, stdin: BytesSource(stdin), stderrIsTerminal: stderrIsTerminal,
      environment: environment, currentDirectory: currentDirectory)
    return (io, out, err)
  }

  /// `path` made absolute against `currentDirectory` ("-" and absolute paths are kept).
  package func resolvePath(_ path: String) -> String {
    FileSystem.resolve(path, in: currentDirectory)
  }
}

/// A sink writing to a file descriptor through its own buffer: output is collected until the
/// buffer holds `bufferCapacity` bytes, then written with one system call (large writes go
/// straight through). `bufferCapacity` 0 writes every call at once (for standard error). The
/// descriptor is not closed by the sink. Thread-safe.
package final class FileDescriptorSink: TextSink, @unchecked Sendable {
  package let fileDescriptor: Int32
  /// What the descriptor is, for error messages: "standard output", a file path.
  package let name: String
  private let capacity: Int
  private let lock = NSLock()
  private var buffer: [UInt8] = []
  private var failure: CommandFailure?
  private var brokenPipe = false

  package init(fileDescriptor: Int32, name: String, bufferCapacity: Int = 256 * 1024) {
    self.fileDescriptor = fileDescriptor
    self.name = name
    self.capacity = max(0, bufferCapacity)
    buffer.reserveCapacity(self.capacity)
  }

  package func write(_ text: String) {
    var text = text
    text.withUTF8 { write(bytes: UnsafeRawBufferPointer($0)) }
  }

  package func write(bytes: UnsafeRawBufferPointer) {
    lock.lock()
    defer { lock.unlock() }
    if failure != nil || bytes.isEmpty { return }
    if buffer.count + bytes.count <= capacity {
      buffer.append(contentsOf: bytes)
      return
    }
    drainBuffer()
    if bytes.count < capacity {
      buffer.append(contentsOf: bytes)
    } else {
      writeAll(bytes)
    }
  }

  package func flush() throws {
    lock.lock()
    defer { lock.unlock() }
    drainBuffer()
    if let failure { throw failure }
  }

  package var isBrokenPipe: Bool {
    lock.lock()
    defer { lock.unlock() }
    return brokenPipe
  }

  private func drainBuffer() {
    if buffer.isEmpty { return }
    buffer.withUnsafeBytes { writeAll($0) }
    buffer.removeAll(keepingCapacity: true)
  }

  private func writeAll(_ bytes: UnsafeRawBufferPointer) {
    guard failure == nil, var pointer = bytes.baseAddress else { return }
    var left = bytes.count
    while left > 0 {
      let written = systemWrite(fileDescriptor, pointer, left)
      if written < 0 {
        if errno == EINTR { continue }
        if errno == EPIPE { brokenPipe = true }
        failure = CommandFailure(
          .ioError, "cannot write to \(name): \(errnoText(errno)); check the disk or the pipe")
        return
      }
      left -= written
      pointer += written
    }
  }
}

/// Reads a file descriptor (standard input). The descriptor is not closed; the source keeps no
/// state of its own, so each `read` is one system call (retried when interrupted).
package final class FileDescriptorSource: ByteSource, @unchecked Sendable {
  package let fileDescriptor: Int32
  package let name: String

  package init(fileDescriptor: Int32, name: String) {
    self.fileDescriptor = fileDescriptor
    self.name = name
  }

  package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
    while true {
      let count = systemRead(fileDescriptor, base, buffer.count)
      if count >= 0 { return count }
      if errno == EINTR { continue }
      throw CommandFailure(.ioError, "cannot read \(name): \(errnoText(errno))")
    }
  }
}

/// A sink that keeps everything written to it, for tests. Thread-safe.
package final class CapturingSink: TextSink, @unchecked Sendable {
  private let lock = NSLock()
  private var storage: [UInt8] = []
  private var flushes = 0

  package init() {}

  package func write(_ text: String) {
    lock.lock()
    defer { lock.unlock() }
    storage.append(contentsOf: text.utf8)
  }

  package func write(bytes: UnsafeRawBufferPointer) {
    lock.lock()
    defer { lock.unlock() }
    storage.append(contentsOf: bytes)
  }

  package func flush() throws {
    lock.lock()
    defer { lock.unlock() }
    flushes += 1
  }

  /// Everything written so far.
  package var bytes: [UInt8] {
    lock.lock()
    defer { lock.unlock() }
    return storage
  }

  /// Everything written so far, decoded as UTF-8 (invalid bytes become U+FFFD).
  package var text: String { String(decoding: bytes, as: UTF8.self) }

  /// How many times `flush()` was called.
  package var flushCount: Int {
    lock.lock()
    defer { lock.unlock() }
    return flushes
  }
}

/// Standard input from bytes in memory, for tests. Thread-safe.
package final class BytesSource: ByteSource, @unchecked Sendable {
  private let lock = NSLock()
  private let data: [UInt8]
  private var position = 0

  package init(_ bytes: [UInt8]) {
    self.data = bytes
  }

  package convenience init(_ text: String) {
    self.init(Array(text.utf8))
  }

  package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    lock.lock()
    defer { lock.unlock() }
    let count = min(buffer.count, data.count - position)
    if count == 0 { return 0 }
    data.withUnsafeBytes { source in
      buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[position..<position + count]))
    }
    position += count
    return count
  }
}
