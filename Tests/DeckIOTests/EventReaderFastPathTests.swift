import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckIO

/// The fast paths of the event reader (exact key spellings, word-at-a-time scans) against the
/// general path and per-byte references, on many generated lines, good and bad.
@Suite struct EventReaderFastPathTests {
  private static let users = [
    #""u0042""#, #""user7""#, #""caf\u00e9""#, #""café""#, #""say \"hi\"""#, #""a\\b""#,
    #""\ud83c\udf63 sushi""#, #""""#, #""tab\tx""#, #""u\/1""#, #""abcdefghijklmnopqrstuvwxyz""#,
    #""bad\x""#, #""\ud800""#, "\"ctl\u{01}\"", "42", "null", #""open"#,
    // Lengths around the one- and two-word reading of short strings, with a special byte last.
    #""user000""#, #""user0000""#, #""abcdefghijklmno""#, #""abcdefghijklmnop""#,
    #""abcdefghijklmnopq""#, #""abcdefghijklmn\u00e9""#, #""abcdefghijklmnoé""#,
    #""abcdefg\"""#, "\"abcdefghijklmno\u{7F}\"",
  ]
  private static let items = [
    #""dish301""#, #""miso, red""#, #""nikujaga""#, #""ramen \u3089""#, #""\u0041""#,
    "[1,2]", #""""#,
  ]
  private static let swipes = [
    #""right""#, #""left""#, #""Right""#, #""up""#, "1", "null", #""righ""#, #""lefty""#,
  ]
  private static let times = [
    #""2026-10-01T20:17:10+09:00""#, #""2026-10-01T20:17:10Z""#, #""2026-10-01 08:00:00""#,
    #""2026-10-01""#, #""2026-10-02T23:59:59.999""#, #""2026-02-30T10:00:00""#,
    #""2026-10-01T24:00:00""#, #""2026-10-01T20:17:10+0900""#, #""yesterday""#, "1700000000",
    #""2026-10-01T20:17:10+09:0""#,
  ]
  private static let positions = [
    "1", "12", "0", "007", "1.5", "-3", "null", #""3""#, "99999999999",
  ]
  private static let decks = [
    #""2026-10-01""#, #""2026-13-01""#, #""2026-10-1""#, "null", "20261001", #""2026/10/01""#,
  ]
  private static let numbers = ["0.25", "1", "1e-1", "2", "0", "-0.5", "null", "1.", "-", "x"]
  private static let drags = ["-200", "40", "150.5", "0", "-90.0", "1e2", "null", "--1"]
  private static let widths = ["300", "0", "-1", "null", "3e2"]
  private static let unknown = [
    #"{"a":[1,{"b":null}],"c":"}"}"#, "true", "false", "[]", #""note, \"x\"""#, "-1.5e3",
  ]

  /// The spellings of a key: exact (the fast path) or any other way to write the same name.
  private static func key(_ name: String, _ r: inout RandomStream) -> String {
    switch r.nextInt(below: 10) {
    case 0:
      // One letter as a \u escape.
      var s = ""
      for (k, ch) in name.enumerated() {
        if k == 1 {
          let hex = String(ch.asciiValue!, radix: 16)
          s += "\\u00" + hex
        } else {
          s.append(ch)
        }
      }
      return "\"\(s)\""
    case 1: return "\"\(name)\" "
    case 2: return "\"\(name.uppercased())\""
    case 3: return "\"\(name)x\""
    default: return "\"\(name)\""
    }
  }

  private static func pick(_ list: [String], _ r: inout RandomStream, good: Int) -> String {
    // Mostly the first `good` values, sometimes any.
    r.nextInt(below: 8) == 0 ? list[r.nextInt(below: list.count)] : list[r.nextInt(below: good)]
  }

