import DeckBase
import DeckIO

/// The inputs of a run, by role, as the run header lists them.
package enum RunInputs {
  /// The config file, when one was read.
  package static func config(_ config: MenuDeckConfig) -> [RunInput] {
    config.bytes.isEmpty
      ? []
      : [RunInput(role: "config", path: config.path, sha256: ContentHash.sha256(config.bytes))]
        + config.included.map {
          RunInput(role: "include", path: $0.path, sha256: ContentHash.sha256($0.bytes))
        }
  }

  /// Each swipe log (`history`) and history snapshot (`snapshot`) read with hashing on, in the
  /// order read.
  package static func history(_ stats: EventReadStats) -> [RunInput] {
    stats.files.compactMap { file in
      file.sha256.map {
        RunInput(role: file.snapshot ? "snapshot" : "history", path: file.file, sha256: $0)
      }
    }
  }

  /// The executable of each plugin among `strategies`, hashed (role `plugin`): a deck made by a
  /// plugin depends on its code as on any input. A plugin that cannot be read is left out (it
  /// cannot run either, and starting it says why), and so is one over 256 MiB, which is not
  /// read whole into memory for its hash.
  package static func plugins(_ strategies: [NamedStrategy], _ io: JobIO) -> [RunInput] {
    var seen = Set<String>()
    return strategies.compactMap { named in
      guard let plugin = named.plugin, seen.insert(plugin).inserted else { return nil }
      let bytes = try? Paths.using(plugin, io) { opened throws(DeckIOError) in
        try TextInput.readBytes(path: opened, what: "plugin", maxBytes: 256 << 20)
      }
      return bytes.map { RunInput(role: "plugin", path: plugin, sha256: ContentHash.sha256($0)) }
    }
  }

  /// Under `--verbose`, one `info` line per input: its role, path, size and SHA-256.
  package static func tell(_ inputs: [RunInput], _ io: JobIO) {
    guard io.diagnostics.showsInfo else { return }
    for input in inputs {
      let size = Inputs.regularFileSize(input.path, io).map { TextLayout.plural($0, "byte") + ", " }
      io.diagnostics.info(
        "\(input.role) \(input.path): \(size ?? "")sha256 \(input.sha256)", code: "input",
        location: .wholeFile(input.path))
    }
  }
}
