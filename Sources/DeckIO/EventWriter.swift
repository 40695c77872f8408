import DeckBase
import DeckCore

/// A raw drag as the apps log it: the horizontal distance in points and, for the relative rule,
/// the card width in points.
package struct LoggedDrag: Sendable, Hashable {
  package var dx: Double
  package var width: Double?

  package init(dx: Double, width: Double?) {
    self.dx = dx
    self.width = width
  }
}

/// One line of a swipe log as written: a committed swipe, or a raw drag that the reader decides
/// with its swipe rule (a drag that does not commit is a hesitation, which the reader counts and
/// otherwise skips).
///
/// Why a type of its own: a line as written may hold what no decided swipe holds (a raw drag not
/// yet decided, or a hesitation that decides nothing; the UTC offset the writer stamps), so
/// `SwipeEvent` cannot stand for it. Conversions to and from it are in `EventConversions.swift`.
package struct LogEvent: Sendable, Hashable {
  package var user: String
  package var item: String
  /// The swipe; nil when the line logs `drag` instead.
  package var swipe: SwipeDirection?
  /// The raw drag, when the line logs it instead of `swipe`.
  package var drag: LoggedDrag?
  /// Wall-clock seconds since 1970-01-01T00:00 in the log's zone (as `SwipeEvent.at`).
  package var at: Int64
  /// Seconds east of UTC in effect at `at` in the log's zone, written after the time
  /// (`+09:00`); nil: the writer's zone says, or none is written.
  package var utcOffset: Int?
  /// 1-based card position, if logged.
  package var position: Int?
  /// The date of the deck, if logged.
  package var deck: DeckDate?
  /// The ranking's probability of this item at this position, if logged; in (0, 1].
  package var propensity: Double?
  /// The ranking's probability of the deck's cards from position 1 up to and including this
  /// one, in this order, if logged; in (0, 1].
  package var prefixPropensity: Double?

  package init(
    user: String, item: String, swipe: SwipeDirection?, drag: LoggedDrag? = nil, at: Int64,
    utcOffset: Int? = nil, position: Int? = nil, deck: DeckDate? = nil,
    propensity: Double? = nil, prefixPropensity: Double? = nil
  ) {
    self.user = user
    self.item = item
    self.swipe = swipe
    self.drag = drag
    self.at = at
    self.utcOffset = utcOffset
    self.position = position
    self.deck = deck
    self.propensity = propensity
    self.prefixPropensity = prefixPropensity
  }
}

