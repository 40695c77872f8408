import Foundation
import Testing

@testable import DeckBase

#if canImport(Glibc)
  import Glibc
#endif

/// A directory of its own for one test.
final class ScratchDirectory: Sendable {
  let path: String

  init() throws {
    var template = Array((NSTemporaryDirectory() + "/menudeck-base-XXXXXX").utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    path = String(cString: try #require(made))
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  func file(_ name: String) -> String { path + "/" + name }

  func write(_ name: String, _ text: String) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: file(name)))
  }

  func read(_ name: String) throws -> String {
    String(decoding: try Data(contentsOf: URL(fileURLWithPath: file(name))), as: UTF8.self)
  }

  /// Every name in the directory, hidden ones included, sorted.
  func names() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: path).sorted()
  }

  func mode(_ name: String) -> mode_t {
    var info = stat()
    stat(file(name), &info)
    return info.st_mode & 0o7777
  }
}

@Suite struct FileLockTests {
  @Test func aSecondLockOnTheSameTargetIsBusyAndNamesTheHolder() throws {
    let dir = try ScratchDirectory()
    let target = dir.file("decks.json")
    let first = try FileLock(target: target, wait: 0, holder: "pid 1: menudeck deck --out x")
    #expect(try dir.names() == [".decks.json.lock"])
    #expect(throws: FileLock.Failure.self) {
      try FileLock(target: target, wait: 0, holder: "pid 1: b")
    }
    do {
      _ = try FileLock(target: target, wait: 0, holder: "pid 1: b")
    } catch {
      guard case .busy(let t, let lockFile, let holder, let waited) = error else {
        Issue.record("expected busy, got \(error)")
        return
      }
      #expect(t == target)
      #expect(lockFile == dir.file(".decks.json.lock"))
      #expect(holder == "pid 1: menudeck deck --out x")
      #expect(waited == 0)
      #expect(error.description.contains("another menudeck run holds its lock"))
    }
    first.release()
    // Released: the lock file is gone and the target can be locked again.
    #expect(try dir.names() == [])
    let again = try FileLock(target: target, wait: 0, holder: "pid 1: c")
    again.release()
  }

  /// A run that finds the lock taken between its holder's flock and the holder's line (the
  /// file is still empty) waits for the line instead of naming no holder.
  @Test func aLockTakenAMomentAgoNamesItsHolderOnceItsLineIsWritten() throws {
    let dir = try ScratchDirectory()
    let target = dir.file("h.snap")
    let lockPath = dir.file(".h.snap.lock")
    let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    try #require(fd >= 0)
    defer { close(fd) }
    try #require(flock(fd, LOCK_EX | LOCK_NB) == 0)
    // A thread of its own: the test's concurrency pool may be busy with other tests.
    let written = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      sleepSeconds(0.1)
      let line = Array("pid 42: menudeck ingest a.csv --into h.snap\n".utf8)
      _ = line.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
      written.signal()
    }
    do {
      // The product waits up to a second for the line; the test waits as long as a loaded
      // machine may take to run the writer's thread (it returns as soon as the line is there).
      _ = try FileLock(target: target, wait: 0, holder: "pid 1: b", holderPatience: 60)
      Issue.record("the lock was taken twice")
    } catch {
      guard case .busy(_, _, let holder, _) = error else {
        Issue.record("expected busy, got \(error)")
        return
      }
      #expect(holder == "pid 42: menudeck ingest a.csv --into h.snap")
    }
    written.wait()
    // A holder that never writes its line is reported without one, after the patience.
    #expect(
      FileLock.awaitHolderText(fd, patience: 0) == "pid 42: menudeck ingest a.csv --into h.snap")
    _ = ftruncate(fd, 0)
    #expect(FileLock.awaitHolderText(fd, patience: 0.02) == nil)
  }

  @Test func waitingGivesUpAfterTheWaitAndSaysHowLong() throws {
    let dir = try ScratchDirectory()
    let target = dir.file("h.snap")
    let first = try FileLock(target: target, wait: 0, holder: "pid 1: first")
    defer { first.release() }
    do {
      _ = try FileLock(target: target, wait: 0.05, holder: "pid 1: second")
      Issue.record("the second lock was taken")
    } catch {
      guard case .busy(_, _, _, let waited) = error else {
        Issue.record("expected busy, got \(error)")
        return
      }
      #expect(waited >= 0.05)
      #expect(error.description.contains("after waiting"))
    }
  }

  @Test func aWaiterGetsTheLockWhenTheHolderLetsGo() async throws {
    let dir = try ScratchDirectory()
    let target = dir.file("h.snap")
    let first = try FileLock(target: target, wait: 0, holder: "pid 1: first")
    let waiter = Task.detached { () -> String? in
      do {
        let lock = try FileLock(target: target, wait: 60, holder: "pid 1: second")
        lock.release()
        return nil
      } catch {
        return "\(error)"
      }
    }
    try await Task.sleep(nanoseconds: 50_000_000)
    first.release()
    #expect(await waiter.value == nil)
  }

  @Test func manyThreadsTakeTurnsAndNeverHoldItTogether() async throws {
    // The lock file is removed at every release while others wait on it: each must still hold
    // the lock alone (the check that the path still names the locked file).
    let dir = try ScratchDirectory()
    let target = dir.file("counter")
    try dir.write("counter", "0")
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          for _ in 0..<25 {
            guard let lock = try? FileLock(target: target, wait: 60, holder: "pid 1: t") else {
              return
            }
            let value = Int((try? dir.read("counter")) ?? "") ?? -1000
            try? dir.write("counter", String(value + 1))
            lock.release()
          }
        }
      }
    }
    #expect(try dir.read("counter") == "200")
    #expect(try dir.names() == ["counter"])
  }
}

