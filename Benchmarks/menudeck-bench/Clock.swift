import Foundation

#if canImport(Glibc)
  import Glibc
#endif

enum Clock {
  /// Monotonic seconds.
  static func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
  }

  /// CPU seconds of this process (one thread: the time on one core, whatever the machine's load).
  static func cpuNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
  }

  /// Peak resident set size of this process in MiB (VmHWM: unlike getrusage's ru_maxrss it is
  /// not inherited from the parent across exec).
  static func peakMemoryMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return 0 }
    let kib = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
    return kib / 1024
  }
}