/// Writes swipe logs in exactly the schema `EventReader` reads, in either format:
///
/// - JSON Lines: one object per line, fields in the order `user`, `item`, `swipe`, `at`,
///   `position`, `deck`, `propensity`, `prefix_propensity`, `dx`, `width`; a field that is not
///   logged is left out.
///   `{"user":"s00001","item":"ramen","swipe":"right","at":"2026-01-10T12:03:07","position":2,"deck":"2026-01-10","propensity":0.125,"prefix_propensity":0.03125}`
/// - CSV: the header `user,item,swipe,at,position,deck,propensity,prefix_propensity` (with
///   `,dx,width` when the writer is made with `drags: true`), then one row per event; a field
///   that is not logged is empty (so is the whole `prefix_propensity` column of a log whose
///   ranking gives none); text fields are quoted only when they hold a comma, quote or line
///   break.
///
/// `propensity` is the ranking's marginal probability of the item at its position;
/// `prefix_propensity` its probability of the deck's cards from position 1 up to and including
/// this one, in that order (what the slate estimators weigh by), so it is never above
/// `propensity`. The writer checks that both are in (0, 1] and leaves their relation to whoever
/// logs them (the off-policy reader, `LoggedSessions.check()`, refuses a log that breaks it).
///
/// `at` is written as local wall-clock time with the offset from UTC in effect then,
/// `YYYY-MM-DDTHH:MM:SS+09:00`, as every log menudeck reads and writes carries: the event's own
/// (`LogEvent.utcOffset`, `play`'s, taken with the instant), else the one the writer's zone has
/// at that wall-clock time (`simulate`'s; in an hour the clocks repeat, the first). A reader in
/// that zone gives back the same `at`. A wall-clock time the zone skips (the hour clocks are set
/// forward) gets the offset in effect before the skip: the instant it denotes, which a reader
/// in that zone gives back an hour later (`02:18:09-05:00` reads as 03:18:09 in New York).
/// Without a zone, or with an offset that is no whole number of minutes, it is written without
/// an offset, which the reader takes as it is in its configured zone: the same `at`. Numbers are written in
/// plain decimal (never an exponent) with the fewest digits that read back to the same `Double`
/// (the standard library's shortest round-trip digits, which are the same on every platform), so
/// the reader gets back exactly the values written and the bytes never depend on the locale.
///
/// Output is buffered and flushed in blocks of 64 KiB; call `finish()` at the end.
package final class EventWriter {
  package let format: EventFormat
  /// Whether CSV output has the `dx` and `width` columns (JSON Lines always may carry them).
  package let drags: Bool
  /// The zone whose offsets the times get when an event carries none.
  package let zone: (any UTCOffsetProvider)?
  private let output: ByteOutput
  private var buffer: [UInt8] = []
  /// An event's time as text, reused from event to event.
  private var scratch: [UInt8] = []
  private var started = false
  package private(set) var count = 0

  /// The CSV header for the given columns, without its line break.
  package static func csvHeader(drags: Bool) -> String {
    drags
      ? "user,item,swipe,at,position,deck,propensity,prefix_propensity,dx,width"
      : "user,item,swipe,at,position,deck,propensity,prefix_propensity"
  }

  package init(
    format: EventFormat, output: ByteOutput, drags: Bool = false,
    zone: (any UTCOffsetProvider)? = nil
  ) {
    self.format = format
    self.output = output
    self.drags = drags
    self.zone = zone
    buffer.reserveCapacity(1 << 16 + 512)
  }

  /// Writes one event. Exactly one of `swipe` and `drag` must be set; a drag needs a CSV writer
  /// made with `drags: true`; `position` must be 1 or more, and `propensity` and
  /// `prefixPropensity` in (0, 1].
  package func write(_ e: LogEvent) throws(DeckIOError) {
    precondition((e.swipe == nil) != (e.drag == nil), "an event logs a swipe or a drag")
    precondition(e.position.map { $0 >= 1 } ?? true, "positions start at 1")
    precondition(e.propensity.map { $0 > 0 && $0 <= 1 } ?? true, "propensity must be in (0, 1]")
    precondition(
      e.prefixPropensity.map { $0 > 0 && $0 <= 1 } ?? true, "prefix propensity must be in (0, 1]")
    if let d = e.drag {
      precondition(d.dx.isFinite && (d.width.map { $0.isFinite && $0 > 0 } ?? true), "bad drag")
    }
    switch format {
    case .jsonLines: appendJSON(e)
    case .csv:
      precondition(drags || e.drag == nil, "this CSV writer has no dx and width columns")
      if !started {
        buffer.append(contentsOf: EventWriter.csvHeader(drags: drags).utf8)
        buffer.append(0x0A)
        started = true
      }
      appendCSV(e)
    }
    count += 1
    if buffer.count >= 1 << 16 { try flush() }
  }

  /// Writes the CSV header when nothing was written yet, and flushes the buffer.
  package func finish() throws(DeckIOError) {
    if format == .csv && !started {
      buffer.append(contentsOf: EventWriter.csvHeader(drags: drags).utf8)
      buffer.append(0x0A)
      started = true
    }
    try flush()
  }

  private func flush() throws(DeckIOError) {
    guard !buffer.isEmpty else { return }
    try output.write(buffer)
    buffer.removeAll(keepingCapacity: true)
  }

  private func appendJSON(_ e: LogEvent) {
    scratch.removeAll(keepingCapacity: true)
    EventWriter.appendTimestamp(e.at, offset: offset(of: e), to: &scratch)
    let at = scratch
    JSONWriter.append(to: &buffer) { w in
      w.beginObject()
      w.field("user", e.user)
      w.field("item", e.item)
      if let swipe = e.swipe { w.field("swipe", swipe == .right ? "right" : "left") }
      w.key("at")
      at.withUnsafeBufferPointer { w.string(bytes: $0) }
      if let position = e.position { w.field("position", int: position) }
      if let deck = e.deck { w.field("deck", deck.description) }
      if let p = e.propensity {
        w.key("propensity")
        w.plainDecimal(p)
      }
      if let p = e.prefixPropensity {
        w.key("prefix_propensity")
        w.plainDecimal(p)
      }
      if let drag = e.drag {
        w.key("dx")
        w.plainDecimal(drag.dx)
        if let width = drag.width {
          w.key("width")
          w.plainDecimal(width)
        }
      }
      w.endObject()
      w.layout("\n")
    }
  }

  private func appendCSV(_ e: LogEvent) {
    let comma = UInt8(ascii: ",")
    Text.appendCSVField(e.user, to: &buffer)
    buffer.append(comma)
    Text.appendCSVField(e.item, to: &buffer)
    buffer.append(comma)
    if let swipe = e.swipe { buffer.append(contentsOf: swipe.name.utf8) }
    buffer.append(comma)
    EventWriter.appendTimestamp(e.at, offset: offset(of: e), to: &buffer)
    buffer.append(comma)
    if let position = e.position { Text.appendInt(UInt64(position), to: &buffer) }
    buffer.append(comma)
    if let deck = e.deck { buffer.append(contentsOf: deck.description.utf8) }
    buffer.append(comma)
    if let p = e.propensity { EventWriter.appendNumber(p, to: &buffer) }
    buffer.append(comma)
    if let p = e.prefixPropensity { EventWriter.appendNumber(p, to: &buffer) }
    if drags {
      buffer.append(comma)
      if let drag = e.drag { EventWriter.appendNumber(drag.dx, to: &buffer) }
      buffer.append(comma)
      if let width = e.drag?.width { EventWriter.appendNumber(width, to: &buffer) }
    }
    buffer.append(0x0A)
  }

  /// The offset written after `e`'s time: its own, else its zone's at that wall-clock time.
  private func offset(of e: LogEvent) -> Int? {
    if let own = e.utcOffset { return own }
    return zone.flatMap { EventWriter.offset(ofLocal: e.at, in: $0) }
  }

  /// The offset from UTC that wall-clock `local` has in `zone`: the `o` for which the zone's
  /// offset at the instant `local - o` is `o`. In an hour the clocks repeat (set back) there are
  /// two, and the first instant's (the larger offset) is taken. In an hour they skip (set
  /// forward, 02:00 to 03:00) there is none, and the offset in effect before the gap is taken:
  /// `02:18:09-05:00` in New York is the instant the clocks show as 03:18:09 EDT, the time a
  /// clock that was not set forward would show. An offset is one of those in effect within a
  /// day of `local`.
  package static func offset(ofLocal local: Int64, in zone: any UTCOffsetProvider) -> Int {
    var best: Int?
    var latest = Int.min
    for probe in [local - 86_400, local, local + 86_400] {
      let candidate = zone.offset(atUTC: probe)
      latest = max(latest, candidate)
      if zone.offset(atUTC: local - Int64(candidate)) == candidate, candidate > (best ?? .min) {
        best = candidate
      }
    }
    // In a gap, the instant `local - after` (after: the offset past the gap, the larger) lies
    // before the change, where the offset before the gap is in effect.
    return best ?? zone.offset(atUTC: local - Int64(latest))
  }

  /// `YYYY-MM-DDTHH:MM:SS` for wall-clock seconds since 1970-01-01T00:00, then `offset` as
  /// `+HH:MM` or `-HH:MM` (`+00:00` for UTC) when it is given and a whole number of minutes.
  static func appendTimestamp(_ at: Int64, offset: Int? = nil, to out: inout [UInt8]) {
    let day = localDay(seconds: at)
    let seconds = Int(at - day * 86_400)
    out.append(contentsOf: DeckDate(daysSinceEpoch: Int32(day)).description.utf8)
    out.append(UInt8(ascii: "T"))
    func two(_ v: Int) {
      out.append(0x30 + UInt8(v / 10))
      out.append(0x30 + UInt8(v % 10))
    }
    two(seconds / 3600)
    out.append(UInt8(ascii: ":"))
    two(seconds / 60 % 60)
    out.append(UInt8(ascii: ":"))
    two(seconds % 60)
    // An offset of seconds (local mean time, before 1900 in some zones) has no ISO form.
    guard let offset, offset % 60 == 0, abs(offset) < 24 * 3600 else { return }
    out.append(UInt8(ascii: offset < 0 ? "-" : "+"))
    two(abs(offset) / 3600)
    out.append(UInt8(ascii: ":"))
    two(abs(offset) / 60 % 60)
  }

  /// A finite number in plain decimal with its shortest round-trip digits: `0.125`, `-187.5`,
  /// `390`, `0.00000125` (never `1.25e-06`).
  static func appendNumber(_ value: Double, to out: inout [UInt8]) {
    precondition(value.isFinite, "only finite numbers are written")
    out.append(contentsOf: plainDecimal(value).utf8)
  }

  /// `Text.plainDecimal`.
  static func plainDecimal(_ value: Double) -> String { Text.plainDecimal(value) }
}
