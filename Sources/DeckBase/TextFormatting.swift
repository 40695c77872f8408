/// JSON text as Strings, for the few places that need one value's text (a message, a setting):
/// thin calls into `JSONWriter`, the one escaper and number form.
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
  /// Appends `s` as a JSON string literal (with quotes): `JSONWriter.appendString`, the one
  /// escaper.
  package static func appendJSONString(_ s: String, to out: inout [UInt8]) {
    JSONWriter.appendString(s, to: &out)
  }

  /// Appends bytes (UTF-8 or not) as a JSON string literal: `JSONWriter.appendString(bytes:)`.
  package static func appendJSONString(bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
    JSONWriter.appendString(bytes: bytes, to: &out)
  }

  /// A number as an integer when it is whole and below 1e15 in magnitude (`980`, `-3`),
  /// otherwise Swift's shortest round-trip form (`2.5`, `1e+20`, `nan`): `JSONWriter`'s number
  /// form, also the one of numbers in text reports and rating rules.
  package static func number(_ value: Double) -> String { JSONWriter.numberText(value) }

  /// `value.description` (shortest digits that round-trip) rewritten without an exponent and
  /// without a trailing `.0`: `0.125`, `-187.5`, `390`, `0.00000125` (never `1.25e-06`). For
  /// finite values: the form of propensities and exact scores in logs and decks.
  package static func plainDecimal(_ value: Double) -> String {
    if value == 0 { return "0" }
    let text = value.description
    var digits = ""
    var sign = ""
    var pointAt = 0  // digits before the decimal point
    var exponent = 0
    var seenPoint = false
    var rest = Substring(text)
    if rest.hasPrefix("-") {
      sign = "-"
      rest = rest.dropFirst()
    }
    if let e = rest.firstIndex(where: { $0 == "e" || $0 == "E" }) {
      exponent = Int(String(rest[rest.index(after: e)...].filter { $0 != "+" })) ?? 0
      rest = rest[..<e]
    }
    for ch in rest {
      if ch == "." {
        seenPoint = true
      } else {
        digits.append(ch)
        if !seenPoint { pointAt += 1 }
      }
    }
    pointAt += exponent
    // Strip leading zeros (keeping the point position) and trailing zeros.
    while digits.count > 1 && digits.first == "0" {
      digits.removeFirst()
      pointAt -= 1
    }
    while digits.count > 1 && digits.last == "0" && digits.count > pointAt {
      digits.removeLast()
    }
    var out = sign
    if pointAt <= 0 {
      out += "0." + String(repeating: "0", count: -pointAt) + digits
    } else if pointAt >= digits.count {
      out += digits + String(repeating: "0", count: pointAt - digits.count)
    } else {
      let cut = digits.index(digits.startIndex, offsetBy: pointAt)
      out += digits[..<cut] + "." + digits[cut...]
    }
    return out
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
    var scale: UInt64 = 1
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * Double(scale)).rounded(.toNearestOrAwayFromZero)
    // Where `fixed` writes something else (not a number, the shortest form past 9e15).
    guard value.isFinite, scaled < 9.0e15 else {
      out.append(contentsOf: fixed(value, decimals: decimals).utf8)
      return
    }
    let n = UInt64(scaled)
    if value < 0 && n != 0 { out.append(UInt8(ascii: "-")) }
    appendInt(n / scale, to: &out)
    guard decimals > 0 else { return }
    out.append(UInt8(ascii: "."))
    // The decimals are written from the last, in place at the end of `out`.
    var frac = n % scale
    let end = out.count + decimals
    out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: decimals))
    out.withUnsafeMutableBufferPointer { b in
      var i = end - 1
      while frac > 0 {
        b[i] = 0x30 + UInt8(frac % 10)
        frac /= 10
        i -= 1
      }
    }
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
