import Dispatch
import Synchronization

/// The one progress line of a run on its terminal: redrawn in place (`\r`, the text, clear to
/// the end of the line) at most every `interval` seconds, never before the task has run for
/// `delay` seconds (so a short run prints nothing), erased before any other line is written
/// (`withLineErased`) and when the task ends, and by a signal's cleanup (`RunCleanup`) before
/// the process's last line.
///
/// One task at a time: `begin` replaces the task before it. The counter it returns is what the
/// working threads count on; a timer of the reporter's own (`start()`) reads it and redraws.
/// Every draw and erase happens with the cleanup registry held, then the reporter's own lock
/// (always in this order), so that no frame follows a signal's cleanup.
package final class ProgressReporter: Sendable {
  package struct Configuration: Sendable {
    /// The word before the label: "menudeck".
    package var program: String
    /// Seconds a task runs before its line is first drawn.
    package var delay: Double = 0.5
    /// Seconds between redraws.
    package var interval: Double = 0.1
    /// Writes bytes to the terminal.
    package var write: @Sendable ([UInt8]) -> Void
    /// The terminal's width in columns, asked before each draw (it may be resized); nil: 80.
    package var columns: @Sendable () -> Int? = { nil }
    /// Seconds on a monotonic clock.
    package var clock: @Sendable () -> Double = { monotonicSeconds() }
    /// The descriptor a signal's cleanup erases the line on (nil: none, as in tests).
    package var signalDescriptor: Int32?

    package init(
      program: String, delay: Double = 0.5, interval: Double = 0.1,
      write: @escaping @Sendable ([UInt8]) -> Void,
      columns: @escaping @Sendable () -> Int? = { nil },
      clock: @escaping @Sendable () -> Double = { monotonicSeconds() },
      signalDescriptor: Int32? = nil
    ) {
      self.program = program
      self.delay = delay
      self.interval = interval
      self.write = write
      self.columns = columns
      self.clock = clock
      self.signalDescriptor = signalDescriptor
    }
  }

  /// `\r` and clear to the end of the line: what erases the progress line.
  package static let eraseSequence: [UInt8] = Array("\r\u{1B}[K".utf8)

  private struct Task: Sendable {
    var label: String
    var unit: ProgressUnit
    var counter: ProgressCounter
    var started: Double
    /// (time, units done) at the recent ticks, oldest first: the rate is the one over the last
    /// `rateWindow` seconds, so that a slow start (a log hashed before it is read) does not
    /// weigh on the ETA for the rest of the run.
    var samples: [(time: Double, done: Int)] = []
  }

  /// Seconds of recent work the rate is measured over.
  package static let rateWindow = 5.0
  /// The shortest span a rate is measured over.
  package static let minimumSpan = 0.2

  private struct State: Sendable {
    var task: Task?
    /// Whether a line is on the terminal now.
    var shown = false
    var lastDraw = -Double.infinity
    var timer: Timer?
    var closed = false
    var token: RunCleanup.Token?
  }

  /// The redraw timer; a dispatch source is thread-safe, its protocol only undeclared so.
  private final class Timer: @unchecked Sendable {
    let source: any DispatchSourceTimer
    init(_ source: any DispatchSourceTimer) { self.source = source }
  }

  private let configuration: Configuration
  private let state = Mutex(State())

  package init(_ configuration: Configuration) {
    self.configuration = configuration
  }

  /// Starts the task `label`, counted in `unit`, with `total` units to do (nil: unknown, or
  /// counted later with `addTotal`). Draws at once when `delay` is 0.
  @discardableResult
  package func begin(_ label: String, unit: ProgressUnit, total: Int? = nil) -> ProgressCounter {
    let counter = ProgressCounter(total: total ?? 0)
    let now = configuration.clock()
    locked { state in
      state.task = Task(
        label: label, unit: unit, counter: counter, started: now, samples: [(now, 0)])
      state.lastDraw = -Double.infinity
    }
    tick()
    return counter
  }

  /// Ends the task: its line is erased.
  package func end() {
    locked { state in
      eraseLine(&state)
      state.task = nil
    }
  }

  /// Draws the line if the task has run for `delay` and the last draw is `interval` old.
  package func tick() {
    let now = configuration.clock()
    locked { state in
      guard !state.closed, var task = state.task else { return }
      let done = task.counter.done
      task.samples.append((now, done))
      if let keep = task.samples.firstIndex(where: { now - $0.time <= Self.rateWindow }), keep > 0 {
        task.samples.removeFirst(keep - 1)
      }
      state.task = task
      guard now - task.started >= configuration.delay,
        now - state.lastDraw >= configuration.interval * 0.9 || !state.shown
      else { return }
      // A rate over less than `minimumSpan` seconds would be noise.
      let oldest = task.samples[0]
      let span = now - oldest.time
      let rate = span >= Self.minimumSpan ? Double(done - oldest.done) / span : nil
      let text = ProgressLine.text(
        program: configuration.program, label: task.label, unit: task.unit, done: done,
        total: task.counter.total, rate: rate, columns: configuration.columns() ?? 80)
      configuration.write(Array(("\r" + text + "\u{1B}[K").utf8))
      state.shown = true
      state.lastDraw = now
    }
  }

  /// Runs `body` (which writes a whole line) with the progress line erased first; the line is
  /// drawn again at the next tick.
  package func withLineErased<T>(_ body: () throws -> T) rethrows -> T {
    try RunCleanup.shared.holding { () throws -> T in
      try state.withLock { state in
        eraseLine(&state)
        return try body()
      }
    }
  }

  /// Starts the timer that redraws the line every `interval` seconds, until `close()`, and
  /// registers the line with the signal cleanup.
  package func start() {
    locked { state in
      guard state.timer == nil, !state.closed else { return }
      let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "progress-line"))
      let interval = DispatchTimeInterval.milliseconds(
        max(1, Int((configuration.interval * 1000).rounded())))
      timer.schedule(deadline: .now() + interval, repeating: interval)
      timer.setEventHandler { [self] in tick() }
      timer.resume()
      state.timer = Timer(timer)
      if let fd = configuration.signalDescriptor {
        state.token = RunCleanup.shared.addErasableLine(fd)
      }
    }
  }

  /// Erases the line and stops for good.
  package func close() {
    locked { state in
      eraseLine(&state)
      state.task = nil
      state.closed = true
      state.timer?.source.cancel()
      state.timer = nil
      if let token = state.token {
        RunCleanup.shared.removeErasableLine(token)
        state.token = nil
      }
    }
  }

  /// Whether a line is on the terminal now (for tests).
  package var isShown: Bool { state.withLock { $0.shown } }

  private func eraseLine(_ state: inout State) {
    guard state.shown else { return }
    configuration.write(Self.eraseSequence)
    state.shown = false
  }

  private func locked<T>(_ body: (inout State) -> T) -> T {
    RunCleanup.shared.holding { state.withLock { body(&$0) } }
  }
}
