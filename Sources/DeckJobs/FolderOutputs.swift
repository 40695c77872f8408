extension RunOutputs {
  /// Writes the text files of a folder (`sample --out`, `reference --out`): every path is an
  /// output under `key`, its directory created when missing, and all are replaced together
  /// under their locks (none when one fails).
  package static func writeFolder(
    _ files: [(path: String, text: String)], key: OutputKey, wait: Double, io: JobIO
  ) throws {
    let outputs = try RunOutputs(
      files.map { (key, $0.path) }, inputs: [], wait: wait, createDirectories: [key], io: io)
    defer { outputs.abort() }
    for file in files {
      try outputs.write(Array(file.text.utf8), to: key, path: file.path)
    }
    try outputs.commit()
  }
}
