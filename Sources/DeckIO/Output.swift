import DeckBase
import DeckCore

/// Where bytes go: stdout, a file being written atomically, or memory (tests).
package protocol ByteOutput: AnyObject {
  func write(_ bytes: [UInt8]) throws(DeckIOError)
}

/// Collects output in memory.
package final class MemoryOutput: ByteOutput {
  package private(set) var bytes: [UInt8] = []
  package init() {}
  package func write(_ bytes: [UInt8]) throws(DeckIOError) { self.bytes.append(contentsOf: bytes) }
  package var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// Replaces the file at `path` (through a symbolic link, its target) with `bytes`, under the
/// file's lock and through a temporary file renamed over it: the way for library users and
/// tools that write one file. Commands declare all their outputs at once (`OutputSet`), so that
/// they are locked before inputs are read and replaced together.
package func replaceFile(at path: String, with bytes: [UInt8], wait: Double = 0) throws(DeckIOError)
{
  do {
    let target = try FileSystem.writeTarget(of: path)
    let set = try OutputSet(
      targets: [target], wait: wait, holder: FileLock.holderLine(arguments: []))
    let file = try set.file(target)
    try file.write(bytes)
    try set.commit()
  } catch let error as SystemError {
    throw .io(path: path, message: error.message)
  } catch let error as FileLock.Failure {
    throw .io(path: path, message: error.description)
  } catch {
    throw .io(path: path, message: "\(error)")
  }
}
