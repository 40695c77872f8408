/// JSON text for every writer of menudeck (decks, reports, sample data, rejects, plugin
/// messages): one escaping rule, so the same string is always written as the same bytes.
package enum JSONText {
  /// `s` as a JSON string literal with its quotes: quote, backslash and control characters
  /// escaped (as `\n`, `\r`, `\t`, `\b`, `\f` or `\u00XX`), everything else as is.
  package static func string(_ s: String) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(s.utf8.count + 2)
    Text.appendJSONString(s, to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// Appends `string(s)` to a byte buffer.
  package static func append(_ s: String, to out: inout [UInt8]) {
    Text.appendJSONString(s, to: &out)
  }
}

/// Text built from a few values for a report or a message: a CSV field as a String, a shell
/// word, a counted noun. The formatting of numbers, widths and padding is `Text`'s.
package enum TextLayout {
  /// `s` as a CSV field, quoted only when it holds a comma, quote, CR or LF (RFC 4180).
  package static func csvField(_ s: String) -> String {
    var out: [UInt8] = []
    Text.appendCSVField(s, to: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// `argument` as a POSIX shell word, for a command line shown to be run (a report's, a
  /// message's): as it is when it holds only characters no shell treats specially, else in
  /// single quotes (a quote inside as `'\''`).
  package static func shellWord(_ argument: String) -> String {
    let plain = argument.unicodeScalars.allSatisfy { c in
      (c.value >= 0x30 && c.value <= 0x39) || (c.value >= 0x41 && c.value <= 0x5A)
        || (c.value >= 0x61 && c.value <= 0x7A) || "-_./=:,+@%".unicodeScalars.contains(c)
    }
    if plain && !argument.isEmpty { return argument }
    var quoted = "'"
    for c in argument { quoted += c == "'" ? "'\\''" : String(c) }
    return quoted + "'"
  }

  /// "1 field", "2 fields", "0 fields": a count and its noun, plural unless the count is 1
  /// (`plural`, when the noun does not take an "s": "query", "queries"). The one rule of every
  /// message that counts.
  package static func plural(_ n: Int, _ noun: String, _ plural: String? = nil) -> String {
    n == 1 ? "1 \(noun)" : "\(n) \(plural ?? noun + "s")"
  }
}

/// Small, allocation-light formatting helpers: the one place of JSON string escaping, CSV
/// quoting, numbers (`number`, `fixed`, `roundTrip`), terminal display widths and padding, for
/// every writer and message of every module. All output formatting is our own so that bytes
/// never change with Foundation's or the locale's number formatting.
package enum Text {
  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

  /// Appends `s` as a JSON string literal (with quotes), escaping per RFC 8259: the one escaper
  /// of every JSON writer (decks, reports, sample data, rejects, plugin messages).
  package static func appendJSONString(_ s: String, to out: inout [UInt8]) {
    var s = s
    s.withUTF8 { appendJSONString(bytes: $0, to: &out) }
  }

  /// Appends bytes (UTF-8 or not: a rejected log line is written as it came) as a JSON string
  /// literal: quote, backslash and control characters escaped as `\"`, `\\`, `\n`, `\r`, `\t`,
  /// `\b`, `\f` or `\u00XX`, everything else as is.
  package static func appendJSONString(bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    for b in bytes {
      switch b {
      case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
      case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
      case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
      case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
      case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
      case 0x08: out.append(contentsOf: [0x5C, UInt8(ascii: "b")])
      case 0x0C: out.append(contentsOf: [0x5C, UInt8(ascii: "f")])
      case 0..<0x20:
        out.append(contentsOf: [
          0x5C, UInt8(ascii: "u"), 0x30, 0x30, hexDigits[Int(b >> 4)], hexDigits[Int(b & 15)],
        ])
      default: out.append(b)
      }
    }
    out.append(UInt8(ascii: "\""))
  }

  /// A number as an integer when it is whole and below 1e15 in magnitude (`980`, `-3`),
  /// otherwise Swift's shortest round-trip form (`2.5`, `1e+20`, `nan`): the one form of numbers
  /// in JSON reports, sample data, rating rules and plugin messages.
  package static func number(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
  }

  /// Appends a CSV field, quoted only when it holds a comma, quote, CR or LF (RFC 4180).
  package static func appendCSVField(_ s: String, to out: inout [UInt8]) {
    let needsQuotes = s.utf8.contains { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
    if !needsQuotes {
      out.append(contentsOf: s.utf8)
      return
    }
    out.append(0x22)
    for b in s.utf8 {
      if b == 0x22 { out.append(0x22) }
      out.append(b)
    }
    out.append(0x22)
  }

  /// A finite number in full precision for machine output (JSON and CSV): Swift's shortest
  /// text that reads back as the same double, always with a point or an exponent so that
  /// readers type it as a float (`0.5`, `1.0`, `1e-07`, `1.5e+20`). Not for NaN or infinities.
  package static func roundTrip(_ value: Double) -> String {
    precondition(value.isFinite, "only finite numbers have a machine form")
    return value == 0 ? "0.0" : String(value)
  }

  /// Appends `Text.fixed(value, decimals:)` without creating a String.
  package static func appendFixed(_ value: Double, decimals: Int = 6, to out: inout [UInt8]) {
    guard value.isFinite, abs(value) < 1e9 else {
      out.append(contentsOf: fixed(value, decimals: decimals).utf8)
      return
    }
    var scale: UInt64 = 1
    for _ in 0..<decimals { scale *= 10 }
    let n = UInt64((abs(value) * Double(scale)).rounded(.toNearestOrAwayFromZero))
    if value < 0 && n != 0 { out.append(UInt8(ascii: "-")) }
    appendInt(n / scale, to: &out)
    guard decimals > 0 else { return }
    out.append(UInt8(ascii: "."))
    var frac = n % scale
    var digits = [UInt8](repeating: 0x30, count: decimals)
    var i = decimals - 1
    while i >= 0 {
      digits[i] = 0x30 + UInt8(frac % 10)
      frac /= 10
      i -= 1
    }
    out.append(contentsOf: digits)
  }

  /// Appends a non-negative integer in decimal.
  package static func appendInt(_ value: UInt64, to out: inout [UInt8]) {
    if value < 10 {
      out.append(0x30 + UInt8(value))
      return
    }
    var v = value
    var tmp:
      (
        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
        UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
      ) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    var n = 0
    withUnsafeMutableBytes(of: &tmp) { buf in
      while v > 0 {
        buf[n] = 0x30 + UInt8(v % 10)
        v /= 10
        n += 1
      }
      var i = n - 1
      while i >= 0 {
        out.append(buf[i])
        i -= 1
      }
    }
  }

  /// `value` with exactly `decimals` digits after the point, rounded half away from zero; never
  /// an exponent while `value` times 10^`decimals` is below 9e15 (beyond, Swift's shortest
  /// form). Non-finite values are written as 0: check them first.
  package static func fixed(_ value: Double, decimals: Int = 6) -> String {
    guard value.isFinite else { return "0" }
    var scale: Double = 1
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
    guard scaled < 9.0e15 else { return String(value) }
    let n = UInt64(scaled)
    let p = UInt64(scale)
    var frac = String(n % p)
    if frac.count < decimals { frac = String(repeating: "0", count: decimals - frac.count) + frac }
    let sign = (value < 0 && n != 0) ? "-" : ""
    return decimals == 0 ? "\(sign)\(n / p)" : "\(sign)\(n / p).\(frac)"
  }

  /// Display width in a terminal: East Asian wide and fullwidth characters count 2.
  package static func displayWidth(_ s: String) -> Int {
    var w = 0
    for scalar in s.unicodeScalars {
      let v = scalar.value
      if v == 0x200B || (0x300...0x36F).contains(v) { continue }  // zero width, combining marks
      let wide =
        (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v)
        || (0xAC00...0xD7A3).contains(v) || (0xF900...0xFAFF).contains(v)
        || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
        || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1F64F).contains(v)
        || (0x1F900...0x1F9FF).contains(v) || (0x20000...0x3FFFD).contains(v)
      w += wide ? 2 : 1
    }
    return w
  }

  package static func padRight(_ s: String, _ width: Int) -> String {
    let w = displayWidth(s)
    return w >= width ? s : s + String(repeating: " ", count: width - w)
  }

  package static func padLeft(_ s: String, _ width: Int) -> String {
    let w = displayWidth(s)
    return w >= width ? s : String(repeating: " ", count: width - w) + s
  }

  /// Cuts `s` to at most `width` display columns, ending with "…" when cut.
  package static func truncate(_ s: String, _ width: Int) -> String {
    guard displayWidth(s) > width else { return s }
    var out = ""
    var w = 0
    for ch in s {
      let cw = displayWidth(String(ch))
      if w + cw > width - 1 { break }
      out.append(ch)
      w += cw
    }
    return out + "…"
  }
}