@Suite struct PendingFileTests {
  @Test func theTargetKeepsItsContentsUntilTheRename() throws {
    let dir = try ScratchDirectory()
    try dir.write("out.json", "old")
    let file = try PendingFile(target: dir.file("out.json"))
    try file.write(Array("new".utf8))
    #expect(try dir.read("out.json") == "old")
    let names = try dir.names()
    #expect(names.count == 2)
    let temporary = try #require(names.first { $0 != "out.json" })
    #expect(temporary.hasPrefix(".out.json.menudeck-\(getpid())-"))
    #expect(temporary.hasSuffix(".tmp"))
    #expect(RunCleanup.shared.registeredTemporaries.contains(dir.file(temporary)))
    try file.replaceTarget()
    #expect(try dir.read("out.json") == "new")
    #expect(try dir.names() == ["out.json"])
    #expect(!RunCleanup.shared.registeredTemporaries.contains(dir.file(temporary)))
  }

  @Test func aDeviceOrAFIFOIsNeverReplaced() throws {
    #expect(throws: SystemError.self) { try PendingFile(target: "/dev/null") }
    let dir = try ScratchDirectory()
    #expect(mkfifo(dir.file("fifo"), 0o600) == 0)
    #expect(throws: SystemError.self) { try PendingFile(target: dir.file("fifo")) }
    #expect(FileSystem.kind(of: "/dev/null") == .other)
    #expect(try dir.names() == ["fifo"])
  }

  @Test func discardingLeavesTheTargetAndNoTemporary() throws {
    let dir = try ScratchDirectory()
    try dir.write("out.json", "old")
    do {
      let file = try PendingFile(target: dir.file("out.json"))
      try file.write(Array("new".utf8))
      file.discard()
    }
    #expect(try dir.read("out.json") == "old")
    #expect(try dir.names() == ["out.json"])
  }

