import DeckBase
import Foundation

/// One running plugin process and its three channels, driven from the calling thread.
///
/// Nothing here blocks without a deadline: every exchange runs one `poll()` loop that writes the
/// request, reads the reply and drains the plugin's stderr at the same time, so a plugin that
/// logs a lot while menudeck is still writing cannot deadlock the two, and one that stops
/// answering is noticed at the deadline. The plugin's stdin is a Unix socket written with
/// `MSG_NOSIGNAL`, so a plugin that dies mid-request gives an error instead of a SIGPIPE that
/// would kill menudeck. The plugin gets its three channels and nothing else: menudeck's own
/// descriptors are close-on-exec, and on Linux every other descriptor is closed in the child
/// (`posix_spawn_file_actions_addclosefrom_np`), so a plugin (and whatever it starts) never
/// holds a file of this run open, not even one opened without `O_CLOEXEC`.
///
/// The plugin leads a process group of its own, registered with `RunCleanup` (a signal ends the
/// whole group). `stop` ends the group too, so no child of a plugin outlives its use. The
/// plugin's exit is watched while waiting (a pidfd in the poll set on Linux, otherwise a check
/// every few milliseconds): a plugin that exits, even one whose child still holds its stdout
/// open, is reported as exited at once. The exited leader is left unreaped until its group has
/// been signalled, so the group id cannot be taken by another process meanwhile.
final class PluginProcess {
  enum Outcome: Equatable {
    /// One reply line, without its newline.
    case line([UInt8])
    /// The plugin closed its stdout or exited (a child of it may still hold stdout open).
    case ended
    case timedOut
  }

  /// How a process ended.
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
  /// The plugin's process group: its own, with the plugin as leader.
  var group: pid_t { pid }
  private var input: Int32
  private var output: Int32
  private var errors: Int32
  /// A pidfd of the plugin (readable once it exits), or -1: then the waits check every
  /// `exitCheckInterval` seconds.
  private var exitWatch: Int32 = -1
  /// Stdout received; the bytes before `outStart` are consumed, those before `outScanned` hold
  /// no newline. Compacted once per read.
  private var outBuffer: [UInt8] = []
  private var outStart = 0
  private var outScanned = 0
  /// Stderr received since the last complete line.
  private var errBuffer: [UInt8] = []
  private var outputOpen = true
  private var errorsOpen = true
  /// How the plugin ended, known as soon as it exits (before it is reaped).
  private(set) var termination: Termination?
  private var reaped = false
  /// Whether `stop` has run to the end: the group has been ended and unregistered.
  private var stopped = false
  /// Receives each complete stderr line of the plugin (without its newline).
  private let log: (String) -> Void

  /// Seconds between checks for the plugin's exit when there is no pidfd.
  static let exitCheckInterval = 0.01
  /// Bytes of stderr kept while waiting for a newline.
  static let maxLogLine = 1 << 16
  /// Reads of one channel per wake-up, so that a plugin writing without pause cannot keep the
  /// loop from its deadline.
  static let readsPerWakeUp = 16
  /// Reads of one channel once the plugin has exited: what it wrote before it went is in the
  /// socket's buffer; a child that keeps writing is not followed further.
  static let readsAfterExit = 256

  /// Starts `executable` with `arguments`; `environment` entries are added to (or replace) the
  /// current environment. Returns the `errno` of a failed spawn.
  init(
    executable: String, arguments: [String], environment: [String: String],
    log: @escaping (String) -> Void
  ) throws(SpawnError) {
    self.log = log
    let channels = try Channels()
    let spawned = Self.spawn(
      executable, arguments: arguments, environment: environment, channels: channels)
    // The plugin's ends are the plugin's now; menudeck keeps only its own.
    for fd in channels.pluginEnds { close(fd) }
    guard spawned.rc == 0 else {
      for fd in channels.hostEnds { close(fd) }
      throw SpawnError(code: spawned.rc)
    }
    self.pid = spawned.pid
    exitWatch = spawned.exitWatch
    input = channels.input[0]
    output = channels.output[0]
    errors = channels.errors[0]
    for fd in [input, output, errors] {
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }
  }

  deinit {
    if !stopped { stop(grace: 0.5) }
    closeAll()
  }

