import DeckBase
import DeckCore
import Foundation

/// The two swipe-log formats.
package enum EventFormat: String, Sendable, CaseIterable {
  /// One JSON object per line (`.jsonl`, `.ndjson`, `.json`).
  case jsonLines = "jsonl"
  /// A header row naming the columns, then one event per row (RFC 4180, `.csv`).
  case csv

  /// The format of a log without a name (standard input), from its first bytes: JSON Lines when
  /// its first character after a byte order mark and white space is `{`, CSV otherwise (a header
  /// row). Nothing but white space is `blank` (no events either way; CSV for a reader with a
  /// column mapping, which JSON Lines would refuse).
  package static func sniff(_ head: UnsafeBufferPointer<UInt8>, blank: EventFormat = .jsonLines)
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
  package static func forPath(_ path: String) -> EventFormat? {
    guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
    switch path[path.index(after: dot)...].lowercased() {
    case "jsonl", "ndjson", "json": return .jsonLines
    case "csv": return .csv
    default: return nil
    }
  }

  /// A compression of swipe logs: its name and the command that writes a log out uncompressed.
  package typealias Compression = (name: String, decompress: String)

  /// The compression a log's name says it has (`.gz`, `.bz2`, `.xz`, `.zst`, any case); nil
  /// for any other name.
  package static func compression(ofPath path: String) -> Compression? {
    guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
    switch path[path.index(after: dot)...].lowercased() {
    case "gz": return ("gzip", "zcat")
    case "bz2": return ("bzip2", "bzcat")
    case "xz": return ("xz", "xzcat")
    case "zst": return ("zstd", "zstdcat")
    default: return nil
    }
  }

  /// The bytes `compression(ofBytes:)` needs to tell every compression it knows.
  package static let magicLength = 10

  /// The compression whose magic number starts `head` (gzip, bzip2, xz, zstd), whatever the
  /// name: none of them starts like text (each has a byte that is not UTF-8, or, for bzip2,
  /// ten bytes no log starts with). Nil when `head` is too short to tell.
  package static func compression(ofBytes head: UnsafeBufferPointer<UInt8>) -> Compression? {
    func starts(_ magic: [UInt8]) -> Bool {
      head.count >= magic.count && zip(head, magic).allSatisfy { $0 == $1 }
    }
    if starts([0x1F, 0x8B]) { return ("gzip", "zcat") }
    if starts([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return ("xz", "xzcat") }
    if starts([0x28, 0xB5, 0x2F, 0xFD]) { return ("zstd", "zstdcat") }
    if head.count >= 10, starts([0x42, 0x5A, 0x68]), (0x31...0x39).contains(head[3]),
      starts([0x42, 0x5A, 0x68, head[3], 0x31, 0x41, 0x59, 0x26, 0x53, 0x59])
    {
      return ("bzip2", "bzcat")
    }
    return nil
  }

  /// What to run instead of a command that reads a compressed log: given the log's name as
  /// the reader names it (`<stdin>` for standard input) and its compression, the words after
  /// "menudeck reads logs uncompressed; ". The command line knows the command that was run
  /// (`RunSettings`); this default, for readers without one, pipes into `menudeck deck`.
  package typealias CompressedLogAdvice =
    @Sendable (_ name: String, _ compression: Compression) -> String

  /// The advice without a command line: pipe the log into `menudeck deck --history -`.
  package static let pipeIntoDeck: CompressedLogAdvice = { name, compression in
    let source = name == "<stdin>" ? "LOG" : TextLayout.shellWord(name)
    return "pipe it through \(compression.decompress) and give '-' for the log: "
      + "\(compression.decompress) \(source) | menudeck deck --history -"
  }

  /// What to say of a compressed log (`name` as the messages name it; `<stdin>` for standard
  /// input): menudeck reads logs uncompressed, so the log is decompressed into standard input
  /// (`-`, told JSON Lines or CSV by its first bytes), as `advice` says. `despiteName`: the
  /// bytes said so though the name says JSON Lines or CSV.
  package static func compressedLogMessage(
    name: String, _ compression: Compression, despiteName: Bool,
    advice: CompressedLogAdvice = pipeIntoDeck
  ) -> String {
    let despite = despiteName && name != "<stdin>" ? ", whatever its name says" : ""
    return
      "the swipe log is compressed (\(compression.name)\(despite)) and menudeck reads logs "
      + "uncompressed; " + advice(name, compression)
  }
}

/// One swipe log to read: a path (`-` is standard input) and, optionally, its format.
package struct EventSource: Sendable, Equatable {
  package var path: String
  /// nil: from the extension; for standard input, from its first bytes (`EventFormat.sniff`).
  package var format: EventFormat?

  package init(path: String, format: EventFormat? = nil) {
    self.path = path
    self.format = format
  }
}

/// Settings of the event reader.
package struct EventReaderOptions {
  /// What the message about a compressed log tells to run instead (the command that was run,
  /// with the log decompressed into it: "zcat log.gz | menudeck stats -").
  package var compressedLogAdvice: EventFormat.CompressedLogAdvice = EventFormat.pipeIntoDeck
  /// Decides raw drags (`dx`, `width`).
  package var swipeRule: SwipeRule
  /// The configured zone: timestamps with `Z` or an offset are converted to its wall clock.
  package var zone: any UTCOffsetProvider
  /// Go on after a bad line (count it and hand it to `onReject`) instead of stopping.
  package var skipBadLines: Bool
  /// Bytes per read(2). Lines longer than this grow the buffer to fit the line.
  package var chunkSize: Int
  /// Called for each skipped line under `skipBadLines`; an error it throws stops the run.
  package var onReject: ((EventReject) throws(DeckIOError) -> Void)?
  /// Foreign CSV logs: their columns and rating rules (nil: menudeck's own columns).
  package var columns: ColumnMapping?
  /// What separates the fields of CSV logs (and of `csvHeader`).
  package var csvDelimiter = CSVDelimiter.comma
  /// Whether the parser takes its fast paths (`RecordParser.fastPaths`): tests and the fuzz
  /// targets turn them off to compare whole runs with the general path.
  var fastPaths = true
  /// The header record of CSV logs that have none (`--csv-header`: the partitions of a split
  /// log): read before each CSV log's first byte and counted in no line or byte, so the log's
  /// first line is data and line 1. It also makes a log without a telling name CSV.
  package var csvHeader: [UInt8]? = nil
  /// Whether `read(_:into:)` hashes every log's bytes as it reads them (SHA-256 into
  /// `EventFileStats.sha256`), for run headers: the same pass, not a second read.
  package var hashing = false
  /// Counts the bytes of the logs as they are read (the progress line of the command line);
  /// shared by the threads that read parts of a log.
  package var progress: ProgressCounter? = nil

  /// The format of a log without a telling name, from its first bytes (`head`).
  package func format(sniffing head: UnsafeBufferPointer<UInt8>) -> EventFormat {
    csvHeader != nil ? .csv : EventFormat.sniff(head, blank: columns == nil ? .jsonLines : .csv)
  }

  package init(
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
///   and `prefix_propensity` (each in (0, 1]), `width` (> 0). JSON `null` or an empty CSV field
///   means "not logged".
/// - unknown fields and columns are ignored; a known field given twice is an error.
/// - lines end with LF or CRLF; a CR that is not part of a CRLF (outside a quoted CSV field) stops
///   the run, even under `skipBadLines`: a file with CR-only line ends would otherwise be read as
///   one line (see `loneCarriageReturnMessage`).
/// - blank lines (only spaces and tabs in JSON Lines, nothing in CSV) are counted in `lines` and
///   otherwise ignored.
/// - a UTF-8 byte order mark at the start of a file is skipped.
package struct EventReader {
  package var options: EventReaderOptions

  /// The largest card position a line may give: the most cards a deck has
  /// (`DeckRules.maxSize`). A larger one is a malformed line (tables by position stay small).
  package static let maxPosition = Int32(DeckRules.maxSize)

  package init(options: EventReaderOptions = EventReaderOptions()) {
    self.options = options
  }

  /// Reads the files in order into `sink`. Throws `DeckIOError.missingFile` for a file that does
  /// not exist, `.io` for one that cannot be read, `.malformed` for the first bad line (unless
  /// `skipBadLines`), and `.invalid` when a format cannot be told from the extension.
  @_specialize(exported:true,where S == HistoryIngest)
  package func read<S: EventSink>(_ sources: [EventSource], into sink: inout S)
    throws(DeckIOError) -> EventReadStats
  {
    var stats = EventReadStats()
    for source in sources {
      if source.path == "-" && source.format == nil {
        // The format from the first bytes, which are then read again.
        let file = try readFile(
          FileInput(fd: 0), name: "<stdin>", format: nil, into: &sink, stats: &stats)
        stats.files.append(file)
        continue
      }
      let kind = FileSystem.kind(of: source.path)
      if kind == .directory {
        throw .io(
          path: source.path, message: "is a directory, not a swipe log; give the path of a file")
      }
      let format: EventFormat
      if let f = source.format ?? EventFormat.forPath(source.path) {
        format = f
      } else if let kind, kind == .fifo || kind == .other {
        // A pipe without a telling name (`<(zcat log.gz)`): sniffed like standard input, from
        // the one read there is.
        let fd = open(source.path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
          throw .io(path: source.path, message: "cannot open: \(errnoText(lowercased: false))")
        }
        defer { close(fd) }
        let file = try readFile(
          FileInput(fd: fd), name: source.path, format: nil, into: &sink, stats: &stats)
        stats.files.append(file)
        continue
      } else if let compression = EventFormat.compression(ofPath: source.path) {
        throw .invalid(
          path: source.path,
          message: EventFormat.compressedLogMessage(
            name: source.path, compression, despiteName: false,
            advice: options.compressedLogAdvice))
      } else {
        throw unknownFormat(source.path, regular: kind == .regular)
      }
      let fd = try Self.openLog(source.path)
      defer { if fd != 0 { close(fd) } }
      let name = source.path == "-" ? "<stdin>" : source.path
      let file = try readFile(
        FileInput(fd: fd), name: name, format: format, into: &sink, stats: &stats)
      stats.files.append(file)
    }
    sink.finish()
    return stats
  }

  /// The error of a log whose name tells no format: what its first bytes are when they tell
  /// (a compressed log, a history snapshot), else that its name should.
  private func unknownFormat(_ path: String, regular: Bool) -> DeckIOError {
    let head =
      regular
      ? (try? TextInput.readPrefix(
        path: path, count: max(EventFormat.magicLength, SnapshotFile.magic.count))) ?? [] : []
    if let compression = head.withUnsafeBufferPointer({ EventFormat.compression(ofBytes: $0) }) {
      return .invalid(
        path: path,
        message: EventFormat.compressedLogMessage(
          name: path, compression, despiteName: false, advice: options.compressedLogAdvice))
    }
    if SnapshotFile.looksLikeSnapshot(head) {
      return .invalid(
        path: path,
        message: "is a history snapshot, not a swipe log; give the swipe logs (snapshots are "
          + "added up by 'menudeck merge')")
    }
    return .invalid(
      path: path,
      message: "cannot tell the format of the swipe log from its name; "
        + "name the file .jsonl, .ndjson, .json or .csv (or pipe it to '-')")
  }

  /// One log from `base`: in `format`, or the format told from its first bytes when nil; its
  /// bytes hashed on the way when `options.hashing`.
  private func readFile<B: ByteInput, S: EventSink>(
    _ base: B, name: String, format: EventFormat?, into sink: inout S,
    stats: inout EventReadStats
  ) throws(DeckIOError) -> EventFileStats {
    var file: EventFileStats
    switch (options.hashing, format) {
    case (false, let format?):
      var input = base
      file = try readStream(&input, name: name, format: format, into: &sink, stats: &stats)
    case (false, nil):
      var input = SniffedInput(base)
      let told = try sniffedFormat(&input, name: name)
      file = try readStream(&input, name: name, format: told, into: &sink, stats: &stats)
    case (true, let format?):
      var input = HashingInput(base)
      file = try readStream(&input, name: name, format: format, into: &sink, stats: &stats)
      file.sha256 = input.hash.hexDigest()
    case (true, nil):
      var input = SniffedInput(HashingInput(base))
      let told = try sniffedFormat(&input, name: name)
      file = try readStream(&input, name: name, format: told, into: &sink, stats: &stats)
      file.sha256 = input.base.hash.hexDigest()
    }
    return file
  }

  /// The format of a log read from `input` (its first bytes, read ahead), or CSV when the
  /// options give a CSV header.
  private func sniffedFormat<B: ByteInput>(_ input: inout SniffedInput<B>, name: String)
    throws(DeckIOError) -> EventFormat
  {
    if options.csvHeader != nil { return .csv }
    return try input.sniff(name: name, blank: options.columns == nil ? .jsonLines : .csv)
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
  package static let maxRecordBytes = 1 << 24

  /// Reads one log that can be read only once (standard input `-`, a FIFO, a pipe such as
  /// `<(zcat log.gz)`), in constant memory, hashing its bytes as they are read: `sha256` ends as
  /// the SHA-256 of the whole content. The format is `source.format`, else the name's
  /// extension, else told from the first bytes, as for standard input.
  package func readOnce<S: EventSink>(
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
      let format = try sniffedFormat(&input, name: name)
      file = try readStream(&input, name: name, format: format, into: &sink, stats: &stats)
      sha256 = input.base.hash
    }
    stats.files.append(file)
    sink.finish()
    return stats
  }

  /// Reads one in-memory log (tests, small tools). `name` is used in error locations.
  package func read<S: EventSink>(
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
  package func read<S: EventSink>(
    text: String, name: String, format: EventFormat, into sink: inout S
  ) throws(DeckIOError) -> EventReadStats {
    try read(bytes: Array(text.utf8), name: name, format: format, into: &sink)
  }

  // MARK: - The same for a `SwipeEventSink`

  /// `read(_:into:)` for a sink of `SwipeEvent` values.
  package func read<S: SwipeEventSink>(_ sources: [EventSource], into sink: inout S)
    throws(DeckIOError) -> EventReadStats
  {
    var adapter = SwipeEventAdapter(sink)
    defer { sink = adapter.base }
    return try read(sources, into: &adapter)
  }

  /// `readOnce(_:into:sha256:)` for a sink of `SwipeEvent` values.
  package func readOnce<S: SwipeEventSink>(
    _ source: EventSource, into sink: inout S, sha256: inout SHA256
  ) throws(DeckIOError) -> EventReadStats {
    var adapter = SwipeEventAdapter(sink)
    defer { sink = adapter.base }
    return try readOnce(source, into: &adapter, sha256: &sha256)
  }

  /// `read(bytes:name:format:into:)` for a sink of `SwipeEvent` values.
  package func read<S: SwipeEventSink>(
    bytes: [UInt8], name: String, format: EventFormat, into sink: inout S
  ) throws(DeckIOError) -> EventReadStats {
    var adapter = SwipeEventAdapter(sink)
    defer { sink = adapter.base }
    return try read(bytes: bytes, name: name, format: format, into: &adapter)
  }

  /// `read(text:name:format:into:)` for a sink of `SwipeEvent` values.
  package func read<S: SwipeEventSink>(
    text: String, name: String, format: EventFormat, into sink: inout S
  ) throws(DeckIOError) -> EventReadStats {
    try read(bytes: Array(text.utf8), name: name, format: format, into: &sink)
  }

  // MARK: - The streaming loop

  /// Reads `input` to its end. A part of a file read on its own (`EventReader+Parallel`) starts
  /// at line `firstLine`, not at the file's start (no byte order mark there), and may begin with
  /// `prelude` bytes of the file's start (a CSV header) that are parsed but not counted.
  func readStream<S: EventSink, I: ByteInput>(
    _ input: inout I, name: String, format: EventFormat, into sink: inout S,
    stats: inout EventReadStats, firstLine: Int = 1, atFileStart fileStart: Bool = true,
    prelude: (bytes: Int, lines: Int) = (0, 0)
  ) throws(DeckIOError) -> EventFileStats {
    if format == .csv, let header = options.csvHeader {
      // The given header goes before the log's bytes, counted in none of its lines or bytes.
      var headed = HeaderedInput(header: header + [0x0A], base: input)
      defer { input = headed.base }
      var file = try readRecords(
        &headed, name: name, format: format, into: &sink, stats: &stats,
        nextLine: firstLine - 1, atFileStart: true, headerStartsFile: fileStart)
      file.bytes -= header.count + 1
      file.lines -= 1
      options.progress?.add(-(header.count + 1))
      return file
    }
    var file = try readRecords(
      &input, name: name, format: format, into: &sink, stats: &stats,
      nextLine: firstLine - prelude.lines, atFileStart: fileStart || prelude.bytes > 0,
      headerStartsFile: fileStart)
    file.bytes -= prelude.bytes
    file.lines -= prelude.lines
    options.progress?.add(-prelude.bytes)
    return file
  }

  /// `readRecords` with CSV fields separated by `options.csvDelimiter`, a type for the loop.
  /// `headerStartsFile`: the CSV header read first is the file's own (or `csvHeader` before
  /// the file's first byte), so the record after it is the file's first row, not a part's.
  private func readRecords<S: EventSink, I: ByteInput>(
    _ input: inout I, name: String, format: EventFormat, into sink: inout S,
    stats: inout EventReadStats, nextLine firstLine: Int, atFileStart fileStart: Bool,
    headerStartsFile: Bool
  ) throws(DeckIOError) -> EventFileStats {
    switch (format, options.csvDelimiter) {
    case (.csv, .semicolon):
      return try readRecords(
        &input, name: name, format: format, into: &sink, stats: &stats, nextLine: firstLine,
        atFileStart: fileStart, headerStartsFile: headerStartsFile, SemicolonSeparator.self)
    case (.csv, .tab):
      return try readRecords(
        &input, name: name, format: format, into: &sink, stats: &stats, nextLine: firstLine,
        atFileStart: fileStart, headerStartsFile: headerStartsFile, TabSeparator.self)
    default:
      return try readRecords(
        &input, name: name, format: format, into: &sink, stats: &stats, nextLine: firstLine,
        atFileStart: fileStart, headerStartsFile: headerStartsFile, CommaSeparator.self)
    }
  }

  private func readRecords<S: EventSink, I: ByteInput, D: CSVSeparator>(
    _ input: inout I, name: String, format: EventFormat, into sink: inout S,
    stats: inout EventReadStats, nextLine firstLine: Int, atFileStart fileStart: Bool,
    headerStartsFile: Bool, _: D.Type
  ) throws(DeckIOError) -> EventFileStats {
    var file = EventFileStats(file: name, format: format)
    if format == .jsonLines, let columns = options.columns {
      throw .invalid(path: name, message: ColumnMapping.jsonLinesRefusal(columns.labels))
    }
    var capacity = max(options.chunkSize, 16)
    var buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
    defer { buffer.deallocate() }
    var parser = RecordParser(
      rule: options.swipeRule, zone: options.zone, format: format, mapping: options.columns,
      delimiter: options.csvDelimiter)
    parser.fastPaths = options.fastPaths
    var filled = 0
    var start = 0
    var eof = false
    var atFileStart = fileStart
    var nextLine = firstLine
    // The line of the file's first row, once its header is read (0: not known, or not in this
    // part): a record of one field there that holds another delimiter tells how rows are
    // separated.
    var firstRowLine = 0

    while true {
      // Refill: keep the unfinished tail, grow only when one record fills the whole buffer.
      if start > 0 {
        if filled > start { memmove(buffer, buffer + start, filled - start) }
        filled -= start
        start = 0
      }
      if filled == capacity {
        try grow(&buffer, &capacity, filled: filled, name: name, line: nextLine)
      }
      let n = try input.read(into: buffer + filled, count: capacity - filled, name: name)
      if n == 0 { eof = true }
      filled += n
      file.bytes += n
      options.progress?.add(n)
      if atFileStart {
        // Enough bytes for a byte order mark and the longest magic number, however the input
        // hands them out (a pipe may give a few at a time), so that every way of reading a
        // file tells the same.
        if filled < EventFormat.magicLength && !eof { continue }
        atFileStart = false
        start = try fileStartSkip(UnsafeBufferPointer(start: buffer, count: filled), name: name)
      }

      // Records in [start, filled).
      while start < filled {
        let outcome: RecordOutcome
        do {
          outcome = try parser.parse(buffer + start, available: filled - start, eof: eof, D.self)
        } catch let failure {
          guard
            let end = try skipBadRecord(
              failure, parser, buffer + start, filled - start, eof, name: name,
              line: nextLine, firstRowLine: firstRowLine, &file)
          else { break }  // need more bytes to see where the bad record ends
          nextLine += end.lines
          start += end.consumed
          continue
        }
        if outcome.kind == .needMore { break }  // the record continues past the buffer
        tally(
          outcome, parser.event, line: nextLine, into: &sink, &file, &stats,
          firstRowLine: &firstRowLine, headerStartsFile: headerStartsFile)
        file.lines += outcome.lines
        nextLine += outcome.lines
        start += outcome.consumed
      }
      if eof { break }
    }
    file.untimed = parser.untimed
    return file
  }

  /// Doubles the read buffer, which one record fills; refuses a record over `maxRecordBytes`.
  private func grow(
    _ buffer: inout UnsafeMutablePointer<UInt8>, _ capacity: inout Int, filled: Int,
    name: String, line: Int
  ) throws(DeckIOError) {
    guard capacity < EventReader.maxRecordBytes else {
      throw .malformed(
        SourceLocation(file: name, line: line),
        message: "a record of more than \(EventReader.maxRecordBytes >> 20) MiB without a line "
          + "end; a swipe log has one event per line (is this the right file?)")
    }
    let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
    bigger.update(from: buffer, count: filled)
    buffer.deallocate()
    buffer = bigger
    capacity *= 2
  }

  /// Once per file, its first bytes: refuses compressed bytes (they would fail at line 1 with a
  /// message about UTF-8 or JSON that hides what is wrong); returns how many bytes of a byte
  /// order mark to skip.
  private func fileStartSkip(_ head: UnsafeBufferPointer<UInt8>, name: String)
    throws(DeckIOError) -> Int
  {
    if let compression = EventFormat.compression(ofBytes: head) {
      throw .invalid(
        path: name,
        message: EventFormat.compressedLogMessage(
          name: name, compression, despiteName: EventFormat.forPath(name) != nil,
          advice: options.compressedLogAdvice))
    }
    return head.count >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF ? 3 : 0
  }

  /// Counts a record read at `line` in `file`, and hands its event to `sink`; a header that
  /// starts the file tells the line of the file's first row.
  @inline(__always)
  private func tally<S: EventSink>(
    _ outcome: RecordOutcome, _ event: RawEvent, line: Int, into sink: inout S,
    _ file: inout EventFileStats, _ stats: inout EventReadStats, firstRowLine: inout Int,
    headerStartsFile: Bool
  ) {
    switch outcome.kind {
    case .event:
      var e = event
      e.line = line
      file.events += 1
      if e.swipe == .right { file.right += 1 } else { file.left += 1 }
      if sink.event(e) == .unknownItem {
        // Only the first unknown dish's line is kept: the common path pays nothing.
        if file.unknownItemEvents == 0 { file.firstUnknownItemLine = line }
        file.unknownItemEvents += 1
        noteUnknown(e.item, in: &stats)
      }
    case .hesitation:
      file.hesitations += 1
    case .neutral:
      file.neutral += 1
    case .header:
      if headerStartsFile { firstRowLine = line + outcome.lines }
    case .blank, .needMore:
      break
    }
  }

  /// A record at `line` that failed: the failure as the reader's error, thrown unless bad lines
  /// are skipped; else the record is counted as skipped (and handed to `onReject`) and its end
  /// returned. nil when more bytes are needed to see where the bad record ends.
  @inline(never)
  private func skipBadRecord(
    _ failure: LineFailure, _ parser: RecordParser, _ p: UnsafePointer<UInt8>,
    _ available: Int, _ eof: Bool, name: String, line: Int, firstRowLine: Int,
    _ file: inout EventFileStats
  ) throws(DeckIOError) -> RecordEnd? {
    // The bad record ends at the first line break at or after the failure (past a whole
    // quoted CSV record when the failure is about a value in it).
    guard let end = parser.recordEnd(after: failure, p, available, eof) else { return nil }
    let record = UnsafeBufferPointer(start: p, count: end.consumed)
    if let other = failure.rowDelimiter, firstRowLine > 0, line == firstRowLine {
      throw .malformed(
        SourceLocation(file: name, line: line),
        message: parser.delimiter.wrongRowDelimiter(
          other, givenHeader: options.csvHeader != nil))
    }
    let location = failure.location(in: record, file: name, firstLine: line)
    let error = DeckIOError.malformed(location, message: failure.message)
    guard options.skipBadLines && !failure.fatal else { throw error }
    if let cr = end.loneCR {
      // Past the failure, before any line feed, a CR alone: the file may end its lines with
      // CR only, and skipping "the line" would skip all of it. (In a CSV record broken
      // before a quoted field, a CR inside those quotes counts too: the run stops there.)
      let at = LineFailure.loneCarriageReturn(at: cr)
      throw .malformed(at.location(in: record, file: name, firstLine: line), message: at.message)
    }
    if file.skippedLines == 0 { file.firstSkippedLine = line }
    file.skippedLines += 1
    file.lines += end.lines
    if let onReject = options.onReject {
      try onReject(EventReject(error: error, text: trimmedLine(record)))
    }
    return end
  }

  private func noteUnknown(_ item: UnsafeBufferPointer<UInt8>, in stats: inout EventReadStats) {
    guard stats.unknownItemIDs.count < EventReadStats.unknownIDLimit else { return }
    let id = String(decoding: item, as: UTF8.self)
    if !stats.unknownItemIDs.contains(where: { IDKey.same($0, id) }) {
      stats.unknownItemIDs.append(id)
    }
  }
}

/// A record's bytes without its final `\n` or `\r\n`.
private func trimmedLine(_ record: UnsafeBufferPointer<UInt8>) -> [UInt8] {
  var n = record.count
  if n > 0 && record[n - 1] == UInt8(ascii: "\n") { n -= 1 }
  if n > 0 && record[n - 1] == UInt8(ascii: "\r") { n -= 1 }
  return Array(record[0..<n])
}
