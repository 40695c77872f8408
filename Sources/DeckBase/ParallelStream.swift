import Dispatch

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

extension Parallel {
  /// Makes `make(0, _) ... make(count - 1, _)` on up to `jobs` threads and hands each result to
  /// `consume` in index order on the calling thread, as soon as it and those before it are
  /// made. The calling thread is one of the workers: while the next result to hand out is not
  /// ready it makes one itself. At most `ahead` results are made and not yet handed out
  /// (memory), and no index at or after one whose result `stops` says so is started (an error:
  /// the results before it are still handed out, the ones after it that were under way when it
  /// came are dropped).
  ///
  /// `make`'s second argument is the worker (0 is the calling thread, then 1 ..< jobs): a
  /// worker makes one result at a time, so each can own what may not be shared (a strategy
  /// that scores on one thread only). Each result must depend only on its index: then what
  /// `consume` sees is the same for every `jobs`.
  ///
  /// The workers stay up for the whole stream and take the next index as they come free: the
  /// earlier rounds (every worker one batch, then all wait for the slowest and are woken again)
  /// left a core idle on a two-core machine, where the scheduler queued the woken worker on the
  /// busy core while the writer's core went idle. When `consume` throws, the workers finish
  /// what they are making and the error is rethrown.
  package static func stream<T: Sendable>(
    count: Int, jobs: Int, ahead: Int,
    make: @escaping @Sendable (_ index: Int, _ worker: Int) -> T,
    stops: @escaping @Sendable (T) -> Bool,
    consume: (T) throws -> Void
  ) rethrows {
    guard count > 0 else { return }
    let workers = max(1, min(jobs, count))
    if workers == 1 {
      for k in 0..<count {
        let result = make(k, 0)
        try consume(result)
        if stops(result) { return }
      }
      return
    }
    let state = StreamState<T>(count: count, window: max(workers, ahead))
    for worker in 1..<workers {
      DispatchQueue.global().async {
        state.help(worker: worker, make: make, stops: stops)
      }
    }
    // Waits for the helpers that are making a result, not for those not started yet: a helper
    // that starts after the end finds nothing to make, so the stream never depends on the
    // thread pool having a thread free (this thread may be one of the pool's).
    defer { state.finish() }
    while let result = state.next(make: make, stops: stops) {
      try consume(result)
    }
  }
}

/// The state of one `Parallel.stream`: the next index to start, the next to hand out, the
/// results made and not handed out (a ring of `window`), under one lock with three conditions
/// (a result ready for the calling thread; room in the window for a helper; no helper left
/// inside). A helper holds it until it leaves, so it outlives the stream when a helper starts
/// late.
private final class StreamState<T: Sendable>: @unchecked Sendable {
  private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let ready = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  private let room = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  private var slots: [T?]
  private let window: Int
  /// The next index to start and the next to hand out.
  private var started = 0
  private var handed = 0
  /// No index from here on is started (`count`, or one past a result that `stops`, or where
  /// the calling thread stopped).
  private var limit: Int
  /// Helpers waiting for room.
  private var waiting = 0
  /// Helpers inside `help`, and the condition that the last one to leave signals.
  private var active = 0
  private let idle = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

  init(count: Int, window: Int) {
    self.window = window
    limit = count
    slots = Array(repeating: nil, count: window)
    pthread_mutex_init(lock, nil)
    pthread_cond_init(ready, nil)
    pthread_cond_init(room, nil)
    pthread_cond_init(idle, nil)
  }

  deinit {
    pthread_cond_destroy(idle)
    idle.deallocate()
    pthread_cond_destroy(room)
    pthread_cond_destroy(ready)
    pthread_mutex_destroy(lock)
    room.deallocate()
    ready.deallocate()
    lock.deallocate()
  }

  /// Stores the result of index `k` (made outside the lock); the lock is held.
  private func store(_ result: T, at k: Int, stops: (T) -> Bool) {
    guard k < limit else { return }  // after a stop: dropped
    slots[k % window] = result
    if stops(result) && k + 1 < limit {
      limit = k + 1
      if waiting > 0 { pthread_cond_broadcast(room) }
    }
    if k == handed { pthread_cond_signal(ready) }
  }

  /// The calling thread: the next result in order (made by itself when it is not ready and
  /// there is an index to start), nil when every result is handed out.
  func next(make: (Int, Int) -> T, stops: (T) -> Bool) -> T? {
    pthread_mutex_lock(lock)
    defer { pthread_mutex_unlock(lock) }
    while handed < limit {
      if let result = slots[handed % window] {
        slots[handed % window] = nil
        handed += 1
        if waiting > 0 { pthread_cond_broadcast(room) }
        return result
      }
      if started < limit && started < handed + window {
        let k = started
        started += 1
        pthread_mutex_unlock(lock)
        let result = make(k, 0)
        pthread_mutex_lock(lock)
        store(result, at: k, stops: stops)
      } else {
        // A helper is making the result of `handed`: it signals when it is stored.
        pthread_cond_wait(ready, lock)
      }
    }
    return nil
  }

  /// A helper: makes the next index to start until there is none, waiting while the window is
  /// full.
  func help(worker: Int, make: (Int, Int) -> T, stops: (T) -> Bool) {
    pthread_mutex_lock(lock)
    active += 1
    defer {
      active -= 1
      if active == 0 { pthread_cond_broadcast(idle) }
      pthread_mutex_unlock(lock)
    }
    while started < limit {
      if started >= handed + window {
        waiting += 1
        pthread_cond_wait(room, lock)
        waiting -= 1
        continue
      }
      let k = started
      started += 1
      pthread_mutex_unlock(lock)
      let result = make(k, worker)
      pthread_mutex_lock(lock)
      store(result, at: k, stops: stops)
    }
  }

  /// The calling thread is done (every result handed out, or `consume` threw): nothing more
  /// is started, the helpers waiting for room leave, and this returns when no helper is
  /// making a result any more.
  func finish() {
    pthread_mutex_lock(lock)
    limit = min(limit, started)
    pthread_cond_broadcast(room)
    while active > 0 { pthread_cond_wait(idle, lock) }
    pthread_mutex_unlock(lock)
  }
}
