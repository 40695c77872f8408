import DeckBase
import DeckCore

/// One swipe log read on several threads: the file cut into parts at record boundaries, each
/// part read by a reader of its own into a snapshot, the snapshots merged by the one snapshot
/// merge (`HistorySnapshot.merge`). The result is the serial reader's: the same aggregation,
/// counts, unknown dishes, rejected lines in order and first error.
///
/// Where the cuts are:
/// - JSON Lines: after a line feed. A JSON string cannot hold a raw line feed, so every line
///   feed ends a record, and the reader starts again after one when a line is bad.
/// - CSV: after a line feed outside quotes. A quoted field doubles its quotes, so outside quotes
///   is where the number of `"` bytes before the line feed is even; the reader refuses a quote
///   anywhere else (inside an unquoted field, or text after a closing quote). That rule is exact
///   for a file whose records are all valid. A part that has a bad record (refused, or skipped
///   under `skipBadLines`) may have moved the real boundaries, so the parts after it are read
///   again by one reader from that part's start, which is a real boundary (everything before
///   it was valid): exact either way, and slower only for such a file.
/// - Every part after the first is read after the file's CSV header (the bytes up to the end of
///   the first record, parsed but not counted), with its line numbers continuing the file's.
///
/// Cost beside the parsing: one `memchr` pass over the file for the line feeds before each part
/// (their line numbers), and for CSV one for the quotes before each cut, both in parallel.
///
/// Memory: one aggregation per part (as many parts as workers, for snapshots) before the merge,
/// so it grows with the number of workers times the distinct (diner, dish) pairs of a part.
extension EventReader {
  /// Parts are at least this long; a smaller file is read on one thread.
  package static let minimumPartBytes = 1 << 22

  /// Parts per thread of a log read into buckets by diner (`readInParts(partsPerWorker:)`).
  package static let partsPerWorker = 4

  /// What reading a log into a snapshot gave.
  package struct SnapshotRead: Sendable {
    /// The log's swipes: those on or after the cutoff pending (`snapshot.pending`).
    package var snapshot: HistorySnapshot
    package var stats: EventReadStats
    /// The line of the first swipe on or after the cutoff (0 when none).
    package var firstPendingLine: Int
    /// How many parts the file was read in (1: serially).
    package var parts: Int
  }

  /// What reading a log in parts gave: each part's result, in file order (the parts after a
  /// CSV part with a bad record are one part, read again; see above), and the file's counts.
  package struct PartsRead<Result> {
    package var results: [Result]
    package var stats: EventReadStats
    /// How many parts the file was read in (1: serially).
    package var parts: Int
  }

  /// Reads the regular file `path` (format `format`) into a snapshot on up to `jobs` threads;
  /// swipes on or after `cutoff` are pending, and those of dishes `catalog` does not have (when
  /// given) are counted as unknown, with the first one's line. `options.onReject` is called on
  /// this thread, in file order.
  package func readSnapshot(
    path: String, name: String? = nil, format: EventFormat, cutoff: DeckDate?,
    catalog: Catalog? = nil, jobs: Int, minimumPartBytes: Int = EventReader.minimumPartBytes
  ) throws(DeckIOError) -> SnapshotRead {
    let read = try readInParts(
      path: path, name: name, format: format, jobs: jobs, minimumPartBytes: minimumPartBytes,
      sink: { SnapshotIngest(cutoff: cutoff, catalog: catalog) },
      // Each part's snapshot is built by its worker.
      finish: { ingest in (ingest.builder.build(), ingest.firstPendingLine) })
    var snapshot = HistorySnapshot.empty
    var firstPendingLine = 0
    for (k, (part, line)) in read.results.enumerated() {
      // Parts come in file order, with the file's line numbers.
      if firstPendingLine == 0 { firstPendingLine = line }
      do {
        snapshot = k == 0 ? part : try HistorySnapshot.merge(snapshot, part)
      } catch {
        throw .invalid(path: name ?? path, message: "\(error)")
      }
    }
    return SnapshotRead(
      snapshot: snapshot, stats: read.stats, firstPendingLine: firstPendingLine,
      parts: read.parts)
  }