  /// Writes `request` (whole lines) and waits for one reply line until `deadline` (monotonic
  /// seconds). With an empty request it only waits. Returns `.ended` as soon as the plugin has
  /// exited and no complete line is left, even if a child of it still holds stdout open.
  func exchange(_ request: [UInt8], deadline: Double) -> Outcome {
    var sent = 0
    while true {
      if let line = takeLine() { return .line(line) }
      if !outputOpen { return .ended }
      if checkExit() != nil {
        // What it wrote before it went is readable now; nothing more is waited for.
        readOutput(maxReads: Self.readsAfterExit)
        relayErrors(maxReads: Self.readsAfterExit)
        return takeLine().map { .line($0) } ?? .ended
      }
      let left = deadline - monotonicSeconds()
      if left <= 0 { return .timedOut }
      guard pump(timeout: left, request: request, sent: &sent) else { return .ended }
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
  /// is still running then. Its group is not ended: `stop` does that.
  func waitForExit(deadline: Double) -> Termination? {
    var none = 0
    while checkExit() == nil {
      let left = deadline - monotonicSeconds()
      if left <= 0 { return nil }
      _ = pump(timeout: left, request: [], sent: &none)
    }
    relayErrors(maxReads: Self.readsAfterExit)
    flushErrors()
    return termination
  }

  /// Ends the plugin and everything it started: its process group gets SIGTERM, then SIGKILL
  /// after `grace` seconds for whatever is left (the plugin first, then the rest of the group);
  /// the plugin is reaped and the group unregistered. Also after the plugin exited by itself,
  /// for the children it left behind. Runs once; later calls return the same termination.
  @discardableResult
  func stop(grace: Double) -> Termination {
    if stopped, let termination { return termination }
    closeInput()
    let deadline = monotonicSeconds() + grace
    // The leader is not reaped yet, so the group id is still this plugin's.
    killpg(group, SIGTERM)
    var none = 0
    if waitForExit(deadline: deadline) == nil {
      killpg(group, SIGKILL)
      while checkExit() == nil { _ = pump(timeout: 0.05, request: [], sent: &none) }
    }
    reap()
    // The rest of the group (children of the plugin) get what is left of the grace. Once the
    // group is empty its id is free; reuse needs a wrap-around of the pid space and a new group
    // leader within these milliseconds.
    while killpg(group, 0) == 0 && monotonicSeconds() < deadline {
      _ = pump(timeout: min(0.01, max(0, deadline - monotonicSeconds())), request: [], sent: &none)
    }
    if killpg(group, 0) == 0 { killpg(group, SIGKILL) }
    RunCleanup.shared.removeProcessGroup(group)
    stopped = true
    relayErrors(maxReads: Self.readsAfterExit)
    flushErrors()
    return termination!
  }

  /// The bytes of stdout received but not consumed (for messages about a broken reply).
  var pendingOutput: [UInt8] { Array(outBuffer[outStart...]) }

  // MARK: - Waiting

  /// Waits up to `timeout` seconds for one of the channels (or the plugin's exit), then writes
  /// more of `request`, reads stdout and relays stderr as they allow. False if `poll` failed.
  private func pump(timeout: Double, request: [UInt8], sent: inout Int) -> Bool {
    var fds: [pollfd] = []
    let writing = sent < request.count && input >= 0
    if writing { fds.append(pollfd(fd: input, events: Int16(POLLOUT), revents: 0)) }
    if outputOpen { fds.append(pollfd(fd: output, events: Int16(POLLIN), revents: 0)) }
    if errorsOpen { fds.append(pollfd(fd: errors, events: Int16(POLLIN), revents: 0)) }
    var limit = min(timeout, 60)
    if termination == nil {
      if exitWatch >= 0 {
        fds.append(pollfd(fd: exitWatch, events: Int16(POLLIN), revents: 0))
      } else {
        limit = min(limit, Self.exitCheckInterval)
      }
    }
    if fds.isEmpty {
      sleepSeconds(limit)
      return true
    }
    let rc = poll(&fds, nfds_t(fds.count), Int32((limit * 1000).rounded(.up)))
    if rc < 0 { return errno == EINTR }
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
        readOutput()
      } else if p.fd == errors {
        relayErrors()
      }
      // The pidfd only wakes the loop; `checkExit` reads the status.
    }
    return true
  }

