import DeckBase
import DeckCore
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The two swipe-log formats.
public enum EventFormat: String, Sendable, CaseIterable {
  /// One JSON object per line (`.jsonl`, `.ndjson`, `.json`).
  case jsonLines = "jsonl"
  /// A header row naming the columns, then one event per row (RFC 4180, `.csv`).
  case csv

  /// The format of a log without a name (standard input), from its first bytes: JSON Lines when
  /// its first character after a byte order mark and white space is `{`, CSV otherwise (a header
  /// row). Nothing but white space is `blank` (no events either way; CSV for a reader with a
  /// column mapping, which JSON Lines would refuse).
  public static func sniff(_ head: UnsafeBufferPointer<UInt8>, blank: EventFormat = .jsonLines)
    -> EventFormat
  {
    var i = 0
    if head.count >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF { i = 3 }
    while i < head.count {
      switch head[i] {
      case 0x20, 0x09, 0x0D, 0x0A: i += 1
      case UInt8(ascii: "{"): return .jsonLines
      default: return .csv
      }
    }
    return blank
  }

  /// The format named by a file's extension (case-insensitive), or nil.
  public static func forPath(_ path: String) -> EventFormat? {
    guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
    switch path[path.index(after: dot)...].lowercased() {
    case "jsonl", "ndjson", "json": return .jsonLines
    case "csv": return .csv
    default: return nil
    }
  }
}

/// One swipe log to read: a path (`-` is standard input) and, optionally, its format.
public struct EventSource: Sendable, Equatable {
  public var path: String
  /// nil: from the extension; for standard input, from its first bytes (`EventFormat.sniff`).
  public var format: EventFormat?

  public init(path: String, format: EventFormat? = nil) {
    self.path = path
    self.format = format
  }
}

/// One decoded swipe, handed to an `EventSink`.
///
/// `user` and `item` point into the reader's buffers (already unescaped and valid UTF-8) and are
/// valid only during the `EventSink.event(_:)` call: copy what you keep.
public struct RawEvent {
  public var user: UnsafeBufferPointer<UInt8>
  public var item: UnsafeBufferPointer<UInt8>
  public var swipe: SwipeDirection
  /// Wall-clock seconds since 1970-01-01T00:00 in the configured zone (as `SwipeEvent.at`).
  public var at: Int64
  /// 1-based card position, or 0 when not logged.
  public var position: Int32
  public var deck: DeckDate?
  public var propensity: Double?
  /// The 1-based line of the event's record in its file (for a CSV record that spans several
  /// lines, the line it starts on); 0 when the event did not come from a file.
  public var line: Int

  public init(
    user: UnsafeBufferPointer<UInt8>, item: UnsafeBufferPointer<UInt8>, swipe: SwipeDirection,
    at: Int64, position: Int32 = 0, deck: DeckDate? = nil, propensity: Double? = nil,
    line: Int = 0
  ) {
    self.user = user
    self.item = item
    self.swipe = swipe
    self.at = at
    self.position = position
    self.deck = deck
    self.propensity = propensity
    self.line = line
  }

  /// The local day of the swipe (days since 1970-01-01).
  @inline(__always)
  public var day: Int32 {
    Int32(truncatingIfNeeded: localDay(seconds: at))
  }

  public var userString: String { String(decoding: user, as: UTF8.self) }
  public var itemString: String { String(decoding: item, as: UTF8.self) }

  /// The event as a `SwipeEvent` (allocates two strings).
  public var swipeEvent: SwipeEvent {
    SwipeEvent(
      user: userString, item: itemString, swipe: swipe, at: at,
      position: position > 0 ? Int(position) : nil, deck: deck, propensity: propensity)
  }
}

/// What a sink did with an event.
public enum EventDisposition: Sendable, Equatable {
  case accepted
  /// The item is not in the catalog: counted in `EventFileStats.unknownItemEvents`.
  case unknownItem
}

