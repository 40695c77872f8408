import DeckBase
import DeckCore
import DeckStrategies
import Foundation
import Testing

@testable import DeckPlugins

#if canImport(Glibc)
  import Glibc
#endif

/// A file for a plugin to write its child's pid to, and the pid once it is there.
struct ChildPidFile {
  let dir: URL
  var path: String { dir.appendingPathComponent("child.pid").path }

  init() throws { dir = try temporaryFolder() }

  func remove() { try? FileManager.default.removeItem(at: dir) }

  func pid() throws -> pid_t {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    return try #require(pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)))
  }
}

/// Whether `pid` is a running `sleep` (not a zombie, not gone, not another program that got
/// the pid since).
func sleepIsRunning(_ pid: pid_t) -> Bool {
  #if os(Linux)
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return false }
    let state = stat[stat.index(close, offsetBy: 2)]
    guard state != "Z", state != "X", state != "x" else { return false }
    let command = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
    return command.hasPrefix("sleep")
  #else
    return kill(pid, 0) == 0
  #endif
}

/// Whether the `sleep` child `pid` has stopped running. A signalled process takes a moment to
/// die, so this waits for it, up to `bound` seconds: a bound on a condition, not a measurement.
func sleepEnds(_ pid: pid_t, bound: Double = 10) -> Bool {
  let end = monotonicSeconds() + bound
  while sleepIsRunning(pid) {
    if monotonicSeconds() > end { return false }
    sleepSeconds(0.01)
  }
  return true
}

/// Counts forwarded stderr lines and checks them against the numbered lines `flood` writes.
final class FloodLines: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  private var floods = 0
  private var firstWrong: String?
  let prefix: String
  let width: Int

  init(prefix: String, width: Int) {
    self.prefix = prefix
    self.width = width
  }

  func append(_ line: String) {
    lock.withLock {
      count += 1
      guard line.hasPrefix(prefix + "flood ") else { return }
      let text = String(line.dropFirst(prefix.count))
      let expected = "flood \(floods) ".padding(toLength: width, withPad: "x", startingAt: 0)
      if text != expected, firstWrong == nil { firstWrong = "line \(count): \(line)" }
      floods += 1
    }
  }

  var result: (lines: Int, floods: Int, firstWrong: String?) {
    lock.withLock { (count, floods, firstWrong) }
  }
}

@Suite(.enabled(if: python3Available, "python3 is not on PATH: the plugin tests need it"))
struct PluginProcessGroupTests {
  @Test func thePluginLeadsARegisteredProcessGroupUntilItEnds() throws {
    let s = try plugin("veg_first.py", name: "veg-first")
    #expect(getpgid(s.processID) == s.processID)
    #expect(getpgid(s.processID) != getpgrp())
    #expect(RunCleanup.shared.registeredProcessGroups.contains(s.processID))
    try s.finish()
    #expect(isGone(s.processID))
    #expect(!RunCleanup.shared.registeredProcessGroups.contains(s.processID))
  }

  /// A plugin that exits normally after `end` but leaves a child running: the child goes too.
  @Test func aChildLeftRunningIsEndedByFinish() throws {
    let file = try ChildPidFile()
    defer { file.remove() }
    let (catalog, history) = try pluginFixture()
    let s = try plugin(
      "misbehave.py", name: "mis",
      environment: ["MISBEHAVE": "leave-child", "MISBEHAVE_CHILD_PID_FILE": file.path])
    let child = try file.pid()
    #expect(sleepIsRunning(child))
    try s.learn(catalog: catalog, history: history)
    var batch = contexts(history)
    _ = try s.score(&batch)
    try s.finish()
    #expect(s.fault == nil)
    #expect(isGone(s.processID))
    #expect(sleepEnds(child))
    #expect(!RunCleanup.shared.registeredProcessGroups.contains(s.processID))
  }

  @Test func aChildIsEndedWhenThePluginFaults() throws {
    let file = try ChildPidFile()
    defer { file.remove() }
    let (catalog, history) = try pluginFixture()
    // The child starts at the handshake; the option turns the first rank reply into a NaN.
    let s = try plugin(
      "misbehave.py", name: "mis", options: ["mode": "nan"],
      environment: ["MISBEHAVE": "leave-child", "MISBEHAVE_CHILD_PID_FILE": file.path])
    let child = try file.pid()
    #expect(sleepIsRunning(child))
    try s.learn(catalog: catalog, history: history)
    var batch = contexts(history)
    _ = message { _ = try s.score(&batch) }
    #expect(s.fault?.kind == .nonFinite)
    #expect(isGone(s.processID))
    #expect(sleepEnds(child))
  }

