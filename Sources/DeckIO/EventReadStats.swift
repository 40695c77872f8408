import DeckBase
import DeckCore

/// A line (or CSV record) that was skipped under `skipBadLines`.
package struct EventReject: Sendable, Equatable {
  /// The error that rejected it; its location has file, line, column and field.
  package var error: DeckIOError
  /// The record exactly as read, without its final line break (`\n` or `\r\n`).
  package var text: [UInt8]

  package var location: SourceLocation {
    if case .malformed(let loc, _) = error { return loc }
    return SourceLocation(file: "", line: 0)
  }

  /// What is wrong, with the field but without the location.
  package var reason: String {
    guard case .malformed(let loc, let message) = error else { return error.description }
    if let field = loc.field { return "\(field): \(message)" }
    return message
  }
}

/// Counts for one file of a run.
package struct EventFileStats: Sendable, Equatable {
  package var file: String
  package var format: EventFormat
  package var bytes = 0
  /// Physical lines, including the CSV header and blank lines.
  package var lines = 0
  /// Decoded swipes (right + left), including those whose item is unknown.
  package var events = 0
  package var right = 0
  package var left = 0
  /// Raw drags that did not commit (not swipes, not in `events`).
  package var hesitations = 0
  /// Events whose item the sink did not know (a subset of `events`).
  package var unknownItemEvents = 0
  /// The 1-based line of the first of them in file order (for a CSV record on several lines,
  /// the line it starts on), whatever the number of parts the file was read in; 0 when there is
  /// none or it has no line (the unknown dishes of a history snapshot).
  package var firstUnknownItemLine = 0
  /// Bad lines skipped under `skipBadLines`.
  package var skippedLines = 0
  /// The 1-based line the first of them starts on, in file order whatever the number of parts
  /// the file was read in; 0 when there is none.
  package var firstSkippedLine = 0
  /// Rated records whose rating matched neither swipe rule (logs read with a `ColumnMapping`):
  /// not swipes, not in `events`.
  package var neutral = 0
  /// The log has no time column (read with a `ColumnMapping`): its events are all at
  /// 1970-01-01T00:00, so nothing that needs their times (days, a temporal split) is possible.
  package var untimed = false
  /// The SHA-256 (hex) of the file's bytes, when the reader hashed them
  /// (`EventReaderOptions.hashing`, or the caller that read it in parts).
  package var sha256: String?
  /// The file is a history snapshot (its counts are the snapshot's), not a swipe log.
  package var snapshot = false

  package init(file: String, format: EventFormat) {
    self.file = file
    self.format = format
  }
}

/// Counts for a whole run.
package struct EventReadStats: Sendable, Equatable {
  package var files: [EventFileStats] = []
  /// The first distinct unknown item ids, in order of appearance (at most
  /// `EventReadStats.unknownIDLimit`).
  package var unknownItemIDs: [String] = []

  package static let unknownIDLimit = 5

  /// Events of dishes not in the catalog that no one file holds: found in the history that
  /// history snapshots merged with other inputs (several snapshots, or snapshots and logs) make.
  package var mergedUnknownItemEvents = 0
  /// The inputs of that merge, as the user named them.
  package var mergedInputs: [String] = []

  package init() {}

  private func sum(_ key: KeyPath<EventFileStats, Int>) -> Int {
    files.reduce(0) { $0 + $1[keyPath: key] }
  }
  package var bytes: Int { sum(\.bytes) }
  package var lines: Int { sum(\.lines) }
  package var events: Int { sum(\.events) }
  package var right: Int { sum(\.right) }
  package var left: Int { sum(\.left) }
  package var hesitations: Int { sum(\.hesitations) }
  package var unknownItemEvents: Int { sum(\.unknownItemEvents) + mergedUnknownItemEvents }
  package var skippedLines: Int { sum(\.skippedLines) }
  package var neutral: Int { sum(\.neutral) }
  /// Whether any file has no time column.
  package var untimed: Bool { files.contains { $0.untimed } }
}