  /// One generated JSON line (without its line break).
  private static func jsonLine(_ r: inout RandomStream) -> String {
    var members: [(String, String)] = [
      ("user", pick(users, &r, good: 7)), ("item", pick(items, &r, good: 5)),
      ("at", pick(times, &r, good: 5)),
    ]
    if r.nextInt(below: 5) == 0 {
      members.append(("dx", pick(drags, &r, good: 6)))
      if r.nextInt(below: 4) != 0 { members.append(("width", pick(widths, &r, good: 2))) }
      if r.nextInt(below: 10) == 0 { members.append(("swipe", pick(swipes, &r, good: 2))) }
    } else if r.nextInt(below: 30) != 0 {
      members.append(("swipe", pick(swipes, &r, good: 2)))
    }
    if r.nextInt(below: 4) != 0 { members.append(("position", pick(positions, &r, good: 2))) }
    if r.nextInt(below: 3) != 0 { members.append(("deck", pick(decks, &r, good: 1))) }
    if r.nextInt(below: 4) == 0 { members.append(("propensity", pick(numbers, &r, good: 4))) }
    if r.nextInt(below: 4) == 0 {
      members.append(("prefix_propensity", pick(numbers, &r, good: 4)))
    }
    if r.nextInt(below: 4) == 0 {
      members.append(
        (
          ["comment", "users", "at2", "deckx", "swipe_"][r.nextInt(below: 5)],
          unknown[r.nextInt(below: unknown.count)]
        ))
    }
    if r.nextInt(below: 15) == 0 {
      members.append(members[r.nextInt(below: members.count)])  // a duplicate
    }
    if r.nextInt(below: 2) == 0 {
      // Reordered.
      for k in stride(from: members.count - 1, to: 0, by: -1) {
        members.swapAt(k, r.nextInt(below: k + 1))
      }
    }
    var line = r.nextInt(below: 10) == 0 ? " {" : "{"
    for (k, (name, value)) in members.enumerated() {
      if k > 0 { line += [",", ",", ",", ", ", " ,", ",\t"][r.nextInt(below: 6)] }
      let spelled = members.count > 0 ? key(name, &r) : name
      // A CR after the colon is a lone CR (refused as CR-only line ends): now and then only,
      // so that most lines still get as far as their values.
      let colon = [":", ":", ":", ": ", ":\t", ":\r"][r.nextInt(below: 6)]
      line += spelled + (colon == ":\r" && r.nextInt(below: 8) != 0 ? ":\t" : colon) + value
    }
    line += ["}", "}", "}", " }", "} ", "}\r", "}x", ""][r.nextInt(below: 8)]
    return line
  }

  /// Damages a line now and then: a truncation, or one byte replaced.
  private static func damaged(_ line: [UInt8], _ r: inout RandomStream) -> [UInt8] {
    var b = line
    switch r.nextInt(below: 12) {
    case 0 where !b.isEmpty:
      b.removeLast(1 + r.nextInt(below: b.count))
    case 1 where !b.isEmpty:
      let bytes: [UInt8] = [0x22, 0x5C, 0x3A, 0x2C, 0x7B, 0x7D, 0x20, 0x09, 0x01, 0xFF, 0xC3, 0x61]
      b[r.nextInt(below: b.count)] = bytes[r.nextInt(below: bytes.count)]
    default:
      break
    }
    return b
  }

