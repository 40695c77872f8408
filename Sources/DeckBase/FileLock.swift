#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// An exclusive lock on an output file, held by this run from before it reads anything the
/// output depends on until it has renamed the output into place.
///
/// The lock is `flock(2)` on a lock file beside the target, `.NAME.lock`, created when missing.
/// The kernel drops the lock when the holder's descriptor closes, so a killed run never leaves
/// a stale lock. The holder removes the lock file when it lets go (and a signal's cleanup does
/// too); a run that was killed with SIGKILL leaves an empty-looking `.NAME.lock` that the next
/// run takes and removes. Removing a lock file is safe because a run that has locked one checks
/// that its path still names the file it locked, and starts again when it does not. The holder
/// writes its pid and command line into the lock file, so a run that finds it taken can say who
/// holds it.
///
/// What it protects: runs of menudeck (any number, in any processes of this machine) that write
/// the same target. What it does not: other programs writing the target (`cp`, an editor), and
/// runs on other machines over NFS unless the NFS client maps `flock` to the server's locks
/// (Linux does since 2.6.12; others may lock only locally). The descriptor is close-on-exec,
/// so plugins never inherit the lock.
package final class FileLock {
  /// The file that was locked (the target of the output).
  package let target: String
  /// The lock file.
  package let path: String
  private var fd: Int32

  /// Why a lock could not be taken.
  package enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
    /// Another run holds it (after the `waited` seconds the caller allowed); `holder` is what it
    /// wrote.
    case busy(target: String, lockFile: String, holder: String?, waited: Double)
    case system(SystemError)

    package var description: String {
      switch self {
      case .busy(let target, _, let holder, let waited):
        let who = holder.map { " (\($0))" } ?? ""
        let after =
          waited > 0 ? " after waiting \(formatSeconds(waited))" : ""
        return "\(target): another menudeck run holds its lock\(who)\(after); "
          + "wait for it to finish, or give --wait SECONDS to wait for it"
      case .system(let error): return error.description
      }
    }
  }

  /// The lock file of `target`: `.NAME.lock` in the target's directory (NAME shortened when
  /// the lock's name would be too long: `FileSystem.sideName(of:)`).
  package static func lockPath(for target: String) -> String {
    let (dir, name) = FileSystem.split(target)
    return (dir == "." && !target.hasPrefix("./") ? "" : dir + "/") + "."
      + FileSystem.sideName(of: name) + ".lock"
  }

  /// Takes the lock of `target`, waiting up to `wait` seconds for a holder to let go (0: fail at
  /// once). `holder` is written into the lock file for the messages of runs that find it taken.
  /// A lock found taken with no holder line yet gets `holderPatience` seconds for the line to
  /// appear (`awaitHolderText`).
  package init(target: String, wait: Double, holder: String, holderPatience: Double = 1)
    throws(Failure)
  {
    self.target = target
    let path = FileLock.lockPath(for: target)
    self.path = path
    let start = monotonicSeconds()
    var pause = 0.005
    var locked: Int32 = -1
    while locked < 0 {
      // Never through a link, never a file that is something else: the lock file is written.
      let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, FileSystem.newFileMode)
      if fd < 0 {
        let code = errno
        if code == ELOOP {
          throw .system(
            SystemError(
              path: target,
              action: "'\(path)' beside it is a symbolic link, not a menudeck lock file; move it "
                + "away", code: 0))
        }
        throw .system(
          SystemError(
            path: target,
            action: "cannot create the lock file '\(path)' (menudeck puts its lock and temporary "
              + "files beside each output: the directory must be writable)", code: code))
      }
      switch FileLock.kindOfLockFile(fd) {
      case .lockFile: break
      case .removed:
        // Its holder let go and removed it between our open and now: open the path again.
        close(fd)
        continue
      case .other:
        close(fd)
        throw .system(
          SystemError(
            path: target,
            action: "'\(path)' beside it is not a menudeck lock file (a link, or a file with "
              + "other contents); move it away", code: 0))
      }
      while flock(fd, LOCK_EX | LOCK_NB) != 0 {
        let code = errno
        if code == EINTR { continue }
        guard code == EWOULDBLOCK || code == EAGAIN else {
          close(fd)
          throw .system(SystemError(path: target, action: "cannot lock '\(path)'", code: code))
        }
        let waited = monotonicSeconds() - start
        if waited >= wait {
          let text = FileLock.awaitHolderText(fd, patience: holderPatience)
          close(fd)
          // The message tells the wait that was asked for (`--wait 0.1`: "after waiting 0.1
          // s"): the time measured overshoots it by however late this thread was woken.
          throw .busy(target: target, lockFile: path, holder: text, waited: wait > 0 ? wait : 0)
        }
        sleepSeconds(min(pause, wait - waited))
        pause = min(pause * 2, 0.1)
      }
      // The holder before us may have removed the lock file as it let go: then this lock is on
      // a file nobody else will open, and the one at `path` (if any) is the real one.
      if let held = FileIdentity(fileDescriptor: fd), FileIdentity(path: path) == held {
        locked = fd
      } else {
        close(fd)
      }
    }
    fd = locked
    // Written, then cut to length: a reader never sees an empty holder line.
    var line = Array((holder + "\n").utf8)
    let written = line.withUnsafeMutableBytes { pwrite(locked, $0.baseAddress, $0.count, 0) }
    if written == line.count { _ = ftruncate(locked, off_t(line.count)) }
    identity = FileIdentity(fileDescriptor: locked)
    token = RunCleanup.shared.addLockFile(path, identity: identity)
  }

  private var identity: FileIdentity?

  private enum LockFileKind { case lockFile, removed, other }

  /// Whether the open file is one a lock may be written into: a regular file with one name,
  /// empty or holding a holder line ("pid ..."); `.removed` when it has no name any more (its
  /// holder removed it as it let go).
  private static func kindOfLockFile(_ fd: Int32) -> LockFileKind {
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return .other }
    if info.st_nlink == 0 { return .removed }
    guard info.st_nlink == 1, info.st_size <= 4096 else { return .other }
    if info.st_size == 0 { return .lockFile }
    var head = [UInt8](repeating: 0, count: 4)
    let n = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
    return n == 4 && head == Array("pid ".utf8) ? .lockFile : .other
  }

  private var token: RunCleanup.Token?

  /// Lets go of the lock and removes the lock file (also done by deinit; a process that ends
  /// lets go of its locks whatever happens).
  package func release() {
    guard fd >= 0 else { return }
    RunCleanup.shared.holding {
      // Only the file this lock holds: never one that has taken its name since.
      if let identity, FileIdentity(path: path) == identity { unlink(path) }
      if let token { RunCleanup.shared.removeLockFile(token) }
    }
    token = nil
    close(fd)
    fd = -1
  }

  deinit { release() }

  /// The holder line of a lock file that another run holds. A holder writes its line right
  /// after it takes the lock, so a lock file still empty was taken a moment ago: its line is
  /// given up to `patience` seconds to appear (a loaded machine may pause the holder in between).
  static func awaitHolderText(_ fd: Int32, patience: Double = 1) -> String? {
    let start = monotonicSeconds()
    while true {
      if let text = holderText(fd) { return text }
      if monotonicSeconds() - start >= patience { return nil }
      sleepSeconds(0.005)
    }
  }

  /// What the holder wrote into the lock file (its first line, at most 300 bytes).
  private static func holderText(_ fd: Int32) -> String? {
    var buffer = [UInt8](repeating: 0, count: 300)
    let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
    guard n > 0 else { return nil }
    let line = buffer[..<n].split(separator: 0x0A, omittingEmptySubsequences: true).first ?? []
    let text = String(decoding: line, as: UTF8.self)
    return text.isEmpty ? nil : text
  }

  /// A holder line for this process: "pid 1234: menudeck ingest a.csv --into h.snap".
  package static func holderLine(arguments: [String]) -> String {
    var text = "pid \(getpid())"
    if !arguments.isEmpty {
      var command = arguments.joined(separator: " ")
      if command.utf8.count > 200 { command = String(command.prefix(200)) + "..." }
      text += ": " + command
    }
    return text
  }
}

/// "0.5 s", "3 s", "2.25 s".
package func formatSeconds(_ seconds: Double) -> String {
  let rounded = (seconds * 100).rounded() / 100
  if rounded == rounded.rounded() { return "\(Int(rounded)) s" }
  return "\(rounded) s"
}
