#if canImport(Glibc)
  import Glibc
#endif

// The arena of a HistoryState: zero-filled chunks mapped from the kernel (huge pages on Linux),
// and the regions tables take from them.
extension HistoryState {
  /// Bytes per chunk of the arena, 4 MiB (a larger region gets a chunk of its own).
  static let chunkBytes = 4 << 20

  /// Bytes of a huge page (Linux, x86-64 and most arm64 kernels).
  static let hugePage = 2 << 20

  /// `bytes` of zero-filled memory (any number; the arena asks for whole units), freed with
  /// `freeChunk`. Mapped
  /// straight from the kernel: its pages are zero without a pass of ours. On Linux, aligned to
  /// huge pages and advised as such (`hugePages`): pair lookups land anywhere in tens of
  /// megabytes, and with 4 KiB pages nearly every one would also miss the TLB. Unadvised, the
  /// kernel still gives huge pages where its settings say to and it has them free.
  /// nil when the system refuses the memory (or `bytes` is beyond any address space).
  static func allocateChunk(_ bytes: Int, hugePages: Bool = true) -> UnsafeMutableRawPointer? {
    guard bytes >= 0, bytes <= Int.max / 4 else { return nil }
    #if canImport(Glibc)
      let bytes = mappedBytes(bytes)
      let length = bytes + hugePage
      guard
        let raw = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
        raw != MAP_FAILED
      else { return nil }
      // Keep the aligned part only.
      let start = (Int(bitPattern: raw) + hugePage - 1) & ~(hugePage - 1)
      let head = start - Int(bitPattern: raw)
      if head > 0 { munmap(raw, head) }
      let tail = length - head - bytes
      if tail > 0 { munmap(raw + head + bytes, tail) }
      let chunk = raw + head
      if hugePages && bytes >= hugePage {
        _ = madvise(chunk, bytes & ~(hugePage - 1), Int32(MADV_HUGEPAGE))
      }
      return chunk
    #else
      let chunk = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
      chunk.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
      return chunk
    #endif
  }

  #if canImport(Glibc)
    static let pageSize = max(Int(sysconf(Int32(_SC_PAGESIZE))), 1)

    /// A chunk's bytes as mapped: whole pages.
    static func mappedBytes(_ bytes: Int) -> Int { (bytes + pageSize - 1) / pageSize * pageSize }
  #endif

  static func freeChunk(_ chunk: UnsafeMutableRawPointer, bytes: Int) {
    #if canImport(Glibc)
      munmap(chunk, mappedBytes(bytes))
    #else
      chunk.deallocate()
    #endif
  }

  /// Hands out `n` units of zero memory (`n` a multiple of 4): a region some table left behind
  /// (for a power of two), or fresh units from the current chunk, or from a new one. Chunks never
  /// move, so tables keep their addresses. nil, with `refusedBytes` set, when the system refuses
  /// a new chunk (or `byteLimit` would be passed).
  mutating func reserve(_ n: Int) -> UnsafeMutableRawPointer? {
    if n.nonzeroBitCount == 1, let reused = freeRegions[n.trailingZeroBitCount].popLast() {
      reused.initializeMemory(as: UInt8.self, repeating: 0, count: n * HistoryState.unit)
      return reused
    }
    if n > cursorLeft {
      let bytes = max(n * HistoryState.unit, HistoryState.chunkBytes)
      guard mappedTotal <= byteLimit - bytes,
        let chunk = HistoryState.allocateChunk(bytes, hugePages: hugePages)
      else {
        refusedBytes = bytes
        return nil
      }
      mappedTotal += bytes
      // The rest of the chunk, in power-of-two pieces (of 4 units and more), for later tables.
      if var rest = cursor {
        var left = cursorLeft
        while left > 0 {
          let piece = 1 << (Int.bitWidth - 1 - left.leadingZeroBitCount)
          freeRegions[piece.trailingZeroBitCount].append(rest)
          rest += piece * HistoryState.unit
          left -= piece
        }
      }
      chunks.append((chunk, bytes))
      cursor = chunk
      cursorLeft = bytes / HistoryState.unit
    }
    let region = cursor!
    cursor = region + n * HistoryState.unit
    cursorLeft -= n
    return region
  }
}
