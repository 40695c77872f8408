/// Strings: raw runs, escapes (surrogate pairs included) and the UTF-8 checks of the document
/// dialect.
extension JSONTreeReader {
  /// A string starting at the opening quote at `i`; leaves `i` after the closing quote.
  mutating func string() throws(JSONSyntaxError) -> String {
    let open = i
    i += 1
    var runStart = i
    var buffer: [UInt8] = []
    var escaped = false
    while true {
      guard i < b.count else {
        if dialect.explains {
          throw fail(
            at: location(open), offset: i, "unterminated string; add the closing '\"'")
        }
        throw fail(at: i, "", short: "unterminated string")
      }
      let c = b[i]
      if c == Self.quote {
        let result: String
        if escaped {
          buffer.append(contentsOf: b[runStart..<i])
          result = String(decoding: buffer, as: UTF8.self)
        } else {
          result = String(decoding: b[runStart..<i], as: UTF8.self)
        }
        i += 1
        return result
      }
      if c == Self.backslash {
        buffer.append(contentsOf: b[runStart..<i])
        escaped = true
        try escape(into: &buffer)
        runStart = i
        continue
      }
      if c < 0x20 {
        if c == UInt8(ascii: "\n") || c == UInt8(ascii: "\r") {
          throw fail(
            at: i, "line break inside a string; write it as \\n, or add the missing closing '\"'",
            short: "control character in a string")
        }
        throw fail(
          at: i,
          "control character \(scalarName(UInt32(c))) inside a string; write it as "
            + "\\u00\(hexByte(c).dropFirst(2))", short: "control character in a string")
      }
      if c < 0x80 || !dialect.checksText {
        i += 1
        continue
      }
      guard let len = utf8SequenceLength(b, i) else {
        throw fail(at: location(i), offset: i, invalidUTF8Message(b, i))
      }
      i += len
    }
  }

  /// An escape sequence at `i` (the backslash); appends its UTF-8 and moves past it. The
  /// protocol dialect points at the byte where reading stopped, the document one at the escape.
  mutating func escape(into buffer: inout [UInt8]) throws(JSONSyntaxError) {
    let start = i
    guard i + 1 < b.count else {
      if !dialect.explains {
        i = b.count
        throw fail(at: i, "", short: "unterminated string")
      }
      throw fail(at: i, "unterminated escape at the end of the file", short: "")
    }
    let e = b[i + 1]
    i += 2
    switch e {
    case Self.quote: buffer.append(Self.quote)
    case Self.backslash: buffer.append(Self.backslash)
    case UInt8(ascii: "/"): buffer.append(UInt8(ascii: "/"))
    case UInt8(ascii: "b"): buffer.append(0x08)
    case UInt8(ascii: "f"): buffer.append(0x0C)
    case UInt8(ascii: "n"): buffer.append(0x0A)
    case UInt8(ascii: "r"): buffer.append(0x0D)
    case UInt8(ascii: "t"): buffer.append(0x09)
    case UInt8(ascii: "u"):
      let first = try hex4(escapeStart: start)
      var scalar = first
      if (0xD800...0xDBFF).contains(first) {
        let lowStart = i
        guard i + 1 < b.count, b[i] == Self.backslash, b[i + 1] == UInt8(ascii: "u") else {
          throw fail(
            at: dialect.explains ? start : i,
            "lone surrogate \\u\(scalarName(first).dropFirst(2)); a high surrogate must be "
              + "followed by a low surrogate escape \\uDC00-\\uDFFF", short: "bad \\u escape")
        }
        i += 2
        let second = try hex4(escapeStart: lowStart)
        guard (0xDC00...0xDFFF).contains(second) else {
          throw fail(
            at: dialect.explains ? lowStart : i,
            "\\u\(scalarName(second).dropFirst(2)) is not a low surrogate; a high surrogate "
              + "must be followed by \\uDC00-\\uDFFF", short: "bad surrogate pair")
        }
        scalar = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
      } else if (0xDC00...0xDFFF).contains(first) {
        throw fail(
          at: dialect.explains ? start : i,
          "lone surrogate \\u\(scalarName(first).dropFirst(2)); a low surrogate must follow a "
            + "high surrogate \\uD800-\\uDBFF", short: "bad \\u escape")
      }
      appendUTF8(scalar, to: &buffer)
    default:
      let stop = i
      i = start + 1
      throw fail(
        at: dialect.explains ? start : stop,
        "invalid escape '\\\(describeEscape(e))'; valid escapes are \\\" \\\\ \\/ \\b \\f \\n "
          + "\\r \\t and \\uXXXX", short: "bad escape")
    }
  }

  func describeEscape(_ e: UInt8) -> String {
    (0x21..<0x7F).contains(e) ? String(Character(Unicode.Scalar(e))) : hexByte(e)
  }

  /// Four hex digits at `i`; moves past them.
  mutating func hex4(escapeStart: Int) throws(JSONSyntaxError) -> UInt32 {
    var v: UInt32 = 0
    for k in 0..<4 {
      guard i + k < b.count, let d = hexValue(b[i + k]) else {
        let at = dialect.explains ? escapeStart : (b.count - i < 4 ? i : i + k)
        throw fail(at: at, "\\u must be followed by four hex digits", short: "bad \\u escape")
      }
      v = v << 4 | d
    }
    i += 4
    return v
  }

  func hexValue(_ c: UInt8) -> UInt32? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(c - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(c - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(c - UInt8(ascii: "A") + 10)
    default: return nil
    }
  }
}

/// Appends the UTF-8 of a scalar value known to be valid (not a surrogate, at most U+10FFFF).
@inline(__always)
package func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
  switch scalar {
  case 0..<0x80:
    out.append(UInt8(scalar))
  case 0x80..<0x800:
    out.append(0xC0 | UInt8(scalar >> 6))
    out.append(0x80 | UInt8(scalar & 0x3F))
  case 0x800..<0x10000:
    out.append(0xE0 | UInt8(scalar >> 12))
    out.append(0x80 | UInt8((scalar >> 6) & 0x3F))
    out.append(0x80 | UInt8(scalar & 0x3F))
  default:
    out.append(0xF0 | UInt8(scalar >> 18))
    out.append(0x80 | UInt8((scalar >> 12) & 0x3F))
    out.append(0x80 | UInt8((scalar >> 6) & 0x3F))
    out.append(0x80 | UInt8(scalar & 0x3F))
  }
}
