/// An id (of a dish, a diner, a category) as a dictionary or set key: the one identity rule of
/// menudeck.
///
/// **An id is its UTF-8 bytes.** Two ids are the same exactly when their UTF-8 bytes are equal;
/// nothing is normalised, so precomposed "café" (`caf\u{E9}`) and decomposed "café"
/// (`cafe\u{301}`) are two ids, and an id is written back byte for byte. Swift's `String` `==`
/// and hashing follow Unicode canonical equivalence instead (those two spellings are one
/// `String`), while the streaming log readers (`ByteTable`, the catalog's byte index) and every
/// byte-level tool around menudeck (DuckDB, jq, trec_eval, pandas) compare bytes: so every map,
/// set, merge or duplicate check of ids goes through this key, never through `String` equality.
///
/// `==` compares the UTF-8 bytes, `hash(into:)` hashes exactly them, and `<` is ascending UTF-8
/// byte order (the order every sorted id list of menudeck is documented in; not Swift's `String`
/// `<`, which orders by the Unicode scalars of the canonical form).
package struct IDKey: Hashable, Comparable, Sendable, CustomStringConvertible,
  ExpressibleByStringLiteral
{
  /// The id, exactly as given.
  package let string: String

  package init(_ string: String) { self.string = string }

  package init(stringLiteral value: String) { self.init(value) }

  package var description: String { string }

  @inline(__always)
  package static func == (a: IDKey, b: IDKey) -> Bool { same(a.string, b.string) }

  @inline(__always)
  package static func < (a: IDKey, b: IDKey) -> Bool { precedes(a.string, b.string) }

  /// The UTF-8 bytes, as they are (their count is in SipHash's own finalisation).
  @inline(__always)
  package func hash(into hasher: inout Hasher) {
    let utf8 = string.utf8
    if utf8.withContiguousStorageIfAvailable({ hasher.combine(bytes: UnsafeRawBufferPointer($0)) })
      == nil
    {
      // A string without contiguous UTF-8 (bridged): the same bytes, so the same hash.
      Array(utf8).withUnsafeBytes { hasher.combine(bytes: $0) }
    }
  }

  /// Whether two ids are the same id: their UTF-8 bytes are equal.
  @inline(__always)
  package static func same(_ a: String, _ b: String) -> Bool {
    let x = a.utf8
    let y = b.utf8
    guard x.count == y.count else { return false }
    let fast = x.withContiguousStorageIfAvailable { p in
      y.withContiguousStorageIfAvailable { q in bytesEqual(p, q) }
    }
    if let fast, let equal = fast { return equal }
    return x.elementsEqual(y)
  }

  /// Whether `a` comes before `b` in ascending UTF-8 byte order (a prefix first).
  @inline(__always)
  package static func precedes(_ a: String, _ b: String) -> Bool {
    let x = a.utf8
    let y = b.utf8
    let fast = x.withContiguousStorageIfAvailable { p in
      y.withContiguousStorageIfAvailable { q in bytesPrecede(p, q) }
    }
    if let fast, let before = fast { return before }
    return x.lexicographicallyPrecedes(y)
  }

  /// `precedes` on the bytes themselves (a sort of 100,000 diners compares 1.7 million times).
  @inline(__always)
  private static func bytesPrecede(_ p: UnsafeBufferPointer<UInt8>, _ q: UnsafeBufferPointer<UInt8>)
    -> Bool
  {
    for i in 0..<min(p.count, q.count) where p[i] != q[i] { return p[i] < q[i] }
    return p.count < q.count
  }

  /// Equal buffers of equal counts (`HashMix.equal`: whole words, never outside the buffers).
  @inline(__always)
  private static func bytesEqual(_ p: UnsafeBufferPointer<UInt8>, _ q: UnsafeBufferPointer<UInt8>)
    -> Bool
  {
    let n = p.count
    guard n > 0, let a = p.baseAddress, let b = q.baseAddress else { return true }
    return HashMix.equal(a, b, n)
  }

}

extension Sequence where Element == String {
  /// The ids in ascending UTF-8 byte order (`IDKey.precedes`).
  package func sortedByBytes() -> [String] { sorted(by: IDKey.precedes) }
}
