import Testing

@testable import DeckCore

@Suite("DeckDate")
struct DeckDateTests {
  @Test(
    "parses valid dates",
    arguments: [
      ("1970-01-01", 0), ("1970-01-02", 1), ("1969-12-31", -1), ("2024-02-29", 19782),
      ("2026-11-29", 20786), ("2000-03-01", 11017), ("0001-01-01", -719162),
      ("9999-12-31", 2_932_896),
    ])
  func valid(text: String, days: Int32) throws {
    let date = try #require(DeckDate.parse(text))
    #expect(date.daysSinceEpoch == days)
    #expect(date.description == text)
  }

  @Test(
    "rejects invalid dates",
    arguments: [
      "2026-02-29", "2100-02-29", "2026-1-01", "2026-01-1", "2026-13-01", "2026-00-10",
      "2026-04-31", "2026-01-00", "0000-01-01", "", "2026/01/01", "2026-01-01 ", " 2026-01-01",
      "2026-01-01T00:00", "20260101", "2026-0a-01", "+026-01-01", "２０２６-01-01",
    ])
  func invalid(text: String) {
    #expect(DeckDate.parse(text) == nil)
  }

  @Test("2000-02-29 is valid (divisible by 400), 1900-02-29 is not")
  func centuryLeapYears() {
    #expect(DeckDate.parse("2000-02-29") != nil)
    #expect(DeckDate.parse("1900-02-29") == nil)
  }

  @Test(
    "weekdays of known dates",
    arguments: [
      ("2026-11-29", Weekday.sunday), ("2026-11-30", .monday), ("1970-01-01", .thursday),
      ("1969-12-31", .wednesday), ("2024-02-29", .thursday), ("2000-01-01", .saturday),
      ("2026-01-01", .thursday),
    ])
  func weekday(text: String, expected: Weekday) throws {
    #expect(try #require(DeckDate.parse(text)).weekday == expected)
  }

  @Test("round trip over every day from 1899 to 2101")
  func roundTrip() throws {
    let start = try #require(DeckDate(year: 1899, month: 1, day: 1))
    let end = try #require(DeckDate(year: 2101, month: 12, day: 31))
    var previous: (year: Int, month: Int, day: Int)? = nil
    var weekday = start.weekday.rawValue
    for d in start.daysSinceEpoch...end.daysSinceEpoch {
      let date = DeckDate(daysSinceEpoch: d)
      let c = date.components
      #expect(DeckDate(year: c.year, month: c.month, day: c.day) == date)
      #expect(DeckDate.parse(date.description) == date)
      #expect(date.weekday.rawValue == weekday)
      weekday = weekday % 7 + 1
      if let p = previous {
        // Consecutive days: the day advances, or a new month/year begins on day 1.
        if c.day != p.day + 1 {
          #expect(c.day == 1)
          #expect(p.day == DeckDate.daysInMonth(year: p.year, month: p.month))
        }
      }
      previous = c
    }
  }

  @Test("arithmetic and ordering")
  func arithmetic() throws {
    let a = try #require(DeckDate.parse("2026-02-28"))
    #expect(a.adding(days: 1).description == "2026-03-01")
    #expect(a.adding(days: -59).description == "2025-12-31")
    #expect(a.adding(days: 1).days(since: a) == 1)
    #expect(a.days(since: a.adding(days: 10)) == -10)
    #expect(a < a.adding(days: 1))
  }

  @Test("weekday names")
  func weekdayNames() {
    #expect(Weekday(name: "Sunday") == .sunday)
    #expect(Weekday(name: "sun") == .sunday)
    #expect(Weekday(name: "MON") == .monday)
    #expect(Weekday(name: "mo") == nil)
    #expect(Weekday.sunday.rawValue == 7)
    #expect(Weekday.monday.rawValue == 1)
  }
}