  @Test func aChildIsEndedWhenTheStrategyIsDroppedUnfinished() throws {
    let file = try ChildPidFile()
    defer { file.remove() }
    var pid: Int32 = 0
    do {
      let s = try plugin(
        "misbehave.py", name: "mis",
        environment: ["MISBEHAVE": "leave-child", "MISBEHAVE_CHILD_PID_FILE": file.path])
      pid = s.processID
      #expect(sleepIsRunning(try file.pid()))
    }
    #expect(isGone(pid))
    #expect(sleepEnds(try file.pid()))
    #expect(!RunCleanup.shared.registeredProcessGroups.contains(pid))
  }

  @Test func describeEndsTheChildren() throws {
    let file = try ChildPidFile()
    defer { file.remove() }
    let d = try PluginStrategy.describe(
      .init(
        name: "mis", executable: pluginPath("misbehave.py"),
        environment: ["MISBEHAVE": "leave-child", "MISBEHAVE_CHILD_PID_FILE": file.path]),
      log: { _ in })
    #expect(d.identifier == "mis")
    #expect(sleepEnds(try file.pid()))
  }
}

@Suite(.enabled(if: python3Available, "python3 is not on PATH: the plugin tests need it"))
struct PluginEarlyExitTests {
  /// The plugin starts a child that keeps its stdout open, then exits: reported as exited with
  /// its status, not as "no reply" at the end of the (here long) timeout.
  @Test func aPluginThatForksAndExitsIsReportedAsExited() throws {
    let file = try ChildPidFile()
    defer { file.remove() }
    let (catalog, history) = try pluginFixture()
    let s = try plugin(
      "misbehave.py", name: "mis",
      environment: ["MISBEHAVE": "fork-exit", "MISBEHAVE_CHILD_PID_FILE": file.path],
      timeout: 60)
    try s.learn(catalog: catalog, history: history)
    var batch = contexts(history)
    let m = message { _ = try s.score(&batch) }
    let text = "exited with status 3 before replying; see its log above"
    #expect(m == "strategy 'mis': \(PluginFaultTests.request1): \(text)")
    #expect(
      s.fault
        == PluginFault(
          .exitedEarly, plugin: "mis", request: PluginFaultTests.request1, message: text))
    #expect(isGone(s.processID))
    #expect(sleepEnds(try file.pid()))
  }

  /// The same at the handshake, in a shell script: `sleep` in the background holds stdout.
  @Test func anExitAtTheHandshakeWithAChildHoldingStdout() throws {
    let dir = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("fork-exit.sh").path
    let pidFile = dir.appendingPathComponent("child.pid").path
    try writeScript(
      """
      #!/bin/sh
      sleep 300 &
      echo $! > '\(pidFile)'
      echo 'leaving with a child' >&2
      exit 4

      """, to: path)
    let log = LogLines()
    let m = message {
      _ = try PluginStrategy(
        .init(name: "sh", executable: path, timeout: 60), log: { log.append($0) })
    }
    #expect(
      m == "strategy 'sh': handshake: exited with status 4 before replying; see its log above")
    #expect(log.lines == ["leaving with a child"])
    let child = try #require(
      pid_t(
        try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(
          in: .whitespacesAndNewlines)))
    #expect(sleepEnds(child))
  }
}

@Suite(.enabled(if: python3Available, "python3 is not on PATH: the plugin tests need it"))
struct PluginStderrTests {
  /// 16 MB of log lines during one rank request: every line arrives, in order, and the request
  /// is answered (the relay scans each byte once; it used to be quadratic per read).
  @Test func megabytesOfStderrLinesAreRelayedInOrder() throws {
    let (catalog, history) = try pluginFixture()
    let count = 160_000
    let width = 100
    let lines = FloodLines(prefix: "", width: width)
    let s = try PluginStrategy(
      .init(
        name: "loud", executable: pluginPath("misbehave.py"), timeout: 30,
        environment: [
          "MISBEHAVE": "flood", "MISBEHAVE_FLOOD_LINES": String(count),
          "MISBEHAVE_FLOOD_WIDTH": String(width),
        ]),
      log: { lines.append($0) })
    try s.learn(catalog: catalog, history: history)
    var batch = contexts(history)
    #expect(try s.score(&batch).count == 2)
    try s.finish()
    let r = lines.result
    #expect(r.floods == count)
    #expect(r.lines == count + 1)  // and "rank 1: 2 diners"
    #expect(r.firstWrong == nil)
  }

