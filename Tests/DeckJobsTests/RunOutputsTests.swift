import DeckBase
import Foundation
import Testing

@testable import DeckJobs

/// One output set: its outputs are replaced together or not at all.
@Suite struct RunOutputsTests {
  /// A fresh directory of the test's own.
  static func directory() throws -> String {
    let dir = FileManager.default.temporaryDirectory
      .appendingPathComponent("runoutputs-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir
  }

  @Test func anOutputThatCannotReplaceItsTargetLeavesNeitherInPlace() throws {
    let dir = try Self.directory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let first = OutputKey("--first")
    let second = OutputKey("--second")
    let a = dir + "/a.txt"
    let b = dir + "/b.txt"
    try Data("old a\n".utf8).write(to: URL(fileURLWithPath: a))
    let outputs = try RunOutputs(
      [(first, a), (second, b)], inputs: [], wait: 0, io: JobTestSupport.io())
    // The renames go in the order the outputs were first written: the one that fails first, so
    // that no rename has happened yet (a rename failing after another succeeded says which
    // outputs are new already; `OutputSet.commit`).
    try outputs.write(Array("new b\n".utf8), to: second)
    try outputs.write(Array("new a\n".utf8), to: first)
    // The second target becomes a directory that is not empty: it cannot be replaced by a file.
    try FileManager.default.createDirectory(
      atPath: b + "/inside", withIntermediateDirectories: true)
    #expect(throws: (any Error).self) { try outputs.commit() }
    outputs.abort()
    #expect(try String(contentsOfFile: a, encoding: .utf8) == "old a\n")
    var isDirectory: ObjCBool = false
    #expect(FileManager.default.fileExists(atPath: b, isDirectory: &isDirectory))
    #expect(isDirectory.boolValue)
    let left = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
    #expect(left == ["a.txt", "b.txt"])
  }
}