/// Receives the events of a run, one at a time, in file order.
public protocol EventSink {
  mutating func event(_ e: RawEvent) -> EventDisposition
  /// Called once when a run has read all its files (not after an error). A sink that queues
  /// work finishes it here.
  mutating func finish()
}

extension EventSink {
  public mutating func finish() {}
}

/// A line (or CSV record) that was skipped under `skipBadLines`.
public struct EventReject: Sendable, Equatable {
  /// The error that rejected it; its location has file, line, column and field.
  public var error: DeckIOError
  /// The record exactly as read, without its final line break (`\n` or `\r\n`).
  public var text: [UInt8]

  public init(error: DeckIOError, text: [UInt8]) {
    self.error = error
    self.text = text
  }

  public var location: SourceLocation {
    if case .malformed(let loc, _) = error { return loc }
    return SourceLocation(file: "", line: 0)
  }

  /// What is wrong, with the field but without the location.
  public var reason: String {
    guard case .malformed(let loc, let message) = error else { return error.description }
    if let field = loc.field { return "\(field): \(message)" }
    return message
  }
}

/// Counts for one file of a run.
public struct EventFileStats: Sendable, Equatable {
  public var file: String
  public var format: EventFormat
  public var bytes = 0
  /// Physical lines, including the CSV header and blank lines.
  public var lines = 0
  /// Decoded swipes (right + left), including those whose item is unknown.
  public var events = 0
  public var right = 0
  public var left = 0
  /// Raw drags that did not commit (not swipes, not in `events`).
  public var hesitations = 0
  /// Events whose item the sink did not know (a subset of `events`).
  public var unknownItemEvents = 0
  /// Bad lines skipped under `skipBadLines`.
  public var skippedLines = 0
  /// Rated records whose rating matched neither swipe rule (logs read with a `ColumnMapping`):
  /// not swipes, not in `events`.
  public var neutral = 0
  /// The log has no time column (read with a `ColumnMapping`): its events are all at
  /// 1970-01-01T00:00, so nothing that needs their times (days, a temporal split) is possible.
  public var untimed = false

  public init(file: String, format: EventFormat) {
    self.file = file
    self.format = format
  }
}

/// Counts for a whole run.
public struct EventReadStats: Sendable, Equatable {
  public var files: [EventFileStats] = []
  /// The first distinct unknown item ids, in order of appearance (at most
  /// `EventReadStats.unknownIDLimit`).
  public var unknownItemIDs: [String] = []

  public static let unknownIDLimit = 5

  public init() {}

  private func sum(_ key: KeyPath<EventFileStats, Int>) -> Int {
    files.reduce(0) { $0 + $1[keyPath: key] }
  }
  public var bytes: Int { sum(\.bytes) }
  public var lines: Int { sum(\.lines) }
  public var events: Int { sum(\.events) }
  public var right: Int { sum(\.right) }
  public var left: Int { sum(\.left) }
  public var hesitations: Int { sum(\.hesitations) }
  public var unknownItemEvents: Int { sum(\.unknownItemEvents) }
  public var skippedLines: Int { sum(\.skippedLines) }
  public var neutral: Int { sum(\.neutral) }
  /// Whether any file has no time column.
  public var untimed: Bool { files.contains { $0.untimed } }
}

/// Settings of the event reader.
public struct EventReaderOptions {
  /// Decides raw drags (`dx`, `width`).
  public var swipeRule: SwipeRule
  /// The configured zone: timestamps with `Z` or an offset are converted to its wall clock.
  public var zone: any UTCOffsetProvider
  /// Go on after a bad line (count it and hand it to `onReject`) instead of stopping.
  public var skipBadLines: Bool
  /// Bytes per read(2). Lines longer than this grow the buffer to fit the line.
  public var chunkSize: Int
  /// Called for each skipped line under `skipBadLines`; an error it throws stops the run.
  public var onReject: ((EventReject) throws(DeckIOError) -> Void)?
  /// Foreign CSV logs: their columns and rating rules (nil: menudeck's own columns).
  public var columns: ColumnMapping?
  /// Whether the parser takes its fast paths (`RecordParser.fastPaths`): tests and the fuzz
  /// targets turn them off to compare whole runs with the general path.
  var fastPaths = true

