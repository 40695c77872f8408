internal import DeckIntrinsics

/// SHA-256 (FIPS 180-4), incremental: content hashes for run headers. Whole blocks go through
/// the CPU's SHA extensions where it has them (DeckIntrinsics, decided once per process), else
/// through the portable Swift compression; both give the same digests.
///
/// ```swift
/// var h = SHA256()
/// h.update(bytes: data)
/// let hex = SHA256.hex(h.finalize())
/// ```
/// `finalize()` does not consume the hasher: it returns the digest of everything fed so far, and
/// more bytes may follow.
public struct SHA256: Sendable {
  public static let digestCount = 32
  static let blockCount = 64

  private var h0: UInt32 = 0x6a09_e667
  private var h1: UInt32 = 0xbb67_ae85
  private var h2: UInt32 = 0x3c6e_f372
  private var h3: UInt32 = 0xa54f_f53a
  private var h4: UInt32 = 0x510e_527f
  private var h5: UInt32 = 0x9b05_688c
  private var h6: UInt32 = 0x1f83_d9ab
  private var h7: UInt32 = 0x5be0_cd19
  /// Bytes of a partial block waiting for the rest of it (fewer than 64).
  private var pending: [UInt8] = []
  /// Total message length in bytes.
  private var length: UInt64 = 0
  /// The compression whole blocks go through.
  package let implementation: Implementation

  /// The two compressions of whole blocks: the same digests, at different speeds.
  package enum Implementation: Sendable, Equatable {
    /// Swift, on any CPU.
    case portable
    /// The x86 SHA extensions (with SSSE3 and SSE4.1), through DeckIntrinsics.
    case hardware
  }

  /// Whether this CPU has the SHA extensions (checked once, with CPUID: no I/O).
  package static let hardwareAvailable = deck_sha256_hardware() != 0

  /// The compression `init()` uses: the hardware one where the CPU has it.
  package static let preferred: Implementation = hardwareAvailable ? .hardware : .portable

  public init() {
    self.init(implementation: SHA256.preferred)
  }

  /// A hasher on a given compression (for tests and benchmarks); `.hardware` falls back to
  /// `.portable` when the CPU lacks the SHA extensions.
  package init(implementation: Implementation) {
    self.implementation = SHA256.hardwareAvailable ? implementation : .portable
    pending.reserveCapacity(SHA256.blockCount)
  }

  /// Feeds bytes.
  public mutating func update(bytes: UnsafeRawBufferPointer) {
    guard !bytes.isEmpty else { return }
    length &+= UInt64(bytes.count)
    var rest = bytes
    if !pending.isEmpty {
      let take = min(SHA256.blockCount - pending.count, rest.count)
      pending.append(contentsOf: rest[..<take])
      rest = UnsafeRawBufferPointer(rebasing: rest[take...])
      guard pending.count == SHA256.blockCount else { return }
      let block = pending
      block.withUnsafeBytes { compress($0) }
      pending.removeAll(keepingCapacity: true)
    }
    let whole = rest.count - rest.count % SHA256.blockCount
    if whole > 0 { compress(UnsafeRawBufferPointer(rebasing: rest[..<whole])) }
    if whole < rest.count { pending.append(contentsOf: rest[whole...]) }
  }

  /// Feeds bytes from any collection (contiguous collections such as arrays and UTF-8 views are
  /// hashed in place; others are copied in chunks).
  public mutating func update<C: Collection>(bytes: C) where C.Element == UInt8 {
    let done: Void? = bytes.withContiguousStorageIfAvailable {
      update(bytes: UnsafeRawBufferPointer($0))
    }
    if done != nil { return }
    var chunk: [UInt8] = []
    chunk.reserveCapacity(4096)
    for b in bytes {
      chunk.append(b)
      if chunk.count == 4096 {
        chunk.withUnsafeBytes { update(bytes: $0) }
        chunk.removeAll(keepingCapacity: true)
      }
    }
    chunk.withUnsafeBytes { update(bytes: $0) }
  }

  /// Feeds the UTF-8 bytes of a string.
  public mutating func update(_ string: String) {
    var s = string
    s.withUTF8 { update(bytes: UnsafeRawBufferPointer($0)) }
  }

  /// The 32-byte digest of everything fed so far.
  public func finalize() -> [UInt8] {
    var copy = self
    let bitLength = length &* 8
    var tail = pending
    tail.append(0x80)
    let padTo = tail.count <= 56 ? 56 : 120
    tail.append(contentsOf: repeatElement(0, count: padTo - tail.count))
    for shift in stride(from: 56, through: 0, by: -8) {
      tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
    }
    tail.withUnsafeBytes { copy.compress($0) }
    var out: [UInt8] = []
    out.reserveCapacity(SHA256.digestCount)
    for word in [copy.h0, copy.h1, copy.h2, copy.h3, copy.h4, copy.h5, copy.h6, copy.h7] {
      out.append(UInt8(truncatingIfNeeded: word >> 24))
      out.append(UInt8(truncatingIfNeeded: word >> 16))
      out.append(UInt8(truncatingIfNeeded: word >> 8))
      out.append(UInt8(truncatingIfNeeded: word))
    }
    return out
  }

