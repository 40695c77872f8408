extension FileSystem {
  /// `path` made absolute against `directory` ("-", standard input or output, and absolute
  /// paths are kept): the one rule of the command line's streams and of a job's.
  package static func resolve(_ path: String, in directory: String) -> String {
    if path == "-" || path.hasPrefix("/") { return path }
    if directory.hasSuffix("/") { return directory + path }
    return directory + "/" + path
  }

  /// The file `name` in `directory`: `name` alone in the working directory (`directory` empty
  /// or "."), else the two joined by one "/".
  package static func join(_ directory: String, _ name: String) -> String {
    if directory.isEmpty || directory == "." { return name }
    return directory.hasSuffix("/") ? directory + name : directory + "/" + name
  }
}
