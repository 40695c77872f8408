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

  /// Peak resident set size of this process in MiB.
  static func peakMemoryMiB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
  }
}