  /// The plugin's termination once it has exited, without reaping it (`WNOWAIT`): the zombie
  /// keeps its pid, and so its group id, from being reused until the group has been signalled.
  private func checkExit() -> Termination? {
    if let termination { return termination }
    var info = siginfo_t()
    while waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 {
      if errno == EINTR { continue }
      // ECHILD: reaped by someone else (a SIGCHLD handler of an embedding program).
      reaped = true
      termination = .exited(-1)
      return termination
    }
    #if canImport(Glibc)
      let child = info._sifields._sigchld.si_pid
      let status = info._sifields._sigchld.si_status
    #else
      let child = info.si_pid
      let status = info.si_status
    #endif
    guard child == pid else { return nil }
    termination = info.si_code == Int32(CLD_EXITED) ? .exited(status) : .signaled(status)
    return termination
  }

  /// Reaps the exited plugin (`checkExit` has seen it exit).
  private func reap() {
    guard !reaped else { return }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    reaped = true
    if exitWatch >= 0 {
      close(exitWatch)
      exitWatch = -1
    }
  }

  // MARK: - Channels

  private var chunk = [UInt8](repeating: 0, count: 1 << 16)

  /// Reads once from `fd` into `buffer`; the number of bytes, 0 at end of file (then `open` is
  /// false), -1 when nothing is available now.
  private func readOnce(_ fd: Int32, into buffer: inout [UInt8], open: inout Bool) -> Int {
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n > 0 {
        buffer.append(contentsOf: chunk[..<n])
        return n
      }
      if n == 0 {
        open = false
        return 0
      }
      if errno == EINTR { continue }
      if errno != EAGAIN, errno != EWOULDBLOCK { open = false }
      return -1
    }
  }

  /// Reads what stdout has now (at most `maxReads` reads), compacting the buffer first.
  private func readOutput(maxReads: Int = readsPerWakeUp) {
    if outStart > 0 {
      outBuffer.removeSubrange(0..<outStart)
      outScanned -= outStart
      outStart = 0
    }
    for _ in 0..<maxReads where outputOpen {
      if readOnce(output, into: &outBuffer, open: &outputOpen) <= 0 { break }
    }
  }

  /// The next complete reply line, consumed, or nil.
  private func takeLine() -> [UInt8]? {
    let found = outBuffer.withUnsafeBufferPointer { b -> Int? in
      guard outScanned < b.count,
        let p = memchr(b.baseAddress! + outScanned, 0x0A, b.count - outScanned)
      else { return nil }
      return b.baseAddress!.distance(to: p.assumingMemoryBound(to: UInt8.self))
    }
    guard let newline = found else {
      outScanned = outBuffer.count
      return nil
    }
    let line = Array(outBuffer[outStart..<newline])
    outStart = newline + 1
    outScanned = outStart
    return line
  }

  /// Reads what stderr has now (at most `maxReads` reads) and passes on every complete line:
  /// each byte is scanned once and the buffer is compacted once per read, so a plugin that logs
  /// many megabytes costs time in proportion.
  private func relayErrors(maxReads: Int = readsPerWakeUp) {
    for _ in 0..<maxReads where errorsOpen {
      let scanned = errBuffer.count
      if readOnce(errors, into: &errBuffer, open: &errorsOpen) <= 0 { break }
      let consumed = errBuffer.withUnsafeBufferPointer { b -> Int in
        let base = b.baseAddress!
        var start = 0
        var from = scanned
        while from < b.count, let p = memchr(base + from, 0x0A, b.count - from) {
          let newline = base.distance(to: p.assumingMemoryBound(to: UInt8.self))
          var end = newline
          if end > start, base[end - 1] == 0x0D { end -= 1 }
          log(
            String(
              decoding: UnsafeBufferPointer(start: base + start, count: end - start), as: UTF8.self)
          )
          start = newline + 1
          from = start
        }
        return start
      }
      if consumed > 0 { errBuffer.removeSubrange(0..<consumed) }
      // A log without newlines is passed on in pieces rather than kept without bound.
      if errBuffer.count > Self.maxLogLine { flushErrors() }
    }
  }

  private func flushErrors() {
    if !errBuffer.isEmpty {
      log(String(decoding: errBuffer, as: UTF8.self))
      errBuffer.removeAll()
    }
  }

  private func closeAll() {
    for fd in [input, output, errors, exitWatch] where fd >= 0 { close(fd) }
    input = -1
    output = -1
    errors = -1
    exitWatch = -1
  }
}
