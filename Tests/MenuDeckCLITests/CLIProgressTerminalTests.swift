import Foundation
import Synchronization
import Testing

@testable import MenuDeckCLI

#if canImport(Glibc)
  import Glibc
#endif

/// The progress line of the built binary on a real pseudo-terminal: drawn there (with the delay
/// set to 0 by the test-only MENUDECK_PROGRESS_DELAY_MS, so that no test waits for a clock),
/// fitted to the terminal's width, never written to a pipe, and erased by a signal before the
/// run's last line.
@Suite(
  .enabled(
    if: MenudeckBinary.path != nil,
    "menudeck binary not found next to the test bundle or in .build/debug; run swift build first"))
struct CLIProgressTerminalTests {
  /// A pseudo-terminal of `columns` columns: its controlling side, and the path of the other.
  final class Terminal: @unchecked Sendable {
    let master: Int32
    let slavePath: String
    private let output = Mutex([UInt8]())
    private let finished = DispatchSemaphore(value: 0)
    private let ended = Mutex(false)

    /// The C library's pseudo-terminal calls, which the Glibc module does not import.
    private enum PTY {
      typealias Open = @convention(c) (Int32) -> Int32
      typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
      static func function<T>(_ name: String, as type: T.Type) throws -> T {
        let symbol = try #require(dlsym(dlopen(nil, RTLD_NOW), name), "no \(name)")
        return unsafeBitCast(symbol, to: type)
      }
    }

    init(columns: UInt16) throws {
      let open = try PTY.function("posix_openpt", as: PTY.Open.self)
      let grant = try PTY.function("grantpt", as: PTY.Open.self)
      let unlock = try PTY.function("unlockpt", as: PTY.Open.self)
      let name = try PTY.function("ptsname", as: PTY.Name.self)
      master = open(O_RDWR | O_NOCTTY)
      try #require(master >= 0, "posix_openpt: \(String(cString: strerror(errno)))")
      try #require(grant(master) == 0 && unlock(master) == 0)
      slavePath = String(cString: try #require(name(master)))
      var size = winsize(ws_row: 24, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
      _ = ioctl(master, UInt(TIOCSWINSZ), &size)
    }

    deinit { close(master) }

    /// Reads the terminal until every descriptor of its other side is closed, or, once
    /// `finish()` says the process has ended, until nothing more comes.
    func startReading() {
      DispatchQueue.global().async { [self] in
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
          var ready = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
          let polled = poll(&ready, 1, 50)
          if polled < 0 && errno == EINTR { continue }
          if polled == 0 {
            if ended.withLock({ $0 }) { break }
            continue
          }
          let n = read(master, &buffer, buffer.count)
          if n < 0 && errno == EINTR { continue }
          if n <= 0 { break }
          output.withLock { $0 += buffer[0..<n] }
        }
        finished.signal()
      }
    }

    /// The process has ended: reads what is left, then returns.
    func finish() {
      ended.withLock { $0 = true }
      finished.wait()
    }

    var text: String { output.withLock { String(decoding: $0, as: UTF8.self) } }
  }

  /// The environment of the runs: delay 0, a terminal that is not dumb, no NO_COLOR.
  static func environment(_ extra: [String: String] = [:]) -> [String: String] {
    var environment = ProcessInfo.processInfo.environment
    environment["NO_COLOR"] = nil
    environment["MENUDECK_LOG_FORMAT"] = nil
    environment["TERM"] = "xterm"
    environment["MENUDECK_PROGRESS_DELAY_MS"] = "0"
    return environment.merging(extra) { $1 }
  }

