// Helpers shared by every fuzz target (compiled into each; see Fuzz/README.md).

#if canImport(Glibc)
  import Glibc
#endif

/// The fuzzer's bytes, with option bytes taken off the front.
struct FuzzBytes {
  private(set) var bytes: [UInt8]

  init(_ data: UnsafePointer<UInt8>?, _ count: Int) {
    bytes = count > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: count)) : []
  }

  /// The next byte (0 when none is left), removed from the input.
  mutating func take() -> UInt8 {
    guard !bytes.isEmpty else { return 0 }
    return bytes.removeFirst()
  }

  /// The bytes up to the first `separator` (removed with it), or nil when there is none.
  mutating func takeField(until separator: UInt8) -> [UInt8]? {
    guard let at = bytes.firstIndex(of: separator) else { return nil }
    let field = Array(bytes[..<at])
    bytes.removeFirst(at + 1)
    return field
  }
}

/// Stops the run as a finding when an invariant does not hold: libFuzzer keeps the input.
func require(
  _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
  file: StaticString = #file, line: UInt = #line
) {
  if condition() { return }
  let text = Array("fuzz invariant failed at \(file):\(line): \(message())\n".utf8)
  _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
  abort()
}

/// A scratch directory of this process, made once and removed at exit with what is in it
/// (the targets write a few files of fixed names there).
let fuzzScratch: String = {
  let path = "/tmp/menudeck-fuzz-\(getpid())"
  mkdir(path, 0o700)
  atexit {
    if let dir = opendir(fuzzScratch) {
      while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) {
          String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        if name != "." && name != ".." { unlink(fuzzScratch + "/" + name) }
      }
      closedir(dir)
    }
    rmdir(fuzzScratch)
  }
  return path
}()

/// Writes `bytes` to a file named `name` in the scratch directory; returns its path.
func scratchFile(_ name: String, _ bytes: [UInt8]) -> String {
  let path = fuzzScratch + "/" + name
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
  precondition(fd >= 0, "cannot create \(path)")
  var done = 0
  while done < bytes.count {
    let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, bytes.count - done) }
    precondition(n > 0, "cannot write \(path)")
    done += n
  }
  close(fd)
  return path
}

/// Runs `body` with standard input a pipe that holds `bytes` and then ends (as `cat x |`), and
/// puts the real standard input back. A thread writes, so inputs larger than a pipe's buffer
/// work too.
func withStandardInput<T>(_ bytes: [UInt8], _ body: () -> T) -> T {
  var fds: [Int32] = [0, 0]
  precondition(pipe(&fds) == 0, "pipe")
  let saved = dup(0)
  dup2(fds[0], 0)
  close(fds[0])
  let job = Unmanaged.passRetained(PipeWriter(fd: fds[1], bytes: bytes))
  var thread = pthread_t()
  precondition(
    pthread_create(
      &thread, nil,
      { raw in
        let job = Unmanaged<PipeWriter>.fromOpaque(raw!).takeRetainedValue()
        var done = 0
        while done < job.bytes.count {
          let n = job.bytes.withUnsafeBytes {
            write(job.fd, $0.baseAddress! + done, job.bytes.count - done)
          }
          if n <= 0 { break }  // the reader stopped early (an error): EPIPE
          done += n
        }
        close(job.fd)
        return nil
      }, job.toOpaque()) == 0, "pthread_create")
  let result = body()
  // Drain what the reader left, so that the writer can finish.
  var sink = [UInt8](repeating: 0, count: 4096)
  while sink.withUnsafeMutableBytes({ read(0, $0.baseAddress, 4096) }) > 0 {}
  pthread_join(thread, nil)
  dup2(saved, 0)
  close(saved)
  return result
}

/// What the writing thread of `withStandardInput` writes, and where.
private final class PipeWriter: @unchecked Sendable {
  let fd: Int32
  let bytes: [UInt8]
  init(fd: Int32, bytes: [UInt8]) {
    self.fd = fd
    self.bytes = bytes
  }
}
