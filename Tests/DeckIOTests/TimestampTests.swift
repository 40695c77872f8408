import DeckCore
import Foundation
import Testing

@testable import DeckIO

/// Seconds since 1970 of a calendar date at midnight.
private func midnight(_ y: Int, _ m: Int, _ d: Int) -> Int64 {
  Int64(DeckDate(year: y, month: m, day: d)!.daysSinceEpoch) * 86_400
}

@Suite struct TimestampTests {
  @Test func plainDateIsLocalMidnight() {
    #expect(Timestamp.parse("2026-11-20") == .local(midnight(2026, 11, 20)))
    #expect(Timestamp.parse("1970-01-01") == .local(0))
    #expect(Timestamp.parse("1969-12-31") == .local(-86_400))
  }

  @Test func dateTimeWithoutZoneIsLocal() {
    let base = midnight(2026, 11, 20)
    #expect(Timestamp.parse("2026-11-20T19:05:12") == .local(base + 68_712))
    #expect(Timestamp.parse("2026-11-20 19:05:12") == .local(base + 68_712))
    #expect(Timestamp.parse("2026-11-20T00:00:00") == .local(base))
    #expect(Timestamp.parse("2026-11-20T23:59:59") == .local(base + 86_399))
  }

  @Test func fractionIsTruncatedToTheSecond() {
    let base = midnight(2026, 11, 20) + 68_712
    #expect(Timestamp.parse("2026-11-20T19:05:12.999") == .local(base))
    #expect(Timestamp.parse("2026-11-20T19:05:12.0") == .local(base))
    #expect(Timestamp.parse("2026-11-20T19:05:12.123456789Z") == .utc(base))
  }

  @Test func zoneDesignatorsGiveUTC() {
    let base = midnight(2026, 11, 20) + 68_712
    #expect(Timestamp.parse("2026-11-20T19:05:12Z") == .utc(base))
    #expect(Timestamp.parse("2026-11-20T19:05:12+09:00") == .utc(base - 32_400))
    #expect(Timestamp.parse("2026-11-20T19:05:12+0900") == .utc(base - 32_400))
    #expect(Timestamp.parse("2026-11-20T19:05:12-05:30") == .utc(base + 19_800))
    #expect(Timestamp.parse("2026-11-20T19:05:12+00:00") == .utc(base))
    #expect(Timestamp.parse("2026-11-20T19:05:12+23:59") == .utc(base - 86_340))
  }

