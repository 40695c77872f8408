import DeckBase
import Foundation

/// Starting a plugin: its channels, the spawn's file actions and attributes, and the spawn
/// itself (`PluginProcess.init` runs these steps in order).
extension PluginProcess {
  /// The plugin's three channels, each a socket pair: element 0 is menudeck's end, element 1
  /// the plugin's (its stdin, stdout, stderr).
  ///
  /// Unix socket pairs rather than pipes: they are created close-on-exec atomically
  /// (SOCK_CLOEXEC), and a write to a dead reader fails with EPIPE under MSG_NOSIGNAL.
  struct Channels {
    var input: [Int32] = [-1, -1]
    var output: [Int32] = [-1, -1]
    var errors: [Int32] = [-1, -1]

    /// Opens the three pairs; on failure closes what was opened and throws the errno.
    init() throws(SpawnError) {
      #if canImport(Glibc)
        let streamType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
      #else
        let streamType = SOCK_STREAM
      #endif
      guard socketpair(AF_UNIX, streamType, 0, &input) == 0,
        socketpair(AF_UNIX, streamType, 0, &output) == 0,
        socketpair(AF_UNIX, streamType, 0, &errors) == 0
      else {
        let e = errno
        for fd in input + output + errors where fd >= 0 { close(fd) }
        throw SpawnError(code: e)
      }
    }

    var hostEnds: [Int32] { [input[0], output[0], errors[0]] }
    var pluginEnds: [Int32] { [input[1], output[1], errors[1]] }
  }

  /// What a spawn gave: 0 or an errno, the plugin's pid and its pidfd (or -1).
  struct Spawned {
    var rc: Int32 = 0
    var pid: pid_t = 0
    var exitWatch: Int32 = -1
  }

  /// Spawns the plugin on `channels` in a process group of its own and registers the group.
  static func spawn(
    _ executable: String, arguments: [String], environment: [String: String],
    channels: Channels
  ) -> Spawned {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    connect(channels, with: &actions)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    setSignalsAndGroup(&attributes)
    let argv = ([executable] + arguments).map { strdup($0) }
    let envp = environmentStrings(adding: environment).map { strdup($0) }
    defer {
      for p in argv { free(p) }
      for p in envp { free(p) }
    }
    var pid: pid_t = 0
    var watch: Int32 = -1
    // Spawning and registering the group are one step for a signal: the signal's cleanup either
    // runs before the plugin exists or finds its group registered. A script that another
    // process still has open for writing (one being installed) fails with ETXTBSY for a moment:
    // retried with a short backoff, a second at most.
    let rc = retryingBusy {
      RunCleanup.shared.holding {
        let rc = posix_spawn(&pid, executable, &actions, &attributes, argv + [nil], envp + [nil])
        if rc == 0 {
          RunCleanup.shared.addProcessGroup(pid)
          #if os(Linux)
            watch = pidfdOpen(pid)
          #endif
        }
        return rc
      }
    }
    return Spawned(rc: rc, pid: pid, exitWatch: watch)
  }

  /// The plugin's ends become its stdin, stdout and stderr; on Linux every other descriptor is
  /// closed in the child.
  private static func connect(
    _ channels: Channels, with actions: inout posix_spawn_file_actions_t
  ) {
    posix_spawn_file_actions_adddup2(&actions, channels.input[1], 0)
    posix_spawn_file_actions_adddup2(&actions, channels.output[1], 1)
    posix_spawn_file_actions_adddup2(&actions, channels.errors[1], 2)
    #if os(Linux)
      if let closeFrom = spawnCloseFrom { _ = closeFrom(&actions, 3) }
    #endif
  }

  private static func setSignalsAndGroup(_ attributes: inout posix_spawnattr_t) {
    // The plugin starts with default signal handlers and nothing blocked, whatever menudeck has.
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var all = sigset_t()
    sigfillset(&all)
    sigdelset(&all, SIGKILL)
    sigdelset(&all, SIGSTOP)
    posix_spawnattr_setsigdefault(&attributes, &all)
    // A process group of its own (id = the plugin's pid), so that the plugin and everything it
    // starts can be ended together.
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(
      &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
  }

  /// menudeck's environment with `environment` added (or replacing), as sorted "KEY=value".
  private static func environmentStrings(adding environment: [String: String]) -> [String] {
    var env = ProcessInfo.processInfo.environment
    for (k, v) in environment { env[k] = v }
    return env.keys.sorted().map { "\($0)=\(env[$0]!)" }
  }

  /// Total seconds of backoff before a spawn that keeps failing with ETXTBSY is given up.
  static let busyRetryLimit = 1.0

  /// Runs `attempt` (a spawn, giving 0 or an errno) until it gives something other than
  /// ETXTBSY, sleeping 10, 20, 40, ... ms in between, and gives up when the next sleep would take
  /// the total past `busyRetryLimit`. Returns the last result.
  static func retryingBusy(
    _ attempt: () -> Int32, sleep: (Double) -> Void = sleepSeconds
  ) -> Int32 {
    var slept = 0.0
    var delay = 0.01
    while true {
      let rc = attempt()
      guard rc == ETXTBSY, slept + delay <= busyRetryLimit else { return rc }
      sleep(delay)
      slept += delay
      delay *= 2
    }
  }

}

/// A failed `posix_spawn` (or socket creation): the errno.
struct SpawnError: Error {
  let code: Int32

  var text: String { errnoText(code) }
}

#if os(Linux)
  /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34 and later; not in Swift's Glibc
  /// module), looked up once; nil on an older C library.
  private let spawnCloseFrom:
    (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
      guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
      return unsafeBitCast(
        symbol,
        to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)
          .self)
    }()

  /// `syscall(2)`, looked up once: Swift cannot call the variadic C function, and on Linux its
  /// integer arguments travel in the same registers as a plain call's.
  private let linuxSyscall: (@convention(c) (Int, Int, Int) -> Int)? = {
    guard let symbol = dlsym(nil, "syscall") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (Int, Int, Int) -> Int).self)
  }()

  /// `pidfd_open(pid, 0)` (Linux 5.3; the same system call number, 434, on every architecture):
  /// a close-on-exec descriptor that polls readable once the process exits, or -1 (an older
  /// kernel, or a sandbox that refuses it: the waits then check every few milliseconds).
  private func pidfdOpen(_ pid: pid_t) -> Int32 {
    guard let call = linuxSyscall else { return -1 }
    let fd = call(434, Int(pid), 0)
    return fd >= 0 ? Int32(truncatingIfNeeded: fd) : -1
  }
#endif
