import Testing

@testable import DeckCore

/// The portable Swift compression and the SHA extensions' one (DeckIntrinsics) give the same
/// digests: the NIST vectors on each, and random inputs fed in random chunks.
@Suite("SHA-256: the portable and the hardware compressions")
struct SHA256ImplementationTests {
  static let noHardware: Comment =
    "this CPU lacks the SHA extensions (or SSSE3, SSE4.1): only the portable SHA-256 runs here"

  /// FIPS 180 test vectors (message, digest); SHA256Tests checks the public API on them.
  static let vectors: [(String, String)] = [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    (
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
    ),
  ]

  static func digest(_ implementation: SHA256.Implementation, _ bytes: [UInt8]) -> String {
    var h = SHA256(implementation: implementation)
    h.update(bytes: bytes)
    return h.hexDigest()
  }

  /// The NIST vectors and one million 'a' (fed 1,000 at a time and in one piece).
  static func checkVectors(_ implementation: SHA256.Implementation) {
    for (message, digest) in vectors {
      #expect(SHA256.hexDigest(of: message) == digest)
      #expect(Self.digest(implementation, Array(message.utf8)) == digest)
    }
    let million = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
    var h = SHA256(implementation: implementation)
    let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
    for _ in 0..<1000 { h.update(bytes: chunk) }
    #expect(h.hexDigest() == million)
    let whole = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
    #expect(digest(implementation, whole) == million)
  }

  /// 2,000 seeded random inputs of 0...5,000 bytes, each with a seeded random split into chunks.
  static func randomInputs() -> [(bytes: [UInt8], cuts: [Int])] {
    var random = RandomStream(seed: 30)
    var out: [(bytes: [UInt8], cuts: [Int])] = []
    for _ in 0..<2000 {
      let count = random.nextInt(below: 5001)
      var bytes = [UInt8](repeating: 0, count: count)
      for i in 0..<count { bytes[i] = UInt8(truncatingIfNeeded: random.next()) }
      var cuts: [Int] = []
      var at = 0
      while at < count {
        // Mostly short chunks, sometimes up to several blocks at once.
        let limit = random.nextInt(below: 4) == 0 ? 400 : 70
        at = min(count, at + random.nextInt(below: limit))
        cuts.append(at)
      }
      out.append((bytes, cuts))
    }
    return out
  }

  static func digestInChunks(
    _ implementation: SHA256.Implementation, _ bytes: [UInt8], _ cuts: [Int]
  ) -> String {
    var h = SHA256(implementation: implementation)
    var from = 0
    for to in cuts {
      h.update(bytes: bytes[from..<to])
      from = to
    }
    return h.hexDigest()
  }

  @Test("portable: the NIST vectors")
  func portableVectors() {
    #expect(SHA256(implementation: .portable).implementation == .portable)
    Self.checkVectors(.portable)
  }

  @Test("hardware: the NIST vectors", .enabled(if: SHA256.hardwareAvailable, noHardware))
  func hardwareVectors() {
    #expect(SHA256(implementation: .hardware).implementation == .hardware)
    #expect(SHA256().implementation == .hardware)
    Self.checkVectors(.hardware)
  }

  @Test("portable: random inputs in random chunks equal one piece")
  func portableRandom() {
    for (bytes, cuts) in Self.randomInputs() {
      #expect(Self.digestInChunks(.portable, bytes, cuts) == Self.digest(.portable, bytes))
    }
  }

  @Test(
    "hardware: random inputs in random chunks equal the portable digest and one piece",
    .enabled(if: SHA256.hardwareAvailable, noHardware))
  func hardwareRandom() {
    for (bytes, cuts) in Self.randomInputs() {
      let portable = Self.digest(.portable, bytes)
      #expect(Self.digestInChunks(.hardware, bytes, cuts) == portable)
      #expect(Self.digest(.hardware, bytes) == portable)
    }
  }
}
