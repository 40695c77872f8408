import Foundation
import Synchronization
import Testing

@testable import DeckBase

#if canImport(Glibc)
  import Glibc
#endif

/// The text of the progress line: amounts, percentage, rate, ETA, and what goes when the
/// terminal is narrow.
@Suite struct ProgressLineTests {
  static let mib = 1_048_576

  func line(
    _ unit: ProgressUnit = .bytes, done: Int, total: Int?, rate: Double?, columns: Int = 80
  ) -> String {
    ProgressLine.text(
      program: "menudeck", label: "ingest", unit: unit, done: done, total: total, rate: rate,
      columns: columns)
  }

  @Test func bytesWithTotalRateAndETA() {
    // 412.3 of 1024 MiB at 85.2 MiB/s: 611.7 MiB left, 7.18 s, shown rounded up.
    let done = Int(412.3 * Double(Self.mib))
    #expect(
      line(done: done, total: 1024 * Self.mib, rate: 85.2 * Double(Self.mib))
        == "menudeck: ingest  412.3/1024.0 MiB  40%  85.2 MiB/s  ETA 8s")
  }

  @Test func itemsCountInTheirNoun() {
    #expect(
      line(.items("diners"), done: 1200, total: 5000, rate: 400)
        == "menudeck: ingest  1200/5000 diners  24%  400/s  ETA 10s")
    // Below 10 a second, one decimal.
    #expect(
      line(.items("days"), done: 3, total: 60, rate: 2.5)
        == "menudeck: ingest  3/60 days  5%  2.5/s  ETA 23s")
  }

  @Test func noRateYetMeansNoETA() {
    #expect(line(done: 0, total: 10 * Self.mib, rate: nil) == "menudeck: ingest  0.0/10.0 MiB  0%")
    #expect(line(done: 0, total: 10 * Self.mib, rate: 0) == "menudeck: ingest  0.0/10.0 MiB  0%")
  }

  @Test func unknownTotalShowsTheAmountAndRateOnly() {
    #expect(
      line(done: 3 * Self.mib, total: nil, rate: Double(Self.mib))
        == "menudeck: ingest  3.0 MiB  1.0 MiB/s")
  }

  @Test func doneWorkHasNoETAAndNeverPassesAHundredPercent() {
    #expect(
      line(.items("diners"), done: 50, total: 50, rate: 10)
        == "menudeck: ingest  50/50 diners  100%  10/s")
    // More counted than announced: the total follows.
    #expect(
      line(.items("diners"), done: 60, total: 50, rate: 10)
        == "menudeck: ingest  60/60 diners  100%  10/s")
  }

  @Test func narrowTerminalsDropTheRateThenTheAmountThenTheETA() {
    let done = 412 * Self.mib
    let full = line(done: done, total: 1024 * Self.mib, rate: 85.2 * Double(Self.mib))
    #expect(full == "menudeck: ingest  412.0/1024.0 MiB  40%  85.2 MiB/s  ETA 8s")
    func fitted(_ columns: Int) -> String {
      line(done: done, total: 1024 * Self.mib, rate: 85.2 * Double(Self.mib), columns: columns)
    }
    // Never the last column: a line of 59 characters needs 60.
    #expect(fitted(full.count + 1) == full)
    #expect(fitted(full.count) == "menudeck: ingest  412.0/1024.0 MiB  40%  ETA 8s")
    #expect(fitted(40) == "menudeck: ingest  40%  ETA 8s")
    #expect(fitted(28) == "menudeck: ingest  40%")
    #expect(fitted(20) == "menudeck: ingest")
    // Then the text itself is cut, with an ellipsis, to the width.
    #expect(fitted(12) == "menudeck: …")
    for columns in 2...70 {
      #expect(Text.displayWidth(fitted(columns)) <= columns - 1, "\(columns) columns")
    }
  }

  @Test func durations() {
    #expect(ProgressLine.duration(0.2) == "1s")
    #expect(ProgressLine.duration(7) == "7s")
    #expect(ProgressLine.duration(59.5) == "1m00s")
    #expect(ProgressLine.duration(65) == "1m05s")
    #expect(ProgressLine.duration(3600) == "1h00m")
    #expect(ProgressLine.duration(7380) == "2h03m")
    #expect(ProgressLine.duration(.infinity) == "--")
  }
}

/// The reporter with an injected clock and writer: no thread, no wall clock.
@Suite struct ProgressReporterTests {
  /// A clock the test moves, and everything written.
  final class Fixture: Sendable {
    let now = Mutex(100.0)
    let written = Mutex("")
    let columns = Mutex<Int?>(nil)

    func advance(_ seconds: Double) { now.withLock { $0 += seconds } }

    /// The text written since the last call.
    func take() -> String {
      written.withLock { text in
        defer { text = "" }
        return text
      }
    }

    func reporter(delay: Double = 0.5) -> ProgressReporter {
      ProgressReporter(
        ProgressReporter.Configuration(
          program: "menudeck", delay: delay, interval: 0.1,
          write: { bytes in self.written.withLock { $0 += String(decoding: bytes, as: UTF8.self) }
          },
          columns: { self.columns.withLock { $0 } },
          clock: { self.now.withLock { $0 } }))
    }
  }

