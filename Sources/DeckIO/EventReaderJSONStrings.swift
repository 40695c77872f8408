import DeckBase
import DeckCore

private let quote = UInt8(ascii: "\"")
private let backslash = UInt8(ascii: "\\")

// JSON strings: scanning (escapes, control characters, UTF-8, eight bytes at a time) and
// unescaping.
extension RecordParser {
  /// Scans the string whose opening quote is at `p[i]`: checks escapes, control characters and
  /// UTF-8. Returns the index of the closing quote and whether there were escapes.
  @inline(__always)
  func scanString(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int, _ field: EventField?)
    throws(LineFailure) -> (close: Int, escaped: Bool)
  {
    var j = i + 1
    var escaped = false
    while j < n {
      // Eight bytes at a time: past plain ones (no quote, backslash, control or non-ASCII byte)
      // straight to the first special one.
      if j + 8 <= n {
        let special = swarSpecialStringBytes(UnsafeRawPointer(p + j).loadUnaligned(as: UInt64.self))
        if special == 0 {
          j += 8
          continue
        }
        j += special.trailingZeroBitCount >> 3
      }
      let c = p[j]
      if c == quote { return (j, escaped) }
      if c == backslash {
        escaped = true
        guard j + 1 < n else { break }
        switch p[j + 1] {
        case quote, backslash, UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
          UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
          j += 2
        case UInt8(ascii: "u"):
          guard let u = hex4(p, j + 2, n) else {
            throw LineFailure(j, field, "invalid \\u escape; write \\u followed by 4 hex digits")
          }
          if u >= 0xD800 && u <= 0xDBFF {
            guard j + 7 < n, p[j + 6] == backslash, p[j + 7] == UInt8(ascii: "u"),
              let low = hex4(p, j + 8, n), low >= 0xDC00 && low <= 0xDFFF
            else {
              throw LineFailure(
                j, field, "unpaired surrogate \\u\(hexText(u)); a high surrogate needs a low one")
            }
            j += 12
          } else if u >= 0xDC00 && u <= 0xDFFF {
            throw LineFailure(
              j, field,
              "unpaired surrogate \\u\(hexText(u)); a low surrogate needs a high one first")
          } else {
            j += 6
          }
        default:
          throw LineFailure(
            j, field,
            "invalid escape \(quoted(p + j, min(2, n - j))); use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX"
          )
        }
        continue
      }
      if c < 0x20 {
        throw LineFailure(
          j, field, "control character 0x\(hexText(UInt32(c), 2)) inside a string; escape it")
      }
      if c >= 0x80 {
        let len = utf8SequenceLength(p, j, n)
        if len == 0 { throw invalidUTF8(p, j, field) }
        j += len
        continue
      }
      j += 1
    }
    throw LineFailure(
      n, field, "the line ends inside a string (missing closing quote?); close the string")
  }

  /// Decodes the escapes of an already scanned string into `scratch`.
  func unescape(
    _ p: UnsafePointer<UInt8>, _ start: Int, _ close: Int, _ escaped: Bool, _ scratch: ScratchBuffer
  ) -> UnsafeBufferPointer<UInt8> {
    guard escaped else { return UnsafeBufferPointer(start: p + start, count: close - start) }
    scratch.reserve(close - start)
    let out = scratch.base
    var o = 0
    var j = start
    while j < close {
      let c = p[j]
      if c != backslash {
        out[o] = c
        o += 1
        j += 1
        continue
      }
      let e = p[j + 1]
      j += 2
      var scalar: UInt32
      switch e {
      case UInt8(ascii: "b"): scalar = 0x08
      case UInt8(ascii: "f"): scalar = 0x0C
      case UInt8(ascii: "n"): scalar = 0x0A
      case UInt8(ascii: "r"): scalar = 0x0D
      case UInt8(ascii: "t"): scalar = 0x09
      case UInt8(ascii: "u"):
        scalar = hex4(p, j, close)!
        j += 4
        if scalar >= 0xD800 && scalar <= 0xDBFF {
          let low = hex4(p, j + 2, close)!
          scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          j += 6
        }
      default: scalar = UInt32(e)
      }
      // A \u escape is at most 6 bytes of input and its UTF-8 at most 4 bytes: it fits.
      if scalar < 0x80 {
        out[o] = UInt8(scalar)
        o += 1
      } else if scalar < 0x800 {
        out[o] = UInt8(0xC0 | (scalar >> 6))
        out[o + 1] = UInt8(0x80 | (scalar & 0x3F))
        o += 2
      } else if scalar < 0x10000 {
        out[o] = UInt8(0xE0 | (scalar >> 12))
        out[o + 1] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
        out[o + 2] = UInt8(0x80 | (scalar & 0x3F))
        o += 3
      } else {
        out[o] = UInt8(0xF0 | (scalar >> 18))
        out[o + 1] = UInt8(0x80 | ((scalar >> 12) & 0x3F))
        out[o + 2] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
        out[o + 3] = UInt8(0x80 | (scalar & 0x3F))
        o += 4
      }
    }
    return UnsafeBufferPointer(start: out, count: o)
  }

  @inline(__always)
  func hex4(_ p: UnsafePointer<UInt8>, _ i: Int, _ n: Int) -> UInt32? {
    guard i + 4 <= n else { return nil }
    var v: UInt32 = 0
    for k in i..<(i + 4) {
      let c = p[k]
      let d: UInt8
      if c &- UInt8(ascii: "0") < 10 {
        d = c &- UInt8(ascii: "0")
      } else if (c | 0x20) &- UInt8(ascii: "a") < 6 {
        d = (c | 0x20) &- UInt8(ascii: "a") + 10
      } else {
        return nil
      }
      v = v << 4 | UInt32(d)
    }
    return v
  }

  func hexText(_ v: UInt32, _ width: Int = 4) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, width - s.count)) + s
  }
}

private let ones: UInt64 = 0x0101_0101_0101_0101
private let highs: UInt64 = 0x8080_8080_8080_8080

/// Whether any byte of `w` is zero (exact for "any").
@inline(__always)
func swarHasZero(_ w: UInt64) -> Bool { (w &- ones) & ~w & highs != 0 }

/// The high bit of each byte of `w` that is zero, and of no other byte (exact per byte, unlike
/// `swarHasZero`, so the lowest set bit finds the first such byte).
@inline(__always)
func swarZeroBytes(_ w: UInt64) -> UInt64 {
  ~(((w & ~highs) &+ ~highs) | w) & highs
}

/// The high bit of each byte of `w` that equals `b` (exact per byte).
@inline(__always)
func swarBytesEqual(_ w: UInt64, _ b: UInt8) -> UInt64 { swarZeroBytes(w ^ (ones &* UInt64(b))) }

/// The high bit of each byte of `w` that is a quote, a backslash, below 0x20 or at least 0x80
/// (exact per byte; on little-endian loads the lowest set bit is the first such byte).
@inline(__always)
func swarSpecialStringBytes(_ w: UInt64) -> UInt64 {
  // Bytes below 0x80: adding 0x60 to the low seven bits sets the high bit exactly from 0x20 on.
  let below20 = ~((w & ~highs) &+ ones &* 0x60) & highs
  return (w & highs) | below20 | swarBytesEqual(w, 0x22) | swarBytesEqual(w, 0x5C)
}