  public init(
    swipeRule: SwipeRule = .foodMenu, zone: any UTCOffsetProvider = FixedUTCOffset.utc,
    skipBadLines: Bool = false, chunkSize: Int = 1 << 18,
    onReject: ((EventReject) throws(DeckIOError) -> Void)? = nil, columns: ColumnMapping? = nil
  ) {
    self.swipeRule = swipeRule
    self.zone = zone
    self.skipBadLines = skipBadLines
    self.chunkSize = chunkSize
    self.onReject = onReject
    self.columns = columns
  }
}

/// The streaming swipe-log reader: JSON Lines and CSV, byte-level, constant memory.
///
/// Files are read in chunks of `chunkSize` bytes; a line that straddles two chunks is moved to the
/// front of the buffer and completed by the next read. Decoded events go straight to an
/// `EventSink`; nothing is collected.
///
/// Rules (both formats):
/// - required: `user`, `item` (non-empty strings), `at`, and either `swipe` (`right`/`left`) or
///   the raw drag `dx` (with `width` under the relative rule); a line with both `swipe` and `dx`
///   is an error, since the two could disagree.
/// - optional: `position` (whole number 1...`maxPosition`), `deck` (YYYY-MM-DD), `propensity`
///   (in (0, 1]), `width` (> 0). JSON `null` or an empty CSV field means "not logged".
/// - unknown fields and columns are ignored; a known field given twice is an error.
/// - lines end with LF or CRLF; a CR that is not part of a CRLF (outside a quoted CSV field) stops
///   the run, even under `skipBadLines`: a file with CR-only line ends would otherwise be read as
///   one line (see `loneCarriageReturnMessage`).
/// - blank lines (only spaces and tabs in JSON Lines, nothing in CSV) are counted in `lines` and
///   otherwise ignored.
/// - a UTF-8 byte order mark at the start of a file is skipped.
public struct EventReader {
  public var options: EventReaderOptions

  /// The largest card position a line may give: the most cards a deck has
  /// (`DeckRules.maxSize`). A larger one is a malformed line (tables by position stay small).
  public static let maxPosition = Int32(DeckRules.maxSize)

  public init(options: EventReaderOptions = EventReaderOptions()) {
    self.options = options
  }

  /// Reads the files in order into `sink`. Throws `DeckIOError.missingFile` for a file that does
  /// not exist, `.io` for one that cannot be read, `.malformed` for the first bad line (unless
  /// `skipBadLines`), and `.invalid` when a format cannot be told from the extension.
  @_specialize(exported:true,where S == HistoryIngest)
  public func read<S: EventSink>(_ sources: [EventSource], into sink: inout S) throws(DeckIOError)
    -> EventReadStats
  {
    var stats = EventReadStats()
    for source in sources {
      if source.path == "-" && source.format == nil {
        // The format from the first bytes, which are then read again.
        var input = SniffedInput(FileInput(fd: 0))
        let format = try input.sniff(
          name: "<stdin>", blank: options.columns == nil ? .jsonLines : .csv)
        let file = try readStream(
          &input, name: "<stdin>", format: format, into: &sink, stats: &stats)
        stats.files.append(file)
        continue
      }
      let format: EventFormat
      if let f = source.format ?? EventFormat.forPath(source.path) {
        format = f
      } else if let kind = FileSystem.kind(of: source.path), kind == .fifo || kind == .other {
        // A pipe without a telling name (`<(zcat log.gz)`): sniffed like standard input, from
        // the one read there is.
        let fd = open(source.path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
          throw .io(path: source.path, message: "cannot open: \(errnoText(lowercased: false))")
        }
        defer { close(fd) }
        var input = SniffedInput(FileInput(fd: fd))
        let format = try input.sniff(
          name: source.path, blank: options.columns == nil ? .jsonLines : .csv)
        let file = try readStream(
          &input, name: source.path, format: format, into: &sink, stats: &stats)
        stats.files.append(file)
        continue
      } else {
        throw .invalid(
          path: source.path,
          message: "cannot tell the format of the swipe log from its name; "
            + "name the file .jsonl, .ndjson, .json or .csv (or pipe it to '-')")
      }
      let fd = try Self.openLog(source.path)
      defer { if fd != 0 { close(fd) } }
      let name = source.path == "-" ? "<stdin>" : source.path
      var input = FileInput(fd: fd)
      let file = try readStream(&input, name: name, format: format, into: &sink, stats: &stats)
      stats.files.append(file)
    }
    sink.finish()
    return stats
  }

