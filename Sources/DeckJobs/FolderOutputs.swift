extension RunOutputs {
  /// Writes the text files of a folder (`sample --out`, `reference --out`): every path is an
  /// output under `key`, its directory created when missing, and all are replaced together
  /// under their locks (none when one fails); `plan` says how long to wait for a lock.
  package static func writeFolder(
    _ files: [(path: String, text: String)], key: OutputKey, plan: OutputPlan, io: JobIO
  ) throws {
    var plan = plan.writing(files.map { RequestedOutput(key, $0.path) })
    plan.createDirectories = [key]
    let outputs = try RunOutputs(plan, io: io)
    defer { outputs.abort() }
    for file in files {
      try outputs.write(Array(file.text.utf8), to: key, path: file.path)
    }
    try outputs.commit()
  }
}