  @Test func aReplacedFileKeepsItsModeAndANewOneFollowsTheUmask() throws {
    let dir = try ScratchDirectory()
    try dir.write("kept", "old")
    chmod(dir.file("kept"), 0o640)
    let kept = try PendingFile(target: dir.file("kept"))
    try kept.write(Array("new".utf8))
    try kept.replaceTarget()
    #expect(dir.mode("kept") == 0o640)

    let fresh = try PendingFile(target: dir.file("fresh"))
    try fresh.write(Array("x".utf8))
    try fresh.replaceTarget()
    #expect(dir.mode("fresh") == 0o666 & ~FileSystem.creationMask)
  }

  @Test func theCreationMaskIsTheProcesss() {
    // Setting the mask we read changes nothing when it is right (other tests create files in
    // parallel: the mask must never change under them).
    let previous = umask(FileSystem.creationMask)
    if previous != FileSystem.creationMask { umask(previous) }
    #expect(previous == FileSystem.creationMask)
  }

  @Test func staleTemporariesOfGoneProcessesAreRemovedOthersKept() throws {
    let dir = try ScratchDirectory()
    // A pid above pid_max never exists; this process and pid 1 do.
    let gone = ".out.json.menudeck-99999999-abcdefgh.tmp"
    let mine = ".out.json.menudeck-\(getpid())-abcdefgh.tmp"
    let live = ".out.json.menudeck-1-abcdefgh.tmp"
    let other = ".other.json.menudeck-99999999-abcdefgh.tmp"
    let unrelated = ".out.json.XXXXXX.tmp"
    for name in [gone, mine, live, other, unrelated] { try dir.write(name, "x") }
    let removed = PendingFile.removeStaleTemporaries(of: dir.file("out.json"))
    #expect(removed == [dir.file(gone)])
    #expect(try dir.names() == [other, live, mine, unrelated].sorted())
  }

  @Test func aWriteThroughASymbolicLinkReplacesItsTarget() throws {
    let dir = try ScratchDirectory()
    try FileManager.default.createDirectory(
      atPath: dir.file("real"), withIntermediateDirectories: true)
    try dir.write("real/decks.json", "old")
    try FileManager.default.createSymbolicLink(
      atPath: dir.file("link.json"), withDestinationPath: "real/decks.json")
    try FileManager.default.createSymbolicLink(
      atPath: dir.file("link2.json"), withDestinationPath: dir.file("link.json"))
    let target = try FileSystem.writeTarget(of: dir.file("link2.json"))
    #expect(target == dir.path + "/real/decks.json")
    let file = try PendingFile(target: target)
    try file.write(Array("new".utf8))
    try file.replaceTarget()
    #expect(try dir.read("link2.json") == "new")
    let link = try FileManager.default.destinationOfSymbolicLink(atPath: dir.file("link.json"))
    #expect(link == "real/decks.json")
    // A dangling link names the file to create.
    try FileManager.default.createSymbolicLink(
      atPath: dir.file("dangling"), withDestinationPath: "real/new.json")
    #expect(try FileSystem.writeTarget(of: dir.file("dangling")) == dir.path + "/real/new.json")
    // A loop is an error, not a hang.
    try FileManager.default.createSymbolicLink(
      atPath: dir.file("loop"), withDestinationPath: dir.file("loop"))
    #expect(throws: SystemError.self) { try FileSystem.writeTarget(of: dir.file("loop")) }
  }
}

@Suite struct OutputSetTests {
  @Test func everyOutputIsReplacedAtCommitAndNoneBefore() throws {
    let dir = try ScratchDirectory()
    try dir.write("a", "old a")
    try dir.write("b", "old b")
    let set = try OutputSet(targets: [dir.file("a"), dir.file("b")], wait: 0, holder: "pid 1: t")
    try set.file(dir.file("a")).write(Array("new a".utf8))
    try set.file(dir.file("b")).write(Array("new b".utf8))
    #expect(try dir.read("a") == "old a")
    #expect(try dir.read("b") == "old b")
    try set.commit()
    #expect(try dir.read("a") == "new a")
    #expect(try dir.read("b") == "new b")
    #expect(try dir.names() == ["a", "b"])
  }

