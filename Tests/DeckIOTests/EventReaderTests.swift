import DeckCore
import Foundation
import Testing

@testable import DeckIO

/// Seconds since 1970 of a local date and time.
func localTime(_ y: Int, _ m: Int, _ d: Int, _ hh: Int = 0, _ mm: Int = 0, _ ss: Int = 0) -> Int64 {
  Int64(DeckDate(year: y, month: m, day: d)!.daysSinceEpoch) * 86_400
    + Int64(hh * 3600 + mm * 60 + ss)
}

/// Reads a log from memory into a collector.
func readEvents(
  _ text: String, _ format: EventFormat, options: EventReaderOptions = EventReaderOptions(),
  name: String = "log"
) throws(DeckIOError) -> (events: [SwipeEvent], stats: EventReadStats) {
  try readEvents(bytes: Array(text.utf8), format, options: options, name: name)
}

func readEvents(
  bytes: [UInt8], _ format: EventFormat, options: EventReaderOptions = EventReaderOptions(),
  name: String = "log"
) throws(DeckIOError) -> (events: [SwipeEvent], stats: EventReadStats) {
  var sink = SwipeEventCollector()
  let stats = try EventReader(options: options).read(
    bytes: bytes, name: name, format: format, into: &sink)
  return (sink.events, stats)
}

/// What parsing one record gave, as text to compare fast and general paths: the event, another
/// kind, or the failure with its offset, field and message. A CSV record is read after `header`.
func parseOutcome(
  _ line: [UInt8], format: EventFormat, fast: Bool, header: String?, eof: Bool = true,
  delimiter: CSVDelimiter = .comma
) -> String {
  var parser = RecordParser(
    rule: .foodMenu, zone: FixedUTCOffset(seconds: 3600), format: format, delimiter: delimiter)
  parser.fastPaths = fast
  if let header {
    let h = Array(header.utf8)
    let kind = h.withUnsafeBufferPointer { b in
      try? parser.parse(b.baseAddress!, available: b.count, eof: true).kind
    }
    precondition(kind == .header, "the header must parse")
  }
  return line.withUnsafeBufferPointer { b -> String in
    do throws(LineFailure) {
      let o = try parser.parse(b.baseAddress!, available: b.count, eof: eof)
      let e = parser.event
      let event =
        o.kind == .event
        ? "\(e.userString)|\(e.itemString)|\(e.swipe)|\(e.at)|\(e.position)|"
          + "\(String(describing: e.deck))|\(String(describing: e.propensity))"
          // Only when logged, so that the outcomes of logs without it read as they always did.
          + (e.prefixPropensity.map { "|prefix \($0)" } ?? "") : ""
      return "\(o.kind) \(o.consumed) \(o.lines) \(event)"
    } catch {
      return "failure \(error.offset) \(error.field?.name ?? "-") \(error.message)"
    }
  }
}

private let tokyo = FixedUTCOffset(seconds: 9 * 3600)

/// The same six events (two of them raw drags, one a hesitation) in both formats.
private let sampleJSONL = """
  {"user":"u0042","item":"nikujaga","swipe":"right","at":"2026-11-20T19:05:12+09:00","position":3,"deck":"2026-11-20"}
  {"user":"u0042","item":"miso, red","swipe":"left","at":"2026-11-20T10:05:13Z","position":4,"deck":"2026-11-20","propensity":0.25,"prefix_propensity":0.0625}
  {"user":"caf\\u00e9 \\"bob\\"","item":"gyoza","swipe":"right","at":"2026-11-21 08:00:00"}
  {"user":"u7","item":"ramen","dx":-200,"width":300,"at":"2026-11-21"}
  {"user":"u7","item":"udon","dx":40,"width":300,"at":"2026-11-21"}
  {"user":"u7","item":"soba","dx":150.5,"width":300,"at":"2026-11-21T23:59:59.9","position":1,"propensity":1,"prefix_propensity":1e-0}

  """

private let sampleCSV = #"""
  deck,at,user,item,swipe,position,propensity,dx,width,prefix_propensity,comment\#r
  2026-11-20,2026-11-20T19:05:12+09:00,u0042,nikujaga,right,3,,,,,first\#r
  2026-11-20,2026-11-20T10:05:13Z,u0042,"miso, red",left,4,0.25,,,"0.0625",\#r
  ,2026-11-21 08:00:00,"café ""bob""",gyoza,right,,,,,,"multi\#r
  line ""note"""\#r
  ,2026-11-21,u7,ramen,,,,-200,300,,\#r
  ,2026-11-21,u7,udon,,,,40,300,,\#r
  ,2026-11-21T23:59:59.9,u7,soba,,1,1,150.5,300,1,\#r

  """#

