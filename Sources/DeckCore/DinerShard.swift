/// One shard of the diners, for splitting a day's decks across machines: shard `index` (1-based)
/// of `count`.
///
/// A diner's shard is a stable function of the bytes of its id, the same on every machine, in
/// every process and in every language: the first 8 bytes of the SHA-256 of the id's UTF-8
/// bytes, read as a big-endian unsigned integer, modulo `count`, plus 1. In Python:
/// `int.from_bytes(hashlib.sha256(id.encode()).digest()[:8], "big") % count + 1`. (Never Swift's
/// `Hasher`, which is seeded per process.)
public struct DinerShard: Sendable, Equatable, CustomStringConvertible {
  /// The most shards a run may be split into.
  public static let maxCount = 1_000_000

  /// 1-based: `1...count`.
  public let index: Int
  public let count: Int

  /// Shard `index` of `count`; nil unless `1 <= index <= count <= maxCount`.
  public init?(index: Int, count: Int) {
    guard count >= 1, count <= Self.maxCount, index >= 1, index <= count else { return nil }
    self.index = index
    self.count = count
  }

  /// Reads `K/N` (e.g. `3/8`); nil for anything else or numbers out of range.
  public init?(_ text: String) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2,
      parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 48 && $0 <= 57 } }),
      parts.allSatisfy({ $0.utf8.count <= 7 }), let k = Int(parts[0]), let n = Int(parts[1])
    else { return nil }
    self.init(index: k, count: n)
  }

  public var description: String { "\(index)/\(count)" }

  /// The 1-based shard of `diner` among `count` shards.
  public static func shard(of diner: String, count: Int) -> Int {
    precondition(count >= 1, "a run has at least one shard")
    let digest = SHA256.hash(Array(diner.utf8))
    var key: UInt64 = 0
    for k in 0..<8 { key = key << 8 | UInt64(digest[k]) }
    return Int(key % UInt64(count)) + 1
  }

  /// Whether `diner` is in this shard.
  public func contains(_ diner: String) -> Bool {
    Self.shard(of: diner, count: count) == index
  }
}