  /// Reads the regular file `path` (format `format`) on up to `jobs` threads: each part into a
  /// sink of its own (`sink()`), which its worker turns into the part's result (`finish`); the
  /// caller adds the results up in order. `options.onReject` is called on this thread, in file
  /// order. `sink` and `finish` run on the workers, each call on its own values.
  /// `partsPerWorker` parts per thread (each at least `minimumPartBytes`): more than one evens
  /// out the threads, which take the next part as they come free, where each part's result is
  /// cheap to add up (buckets by diner); one where the results are merged at a cost (snapshots).
  package func readInParts<S: EventSink, R>(
    path: String, name: String? = nil, format: EventFormat, jobs: Int, partsPerWorker: Int = 1,
    minimumPartBytes: Int = EventReader.minimumPartBytes, sink: @escaping () -> S,
    finish: @escaping (inout S) -> R
  ) throws(DeckIOError) -> PartsRead<R> {
    let name = name ?? path
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 { throw TextInput.openFailure(path: path, what: "swipe log", errno: errno) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      throw .io(path: name, message: "cannot read: \(errnoText(lowercased: false))")
    }
    let size = Int(info.st_size)
    let file = PartFile(fd: fd, name: name)
    var cuts = [0]
    if (info.st_mode & S_IFMT) == S_IFREG && jobs > 1 && size >= 2 * max(1, minimumPartBytes) {
      cuts = try Self.cuts(
        file, size: size,
        parts: min(jobs * max(1, partsPerWorker), size / max(1, minimumPartBytes)),
        format: format, jobs: jobs)
    }
    var header = 0
    if format == .csv && cuts.count > 1 && options.csvHeader == nil {
      // No header record before the first cut: one part.
      if let end = try Self.csvHeaderEnd(file, before: cuts[1]) {
        header = end
      } else {
        cuts = [0]
      }
    }
    let work = PartWork(make: sink, finish: finish)
    return try readParts(
      file, cuts, size: size, format: format, header: header, jobs: jobs, work)
  }

  /// One part's outcome, made by one worker and read after they all finished.
  private struct Part<R>: @unchecked Sendable {
    var file: EventFileStats
    var unknownIDs: [String]
    var rejects: [EventReject]
    var error: DeckIOError?
    /// The part's result, made by its worker (nil after an error).
    var result: R?
  }

  /// How a part's events are taken and what a part gives (shared by the workers: each call
  /// works on values of its own).
  private struct PartWork<S: EventSink, R>: @unchecked Sendable {
    let make: () -> S
    let finish: (inout S) -> R
  }

  private func readParts<S: EventSink, R>(
    _ file: PartFile, _ cuts: [Int], size: Int, format: EventFormat, header: Int, jobs: Int,
    _ work: PartWork<S, R>
  ) throws(DeckIOError) -> PartsRead<R> {
    // Line numbers where the parts start.
    let newlines = Parallel.map(count: cuts.count, jobs: jobs) { k in
      Result { () throws(DeckIOError) -> Int in
        try file.count(
          UInt8(ascii: "\n"), from: cuts[k], to: k + 1 < cuts.count ? cuts[k + 1] : size)
      }
    }
    var firstLines: [Int] = []
    var line = 1
    for result in newlines {
      firstLines.append(line)
      line += try result.get()
    }
    let prelude: [UInt8] = header > 0 ? try file.bytes(from: 0, to: header) : []
    let preludeLines = prelude.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    let shared = SharedReader(reader: self)
    let starts = firstLines
    let parts = Parallel.map(count: cuts.count, jobs: jobs) { k in
      shared.reader.readPart(
        file, from: cuts[k], to: k + 1 < cuts.count ? cuts[k + 1] : size, format: format,
        firstLine: starts[k], prelude: k == 0 ? [] : prelude, preludeLines: preludeLines, work)
    }
    var stats = EventReadStats()
    var total = EventFileStats(file: file.name, format: format)
    var results: [R] = []
    for (k, part) in parts.enumerated() {
      // CSV: a part with a bad record may have moved the boundaries after it (see above).
      // (A refused record needs no second reading: everything before it in the part was read
      // as the serial reader reads it, so it is the serial reader's first error.)
      let redo = format == .csv && k + 1 < parts.count && !part.rejects.isEmpty
      let result =
        redo
        ? readPart(
          file, from: cuts[k], to: size, format: format, firstLine: firstLines[k],
          prelude: k == 0 ? [] : prelude, preludeLines: preludeLines, work)
        : part
      for reject in result.rejects { try options.onReject?(reject) }
      add(result, to: &total, &stats)
      if let error = result.error { throw error }
      results.append(result.result!)
      if redo { break }
    }
    stats.files.append(total)
    return PartsRead(results: results, stats: stats, parts: results.count)
  }

