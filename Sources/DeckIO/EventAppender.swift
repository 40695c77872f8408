import DeckBase

/// A swipe log that grows one event at a time (`menudeck play --log`): opened with
/// `O_APPEND | O_CREAT`, each event written by `EventWriter` in the log's schema and handed to
/// the file in one `write(2)` at once, so that a crash loses at most the event in progress and
/// another reader never sees half a line.
///
/// The format follows the name: `.jsonl` (or `.ndjson`) is JSON Lines; `.csv` is CSV with the
/// `dx` and `width` columns, its header written when the file is empty. A CSV log that already
/// has other columns is refused (its rows would not line up), among them one written before the
/// `prefix_propensity` column (`EventAppender.headerBeforePrefixPropensity`).
package final class EventAppender {
  package let path: String
  package let format: EventFormat
  private let fd: Int32
  package private(set) var count = 0

  /// The header of the CSV logs that menudeck appended to before `prefix_propensity`: such a log
  /// is refused with a message that says so (its rows have one column fewer).
  package static let headerBeforePrefixPropensity =
    "user,item,swipe,at,position,deck,propensity,dx,width"

  /// The format a log's name asks for; nil for any other extension.
  package static func format(path: String) -> EventFormat? {
    let lower = path.lowercased()
    if lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") { return .jsonLines }
    if lower.hasSuffix(".csv") { return .csv }
    return nil
  }

  /// Opens (creating) `path`, named `name` in messages, for appending events in `format`.
  package init(path: String, name: String, format: EventFormat) throws(DeckIOError) {
    self.path = name
    self.format = format
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      throw .io(path: name, message: "cannot open the log for appending: \(errnoText())")
    }
    guard format == .csv else { return }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let text = errnoText()
      close(fd)
      throw .io(path: name, message: "cannot read the log's size: \(text)")
    }
    let header = Array((EventWriter.csvHeader(drags: true) + "\n").utf8)
    if info.st_size == 0 {
      try append(bytes: header)
    } else {
      // The first line must be this writer's header.
      let reader = open(path, O_RDONLY | O_CLOEXEC)
      var first = [UInt8](repeating: 0, count: header.count)
      let got =
        reader < 0 ? -1 : first.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
      if reader >= 0 { close(reader) }
      guard got == header.count, first == header else {
        close(fd)
        let old = Array((EventAppender.headerBeforePrefixPropensity + "\n").utf8)
        if got >= old.count && Array(first[0..<old.count]) == old {
          throw .invalid(
            path: name,
            message:
              "the CSV log has the columns of menudeck before prefix_propensity "
              + "('\(EventAppender.headerBeforePrefixPropensity)'), so new rows would not line up; "
              + "give a new file (or a .jsonl log), or add the column: put ',prefix_propensity' "
              + "after 'propensity' in the header and an empty field after the propensity of "
              + "every row")
        }
        throw .invalid(
          path: name,
          message:
            "the CSV log does not start with the header '\(EventWriter.csvHeader(drags: true))'; "
            + "give a new file (or a .jsonl log)")
      }
    }
  }

  deinit { close(fd) }

  /// Appends one event as one line, written at once.
  package func append(_ event: LogEvent) throws(DeckIOError) {
    let memory = MemoryOutput()
    let writer = EventWriter(format: format, output: memory, drags: true)
    try writer.write(event)
    try writer.finish()
    var bytes = memory.bytes
    if format == .csv, let end = bytes.firstIndex(of: 0x0A) {
      bytes.removeSubrange(...end)  // the header, which every new writer starts with
    }
    try append(bytes: bytes)
    count += 1
  }

  private func append(bytes: [UInt8]) throws(DeckIOError) {
    if let code = bytes.withUnsafeBytes({ writeAll(fd, $0) }) {
      throw .io(path: path, message: "cannot append to the log: \(errnoText(code))")
    }
  }
}