  @Test func leapDays() {
    #expect(Timestamp.parse("2024-02-29") == .local(midnight(2024, 2, 29)))
    #expect(Timestamp.parse("2000-02-29") == .local(midnight(2000, 2, 29)))
    #expect(
      Timestamp.parse("2100-02-29") == .invalid(offset: 8, reason: "2100-02 has no day 29"))
  }

  @Test(arguments: [
    ("2026-02-30", 8, "2026-02 has no day 30"),
    ("2026-04-31T10:00:00Z", 8, "2026-04 has no day 31"),
    ("2026-13-01", 5, "month 13 is not 01-12"),
    ("2026-00-10", 5, "month 0 is not 01-12"),
    ("2026-11-00", 8, "2026-11 has no day 00"),
    ("2026-11-20T25:00:00", 11, "hour 25 is not 00-23"),
    ("2026-11-20T24:00:00", 11, "hour 24 is not 00-23"),
    ("2026-11-20T10:60:00", 14, "minute 60 is not 00-59"),
    ("2026-11-20T10:00:60", 17, "second 60 is not 00-59"),
    ("2026-11-20T19:05", 16, "expected the time as HH:MM:SS"),
    ("2026-11-20T19-05-12", 13, "expected the time as HH:MM:SS"),
    ("2026-11-20X19:05:12", 10, "expected 'T' or a space after the date"),
    ("2026-11-20T19:05:12.", 20, "expected digits after '.'"),
    ("2026-11-20T19:05:12Zx", 20, "unexpected text after 'Z'"),
    ("2026-11-20T19:05:12+9", 19, "expected the offset as ±HH:MM"),
    ("2026-11-20T19:05:12+24:00", 19, "offset +24:00 is out of range"),
    ("2026-11-20T19:05:12 +09:00", 19, "expected 'Z', '+HH:MM' or '-HH:MM' after the time"),
    ("2026-1-200", 6, "not a date"),
    ("20261120", 0, "too short"),
    ("", 0, "too short"),
    ("yesterday!", 0, "not a date"),
  ])
  func invalidTimestamps(text: String, offset: Int, reason: String) {
    #expect(Timestamp.parse(text) == .invalid(offset: offset, reason: reason))
  }

  @Test func localSecondsUsesTheZone() {
    let tokyo = FixedUTCOffset(seconds: 32_400)
    // 23:30 UTC is the next day in Tokyo.
    #expect(
      Timestamp.localSeconds("2026-11-20T23:30:00Z", in: tokyo)
        == midnight(2026, 11, 21) + 30_600)
    // Already local: unchanged.
    #expect(
      Timestamp.localSeconds("2026-11-20T23:30:00", in: tokyo) == midnight(2026, 11, 20) + 84_600)
    #expect(Timestamp.localSeconds("2026-11-20T23:30:00Q", in: tokyo) == nil)
  }

  @Test func timeZoneOffsetsFollowDaylightSavingTime() throws {
    let berlin = TimeZoneOffsets(try #require(TimeZone(identifier: "Europe/Berlin")))
    // 2026-03-29 01:00:00Z: Berlin goes from +01:00 to +02:00.
    let switchAt = midnight(2026, 3, 29) + 3600
    #expect(berlin.offset(atUTC: switchAt - 1) == 3600)
    #expect(berlin.offset(atUTC: switchAt) == 7200)
    // Cached answers are the same.
    #expect(berlin.offset(atUTC: switchAt - 1) == 3600)
    #expect(berlin.offset(atUTC: switchAt + 1800) == 7200)
    // 2026-10-25 01:00:00Z: back to +01:00.
    let back = midnight(2026, 10, 25) + 3600
    #expect(berlin.offset(atUTC: back - 1) == 7200)
    #expect(berlin.offset(atUTC: back) == 3600)
  }

  @Test func halfHourTransitionsInsideAUTCHourAreExact() throws {
    // Adelaide leaves daylight time (+10:30 -> +09:30) on 2026-04-05 at 03:00 local, which is
    // 2026-04-04T16:30:00Z: in the middle of a UTC hour.
    let tz = try #require(TimeZone(identifier: "Australia/Adelaide"))
    let adelaide = TimeZoneOffsets(tz)
    let switchAt = midnight(2026, 4, 4) + 16 * 3600 + 1800
    for s in [switchAt - 1800, switchAt - 1, switchAt, switchAt + 1, switchAt + 1799] {
      let expected = tz.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(s)))
      #expect(adelaide.offset(atUTC: s) == expected)
      #expect(adelaide.offset(atUTC: s) == expected)
    }
    #expect(adelaide.offset(atUTC: switchAt - 1) == 37_800)
    #expect(adelaide.offset(atUTC: switchAt) == 34_200)
  }

  @Test func negativeInstantsUseTheirOwnHour() throws {
    let utc = TimeZoneOffsets(try #require(TimeZone(identifier: "UTC")))
    #expect(utc.offset(atUTC: -1) == 0)
    #expect(utc.offset(atUTC: -3600) == 0)
    #expect(FixedUTCOffset(seconds: -18_000).offset(atUTC: 123) == -18_000)
  }

  @Test func calendarArithmeticMatchesDeckDate() {
    for year in [1, 2, 3, 4, 1599, 1600, 1601, 1899, 1900, 1969, 1970, 2000, 2024, 2100, 9999] {
      for month in 1...12 {
        for day in 1...32 {
          let expected = DeckDate(year: year, month: month, day: day).map { Int($0.daysSinceEpoch) }
          #expect(Timestamp.civilDays(year, month, day) == expected, "\(year)-\(month)-\(day)")
        }
      }
    }
    #expect(Timestamp.civilDays(0, 1, 1) == nil)
    #expect(Timestamp.civilDays(2026, 0, 1) == nil)
    #expect(Timestamp.civilDays(2026, 13, 1) == nil)
    #expect(Timestamp.civilDays(2026, 1, 0) == nil)
  }

  @Test func wordClockMatchesTheByteByByteReading() {
    // HH:MM:SS read as one word against a byte-by-byte reading, on bytes that are digits,
    // colons and their neighbours (`/` and `:` around the digits, `;` after the colon, high
    // and control bytes), in every position.
    let alphabet: [UInt8] = Array("0123456789:/;.T ".utf8) + [0x00, 0x7F, 0x80, 0xB0, 0xBA, 0xFF]
    var random = RandomStream(seed: 8)
    var valid = 0
    for round in 0..<100_000 {
      var b: [UInt8] = Array("12:34:56".utf8)
      // One to three bytes changed, or (every fourth round) none: valid clocks stay common.
      if round % 4 != 0 {
        for _ in 0..<(1 + random.nextInt(below: 3)) {
          b[random.nextInt(below: 8)] = alphabet[random.nextInt(below: alphabet.count)]
        }
      } else {
        for k in [0, 1, 3, 4, 6, 7] { b[k] = UInt8(ascii: "0") + UInt8(random.nextInt(below: 10)) }
      }
      func digit(_ k: Int) -> Int? {
        b[k] >= UInt8(ascii: "0") && b[k] <= UInt8(ascii: "9") ? Int(b[k] - UInt8(ascii: "0")) : nil
      }
      var expected: (Int, Int, Int)? = nil
      if let h0 = digit(0), let h1 = digit(1), b[2] == UInt8(ascii: ":"), let m0 = digit(3),
        let m1 = digit(4), b[5] == UInt8(ascii: ":"), let s0 = digit(6), let s1 = digit(7)
      {
        expected = (h0 * 10 + h1, m0 * 10 + m1, s0 * 10 + s1)
      }
      let got = b.withUnsafeBufferPointer { Timestamp.clock($0.baseAddress!) }
      #expect(got.map { [$0.0, $0.1, $0.2] } == expected.map { [$0.0, $0.1, $0.2] }, "\(b)")
      if expected != nil { valid += 1 }
    }
    #expect(valid > 25_000)
    // Through the whole parser: the errors keep their offsets.
    #expect(
      Timestamp.parse("2026-11-20T1a:00:00")
        == .invalid(offset: 12, reason: "expected the time as HH:MM:SS"))
    #expect(
      Timestamp.parse("2026-11-20T10:00;00")
        == .invalid(offset: 16, reason: "expected the time as HH:MM:SS"))
    #expect(
      Timestamp.parse("2026-11-20T24:00:00")
        == .invalid(offset: 11, reason: "hour 24 is not 00-23"))
    #expect(Timestamp.parse("2026-11-20T23:59:59") == .local(midnight(2026, 11, 20) + 86_399))
  }
}
