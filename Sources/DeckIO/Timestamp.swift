import DeckCore
import Foundation

/// The offset of a time zone from UTC at an instant, in seconds east of UTC.
///
/// The event reader calls it once per event whose timestamp carries `Z` or an offset, to turn the
/// instant into wall-clock time in the configured zone.
package protocol UTCOffsetProvider {
  /// Seconds east of UTC in effect at `seconds` since 1970-01-01T00:00:00Z.
  func offset(atUTC seconds: Int64) -> Int

  /// The offset at `seconds` and a stretch of UTC seconds around it where it is the same, so
  /// that a reader can skip asking again for times inside it. The default is that one second.
  func offsetSpan(atUTC seconds: Int64) -> UTCOffsetSpan

  /// A provider with the same answers for another thread: one that caches answers (a class)
  /// returns a new one with its own cache; a value returns itself.
  func forAnotherThread() -> any UTCOffsetProvider
}

extension UTCOffsetProvider {
  package func offsetSpan(atUTC seconds: Int64) -> UTCOffsetSpan {
    UTCOffsetSpan(offset: offset(atUTC: seconds), start: seconds, end: seconds + 1)
  }
}

/// An offset from UTC (seconds east) in effect for the UTC seconds `start..<end`.
package struct UTCOffsetSpan: Sendable, Equatable {
  package var offset: Int
  package var start: Int64
  package var end: Int64

  @inline(__always)
  package func contains(_ seconds: Int64) -> Bool { seconds >= start && seconds < end }
}

/// A zone that is always the same distance from UTC (no daylight saving time).
package struct FixedUTCOffset: UTCOffsetProvider, Sendable, Equatable {
  package func forAnotherThread() -> any UTCOffsetProvider { self }

  /// Seconds east of UTC.
  package let seconds: Int

  package static let utc = FixedUTCOffset(seconds: 0)

  package init(seconds: Int) {
    self.seconds = seconds
  }

  @inline(__always)
  package func offset(atUTC seconds: Int64) -> Int { self.seconds }

  /// All of time.
  package func offsetSpan(atUTC seconds: Int64) -> UTCOffsetSpan {
    UTCOffsetSpan(offset: self.seconds, start: .min, end: .max)
  }
}

/// A Foundation `TimeZone` with daylight saving time, cached per UTC hour so that the hot path is
/// an array lookup.
///
/// An hour is cached only when the offset is the same at its first and its last second; an hour
/// with a transition inside it (zones with half-hour offsets switch off the UTC hour) asks the
/// `TimeZone` every time, so the answer is always the one `TimeZone` gives.
package final class TimeZoneOffsets: UTCOffsetProvider {
  package let timeZone: TimeZone
  private static let cacheSize = 4096
  /// Direct-mapped cache: the UTC hour held by each slot (or `.min`) and its offset. Raw memory
  /// owned by this object, so the hot path has no exclusivity checks or copy-on-write.
  private let hours: UnsafeMutablePointer<Int64>
  private let offsets: UnsafeMutablePointer<Int32>

  package init(_ timeZone: TimeZone) {
    self.timeZone = timeZone
    hours = .allocate(capacity: TimeZoneOffsets.cacheSize)
    hours.initialize(repeating: .min, count: TimeZoneOffsets.cacheSize)
    offsets = .allocate(capacity: TimeZoneOffsets.cacheSize)
    offsets.initialize(repeating: 0, count: TimeZoneOffsets.cacheSize)
  }

  deinit {
    hours.deallocate()
    offsets.deallocate()
  }

  /// The same zone with a cache of its own (this one's is not shared across threads).
  package func forAnotherThread() -> any UTCOffsetProvider { TimeZoneOffsets(timeZone) }

  @inline(__always)
  package func offset(atUTC seconds: Int64) -> Int {
    let hour = seconds >= 0 ? seconds / 3600 : (seconds - 3599) / 3600
    let slot = Int(truncatingIfNeeded: hour) & (TimeZoneOffsets.cacheSize - 1)
    if hours[slot] == hour { return Int(offsets[slot]) }
    return fill(slot, hour, seconds)
  }

  private func fill(_ slot: Int, _ hour: Int64, _ seconds: Int64) -> Int {
    uniformOffset(hour: hour) ?? zoneOffset(seconds)
  }

  /// The offset of a UTC hour with the same offset at its first and its last second (cached),
  /// or nil.
  private func uniformOffset(hour: Int64) -> Int? {
    let slot = Int(truncatingIfNeeded: hour) & (TimeZoneOffsets.cacheSize - 1)
    if hours[slot] == hour { return Int(offsets[slot]) }
    let start = hour * 3600
    let first = zoneOffset(start)
    guard zoneOffset(start + 3599) == first else { return nil }
    hours[slot] = hour
    offsets[slot] = Int32(first)
    return first
  }

  /// The whole UTC day when all its hours have the same offset (by the rule of the hour
  /// cache), else the hour when that has one offset, else the one second.
  package func offsetSpan(atUTC seconds: Int64) -> UTCOffsetSpan {
    let hour = seconds >= 0 ? seconds / 3600 : (seconds - 3599) / 3600
    guard let offset = uniformOffset(hour: hour) else {
      return UTCOffsetSpan(offset: zoneOffset(seconds), start: seconds, end: seconds + 1)
    }
    let day = hour >= 0 ? hour / 24 : (hour - 23) / 24
    let dayHours = (day * 24)..<(day * 24 + 24)
    if dayHours.allSatisfy({ uniformOffset(hour: $0) == offset }) {
      return UTCOffsetSpan(offset: offset, start: day * 86_400, end: day * 86_400 + 86_400)
    }
    return UTCOffsetSpan(offset: offset, start: hour * 3600, end: hour * 3600 + 3600)
  }

  private func zoneOffset(_ seconds: Int64) -> Int {
    timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
  }
}

