import Dispatch
import Foundation
import Synchronization

/// Work on every core: how many there are for this process, and an ordered parallel map whose
/// result never depends on the number of workers.
package enum Parallel {
  /// The most workers `--jobs` accepts.
  package static let maxJobs = 1024

  /// The cores this process may use: the CPUs of its affinity mask (which `taskset` and
  /// container cpusets set), capped by a cgroup CPU quota (cgroup v2 `cpu.max`, or
  /// v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`) rounded up, and at least 1.
  package static func availableCores() -> Int {
    var cores = affinityCores() ?? ProcessInfo.processInfo.activeProcessorCount
    if let quota = cgroupQuotaCores() { cores = min(cores, quota) }
    return max(1, min(cores, maxJobs))
  }

  /// The CPUs of the affinity mask, from /proc/self/status (Glibc's module does not export
  /// `sched_getaffinity`, a GNU extension).
  private static func affinityCores() -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
      return nil
    }
    for line in text.split(separator: "\n") where line.hasPrefix("Cpus_allowed:") {
      return affinityCores(mask: String(line.dropFirst("Cpus_allowed:".count)))
    }
    return nil
  }

  /// The CPUs in a `Cpus_allowed` mask: hexadecimal words separated by commas ("ff" is 8,
  /// "00000000,00000003" is 2); nil for text that is not that or a mask with no CPU.
  package static func affinityCores(mask: String) -> Int? {
    var n = 0
    var digits = 0
    for c in mask.unicodeScalars {
      switch c {
      case " ", "\t", ",": continue
      default:
        guard let v = Int(String(c), radix: 16) else { return nil }
        n += v.nonzeroBitCount
        digits += 1
      }
    }
    return digits > 0 && n > 0 ? n : nil
  }

  private static func cgroupQuotaCores() -> Int? {
    if let text = try? String(contentsOfFile: "/sys/fs/cgroup/cpu.max", encoding: .utf8) {
      return quotaCores(cgroupV2: text)
    }
    if let quota = try? String(
      contentsOfFile: "/sys/fs/cgroup/cpu/cpu.cfs_quota_us", encoding: .utf8),
      let period = try? String(
        contentsOfFile: "/sys/fs/cgroup/cpu/cpu.cfs_period_us", encoding: .utf8)
    {
      return quotaCores(quota: quota, period: period)
    }
    return nil
  }

  /// The cores a cgroup v2 `cpu.max` line allows ("max 100000": no limit; "150000 100000": 2,
  /// rounded up); nil when there is no limit or the text is not that.
  package static func quotaCores(cgroupV2 text: String) -> Int? {
    let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
    guard fields.count == 2, fields[0] != "max" else { return nil }
    return quotaCores(quota: String(fields[0]), period: String(fields[1]))
  }

  /// The cores a CFS quota and period allow, rounded up; nil for no limit (a quota of -1) or
  /// text that is not two positive whole numbers.
  package static func quotaCores(quota: String, period: String) -> Int? {
    func number(_ s: String) -> Int? {
      Int(s.trimmingCharacters(in: .whitespacesAndNewlines))
    }
    guard let q = number(quota), let p = number(period), q > 0, p > 0 else { return nil }
    let (whole, rest) = q.quotientAndRemainder(dividingBy: p)
    return max(1, whole + (rest > 0 ? 1 : 0))
  }

  /// `transform(0) ... transform(count - 1)` on up to `jobs` threads, results in index order.
  /// Each call must depend only on its index (and on shared state it only reads): then the
  /// result is the same for every `jobs`. With `jobs <= 1` or one item it runs on the calling
  /// thread.
  package static func map<T: Sendable>(
    count: Int, jobs: Int, _ transform: @Sendable (Int) -> T
  ) -> [T] {
    guard count > 0 else { return [] }
    let workers = max(1, min(jobs, count))
    if workers == 1 { return (0..<count).map(transform) }
    let slots = Slots<T>(count: count)
    // Each worker takes the next index as it comes free (the work of the indices may differ):
    // every index is taken, and written, by one worker.
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
      while true {
        let k = slots.next.add(1, ordering: .relaxed).oldValue
        if k >= count { break }
        slots.set(k, transform(k))
      }
    }
    return slots.values()
  }

  /// Results written by index from several threads, each index by exactly one of them, read
  /// after they have all finished (`concurrentPerform` returns only then).
  private final class Slots<T>: @unchecked Sendable {
    private let base: UnsafeMutablePointer<T?>
    private let count: Int
    /// The next index to take.
    let next = Atomic<Int>(0)

    init(count: Int) {
      self.count = count
      base = .allocate(capacity: count)
      base.initialize(repeating: nil, count: count)
    }

    deinit {
      base.deinitialize(count: count)
      base.deallocate()
    }

    func set(_ k: Int, _ value: T) { base[k] = value }

    func values() -> [T] { (0..<count).map { base[$0]! } }
  }
}

extension Parallel {
  /// Work started on a thread of its own, whose result `wait()` returns (blocking until it is
  /// there). Wait for it on every path: the work keeps running otherwise.
  package final class Pending<T: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: T?

    init(_ work: @escaping @Sendable () -> T) {
      DispatchQueue.global().async {
        self.result = work()
        self.done.signal()
      }
    }

    /// The result, once the work has finished. The semaphore orders the worker's write of the
    /// result before this read (reading it without waiting would be a data race).
    package func wait() -> T {
      done.wait()
      done.signal()  // a later call returns at once
      return result!
    }
  }

  /// Starts `work` on a thread of its own.
  package static func background<T: Sendable>(_ work: @escaping @Sendable () -> T) -> Pending<T> {
    Pending(work)
  }
}