  private func add<R>(
    _ part: Part<R>, to total: inout EventFileStats, _ stats: inout EventReadStats
  ) {
    let f = part.file
    total.bytes += f.bytes
    total.lines += f.lines
    total.events += f.events
    total.right += f.right
    total.left += f.left
    total.hesitations += f.hesitations
    // Parts come in file order, with the file's line numbers: the first part that has one holds
    // the file's first.
    if total.firstUnknownItemLine == 0 { total.firstUnknownItemLine = f.firstUnknownItemLine }
    total.unknownItemEvents += f.unknownItemEvents
    if total.firstSkippedLine == 0 { total.firstSkippedLine = f.firstSkippedLine }
    total.skippedLines += f.skippedLines
    total.neutral += f.neutral
    total.untimed = total.untimed || f.untimed
    for id in part.unknownIDs
    where stats.unknownItemIDs.count < EventReadStats.unknownIDLimit
      && !stats.unknownItemIDs.contains(where: { IDKey.same($0, id) })
    {
      stats.unknownItemIDs.append(id)
    }
  }

  /// Reads bytes `start..<end` of `file` (after `prelude`) with a reader and a zone of its own.
  private func readPart<S: EventSink, R>(
    _ file: PartFile, from start: Int, to end: Int, format: EventFormat, firstLine: Int,
    prelude: [UInt8], preludeLines: Int, _ work: PartWork<S, R>
  ) -> Part<R> {
    let rejects = RejectList()
    var options = self.options
    options.zone = options.zone.forAnotherThread()
    // Never the caller's handler on a worker: the part's rejects are handed on in order.
    options.onReject =
      options.skipBadLines
      ? { reject throws(DeckIOError) in rejects.items.append(reject) } : nil
    let reader = EventReader(options: options)
    var sink = work.make()
    var stats = EventReadStats()
    var input = PartInput(file: file, offset: start, end: end, prelude: prelude)
    var part = Part<R>(
      file: EventFileStats(file: file.name, format: format), unknownIDs: [], rejects: [],
      error: nil, result: nil)
    do {
      part.file = try reader.readStream(
        &input, name: file.name, format: format, into: &sink, stats: &stats,
        firstLine: firstLine, atFileStart: start == 0,
        prelude: (prelude.count, prelude.isEmpty ? 0 : preludeLines))
      sink.finish()
      part.result = work.finish(&sink)
    } catch {
      part.error = error
    }
    part.unknownIDs = stats.unknownItemIDs
    part.rejects = rejects.items
    return part
  }

  /// Where the parts start: 0, then after the first record boundary at or after each of
  /// `parts - 1` evenly spaced offsets (fewer when two would coincide).
  private static func cuts(
    _ file: PartFile, size: Int, parts: Int, format: EventFormat, jobs: Int
  ) throws(DeckIOError) -> [Int] {
    guard parts > 1 else { return [0] }
    let targets = (1..<parts).map { size / parts * $0 }
    var parity = [Int](repeating: 0, count: targets.count)
    if format == .csv {
      // Quotes before each target, counted in parallel segments.
      let counts = Parallel.map(count: targets.count, jobs: jobs) { k in
        Result { () throws(DeckIOError) -> Int in
          try file.count(UInt8(ascii: "\""), from: k == 0 ? 0 : targets[k - 1], to: targets[k])
        }
      }
      var sum = 0
      for (k, c) in counts.enumerated() {
        sum += try c.get()
        parity[k] = sum & 1
      }
    }
    var cuts = [0]
    for (k, target) in targets.enumerated() {
      guard let cut = try file.boundary(after: target, quoted: parity[k] == 1, csv: format == .csv)
      else { break }
      if cut > cuts.last! && cut < size { cuts.append(cut) }
    }
    return cuts
  }

  /// The end of the CSV header record (after its line feed), when it ends before `limit`: past a
  /// byte order mark and blank lines, the first line feed outside quotes. Reads the file's
  /// start in growing windows (64 KiB first: a header is one line), not the whole first part.
  private static func csvHeaderEnd(_ file: PartFile, before limit: Int) throws(DeckIOError)
    -> Int?
  {
    var window = min(limit, 1 << 16)
    while true {
      let head = try file.bytes(from: 0, to: window)
      if let end = headerEnd(in: head) { return end }
      guard window < limit, head.count == window else { return nil }
      window = min(limit, window * 4)
    }
  }