  /// The digest of everything fed so far as 64 lowercase hex digits.
  public func hexDigest() -> String { SHA256.hex(finalize()) }

  /// Lowercase hex of bytes.
  public static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for b in bytes {
      out.append(digits[Int(b >> 4)])
      out.append(digits[Int(b & 0x0f)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// The digest of `bytes` in one call.
  public static func hash<C: Collection>(_ bytes: C) -> [UInt8] where C.Element == UInt8 {
    var h = SHA256()
    h.update(bytes: bytes)
    return h.finalize()
  }

  /// The digest of a string's UTF-8 bytes as lowercase hex.
  public static func hexDigest(of string: String) -> String {
    var h = SHA256()
    h.update(string)
    return h.hexDigest()
  }

  /// Processes whole 64-byte blocks.
  private mutating func compress(_ data: UnsafeRawBufferPointer) {
    precondition(data.count % SHA256.blockCount == 0)
    guard let base = data.baseAddress, !data.isEmpty else { return }
    switch implementation {
    case .portable: compressPortable(data)
    case .hardware: compressHardware(base.assumingMemoryBound(to: UInt8.self), data.count)
    }
  }

  /// Whole blocks through the SHA extensions: the state goes to C as eight UInt32s in order.
  private mutating func compressHardware(_ blocks: UnsafePointer<UInt8>, _ count: Int) {
    var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
      h0, h1, h2, h3, h4, h5, h6, h7
    )
    withUnsafeMutableBytes(of: &state) { raw in
      deck_sha256_blocks(
        raw.baseAddress!.assumingMemoryBound(to: UInt32.self), blocks,
        count / SHA256.blockCount)
    }
    (h0, h1, h2, h3, h4, h5, h6, h7) = state
  }

  /// Whole blocks in Swift.
  private mutating func compressPortable(_ data: UnsafeRawBufferPointer) {
    var a0 = h0
    var b0 = h1
    var c0 = h2
    var d0 = h3
    var e0 = h4
    var f0 = h5
    var g0 = h6
    var hh = h7
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
      sha256RoundConstants.withUnsafeBufferPointer { k in
        var offset = 0
        while offset < data.count {
          for t in 0..<16 {
            w[t] = UInt32(
              bigEndian: data.loadUnaligned(fromByteOffset: offset + 4 * t, as: UInt32.self))
          }
          for t in 16..<64 {
            let x = w[t - 15]
            let y = w[t - 2]
            let s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3)
            let s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >> 10)
            w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
          }
          var a = a0
          var b = b0
          var c = c0
          var d = d0
          var e = e0
          var f = f0
          var g = g0
          var h = hh
          // Eight rounds a step, each with the working variables in its turn's places: no
          // shuffling of eight registers every round.
          var t = 0
          while t < 64 {
            sha256Round(a, b, c, &d, e, f, g, &h, k[t] &+ w[t])
            sha256Round(h, a, b, &c, d, e, f, &g, k[t + 1] &+ w[t + 1])
            sha256Round(g, h, a, &b, c, d, e, &f, k[t + 2] &+ w[t + 2])
            sha256Round(f, g, h, &a, b, c, d, &e, k[t + 3] &+ w[t + 3])
            sha256Round(e, f, g, &h, a, b, c, &d, k[t + 4] &+ w[t + 4])
            sha256Round(d, e, f, &g, h, a, b, &c, k[t + 5] &+ w[t + 5])
            sha256Round(c, d, e, &f, g, h, a, &b, k[t + 6] &+ w[t + 6])
            sha256Round(b, c, d, &e, f, g, h, &a, k[t + 7] &+ w[t + 7])
            t += 8
          }
          a0 &+= a
          b0 &+= b
          c0 &+= c
          d0 &+= d
          e0 &+= e
          f0 &+= f
          g0 &+= g
          hh &+= h
          offset += SHA256.blockCount
        }
      }
    }
    h0 = a0
    h1 = b0
    h2 = c0
    h3 = d0
    h4 = e0
    h5 = f0
    h6 = g0
    h7 = hh
  }
}

/// One round of FIPS 180-4 section 6.2.2 step 3, written so that the caller rotates the names
/// instead of the values: `d` takes `d + T1` (the next `e`) and `h` takes `T1 + T2` (the next
/// `a`). `kw` is the round's constant plus its schedule word. Ch and Maj in their two-operation
/// forms: `g ^ (e & (f ^ g))` and `(a & b) ^ (c & (a ^ b))`.
@inline(__always)
private func sha256Round(
  _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32, _ e: UInt32, _ f: UInt32,
  _ g: UInt32, _ h: inout UInt32, _ kw: UInt32
) {
  let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
  let t1 = h &+ s1 &+ (g ^ (e & (f ^ g))) &+ kw
  let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
  d &+= t1
  h = t1 &+ s0 &+ ((a & b) ^ (c & (a ^ b)))
}

@inline(__always)
private func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

/// The round constants K, from DeckIntrinsics' one table (the hardware compression's too).
private let sha256RoundConstants: [UInt32] = withUnsafeBytes(of: deck_sha256_k) {
  Array($0.bindMemory(to: UInt32.self))
}