  /// The descriptor of a swipe log: 0 for `-` (standard input, not to be closed), else the file
  /// opened for reading (close-on-exec).
  private static func openLog(_ path: String) throws(DeckIOError) -> Int32 {
    guard path != "-" else { return 0 }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 { throw TextInput.openFailure(path: path, what: "swipe log", errno: errno) }
    return fd
  }

  /// The longest record (line, or CSV record with quoted line breaks) the reader holds: memory
  /// stays bounded whatever a file or pipe holds (`/dev/zero` given as a log).
  public static let maxRecordBytes = 1 << 24

  /// Reads one log that can be read only once (standard input `-`, a FIFO, a pipe such as
  /// `<(zcat log.gz)`), in constant memory, hashing its bytes as they are read: `sha256` ends as
  /// the SHA-256 of the whole content. The format is `source.format`, else the name's
  /// extension, else told from the first bytes, as for standard input.
  public func readOnce<S: EventSink>(
    _ source: EventSource, into sink: inout S, sha256: inout SHA256
  ) throws(DeckIOError) -> EventReadStats {
    var stats = EventReadStats()
    let name = source.path == "-" ? "<stdin>" : source.path
    let fd = try Self.openLog(source.path)
    defer { if fd != 0 { close(fd) } }
    let file: EventFileStats
    if let format = source.format ?? (source.path == "-" ? nil : EventFormat.forPath(source.path)) {
      var input = HashingInput(FileInput(fd: fd))
      file = try readStream(&input, name: name, format: format, into: &sink, stats: &stats)
      sha256 = input.hash
    } else {
      var input = SniffedInput(HashingInput(FileInput(fd: fd)))
      let format = try input.sniff(name: name, blank: options.columns == nil ? .jsonLines : .csv)
      file = try readStream(&input, name: name, format: format, into: &sink, stats: &stats)
      sha256 = input.base.hash
    }
    stats.files.append(file)
    sink.finish()
    return stats
  }

  /// Reads one in-memory log (tests, small tools). `name` is used in error locations.
  public func read<S: EventSink>(
    bytes: [UInt8], name: String, format: EventFormat, into sink: inout S
  ) throws(DeckIOError) -> EventReadStats {
    var stats = EventReadStats()
    var input = MemoryInput(bytes: bytes)
    let file = try readStream(&input, name: name, format: format, into: &sink, stats: &stats)
    stats.files.append(file)
    sink.finish()
    return stats
  }

  /// Reads one in-memory log given as text.
  public func read<S: EventSink>(
    text: String, name: String, format: EventFormat, into sink: inout S
  ) throws(DeckIOError) -> EventReadStats {
    try read(bytes: Array(text.utf8), name: name, format: format, into: &sink)
  }

  // MARK: - The streaming loop

