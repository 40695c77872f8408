import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckIO

/// The 64-byte split of usual CSV records (`csvSplitColumns`, `csvBlockMarks`) at its
/// boundaries: delimiters on both sides of each block edge, quotes, CR, empty and very long
/// fields, records cut by the end of the input; against the general path and exact values.
@Suite struct EventReaderCSVFastTests {
  private static let header = "user,item,swipe,at,position,deck\n"

  /// The fast and the general path on the same bytes: the same outcome, which is returned.
  private static func same(
    _ bytes: [UInt8], eof: Bool = true, header: String = header,
    delimiter: CSVDelimiter = .comma, sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) -> String {
    let fast = parseOutcome(
      bytes, format: .csv, fast: true, header: header, eof: eof, delimiter: delimiter)
    let general = parseOutcome(
      bytes, format: .csv, fast: false, header: header, eof: eof, delimiter: delimiter)
    #expect(
      fast == general, "\(String(decoding: bytes, as: UTF8.self).debugDescription)",
      sourceLocation: sourceLocation)
    return fast
  }

  /// 2026-10-01T00:00 in seconds since 1970-01-01T00:00.
  private static let oct1 = 20_727 * 86_400

  /// More records after the one under test, so that the 64-byte blocks fit in the input.
  private static let after = Array(
    String(repeating: "u9,dish9,left,2026-10-01,1,\n", count: 6).utf8)

  // MARK: - The block masks

  private static func referenceMarks(_ block: [UInt8]) -> (UInt64, Bool) {
    var marks: UInt64 = 0
    for (i, c) in block.enumerated() where c == 0x2C || c == 0x0A || c == 0x22 || c == 0x0D {
      marks |= 1 << UInt64(i)
    }
    return (marks, block.contains { $0 >= 0x80 })
  }

  @Test func blockMarksMatchAPerByteReference() {
    var r = RandomStream(seed: 64)
    // Bytes near the three delimiters, their high-bit twins and anything at all.
    let likely: [UInt8] = [0x2C, 0x0A, 0x22, 0x0D, 0xAC, 0x8A, 0xA2, 0x2D, 0x2B, 0x0B, 0x09, 0x23]
    for _ in 0..<5000 {
      let block = (0..<64).map { _ -> UInt8 in
        r.nextInt(below: 3) == 0
          ? likely[r.nextInt(below: likely.count)] : UInt8(r.nextInt(below: 256))
      }
      let got = block.withUnsafeBufferPointer {
        csvBlockMarks($0.baseAddress!, CommaSeparator.self)
      }
      let want = Self.referenceMarks(block)
      #expect(got.marks == want.0 && got.nonASCII == want.1, "\(block)")
      if got.marks != want.0 { return }
    }
  }

  @Test func blockMarksOfTheOtherDelimitersMatchAPerByteReference() {
    // The semicolon's and the tab's, each with the others (and the comma) as plain bytes.
    var r = RandomStream(seed: 59)
    let likely: [UInt8] = [
      0x2C, 0x3B, 0x09, 0x0A, 0x22, 0x0D, 0xBB, 0x89, 0xAC, 0x3A, 0x3C, 0x08, 0x0B,
    ]
    func check<D: CSVSeparator>(_: D.Type) {
      for _ in 0..<3000 {
        let block = (0..<64).map { _ -> UInt8 in
          r.nextInt(below: 3) == 0
            ? likely[r.nextInt(below: likely.count)] : UInt8(r.nextInt(below: 256))
        }
        let got = block.withUnsafeBufferPointer { csvBlockMarks($0.baseAddress!, D.self) }
        var want: UInt64 = 0
        for (i, c) in block.enumerated() where c == D.byte || c == 0x0A || c == 0x22 || c == 0x0D {
          want |= 1 << UInt64(i)
        }
        #expect(got.marks == want && got.nonASCII == block.contains { $0 >= 0x80 }, "\(block)")
        if got.marks != want { return }
      }
    }
    check(SemicolonSeparator.self)
    check(TabSeparator.self)
  }

  @Test func blockMarksAtTheEdges() {
    func marks(_ block: [UInt8]) -> (UInt64, Bool) {
      let m = block.withUnsafeBufferPointer { csvBlockMarks($0.baseAddress!, CommaSeparator.self) }
      return (m.marks, m.nonASCII)
    }
    #expect(marks([UInt8](repeating: 0x2C, count: 64)) == (.max, false))
    #expect(marks([UInt8](repeating: 0x00, count: 64)) == (0, false))
    #expect(marks([UInt8](repeating: 0x41, count: 63) + [0x0A]) == (1 << 63, false))
    #expect(marks([0x22] + [UInt8](repeating: 0x41, count: 63)) == (1, false))
    #expect(marks([UInt8](repeating: 0x41, count: 63) + [0x80]) == (0, true))
    #expect(marks([0xFF] + [UInt8](repeating: 0x41, count: 63)) == (0, true))
    // Bytes 15/16, 31/32 and 47/48: the edges of the 16-byte lanes.
    var block = [UInt8](repeating: 0x61, count: 64)
    for i in [15, 16, 31, 32, 47, 48] { block[i] = 0x2C }
    let edges: UInt64 = 0x0001_8001_8001_8000  // bits 15, 16, 31, 32, 47, 48
    #expect(marks(block) == (edges, false))
    // A comma, line feed or quote with the high bit set is none of them (but is non-ASCII).
    #expect(marks([0xAC, 0x8A, 0xA2] + [UInt8](repeating: 0x41, count: 61)) == (0, true))
  }

  // MARK: - Records around the block edges

  @Test func everyFieldLengthAcrossTheFirstBlocks() {
    // The user id from 1 to 150 bytes puts every later delimiter on each side of bytes 64 and
    // 128; records end with LF or CRLF, with more records after them or alone at the end.
    for length in 1...150 {
      let user = String(repeating: "u", count: length)
      for eol in ["\n", "\r\n"] {
        let record = Array("\(user),dish1,left,2026-10-01T20:17:10+09:00,3,2026-10-01\(eol)".utf8)
        let at = Self.oct1 + 20 * 3600 + 17 * 60 + 10 - 8 * 3600
        let want =
          "event \(record.count) 1 \(user)|dish1|left|\(at)|3|Optional(2026-10-01)|nil"
        #expect(Self.same(record + Self.after) == want)
        #expect(Self.same(record) == want)
        #expect(Self.same(record, eof: false) == want)
        // Without its line break: complete only at the end of the input.
        let cut = Array(record.dropLast(eol.utf8.count))
        #expect(
          Self.same(cut, eof: true) == "event \(cut.count) 1 " + want.split(separator: " ")[3])
        #expect(Self.same(cut, eof: false) == "needMore 0 0 ")
      }
    }
  }

  @Test func theLineBreakAtEachByteOfTheBlock() {
    // Records of 40 to 140 bytes: the line feed at each position around 63, 64, 127 and 128.
    for length in 40...140 {
      let fixed = ",d,right,2026-10-01,,".utf8.count + 1
      let user = String(repeating: "x", count: length - fixed)
      let record = Array("\(user),d,right,2026-10-01,,\n".utf8)
      #expect(record.count == length)
      #expect(
        Self.same(record + Self.after) == "event \(length) 1 \(user)|d|right|\(Self.oct1)|0|nil|nil"
      )
    }
  }

  @Test func emptyFieldsAndOnlyDelimiters() {
    #expect(Self.same(Array("u,i,left,2026-10-01,,\n".utf8) + Self.after).hasPrefix("event 22 1 "))
    #expect(
      Self.same(Array(",i,left,2026-10-01,,\n".utf8) + Self.after)
        == "failure 0 user empty; give a non-empty user id")
    #expect(
      Self.same(Array(",,,,,\n".utf8) + Self.after)
        == "failure 0 user empty; give a non-empty user id")
    #expect(Self.same(Array("\n".utf8) + Self.after) == "blank 1 1 ")
    #expect(Self.same(Array("\r\n".utf8) + Self.after) == "blank 2 1 ")
    // Too few and too many fields: the general path's messages and offsets.
    #expect(
      Self.same(Array("u,i,left,2026-10-01,1\n".utf8) + Self.after)
        == "failure 21 - this row has 5 fields but the header has 6; "
        + "quote fields that contain commas")
    #expect(
      Self.same(Array("u,i,left,2026-10-01,1,,x\n".utf8) + Self.after)
        == "failure 23 - this row has 7 fields but the header has 6; "
        + "quote fields that contain commas")
  }

  @Test func quotesAndCarriageReturnsAtEachOffset() {
    // A quoted field, a stray quote and a bare CR at each byte of the first two blocks.
    for pad in 0...100 {
      let user = String(repeating: "v", count: pad)
      let quoted = Array("\"\(user),a\",\"i\"\"x\",left,2026-10-01,2,\n".utf8) + Self.after
      #expect(
        Self.same(quoted)
          == "event \(quoted.count - Self.after.count) 1 \(user),a|i\"x|left|\(Self.oct1)|2|nil|nil"
      )
      let stray = Array("x\(user)\"q,i,left,2026-10-01,2,\n".utf8) + Self.after
      #expect(
        Self.same(stray)
          == "failure \(pad + 1) - a '\"' inside an unquoted field; quote the whole field and double "
          + "the '\"'")
      // A CR that does not end a CRLF is refused where it is (CR-only line ends), in any field.
      let bareCR = Array("\(user)\rw,i,left,2026-10-01,2,\n".utf8)
      #expect(Self.same(bareCR + Self.after) == "failure \(pad) - \(loneCarriageReturnMessage)")
      let crBeforeComma = Array("\(user)w,i\r,left,2026-10-01,2,\n".utf8)
      #expect(
        Self.same(crBeforeComma + Self.after)
          == "failure \(pad + 3) - \(loneCarriageReturnMessage)")
      // A quoted record with a line break inside: two lines.
      let twoLines = Array("\"\(user)\nw\",i,left,2026-10-01,2,\n".utf8)
      #expect(
        Self.same(twoLines + Self.after).hasPrefix("event \(twoLines.count) 2 \(user)\nw|i|"))
    }
  }

  @Test func crOnlyLineEndsAndCRsAroundTheLineEnd() {
    // Records ended by CR alone (old Mac line ends), at every length across the first blocks:
    // refused at the CR on both paths; a CRLF split by a block edge still ends the record.
    for length in 1...150 {
      let user = String(repeating: "u", count: length)
      let record = "\(user),dish1,left,2026-10-01,3,2026-10-01"
      let crOnly = Array((record + "\r" + record + "\r" + record + "\r").utf8)
      let cr = record.utf8.count
      for eof in [true, false] {
        #expect(
          Self.same(crOnly + Self.after, eof: eof) == "failure \(cr) - \(loneCarriageReturnMessage)"
        )
        #expect(Self.same(crOnly, eof: eof) == "failure \(cr) - \(loneCarriageReturnMessage)")
      }
      // A CR just before the CRLF, a CR at the end of the input (complete or not yet), a CR
      // after a closing quote.
      let doubled = Array((record + "\r\r\n").utf8)
      #expect(Self.same(doubled + Self.after) == "failure \(cr) - \(loneCarriageReturnMessage)")
      let last = Array((record + "\r").utf8)
      #expect(Self.same(last, eof: true) == "failure \(cr) - \(loneCarriageReturnMessage)")
      #expect(Self.same(last, eof: false) == "needMore 0 0 ")
      let quoted = Array("\"\(user)\",dish1,left,2026-10-01,3,\"2026-10-01\"\r".utf8)
      let q = quoted.count - 1
      #expect(Self.same(quoted, eof: true) == "failure \(q) - \(loneCarriageReturnMessage)")
      #expect(Self.same(quoted, eof: false) == "needMore 0 0 ")
      #expect(
        Self.same(quoted + Array("x\n".utf8) + Self.after)
          == "failure \(q) - \(loneCarriageReturnMessage)")
      #expect(Self.same(quoted + [0x0A] + Self.after).hasPrefix("event \(quoted.count + 1) 1 "))
    }
  }

  @Test func nonASCIIAndInvalidUTF8InAndAfterTheRecord() {
    for pad in 0...70 {
      let user = String(repeating: "w", count: pad)
      let good = Array("\(user)寿司,i,left,2026-10-01,,\n".utf8)
      #expect(Self.same(good + Self.after).hasPrefix("event \(good.count) 1 \(user)寿司|i|"))
      // Invalid UTF-8 in the record: the exact byte.
      var bad = Array("\(user)x,i,left,2026-10-01,,\n".utf8) + Self.after
      bad[pad] = 0xFF
      #expect(
        Self.same(bad)
          == "failure \(pad) user invalid UTF-8 (byte 0xFF); save the log as UTF-8")
      // Invalid UTF-8 only in the next record, inside the same block: this one is fine.
      var next = Array("u,i,left,2026-10-01,,\n".utf8) + Self.after
      next[22 + pad % 20] = 0xFE
      #expect(Self.same(next) == "event 22 1 u|i|left|\(Self.oct1)|0|nil|nil")
    }
  }

  @Test func veryLongFields() {
    for length in [255, 256, 257, 1000, 4096, 10_000] {
      let item = String(repeating: "i", count: length)
      let record = Array("u,\(item),right,2026-10-01,7,2026-10-02\n".utf8)
      let want =
        "event \(record.count) 1 u|\(item)|right|\(Self.oct1)|7|Optional(2026-10-02)|nil"
      #expect(Self.same(record + Self.after) == want)
      #expect(Self.same(record) == want)
    }
  }

  @Test func otherColumnCounts() {
    // The four required columns only, and 30 columns (more than the initial room for 16
    // fields) most of them ignored.
    let four = "user,item,at,swipe\n"
    #expect(
      Self.same(Array("u1,d1,2026-10-01,left\n".utf8) + Self.after, header: four)
        == "event 22 1 u1|d1|left|\(Self.oct1)|0|nil|nil")
    let wide = "a,b,c,d,e,f,g,h,user,i,j,k,item,l,m,n,o,p,q,r,s,at,swipe,t,u,v,w,x,y,z\n"
    let values = (0..<30).map { c -> String in
      switch c {
      case 8: return "u2"
      case 12: return "d2"
      case 21: return "2026-10-03"
      case 22: return "right"
      default: return c % 3 == 0 ? "" : String(repeating: "z", count: c)
      }
    }
    let record = Array((values.joined(separator: ",") + "\n").utf8)
    #expect(
      Self.same(record + Self.after, header: wide)
        == "event \(record.count) 1 u2|d2|right|\(Self.oct1 + 2 * 86_400)|0|nil|nil")
  }

  // MARK: - Other delimiters

  /// The delimiter as text, the six-column header it separates, and six plain records to follow
  /// the record under test.
  static func withDelimiter(_ d: CSVDelimiter) -> (String, String, [UInt8]) {
    let s = String(UnicodeScalar(d.byte))
    let header = ["user", "item", "swipe", "at", "position", "deck"].joined(separator: s) + "\n"
    let record = ["u9", "dish9", "left", "2026-10-01", "1", ""].joined(separator: s) + "\n"
    return (s, header, Array(String(repeating: record, count: 6).utf8))
  }

  @Test(arguments: [CSVDelimiter.semicolon, .tab])
  func everyFieldLengthAcrossTheFirstBlocksWithAnotherDelimiter(_ d: CSVDelimiter) {
    // The user id from 1 to 150 bytes, as with commas: every delimiter on each side of bytes 64
    // and 128, commas (plain data here) in the item and a quoted field that holds `d`.
    let (s, header, after) = Self.withDelimiter(d)
    for length in 1...150 {
      let user = String(repeating: "u", count: length)
      for eol in ["\n", "\r\n"] {
        let fields = [user, "dish,1", "left", "2026-10-01T20:17:10+09:00", "3", "2026-10-01"]
        let record = Array((fields.joined(separator: s) + eol).utf8)
        let at = Self.oct1 + 20 * 3600 + 17 * 60 + 10 - 8 * 3600
        let want = "event \(record.count) 1 \(user)|dish,1|left|\(at)|3|Optional(2026-10-01)|nil"
        #expect(Self.same(record + after, header: header, delimiter: d) == want)
        #expect(Self.same(record, header: header, delimiter: d) == want)
        #expect(Self.same(record, eof: false, header: header, delimiter: d) == want)
        // The delimiter inside quotes, and a comma-separated record, which is one field here.
        let quoted = Array(
          ("\"\(user)\(s)x\"" + s + fields.dropFirst().joined(separator: s) + eol).utf8)
        #expect(
          Self.same(quoted + after, header: header, delimiter: d)
            == "event \(quoted.count) 1 \(user)\(s)x|dish,1|left|\(at)|3|Optional(2026-10-01)|nil")
        let commas = Array((fields.joined(separator: ",") + eol).utf8)
        #expect(
          Self.same(commas + after, header: header, delimiter: d)
            == "failure \(commas.count - eol.utf8.count) - this row has 1 field but the header has "
            + "6; quote fields that contain \(d.plural)")
      }
    }
  }

  @Test(arguments: [CSVDelimiter.semicolon, .tab])
  func quotesAndCarriageReturnsAtEachOffsetWithAnotherDelimiter(_ d: CSVDelimiter) {
    let (s, header, after) = Self.withDelimiter(d)
    func record(_ fields: [String], _ eol: String = "\n") -> [UInt8] {
      Array((fields.joined(separator: s) + eol).utf8)
    }
    for pad in 0...100 {
      let user = String(repeating: "v", count: pad)
      let quoted = record(["\"\(user)\(s)a,b\"", "\"i\"\"x\"", "left", "2026-10-01", "2", ""])
      #expect(
        Self.same(quoted + after, header: header, delimiter: d)
          == "event \(quoted.count) 1 \(user)\(s)a,b|i\"x|left|\(Self.oct1)|2|nil|nil")
      let stray = record(["x\(user)\"q", "i", "left", "2026-10-01", "2", ""])
      #expect(
        Self.same(stray + after, header: header, delimiter: d)
          == "failure \(pad + 1) - a '\"' inside an unquoted field; quote the whole field and "
          + "double the '\"'")
      let bareCR = record(["\(user)\rw", "i", "left", "2026-10-01", "2", ""])
      #expect(
        Self.same(bareCR + after, header: header, delimiter: d)
          == "failure \(pad) - \(loneCarriageReturnMessage)")
      let twoLines = record(["\"\(user)\nw\"", "i", "left", "2026-10-01", "2", ""])
      #expect(
        Self.same(twoLines + after, header: header, delimiter: d)
          .hasPrefix("event \(twoLines.count) 2 \(user)\nw|i|"))
      // Too few and too many fields, and text after a closing quote.
      let short = record(["\(user)u", "i", "left", "2026-10-01", "2"])
      #expect(
        Self.same(short + after, header: header, delimiter: d)
          == "failure \(short.count - 1) - this row has 5 fields but the header has 6; quote "
          + "fields that contain \(d.plural)")
      let long = record(["\(user)u", "i", "left", "2026-10-01", "2", "", "x"])
      #expect(
        Self.same(long + after, header: header, delimiter: d)
          == "failure \(long.count - 2) - this row has 7 fields but the header has 6; quote "
          + "fields that contain \(d.plural)")
      let afterQuote = record(["\"\(user)\",x", "i", "left", "2026-10-01", "2", ""])
      #expect(
        Self.same(afterQuote + after, header: header, delimiter: d)
          == "failure \(pad + 2) - unexpected text after a closing quote; quote the whole field "
          + "and double any '\"' in it")
    }
  }

  // MARK: - Through the reader

  @Test func generatedLogThroughTheReaderInSmallAndLargeChunks() throws {
    // Records of random lengths (ids 1 to 150 bytes), LF or CRLF, some quoted fields, empty
    // optional fields, a bad record now and then, the last one without a line break: exact
    // events and exact rejects at every chunk size.
    var r = RandomStream(seed: 61)
    var text = "user,item,swipe,at,position,deck\n"
    var want: [SwipeEvent] = []
    var badLines: [Int] = []
    var line = 2
    let count = 1500
    for n in 0..<count {
      let user = "u" + String(repeating: "a", count: r.nextInt(below: 150))
      let item = "d" + String(repeating: "b", count: r.nextInt(below: 80))
      let right = r.nextInt(below: 2) == 0
      let position = r.nextInt(below: 3) == 0 ? nil : 1 + r.nextInt(below: 40)
      let minute = r.nextInt(below: 1440)
      let at = String(format: "2026-10-05T%02d:%02d:00Z", minute / 60, minute % 60)
      let quoteItem = r.nextInt(below: 10) == 0
      let bad = r.nextInt(below: 25) == 0
      let eol = n == count - 1 ? "" : r.nextInt(below: 4) == 0 ? "\r\n" : "\n"
      text +=
        [
          user, quoteItem ? "\"\(item)\"" : item, bad ? "rihgt" : right ? "right" : "left", at,
          position.map(String.init) ?? "", "",
        ].joined(separator: ",") + eol
      if bad {
        badLines.append(line)
      } else {
        want.append(
          SwipeEvent(
            user: user, item: item, swipe: right ? .right : .left,
            at: Int64(Self.oct1 + 4 * 86_400 + minute * 60), position: position))
      }
      line += 1
    }
    for chunk in [64, 65, 100, 127, 128, 1 << 16] {
      final class Rejects { var all: [EventReject] = [] }
      let rejects = Rejects()
      let options = EventReaderOptions(
        skipBadLines: true, chunkSize: chunk, onReject: { rejects.all.append($0) })
      let (events, stats) = try readEvents(text, .csv, options: options, name: "g.csv")
      #expect(events == want, "chunk \(chunk)")
      #expect(stats.lines == count + 1)
      #expect(stats.skippedLines == badLines.count)
      #expect(rejects.all.map(\.location.line) == badLines)
      #expect(Set(rejects.all.map(\.location.field)) == ["swipe"])
      // The swipe column starts after the user, the item and two commas.
      #expect(
        rejects.all.map(\.location.column)
          == rejects.all.map { reject in
            let fields = String(decoding: reject.text, as: UTF8.self).split(
              separator: ",", omittingEmptySubsequences: false)
            return fields[0].count + fields[1].count + 3
          })
    }
  }
}

