// The swipe-log reader (Sources/DeckIO/EventReader*.swift): JSON Lines, CSV, raw drags, column
// mappings; from memory, from a file and from a pipe (standard input, its format told from its
// first bytes).
//
// Input: one option byte, then (for a mapped log) `columns\u{1}right\u{1}left\0`, then the log.
// Invariants: every way of reading the same bytes gives the same events, counts, rejects and
// error: the fast paths and the general path, every chunk size, memory, file and pipe.

import DeckCore

@testable import DeckIO

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvents(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  var input = FuzzBytes(data, count)
  let option = input.take()
  var options = EventReaderOptions(
    swipeRule: option & 0x08 != 0 ? .cardDeck : .foodMenu,
    zone: FixedUTCOffset(seconds: option & 0x80 != 0 ? 9 * 3600 : 0),
    skipBadLines: option & 0x04 != 0)
  var format: EventFormat? = option & 0x01 != 0 ? .csv : .jsonLines
  if option & 0x02 != 0 {
    // A mapped CSV log: the mapping from the input when it is a valid one, else a fixed one.
    options.columns = mapping(input.takeField(until: 0)) ?? fixedMapping
    format = .csv
  }
  let log = input.bytes
  // How the main run reads the log: from memory, a file or a pipe (standard input, where the
  // format is told from the first bytes unless given).
  let source = (option >> 4) & 3
  let sniffed = source == 2 && option & 0x40 != 0 && options.columns == nil
  if sniffed {
    format = log.withUnsafeBufferPointer { EventFormat.sniff($0, blank: .jsonLines) }
  }
  // One read of the whole log (a large chunk is costly under ASan on every input).
  let whole = max(64, log.count)
  let reference = outcome(log, format!, options, fast: false, chunk: whole, from: 0, nil)
  let chunk = [16, 61, 4096][Int(option >> 6) % 3]
  let runs = [
    outcome(log, format!, options, fast: true, chunk: whole, from: 0, nil),
    outcome(log, format!, options, fast: true, chunk: chunk, from: 0, nil),
    outcome(log, format!, options, fast: false, chunk: chunk, from: 0, nil),
    outcome(log, format!, options, fast: true, chunk: chunk, from: source, sniffed ? nil : format),
  ]
  for (k, run) in runs.enumerated() {
    require(
      run == reference,
      "run \(k) (chunk \(chunk), source \(source)) differs from the general path:\n"
        + "\(String(reflecting: run))\n---\n\(String(reflecting: reference))")
  }
  return 0
}

private let fixedMapping = try! ColumnMapping(
  columns: [.user: "userId", .item: "movieId", .at: "timestamp", .rating: "rating"],
  right: RatingRule(.atLeast, 4), left: RatingRule(.atMost, 2.5))

/// `columns\u{1}right\u{1}left` as a mapping, or nil.
private func mapping(_ spec: [UInt8]?) -> ColumnMapping? {
  guard let spec, let text = String(validating: spec, as: UTF8.self) else { return nil }
  let parts = text.split(separator: "\u{1}", omittingEmptySubsequences: false).map(String.init)
  guard parts.count == 3, let columns = try? ColumnMapping.parseColumns(parts[0]) else {
    return nil
  }
  let right = parts[1].isEmpty ? nil : try? RatingRule.parse(parts[1], label: "--right")
  let left = parts[2].isEmpty ? nil : try? RatingRule.parse(parts[2], label: "--left")
  return try? ColumnMapping(columns: columns, right: right, left: left)
}

/// Everything a run gives, with the file's name left out.
private struct Outcome: Equatable {
  var stats: EventReadStats?
  var error: String?
  var events: [SwipeEvent]
  var rejects: [String]
}

/// `from`: 0 memory, 1 a file, 2 a pipe on standard input; `given` nil: told by the reader.
private func outcome(
  _ log: [UInt8], _ format: EventFormat, _ base: EventReaderOptions, fast: Bool, chunk: Int,
  from: UInt8, _ given: EventFormat?
) -> Outcome {
  final class Rejects { var lines: [String] = [] }
  let rejects = Rejects()
  var options = base
  options.fastPaths = fast
  options.chunkSize = chunk
  let name: String
  options.onReject = { r throws(DeckIOError) in
    rejects.lines.append("\(r.location.line):\(r.location.column ?? 0) \(r.reason) \(r.text)")
  }
  var sink = SwipeEventCollector()
  let reader = EventReader(options: options)
  let result: Result<EventReadStats, DeckIOError>
  switch from {
  case 1:
    name = scratchFile(format == .csv ? "log.csv" : "log.jsonl", log)
    result = Result { () throws(DeckIOError) in
      try reader.read([EventSource(path: name, format: given)], into: &sink)
    }
  case 2:
    name = "<stdin>"
    result = withStandardInput(log) {
      Result { () throws(DeckIOError) in
        try reader.read([EventSource(path: "-", format: given)], into: &sink)
      }
    }
  default:
    name = "memory-input"
    result = Result { () throws(DeckIOError) in
      try reader.read(bytes: log, name: name, format: format, into: &sink)
    }
  }
  var out = Outcome(stats: nil, error: nil, events: sink.events, rejects: rejects.lines)
  switch result {
  case .success(var stats):
    for k in stats.files.indices { stats.files[k].file = "" }
    out.stats = stats
  case .failure(let error):
    out.error = error.description.replacingOccurrences(of: name, with: "LOG")
  }
  return out
}
