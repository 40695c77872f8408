import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckIO

private let good = #"{"user":"u0","item":"a","swipe":"left","at":"2026-11-20"}"#
private let times = "YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]"

/// The error of reading `good` followed by `line` (so the bad line is line 2).
private func eventJSONError(_ line: String, rule: SwipeRule = .foodMenu) -> DeckIOError? {
  do {
    _ = try readEvents(good + "\n" + line + "\n", .jsonLines, options: .init(swipeRule: rule))
    return nil
  } catch { return error }
}

private func eventCSVError(_ text: String) -> DeckIOError? {
  do {
    _ = try readEvents(text, .csv)
    return nil
  } catch { return error }
}

private func eventMalformed(_ line: Int, _ column: Int, _ field: String?, _ message: String)
  -> DeckIOError
{
  .malformed(
    SourceLocation(file: "log", line: line, column: column, field: field), message: message)
}

@Suite struct EventReaderErrorTests {
  @Test func badSwipeValueNamesFieldLineAndColumn() {
    let error = eventJSONError(#"{"user":"u1","item":"a","swipe":"rihgt","at":"2026-11-20"}"#)
    #expect(
      error
        == eventMalformed(
          2, 34, "swipe", #"'rihgt' is not right or left; use "right" or "left" (lowercase)"#))
    #expect(
      error?.description
        == #"log:2:34: swipe: 'rihgt' is not right or left; use "right" or "left" (lowercase)"#)
  }

  @Test(arguments: [
    (
      #"{"user":"u1","item":"a","swipe":"left"}"#, 39, "at",
      "missing; every event needs its time (\(times))"
    ),
    (
      #"{"item":"a","swipe":"left","at":"2026-11-20"}"#, 45, "user",
      "missing; every event needs the user id"
    ),
    (
      #"{"user":"u1","swipe":"left","at":"2026-11-20"}"#, 46, "item",
      "missing; every event needs the item id"
    ),
    (
      #"{"user":"u1","item":"a","at":"2026-11-20"}"#, 42, "swipe",
      "missing; give 'swipe' (right or left) or the raw drag 'dx'"
    ),
    (
      #"{"user":"u1","item":"a","swipe":"left","at":"2026-11-20T25:00:00"}"#, 57, "at",
      "'2026-11-20T25:00:00' is not a valid time (hour 25 is not 00-23); use \(times)"
    ),
    (
      #"{"user":"u1","item":"a","swipe":"left","at":"2026-02-30"}"#, 54, "at",
      "'2026-02-30' is not a valid time (2026-02 has no day 30); use \(times)"
    ),
    (
      #"{"user":"u1","item":"a","swipe":"left","at":20261120}"#, 45, "at",
      "expected a string, found '20261120'; give the time as a string: \(times)"
    ),
    (
      #"{"user":"u1","item":"a","swipe":"left","at":"2026-11-20","position":3.5}"#, 69, "position",
      "'3.5' is not a whole number; give the 1-based card position"
    ),
    (
      #"{"user":"u1","item":"a","swipe":"left","at":"2026-11-20","position":0}"#, 69, "position",
      "'0' is out of range: give a card position from 1 to 10000 (the most cards a deck has)"
    ),
    (
      #"{"user":"u1","item":"a","swipe":"left","at":"2026-11-20","position":"3"}"#, 69, "position",
      "expected a number, found '\"3\"'; give the 1-based card position as a number"
    ),
    (
      #"{"user":"u1","item":"a","swipe":"left","at":"2026-11-20","propensity":1.5}"#, 71,
      "propensity",
      "'1.5' is out of range: give the probability the ranking had of showing it there, above 0 and up to 1"
    ),
    (
      #"{"user":"u1","item":"a","swipe":"left","at":"2026-11-20","propensity":0}"#, 71,
      "propensity",
      "'0' is out of range: give the probability the ranking had of showing it there, above 0 and up to 1"
    ),
    (
      #"{"user":"u1","item":"a","swipe":"left","at":"2026-11-20","prefix_propensity":1.5}"#, 78,
      "prefix_propensity",
      "'1.5' is out of range: give the probability the ranking had of showing the deck's cards "
        + "from position 1 to this one, in their order, above 0 and up to 1"
    ),
    (
      #"{"user":"u1","item":"a","swipe":"left","at":"2026-11-20","prefix_propensity":-0.5}"#, 78,
      "prefix_propensity",
      "'-0.5' is out of range: give the probability the ranking had of showing the deck's cards "
        + "from position 1 to this one, in their order, above 0 and up to 1"
    ),
    (
      #"{"user":"u1","item":"a","swipe":"left","at":"2026-11-20","prefix_propensity":0}"#, 78,
      "prefix_propensity",
      "'0' is out of range: give the probability the ranking had of showing the deck's cards "
        + "from position 1 to this one, in their order, above 0 and up to 1"
    ),
    (
      #"{"user":"u1","item":"a","swipe":"left","at":"2026-11-20","prefix_propensity":"0.5"}"#, 78,
      "prefix_propensity", "expected a number, found '\"0.5\"'; give a number in (0, 1]"
    ),
    (
      #"{"user":"u1","item":"a","swipe":"left","at":"2026-11-20","prefix_propensity":1e999}"#, 78,
      "prefix_propensity", "'1e999' is out of range: give a finite number like 12.5 or -3"
    ),
    (
      #"{"user":"u1","item":"a","swipe":"left","at":"2026-11-20","prefix_propensity":.5}"#, 78,
      "prefix_propensity", "'.5' is not a number; write it like 12.5 or -3"
    ),
    (
      #"{"user":"u1","item":"a","swipe":"left","at":"2026-11-20","prefix_propensity":0.5,"prefix_propensity":0.5}"#,
      102, "prefix_propensity", "given twice; keep one"
    ),
    (
      #"{"user":"u1","item":"a","swipe":"left","at":"2026-11-20","deck":"2026-11-31"}"#, 66,
      "deck", "'2026-11-31' is not a date; use YYYY-MM-DD (a real date)"
    ),
    (
      #"{"user":"u1","item":"a","dx":200,"width":0,"at":"2026-11-20"}"#, 42, "width",
      "'0' is out of range: give a card width above 0"
    ),
    (
      #"{"user":"u1","item":"a","dx":200,"width":-5,"at":"2026-11-20"}"#, 42, "width",
      "'-5' is out of range: give a card width above 0"
    ),
    (
      #"{"user":"u1","item":"a","dx":2e,"width":300,"at":"2026-11-20"}"#, 30, "dx",
      "'2e' is not a number; write it like 12.5 or -3"
    ),
    (
      #"{"user":"u1","item":"a","dx":1e999,"width":300,"at":"2026-11-20"}"#, 30, "dx",
      "'1e999' is out of range: give a finite number like 12.5 or -3"
    ),
    (
      #"{"user":"u1","item":"a","swipe":"left","dx":200,"at":"2026-11-20"}"#, 45, "dx",
      "both 'swipe' and 'dx' given; keep one of them (they could disagree)"
    ),
    (
      #"{"user":"u1","item":"a","dx":200,"at":"2026-11-20"}"#, 51, "width",
      "missing; the relative swipe rule needs the card width with 'dx'"
    ),
    (
      #"{"user":"","item":"a","swipe":"left","at":"2026-11-20"}"#, 10, "user",
      "empty; give a non-empty user id"
    ),
    (
      #"{"user":42,"item":"a","swipe":"left","at":"2026-11-20"}"#, 9, "user",
      "expected a string, found '42'; give the user id as a string"
    ),
    (
      #"{"user":null,"item":"a","swipe":"left","at":"2026-11-20"}"#, 9, "user",
      "null; give the user id as a string"
    ),
    (
      #"{"user":"u1","user":"u2","item":"a","swipe":"left","at":"2026-11-20"}"#, 21, "user",
      "given twice; keep one"
    ),
    (
      #"{"user":"u\x1","item":"a","swipe":"left","at":"2026-11-20"}"#, 11, "user",
      #"invalid escape '\x'; use \" \\ \/ \b \f \n \r \t or \uXXXX"#
    ),
    (
      #"{"user":"u\ud800","item":"a","swipe":"left","at":"2026-11-20"}"#, 11, "user",
      #"unpaired surrogate \uD800; a high surrogate needs a low one"#
    ),
  ])
  func fieldErrors(line: String, column: Int, field: String, message: String) {
    #expect(eventJSONError(line) == eventMalformed(2, column, field, message))
  }

  @Test(arguments: [
    (
      #"{"user":"u1","item":"a""#, 24,
      "the line ends inside the JSON object (truncated?); each event must be one complete object on one line"
    ),
    (
      #"{"user":"u1","item":"a","meta":{"x":[1,2}"#, 41, "expected ',' or ']', found '}'"
    ),
    (
      #"["u1","a"]"#, 1,
      #"not a JSON object; each line must be one object like {"user":...,"item":...}"#
    ),
    (
      #"{"user":"u1","item":"a","swipe":"left","at":"2026-11-20"} x"#, 59,
      "unexpected text after the JSON object; put one object on each line"
    ),
    (
      #"{"user":"u1" "item":"a"}"#, 14, "expected ',' or '}' after a value, found '\"'"
    ),
    (#"{user:"u1"}"#, 2, "expected a field name in double quotes, found 'u'"),
    (#"{"user":"u1","n":01,"item":"a"}"#, 18, "'01' is not a valid JSON number"),
    (#"{"user":"u1","ok":tru,"item":"a"}"#, 19, "expected a JSON value, found 't'"),
  ])
  func syntaxErrors(line: String, column: Int, message: String) {
    #expect(eventJSONError(line) == eventMalformed(2, column, nil, message))
  }

  @Test func truncatedStringNamesItsField() {
    // The truncated value belongs to "at": the field is named.
    #expect(
      eventJSONError(#"{"user":"u1","item":"a","swipe":"left","at":"2026-"#)
        == eventMalformed(
          2, 51, "at", "the line ends inside a string (missing closing quote?); close the string"))
  }

  @Test func invalidUTF8PointsAtTheByte() {
    var bytes = Array(good.utf8) + [0x0A]
    bytes +=
      Array(#"{"user":"u"#.utf8) + [0xFF]
      + Array(#"1","item":"a","swipe":"left","at":"2026-11-20"}"#.utf8)
    #expect(
      throws: eventMalformed(2, 11, "user", "invalid UTF-8 (byte 0xFF); save the log as UTF-8")
    ) {
      _ = try readEvents(bytes: bytes, .jsonLines)
    }
    // An overlong encoding of '/' and a lone continuation byte in an ignored field.
    for bad: [UInt8] in [[0xC0, 0xAF], [0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80]] {
      let line = Array(#"{"user":"u1","x":"é"#.utf8) + bad + Array(#"","item":"a"}"#.utf8)
      #expect(
        throws: eventMalformed(
          1, 20, nil,
          "invalid UTF-8 (byte 0x\(String(bad[0], radix: 16, uppercase: true))); save the log as UTF-8"
        )
      ) {
        _ = try readEvents(bytes: line, .jsonLines)
      }
    }
  }

  @Test func columnsCountCharactersNotBytes() {
    let error = eventJSONError(#"{"user":"café","item":"a","swipe":"rihgt","at":"2026-11-20"}"#)
    // "café" is 5 bytes but 4 characters.
    #expect(
      error
        == eventMalformed(
          2, 36, "swipe", #"'rihgt' is not right or left; use "right" or "left" (lowercase)"#))
  }

  @Test func controlCharactersInStrings() {
    let error = eventJSONError(
      "{\"user\":\"u\u{1}1\",\"item\":\"a\",\"swipe\":\"left\",\"at\":\"2026-11-20\"}")
    #expect(
      error == eventMalformed(2, 11, "user", "control character 0x01 inside a string; escape it"))
  }

  @Test func absoluteRuleNeedsNoWidth() throws {
    #expect(
      eventJSONError(#"{"user":"u1","item":"a","dx":200,"at":"2026-11-20"}"#, rule: .cardDeck)
        == nil)
  }

  @Test func csvErrors() {
    #expect(
      eventCSVError("user,item,swipe\nu1,a,left\n")
        == .malformed(
          SourceLocation(file: "log", line: 1, column: 1),
          message: "the header has no 'at' column; it must name user, item, at and swipe (or dx)"))
    #expect(
      eventCSVError("user,item,at,position\nu1,a,2026-11-20,1\n")
        == .malformed(
          SourceLocation(file: "log", line: 1, column: 1),
          message: "the header has no 'swipe' or 'dx' column; it must name one of them"))
    #expect(
      eventCSVError("user,item,swipe,at,user\n")
        == eventMalformed(1, 20, "user", "the header names this column twice; keep one"))
    #expect(
      eventCSVError("user,item,swipe,at\nu1,a,left\n")
        == eventMalformed(
          2, 10, nil, "this row has 3 fields but the header has 4; quote fields that contain commas"
        ))
    #expect(
      eventCSVError("user,item,swipe,at\nu1,a,left,2026-11-20,x\n")
        == eventMalformed(
          2, 22, nil, "this row has 5 fields but the header has 4; quote fields that contain commas"
        ))
    #expect(
      eventCSVError("user,item,swipe,at\nu1,a\"b,left,2026-11-20\n")
        == eventMalformed(
          2, 5, nil, "a '\"' inside an unquoted field; quote the whole field and double the '\"'"))
    #expect(
      eventCSVError("user,item,swipe,at\nu1,\"a\"b,left,2026-11-20\n")
        == eventMalformed(
          2, 7, nil,
          "unexpected text after a closing quote; quote the whole field and double any '\"' in it"))
    #expect(
      eventCSVError("user,item,swipe,at\nu1,\"a,left,2026-11-20\n")
        == eventMalformed(
          2, 4, nil, "a quoted field is not closed; add the closing '\"' (double quotes inside)"))
    #expect(
      eventCSVError("user,item,swipe,at\nu1,a,rihgt,2026-11-20\n")
        == eventMalformed(
          2, 6, "swipe", #"'rihgt' is not right or left; use "right" or "left" (lowercase)"#))
    #expect(
      eventCSVError("user,item,swipe,at\n,a,left,2026-11-20\n")
        == eventMalformed(2, 1, "user", "empty; give a non-empty user id"))
    #expect(
      eventCSVError("user,item,swipe,at\nu1,a,left,\n")
        == eventMalformed(2, 11, "at", "empty; every event needs its time"))
    // A value error on the second physical line of a quoted multi-line record.
    #expect(
      eventCSVError("user,item,swipe,at\nu1,\"a\nb\",rihgt,2026-11-20\n")
        == eventMalformed(
          3, 4, "swipe", #"'rihgt' is not right or left; use "right" or "left" (lowercase)"#))
  }

  @Test func csvPrefixPropensityErrors() {
    let header = "user,item,swipe,at,propensity,prefix_propensity\n"
    let range =
      "is out of range: give the probability the ranking had of showing the deck's cards from "
      + "position 1 to this one, in their order, above 0 and up to 1"
    #expect(
      eventCSVError(header + "u1,a,left,2026-11-20,0.5,1.5\n")
        == eventMalformed(2, 26, "prefix_propensity", "'1.5' \(range)"))
    #expect(
      eventCSVError(header + "u1,a,left,2026-11-20,0.5,0\n")
        == eventMalformed(2, 26, "prefix_propensity", "'0' \(range)"))
    #expect(
      eventCSVError(header + "u1,a,left,2026-11-20,0.5,\"x\"\n")
        == eventMalformed(
          2, 27, "prefix_propensity", "'x' is not a number; write it like 12.5 or -3"))
    #expect(
      eventCSVError(header + "u1,a,left,2026-11-20,,half\n")
        == eventMalformed(
          2, 23, "prefix_propensity", "'half' is not a number; write it like 12.5 or -3"))
    // The propensity is read first, so a bad one is the error of a row with both bad.
    #expect(
      eventCSVError(header + "u1,a,left,2026-11-20,2,2\n")
        == eventMalformed(
          2, 22, "propensity",
          "'2' is out of range: give the probability the ranking had of showing it there, above 0 and up to 1"
        ))
    #expect(
      eventCSVError("user,item,swipe,at,prefix_propensity,prefix_propensity\n")
        == eventMalformed(
          1, 38, "prefix_propensity", "the header names this column twice; keep one"))
    // Empty means not logged.
    #expect(eventCSVError(header + "u1,a,left,2026-11-20,0.5,\n") == nil)
  }

  @Test func missingFileAndUnknownFormat() throws {
    var sink = SwipeEventCollector()
    let reader = EventReader()
    #expect(throws: DeckIOError.missingFile(path: "/nonexistent/swipes.jsonl", what: "swipe log")) {
      _ = try reader.read([EventSource(path: "/nonexistent/swipes.jsonl")], into: &sink)
    }
    #expect(
      throws: DeckIOError.invalid(
        path: "swipes.txt",
        message:
          "cannot tell the format of the swipe log from its name; name the file .jsonl, .ndjson, .json or .csv (or pipe it to '-')"
      )
    ) {
      _ = try reader.read([EventSource(path: "swipes.txt")], into: &sink)
    }
  }
}
