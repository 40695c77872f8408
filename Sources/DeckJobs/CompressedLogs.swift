import DeckBase
import DeckIO

/// What to run instead of a command that was given a compressed swipe log (menudeck reads logs
/// uncompressed): the command as it was typed, with the log decompressed into it, so that the
/// run it tells is the run that was asked for (the same date, config and other logs).
///
/// - One compressed log, standard input free: `zcat a.jsonl.gz | <the command, with '-' for
///   the log>`, in any POSIX shell (cron's `/bin/sh` too).
/// - More than one, or standard input taken by a `-` log: each compressed log through process
///   substitution, `<(zcat a.jsonl.gz)` (bash, zsh, ksh), which the reader reads as a pipe.
///
/// Logs that the config names (none on the command line) are added to the command, after
/// `--history` for the commands that take it, so the command still reads all of them.
package enum CompressedLogs {
  /// One log of the run: as the user (or the config) wrote it, and as this process opens it.
  private struct Log: Sendable {
    var written: String
    var opened: String
  }

  /// The advice for a run of `command` that reads `logs` (as `RunSettings.historyPaths` holds
  /// them).
  package static func advice(_ command: LogCommandLine, logs: [String], _ io: JobIO)
    -> EventFormat.CompressedLogAdvice
  {
    let runLogs = logs.map { Log(written: $0, opened: Paths.open($0, io)) }
    return { name, compression in
      let tool = compression.decompress
      let failing =
        name == "<stdin>"
        ? "-" : runLogs.first { $0.opened == name || $0.written == name }?.written ?? name
      guard failing != "-" else {
        // Standard input is compressed: the same command, with the log decompressed into it.
        return "pipe it through \(tool) and give '-' for the log: \(tool) LOG | "
          + retyped(command, runLogs) { _ in nil }
      }
      var tools: [String: String] = [failing: tool]
      for log in runLogs where log.written != "-" && tools[log.written] == nil {
        if let other = EventFormat.compression(ofPath: log.written) ?? bytes(of: log.opened) {
          tools[log.written] = other.decompress
        }
      }
      let usesStandardInput = runLogs.contains { $0.written == "-" }
      if tools.count == 1 && !usesStandardInput {
        return "pipe it through \(tool) and give '-' for the log: "
          + "\(tool) \(TextLayout.shellWord(failing)) | "
          + retyped(command, runLogs) {
            $0 == failing ? "-" : nil
          }
      }
      let others = runLogs.map(\.written).filter { $0 != failing && tools[$0] != nil }
      let why: String
      if others.isEmpty {
        why = "standard input is taken by '-', so give it"
      } else {
        let names = others.reduce(into: [String]()) { names, log in
          if !names.contains(log) { names.append(log) }
        }
        let shown = names.map { TextLayout.shellWord($0) }
        why =
          "so \(names.count == 1 ? "is" : "are") "
          + (shown.count == 1
            ? shown[0] : shown.dropLast().joined(separator: ", ") + " and " + shown.last!)
          + ": give each"
      }
      return why + " through process substitution (bash, zsh, ksh): "
        + retyped(command, runLogs) { log in
          tools[log].map { "<(\($0) \(TextLayout.shellWord(log)))" }
        }
    }
  }

  /// The compression a regular file's first bytes tell, whatever its name.
  private static func bytes(of path: String) -> EventFormat.Compression? {
    guard FileSystem.kind(of: path) == .regular,
      let head = try? TextInput.readPrefix(path: path, count: EventFormat.magicLength)
    else { return nil }
    return head.withUnsafeBufferPointer { EventFormat.compression(ofBytes: $0) }
  }

  /// The command as typed with each log that `replace` maps replaced by that shell text; the
  /// config's logs added when the command line names none.
  private static func retyped(
    _ command: LogCommandLine, _ logs: [Log], _ replace: (String) -> String?
  ) -> String {
    if let name = command.namedBy { return command.retyped(name, replace, []) }
    var added: [String] = []
    for log in logs {
      if let option = command.option { added.append("--" + option) }
      added.append(replace(log.written) ?? TextLayout.shellWord(log.written))
    }
    return command.retyped(nil, { _ in nil }, added)
  }
}

/// The command line of a run that reads swipe logs, as the advice about a compressed log types
/// it again: where it names the logs, and the command as typed with some of them replaced.
package struct LogCommandLine: Sendable {
  /// The option that names logs (`history`) when the command takes one: the config's logs are
  /// added after it.
  package var option: String?
  /// The option or argument whose values are the logs, when the command line names them (nil:
  /// they are the config's).
  package var namedBy: String?
  /// The command as typed, with the values of the option or argument `name` that `replace` maps
  /// replaced (nil: none), and `appending` after it.
  package var retyped:
    @Sendable (_ name: String?, _ replace: (String) -> String?, _ appending: [String]) -> String

  package init(
    option: String?, namedBy: String?,
    retyped:
      @escaping @Sendable (
        _ name: String?, _ replace: (String) -> String?, _ appending: [String]
      ) -> String
  ) {
    self.option = option
    self.namedBy = namedBy
    self.retyped = retyped
  }
}