/// ISO 8601 timestamps as they appear in swipe logs.
///
/// Accepted: a date `YYYY-MM-DD` (midnight local time), or a date-time
/// `YYYY-MM-DDTHH:MM:SS` with an optional fraction `.f...` (any number of digits, truncated to
/// the second) and an optional zone `Z`, `±HH:MM` or `±HHMM`. A space may stand for the `T`.
/// Hours are 00-23, minutes and seconds 00-59, offsets at most ±23:59; dates must exist.
package enum Timestamp {
  /// The outcome of parsing one timestamp.
  package enum Parsed: Sendable, Equatable {
    /// Wall-clock seconds since 1970-01-01T00:00 in the local zone (no zone designator given).
    case local(Int64)
    /// Seconds since 1970-01-01T00:00:00Z (the text had `Z` or an offset).
    case utc(Int64)
    /// Not a timestamp; `offset` is the 0-based byte where the problem is.
    case invalid(offset: Int, reason: String)
  }

  /// The accepted forms, for error messages.
  package static let expectedForms = "YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]"

  /// Parses a timestamp from UTF-8 text.
  package static func parse(_ text: String) -> Parsed {
    var bytes = Array(text.utf8)
    return bytes.withUnsafeMutableBufferPointer { parse(UnsafeBufferPointer($0)) }
  }

  /// Wall-clock seconds in the zone of `offsets`, or nil when `text` is not a timestamp.
  package static func localSeconds(_ text: String, in offsets: some UTCOffsetProvider) -> Int64? {
    switch parse(text) {
    case .local(let s): return s
    case .utc(let s): return s + Int64(offsets.offset(atUTC: s))
    case .invalid: return nil
    }
  }

  /// Parses a timestamp from UTF-8 bytes (the whole buffer must be the timestamp).
  @inline(__always)
  package static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Parsed {
    let n = b.count
    guard n >= 10 else { return .invalid(offset: 0, reason: "too short") }
    guard let year = digits(b, 0, 4), b[4] == dash, let month = digits(b, 5, 2), b[7] == dash,
      let day = digits(b, 8, 2)
    else { return .invalid(offset: firstBad(b, pattern: "dddd-dd-dd"), reason: "not a date") }
    guard let days0 = civilDays(year, month, day) else {
      if month < 1 || month > 12 {
        return .invalid(offset: 5, reason: "month \(month) is not 01-12")
      }
      if year < 1 { return .invalid(offset: 0, reason: "year 0000 is out of range") }
      return .invalid(
        offset: 8, reason: "\(pad4(year))-\(pad2(month)) has no day \(pad2(day))")
    }
    return parse(b, afterDate: Int32(days0))
  }

  /// Parses what follows the date in `b`, whose first 10 bytes are the valid date with day
  /// number `days0` (a reader that saw the same date bytes before skips their parsing).
  @inline(__always)
  static func parse(_ b: UnsafeBufferPointer<UInt8>, afterDate days0: Int32) -> Parsed {
    let n = b.count
    let days = Int64(days0) * 86_400
    if n == 10 { return .local(days) }
    guard b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " ") else {
      return .invalid(offset: 10, reason: "expected 'T' or a space after the date")
    }
    guard n >= 19 else {
      return .invalid(
        offset: 11 + firstBad(b, from: 11, pattern: "dd:dd:dd"),
        reason: "expected the time as HH:MM:SS")
    }
    let hh: Int
    let mm: Int
    let ss: Int
    if let clock = clock(b.baseAddress! + 11) {
      (hh, mm, ss) = clock
    } else {
      guard let h = digits(b, 11, 2), b[13] == colon, let m = digits(b, 14, 2),
        b[16] == colon, let s = digits(b, 17, 2)
      else {
        return .invalid(
          offset: 11 + firstBad(b, from: 11, pattern: "dd:dd:dd"),
          reason: "expected the time as HH:MM:SS")
      }
      (hh, mm, ss) = (h, m, s)
    }
    guard hh < 24 else { return .invalid(offset: 11, reason: "hour \(pad2(hh)) is not 00-23") }
    guard mm < 60 else { return .invalid(offset: 14, reason: "minute \(pad2(mm)) is not 00-59") }
    guard ss < 60 else { return .invalid(offset: 17, reason: "second \(pad2(ss)) is not 00-59") }
    let local = days + Int64(hh * 3600 + mm * 60 + ss)
    var i = 19
    if i < n && b[i] == UInt8(ascii: ".") {
      i += 1
      let start = i
      while i < n && b[i] &- zero < 10 { i += 1 }
      if i == start { return .invalid(offset: i, reason: "expected digits after '.'") }
    }
    if i == n { return .local(local) }
    let c = b[i]
    if c == UInt8(ascii: "Z") {
      if i + 1 == n { return .utc(local) }
      return .invalid(offset: i + 1, reason: "unexpected text after 'Z'")
    }
    guard c == UInt8(ascii: "+") || c == UInt8(ascii: "-") else {
      return .invalid(offset: i, reason: "expected 'Z', '+HH:MM' or '-HH:MM' after the time")
    }
    let sign: Int64 = c == UInt8(ascii: "-") ? -1 : 1
    let oh: Int
    let om: Int
    if n - i == 6, let h = digits(b, i + 1, 2), b[i + 3] == colon, let m = digits(b, i + 4, 2) {
      oh = h
      om = m
    } else if n - i == 5, let h = digits(b, i + 1, 2), let m = digits(b, i + 3, 2) {
      oh = h
      om = m
    } else {
      return .invalid(offset: i, reason: "expected the offset as ±HH:MM")
    }
    guard oh < 24, om < 60 else {
      return .invalid(
        offset: i, reason: "offset \(sign < 0 ? "-" : "+")\(pad2(oh)):\(pad2(om)) is out of range")
    }
    return .utc(local - sign * Int64(oh * 3600 + om * 60))
  }

  /// The usual date-times after a valid date with day number `days0`: `THH:MM:SS` (or a space
  /// for the `T`) and then nothing, `Z` or `±HH:MM`, the clock read in one word. The seconds,
  /// and whether they are UTC: what `parse(_:afterDate:)` gives for these texts; and the
  /// offset written (seconds east of UTC; 0 for local times and `Z`). nil for any other text
  /// (`parse(_:afterDate:)` then reads it, and says what is wrong).
  @inline(__always)
  static func quickTime(_ p: UnsafePointer<UInt8>, _ n: Int, afterDate days0: Int32)
    -> (seconds: Int64, utc: Bool, offset: Int64)?
  {
    guard n == 19 || n == 20 || n == 25, p[10] == UInt8(ascii: "T") || p[10] == UInt8(ascii: " "),
      let (hh, mm, ss) = clock(p + 11), hh < 24, mm < 60, ss < 60
    else { return nil }
    let local = Int64(days0) * 86_400 + Int64(hh * 3600 + mm * 60 + ss)
    if n == 19 { return (local, false, 0) }
    if n == 20 { return p[19] == UInt8(ascii: "Z") ? (local, true, 0) : nil }
    let sign = p[19]
    let h1 = p[20] &- zero
    let h2 = p[21] &- zero
    let m1 = p[23] &- zero
    let m2 = p[24] &- zero
    guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), p[22] == colon,
      h1 < 10, h2 < 10, m1 < 10, m2 < 10
    else { return nil }
    let oh = Int(h1) * 10 + Int(h2)
    let om = Int(m1) * 10 + Int(m2)
    guard oh < 24 && om < 60 else { return nil }
    let east = sign == UInt8(ascii: "-") ? -Int64(oh * 3600 + om * 60) : Int64(oh * 3600 + om * 60)
    return (local - east, true, east)
  }

  /// The `±HH:MM` of a 25-byte time (bytes 19...24) as one word, for telling whether two times
  /// have the same offset: the little-endian word at byte 17, its first two bytes (the seconds)
  /// cleared. Never `noOffsetWord`.
  @inline(__always)
  static func offsetWord(_ p: UnsafePointer<UInt8>) -> UInt64 {
    UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(fromByteOffset: 17, as: UInt64.self))
      & ~0xFFFF
  }

  /// A value `offsetWord` never has (its low bits are always clear): "no offset yet".
  static let noOffsetWord: UInt64 = 1

  /// What `epochSeconds` found.
  package enum Epoch: Sendable, Equatable {
    /// Seconds since 1970-01-01T00:00:00Z (an instant, like `Parsed.utc`).
    case seconds(Int64)
    /// Digits for a time after 9999-12-31T23:59:59Z (milliseconds, most likely).
    case outOfRange
    /// Not digits with an optional fraction.
    case notEpoch
  }

  /// The last second of year 9999 in Unix seconds (the latest ISO 8601 time accepted too).
  package static let maxEpochSeconds: Int64 = 253_402_300_799

  /// Unix epoch seconds: one or more ASCII digits, optionally `.` and one or more digits (the
  /// fraction is truncated to the second, as in ISO 8601 times). No sign, no exponent.
  package static func epochSeconds(_ b: UnsafeBufferPointer<UInt8>) -> Epoch {
    let n = b.count
    var i = 0
    var value: Int64 = 0
    var tooLarge = false
    while i < n, case let d = b[i] &- zero, d < 10 {
      if !tooLarge {
        value = value * 10 + Int64(d)
        tooLarge = value > maxEpochSeconds
      }
      i += 1
    }
    guard i > 0 else { return .notEpoch }
    if i < n {
      guard b[i] == UInt8(ascii: "."), i + 1 < n else { return .notEpoch }
      i += 1
      while i < n {
        guard b[i] &- zero < 10 else { return .notEpoch }
        i += 1
      }
    }
    return tooLarge ? .outOfRange : .seconds(value)
  }

  /// Days since 1970-01-01 of a valid date in years 1-9999 (the same proleptic Gregorian
  /// arithmetic as `DeckDate`, inlined for the hot path), or nil.
  @inline(__always)
  static func civilDays(_ year: Int, _ month: Int, _ day: Int) -> Int? {
    guard year >= 1, month >= 1, month <= 12, day >= 1 else { return nil }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    let length: Int
    switch month {
    case 2: length = leap ? 29 : 28
    case 4, 6, 9, 11: length = 30
    default: length = 31
    }
    guard day <= length else { return nil }
    let y = month <= 2 ? year - 1 : year
    let era = y / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// `HH:MM:SS` in the 8 bytes at `p` in one word: the three numbers, or nil when any byte is
  /// not the digit or colon it should be (the byte-wise path then says which).
  @inline(__always)
  static func clock(_ p: UnsafePointer<UInt8>) -> (Int, Int, Int)? {
    // Digits become 0...9 and colons 0 under the XOR.
    let x = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self) ^ 0x3030_3A30_303A_3030
    let highs: UInt64 = 0x8080_8080_8080_8080
    // A byte is below 10 when neither it nor its low seven bits plus 0x76 reach 0x80.
    let notBelow10 = (((x & ~highs) &+ 0x7676_7676_7676_7676) | x) & highs
    guard notBelow10 == 0 && x & 0x0000_FF00_00FF_0000 == 0 else { return nil }
    @inline(__always) func byte(_ k: UInt64) -> Int {
      Int(truncatingIfNeeded: (x >> (8 * k)) & 0xFF)
    }
    return (byte(0) * 10 + byte(1), byte(3) * 10 + byte(4), byte(6) * 10 + byte(7))
  }

  private static let dash = UInt8(ascii: "-")
  private static let colon = UInt8(ascii: ":")
  private static let zero = UInt8(ascii: "0")

  @inline(__always)
  private static func digits(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
    var value = 0
    for i in start..<(start + count) {
      let d = b[i] &- zero
      guard d < 10 else { return nil }
      value = value * 10 + Int(d)
    }
    return value
  }

  /// The first byte (from `from`) that does not match a pattern of `d` (digit) and literal bytes.
  private static func firstBad(
    _ b: UnsafeBufferPointer<UInt8>, from: Int = 0, pattern: StaticString
  ) -> Int {
    let p = UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount)
    for k in 0..<p.count {
      let i = from + k
      if i >= b.count { return k }
      let ok = p[k] == UInt8(ascii: "d") ? b[i] &- zero < 10 : b[i] == p[k]
      if !ok { return k }
    }
    return p.count
  }

  private static func pad2(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
  private static func pad4(_ v: Int) -> String {
    let s = String(v)
    return String(repeating: "0", count: max(0, 4 - s.count)) + s
  }
}