  private func readStream<S: EventSink, I: ByteInput>(
    _ input: inout I, name: String, format: EventFormat, into sink: inout S,
    stats: inout EventReadStats
  ) throws(DeckIOError) -> EventFileStats {
    var file = EventFileStats(file: name, format: format)
    if format == .jsonLines, let columns = options.columns {
      throw .invalid(path: name, message: ColumnMapping.jsonLinesRefusal(columns.labels))
    }
    var capacity = max(options.chunkSize, 16)
    var buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    defer { buffer.deallocate() }
    var parser = RecordParser(
      rule: options.swipeRule, zone: options.zone, format: format, mapping: options.columns)
    parser.fastPaths = options.fastPaths
    var filled = 0
    var start = 0
    var eof = false
    var atFileStart = true
    var nextLine = 1

    while true {
      // Refill: keep the unfinished tail, grow only when one record fills the whole buffer.
      if start > 0 {
        if filled > start { memmove(buffer, buffer + start, filled - start) }
        filled -= start
        start = 0
      }
      if filled == capacity {
        guard capacity < EventReader.maxRecordBytes else {
          throw .malformed(
            SourceLocation(file: name, line: nextLine),
            message: "a record of more than \(EventReader.maxRecordBytes >> 20) MiB without a line "
              + "end; a swipe log has one event per line (is this the right file?)")
        }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
        bigger.update(from: buffer, count: filled)
        buffer.deallocate()
        buffer = bigger
        capacity *= 2
      }
      let n = try input.read(into: buffer + filled, count: capacity - filled, name: name)
      if n == 0 { eof = true }
      filled += n
      file.bytes += n
      if atFileStart {
        if filled < 3 && !eof { continue }
        atFileStart = false
        if filled >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF { start = 3 }
      }

      // Records in [start, filled).
      while start < filled {
        let outcome: RecordOutcome
        do {
          outcome = try parser.parse(buffer + start, available: filled - start, eof: eof)
        } catch let failure {
          // The bad record ends at the first line break at or after the failure (past a whole
          // quoted CSV record when the failure is about a value in it).
          guard let end = parser.recordEnd(after: failure, buffer + start, filled - start, eof)
          else { break }  // need more bytes to see where the bad record ends
          let record = UnsafeBufferPointer(start: buffer + start, count: end.consumed)
          let location = failure.location(in: record, file: name, firstLine: nextLine)
          let error = DeckIOError.malformed(location, message: failure.message)
          guard options.skipBadLines && !failure.fatal else { throw error }
          if let cr = end.loneCR {
            // Past the failure, before any line feed, a CR alone: the file may end its lines with
            // CR only, and skipping "the line" would skip all of it. (In a CSV record broken
            // before a quoted field, a CR inside those quotes counts too: the run stops there.)
            let at = LineFailure.loneCarriageReturn(at: cr)
            throw .malformed(
              at.location(in: record, file: name, firstLine: nextLine), message: at.message)
          }
          file.skippedLines += 1
          file.lines += end.lines
          nextLine += end.lines
          start += end.consumed
          if let onReject = options.onReject {
            try onReject(EventReject(error: error, text: trimmedLine(record)))
          }
          continue
        }
        if outcome.kind == .needMore { break }  // the record continues past the buffer
        switch outcome.kind {
        case .event:
          var e = parser.event
          e.line = nextLine
          file.events += 1
          if e.swipe == .right { file.right += 1 } else { file.left += 1 }
          if sink.event(e) == .unknownItem {
            file.unknownItemEvents += 1
            noteUnknown(e.item, in: &stats)
          }
        case .hesitation:
          file.hesitations += 1
        case .neutral:
          file.neutral += 1
        case .blank, .header, .needMore:
          break
        }
        file.lines += outcome.lines
        nextLine += outcome.lines
        start += outcome.consumed
      }
      if eof { break }
    }
    file.untimed = parser.untimed
    return file
  }

  private func noteUnknown(_ item: UnsafeBufferPointer<UInt8>, in stats: inout EventReadStats) {
    guard stats.unknownItemIDs.count < EventReadStats.unknownIDLimit else { return }
    let id = String(decoding: item, as: UTF8.self)
    if !stats.unknownItemIDs.contains(id) { stats.unknownItemIDs.append(id) }
  }
}

