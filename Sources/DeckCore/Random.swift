/// A stable 64-bit hash of bytes (FNV-1a followed by the SplitMix64 finaliser).
///
/// Unlike Swift's `Hasher`, which is seeded per process, this gives the same value on every run and
/// every machine, so it can derive seeds and tie-breaks that must be reproducible.
public struct StableHash: Sendable {
  public private(set) var state: UInt64 = 0xcbf2_9ce4_8422_2325

  public init() {}

  public mutating func combine<S: Sequence>(bytes: S) where S.Element == UInt8 {
    for b in bytes {
      state = (state ^ UInt64(b)) &* 0x0000_0100_0000_01b3
    }
  }

  public mutating func combine(_ string: String) {
    combine(bytes: string.utf8)
    // Length-terminate so that ("ab", "c") and ("a", "bc") differ.
    combine(UInt64(string.utf8.count))
  }

  public mutating func combine(_ value: UInt64) {
    var v = value
    for _ in 0..<8 {
      state = (state ^ (v & 0xff)) &* 0x0000_0100_0000_01b3
      v >>= 8
    }
  }

  public var finalized: UInt64 { mix64(state) }

  public static func hash(_ string: String) -> UInt64 {
    var h = StableHash()
    h.combine(string)
    return h.finalized
  }
}

@inline(__always)
func mix64(_ x: UInt64) -> UInt64 {
  var z = x &+ 0x9E37_79B9_7F4A_7C15
  z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
  z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
  return z ^ (z >> 31)
}

/// A seeded random stream (xoshiro256**). Its algorithms for integers, doubles and shuffles are
/// our own, so the sequence never changes with the Swift standard library's implementation.
public struct RandomStream: RandomNumberGenerator, Sendable {
  private var s0: UInt64
  private var s1: UInt64
  private var s2: UInt64
  private var s3: UInt64

  /// A stream from a 64-bit seed (expanded with SplitMix64).
  public init(seed: UInt64) {
    var x = seed
    func next() -> UInt64 {
      x = x &+ 0x9E37_79B9_7F4A_7C15
      return mix64(x &- 0x9E37_79B9_7F4A_7C15)
    }
    s0 = next()
    s1 = next()
    s2 = next()
    s3 = next()
    if s0 | s1 | s2 | s3 == 0 { s0 = 1 }
  }

  /// The stream for one diner's deck on one date: derived from (seed, date, user id) only, so it
  /// does not depend on the order in which diners are processed.
  public init(seed: UInt64, date: DeckDate, user: String, purpose: String = "deck") {
    var h = StableHash()
    h.combine(seed)
    h.combine(UInt64(bitPattern: Int64(date.daysSinceEpoch)))
    h.combine(user)
    h.combine(purpose)
    self.init(seed: h.finalized)
  }

  public mutating func next() -> UInt64 {
    let result = rotl(s1 &* 5, 7) &* 9
    let t = s1 << 17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = rotl(s3, 45)
    return result
  }

  /// Uniform in [0, 1) with 53 bits of precision.
  public mutating func nextDouble() -> Double {
    Double(next() >> 11) * 0x1.0p-53
  }

  /// Uniform in 0..<bound (Lemire's nearly-divisionless method, unbiased).
  public mutating func nextInt(below bound: Int) -> Int {
    precondition(bound > 0, "bound must be positive")
    let b = UInt64(bound)
    var m = next().multipliedFullWidth(by: b)
    if m.low < b {
      let threshold = (0 &- b) % b
      while m.low < threshold { m = next().multipliedFullWidth(by: b) }
    }
    return Int(m.high)
  }

  /// Fisher-Yates shuffle in place.
  public mutating func shuffle<T>(_ array: inout [T]) {
    var i = array.count - 1
    while i > 0 {
      let j = nextInt(below: i + 1)
      array.swapAt(i, j)
      i -= 1
    }
  }
}

@inline(__always)
private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
