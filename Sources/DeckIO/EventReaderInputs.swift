import DeckBase
import DeckCore
import Foundation

// What the event reader reads from: a file descriptor, standard input read ahead for its
// format, an input hashed as it is read, bytes in memory.

protocol ByteInput {
  /// Reads up to `count` bytes; 0 at the end.
  mutating func read(into: UnsafeMutablePointer<UInt8>, count: Int, name: String)
    throws(DeckIOError) -> Int
}

struct FileInput: ByteInput {
  let fd: Int32

  func read(into p: UnsafeMutablePointer<UInt8>, count: Int, name: String) throws(DeckIOError)
    -> Int
  {
    while true {
      let n = systemRead(fd, p, count)
      if n >= 0 { return n }
      let code = errno
      if code == EINTR { continue }
      throw .io(path: name, message: "cannot read: \(errnoText(code, lowercased: false))")
    }
  }
}

/// Standard input whose format is told from its first bytes: they are read ahead (up to the
/// first character that is not white space, or 4 KiB) and handed out again before the rest.
struct SniffedInput<Base: ByteInput>: ByteInput {
  private(set) var base: Base
  private var head: [UInt8] = []
  private var served = 0
  private var ended = false

  init(_ base: Base) { self.base = base }

  /// Reads ahead and tells the format (`EventFormat.sniff`).
  mutating func sniff(name: String, blank: EventFormat) throws(DeckIOError) -> EventFormat {
    var chunk = [UInt8](repeating: 0, count: 4096)
    while head.count < 4096 {
      let n = try chunk.withUnsafeMutableBufferPointer { b throws(DeckIOError) in
        try base.read(into: b.baseAddress!, count: 4096 - head.count, name: name)
      }
      if n == 0 {
        ended = true
        break
      }
      head += chunk[0..<n]
      // Enough once a byte other than white space (or a byte order mark) is in.
      if head.contains(where: { ![0x20, 0x09, 0x0D, 0x0A, 0xEF, 0xBB, 0xBF].contains($0) }) {
        break
      }
    }
    return head.withUnsafeBufferPointer { EventFormat.sniff($0, blank: blank) }
  }

  mutating func read(into p: UnsafeMutablePointer<UInt8>, count: Int, name: String)
    throws(DeckIOError) -> Int
  {
    if let n = serve(head, &served, into: p, count: count) { return n }
    return ended ? 0 : try base.read(into: p, count: count, name: name)
  }
}

/// An input whose bytes are hashed as they are read (a log that can be read only once).
struct HashingInput<Base: ByteInput>: ByteInput {
  var base: Base
  var hash = SHA256()

  init(_ base: Base) { self.base = base }

  mutating func read(into p: UnsafeMutablePointer<UInt8>, count: Int, name: String)
    throws(DeckIOError) -> Int
  {
    let n = try base.read(into: p, count: count, name: name)
    hash.update(bytes: UnsafeRawBufferPointer(start: p, count: n))
    return n
  }
}

struct MemoryInput: ByteInput {
  let bytes: [UInt8]
  var offset = 0

  mutating func read(into p: UnsafeMutablePointer<UInt8>, count: Int, name: String)
    throws(DeckIOError) -> Int
  {
    let n = min(count, bytes.count - offset)
    bytes.withUnsafeBufferPointer { b in
      if n > 0 { p.update(from: b.baseAddress! + offset, count: n) }
    }
    offset += n
    return n
  }
}

/// A given CSV header record, then the bytes of `base` (`EventReaderOptions.csvHeader`).
struct HeaderedInput<Base: ByteInput>: ByteInput {
  let header: [UInt8]
  var base: Base
  private var served = 0

  init(header: [UInt8], base: Base) {
    self.header = header
    self.base = base
  }

  mutating func read(into p: UnsafeMutablePointer<UInt8>, count: Int, name: String)
    throws(DeckIOError) -> Int
  {
    if let n = serve(header, &served, into: p, count: count) { return n }
    return try base.read(into: p, count: count, name: name)
  }
}

/// Copies to `p` the next bytes of `prefix` (at most `count`) past the `served` ones, for an
/// input that hands out bytes it holds before those of its source: how many, or nil once all
/// of them are served.
@inline(__always)
func serve(
  _ prefix: [UInt8], _ served: inout Int, into p: UnsafeMutablePointer<UInt8>, count: Int
) -> Int? {
  guard served < prefix.count else { return nil }
  let n = min(count, prefix.count - served)
  prefix.withUnsafeBufferPointer { p.update(from: $0.baseAddress! + served, count: n) }
  served += n
  return n
}