/// A record's bytes without its final `\n` or `\r\n`.
private func trimmedLine(_ record: UnsafeBufferPointer<UInt8>) -> [UInt8] {
  var n = record.count
  if n > 0 && record[n - 1] == UInt8(ascii: "\n") { n -= 1 }
  if n > 0 && record[n - 1] == UInt8(ascii: "\r") { n -= 1 }
  return Array(record[0..<n])
}

// MARK: - Inputs

protocol ByteInput {
  /// Reads up to `count` bytes; 0 at the end.
  mutating func read(into: UnsafeMutablePointer<UInt8>, count: Int, name: String)
    throws(DeckIOError) -> Int
}

struct FileInput: ByteInput {
  let fd: Int32

  func read(into p: UnsafeMutablePointer<UInt8>, count: Int, name: String) throws(DeckIOError)
    -> Int
  {
    while true {
      #if canImport(Glibc)
        let n = Glibc.read(fd, p, count)
      #else
        let n = Darwin.read(fd, p, count)
      #endif
      if n >= 0 { return n }
      let code = errno
      if code == EINTR { continue }
      throw .io(path: name, message: "cannot read: \(errnoText(code, lowercased: false))")
    }
  }
}

/// Standard input whose format is told from its first bytes: they are read ahead (up to the
/// first character that is not white space, or 4 KiB) and handed out again before the rest.
struct SniffedInput<Base: ByteInput>: ByteInput {
  private(set) var base: Base
  private var head: [UInt8] = []
  private var served = 0
  private var ended = false

  init(_ base: Base) { self.base = base }

  /// Reads ahead and tells the format (`EventFormat.sniff`).
  mutating func sniff(name: String, blank: EventFormat) throws(DeckIOError) -> EventFormat {
    var chunk = [UInt8](repeating: 0, count: 4096)
    while head.count < 4096 {
      let n = try chunk.withUnsafeMutableBufferPointer { b throws(DeckIOError) in
        try base.read(into: b.baseAddress!, count: 4096 - head.count, name: name)
      }
      if n == 0 {
        ended = true
        break
      }
      head += chunk[0..<n]
      // Enough once a byte other than white space (or a byte order mark) is in.
      if head.contains(where: { ![0x20, 0x09, 0x0D, 0x0A, 0xEF, 0xBB, 0xBF].contains($0) }) {
        break
      }
    }
    return head.withUnsafeBufferPointer { EventFormat.sniff($0, blank: blank) }
  }

  mutating func read(into p: UnsafeMutablePointer<UInt8>, count: Int, name: String)
    throws(DeckIOError) -> Int
  {
    if served < head.count {
      let n = min(count, head.count - served)
      head.withUnsafeBufferPointer { p.update(from: $0.baseAddress! + served, count: n) }
      served += n
      return n
    }
    return ended ? 0 : try base.read(into: p, count: count, name: name)
  }
}

/// An input whose bytes are hashed as they are read (a log that can be read only once).
struct HashingInput<Base: ByteInput>: ByteInput {
  var base: Base
  var hash = SHA256()

  init(_ base: Base) { self.base = base }

  mutating func read(into p: UnsafeMutablePointer<UInt8>, count: Int, name: String)
    throws(DeckIOError) -> Int
  {
    let n = try base.read(into: p, count: count, name: name)
    hash.update(bytes: UnsafeRawBufferPointer(start: p, count: n))
    return n
  }
}

struct MemoryInput: ByteInput {
  let bytes: [UInt8]
  var offset = 0

  mutating func read(into p: UnsafeMutablePointer<UInt8>, count: Int, name: String)
    throws(DeckIOError) -> Int
  {
    let n = min(count, bytes.count - offset)
    bytes.withUnsafeBufferPointer { b in
      if n > 0 { p.update(from: b.baseAddress! + offset, count: n) }
    }
    offset += n
    return n
  }
}