  static let erase = "\r\u{1B}[K"

  // The clock moves by binary fractions of a second (0.125, 0.25): exact sums, exact rates.

  @Test func nothingIsDrawnBeforeTheDelayThenTheLineIsRedrawnInPlace() {
    let f = Fixture()
    let reporter = f.reporter()
    let counter = reporter.begin("deck", unit: .items("diners"), total: 100)
    for _ in 0..<3 {
      f.advance(0.125)
      counter.add(5)
      reporter.tick()
    }
    #expect(f.take() == "")
    f.advance(0.125)
    counter.add(5)
    reporter.tick()
    // 20 diners in 0.5 s: 40 a second, 80 left.
    #expect(f.take() == "\rmenudeck: deck  20/100 diners  20%  40/s  ETA 2s\u{1B}[K")
    #expect(reporter.isShown)
    reporter.end()
    #expect(f.take() == Self.erase)
    #expect(!reporter.isShown)
    // Nothing more once the task has ended.
    f.advance(1)
    reporter.tick()
    #expect(f.take() == "")
  }

  @Test func redrawsAreThrottledToTheInterval() {
    let f = Fixture()
    let reporter = f.reporter(delay: 0)
    let counter = reporter.begin("deck", unit: .items("diners"), total: 1000)
    #expect(f.take() == "\rmenudeck: deck  0/1000 diners  0%\u{1B}[K")
    var draws = 0
    // A tick every 1/64 s for one second: at most one draw per 0.1 s.
    for _ in 0..<64 {
      f.advance(1.0 / 64)
      counter.add(1)
      reporter.tick()
      if !f.take().isEmpty { draws += 1 }
    }
    #expect(draws >= 9 && draws <= 11, "\(draws) draws")
    reporter.close()
  }

  @Test func theRateIsTheRecentOne() {
    let f = Fixture()
    let reporter = f.reporter(delay: 0)
    let mib = ProgressLineTests.mib
    let counter = reporter.begin("ingest", unit: .bytes, total: 100 * mib)
    // Ten seconds of nothing (a log hashed before it is read), then 10 MiB a second for six.
    for _ in 0..<40 {
      f.advance(0.25)
      reporter.tick()
    }
    for _ in 0..<24 {
      f.advance(0.25)
      counter.add(5 * mib / 2)
      reporter.tick()
    }
    let last = f.take().components(separatedBy: "\r").last ?? ""
    #expect(last == "menudeck: ingest  60.0/100.0 MiB  60%  10.0 MiB/s  ETA 4s\u{1B}[K")
    reporter.close()
  }

  @Test func otherLinesAreWrittenWithTheLineErasedAndItComesBack() {
    let f = Fixture()
    let reporter = f.reporter(delay: 0)
    _ = reporter.begin("deck", unit: .items("diners"), total: 10)
    _ = f.take()
    reporter.withLineErased { f.written.withLock { $0 += "menudeck: warning: w\n" } }
    #expect(f.take() == Self.erase + "menudeck: warning: w\n")
    // Erased already: a second line has nothing to erase.
    reporter.withLineErased { f.written.withLock { $0 += "menudeck: note: n\n" } }
    #expect(f.take() == "menudeck: note: n\n")
    f.advance(0.1)
    reporter.tick()
    #expect(f.take().hasPrefix("\rmenudeck: deck  0/10 diners"))
    reporter.close()
    #expect(f.take() == Self.erase)
    // Closed for good.
    _ = reporter.begin("deck", unit: .items("diners"), total: 10)
    f.advance(1)
    reporter.tick()
    #expect(f.take() == "")
  }

  @Test func theLineFitsTheTerminalWidth() {
    let f = Fixture()
    f.columns.withLock { $0 = 25 }
    let reporter = f.reporter(delay: 0)
    let counter = reporter.begin("ingest", unit: .bytes, total: 1024 * ProgressLineTests.mib)
    counter.add(412 * ProgressLineTests.mib)
    f.advance(0.5)
    reporter.tick()
    let drawn = f.take().components(separatedBy: "\r").last ?? ""
    #expect(drawn == "menudeck: ingest  40%\u{1B}[K")
    reporter.close()
  }

  @Test func countersAddUpAcrossThreads() {
    let counter = ProgressCounter(total: 10)
    DispatchQueue.concurrentPerform(iterations: 8) { _ in
      for _ in 0..<10_000 { counter.add(1) }
    }
    #expect(counter.done == 80_000)
    counter.addTotal(5)
    #expect(counter.total == 15)
    counter.markTotalUnknown()
    #expect(counter.total == nil)
    #expect(ProgressCounter().total == nil)
  }

  @Test func aSignalsCleanupErasesTheRegisteredLine() throws {
    let cleanup = RunCleanup()
    var fds: [Int32] = [-1, -1]
    #expect(pipe(&fds) == 0)
    defer {
      close(fds[0])
      close(fds[1])
    }
    _ = cleanup.addErasableLine(fds[1])
    _ = cleanup.cleanUpForSignal(grace: 0)
    var buffer = [UInt8](repeating: 0, count: 16)
    let n = read(fds[0], &buffer, 16)
    #expect(String(decoding: buffer[0..<max(0, n)], as: UTF8.self) == Self.erase)
  }
}