private let sampleEvents: [SwipeEvent] = [
  SwipeEvent(
    user: "u0042", item: "nikujaga", swipe: .right, at: localTime(2026, 11, 20, 19, 5, 12),
    position: 3, deck: DeckDate(year: 2026, month: 11, day: 20)),
  SwipeEvent(
    user: "u0042", item: "miso, red", swipe: .left, at: localTime(2026, 11, 20, 19, 5, 13),
    position: 4, deck: DeckDate(year: 2026, month: 11, day: 20), propensity: 0.25,
    prefixPropensity: 0.0625),
  SwipeEvent(
    user: "café \"bob\"", item: "gyoza", swipe: .right, at: localTime(2026, 11, 21, 8)),
  SwipeEvent(user: "u7", item: "ramen", swipe: .left, at: localTime(2026, 11, 21)),
  SwipeEvent(
    user: "u7", item: "soba", swipe: .right, at: localTime(2026, 11, 21, 23, 59, 59),
    position: 1, propensity: 1, prefixPropensity: 1),
]

@Suite struct EventReaderTests {
  @Test func typicalLine() throws {
    let line = """
      {"user":"u0042","item":"nikujaga","swipe":"right","at":"2026-11-20T19:05:12+09:00","position":3,"deck":"2026-11-20"}
      """
    let (events, stats) = try readEvents(line, .jsonLines, options: .init(zone: tokyo))
    #expect(
      events == [
        SwipeEvent(
          user: "u0042", item: "nikujaga", swipe: .right, at: localTime(2026, 11, 20, 19, 5, 12),
          position: 3, deck: DeckDate(year: 2026, month: 11, day: 20))
      ])
    #expect(stats.lines == 1)
    #expect(stats.events == 1)
    #expect(stats.right == 1)
    #expect(stats.bytes == line.utf8.count)
    // The same instant in a UTC configuration is 10:05:12.
    let utc = try readEvents(line, .jsonLines, options: .init(zone: FixedUTCOffset.utc))
    #expect(utc.events.map(\.at) == [localTime(2026, 11, 20, 10, 5, 12)])
  }

  @Test func jsonLinesAndCSVGiveIdenticalEvents() throws {
    let options = EventReaderOptions(swipeRule: .foodMenu, zone: tokyo)
    let json = try readEvents(sampleJSONL, .jsonLines, options: options)
    let csv = try readEvents(sampleCSV, .csv, options: options)
    #expect(json.events == sampleEvents)
    #expect(csv.events == sampleEvents)
    for stats in [json.stats, csv.stats] {
      #expect(stats.events == 5)
      #expect(stats.right == 3)
      #expect(stats.left == 2)
      #expect(stats.hesitations == 1)
      #expect(stats.skippedLines == 0)
    }
    // JSON: 6 lines; CSV: header + 6 rows, one of them on two lines.
    #expect(json.stats.lines == 6)
    #expect(csv.stats.lines == 8)
  }

  @Test func jsonEscapesInIDsAndValues() throws {
    let text = #"""
      {"user":"caf\u00E9","item":"sushi \ud83c\udf63","swipe":"ri\u0067ht","at":"2026-11-20"}
      {"user":"a\\b\/c","item":"tab\there\nnl \"q\"","swipe":"left","at":"2026\u002d11-20"}
      {"us\u0065r":"keyed","item":"x","swipe":"left","at":"2026-11-20"}
      """#
    let (events, _) = try readEvents(text, .jsonLines)
    #expect(events.map(\.user) == ["café", "a\\b/c", "keyed"])
    #expect(events.map(\.item) == ["sushi 🍣", "tab\there\nnl \"q\"", "x"])
    #expect(events.map(\.swipe) == [.right, .left, .left])
    #expect(events.map(\.at) == Array(repeating: localTime(2026, 11, 20), count: 3))
  }

  @Test func unknownFieldsOfAnyShapeAreSkipped() throws {
    let text = """
      {"v":2,"meta":{"a":[1,{"b":"}]\\"{"}],"c":null,"d":{}},"user":"u1","tags":["x",[],[[-1.5e3]]],"item":"a","ok":true,"no":false,"swipe":"left","at":"2026-11-20","z":"é\\u00e9"}
      { "user" : "u2" , "item" : "b" , "swipe" : "right" , "at" : "2026-11-20" , "extra" : [ ] }
      """
    let (events, stats) = try readEvents(text, .jsonLines)
    #expect(events.map(\.user) == ["u1", "u2"])
    #expect(events.map(\.item) == ["a", "b"])
    #expect(stats.events == 2)
  }

  @Test func nullMeansNotLoggedForOptionalFields() throws {
    let text = """
      {"user":"u1","item":"a","swipe":"left","at":"2026-11-20","position":null,"deck":null,"propensity":null,"prefix_propensity":null,"width":null}
      """
    let (events, _) = try readEvents(text, .jsonLines)
    #expect(
      events == [SwipeEvent(user: "u1", item: "a", swipe: .left, at: localTime(2026, 11, 20))])
  }

  @Test(arguments: [EventFormat.jsonLines, .csv])
  func chunkBoundariesAnywhere(format: EventFormat) throws {
    let text = format == .csv ? sampleCSV : sampleJSONL
    let reference = try readEvents(text, format, options: .init(zone: tokyo))
    #expect(reference.events == sampleEvents)
    // Every chunk size from the minimum up puts line ends (and the CRLF, the quoted line break
    // and the BOM) at every position relative to a chunk end.
    let bytes = [0xEF, 0xBB, 0xBF] + Array(text.utf8)
    for chunk in 16...80 {
      let got = try readEvents(bytes: bytes, format, options: .init(zone: tokyo, chunkSize: chunk))
      #expect(got.events == sampleEvents, "chunk size \(chunk)")
      #expect(got.stats.lines == reference.stats.lines, "chunk size \(chunk)")
      #expect(got.stats.bytes == bytes.count, "chunk size \(chunk)")
    }
  }

  @Test func longLinesGrowTheBuffer() throws {
    let long = String(repeating: "x", count: 5000)
    let text = """
      {"user":"u1","item":"a","swipe":"left","at":"2026-11-20","note":"\(long)"}
      {"user":"\(long)","item":"a","swipe":"right","at":"2026-11-20"}
      """
    let (events, _) = try readEvents(text, .jsonLines, options: .init(chunkSize: 16))
    #expect(events.map(\.user) == ["u1", long])
  }

  @Test func crlfBOMAndNoFinalNewline() throws {
    let json =
      "\u{FEFF}{\"user\":\"u1\",\"item\":\"a\",\"swipe\":\"left\",\"at\":\"2026-11-20\"}\r\n"
      + "{\"user\":\"u2\",\"item\":\"b\",\"swipe\":\"right\",\"at\":\"2026-11-21\"}"
    let csv = "\u{FEFF}user,item,swipe,at\r\nu1,a,left,2026-11-20\r\nu2,b,right,2026-11-21"
    let expected = [
      SwipeEvent(user: "u1", item: "a", swipe: .left, at: localTime(2026, 11, 20)),
      SwipeEvent(user: "u2", item: "b", swipe: .right, at: localTime(2026, 11, 21)),
    ]
    #expect(try readEvents(json, .jsonLines).events == expected)
    #expect(try readEvents(csv, .csv).events == expected)
    // A quoted last field at the very end, and a CRLF right after a closing quote.
    let quoted =
      "user,item,swipe,at\r\n\"u1\",\"a\",\"left\",\"2026-11-20\"\r\nu2,b,right,\"2026-11-21\""
    #expect(try readEvents(quoted, .csv).events == expected)
  }

  @Test func blankLinesAreCountedAndIgnored() throws {
    let json =
      "\n  \n{\"user\":\"u1\",\"item\":\"a\",\"swipe\":\"left\",\"at\":\"2026-11-20\"}\n\r\n\t\n"
    let (events, stats) = try readEvents(json, .jsonLines)
    #expect(events.count == 1)
    #expect(stats.lines == 5)
    let csv = "\nuser,item,swipe,at\n\nu1,a,left,2026-11-20\r\n\r\n"
    let c = try readEvents(csv, .csv)
    #expect(c.events.count == 1)
    #expect(c.stats.lines == 5)
  }

  @Test func emptyLogsHaveNoEvents() throws {
    #expect(try readEvents("", .jsonLines).stats.events == 0)
    #expect(try readEvents("", .csv).stats.events == 0)
    #expect(try readEvents("user,item,swipe,at\n", .csv).stats.lines == 1)
  }

  @Test func csvQuotingRules() throws {
    let csv = #"""
      "user","it""em",item,"swipe","at"
      "u ""1""","x","a,b","left","2026-11-20"
      u2,,"b",right,2026-11-20
      """#
    let (events, _) = try readEvents(csv, .csv)
    // `it"em` is an unknown column; "" is an empty field.
    #expect(events.map(\.user) == ["u \"1\"", "u2"])
    #expect(events.map(\.item) == ["a,b", "b"])
  }
}