/// The offset spans of the zones and the reader's reuse of them: the same wall-clock times as
/// asking the zone for every event, across daylight saving changes on and off the UTC hour.
@Suite struct ZoneOffsetSpanTests {
  private static func utc(_ text: String) -> Int64 {
    guard case .utc(let s) = Timestamp.parse(text) else { preconditionFailure(text) }
    return s
  }

  @Test func fixedOffsetsHoldForAllTime() {
    #expect(
      FixedUTCOffset(seconds: -3600).offsetSpan(atUTC: 12)
        == UTCOffsetSpan(offset: -3600, start: .min, end: .max))
  }

  @Test func aZoneWithoutChangesGivesWholeUTCDays() {
    let tokyo = TimeZoneOffsets(TimeZone(identifier: "Asia/Tokyo")!)
    let day = Self.utc("2026-10-01T00:00:00Z")
    for at in [day, day + 1, day + 86_399] {
      #expect(
        tokyo.offsetSpan(atUTC: at) == UTCOffsetSpan(offset: 32_400, start: day, end: day + 86_400))
    }
    // Before 1970 too (floor, not truncation).
    let before = Self.utc("1969-12-31T23:59:59Z")
    #expect(
      tokyo.offsetSpan(atUTC: before)
        == UTCOffsetSpan(offset: 32_400, start: -86_400, end: 0))
  }

  @Test func aChangeOnTheHourGivesHoursThatDay() {
    // New York springs forward at 2026-03-08T07:00Z.
    let ny = TimeZoneOffsets(TimeZone(identifier: "America/New_York")!)
    let change = Self.utc("2026-03-08T07:00:00Z")
    #expect(
      ny.offsetSpan(atUTC: change - 1)
        == UTCOffsetSpan(offset: -18_000, start: change - 3600, end: change))
    #expect(
      ny.offsetSpan(atUTC: change)
        == UTCOffsetSpan(offset: -14_400, start: change, end: change + 3600))
    #expect(
      ny.offsetSpan(atUTC: change + 86_400)
        == UTCOffsetSpan(
          offset: -14_400, start: Self.utc("2026-03-09T00:00:00Z"),
          end: Self.utc("2026-03-10T00:00:00Z")))
  }

  @Test func aChangeInsideTheHourGivesSingleSeconds() {
    // Lord Howe Island moves from +10:30 to +11:00 at 2026-10-03T15:30Z.
    let lordHowe = TimeZoneOffsets(TimeZone(identifier: "Australia/Lord_Howe")!)
    let change = Self.utc("2026-10-03T15:30:00Z")
    #expect(
      lordHowe.offsetSpan(atUTC: change - 1)
        == UTCOffsetSpan(offset: 37_800, start: change - 1, end: change))
    #expect(
      lordHowe.offsetSpan(atUTC: change)
        == UTCOffsetSpan(offset: 39_600, start: change, end: change + 1))
  }

  /// Reads events at `times` (UTC, `Z`) in CSV and JSON Lines; returns their wall-clock times.
  private static func wallClock(_ times: [String], zone: any UTCOffsetProvider) throws -> [Int64] {
    var csv = "user,item,swipe,at\n"
    var json = ""
    for t in times {
      csv += "u,i,left,\(t)\n"
      json += "{\"user\":\"u\",\"item\":\"i\",\"swipe\":\"left\",\"at\":\"\(t)\"}\n"
    }
    let options = EventReaderOptions(zone: zone)
    let a = try readEvents(csv, .csv, options: options).events.map(\.at)
    let b = try readEvents(json, .jsonLines, options: options).events.map(\.at)
    #expect(a == b)
    return a
  }

  @Test func theReaderGivesTheZonesAnswerForEveryEvent() throws {
    let cases: [(String, [String])] = [
      (
        "America/New_York",
        [
          "2026-03-08T06:59:59Z", "2026-03-08T07:00:00Z", "2026-03-08T06:00:00Z",
          "2026-03-07T23:00:00Z", "2026-03-08T12:00:00Z", "2026-03-08T06:59:59Z",
          "2026-11-01T05:59:59Z", "2026-11-01T06:00:00Z", "2026-11-01T05:00:00Z",
        ]
      ),
      (
        "Australia/Lord_Howe",
        [
          "2026-10-03T15:29:59Z", "2026-10-03T15:30:00Z", "2026-10-03T15:29:59Z",
          "2026-10-03T15:00:00Z", "2026-10-03T15:59:59Z", "2026-10-03T14:59:59Z",
          "2026-10-04T15:30:00Z",
        ]
      ),
    ]
    for (name, times) in cases {
      let timeZone = TimeZone(identifier: name)!
      let want = times.map { t -> Int64 in
        let s = Self.utc(t)
        return s + Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(s))))
      }
      #expect(try Self.wallClock(times, zone: TimeZoneOffsets(timeZone)) == want, "\(name)")
    }
  }

  /// The reader keeps the last time's offset bytes and reads a time with the same ones without
  /// parsing them again: times on one date whose offsets change in runs and at every event,
  /// across a daylight saving change of the configured zone, against the zone's own answer.
  @Test func timesWithChangingOffsetsOnOneDate() throws {
    let offsets = [
      "+09:00", "+09:00", "-05:00", "+05:30", "+00:00", "-00:00", "Z", "", "-12:00", "+14:00",
      "+23:59", "-09:00", "+09:30",
    ]
    var r = RandomStream(seed: 41)
    var times: [String] = []
    var offset = offsets[0]
    for _ in 0..<4000 {
      // Runs of one offset, broken at random.
      if r.nextInt(below: 4) == 0 { offset = offsets[r.nextInt(below: offsets.count)] }
      let day = r.nextInt(below: 6) == 0 ? "2026-03-07" : "2026-03-08"
      let clock = [r.nextInt(below: 24), r.nextInt(below: 60), r.nextInt(below: 60)]
        .map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
      times.append("\(day)T\(clock)\(offset)")
    }
    let zone = TimeZone(identifier: "America/New_York")!
    let want = times.map { t -> Int64 in
      switch Timestamp.parse(t) {
      case .utc(let s):
        return s + Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(s))))
      case .local(let s): return s
      case .invalid: preconditionFailure(t)
      }
    }
    #expect(try Self.wallClock(times, zone: TimeZoneOffsets(zone)) == want)
  }

  /// Before any time with an offset, no bytes stand for "the last offset": not even zero bytes
  /// where the offset would be (which a usual record lets through to the time's own check).
  @Test func noOffsetYetMatchesNothing() throws {
    let good = "u,i,left,2026-03-08T10:00:00Z\n"
    let bad = "u,i,left,2026-03-08T10:00:00" + String(repeating: "\u{0}", count: 6) + "\n"
    let rest = String(repeating: "u,i,right,2026-03-08T11:00:00Z\n", count: 4)
    let header = "user,item,swipe,at\n"
    #expect(try readEvents(header + good + rest, .csv).events.count == 5)
    #expect(throws: DeckIOError.self) { try readEvents(header + good + bad + rest, .csv) }
  }

  /// A zone whose offset changes every second and that says nothing about spans.
  private struct Ticking: UTCOffsetProvider {
    func offset(atUTC seconds: Int64) -> Int { Int(seconds % 7) * 60 }
    func forAnotherThread() -> any UTCOffsetProvider { self }
  }

  @Test func aZoneWithoutSpansIsAskedForEachSecond() throws {
    #expect(Ticking().offsetSpan(atUTC: 10) == UTCOffsetSpan(offset: 180, start: 10, end: 11))
    let times = [
      "2026-10-01T00:00:00Z", "2026-10-01T00:00:01Z", "2026-10-01T00:00:01Z",
      "2026-10-01T00:00:02Z", "2026-10-01T00:00:00Z",
    ]
    let want = times.map { t -> Int64 in
      let s = Self.utc(t)
      return s + Int64(s % 7) * 60
    }
    #expect(try Self.wallClock(times, zone: Ticking()) == want)
    #expect(Set(want.enumerated().map { $0.element - Self.utc(times[$0.offset]) }).count == 3)
  }
}

