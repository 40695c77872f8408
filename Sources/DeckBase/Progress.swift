import Synchronization

/// How much of a long piece of work is done, counted by the threads that do it and read by the
/// thread that draws the progress line. It does no I/O, so the layers below the command line
/// (DeckIO, DeckEvaluation, DeckSimulation, DeckStrategies) take one and count, and never know
/// whether anyone looks.
/// Counting is one relaxed atomic add: cheap enough for a reader's every chunk.
package final class ProgressCounter: Sendable {
  private let doneUnits = Atomic<Int>(0)
  private let totalUnits = Atomic<Int>(0)
  private let unknownTotal = Atomic<Bool>(false)

  package init(total: Int = 0) {
    totalUnits.store(total, ordering: .relaxed)
  }

  /// Counts `units` more done.
  package func add(_ units: Int) {
    doneUnits.wrappingAdd(units, ordering: .relaxed)
  }

  /// Counts `units` more to do (for work whose size its layer learns as it goes).
  package func addTotal(_ units: Int) {
    totalUnits.wrappingAdd(units, ordering: .relaxed)
  }

  /// Says that the total cannot be known (a pipe among the inputs): no percentage or ETA.
  package func markTotalUnknown() {
    unknownTotal.store(true, ordering: .relaxed)
  }

  /// Units done so far.
  package var done: Int { doneUnits.load(ordering: .relaxed) }

  /// Units to do, nil when unknown (none counted, or marked unknown).
  package var total: Int? {
    if unknownTotal.load(ordering: .relaxed) { return nil }
    let total = totalUnits.load(ordering: .relaxed)
    return total > 0 ? total : nil
  }
}

/// What a progress line counts.
package enum ProgressUnit: Sendable, Equatable {
  /// Bytes, shown in MiB.
  case bytes
  /// Things, shown by their plural noun: "diners", "resamples".
  case items(String)
}

/// The text of the one progress line: `menudeck: ingest  412.3/1024.0 MiB  40%  85.2 MiB/s  ETA 7s`.
/// Pure, so that its tests give it the rate and the width.
package enum ProgressLine {
  /// The line for `done` of `total` units, going at `rate` units a second (nil: not known yet),
  /// at most `columns - 1` display columns wide (a terminal may wrap a line that reaches its
  /// last column). When it does not fit, the parts go in this order: the rate, the amount, the
  /// ETA, the percentage; then the line is cut.
  package static func text(
    program: String, label: String, unit: ProgressUnit, done: Int, total: Int?, rate: Double?,
    columns: Int
  ) -> String {
    let done = max(0, done)
    let total = total.map { max($0, done) }
    let head = program.isEmpty ? label : program + ": " + label
    // (text, the rank it is dropped in: the highest first)
    var parts: [(text: String, drop: Int)] = [(amount(done, of: total, unit), 3)]
    if let total, total > 0 { parts.append(("\(min(100, done * 100 / total))%", 1)) }
    if let rate, rate.isFinite, rate > 0 {
      parts.append((self.rate(rate, unit), 4))
      if let total, total > done {
        parts.append(("ETA " + duration(Double(total - done) / rate), 2))
      }
    }
    let limit = max(1, columns - 1)
    func render() -> String { ([head] + parts.map(\.text)).joined(separator: "  ") }
    while !parts.isEmpty, Text.displayWidth(render()) > limit {
      let last = parts.indices.max { parts[$0].drop < parts[$1].drop }!
      parts.remove(at: last)
    }
    let line = render()
    return Text.displayWidth(line) > limit ? Text.truncate(line, limit) : line
  }

  /// "412.3/1024.0 MiB", "1200/5000 diners"; without the total when it is unknown.
  static func amount(_ done: Int, of total: Int?, _ unit: ProgressUnit) -> String {
    switch unit {
    case .bytes:
      return (total.map { mebibytes(done) + "/" + mebibytes($0) } ?? mebibytes(done)) + " MiB"
    case .items(let noun):
      return (total.map { "\(done)/\($0)" } ?? "\(done)") + " " + noun
    }
  }

  /// "85.2 MiB/s"; "830/s" for things (one decimal below 10 a second).
  static func rate(_ perSecond: Double, _ unit: ProgressUnit) -> String {
    switch unit {
    case .bytes:
      return Text.fixed(perSecond / 1_048_576, decimals: 1) + " MiB/s"
    case .items:
      return Text.fixed(perSecond, decimals: perSecond < 10 ? 1 : 0) + "/s"
    }
  }

  /// "7s", "1m05s", "2h03m": whole seconds, rounded up (an ETA of 0s while work is left would
  /// be a lie).
  package static func duration(_ seconds: Double) -> String {
    guard seconds.isFinite, seconds < 360_000 else { return "--" }
    let s = Int(seconds.rounded(.up))
    if s < 60 { return "\(s)s" }
    func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    if s < 3600 { return "\(s / 60)m" + two(s % 60) + "s" }
    return "\(s / 3600)h" + two(s % 3600 / 60) + "m"
  }

  static func mebibytes(_ bytes: Int) -> String {
    Text.fixed(Double(bytes) / 1_048_576, decimals: 1)
  }
}
