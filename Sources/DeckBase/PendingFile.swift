#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file being written in place of `target`: the bytes go to a temporary file beside it,
/// `.NAME.menudeck-PID-RANDOM.tmp`, registered with `RunCleanup` (a signal removes it), which
/// replaces the target only when `replaceTarget()` renames it. Until then the target keeps its
/// contents; `discard()` (or deinit) removes the temporary file.
///
/// The new file gets the target's permission bits when the target exists, else 0666 less the
/// umask, as a file created by `open(2)` would. The pid in the name lets a later run on the same
/// target remove the temporaries of runs that were killed (`removeStaleTemporaries(of:)`).
package final class PendingFile {
  /// The file that will be replaced.
  package let target: String
  /// The temporary file.
  package let temporaryPath: String
  private var fd: Int32
  private var token: RunCleanup.Token?
  private var prepared = false
  /// The hard link that keeps the target's former contents during a commit, and its cleanup token.
  private var backup: (String, RunCleanup.Token)?
  /// Whether the target existed when `backUpTarget()` looked.
  private var hadTarget = false

  /// Creates the temporary file beside `target` (which must be the write target, symbolic
  /// links already followed: see `FileSystem.writeTarget(of:)`).
  package init(target: String) throws(SystemError) {
    self.target = target
    // Renaming over a device or a FIFO would destroy it (/dev/null replaced by a regular file).
    if let kind = FileSystem.kind(of: target), kind != .regular {
      throw SystemError(
        path: target,
        action: "is not a regular file (a device, a FIFO or a directory), so it is never replaced; "
          + "write it as a stream or choose a file", code: 0)
    }
    var fd: Int32 = -1
    let (path, token) = try PendingFile.besideTarget(target) { path in
      fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
      return fd >= 0 ? 0 : errno
    }
    self.fd = fd
    self.temporaryPath = path
    self.token = token
  }

  /// Makes a new name beside `target`, `.NAME.menudeck-PID-RANDOM.tmp`, and has `make` create a
  /// file there (returning 0, or the errno; EEXIST tries another name), registered with
  /// `RunCleanup` in the same breath so that a signal never leaves it behind.
  private static func besideTarget(
    _ target: String, _ make: (String) -> Int32
  ) throws(SystemError) -> (String, RunCleanup.Token) {
    let (dir, name) = FileSystem.split(target)
    let prefix =
      (dir == "." && !target.hasPrefix("./") ? "" : dir + "/") + "."
      + PendingFile.temporaryPrefix(of: FileSystem.sideName(of: name), pid: getpid())
    var created: (String, RunCleanup.Token)?
    var code: Int32 = 0
    RunCleanup.shared.holding {
      for _ in 0..<100 {
        let path = prefix + PendingFile.randomSuffix() + ".tmp"
        code = make(path)
        if code == 0 {
          created = (path, RunCleanup.shared.addTemporary(path))
          return
        }
        if code != EEXIST { return }
      }
    }
    guard let created else {
      throw SystemError(
        path: target, action: "cannot create a temporary file in '\(dir)'", code: code)
    }
    return created
  }

  /// `NAME.menudeck-PID-`: the start of the names of a process's temporaries for `NAME` (after
  /// the leading dot).
  static func temporaryPrefix(of name: String, pid: pid_t) -> String {
    "\(name).menudeck-\(pid)-"
  }

  private static func randomSuffix() -> String {
    let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789")
    var generator = SystemRandomNumberGenerator()
    return String((0..<8).map { _ in letters[Int(generator.next() % UInt64(letters.count))] })
  }

  /// Appends bytes.
  package func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
    guard fd >= 0, !prepared else {
      throw SystemError(path: target, action: "write after the file was closed", code: 0)
    }
    if let code = writeAll(fd, bytes) {
      throw SystemError(path: target, action: "cannot write", code: code)
    }
  }

  /// Appends bytes.
  package func write(_ bytes: [UInt8]) throws(SystemError) {
    let failure = bytes.withUnsafeBytes { raw -> SystemError? in
      do throws(SystemError) { try write(raw) } catch { return error }
      return nil
    }
    if let failure { throw failure }
  }

  /// Flushes the bytes to disk, gives the file its final permissions and closes it: all the
  /// work of a commit that can fail, done before any output of the run is renamed.
  package func prepare() throws(SystemError) {
    guard !prepared else { return }
    guard fd >= 0 else {
      throw SystemError(path: target, action: "the temporary file is gone", code: 0)
    }
    // A replaced file keeps its permission bits (not set-user-ID, set-group-ID or sticky) and,
    // where this process may give them, its owner and group.
    var info = stat()
    let exists = stat(target, &info) == 0
    let mode = exists ? info.st_mode & 0o777 : FileSystem.newFileMode
    if exists { _ = fchown(fd, info.st_uid, info.st_gid) }
    if fchmod(fd, mode) != 0 {
      throw SystemError(path: target, action: "cannot set the permissions", code: errno)
    }
    if fsync(fd) != 0 {
      throw SystemError(path: target, action: "cannot flush to disk", code: errno)
    }
    if close(fd) != 0 {
      fd = -1
      throw SystemError(path: target, action: "cannot write", code: errno)
    }
    fd = -1
    prepared = true
  }

  /// Keeps the target's present contents under a second name (a hard link beside it, a
  /// temporary like the pending file's), so that `restoreTarget()` can put them back after
  /// `replaceTarget()`. Returns false where it cannot (a file system without hard links): that
  /// target cannot be rolled back. A target that does not exist needs no backup.
  @discardableResult
  package func backUpTarget() -> Bool {
    guard backup == nil else { return true }
    guard FileSystem.kind(of: target) == .regular else {
      hadTarget = FileSystem.kind(of: target) != nil
      return !hadTarget
    }
    hadTarget = true
    do throws(SystemError) {
      backup = try PendingFile.besideTarget(target) { path in
        link(target, path) == 0 ? 0 : errno
      }
      return true
    } catch { return false }
  }

  /// Undoes `replaceTarget()`: the backup renamed over the target, or the target removed where
  /// there was none before. Returns false where that is not possible (no backup was kept).
  package func restoreTarget() -> Bool {
    if let (path, token) = backup {
      guard rename(path, target) == 0 else { return false }
      RunCleanup.shared.removeTemporary(token)
      backup = nil
      return true
    }
    return !hadTarget && unlink(target) == 0
  }

  /// Removes the backup of the target's former contents (the commit succeeded or never began).
  package func dropBackup() {
    guard let (path, token) = backup else { return }
    unlink(path)
    RunCleanup.shared.removeTemporary(token)
    backup = nil
  }

  /// Renames the temporary file over the target (after `prepare()`). The directory is synced
  /// by the caller once all of a run's outputs are renamed.
  package func replaceTarget() throws(SystemError) {
    try prepare()
    guard token != nil else { return }
    if rename(temporaryPath, target) != 0 {
      throw SystemError(path: target, action: "cannot replace the file", code: errno)
    }
    if let token { RunCleanup.shared.removeTemporary(token) }
    token = nil
  }

  /// Removes the temporary file; the target keeps its contents.
  package func discard() {
    if fd >= 0 {
      close(fd)
      fd = -1
    }
    if let token {
      unlink(temporaryPath)
      RunCleanup.shared.removeTemporary(token)
    }
    token = nil
  }

  deinit {
    discard()
    dropBackup()
  }

  /// Removes the temporaries of `target` left by menudeck runs that no longer exist (killed with
  /// SIGKILL, or by a power cut) and returns their paths. Call it while holding the target's
  /// lock: then no live run of this target can own a temporary. Temporaries of live processes
  /// (after pid reuse, or of this process) are kept.
  package static func removeStaleTemporaries(of target: String) -> [String] {
    let (dir, name) = FileSystem.split(target)
    let lead = "." + FileSystem.sideName(of: name) + ".menudeck-"
    var removed: [String] = []
    for entry in FileSystem.names(in: dir) where entry.hasPrefix(lead) && entry.hasSuffix(".tmp") {
      let rest = entry.dropFirst(lead.count)
      guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0,
        pid != getpid(), !FileSystem.processExists(pid)
      else { continue }
      let path = (dir == "." && !target.hasPrefix("./") ? "" : dir + "/") + entry
      if unlink(path) == 0 { removed.append(path) }
    }
    return removed.sorted()
  }
}
