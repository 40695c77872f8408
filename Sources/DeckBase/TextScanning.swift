/// Byte-level text helpers of every reader (the JSON parser, the CSV reader, the event reader's
/// fast paths): one rule for line ends, one validation of UTF-8, one way to name a byte in a
/// message, one line-and-column count.

/// The one rule for line ends, in every reader of line records (CSV catalogs, users and policy
/// files, swipe logs in CSV, mapped CSV and JSON Lines, JSON Lines policy files, TREC runs): a
/// line ends with LF or CRLF. A carriage return that is not followed by a line feed (outside a
/// quoted CSV field, where it is data) is refused with this message at its line and column,
/// never read as part of a value or as white space: read so, a file with old Mac (CR-only) line
/// ends would be one long line, and its swipes lost. A JSON document (config, catalog, users) is
/// no list of lines: there a carriage return is white space, as RFC 8259 says (`JSONReader`).
package let loneCarriageReturnMessage =
  "carriage return not followed by a line feed; end lines with LF or CRLF (a file with "
  + "CR-only line ends, as old Mac files have, converts with: tr '\\r' '\\n' < old > new)"

/// The length of the valid UTF-8 sequence starting with the non-ASCII byte at `i`, or nil when the
/// bytes there are not valid UTF-8 (overlong forms, surrogates, values above U+10FFFF, truncated
/// sequences and stray continuation bytes are all invalid).
@inline(__always)
package func utf8SequenceLength(_ b: [UInt8], _ i: Int) -> Int? {
  let lead = b[i]
  let n = b.count
  @inline(__always) func cont(_ k: Int, _ lo: UInt8 = 0x80, _ hi: UInt8 = 0xBF) -> Bool {
    k < n && b[k] >= lo && b[k] <= hi
  }
  switch lead {
  case 0xC2...0xDF:
    return cont(i + 1) ? 2 : nil
  case 0xE0:
    return cont(i + 1, 0xA0) && cont(i + 2) ? 3 : nil
  case 0xE1...0xEC, 0xEE...0xEF:
    return cont(i + 1) && cont(i + 2) ? 3 : nil
  case 0xED:
    return cont(i + 1, 0x80, 0x9F) && cont(i + 2) ? 3 : nil
  case 0xF0:
    return cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3) ? 4 : nil
  case 0xF1...0xF3:
    return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : nil
  case 0xF4:
    return cont(i + 1, 0x80, 0x8F) && cont(i + 2) && cont(i + 3) ? 4 : nil
  default:
    return nil
  }
}

/// The message for invalid UTF-8 at `i`: names the offending bytes.
package func invalidUTF8Message(_ b: [UInt8], _ i: Int) -> String {
  var shown = [hexByte(b[i])]
  var k = i + 1
  while k < b.count, k < i + 4, (0x80...0xBF).contains(b[k]) {
    shown.append(hexByte(b[k]))
    k += 1
  }
  return "invalid UTF-8 (bytes \(shown.joined(separator: " "))); save the file as UTF-8"
}

package func hexByte(_ x: UInt8) -> String {
  let digits = Array("0123456789ABCDEF")
  return "0x" + String(digits[Int(x >> 4)]) + String(digits[Int(x & 15)])
}

/// What is at byte `i`, for "found ..." in messages: `'x'` for visible ASCII and valid non-ASCII
/// characters, names for line breaks and control characters, "the end of the file" past the end.
package func describeByte(_ b: [UInt8], _ i: Int) -> String {
  guard i < b.count else { return "the end of the file" }
  let c = b[i]
  switch c {
  case UInt8(ascii: "\n"), UInt8(ascii: "\r"): return "a line break"
  case UInt8(ascii: "\t"): return "a tab"
  case 0..<0x20, 0x7F: return "control character \(scalarName(UInt32(c)))"
  case 0x20..<0x7F: return "'\(Character(Unicode.Scalar(c)))'"
  default:
    guard let len = utf8SequenceLength(b, i) else { return "an invalid UTF-8 byte \(hexByte(c))" }
    let s = String(decoding: b[i..<(i + len)], as: UTF8.self)
    return "'\(s)' (\(scalarName(s.unicodeScalars.first!.value)))"
  }
}

/// `U+000A` style name of a scalar value.
package func scalarName(_ v: UInt32) -> String {
  var hex = String(v, radix: 16, uppercase: true)
  while hex.count < 4 { hex = "0" + hex }
  return "U+" + hex
}

/// Line and column bookkeeping for a forward scan.
///
/// Lines advance when the scanner reports a line feed. Columns count Unicode scalars (every byte
/// that is not a UTF-8 continuation byte), as editors do. Columns are computed on demand from the
/// last computed position, so asking for the columns of increasing offsets costs O(n) in total
/// even when the whole file is one line.
package struct LineTracker {
  package private(set) var line = 1
  package private(set) var lineStart = 0
  private var cacheOffset = 0
  private var cacheColumn = 1

  package init(start: Int) {
    lineStart = start
    cacheOffset = start
  }

  /// The byte at `offset` is a line feed: the next line starts after it.
  @inline(__always)
  package mutating func newline(at offset: Int) {
    line += 1
    lineStart = offset + 1
    cacheOffset = offset + 1
    cacheColumn = 1
  }

  /// The 1-based column of `offset`, which must be on the current line.
  package mutating func column(of offset: Int, in b: [UInt8]) -> Int {
    if offset < cacheOffset {
      cacheOffset = lineStart
      cacheColumn = 1
    }
    var col = cacheColumn
    var k = cacheOffset
    while k < offset {
      if b[k] & 0xC0 != 0x80 { col += 1 }
      k += 1
    }
    cacheOffset = offset
    cacheColumn = col
    return col
  }
}
