import DeckCore
import Testing

@testable import DeckIO

private func written(_ events: [LogEvent], _ format: EventFormat, drags: Bool = false)
  throws(DeckIOError) -> String
{
  let out = MemoryOutput()
  let writer = EventWriter(format: format, output: out, drags: drags)
  for e in events { try writer.write(e) }
  try writer.finish()
  return out.text
}

private func readBack(_ text: String, _ format: EventFormat, rule: SwipeRule = .foodMenu)
  throws(DeckIOError) -> (events: [SwipeEvent], stats: EventReadStats)
{
  var sink = SwipeEventCollector()
  let stats = try EventReader(options: EventReaderOptions(swipeRule: rule)).read(
    text: text, name: "written", format: format, into: &sink)
  return (sink.events, stats)
}

private let day = DeckDate(year: 2026, month: 1, day: 10)!
private func at(_ h: Int64, _ m: Int64, _ s: Int64) -> Int64 {
  Int64(day.daysSinceEpoch) * 86_400 + h * 3600 + m * 60 + s
}

/// Swipes with every optional field present and absent, awkward text, and awkward numbers.
private let swipes: [SwipeEvent] = [
  SwipeEvent(
    user: "s00001", item: "ramen", swipe: .right, at: at(12, 3, 7), position: 2, deck: day,
    propensity: 0.125, prefixPropensity: 0.03125),
  SwipeEvent(user: "s00001", item: "miso, red", swipe: .left, at: at(0, 0, 0)),
  SwipeEvent(
    user: "caf\u{e9} \"bob\"", item: "line\nbreak", swipe: .right, at: at(23, 59, 59),
    position: 10, deck: day.adding(days: -1), propensity: 1.0 / 3.0,
    prefixPropensity: 1.0 / 9.0),
  SwipeEvent(
    user: "u", item: "tiny", swipe: .left, at: -1, position: 1000, propensity: 1.25e-7,
    prefixPropensity: 5e-324),
  // A prefix propensity without a propensity is written and read back as it is (the
  // off-policy reader refuses such an event; the writer and the reader only check ranges).
  SwipeEvent(user: "u", item: "two", swipe: .left, at: at(8, 0, 1), prefixPropensity: 1),
  SwipeEvent(user: "u", item: "one", swipe: .right, at: at(8, 0, 0), propensity: 1),
]

