import DeckBase
import DeckCore

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
