import DeckCore
import Foundation
import Testing

@testable import DeckIO

/// The offset from UTC after the times of written logs: an event's own, else the one the
/// writer's zone has at that wall-clock time (daylight saving time included), and a reader in
/// that zone gives back the same wall-clock times, in the hour the clocks repeat too; a time in
/// the hour they skip gets the offset before the skip, and reads back as the instant it is.
@Suite struct EventWriterOffsetTests {
  static let newYork = TimeZone(identifier: "America/New_York")!

  /// Wall-clock seconds of a local date and time.
  static func local(_ y: Int, _ mo: Int, _ d: Int, _ h: Int64, _ mi: Int64) -> Int64 {
    Int64(DeckDate(year: y, month: mo, day: d)!.daysSinceEpoch) * 86_400 + h * 3600 + mi * 60
  }

  static func write(
    _ events: [LogEvent], _ format: EventFormat, zone: (any UTCOffsetProvider)?
  ) throws -> String {
    let out = MemoryOutput()
    let writer = EventWriter(format: format, output: out, zone: zone)
    for e in events { try writer.write(e) }
    try writer.finish()
    return out.text
  }

  static func event(_ at: Int64, offset: Int? = nil) -> LogEvent {
    LogEvent(user: "u", item: "a", swipe: .right, at: at, utcOffset: offset)
  }

  static func times(_ text: String) -> [String] {
    text.split(separator: "\n").compactMap { line in
      line.components(separatedBy: "\"at\":\"").dropFirst().first?.components(separatedBy: "\"")
        .first
    }
  }

  @Test func anEventsOwnOffsetIsWrittenInEveryForm() throws {
    let at = Self.local(2026, 12, 3, 22, 28) + 5
    let offsets = [9 * 3600, -5 * 3600, 0, 5 * 3600 + 45 * 60, -(3 * 3600 + 30 * 60)]
    let text = try Self.write(offsets.map { Self.event(at, offset: $0) }, .jsonLines, zone: nil)
    #expect(
      Self.times(text) == [
        "2026-12-03T22:28:05+09:00", "2026-12-03T22:28:05-05:00", "2026-12-03T22:28:05+00:00",
        "2026-12-03T22:28:05+05:45", "2026-12-03T22:28:05-03:30",
      ])
    // CSV: the same field.
    let csv = try Self.write([Self.event(at, offset: 9 * 3600)], .csv, zone: nil)
    #expect(csv.split(separator: "\n")[1] == "u,a,right,2026-12-03T22:28:05+09:00,,,,")
    // No offset and no zone: the wall-clock time alone, as before.
    #expect(
      Self.times(try Self.write([Self.event(at)], .jsonLines, zone: nil)) == [
        "2026-12-03T22:28:05"
      ])
  }

  @Test func theZonesOffsetAtEachTimeDaylightSavingIncluded() throws {
    let zone = TimeZoneOffsets(Self.newYork)
    let events = [
      Self.event(Self.local(2026, 1, 15, 12, 0)),  // EST
      Self.event(Self.local(2026, 7, 15, 12, 0)),  // EDT
      Self.event(Self.local(2026, 3, 8, 1, 59)),  // just before the clocks skip 02:00-03:00
      Self.event(Self.local(2026, 3, 8, 3, 0)),  // just after
      Self.event(Self.local(2026, 11, 1, 1, 30)),  // an hour the clocks repeat: the first
      Self.event(Self.local(2026, 11, 1, 2, 0)),  // after it
    ]
    let text = try Self.write(events, .jsonLines, zone: zone)
    #expect(
      Self.times(text) == [
        "2026-01-15T12:00:00-05:00", "2026-07-15T12:00:00-04:00", "2026-03-08T01:59:00-05:00",
        "2026-03-08T03:00:00-04:00", "2026-11-01T01:30:00-04:00", "2026-11-01T02:00:00-05:00",
      ])
    // Read in that zone, every time is the wall-clock time written, in both formats.
    for format in EventFormat.allCases {
      let written = try Self.write(events, format, zone: zone)
      var sink = SwipeEventCollector()
      _ = try EventReader(options: EventReaderOptions(zone: TimeZoneOffsets(Self.newYork))).read(
        text: written, name: "log", format: format, into: &sink)
      #expect(sink.events.map(\.at) == events.map(\.at), "\(format)")
    }
  }

  /// A wall-clock time the clocks skip (a simulated session at 02:18 on the night New York
  /// sets its clocks forward) is written with the offset before the skip: the instant it
  /// denotes, which a reader in that zone gives back as the clocks showed it, an hour later, on
  /// the same day; a reader in UTC gives back the same instant. Southern zones alike.
  @Test func aTimeTheClocksSkipIsTheInstantItDenotes() throws {
    let cases: [(zone: TimeZone, local: Int64, written: String, readBack: Int64, utc: Int64)] = [
      (
        Self.newYork, Self.local(2026, 3, 8, 2, 18) + 9, "2026-03-08T02:18:09-05:00",
        Self.local(2026, 3, 8, 3, 18) + 9, Self.local(2026, 3, 8, 7, 18) + 9
      ),
      (
        TimeZone(identifier: "Australia/Sydney")!, Self.local(2026, 10, 4, 2, 30),
        "2026-10-04T02:30:00+10:00", Self.local(2026, 10, 4, 3, 30),
        Self.local(2026, 10, 3, 16, 30)
      ),
    ]
    for c in cases {
      let offsets = TimeZoneOffsets(c.zone)
      for format in EventFormat.allCases {
        let text = try Self.write([Self.event(c.local)], format, zone: offsets)
        #expect(text.contains(c.written), "\(format): \(text)")
        var sink = SwipeEventCollector()
        _ = try EventReader(options: EventReaderOptions(zone: offsets)).read(
          text: text, name: "log", format: format, into: &sink)
        #expect(sink.events.map(\.at) == [c.readBack], "\(c.zone.identifier) \(format)")
        var utc = SwipeEventCollector()
        _ = try EventReader().read(text: text, name: "log", format: format, into: &utc)
        #expect(utc.events.map(\.at) == [c.utc], "\(c.zone.identifier) \(format) in UTC")
      }
    }
  }

  @Test func offsetsOfLocalTimes() {
    let zone = TimeZoneOffsets(Self.newYork)
    #expect(EventWriter.offset(ofLocal: Self.local(2026, 7, 1, 0, 0), in: zone) == -4 * 3600)
    #expect(EventWriter.offset(ofLocal: Self.local(2026, 11, 1, 1, 0), in: zone) == -4 * 3600)
    // The hour the clocks skip: the offset before it (EST), for every minute of it.
    for minute in stride(from: Int64(0), to: 60, by: 15) {
      #expect(
        EventWriter.offset(ofLocal: Self.local(2026, 3, 8, 2, minute), in: zone) == -5 * 3600)
    }
    #expect(EventWriter.offset(ofLocal: 0, in: FixedUTCOffset(seconds: 9 * 3600)) == 9 * 3600)
    // An offset that is no whole number of minutes (local mean time) is not written.
    let kolkata = TimeZone(identifier: "Asia/Kolkata")!
    let old = Self.local(1850, 6, 1, 12, 0)
    let offset = EventWriter.offset(ofLocal: old, in: TimeZoneOffsets(kolkata))
    #expect(offset % 60 != 0, "local mean time: \(offset)")
    let text = try? Self.write([Self.event(old)], .jsonLines, zone: TimeZoneOffsets(kolkata))
    #expect(text.map(Self.times) == ["1850-06-01T12:00:00"])
  }
}
