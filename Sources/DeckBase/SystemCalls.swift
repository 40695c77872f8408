#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The text of an `errno` value, the one place every module gets it: lowercased to fit a
/// message ("no such file or directory"), or as the C library writes it ("No such file or
/// directory") where a message has always quoted it that way (the swipe-log reader's).
package func errnoText(_ code: Int32 = errno, lowercased: Bool = true) -> String {
  guard let text = strerror(code) else { return "error \(code)" }
  let s = String(cString: text)
  return lowercased ? s.lowercased() : s
}

/// A failed system call: what was being done, on which path, and the `errno` it gave.
package struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The file the call was about ("" when none).
  package var path: String
  /// What was being done, as a message fragment: "cannot create a temporary file in 'out'".
  package var action: String
  /// The `errno` of the failure (0 when the failure is not a system call's).
  package var code: Int32

  /// "cannot create a temporary file in 'out': permission denied".
  package var message: String { code == 0 ? action : "\(action): \(errnoText(code))" }
  package var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// Monotonic seconds (never jumps with the wall clock).
package func monotonicSeconds() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Sleeps `seconds` (a few milliseconds to a few seconds), resuming after signals.
package func sleepSeconds(_ seconds: Double) {
  guard seconds > 0 else { return }
  var request = timespec(
    tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
  var left = timespec()
  while nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
}

/// "SIGTERM" for 15, and so on for the common signals.
package func signalName(_ signal: Int32) -> String {
  switch signal {
  case SIGHUP: return "SIGHUP"
  case SIGINT: return "SIGINT"
  case SIGQUIT: return "SIGQUIT"
  case SIGILL: return "SIGILL"
  case SIGABRT: return "SIGABRT"
  case SIGBUS: return "SIGBUS"
  case SIGFPE: return "SIGFPE"
  case SIGKILL: return "SIGKILL"
  case SIGSEGV: return "SIGSEGV"
  case SIGPIPE: return "SIGPIPE"
  case SIGTERM: return "SIGTERM"
  default: return "signal \(signal)"
  }
}

/// `write(2)`, by its module's name: inside types that have a `write` method of their own the
/// bare name would be the method. The one platform conditional for it.
package func systemWrite(_ fd: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
  #if canImport(Glibc)
    return Glibc.write(fd, pointer, count)
  #elseif canImport(Musl)
    return Musl.write(fd, pointer, count)
  #else
    return Darwin.write(fd, pointer, count)
  #endif
}

/// `read(2)`, by its module's name (as `systemWrite`).
package func systemRead(_ fd: Int32, _ pointer: UnsafeMutableRawPointer, _ count: Int) -> Int {
  #if canImport(Glibc)
    return Glibc.read(fd, pointer, count)
  #elseif canImport(Musl)
    return Musl.read(fd, pointer, count)
  #else
    return Darwin.read(fd, pointer, count)
  #endif
}

/// Writes all of `bytes` to `fd`, resuming after signals; the `errno` of a failed write.
package func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
  guard var pointer = bytes.baseAddress else { return nil }
  var left = bytes.count
  while left > 0 {
    let n = systemWrite(fd, pointer, left)
    if n < 0 {
      if errno == EINTR { continue }
      return errno
    }
    left -= n
    pointer += n
  }
  return nil
}
