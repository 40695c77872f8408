/// One diner's records, in item order: a read-only, zero-based collection over memory that all
/// the diners of one `History` share.
///
/// `HistoryBuilder.build()` and `HistorySnapshot.history(for:before:)` write every diner's
/// records into one block, which on Linux is mapped in huge pages once it takes at least one
/// (2 MiB): a history of a couple of million (diner, dish) pairs is tens of megabytes, and as
/// ten thousand separate arrays, each page of it cost a page fault of its own (the ingest
/// benchmark's build took 17 ns per event that way, 9 ns in one huge-page block). A diner's
/// records keep the whole block alive.
public struct UserItemRecords: RandomAccessCollection, Hashable, @unchecked Sendable,
  ExpressibleByArrayLiteral, CustomStringConvertible
{
  /// Owns the memory; never written after the records are filled in.
  @usableFromInline let storage: RecordStorage
  @usableFromInline let base: UnsafePointer<UserItemRecord>
  public let count: Int

  /// Records in their own storage (from the allocator).
  public init(_ records: [UserItemRecord]) {
    let storage = RecordStorage(allocating: records.count)
    records.withUnsafeBufferPointer {
      if let from = $0.baseAddress { storage.base.initialize(from: from, count: $0.count) }
    }
    self.init(storage: storage, offset: 0, count: records.count)
  }

  public init(arrayLiteral elements: UserItemRecord...) {
    self.init(elements)
  }

  /// `count` records of `storage` from `offset` on.
  init(storage: RecordStorage, offset: Int, count: Int) {
    precondition(offset >= 0 && count >= 0 && offset + count <= storage.capacity)
    self.storage = storage
    base = UnsafePointer(storage.base + offset)
    self.count = count
  }

  @inlinable public var startIndex: Int { 0 }
  @inlinable public var endIndex: Int { count }

  @inlinable
  public subscript(i: Int) -> UserItemRecord {
    precondition(UInt(bitPattern: i) < UInt(count), "record index out of range")
    return base[i]
  }

  @inlinable
  public func withContiguousStorageIfAvailable<R>(
    _ body: (UnsafeBufferPointer<UserItemRecord>) throws -> R
  ) rethrows -> R? {
    try body(UnsafeBufferPointer(start: base, count: count))
  }

  public static func == (a: UserItemRecords, b: UserItemRecords) -> Bool {
    (a.base == b.base && a.count == b.count) || a.elementsEqual(b)
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(count)
    for r in self { hasher.combine(r) }
  }

  public var description: String { Array(self).description }
}

/// The memory of `UserItemRecords`: huge-page mapped when it takes at least a huge page
/// (Linux), else from the allocator.
@usableFromInline
final class RecordStorage: @unchecked Sendable {
  @usableFromInline let base: UnsafeMutablePointer<UserItemRecord>
  let capacity: Int
  /// Bytes mapped by `HistoryState.allocateChunk`, or 0 when allocated.
  private let mappedBytes: Int

  /// Room for `capacity` records.
  ///
  /// - Throws: `MemoryRefused` when the system refuses the mapping (or the size overflows).
  init(capacity: Int, hugePages: Bool = true) throws(MemoryRefused) {
    let (bytes, overflow) = max(capacity, 1).multipliedReportingOverflow(
      by: MemoryLayout<UserItemRecord>.stride)
    guard capacity >= 0, !overflow else { throw MemoryRefused(bytes: Int.max) }
    self.capacity = capacity
    if bytes >= HistoryState.hugePage {
      guard let chunk = HistoryState.allocateChunk(bytes, hugePages: hugePages) else {
        throw MemoryRefused(bytes: bytes)
      }
      base = chunk.bindMemory(to: UserItemRecord.self, capacity: capacity)
      mappedBytes = bytes
    } else {
      base = .allocate(capacity: max(capacity, 1))
      mappedBytes = 0
    }
  }

  /// Room for `capacity` records from the allocator (small lists).
  init(allocating capacity: Int) {
    self.capacity = capacity
    base = .allocate(capacity: max(capacity, 1))
    mappedBytes = 0
  }

  deinit {
    if mappedBytes > 0 {
      HistoryState.freeChunk(UnsafeMutableRawPointer(base), bytes: mappedBytes)
    } else {
      base.deallocate()
    }
  }
}

/// The system refused `bytes` of memory.
struct MemoryRefused: Error {
  var bytes: Int
}
