extension FileSystem {
  /// `path` made absolute against `directory` ("-", standard input or output, and absolute
  /// paths are kept): the one rule of the command line's streams and of a job's.
  package static func resolve(_ path: String, in directory: String) -> String {
    if path == "-" || path.hasPrefix("/") { return path }
    if directory.hasSuffix("/") { return directory + path }
    return directory + "/" + path
  }
}
