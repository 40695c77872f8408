import DeckCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where bytes go: stdout, a file being written atomically, or memory (tests).
public protocol ByteOutput: AnyObject {
  func write(_ bytes: [UInt8]) throws(DeckIOError)
}

/// Collects output in memory.
public final class MemoryOutput: ByteOutput {
  public private(set) var bytes: [UInt8] = []
  public init() {}
  public func write(_ bytes: [UInt8]) throws(DeckIOError) { self.bytes.append(contentsOf: bytes) }
  public var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// A file written atomically: bytes go to a temporary file in the same directory, which replaces
/// the target only on `commit()`; `abort()` (or failing to commit) leaves the target untouched.
public final class AtomicFileOutput: ByteOutput {
  public let path: String
  private let tempPath: String
  private var fd: Int32
  private var committed = false

  public init(path: String) throws(DeckIOError) {
    self.path = path
    let (dir, base) = splitPath(path)
    var template = Array("\(dir)/.\(base).XXXXXX.tmp".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 4) }
    guard fd >= 0 else {
      throw .io(path: path, message: "cannot create a temporary file in '\(dir)': \(errnoText())")
    }
    self.fd = fd
    self.tempPath = String(
      decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  public func write(_ bytes: [UInt8]) throws(DeckIOError) {
    guard fd >= 0 else { throw .io(path: path, message: "write after close") }
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { raw in
        Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
      }
      if n < 0 {
        if errno == EINTR { continue }
        throw .io(path: path, message: "write failed: \(errnoText())")
      }
      offset += n
    }
  }

  /// Flushes to disk and renames the temporary file over the target.
  public func commit() throws(DeckIOError) {
    guard fd >= 0 else { return }
    if fsync(fd) != 0 {
      let e = errnoText()
      abort()
      throw .io(path: path, message: "fsync failed: \(e)")
    }
    // Regular permissions for a new output file (mkstemp creates 0600).
    fchmod(fd, 0o644)
    close(fd)
    fd = -1
    if rename(tempPath, path) != 0 {
      let e = errnoText()
      unlink(tempPath)
      throw .io(path: path, message: "cannot replace the file: \(e)")
    }
    committed = true
  }

  /// Deletes the temporary file; the target keeps its previous contents.
  public func abort() {
    if fd >= 0 {
      close(fd)
      fd = -1
    }
    if !committed { unlink(tempPath) }
  }

  deinit { if !committed { abort() } }
}

func splitPath(_ path: String) -> (dir: String, base: String) {
  if let slash = path.lastIndex(of: "/") {
    let dir = String(path[..<slash])
    return (dir.isEmpty ? "/" : dir, String(path[path.index(after: slash)...]))
  }
  return (".", path)
}

private func errnoText() -> String { String(cString: strerror(errno)).lowercased() }
