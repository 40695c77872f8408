#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Numbers: the RFC 8259 grammar, and their value (with its text kept in the document dialect,
/// by `strtod` without a String in the protocol one).
extension JSONTreeReader {
  @inline(__always)
  func isDigit(_ k: Int) -> Bool {
    k < b.count && b[k] >= UInt8(ascii: "0") && b[k] <= UInt8(ascii: "9")
  }

  /// The value of the number `bytes[start..<end]`, read by `strtod` from a terminated copy of its
  /// bytes: no String per number, for replies that carry millions of them. Overflow gives an
  /// infinity, as the protocol dialect allows. Static: a method would copy the reader for each
  /// number, which cost more than the number.
  static func protocolNumber(_ b: [UInt8], from start: Int, to end: Int) -> Double {
    let count = end - start
    return b.withUnsafeBufferPointer { bytes in
      withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { copy in
        for k in 0..<count { copy[k] = CChar(bitPattern: bytes[start + k]) }
        copy[count] = 0
        return strtod(copy.baseAddress!, nil)
      }
    }
  }

  /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
  mutating func number() throws(JSONSyntaxError) -> JSONValue {
    let start = i
    let loc = position(start)
    func text(_ end: Int) -> String { String(decoding: b[start..<end], as: UTF8.self) }
    if b[i] == UInt8(ascii: "-") { i += 1 }
    guard isDigit(i) else {
      throw fail(
        at: i, "expected a digit after '-', found \(describeByte(b, i))", short: "expected a digit")
    }
    if b[i] == UInt8(ascii: "0") {
      i += 1
      // The protocol dialect reads "01" as 0 followed by extra text.
      if isDigit(i), dialect.explains {
        var end = i
        while isDigit(end) { end += 1 }
        throw fail(
          at: loc.location, offset: start, "number '\(text(end))' has a leading zero; remove it")
      }
    } else {
      while isDigit(i) { i += 1 }
    }
    if i < b.count, b[i] == UInt8(ascii: ".") {
      i += 1
      guard isDigit(i) else {
        throw fail(
          at: i, "expected a digit after the '.' of '\(text(i))', found \(describeByte(b, i))",
          short: "expected a digit after '.'")
      }
      while isDigit(i) { i += 1 }
    }
    if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
      i += 1
      if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
      guard isDigit(i) else {
        throw fail(
          at: i, "expected a digit in the exponent of '\(text(i))', found \(describeByte(b, i))",
          short: "expected a digit in the exponent")
      }
      while isDigit(i) { i += 1 }
    }
    if !dialect.keepsNumberText {
      return JSONValue(.number(Self.protocolNumber(b, from: start, to: i), text: ""), at: loc)
    }
    let t = text(i)
    // Out of range is infinity (a protocol line may say so; a document may not).
    let d = Double(t) ?? (b[start] == UInt8(ascii: "-") ? -.infinity : .infinity)
    guard d.isFinite || dialect.allowsNonFinite else {
      throw fail(at: loc.location, offset: start, "number '\(t)' is too large")
    }
    return JSONValue(.number(d, text: t), at: loc)
  }
}
