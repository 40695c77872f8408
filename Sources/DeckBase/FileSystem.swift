#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which file a path names: device and inode, after following symbolic links. Two paths are the
/// same file exactly when their identities are equal, however they are spelled (`./a`, `a`,
/// `../dir/a`, a hard link, a symbolic link).
package struct FileIdentity: Hashable, Sendable {
  package var device: UInt64
  package var inode: UInt64

  /// The identity of the file at `path`, or nil when nothing is there (or it cannot be seen).
  package init?(path: String) {
    guard let info = statInfo(path: path) else { return nil }
    self.init(info)
  }

  /// The identity of an open file.
  package init?(fileDescriptor: Int32) {
    guard let info = statInfo(fileDescriptor: fileDescriptor) else { return nil }
    self.init(info)
  }

  init(_ info: stat) {
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
  }
}

/// What a file looked like when it was read: identity, size and change times. A file whose
/// state differs later was replaced or written in between.
package struct FileState: Hashable, Sendable {
  package var identity: FileIdentity
  package var size: Int64
  package var modified: Int64
  package var changed: Int64

  /// The state of the file at `path` (following symbolic links), or nil when nothing is there.
  package init?(path: String) {
    guard let info = statInfo(path: path) else { return nil }
    self.init(info)
  }

  init(_ info: stat) {
    identity = FileIdentity(info)
    size = Int64(info.st_size)
    #if canImport(Darwin)
      modified = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
      changed = Int64(info.st_ctimespec.tv_sec) * 1_000_000_000 + Int64(info.st_ctimespec.tv_nsec)
    #else
      modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
      changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    #endif
  }
}

private func statInfo(path: String) -> stat? {
  var info = stat()
  return stat(path, &info) == 0 ? info : nil
}

private func statInfo(fileDescriptor: Int32) -> stat? {
  var info = stat()
  return fstat(fileDescriptor, &info) == 0 ? info : nil
}