/// `Timestamp.quickTime`, the word-at-a-time reading of the usual date-times, against the
/// general parser.
@Suite struct QuickTimeTests {
  private static func quick(_ text: String) -> (seconds: Int64, utc: Bool, offset: Int64)? {
    let bytes = Array(text.utf8)
    guard bytes.count >= 10,
      case .local(let s) = Timestamp.parse(String(decoding: bytes[0..<10], as: UTF8.self))
    else { return nil }
    return bytes.withUnsafeBufferPointer {
      Timestamp.quickTime($0.baseAddress!, $0.count, afterDate: Int32(s / 86_400))
    }
  }

  @Test func usualFormsExactly() {
    let day: Int64 = 20_727 * 86_400  // 2026-10-01
    let clock: Int64 = 20 * 3600 + 17 * 60 + 10
    #expect(Self.quick("2026-10-01T20:17:10")! == (day + clock, false, 0))
    #expect(Self.quick("2026-10-01 20:17:10")! == (day + clock, false, 0))
    #expect(Self.quick("2026-10-01T20:17:10Z")! == (day + clock, true, 0))
    #expect(Self.quick("2026-10-01T20:17:10+09:00")! == (day + clock - 9 * 3600, true, 9 * 3600))
    #expect(
      Self.quick("2026-10-01T20:17:10-03:30")! == (day + clock + 3 * 3600 + 1800, true, -12_600))
    #expect(
      Self.quick("2026-10-01T00:00:00+23:59")! == (day - 23 * 3600 - 59 * 60, true, 86_340))
    #expect(Self.quick("2026-10-01T23:59:59-00:00")! == (day + 86_399, true, 0))
    // Left to the general parser: other lengths and forms, and every out-of-range part.
    for text in [
      "2026-10-01", "2026-10-01T20:17:10.5", "2026-10-01T20:17:10+0900", "2026-10-01T20:17:1Z",
      "2026-10-01T24:00:00", "2026-10-01T20:60:00Z", "2026-10-01T20:17:60+09:00",
      "2026-10-01T20:17:10+24:00", "2026-10-01T20:17:10+09:60", "2026-10-01T20:17:10 09:00",
      "2026-10-01T20:17:10+09-00", "2026-10-01t20:17:10", "2026-10-01T20-17-10Z",
      "2026-10-01T20:17:10z", "2026-10-01T20:17:1a+09:00", "2026-10-01T20:17:10.000",
    ] {
      #expect(Self.quick(text) == nil, "\(text)")
    }
  }

  @Test func agreesWithTheGeneralParserOnDamagedTexts() {
    // Each byte after the date of the three usual forms replaced by bytes near the expected
    // ones: where quickTime answers, it is the general parser's answer.
    let replacements: [UInt8] = Array("0123456789:+-Z .Tz/\u{7F}".utf8) + [0x00, 0xB0, 0xFF]
    var answered = 0
    for base in ["2026-02-28T23:59:59", "2024-02-29 00:00:00Z", "2026-10-01T20:17:10+09:00"] {
      let bytes = Array(base.utf8)
      for i in 10..<bytes.count {
        for r in replacements {
          var b = bytes
          b[i] = r
          let text = String(decoding: b, as: UTF8.self)
          guard
            let q = b.withUnsafeBufferPointer({
              buffer -> (seconds: Int64, utc: Bool, offset: Int64)? in
              guard
                case .local(let s) = Timestamp.parse(UnsafeBufferPointer(rebasing: buffer[0..<10]))
              else { return nil }
              return Timestamp.quickTime(buffer.baseAddress!, b.count, afterDate: Int32(s / 86_400))
            })
          else { continue }
          answered += 1
          let general = b.withUnsafeBufferPointer { Timestamp.parse($0) }
          #expect(general == (q.utc ? .utc(q.seconds) : .local(q.seconds)), "\(text)")
          // The offset: the local clock written less the UTC seconds; none without one.
          if b.count == 25,
            case .local(let clock) = Timestamp.parse(String(decoding: b[0..<19], as: UTF8.self))
          {
            #expect(q.offset == clock - q.seconds, "\(text)")
          } else {
            #expect(q.offset == 0, "\(text)")
          }
        }
      }
    }
    #expect(answered > 100)
  }
}

