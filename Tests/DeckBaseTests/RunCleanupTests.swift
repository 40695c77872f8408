import Testing

@testable import DeckBase

#if canImport(Glibc)
  import Glibc
#endif

@Suite struct RunCleanupTests {
  @Test func registeredTemporariesAreListedUntilRemoved() {
    let cleanup = RunCleanup()
    let a = cleanup.addTemporary("/tmp/a")
    let b = cleanup.addTemporary("/tmp/b")
    #expect(cleanup.registeredTemporaries == ["/tmp/a", "/tmp/b"])
    cleanup.removeTemporary(a)
    #expect(cleanup.registeredTemporaries == ["/tmp/b"])
    cleanup.removeTemporary(b)
    #expect(cleanup.registeredTemporaries.isEmpty)
  }

  @Test func processGroupsCountTheirRegistrations() {
    let cleanup = RunCleanup()
    cleanup.addProcessGroup(4242)
    cleanup.addProcessGroup(4242)
    cleanup.removeProcessGroup(4242)
    #expect(cleanup.registeredProcessGroups == [4242])
    cleanup.removeProcessGroup(4242)
    #expect(cleanup.registeredProcessGroups.isEmpty)
  }

  @Test func cleaningUpRemovesTheRegisteredFilesOnly() throws {
    let cleanup = RunCleanup()
    var template = Array("/tmp/menudeck-cleanup-XXXXXX".utf8CString)
    let dir = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) })
    let base = String(cString: dir)
    defer { rmdir(base) }
    let registered = base + "/registered"
    let other = base + "/other"
    for path in [registered, other] { close(open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)) }
    defer { unlink(other) }
    _ = cleanup.addTemporary(registered)
    let cleaned = cleanup.cleanUpForSignal()
    #expect(cleaned == RunCleanup.Cleaned(removedFiles: 1, endedGroups: 0))
    #expect(access(registered, F_OK) != 0)
    #expect(access(other, F_OK) == 0)
  }
}