  @Test func aRenameThatFailsPutsBackTheOutputsAlreadyReplaced() throws {
    // `a` and `c` are renamed into place before `b`'s rename fails (`b` became a directory):
    // `a` gets its former contents back, `c` (new) is removed, and nothing is left beside them.
    let dir = try ScratchDirectory()
    try dir.write("a", "old a")
    try dir.write("b", "old b")
    let targets = [dir.file("a"), dir.file("c"), dir.file("b")]
    let set = try OutputSet(targets: targets, wait: 0, holder: "pid 1: t")
    for target in targets { try set.file(target).write(Array("new".utf8)) }
    try FileManager.default.removeItem(atPath: dir.file("b"))
    try FileManager.default.createDirectory(
      atPath: dir.file("b"), withIntermediateDirectories: false)
    var failure: SystemError?
    do { try set.commit() } catch { failure = error }
    #expect(failure?.path == dir.file("b"))
    #expect(failure?.action.contains("already replaced") == false)
    #expect(try dir.read("a") == "old a")
    #expect(try dir.names() == ["a", "b"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("b")) == [])
  }

  @Test func anAbortedSetLeavesEveryTargetAndNothingElse() throws {
    let dir = try ScratchDirectory()
    try dir.write("a", "old a")
    do {
      let set = try OutputSet(targets: [dir.file("a"), dir.file("b")], wait: 0, holder: "pid 1: t")
      try set.file(dir.file("a")).write(Array("new a".utf8))
      try set.file(dir.file("b")).write(Array("new b".utf8))
      set.abort()
    }
    #expect(try dir.read("a") == "old a")
    #expect(try dir.names() == ["a"])
  }

  @Test func aSetLocksEveryTargetUntilItEnds() throws {
    let dir = try ScratchDirectory()
    let set = try OutputSet(
      targets: [dir.file("a"), dir.file("b")], wait: 0, holder: "pid 1: first")
    #expect(throws: FileLock.Failure.self) {
      try OutputSet(targets: [dir.file("b")], wait: 0, holder: "pid 1: second")
    }
    try set.commit()
    let second = try OutputSet(targets: [dir.file("b")], wait: 0, holder: "pid 1: second")
    second.abort()
  }

  @Test func setsWithTheSameTargetsSpelledOtherwiseLockThemInOneOrder() throws {
    // Two runs that lock the same files in different orders could each hold one and wait for
    // the other. The order is the files' (directory inode, name), not their spelling.
    let dir = try ScratchDirectory()
    let base = (dir.path as NSString).lastPathComponent
    // Spelled so that their text sorts `b` first.
    let otherA = dir.path + "/./a"
    let otherB = dir.path + "/../" + base + "/b"
    let one = try OutputSet(targets: [dir.file("a"), dir.file("b")], wait: 0, holder: "pid 1: t")
    let order = one.lockOrder.map { FileSystem.split($0).name }
    one.abort()
    let two = try OutputSet(targets: [otherB, otherA], wait: 0, holder: "pid 1: t")
    #expect(two.lockOrder.map { FileSystem.split($0).name } == order)
    #expect(two.lockOrder == [otherA, otherB])
    two.abort()
  }

  @Test func lockingRemovesTheStaleTemporariesOfItsTargets() throws {
    let dir = try ScratchDirectory()
    try dir.write(".a.menudeck-99999999-zzzzzzzz.tmp", "half a file")
    let set = try OutputSet(targets: [dir.file("a")], wait: 0, holder: "pid 1: t")
    #expect(set.removedStale == [dir.file(".a.menudeck-99999999-zzzzzzzz.tmp")])
    set.abort()
    #expect(try dir.names() == [])
  }
}
