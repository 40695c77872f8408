import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One running plugin process and its three channels, driven from the calling thread.
///
/// Nothing here blocks without a deadline: every exchange runs one `poll()` loop that writes the
/// request, reads the reply and drains the plugin's stderr at the same time, so a plugin that
/// logs a lot while menudeck is still writing cannot deadlock the two, and one that stops
/// answering is noticed at the deadline. The plugin's stdin is a Unix socket written with
/// `MSG_NOSIGNAL`, so a plugin that dies mid-request gives an error instead of a SIGPIPE that
/// would kill menudeck. All descriptors are close-on-exec, so plugins started side by side do
/// not inherit each other's pipes.
final class PluginProcess {
  enum Outcome: Equatable {
    /// One reply line, without its newline.
    case line([UInt8])
    /// The plugin closed its stdout (usually: it exited).
    case ended
    case timedOut
  }

  /// How a reaped process ended.
  enum Termination: Equatable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)

    var description: String {
      switch self {
      case .exited(let code): return "exited with status \(code)"
      case .signaled(let signal): return "was killed by signal \(signal) (\(signalName(signal)))"
      }
    }
  }

  let pid: pid_t
  private var input: Int32
  private var output: Int32
  private var errors: Int32
  private var outBuffer: [UInt8] = []
  private var errBuffer: [UInt8] = []
  private var outputOpen = true
  private var errorsOpen = true
  private(set) var termination: Termination?
  /// Receives each complete stderr line of the plugin (without its newline).
  private let log: (String) -> Void

  /// Starts `executable` with `arguments`; `environment` entries are added to (or replace) the
  /// current environment. Returns the `errno` of a failed spawn.
  init(
    executable: String, arguments: [String], environment: [String: String],
    log: @escaping (String) -> Void
  ) throws(SpawnError) {
    self.log = log
    // Unix socket pairs rather than pipes: they are created close-on-exec atomically
    // (SOCK_CLOEXEC), and a write to a dead reader fails with EPIPE under MSG_NOSIGNAL.
    var socketPair: [Int32] = [-1, -1]
    var outPipe: [Int32] = [-1, -1]
    var errPipe: [Int32] = [-1, -1]
    #if canImport(Glibc)
      let streamType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    #else
      let streamType = SOCK_STREAM
    #endif
    guard socketpair(AF_UNIX, streamType, 0, &socketPair) == 0,
      socketpair(AF_UNIX, streamType, 0, &outPipe) == 0,
      socketpair(AF_UNIX, streamType, 0, &errPipe) == 0
    else {
      let e = errno
      for fd in socketPair + outPipe + errPipe where fd >= 0 { close(fd) }
      throw SpawnError(code: e)
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, socketPair[1], 0)
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // The plugin starts with default signal handlers and nothing blocked, whatever menudeck has.
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var all = sigset_t()
    sigfillset(&all)
    sigdelset(&all, SIGKILL)
    sigdelset(&all, SIGSTOP)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    var env = ProcessInfo.processInfo.environment
    for (k, v) in environment { env[k] = v }
    let argv = ([executable] + arguments).map { strdup($0) }
    let envp = env.keys.sorted().map { strdup("\($0)=\(env[$0]!)") }
    defer {
      for p in argv { free(p) }
      for p in envp { free(p) }
    }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, executable, &actions, &attributes, argv + [nil], envp + [nil])
    close(socketPair[1])
    close(outPipe[1])
    close(errPipe[1])
    guard rc == 0 else {
      close(socketPair[0])
      close(outPipe[0])
      close(errPipe[0])
      throw SpawnError(code: rc)
    }
    self.pid = pid
    input = socketPair[0]
    output = outPipe[0]
    errors = errPipe[0]
    for fd in [input, output, errors] {
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }
  }

  deinit {
    if termination == nil { _ = stop(grace: 0.5) }
    closeAll()
  }

  /// Writes `request` (whole lines) and waits for one reply line until `deadline` (monotonic
  /// seconds). With an empty request it only waits.
  func exchange(_ request: [UInt8], deadline: Double) -> Outcome {
    var sent = 0
    var scanned = 0  // bytes of `outBuffer` known to hold no newline
    while true {
      if let newline = outBuffer[scanned...].firstIndex(of: 0x0A) {
        let line = Array(outBuffer[..<newline])
        outBuffer.removeSubrange(...newline)
        return .line(line)
      }
      scanned = outBuffer.count
      if !outputOpen { return .ended }
      let left = deadline - monotonicNow()
      if left <= 0 { return .timedOut }
      var fds: [pollfd] = []
      let writing = sent < request.count && input >= 0
      if writing { fds.append(pollfd(fd: input, events: Int16(POLLOUT), revents: 0)) }
      fds.append(pollfd(fd: output, events: Int16(POLLIN), revents: 0))
      if errorsOpen { fds.append(pollfd(fd: errors, events: Int16(POLLIN), revents: 0)) }
      let rc = poll(&fds, nfds_t(fds.count), Int32(min(left * 1000 + 1, 60_000)))
      if rc < 0 {
        if errno == EINTR { continue }
        return .ended
      }
      for p in fds where p.revents != 0 {
        if p.fd == input {
          let n = request.withUnsafeBufferPointer { b in
            send(input, b.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL))
          }
          if n > 0 {
            sent += n
          } else if n < 0, errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR {
            // The plugin is gone or closed its stdin; what it says (or its EOF) comes next.
            sent = request.count
          }
        } else if p.fd == output {
          readAvailable(output, into: &outBuffer, open: &outputOpen)
        } else {
          drainErrors()
        }
      }
    }
  }

  /// Closes the plugin's stdin (it sees end of file).
  func closeInput() {
    if input >= 0 {
      close(input)
      input = -1
    }
  }

  /// Waits for the process to exit by itself until `deadline`, draining its output; nil if it
  /// is still running then.
  func waitForExit(deadline: Double) -> Termination? {
    while termination == nil {
      if reap() != nil { break }
      if monotonicNow() >= deadline { return nil }
      // Keep the pipes drained so that the plugin is not blocked writing.
      var fds: [pollfd] = []
      if outputOpen { fds.append(pollfd(fd: output, events: Int16(POLLIN), revents: 0)) }
      if errorsOpen { fds.append(pollfd(fd: errors, events: Int16(POLLIN), revents: 0)) }
      if fds.isEmpty {
        usleep(2_000)
      } else {
        _ = poll(&fds, nfds_t(fds.count), 5)
        for p in fds where p.revents != 0 {
          if p.fd == output {
            readAvailable(output, into: &outBuffer, open: &outputOpen)
          } else {
            drainErrors()
          }
        }
      }
    }
    drainErrors()
    flushErrors()
    return termination
  }

  /// Ends the process: SIGTERM, then SIGKILL after `grace` seconds; always reaps it.
  @discardableResult
  func stop(grace: Double) -> Termination {
    if let termination { return termination }
    closeInput()
    kill(pid, SIGTERM)
    if let t = waitForExit(deadline: monotonicNow() + grace) { return t }
    kill(pid, SIGKILL)
    while reap() == nil { usleep(1_000) }
    drainErrors()
    flushErrors()
    return termination!
  }

  /// The bytes of stdout received but not consumed (for messages about a broken reply).
  var pendingOutput: [UInt8] { outBuffer }

  private func reap() -> Termination? {
    if let termination { return termination }
    var status: Int32 = 0
    let r = waitpid(pid, &status, WNOHANG)
    guard r == pid else {
      if r < 0, errno == ECHILD { termination = .exited(-1) }
      return termination
    }
    // The W* macros are not imported: status is (code << 8) when exited, the signal otherwise.
    termination = status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signaled(status & 0x7F)
    return termination
  }

  private var chunk = [UInt8](repeating: 0, count: 1 << 16)

  private func readAvailable(_ fd: Int32, into buffer: inout [UInt8], open: inout Bool) {
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n > 0 {
        buffer.append(contentsOf: chunk[..<n])
        if n < chunk.count { return }
      } else if n == 0 {
        open = false
        return
      } else {
        if errno == EINTR { continue }
        if errno != EAGAIN, errno != EWOULDBLOCK { open = false }
        return
      }
    }
  }

  private func drainErrors() {
    guard errorsOpen else { return }
    readAvailable(errors, into: &errBuffer, open: &errorsOpen)
    while let newline = errBuffer.firstIndex(of: 0x0A) {
      var line = errBuffer[..<newline]
      if line.last == 0x0D { line = line.dropLast() }
      log(String(decoding: line, as: UTF8.self))
      errBuffer.removeSubrange(...newline)
    }
    // A log without newlines is passed on in pieces rather than kept without bound.
    if errBuffer.count > PluginProcess.maxLogLine { flushErrors() }
  }

  /// Bytes of stderr kept while waiting for a newline.
  static let maxLogLine = 1 << 16

  private func flushErrors() {
    if !errBuffer.isEmpty {
      log(String(decoding: errBuffer, as: UTF8.self))
      errBuffer.removeAll()
    }
  }

  private func closeAll() {
    for fd in [input, output, errors] where fd >= 0 { close(fd) }
    input = -1
    output = -1
    errors = -1
  }
}

/// A failed `posix_spawn` (or socket creation): the errno.
struct SpawnError: Error {
  let code: Int32

  var text: String { String(cString: strerror(code)).lowercased() }
}

/// Monotonic seconds.
func monotonicNow() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// "SIGSEGV" for 11, and so on for the common ones.
func signalName(_ signal: Int32) -> String {
  switch signal {
  case SIGHUP: return "SIGHUP"
  case SIGINT: return "SIGINT"
  case SIGQUIT: return "SIGQUIT"
  case SIGILL: return "SIGILL"
  case SIGABRT: return "SIGABRT"
  case SIGBUS: return "SIGBUS"
  case SIGFPE: return "SIGFPE"
  case SIGKILL: return "SIGKILL"
  case SIGSEGV: return "SIGSEGV"
  case SIGPIPE: return "SIGPIPE"
  case SIGTERM: return "SIGTERM"
  default: return "signal \(signal)"
  }
}
