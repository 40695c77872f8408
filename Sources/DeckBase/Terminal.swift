#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The terminal system calls of `menudeck play`, the one place that makes them: whether a
/// descriptor is a terminal, its size, raw mode with the alternate screen (restored on every way
/// out, signals included, through `RunCleanup`), resize notices (SIGWINCH) and reading keys.
package enum Terminal {
  /// Whether `fd` is a terminal (`isatty`).
  package static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

  /// The size of the terminal on `fd` in character cells (`ioctl(TIOCGWINSZ)`); nil when it is
  /// not a terminal or reports 0 columns or rows.
  package static func size(_ fd: Int32) -> (columns: Int, rows: Int)? {
    var size = winsize()
    guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
      return nil
    }
    return (Int(size.ws_col), Int(size.ws_row))
  }

  /// Enters the alternate screen and hides the cursor.
  package static let enterSequence = Array("\u{1B}[?1049h\u{1B}[?25l".utf8)
  /// Shows the cursor, resets colours and leaves the alternate screen (the last bytes a run
  /// writes to its terminal).
  package static let leaveSequence = Array("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l".utf8)

  /// A terminal in raw mode on the alternate screen, until `restore()`: the settings it found
  /// are put back, and the screen left, by `restore()` (idempotent), by `deinit`, and by a
  /// signal's cleanup (`RunCleanup`) before the process ends by the signal.
  package final class RawScreen {
    package let input: Int32
    package let output: Int32
    private var saved: termios
    private var token: RunCleanup.Token?

    /// Puts the terminal on `input` into raw mode (no echo, no line editing, no signals from
    /// keys: Ctrl-C arrives as byte 3; output post-processing kept, so "\n" still starts a
    /// line) and `output` on the alternate screen.
    package init(input: Int32, output: Int32) throws(SystemError) {
      self.input = input
      self.output = output
      var settings = termios()
      guard tcgetattr(input, &settings) == 0 else {
        throw SystemError(path: "", action: "cannot read the terminal's settings", code: errno)
      }
      saved = settings
      var raw = settings
      cfmakeraw(&raw)
      raw.c_oflag = settings.c_oflag
      token = RunCleanup.shared.addTerminal(
        input: input, output: output, settings: settings, leave: Terminal.leaveSequence)
      guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else {
        let code = errno
        restore()
        throw SystemError(path: "", action: "cannot put the terminal into raw mode", code: code)
      }
      Terminal.write(output, Terminal.enterSequence)
    }

    /// Writes `bytes` (a frame) to the screen unless it was restored. Under the cleanup
    /// registry's lock: once a signal has restored the terminal, no frame follows.
    package func draw(_ bytes: [UInt8]) {
      RunCleanup.shared.holding {
        if token != nil { Terminal.write(output, bytes) }
      }
    }

    /// Leaves the alternate screen, shows the cursor and puts the terminal's settings back.
    package func restore() {
      guard let token else { return }
      self.token = nil
      RunCleanup.shared.holding {
        Terminal.write(output, Terminal.leaveSequence)
        _ = tcsetattr(input, TCSAFLUSH, &saved)
        RunCleanup.shared.removeTerminal(token)
      }
    }

    deinit { restore() }
  }

  /// Writes all of `bytes` to `fd`; a failed write of the screen is not worth stopping for.
  package static func write(_ fd: Int32, _ bytes: [UInt8]) {
    _ = bytes.withUnsafeBytes { writeAll(fd, $0) }
  }

  nonisolated(unsafe) private static var resizePipe: (read: Int32, write: Int32) = (-1, -1)

  /// A descriptor that becomes readable after each SIGWINCH (the terminal was resized), made
  /// once per process; nil when the pipe cannot be made. Read it empty with `drain(_:)`.
  package static func resizeNotices() -> Int32? {
    if resizePipe.read >= 0 { return resizePipe.read }
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { return nil }
    for fd in fds {
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    resizePipe = (fds[0], fds[1])
    var action = sigaction()
    #if canImport(Darwin)
      action.__sigaction_u.__sa_handler = { _ in Terminal.noteResize() }
    #else
      action.__sigaction_handler.sa_handler = { _ in Terminal.noteResize() }
    #endif
    action.sa_flags = SA_RESTART
    sigemptyset(&action.sa_mask)
    sigaction(SIGWINCH, &action, nil)
    // A parent may have started this process with SIGWINCH blocked; the notices need it.
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGWINCH)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
    return fds[0]
  }

  /// The SIGWINCH handler: one byte into the pipe (async-signal-safe: `write` only).
  private static func noteResize() {
    let saved = errno
    var byte: UInt8 = 1
    _ = systemWrite(resizePipe.write, &byte, 1)
    errno = saved
  }

  /// Reads a non-blocking descriptor empty.
  package static func drain(_ fd: Int32) {
    var buffer = [UInt8](repeating: 0, count: 64)
    while buffer.withUnsafeMutableBytes({ systemRead(fd, $0.baseAddress!, 64) }) > 0 {}
  }

  /// What `wait(input:notices:)` found.
  package enum Ready: Equatable {
    /// Bytes read from the input (never empty).
    case input([UInt8])
    /// The terminal was resized.
    case resized
    /// The input reached its end (the terminal went away).
    case closed
  }

  /// Waits for input on `input` or a resize notice on `notices`; resizes are reported first.
  package static func wait(input: Int32, notices: Int32?) throws(SystemError) -> Ready {
    while true {
      var fds = [pollfd(fd: input, events: Int16(POLLIN), revents: 0)]
      if let notices { fds.append(pollfd(fd: notices, events: Int16(POLLIN), revents: 0)) }
      let n = poll(&fds, nfds_t(fds.count), -1)
      if n < 0 {
        if errno == EINTR { continue }
        throw SystemError(path: "", action: "cannot wait for the terminal", code: errno)
      }
      if fds.count > 1 && fds[1].revents != 0 {
        drain(fds[1].fd)
        return .resized
      }
      guard fds[0].revents != 0 else { continue }
      var buffer = [UInt8](repeating: 0, count: 256)
      let got = buffer.withUnsafeMutableBytes { systemRead(input, $0.baseAddress!, 256) }
      if got < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        throw SystemError(path: "", action: "cannot read the terminal", code: errno)
      }
      if got == 0 { return .closed }
      return .input(Array(buffer[0..<got]))
    }
  }
}