package enum FileSystem {
  /// The kind of file at `path` (following symbolic links), nil when nothing is there.
  package enum Kind: Sendable, Equatable {
    case regular, directory, fifo, other
  }

  package static func kind(of path: String) -> Kind? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    switch info.st_mode & S_IFMT {
    case S_IFREG: return .regular
    case S_IFDIR: return .directory
    case S_IFIFO: return .fifo
    default: return .other
    }
  }

  /// `path` split into its directory ("." when it has none) and its last component.
  package static func split(_ path: String) -> (directory: String, name: String) {
    if let slash = path.lastIndex(of: "/") {
      let dir = String(path[..<slash])
      return (dir.isEmpty ? "/" : dir, String(path[path.index(after: slash)...]))
    }
    return (".", path)
  }

  /// The name that a target's lock and temporary files are built from: the target's own name,
  /// or, when that is so long that `.NAME.menudeck-PID-RANDOM.tmp` would pass the 255 bytes a
  /// file name may have, its first 100 bytes, `~` and 16 hex digits of a hash of the whole.
  package static func sideName(of name: String) -> String {
    let bytes = Array(name.utf8)
    guard bytes.count > 200 else { return name }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes {
      hash ^= UInt64(b)
      hash &*= 0x100_0000_01b3
    }
    var cut = 100
    while cut > 0 && bytes[cut] & 0xC0 == 0x80 { cut -= 1 }  // not inside a UTF-8 sequence
    let hex = String(hash, radix: 16)
    return String(decoding: bytes[..<cut], as: UTF8.self) + "~"
      + String(repeating: "0", count: 16 - hex.count) + hex
  }

  /// The descriptor a path names when it is one of the kernel's descriptor paths
  /// (`/dev/stdin`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`,
  /// `/proc/PID/fd/N` of this process), or nil. Such a path is the descriptor itself: writing
  /// "through" it must use the descriptor (a pipe, a file opened for appending), never replace
  /// the file it happens to point at.
  package static func descriptorPath(_ path: String) -> Int32? {
    switch path {
    case "/dev/stdin": return 0
    case "/dev/stdout": return 1
    case "/dev/stderr": return 2
    default: break
    }
    let parts = path.split(separator: "/", omittingEmptySubsequences: true)
    if parts.count == 3, parts[0] == "dev", parts[1] == "fd", let n = Int32(parts[2]) { return n }
    if parts.count == 4, parts[0] == "proc", parts[2] == "fd", let n = Int32(parts[3]),
      parts[1] == "self" || parts[1] == "thread-self" || Int32(parts[1]) == getpid()
    {
      return n
    }
    return nil
  }

  /// Whether `path` is a mount point (a file or directory bind-mounted there, as containers do
  /// with single files): a rename over it fails with EBUSY, so it cannot be replaced atomically.
  package static func isMountPoint(_ path: String) -> Bool {
    guard let real = realpath(path, nil) else { return false }
    defer { free(real) }
    let target = String(cString: real)
    guard let text = try? readSmallFile("/proc/self/mountinfo", limit: 1 << 22) else {
      return false
    }
    for line in text.split(separator: "\n") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: false)
      guard fields.count > 4 else { continue }
      if unescapeMountPath(fields[4]) == target { return true }
    }
    return false
  }

  /// A mountinfo path with its octal escapes (`\040` for a space) decoded.
  static func unescapeMountPath(_ field: Substring) -> String {
    var bytes: [UInt8] = []
    let raw = Array(field.utf8)
    var i = 0
    while i < raw.count {
      if raw[i] == UInt8(ascii: "\\"), i + 3 < raw.count,
        let value = UInt8(String(decoding: raw[(i + 1)...(i + 3)], as: UTF8.self), radix: 8)
      {
        bytes.append(value)
        i += 4
      } else {
        bytes.append(raw[i])
        i += 1
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The file a write to `path` should replace: `path` itself, or, when `path` is a symbolic
  /// link (to a file that may not exist yet), the file the chain of links ends at, so that a
  /// write "through" the link replaces its target and keeps the link. Relative link texts are
  /// read against the link's own directory.
  package static func writeTarget(of path: String) throws(SystemError) -> String {
    var current = path
    for _ in 0..<40 {
      var info = stat()
      guard lstat(current, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return current }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let n = readlink(current, &buffer, buffer.count - 1)
      guard n > 0 else {
        throw SystemError(path: path, action: "cannot read the symbolic link", code: errno)
      }
      let text = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      if text.hasPrefix("/") {
        current = text
      } else {
        let (dir, _) = split(current)
        current = dir == "." ? text : dir + "/" + text
      }
    }
    throw SystemError(
      path: path, action: "cannot write through the symbolic link", code: ELOOP)
  }

  /// The process's file mode creation mask. Read from /proc on Linux (reading it with umask(2)
  /// sets it for a moment, which another thread creating a file could see).
  package static let creationMask: mode_t = {
    if let text = try? readSmallFile("/proc/self/status") {
      for line in text.split(separator: "\n") where line.hasPrefix("Umask:") {
        let digits = line.dropFirst(6).trimmingCharacters(in: " \t")
        if let value = mode_t(digits, radix: 8) { return value }
      }
    }
    let mask = umask(0o022)
    umask(mask)
    return mask
  }()

  /// The mode a new regular file gets: 0666 less the creation mask, as `open(2)` would give.
  package static var newFileMode: mode_t { 0o666 & ~creationMask }

  /// Flushes a directory's entries (after a rename into it) to disk. Errors are ignored where
  /// the file system cannot sync directories (EINVAL) and reported otherwise.
  package static func syncDirectory(_ path: String) throws(SystemError) {
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
    guard fd >= 0 else {
      throw SystemError(path: path, action: "cannot open the directory to sync it", code: errno)
    }
    defer { close(fd) }
    if fsync(fd) != 0 && errno != EINVAL && errno != EROFS {
      throw SystemError(path: path, action: "cannot sync the directory", code: errno)
    }
  }

  /// The names in directory `path` (without "." and ".."); empty when it cannot be listed.
  package static func names(in path: String) -> [String] {
    guard let dir = opendir(path) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// Whether a process with this pid exists (it may be another program's, after pid reuse).
  package static func processExists(_ pid: pid_t) -> Bool {
    kill(pid, 0) == 0 || errno == EPERM
  }

  static func readSmallFile(_ path: String, limit: Int = 1 << 16) throws(SystemError) -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw SystemError(path: path, action: "cannot open", code: errno) }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while bytes.count < limit {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
      bytes.append(contentsOf: chunk[..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

extension Substring {
  fileprivate func trimmingCharacters(in set: String) -> Substring {
    var s = self
    while let c = s.first, set.contains(c) { s = s.dropFirst() }
    while let c = s.last, set.contains(c) { s = s.dropLast() }
    return s
  }
}
