#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Every file one run writes, replaced together at its end.
///
/// On creation the set locks every target (`FileLock`), in the order of their lock files' paths
/// so that two runs with overlapping outputs never wait on each other in a circle, and removes
/// the temporaries that killed runs left beside them. Each output is written to its own
/// `PendingFile`. `commit()` first does everything that can fail (flush to disk, permissions,
/// close) for all of them, keeps each existing target's contents under a hard link beside it
/// (when there is more than one output), then renames them one after the other with the cleanup
/// registry held (a signal waits for the renames), syncs their directories and lets go of the
/// locks. When a rename fails after others succeeded, the replaced targets get their former
/// contents back (or are removed where they did not exist), so a run changes all of its outputs
/// or none; only a file system without hard links can leave one replaced, and the error names
/// it. A run that fails before `commit()` leaves every target as it was.
package final class OutputSet {
  /// The write targets (symbolic links followed), in the order given.
  package let targets: [String]
  /// The targets in the order they were locked.
  let lockOrder: [String]
  /// Temporaries of killed runs removed while locking.
  package private(set) var removedStale: [String] = []
  private var locks: [FileLock] = []
  private var files: [String: PendingFile] = [:]
  private var order: [String] = []

  /// Locks `targets` (already write targets; see `FileSystem.writeTarget(of:)`), waiting up to
  /// `wait` seconds for each. The same target given twice is locked once.
  package init(targets: [String], wait: Double, holder: String) throws(FileLock.Failure) {
    var unique: [String] = []
    for t in targets where !unique.contains(t) { unique.append(t) }
    self.targets = unique
    // One order for every run, whatever the spelling of the paths: by the directory's device
    // and inode, then the name. One deadline for all the locks.
    func key(_ target: String) -> (UInt64, UInt64, String) {
      let (dir, name) = FileSystem.split(target)
      let d = FileIdentity(path: dir)
      return (d?.device ?? 0, d?.inode ?? 0, name)
    }
    let deadline = monotonicSeconds() + wait
    lockOrder = unique.sorted(by: { key($0) < key($1) })
    for target in lockOrder {
      let left = max(0, deadline - monotonicSeconds())
      locks.append(try FileLock(target: target, wait: wait > 0 ? left : 0, holder: holder))
      removedStale += PendingFile.removeStaleTemporaries(of: target)
    }
  }

  /// Directories whose sync failed after their outputs were renamed into them (the outputs are
  /// in place; they may not survive a power cut). Filled by `commit()`.
  package private(set) var unsyncedDirectories: [SystemError] = []

  /// The pending file of `target` (one of `targets`), created on first use.
  package func file(_ target: String) throws(SystemError) -> PendingFile {
    if let file = files[target] { return file }
    precondition(targets.contains(target), "'\(target)' is not an output of this run")
    let file = try PendingFile(target: target)
    files[target] = file
    order.append(target)
    return file
  }

  /// Flushes every pending file to disk and closes it (the part of a commit that can fail).
  package func prepare() throws(SystemError) {
    for target in order { try files[target]!.prepare() }
  }

  /// Replaces every target that was written with its pending file, together; then releases
  /// the locks. Targets never asked for with `file(_:)` are left as they are.
  package func commit() throws(SystemError) {
    var replaced: [String] = []
    do {
      try prepare()
      try RunCleanup.shared.holding { () throws(SystemError) in
        for target in order where order.count > 1 { files[target]!.backUpTarget() }
        for target in order {
          try files[target]!.replaceTarget()
          RunCleanup.shared.noteReplaced()
          replaced.append(target)
        }
      }
    } catch {
      // A rename failed after others succeeded: put their former contents back, so that the
      // run changes all of its outputs or none; name any that could not be put back.
      let kept = RunCleanup.shared.holding {
        replaced.reversed().filter { !files[$0]!.restoreTarget() }.reversed()
      }
      for target in order { files[target]!.dropBackup() }
      abort()
      guard !kept.isEmpty else { throw error }
      var e = error
      e.action += " (already replaced: " + kept.joined(separator: ", ") + ")"
      throw e
    }
    for target in order { files[target]!.dropBackup() }
    // After the renames nothing may fail the run: the outputs are in place.
    var directories: [String] = []
    for target in order {
      let dir = FileSystem.split(target).directory
      if !directories.contains(dir) { directories.append(dir) }
    }
    for dir in directories {
      do { try FileSystem.syncDirectory(dir) } catch { unsyncedDirectories.append(error) }
    }
    files.removeAll()
    order.removeAll()
    release()
  }

  /// Removes every pending file (the targets keep their contents) and releases the locks.
  package func abort() {
    for target in order { files[target]?.discard() }
    files.removeAll()
    order.removeAll()
    release()
  }

  private func release() {
    for lock in locks { lock.release() }
    locks.removeAll()
  }

  deinit { abort() }
}
