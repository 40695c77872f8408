#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a run must undo when a signal ends it: the temporary files it has not yet renamed over
/// their targets, and the process groups of the plugins it started. There is one per process,
/// since signals are per process; commands run in process by tests share it harmlessly (each
/// registers and removes only its own entries).
///
/// The registry's lock is recursive and is also the signal's: `SignalHandling` takes it before it
/// removes anything, so work done inside `holding(_:)` (creating and registering a temporary,
/// renaming a run's outputs one after the other, starting a plugin and registering its group)
/// is never cut in half by a signal.
package final class RunCleanup: @unchecked Sendable {
  package static let shared = RunCleanup()

  /// A registered temporary file, to unregister once it is renamed or removed.
  package struct Token: Hashable, Sendable {
    let value: UInt64
  }

  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private var temporaries: [UInt64: String] = [:]
  private var lockFiles: [UInt64: (path: String, identity: FileIdentity?)] = [:]
  private var replaced = 0
  private var nextToken: UInt64 = 0
  private var groups: [pid_t: Int] = [:]
  private var terminals:
    [UInt64: (input: Int32, output: Int32, settings: termios, leave: [UInt8])] =
      [:]
  private var erasableLines: [UInt64: Int32] = [:]

  init() {
    mutex = .allocate(capacity: 1)
    var attributes = pthread_mutexattr_t()
    pthread_mutexattr_init(&attributes)
    pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
    pthread_mutex_init(mutex, &attributes)
    pthread_mutexattr_destroy(&attributes)
  }

  // (`shared` lives as long as the process; the registries that tests make go away, and their
  // mutex with them: LeakSanitizer found it left behind.)
  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Runs `body` with the registry held: a signal that arrives meanwhile is handled after it.
  package func holding<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body()
  }

  /// Enters `entry` in one of the registries under a new token.
  private func register<Entry>(
    _ entry: Entry, in registry: ReferenceWritableKeyPath<RunCleanup, [UInt64: Entry]>
  ) -> Token {
    holding {
      nextToken += 1
      self[keyPath: registry][nextToken] = entry
      return Token(value: nextToken)
    }
  }

  /// Takes the entry of `token` out of one of the registries.
  private func unregister<Entry>(
    _ token: Token, from registry: ReferenceWritableKeyPath<RunCleanup, [UInt64: Entry]>
  ) {
    holding { _ = self[keyPath: registry].removeValue(forKey: token.value) }
  }

  /// Registers `path`, a temporary file of this run: a signal removes it.
  package func addTemporary(_ path: String) -> Token {
    register(path, in: \.temporaries)
  }

  /// Forgets a temporary file (renamed over its target, or removed).
  package func removeTemporary(_ token: Token) {
    unregister(token, from: \.temporaries)
  }

  /// Registers a lock file this run holds: a signal removes it (the lock itself ends with the
  /// process).
  func addLockFile(_ path: String, identity: FileIdentity?) -> Token {
    register((path: path, identity: identity), in: \.lockFiles)
  }

  /// Counts an output renamed over its target (so that a signal's message can say that the
  /// run's outputs were already in place).
  func noteReplaced() {
    holding { replaced += 1 }
  }

  /// Forgets a lock file (released).
  func removeLockFile(_ token: Token) {
    unregister(token, from: \.lockFiles)
  }

  /// Registers a terminal this run changed (`Terminal.RawScreen`): a signal writes `leave` to
  /// `output` and puts `settings` back on `input` before anything else, so the shell gets its
  /// terminal back even when the process ends by the signal.
  package func addTerminal(input: Int32, output: Int32, settings: termios, leave: [UInt8]) -> Token
  {
    register((input: input, output: output, settings: settings, leave: leave), in: \.terminals)
  }

  /// Forgets a terminal (restored).
  package func removeTerminal(_ token: Token) {
    unregister(token, from: \.terminals)
  }

  /// Registers a terminal descriptor a progress line may be drawn on (`ProgressReporter`): a
  /// signal erases the line there first, so that the run's last line does not start in the
  /// middle of it.
  package func addErasableLine(_ fd: Int32) -> Token {
    register(fd, in: \.erasableLines)
  }

  /// Forgets a progress line's descriptor (the reporter closed).
  package func removeErasableLine(_ token: Token) {
    unregister(token, from: \.erasableLines)
  }

  /// Whether a terminal is registered now (for tests).
  package var hasTerminals: Bool { holding { !terminals.isEmpty } }

  /// Registers the process group of a started plugin: a signal ends the whole group.
  package func addProcessGroup(_ group: pid_t) {
    holding { groups[group, default: 0] += 1 }
  }

  /// Forgets a process group (its processes have been ended and reaped).
  package func removeProcessGroup(_ group: pid_t) {
    holding {
      if let n = groups[group], n > 1 { groups[group] = n - 1 } else { groups[group] = nil }
    }
  }

  /// The temporary files registered now (for tests and messages).
  package var registeredTemporaries: [String] { holding { temporaries.values.sorted() } }

  /// The process groups registered now.
  package var registeredProcessGroups: [pid_t] { holding { groups.keys.sorted() } }

  /// What `cleanUpForSignal()` did.
  package struct Cleaned: Equatable, Sendable {
    package var removedFiles: Int
    package var endedGroups: Int
    /// Outputs this process had already renamed over their targets.
    package var replacedOutputs: Int = 0
  }

  /// Erases every registered progress line, restores every registered terminal, removes every registered temporary file and ends every
  /// registered process group (SIGTERM, then SIGKILL after `grace` seconds). Leaves the registry held: the process is about to end,
  /// and nothing may start a rename or a plugin after this.
  func cleanUpForSignal(grace: Double = 0.2) -> Cleaned {
    pthread_mutex_lock(mutex)
    for fd in Set(erasableLines.values) {
      _ = ProgressReporter.eraseSequence.withUnsafeBytes { writeAll(fd, $0) }
    }
    erasableLines.removeAll()
    for var terminal in terminals.values {
      _ = terminal.leave.withUnsafeBytes { writeAll(terminal.output, $0) }
      _ = tcsetattr(terminal.input, TCSAFLUSH, &terminal.settings)
    }
    terminals.removeAll()
    var removed = 0
    for path in temporaries.values where unlink(path) == 0 { removed += 1 }
    temporaries.removeAll()
    // Still held: removing them now is what releasing them does (only the files locked).
    for lock in lockFiles.values where lock.identity != nil {
      if FileIdentity(path: lock.path) == lock.identity { unlink(lock.path) }
    }
    lockFiles.removeAll()
    let live = groups.keys.filter { killpg($0, SIGTERM) == 0 }
    if !live.isEmpty {
      let deadline = monotonicSeconds() + grace
      while monotonicSeconds() < deadline && live.contains(where: { killpg($0, 0) == 0 }) {
        sleepSeconds(0.01)
      }
      for group in live { killpg(group, SIGKILL) }
    }
    return Cleaned(removedFiles: removed, endedGroups: live.count, replacedOutputs: replaced)
  }
}