  /// Lines ending in CR LF lose the CR; a line far longer than the kept maximum comes in
  /// pieces of bounded size; a last line without a newline is passed on at the exit.
  @Test func lineEndsAndLongLines() throws {
    let dir = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("log.sh").path
    let long = 1_000_000
    try writeScript(
      """
      #!/bin/sh
      read hello
      printf 'one\\r\\ntwo\\n' >&2
      head -c \(long) /dev/zero | tr '\\0' 'y' >&2
      printf '\\nlast' >&2
      echo '{"type":"describe","protocol":1,"identifier":"log","summary":"logs","options":[]}'
      read end

      """, to: path)
    let log = LogLines()
    _ = try PluginStrategy.describe(.init(name: "log", executable: path), log: { log.append($0) })
    let lines = log.lines
    #expect(lines.prefix(2) == ["one", "two"])
    #expect(lines.last == "last")
    let pieces = lines.dropFirst(2).dropLast().map { $0[...] }
    #expect(pieces.joined() == String(repeating: "y", count: long))
    // At most the kept maximum plus one read (64 KiB) waits for a newline.
    #expect(pieces.count >= long / (2 * PluginProcess.maxLogLine))
    #expect(pieces.allSatisfy { $0.utf8.count <= 2 * PluginProcess.maxLogLine })
  }
}

@Suite(.enabled(if: python3Available, "python3 is not on PATH: the plugin tests need it"))
struct PluginSpawnTests {
  /// A script still open for writing (being installed) cannot be executed: the spawn retries
  /// for a bounded time, then reports it.
  @Test func aScriptOpenForWritingIsReportedAsBusy() throws {
    let dir = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let path = dir.appendingPathComponent("busy.sh").path
    try writeScript("#!/bin/sh\nexit 0\n", to: path)
    let writer = open(path, O_WRONLY | O_CLOEXEC)
    try #require(writer >= 0)
    defer { close(writer) }
    var fault: PluginFault?
    do {
      _ = try PluginStrategy(.init(name: "busy", executable: path), log: { _ in })
    } catch {
      if case .plugin(let f) = error { fault = f }
    }
    #expect(fault?.kind == .notStartable)
    #expect(
      fault?.message
        == "could not start '\(path)': text file busy; another process still has it open for writing: let it finish, then run again"
    )
  }

  @Test func busyIsRetriedWithABoundedBackoff() {
    var attempts = 0
    var sleeps: [Double] = []
    let rc = PluginProcess.retryingBusy(
      { () -> Int32 in
        attempts += 1
        return attempts < 3 ? ETXTBSY : 0
      }, sleep: { sleeps.append($0) })
    #expect(rc == 0)
    #expect(attempts == 3)
    #expect(sleeps == [0.01, 0.02])

    attempts = 0
    sleeps = []
    let busy = PluginProcess.retryingBusy(
      { () -> Int32 in
        attempts += 1
        return ETXTBSY
      }, sleep: { sleeps.append($0) })
    #expect(busy == ETXTBSY)
    #expect(sleeps == [0.01, 0.02, 0.04, 0.08, 0.16, 0.32])
    #expect(sleeps.reduce(0, +) <= PluginProcess.busyRetryLimit)
    #expect(attempts == sleeps.count + 1)

    sleeps = []
    let other = PluginProcess.retryingBusy({ ENOENT }, sleep: { sleeps.append($0) })
    #expect(other == ENOENT)
    #expect(sleeps.isEmpty)
  }

  /// A descriptor the host opened without close-on-exec does not reach the plugin: it gets its
  /// three channels only.
  @Test(
    .enabled(
      if: dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") != nil,
      "the C library cannot close the other descriptors in posix_spawn"))
  func aPluginInheritsOnlyItsThreeChannels() throws {
    let dir = try temporaryFolder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let opened = open(dir.appendingPathComponent("open.txt").path, O_WRONLY | O_CREAT, 0o644)
    try #require(opened >= 0)
    // Far above the descriptors a shell uses for itself; F_DUPFD leaves it inheritable.
    let leaked = fcntl(opened, F_DUPFD, 900)
    close(opened)
    try #require(leaked >= 900)
    defer { close(leaked) }
    let path = dir.appendingPathComponent("fds.sh").path
    try writeScript(
      """
      #!/bin/sh
      read hello
      if [ -e /proc/$$/fd/\(leaked) ]; then echo inherited >&2; else echo not inherited >&2; fi
      [ -e /proc/$$/fd/2 ] && echo has stderr >&2
      echo '{"type":"describe","protocol":1,"identifier":"fds","summary":"fds","options":[]}'
      read end

      """, to: path)
    let log = LogLines()
    _ = try PluginStrategy.describe(.init(name: "fds", executable: path), log: { log.append($0) })
    #expect(log.lines == ["not inherited", "has stderr"])
  }
}
