import Dispatch
import Foundation
import Synchronization
import Testing

@testable import DeckBase

/// `Parallel.stream` against a plain loop: every result handed out once, in index order, for
/// any number of workers and any window; a worker never makes two results at once; the window
/// bounds what is made ahead; a result that stops the stream and a consumer that throws end it
/// after the results before them, with no worker left running.
@Suite("An ordered stream made on several threads")
struct ParallelStreamTests {
  /// Work whose length depends on the index (so the workers finish out of order): `31 k`.
  static func work(_ k: Int) -> Int {
    var x = UInt64(k) &* 0x9E37_79B9_7F4A_7C15
    for _ in 0..<(Int(x >> 58) * 40) { x = x &* 6_364_136_223_846_793_005 &+ 1 }
    sink.store(x, ordering: .relaxed)  // the loop is not optimized away
    return k * 31
  }

  static let sink = Atomic<UInt64>(0)

  @Test(
    "every result once, in index order",
    arguments: [0, 1, 2, 3, 8], [1, 2, 5, 100])
  func inOrder(jobs: Int, ahead: Int) {
    for count in [0, 1, 2, 17, 1000] {
      var got: [Int] = []
      Parallel.stream(count: count, jobs: jobs, ahead: ahead) { k, _ in
        Self.work(k)
      } stops: { _ in
        false
      } consume: {
        got.append($0)
      }
      #expect(got == (0..<count).map { $0 * 31 }, "count \(count)")
    }
  }

  @Test("a worker makes one result at a time; the workers number 0 ..< jobs")
  func workers() {
    for jobs in [2, 3, 5] {
      let busy = Mutex<[Bool]>(Array(repeating: false, count: jobs))
      let overlaps = Atomic<Int>(0)
      let outside = Atomic<Int>(0)
      var n = 0
      Parallel.stream(count: 400, jobs: jobs, ahead: 2 * jobs) { k, worker in
        guard worker >= 0 && worker < jobs else {
          outside.add(1, ordering: .relaxed)
          return k
        }
        busy.withLock { b in
          if b[worker] { overlaps.add(1, ordering: .relaxed) }
          b[worker] = true
        }
        _ = Self.work(k)
        busy.withLock { $0[worker] = false }
        return k
      } stops: { _ in
        false
      } consume: { k in
        #expect(k == n)
        n += 1
      }
      #expect(n == 400)
      #expect(overlaps.load(ordering: .relaxed) == 0, "jobs \(jobs)")
      #expect(outside.load(ordering: .relaxed) == 0, "jobs \(jobs)")
    }
  }

  @Test("no index is started a window or more past the results handed out")
  func window() {
    for (jobs, ahead) in [(2, 1), (2, 4), (3, 3), (4, 8)] {
      let window = max(jobs, ahead)
      let entered = Atomic<Int>(0)  // consume calls begun
      let far = Atomic<Int>(0)
      Parallel.stream(count: 300, jobs: jobs, ahead: ahead) { k, _ in
        // `k` was started while at most `entered + 1` results were taken out.
        if k >= entered.load(ordering: .sequentiallyConsistent) + 1 + window {
          far.add(1, ordering: .relaxed)
        }
        return Self.work(k)
      } stops: { _ in
        false
      } consume: { _ in
        entered.add(1, ordering: .sequentiallyConsistent)
      }
      #expect(far.load(ordering: .relaxed) == 0, "jobs \(jobs), ahead \(ahead)")
    }
  }

  @Test("a result that stops the stream is the last handed out", arguments: [1, 2, 3, 6])
  func stops(jobs: Int) {
    for stop in [0, 1, 5, 99, 199] {
      var got: [Int] = []
      Parallel.stream(count: 200, jobs: jobs, ahead: 4) { k, _ in
        _ = Self.work(k)
        return k
      } stops: {
        $0 == stop
      } consume: {
        got.append($0)
      }
      #expect(got == Array(0...stop), "jobs \(jobs), stop \(stop)")
    }
  }

  struct Stop: Error, Equatable { let at: Int }

  @Test("a consumer that throws ends the stream with its error, no worker left running")
  func consumerThrows() {
    for jobs in [1, 2, 4] {
      for at in [0, 3, 150] {
        let running = Atomic<Int>(0)
        let after = Atomic<Int>(0)
        var got: [Int] = []
        #expect(throws: Stop(at: at)) {
          try Parallel.stream(count: 400, jobs: jobs, ahead: 3) { k, _ in
            running.add(1, ordering: .sequentiallyConsistent)
            defer { running.subtract(1, ordering: .sequentiallyConsistent) }
            _ = Self.work(k)
            return k
          } stops: { _ in
            false
          } consume: { k in
            got.append(k)
            if k == at { throw Stop(at: at) }
          }
        }
        // Nothing is made once the stream has returned.
        after.store(running.load(ordering: .sequentiallyConsistent), ordering: .relaxed)
        #expect(after.load(ordering: .relaxed) == 0, "jobs \(jobs), at \(at)")
        #expect(got == Array(0...at), "jobs \(jobs), at \(at)")
      }
    }
  }

  @Test("streams inside the thread pool's own threads, many at once, each in order")
  func nested() {
    let wrong = Atomic<Int>(0)
    DispatchQueue.concurrentPerform(iterations: 32) { n in
      var got: [Int] = []
      Parallel.stream(count: 50 + n, jobs: 4, ahead: 4) { k, _ in
        Self.work(k)
      } stops: { _ in
        false
      } consume: {
        got.append($0)
      }
      if got != (0..<(50 + n)).map({ $0 * 31 }) { wrong.add(1, ordering: .relaxed) }
    }
    #expect(wrong.load(ordering: .relaxed) == 0)
  }

  @Test("with two workers, two results are made at the same time")
  func sideBySide() {
    // The first two indices each wait until both have begun: one worker alone would wait for
    // ever (the wait gives up after a minute and the test fails).
    let begun = Atomic<Int>(0)
    let met = Atomic<Int>(0)
    Parallel.stream(count: 2, jobs: 2, ahead: 2) { k, _ in
      begun.add(1, ordering: .sequentiallyConsistent)
      let deadline = DispatchTime.now().uptimeNanoseconds + 60_000_000_000
      while begun.load(ordering: .sequentiallyConsistent) < 2
        && DispatchTime.now().uptimeNanoseconds < deadline
      {
        usleep(100)
      }
      if begun.load(ordering: .sequentiallyConsistent) == 2 { met.add(1, ordering: .relaxed) }
      return k
    } stops: { _ in
      false
    } consume: { _ in
    }
    #expect(met.load(ordering: .relaxed) == 2)
  }
}