  /// `csvHeaderEnd` within `head`, nil when the header does not end in it.
  private static func headerEnd(in head: [UInt8]) -> Int? {
    var i = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    while i < head.count,
      head[i] == UInt8(ascii: "\n")
        || (head[i] == UInt8(ascii: "\r")
          && i + 1 < head.count && head[i + 1] == UInt8(ascii: "\n"))
    {
      i += head[i] == UInt8(ascii: "\n") ? 1 : 2
    }
    var quoted = false
    while i < head.count {
      if head[i] == UInt8(ascii: "\"") { quoted.toggle() }
      if head[i] == UInt8(ascii: "\n") && !quoted { return i + 1 }
      i += 1
    }
    return nil
  }
}

/// The reader, shared read-only by the workers (each part makes its own reader from its
/// options; a part never calls the caller's `onReject`).
private struct SharedReader: @unchecked Sendable {
  let reader: EventReader
}

/// A part's rejected lines, kept for the caller to see in order.
private final class RejectList: @unchecked Sendable {
  var items: [EventReject] = []
}

/// A file read with pread(2) at offsets: one descriptor shared by the workers.
private struct PartFile: Sendable {
  let fd: Int32
  let name: String

  /// Reads up to `count` bytes at `offset`; 0 at the end of the file.
  func read(into p: UnsafeMutablePointer<UInt8>, count: Int, at offset: Int) throws(DeckIOError)
    -> Int
  {
    while true {
      let n = pread(fd, p, count, off_t(offset))
      if n >= 0 { return n }
      if errno == EINTR { continue }
      throw .io(path: name, message: "cannot read: \(errnoText(lowercased: false))")
    }
  }

  func bytes(from start: Int, to end: Int) throws(DeckIOError) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: max(0, end - start))
    var done = 0
    while done < out.count {
      let n = try out.withUnsafeMutableBufferPointer { b throws(DeckIOError) in
        try read(into: b.baseAddress! + done, count: b.count - done, at: start + done)
      }
      if n == 0 { break }
      done += n
    }
    return Array(out[0..<done])
  }

  /// How many `byte`s are in `start..<end`.
  func count(_ byte: UInt8, from start: Int, to end: Int) throws(DeckIOError) -> Int {
    let size = 1 << 20
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
    defer { buffer.deallocate() }
    var total = 0
    var at = start
    while at < end {
      let n = try read(into: buffer, count: min(size, end - at), at: at)
      if n == 0 { break }
      var p = UnsafeRawPointer(buffer)
      let stop = UnsafeRawPointer(buffer + n)
      while p < stop, let hit = memchr(p, Int32(byte), stop - p) {
        total += 1
        p = UnsafeRawPointer(hit) + 1
      }
      at += n
    }
    return total
  }

  /// The offset after the first line feed at or after `start` that ends a record: any line
  /// feed, or for CSV one outside quotes (`quoted`: inside quotes at `start`). nil at the end.
  func boundary(after start: Int, quoted: Bool, csv: Bool) throws(DeckIOError) -> Int? {
    let size = 1 << 16
    let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
    defer { buffer.deallocate() }
    var inQuotes = quoted
    var at = start
    while true {
      let n = try read(into: buffer, count: size, at: at)
      if n == 0 { return nil }
      for k in 0..<n {
        let c = buffer[k]
        if csv && c == UInt8(ascii: "\"") { inQuotes.toggle() }
        if c == UInt8(ascii: "\n") && !inQuotes { return at + k + 1 }
      }
      at += n
    }
  }
}

/// Bytes `offset..<end` of a file, after `prelude`.
private struct PartInput: ByteInput {
  let file: PartFile
  var offset: Int
  let end: Int
  let prelude: [UInt8]
  var served = 0

  init(file: PartFile, offset: Int, end: Int, prelude: [UInt8]) {
    self.file = file
    self.offset = offset
    self.end = end
    self.prelude = prelude
  }

  mutating func read(into p: UnsafeMutablePointer<UInt8>, count: Int, name: String)
    throws(DeckIOError) -> Int
  {
    if let n = serve(prelude, &served, into: p, count: count) { return n }
    guard offset < end else { return 0 }
    let n = try file.read(into: p, count: min(count, end - offset), at: offset)
    offset += n
    return n
  }
}