@Suite("event writer")
struct EventWriterTests {
  @Test("JSON Lines: exact bytes, fields in schema order, absent fields left out")
  func jsonBytes() throws {
    let text = try written(Array(swipes.prefix(2)).map(LogEvent.init), .jsonLines)
    #expect(
      text == """
        {"user":"s00001","item":"ramen","swipe":"right","at":"2026-01-10T12:03:07","position":2,"deck":"2026-01-10","propensity":0.125,"prefix_propensity":0.03125}
        {"user":"s00001","item":"miso, red","swipe":"left","at":"2026-01-10T00:00:00"}

        """)
  }

  @Test("CSV: exact bytes, header first, empty fields for what is not logged, quoting")
  func csvBytes() throws {
    let text = try written(Array(swipes.prefix(3)).map(LogEvent.init), .csv)
    let expected = [
      "user,item,swipe,at,position,deck,propensity,prefix_propensity",
      "s00001,ramen,right,2026-01-10T12:03:07,2,2026-01-10,0.125,0.03125",
      "s00001,\"miso, red\",left,2026-01-10T00:00:00,,,,",
      "\"caf\u{e9} \"\"bob\"\"\",\"line\nbreak\",right,2026-01-10T23:59:59,10,2026-01-09,0.3333333333333333,"
        + "0.1111111111111111",
    ]
    #expect(text == expected.joined(separator: "\n") + "\n")
  }

  @Test(
    "prefix propensities: after propensity in JSON Lines, their own CSV cell, empty when absent")
  func prefixPropensities() throws {
    let lines = [
      LogEvent(
        user: "u", item: "a", swipe: .right, at: 0, position: 1, propensity: 0.5,
        prefixPropensity: 0.5),
      LogEvent(
        user: "u", item: "b", swipe: nil, drag: LoggedDrag(dx: -200, width: 390), at: 1,
        position: 2, propensity: 0.25, prefixPropensity: 0.0625),
      LogEvent(user: "u", item: "c", swipe: .left, at: 2, position: 3, propensity: 0.125),
    ]
    #expect(
      try written(lines, .jsonLines) == """
        {"user":"u","item":"a","swipe":"right","at":"1970-01-01T00:00:00","position":1,"propensity":0.5,"prefix_propensity":0.5}
        {"user":"u","item":"b","at":"1970-01-01T00:00:01","position":2,"propensity":0.25,"prefix_propensity":0.0625,"dx":-200,"width":390}
        {"user":"u","item":"c","swipe":"left","at":"1970-01-01T00:00:02","position":3,"propensity":0.125}

        """)
    #expect(
      try written(lines, .csv, drags: true) == """
        user,item,swipe,at,position,deck,propensity,prefix_propensity,dx,width
        u,a,right,1970-01-01T00:00:00,1,,0.5,0.5,,
        u,b,,1970-01-01T00:00:01,2,,0.25,0.0625,-200,390
        u,c,left,1970-01-01T00:00:02,3,,0.125,,,

        """)
    for format in EventFormat.allCases {
      let (events, _) = try readBack(try written(lines, format, drags: true), format)
      #expect(events.map(\.prefixPropensity) == [0.5, 0.0625, nil], "\(format)")
      #expect(events.map(\.propensity) == [0.5, 0.25, 0.125], "\(format)")
    }
  }

  @Test("an empty CSV log is its header; an empty JSON Lines log is empty")
  func empty() throws {
    #expect(
      try written([], .csv) == "user,item,swipe,at,position,deck,propensity,prefix_propensity\n")
    #expect(
      try written([], .csv, drags: true)
        == "user,item,swipe,at,position,deck,propensity,prefix_propensity,dx,width\n")
    #expect(try written([], .jsonLines) == "")
  }

  @Test("the event reader gives back exactly the events written", arguments: EventFormat.allCases)
  func roundTrip(format: EventFormat) throws {
    let text = try written(swipes.map(LogEvent.init), format)
    let (events, stats) = try readBack(text, format)
    #expect(events == swipes)
    #expect(stats.events == swipes.count)
  }

  @Test(
    "raw drags read back as the rule decides them; springs-back count as hesitations",
    arguments: EventFormat.allCases)
  func drags(format: EventFormat) throws {
    let lines = [
      LogEvent(user: "u", item: "a", swipe: nil, drag: LoggedDrag(dx: 175.6, width: 390), at: 60),
      LogEvent(user: "u", item: "b", swipe: nil, drag: LoggedDrag(dx: -175.5, width: 390), at: 61),
      LogEvent(user: "u", item: "b", swipe: nil, drag: LoggedDrag(dx: -175.6, width: 390), at: 62),
      LogEvent(user: "u", item: "c", swipe: .right, at: 63, position: 3),
    ]
    let text = try written(lines, format, drags: true)
    let (events, stats) = try readBack(text, format)
    #expect(
      events == [
        SwipeEvent(user: "u", item: "a", swipe: .right, at: 60),
        SwipeEvent(user: "u", item: "b", swipe: .left, at: 62),
        SwipeEvent(user: "u", item: "c", swipe: .right, at: 63, position: 3),
      ])
    #expect(stats.hesitations == 1)
    if format == .csv {
      #expect(text.split(separator: "\n")[1] == "u,a,,1970-01-01T00:01:00,,,,,175.6,390")
    } else {
      #expect(
        text.split(separator: "\n")[0]
          == #"{"user":"u","item":"a","at":"1970-01-01T00:01:00","dx":175.6,"width":390}"#)
    }
  }

  @Test("drags without a width under the absolute rule")
  func absoluteDrags() throws {
    let lines = [
      LogEvent(user: "u", item: "a", swipe: nil, drag: LoggedDrag(dx: -100.1, width: nil), at: 0),
      LogEvent(user: "u", item: "a", swipe: nil, drag: LoggedDrag(dx: 100, width: nil), at: 1),
    ]
    for format in EventFormat.allCases {
      let (events, stats) = try readBack(
        try written(lines, format, drags: true), format, rule: .cardDeck)
      #expect(events == [SwipeEvent(user: "u", item: "a", swipe: .left, at: 0)])
      #expect(stats.hesitations == 1)
    }
  }

  @Test(
    "numbers: shortest round-trip digits in plain decimal",
    arguments: [
      (0.125, "0.125"), (1, "1"), (390, "390"), (-187.5, "-187.5"), (0.1, "0.1"),
      (1.25e-7, "0.000000125"), (1e-5, "0.00001"), (1.0 / 3.0, "0.3333333333333333"),
      (1e21, "1000000000000000000000"), (-0.0, "0"), (123456.789, "123456.789"),
      (5e-324, "0." + String(repeating: "0", count: 323) + "5"),
    ])
  func numbers(value: Double, expected: String) {
    #expect(EventWriter.plainDecimal(value) == expected)
    #expect(Double(expected) == value)
  }

  @Test("timestamps: local wall clock, before 1970 included")
  func timestamps() {
    var out: [UInt8] = []
    EventWriter.appendTimestamp(-1, to: &out)
    out.append(0x20)
    EventWriter.appendTimestamp(86_399, to: &out)
    out.append(0x20)
    EventWriter.appendTimestamp(at(9, 8, 7), to: &out)
    #expect(
      String(decoding: out, as: UTF8.self)
        == "1969-12-31T23:59:59 1970-01-01T23:59:59 2026-01-10T09:08:07")
  }

  @Test("output is flushed in blocks and in full at the end")
  func largeOutput() throws {
    let out = MemoryOutput()
    let writer = EventWriter(format: .jsonLines, output: out)
    let event = LogEvent(swipes[0])
    for _ in 0..<2000 { try writer.write(event) }
    #expect(out.bytes.count >= 1 << 16)
    try writer.finish()
    #expect(writer.count == 2000)
    #expect(out.text.split(separator: "\n").count == 2000)
    let (events, _) = try readBack(out.text, .jsonLines)
    #expect(events == Array(repeating: swipes[0], count: 2000))
  }
}
