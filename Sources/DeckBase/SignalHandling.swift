import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// How the real binary ends when it is interrupted: SIGINT, SIGTERM and SIGHUP are taken by one
/// thread of its own (`sigwait`), which removes this run's temporary files and ends its plugins'
/// process groups (`RunCleanup`), prints one line on standard error
/// (`menudeck: error: stopped by SIGTERM; ...`, or the form `setLineFormat` gives), and ends the process by the
/// same signal with its default action, so the shell sees 130, 143 or 129 and a calling script
/// stops as it should. SIGPIPE is ignored: a write to a closed pipe fails with EPIPE, which the
/// output code turns into a quiet stop (see docs/exit-codes.md).
///
/// Installed once by `main` before any other thread starts (threads inherit the blocked mask);
/// commands run in process by tests never install it.
package enum SignalHandling {
  /// The signals that end a run after cleaning up.
  package static let endingSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

  nonisolated(unsafe) private static var installed = false

  /// The line printed when a signal ends the run, from its message ("stopped by SIGTERM; removed
  /// 1 temporary file"), without the newline; nil: "<program>: error: <message>".
  private static let lineFormat = Mutex<(@Sendable (String) -> String)?>(nil)

  /// Whether `install` has run (only the real binary installs the handling).
  package static var isInstalled: Bool { installed }

  /// Gives the stop line the form of the run's other diagnostics (a JSON object with
  /// `--log-format json`).
  package static func setLineFormat(_ format: @escaping @Sendable (_ message: String) -> String) {
    lineFormat.withLock { $0 = format }
  }

  /// Blocks the ending signals in the calling thread (and so in every thread it starts later),
  /// ignores SIGPIPE, and starts the thread that waits for the signals. `program` starts the
  /// line printed on standard error.
  package static func install(program: String) {
    guard !installed else { return }
    installed = true
    signal(SIGPIPE, SIG_IGN)
    var set = sigset_t()
    sigemptyset(&set)
    for s in endingSignals { sigaddset(&set, s) }
    pthread_sigmask(SIG_BLOCK, &set, nil)
    let context = UnsafeMutablePointer<Context>.allocate(capacity: 1)
    context.initialize(to: Context(set: set, program: program))
    var thread = pthread_t()
    let rc = pthread_create(
      &thread, nil,
      { raw in
        #if canImport(Darwin)
          let context = raw.assumingMemoryBound(to: Context.self)
        #else
          let context = raw!.assumingMemoryBound(to: Context.self)
        #endif
        SignalHandling.waitAndEnd(context.pointee)
      }, context)
    if rc != 0 {
      // No thread: the signals keep their default action (the process ends at once).
      pthread_sigmask(SIG_UNBLOCK, &set, nil)
      return
    }
    pthread_detach(thread)
  }

  struct Context {
    var set: sigset_t
    var program: String
  }

  private static func waitAndEnd(_ context: Context) -> Never {
    var set = context.set
    var received: Int32 = 0
    while sigwait(&set, &received) != 0 {}
    let cleaned = RunCleanup.shared.cleanUpForSignal()
    var message = "stopped by \(signalName(received))"
    var parts: [String] = []
    if cleaned.removedFiles > 0 {
      parts.append(
        "removed \(cleaned.removedFiles) temporary file\(cleaned.removedFiles == 1 ? "" : "s")")
    }
    if cleaned.endedGroups > 0 {
      parts.append("ended \(cleaned.endedGroups) plugin\(cleaned.endedGroups == 1 ? "" : "s")")
    }
    if cleaned.replacedOutputs > 0 {
      parts.append(
        "\(cleaned.replacedOutputs) output\(cleaned.replacedOutputs == 1 ? " was" : "s were") "
          + "already in place")
    }
    if !parts.isEmpty { message += "; " + parts.joined(separator: ", ") }
    let format = lineFormat.withLock { $0 }
    let line = (format?(message) ?? "\(context.program): error: \(message)") + "\n"
    var bytes = Array(line.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
    // End by the signal itself, with its default action.
    signal(received, SIG_DFL)
    var one = sigset_t()
    sigemptyset(&one)
    sigaddset(&one, received)
    pthread_sigmask(SIG_UNBLOCK, &one, nil)
    pthread_kill(pthread_self(), received)
    _exit(128 + received)
  }
}