  @Test func jsonFastKeysGiveTheGeneralPathsResults() {
    var r = RandomStream(seed: 17)
    var events = 0
    var failures = 0
    var fastSpellings = 0
    var prefixed = 0
    for _ in 0..<20_000 {
      let text = Self.jsonLine(&r)
      if text.contains(#""user":""#) { fastSpellings += 1 }
      let line = Self.damaged(Array(text.utf8), &r) + [0x0A]
      let fast = parseOutcome(line, format: .jsonLines, fast: true, header: nil)
      let general = parseOutcome(line, format: .jsonLines, fast: false, header: nil)
      #expect(fast == general, "\(String(decoding: line, as: UTF8.self))")
      if fast != general { return }
      if fast.hasPrefix("event") { events += 1 }
      if fast.hasPrefix("failure") { failures += 1 }
      if fast.contains("|prefix ") { prefixed += 1 }
    }
    // The corpus has plenty of both, and mostly the spellings the fast path takes.
    #expect(events > 2000)
    #expect(prefixed > 200)
    #expect(failures > 3000)
    #expect(fastSpellings > 4000)
  }

  @Test func jsonFastKeysAtEveryLineEnd() {
    // Every prefix of lines with each known key near the end: the word compares never look past
    // the line, and a cut key or value fails exactly as on the general path.
    let lines = [
      #"{"user":"u1","item":"i","at":"2026-10-01","swipe":"left","position":12,"deck":"2026-10-01"}"#,
      #"{"item":"i","at":"2026-10-01","user":"u1","dx":-120,"width":300,"propensity":0.5}"#,
      #"{"item":"i","at":"2026-10-01","user":"u1","swipe":"left","prefix_propensity":0.25}"#,
      #"{"deck":"2026-10-01","position":1,"swipe":"right","at":"2026-10-01T10:00:00Z","item":"i","user":"u"}"#,
      // Quotes further on at the distances the in-place time reading looks at.
      #"{"at":"2026-10-01","swipe":"left","user":"u","item":"i","deck":"2026-10-01"}"#,
      #"{"at":"2026-10-01T10:00:00","x":"2026-10-01T10:00:00+09:00","user":"u","item":"i","swipe":"left"}"#,
      #"{"at":"2026-10-01T10:00:00Z","deck":"2026-10-0","user":"u","item":"i","swipe":"left"}"#,
      #"{"deck":"2026-10-01\u0022","at":"2026-10-01T10:00:00+09:00\"","user":"u","item":"i","swipe":"left"}"#,
    ]
    for text in lines {
      let bytes = Array(text.utf8)
      for cut in 0...bytes.count {
        for end: [UInt8] in [[], [0x0A], [0x0D, 0x0A]] {
          let line = Array(bytes[0..<cut]) + end
          let fast = parseOutcome(line, format: .jsonLines, fast: true, header: nil)
          let general = parseOutcome(line, format: .jsonLines, fast: false, header: nil)
          #expect(fast == general, "\(String(decoding: line, as: UTF8.self))")
        }
      }
    }
  }

  @Test func jsonLoneCarriageReturnsAtEveryOffset() {
    // A CR put in at each byte of good lines (CR-only line ends, or a stray CR): the fast and
    // the general path fail alike, at the CR or before it, and never read the line; a CRLF
    // line end is still fine.
    let lines = [
      #"{"user":"u1","item":"i","at":"2026-10-01","swipe":"left","position":12,"deck":"2026-10-01"}"#,
      #"{"item":"i","at":"2026-10-01T10:00:00Z","user":"u1","dx":-220,"width":300,"x":[1, {"a":null}]}"#,
    ]
    for text in lines {
      let bytes = Array(text.utf8)
      for end: [UInt8] in [[0x0A], [0x0D, 0x0A]] {
        let whole = parseOutcome(bytes + end, format: .jsonLines, fast: true, header: nil)
        #expect(whole.hasPrefix("event \(bytes.count + end.count) 1 "), "\(whole)")
      }
      for at in 0...bytes.count {
        for end: [UInt8] in [[], [0x0A], [0x0D, 0x0A], [0x0D]] {
          // A CR at the end followed by a line feed is a CRLF (above).
          if at == bytes.count && end == [0x0A] { continue }
          var line = bytes
          line.insert(0x0D, at: at)
          // Before a line end's own CR, or as the last byte of the input: still lone.
          line += end
          let fast = parseOutcome(line, format: .jsonLines, fast: true, header: nil)
          let general = parseOutcome(line, format: .jsonLines, fast: false, header: nil)
          #expect(fast == general, "\(String(decoding: line, as: UTF8.self).debugDescription)")
          #expect(fast.hasPrefix("failure "), "\(fast)")
          if at == bytes.count || at == 0 {
            #expect(fast == "failure \(at) - \(loneCarriageReturnMessage)")
          }
        }
      }
    }
  }

  @Test func specialByteMasksMatchAPerByteReference() {
    var r = RandomStream(seed: 3)
    // Interesting bytes and their neighbours, plus random ones.
    let edges: [UInt8] = [
      0x00, 0x01, 0x0A, 0x0D, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x2B, 0x2C, 0x2D, 0x5B, 0x5C, 0x5D,
      0x7E, 0x7F, 0x80, 0x81, 0xA2, 0xAC, 0xDC, 0xFE, 0xFF,
    ]
    for round in 0..<50_000 {
      var bytes = [UInt8](repeating: 0, count: 8)
      for k in 0..<8 {
        bytes[k] =
          round % 2 == 0
          ? edges[r.nextInt(below: edges.count)] : UInt8(truncatingIfNeeded: r.next())
      }
      var w: UInt64 = 0
      for k in 0..<8 { w |= UInt64(bytes[k]) << UInt64(8 * k) }
      var special: UInt64 = 0
      var zero: UInt64 = 0
      var comma: UInt64 = 0
      for k in 0..<8 {
        let c = bytes[k]
        let bit = UInt64(0x80) << UInt64(8 * k)
        if c == 0x22 || c == 0x5C || c < 0x20 || c >= 0x80 { special |= bit }
        if c == 0 { zero |= bit }
        if c == 0x2C { comma |= bit }
      }
      #expect(swarSpecialStringBytes(w) == special)
      #expect(swarZeroBytes(w) == zero)
      #expect(swarBytesEqual(w, 0x2C) == comma)
      #expect(swarHasZero(w) == (zero != 0))
      if swarSpecialStringBytes(w) != special || swarZeroBytes(w) != zero { return }
    }
  }

  /// A CSV field for a value: plain, or quoted (with doubled quotes) when it needs it or now
  /// and then anyway.
  private static func csvField(_ value: String, _ r: inout RandomStream) -> String {
    let needs = value.contains(",") || value.contains("\"") || value.contains("\n")
    if needs || r.nextInt(below: 6) == 0 {
      return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
    return value
  }

  @Test func csvRecordsGiveTheSameEventsAsJSONLines() throws {
    // Values with commas, quotes, line breaks, multi-byte characters and lengths around the
    // 8-byte words, in CSV with LF or CRLF and in JSON Lines: the same events.
    var r = RandomStream(seed: 11)
    let ids = [
      "u", "u7", "user0", "user000", "user0000", "user00000", "abcdefghijklmnop", "miso, red",
      "say \"hi\"", "two\nlines", "café", "寿司", "🍣 sushi", "a,b,c,d,e,f,g,h,i",
    ]
    var json = ""
    var csv = "item,user,at,swipe,position,deck,comment\r\n"
    for n in 0..<3000 {
      let user = ids[r.nextInt(below: ids.count)]
      let item = ids[r.nextInt(below: ids.count)]
      let right = r.nextInt(below: 2) == 0
      let second = r.nextInt(below: 86_400)
      let at = String(
        format: "2026-10-%02dT%02d:%02d:%02d", 1 + n % 28, second / 3600, second / 60 % 60,
        second % 60)
      let position = 1 + r.nextInt(below: 30)
      let eol = r.nextInt(below: 2) == 0 ? "\n" : "\r\n"
      json +=
        "{\"user\":\(jsonString(user)),\"item\":\(jsonString(item)),\"at\":\"\(at)\","
        + "\"swipe\":\"\(right ? "right" : "left")\",\"position\":\(position)}\n"
      let comment = ids[r.nextInt(below: ids.count)]
      csv +=
        [
          Self.csvField(item, &r), Self.csvField(user, &r), Self.csvField(at, &r),
          Self.csvField(right ? "right" : "left", &r), Self.csvField(String(position), &r), "",
          Self.csvField(comment, &r),
        ].joined(separator: ",") + eol
    }
    // Small chunks too, so that records straddle reads at every offset.
    for chunk in [1 << 21, 61, 17] {
      let options = EventReaderOptions(chunkSize: chunk)
      let a = try readEvents(json, .jsonLines, options: options)
      let b = try readEvents(csv, .csv, options: options)
      #expect(a.events.count == 3000)
      #expect(b.events == a.events)
    }
  }

  @Test func csvFastSplitGivesTheGeneralPathsResults() {
    // Records with and without quotes, CRLF, bare CR, non-ASCII and invalid UTF-8, empty and
    // missing fields, extra fields, blank lines; whole, cut anywhere, with and without more
    // input to come.
    let header = "user,item,swipe,at,position,deck,prefix_propensity,note\n"
    let values: [[String]] = [
      ["user0", "u", "", "abcdefghijklmnopq", "\"q,u\"", "caf\u{e9}", "寿司", "\"a\"\"b\"", "x\"y"],
      ["dish301", "i", "", "\"dish, 2\"", "\u{1F363}", "\"\"", "it\"em"],
      ["left", "right", "", "up", "\"right\"", "Right"],
      [
        "2026-10-01T20:17:10+09:00", "2026-10-01", "2026-10-01 08:00:00", "", "2026-13-01",
        "2026-10-01T20:17:10Z",
      ],
      ["1", "12", "", "0", "x", "\"3\""],
      ["2026-10-01", "", "2026-10-1", "\"2026-10-02\""],
      ["0.125", "", "1", "0", "x", "\"0.5\"", "2", "1e-3"],
      ["", "n", "multi\nline", "\"multi\nline\"", "\"a,b\"", "\u{e9}\u{e9}\u{e9}\u{e9}\u{e9}"],
    ]
    var r = RandomStream(seed: 29)
    var events = 0
    var failures = 0
    var prefixed = 0
    for _ in 0..<20_000 {
      var fields = values.map { $0[r.nextInt(below: 8) == 0 ? r.nextInt(below: $0.count) : 0] }
      if r.nextInt(below: 20) == 0 { fields.removeLast() }
      if r.nextInt(below: 20) == 0 { fields.append("extra") }
      var record = Array(fields.joined(separator: ",").utf8)
      if r.nextInt(below: 30) == 0 { record = [] }
      switch r.nextInt(below: 10) {
      case 0: record += [0x0D, 0x0A]
      case 1: record += [0x0D]
      case 2: break
      case 3 where !record.isEmpty: record[r.nextInt(below: record.count)] = 0xFF
      case 4 where !record.isEmpty: record[r.nextInt(below: record.count)] = 0x0D
      default: record += [0x0A]
      }
      // Another record after it, as in a buffer.
      let buffer = record + Array("user1,dish1,left,2026-10-01,1,,0.5,\n".utf8)
      for (bytes, eof) in [(buffer, true), (record, true), (record, false)] {
        let fast = parseOutcome(bytes, format: .csv, fast: true, header: header, eof: eof)
        let general = parseOutcome(bytes, format: .csv, fast: false, header: header, eof: eof)
        #expect(fast == general, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
        if fast != general { return }
        if fast.hasPrefix("event") { events += 1 }
        if fast.hasPrefix("failure") { failures += 1 }
        if fast.contains("|prefix ") { prefixed += 1 }
      }
    }
    #expect(events > 10_000)
    #expect(prefixed > 5000)
    #expect(failures > 5000)
  }

  private func jsonString(_ s: String) -> String {
    var out = "\""
    for ch in s.unicodeScalars {
      switch ch {
      case "\"": out += "\\\""
      case "\n": out += "\\n"
      case "\\": out += "\\\\"
      default: out.unicodeScalars.append(ch)
      }
    }
    return out + "\""
  }
}