/// Reading a split record field by field (`csvFieldValues`) against the column loop: the same
/// events, and the same failure (the first bad column) when several values are bad.
@Suite struct CSVFieldByFieldTests {
  private static func same(_ header: String, _ record: String) -> String {
    var results: [String] = []
    for fast in [true, false] {
      var parser = RecordParser(
        rule: .foodMenu, zone: FixedUTCOffset(seconds: 0), format: .csv)
      parser.fastPaths = fast
      let bytes = Array((header + record).utf8) + [UInt8](repeating: 0x0A, count: 64)
      let h = header.utf8.count
      results.append(
        bytes.withUnsafeBufferPointer { b -> String in
          do throws(LineFailure) {
            let head = try parser.parse(b.baseAddress!, available: h, eof: false)
            precondition(head.kind == .header)
            let o = try parser.parse(b.baseAddress! + h, available: b.count - h, eof: true)
            let e = parser.event
            return o.kind == .event
              ? "\(e.userString)|\(e.itemString)|\(e.swipe)|\(e.at)|\(e.position)|"
                + "\(String(describing: e.deck))|\(String(describing: e.propensity))"
                + (e.prefixPropensity.map { "|prefix \($0)" } ?? "")
              : "\(o.kind)"
          } catch {
            return "failure \(error.offset) \(error.field?.name ?? "-") \(error.message)"
          }
        })
    }
    #expect(results[0] == results[1], "\(record.debugDescription)")
    return results[0]
  }

