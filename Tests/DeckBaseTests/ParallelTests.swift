import Testing

@testable import DeckBase

@Suite("Cores available to the process")
struct ParallelTests {
  @Test(
    "cgroup v2 cpu.max",
    arguments: [
      ("max 100000\n", nil as Int?), ("200000 100000\n", 2), ("150000 100000", 2),
      ("50000 100000\n", 1), ("100000 100000", 1), ("", nil), ("garbage", nil),
      ("-1 100000", nil), ("100000 0", nil), ("1 2 3", nil),
    ])
  func cgroupV2(text: String, cores: Int?) {
    #expect(Parallel.quotaCores(cgroupV2: text) == cores)
  }

  @Test(
    "cgroup v1 quota and period",
    arguments: [("-1\n", "100000\n", nil as Int?), ("400000\n", "100000\n", 4), ("x", "1", nil)])
  func cgroupV1(quota: String, period: String, cores: Int?) {
    #expect(Parallel.quotaCores(quota: quota, period: period) == cores)
  }

  @Test(
    "affinity mask of /proc/self/status",
    arguments: [
      ("\tff", 8 as Int?), ("\t3", 2), ("00000000,00000003", 2), ("\tf0f0", 8), ("0", nil),
      ("", nil), ("zz", nil),
    ])
  func affinity(mask: String, cores: Int?) {
    #expect(Parallel.affinityCores(mask: mask) == cores)
  }

  @Test("this process has at least one core and no more than the limit")
  func available() {
    let n = Parallel.availableCores()
    #expect(n >= 1 && n <= Parallel.maxJobs)
  }

  @Test("background work's result, waited for once or several times")
  func background() {
    let pending = Parallel.background { (0..<10_000).reduce(0, +) }
    #expect(pending.wait() == 49_995_000)
    #expect(pending.wait() == 49_995_000)
  }
}
