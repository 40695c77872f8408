import DeckCore
import Foundation

/// SHA-256 throughput (the run header's content hashes, issue 30): DeckCore's `SHA256()` on the
/// compression this CPU gets (the SHA extensions where it has them) and the portable Swift one,
/// over the same seeded buffer. Both must give the same digest: the child fails otherwise.
enum HashBench {
  struct Result {
    /// Bytes hashed per run.
    var bytes: Int
    /// Whether `SHA256()` runs on the SHA extensions here.
    var hardware: Bool
    /// Best CPU seconds of `SHA256()` (the preferred compression) and of the portable one.
    var preferredSeconds: Double
    var portableSeconds: Double
  }

  /// A buffer of `mebibytes` MiB of seeded random bytes.
  static func buffer(mebibytes: Int) -> [UInt8] {
    var random = RandomStream(seed: 30)
    let words = mebibytes * 1_048_576 / 8
    var out = [UInt8](repeating: 0, count: words * 8)
    out.withUnsafeMutableBytes { raw in
      for i in 0..<words {
        raw.storeBytes(of: random.next().littleEndian, toByteOffset: i * 8, as: UInt64.self)
      }
    }
    return out
  }

  /// One digest of the whole buffer on a compression, and its CPU seconds.
  static func digest(
    _ implementation: SHA256.Implementation?, _ bytes: UnsafeRawBufferPointer
  ) -> (hex: String, seconds: Double) {
    let start = Clock.cpuNow()
    var h = implementation.map { SHA256(implementation: $0) } ?? SHA256()
    h.update(bytes: bytes)
    let hex = h.hexDigest()
    return (hex, Clock.cpuNow() - start)
  }

  /// Hashes the buffer `repeats` times on each compression (alternating), keeps the fastest
  /// run of each, and stops the process loudly when any two digests differ.
  static func run(mebibytes: Int, repeats: Int) -> Result {
    let data = buffer(mebibytes: mebibytes)
    var preferred = Double.infinity
    var portable = Double.infinity
    var digests: Set<String> = []
    data.withUnsafeBytes { bytes in
      for _ in 0..<max(repeats, 1) {
        let p = digest(nil, bytes)
        let s = digest(.portable, bytes)
        digests.formUnion([p.hex, s.hex])
        preferred = min(preferred, p.seconds)
        portable = min(portable, s.seconds)
      }
    }
    guard digests.count == 1 else {
      FileHandle.standardError.write(
        Data(
          "FAIL: SHA-256 digests differ between SHA256() (\(SHA256.preferred)) and the portable compression: \(digests.sorted())\n"
            .utf8))
      exit(70)
    }
    return Result(
      bytes: data.count, hardware: SHA256.preferred == .hardware, preferredSeconds: preferred,
      portableSeconds: portable)
  }

  /// The child's RESULT line.
  static func resultLine(mebibytes: Int, repeats: Int) -> String {
    let r = run(mebibytes: mebibytes, repeats: repeats)
    return
      "RESULT bytes=\(r.bytes) hardware=\(r.hardware ? 1 : 0) preferred=\(r.preferredSeconds) portable=\(r.portableSeconds) same=1 peak=\(Clock.peakMemoryMiB())"
  }

  /// The section's lines, from the child's RESULT.
  static func report(_ r: [String: Double], mebibytes: Int, repeats: Int) {
    precondition(r["same"] == 1, "SHA-256: the two compressions gave different digests")
    let bytes = r["bytes"]!
    let hardware = r["hardware"] == 1
    print(
      "SHA-256: \(mebibytes) MiB of seeded random bytes, CPU seconds of one thread, best of \(repeats); both digests equal"
    )
    let rows: [(String, Double)] = [
      (
        "SHA256() (" + (hardware ? "the SHA extensions" : "portable: no SHA extensions here")
          + ")", r["preferred"]!
      ),
      ("SHA256(implementation: .portable)", r["portable"]!),
    ]
    for (name, seconds) in rows {
      print(
        "  " + name.padding(toLength: 40, withPad: " ", startingAt: 0)
          + fmt(seconds, 3).leftPad(7) + " s" + fmt(bytes / 1_000_000 / seconds, 0).leftPad(7)
          + " MB/s")
    }
    print(
      "  SHA256() / portable: x\(fmt(r["portable"]! / r["preferred"]!, 2)) faster   peak \(fmt(r["peak"]!, 0)) MiB"
    )
  }
}