  @Test func goodRecordsInAnyColumnOrder() {
    #expect(
      Self.same("deck,at,x,swipe,item,user,position\n", "2026-10-02,2026-10-01,,left,d,u,4\n")
        == "u|d|left|\(20_727 * 86_400)|4|Optional(2026-10-02)|nil")
    #expect(
      Self.same("user,item,dx,width,at,propensity\n", "u,d,-200,300,2026-10-01T01:00:00Z,0.5\n")
        == "u|d|left|\(20_727 * 86_400 + 3600)|0|nil|Optional(0.5)")
    #expect(
      Self.same(
        "prefix_propensity,user,item,swipe,at,propensity\n", "0.125,u,d,right,2026-10-01,0.5\n")
        == "u|d|right|\(20_727 * 86_400)|0|nil|Optional(0.5)|prefix 0.125")
    #expect(Self.same("user,item,dx,width,at\n", "u,d,10,300,2026-10-01\n") == "hesitation")
    // Quoted fields, with and without doubled quotes; empty optional fields.
    #expect(
      Self.same("user,item,swipe,at,position,deck\n", "\"u\",\"d\"\"1\",right,2026-10-01,,\n")
        == "u|d\"1|right|\(20_727 * 86_400)|0|nil|nil")
    #expect(
      Self.same(
        "user,item,swipe,at,propensity,prefix_propensity\n", "u,d,right,2026-10-01,\"1\",\"1\"\n")
        == "u|d|right|\(20_727 * 86_400)|0|nil|Optional(1.0)|prefix 1.0")
  }

  @Test func theFirstBadColumnIsReported() {
    let header = "user,at,swipe,position,deck,item\n"
    #expect(
      Self.same(header, "u,2026-13-01,up,0,x,d\n")
        == "failure 7 at '2026-13-01' is not a valid time (month 13 is not 01-12); use "
        + "YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]")
    #expect(
      Self.same(header, "u,2026-10-01,up,0,x,d\n")
        == "failure 13 swipe 'up' is not right or left; use \"right\" or \"left\" (lowercase)")
    #expect(
      Self.same(header, "u,2026-10-01,left,0,x,\n")
        == "failure 18 position '0' is out of range: give a card position from 1 to 10000 (the most cards a deck has)"
    )
    #expect(
      Self.same(header, "u,2026-10-01,left,1,x,\n")
        == "failure 20 deck 'x' is not a date; use YYYY-MM-DD (a real date)")
    #expect(
      Self.same(header, "u,2026-10-01,left,1,,\n")
        == "failure 21 item empty; give a non-empty item id")
    #expect(
      Self.same(header, ",,,,,\n") == "failure 0 user empty; give a non-empty user id")
    #expect(
      Self.same(header, "u,,left,1,,d\n") == "failure 2 at empty; every event needs its time")
    // A bad prefix propensity after a bad propensity: the propensity's column comes first.
    #expect(
      Self.same("user,item,swipe,at,prefix_propensity,propensity\n", "u,d,left,2026-10-01,2,3\n")
        == "failure 20 prefix_propensity '2' is out of range: give the probability the ranking "
        + "had of showing the deck's cards from position 1 to this one, in their order, above 0 "
        + "and up to 1")
    #expect(
      Self.same("user,item,swipe,at,propensity,prefix_propensity\n", "u,d,left,2026-10-01,1,x\n")
        == "failure 22 prefix_propensity 'x' is not a number; write it like 12.5 or -3")
    #expect(
      Self.same("user,item,swipe,dx,at\n", "u,d,left,3,2026-10-01\n")
        == "failure 9 dx both 'swipe' and 'dx' given; keep one of them (they could disagree)")
  }
}
