// The C library (system calls, errno, math), imported here once for every module above
// DeckBase: a module that imports DeckBase sees Glibc, Musl or Darwin without a platform
// conditional of its own. DeckBase's own files import it themselves (an import is per file),
// and DeckCore, which links no DeckBase, has its one conditional in HistoryArena.swift.
#if canImport(Glibc)
  @_exported import Glibc
#elseif canImport(Musl)
  @_exported import Musl
#elseif canImport(Darwin)
  @_exported import Darwin
#endif