  /// Starts the binary in the repository root with standard error on `stderrPath` (a terminal
  /// or a file), standard output to /dev/null and standard input from `stdin`.
  static func start(
    _ arguments: [String], stderrPath: String, stdin: FileHandle? = nil,
    environment: [String: String] = environment()
  ) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try #require(MenudeckBinary.path))
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: CLITest.repoRoot)
    process.environment = environment
    let err = open(stderrPath, O_RDWR | O_NOCTTY | O_CLOEXEC)
    try #require(err >= 0)
    defer { close(err) }
    process.standardError = FileHandle(fileDescriptor: err, closeOnDealloc: false)
    process.standardOutput = try #require(FileHandle(forWritingAtPath: "/dev/null"))
    if let stdin {
      process.standardInput = stdin
    } else {
      process.standardInput = try #require(FileHandle(forReadingAtPath: "/dev/null"))
    }
    try process.run()
    return process
  }

  /// Runs the binary with standard error on a new terminal; what the terminal received.
  static func onTerminal(
    _ arguments: [String], columns: UInt16 = 60, environment: [String: String] = environment()
  ) throws -> (status: Int32, text: String) {
    let terminal = try Terminal(columns: columns)
    let process = try start(arguments, stderrPath: terminal.slavePath, environment: environment)
    terminal.startReading()
    process.waitUntilExit()
    terminal.finish()
    return (process.terminationStatus, terminal.text)
  }

  /// A swipe log of `lines` lines in a directory of its own.
  static func makeLog(_ dir: TempDir, lines: Int) throws -> String {
    var text = ""
    for k in 0..<lines {
      text +=
        #"{"user":"u\#(k % 500)","item":"gyudon","swipe":"\#(k % 3 == 0 ? "left" : "right")","at":"2026-11-2\#(k % 9)T12:00:00Z"}"#
        + "\n"
    }
    return try dir.write("log.jsonl", text)
  }

  @Test func ingestDrawsItsLineOnTheTerminalFittedToItsWidth() throws {
    let dir = try TempDir("menudeck-pty")
    let log = try Self.makeLog(dir, lines: 20_000)
    let run = try Self.onTerminal(["ingest", log, "--out", dir.file("h.snap")], columns: 40)
    #expect(run.status == 0, "\(run.text)")
    let frames = run.text.components(separatedBy: "\r").filter { $0.hasPrefix("menudeck: ingest") }
    #expect(!frames.isEmpty, "\(run.text)")
    for frame in frames {
      #expect(frame.hasSuffix("\u{1B}[K"))
      #expect(frame.dropLast(3).count <= 39, "\(frame)")
    }
    #expect(frames[0].hasPrefix("menudeck: ingest  "))
    // The summary starts on an erased line.
    #expect(run.text.contains("\r\u{1B}[Kmenudeck: note: ingested 1 log (20000 swipes)"))
  }

  @Test func nothingIsDrawnWhenStandardErrorIsAFileOrTheTerminalIsPlain() throws {
    let dir = try TempDir("menudeck-pty")
    let log = try Self.makeLog(dir, lines: 2_000)
    let arguments = ["ingest", log, "--out", dir.file("h.snap")]
    // A file: what a pipe or cron gives.
    let file = dir.file("stderr")
    FileManager.default.createFile(atPath: file, contents: nil)
    let process = try Self.start(arguments, stderrPath: file)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let written = try dir.read("stderr")
    #expect(written.hasPrefix("menudeck: note: ingested 1 log"), "\(written)")
    #expect(!written.contains("\r") && !written.contains("\u{1B}"))
    // A terminal, but asked for none.
    for (extra, environment) in [
      (["--no-progress"], Self.environment()),
      ([], Self.environment(["NO_COLOR": "1"])),
      ([], Self.environment(["TERM": "dumb"])),
    ] {
      let run = try Self.onTerminal(arguments + extra, environment: environment)
      #expect(run.status == 0)
      #expect(run.text.contains("menudeck: note: ingested 1 log"))
      #expect(!run.text.contains("menudeck: ingest") && !run.text.contains("\u{1B}"), "\(extra)")
    }
  }

  @Test func aSignalErasesTheLineBeforeTheLastOne() throws {
    // `stats -` reads standard input, a pipe this test keeps open: the run waits with its line
    // drawn (total unknown) until the signal.
    let terminal = try Terminal(columns: 80)
    let input = Pipe()
    let process = try Self.start(
      ["stats", "-"], stderrPath: terminal.slavePath, stdin: input.fileHandleForReading)
    terminal.startReading()
    let deadline = Date().addingTimeInterval(60)
    while !terminal.text.contains("menudeck: read  0.0 MiB"), Date() < deadline {
      usleep(20_000)
    }
    #expect(terminal.text.contains("menudeck: read  0.0 MiB"), "\(terminal.text)")
    kill(process.processIdentifier, SIGINT)
    process.waitUntilExit()
    try input.fileHandleForWriting.close()
    terminal.finish()
    #expect(process.terminationReason == .uncaughtSignal)
    #expect(
      terminal.text.hasSuffix("\r\u{1B}[Kmenudeck: error: stopped by SIGINT\r\n"),
      "\(terminal.text.debugDescription)")
  }
}
