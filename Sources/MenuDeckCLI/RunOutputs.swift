import DeckBase
import DeckIO
import Foundation

/// The files one run writes, as a command declares them: each output option with its path as
/// the user wrote it ("-" is standard output), checked against the run's inputs and against each
/// other, locked for the whole run, written to temporaries and replaced together by `commit()`.
///
/// A command reads: parse -> `RunOutputs(...)` (before it reads any input the outputs depend
/// on) -> load inputs -> run, writing to `output(_:)` -> `commit()`. A thrown error, a signal or
/// a kill before `commit()` leaves every target as it was.
final class RunOutputs {
  /// An output or input of the run: the option that names it and its path as written.
  struct File: Equatable {
    var option: String
    var path: String

    init(_ option: String, _ path: String) {
      self.option = option
      self.path = path
    }
  }

  private let io: CLIStreams
  private let set: OutputSet
  /// The declared outputs: option, path as written, write target (nil: standard output).
  private var declared: [(option: String, path: String, target: String?)] = []
  private var outputs: [Int: any ByteOutput] = [:]
  /// Targets that are FIFOs or devices: written as streams, never replaced.
  private var streams: Set<String> = []

  /// Declares `outputs` (entries whose path is nil are not written), refuses any that is one of
  /// `inputs` or another output, and locks them, waiting up to `wait` seconds for a run that
  /// holds a lock. Notes on stderr which temporaries of killed runs it removed.
  ///
  /// `standardOutput` names the option that writes to standard output when it is not given (the
  /// command's main result, `--out`).
  init(
    _ outputs: [(option: String, path: String?)], inputs: [File], wait: Double,
    standardOutput: String? = nil, context: CommandContext
  ) throws {
    io = context.io
    var given = outputs.compactMap { o in o.path.map { File(o.option, $0) } }
    if let main = standardOutput, !given.contains(where: { $0.option == main }) {
      if let other = given.first(where: { $0.path == "-" }) {
        throw UsageError(
          "'\(other.option) -' writes to standard output, where \(main) goes when it is not "
            + "given; give \(main) a file")
      }
      given.insert(File(main, "-"), at: 0)
    }
    // Standard output takes one of them at most.
    let toStdout = given.filter { $0.path == "-" }
    if toStdout.count > 1 {
      throw UsageError(
        toStdout.map { "'\($0.option) -'" }.joined(separator: " and ")
          + " all write to standard output; give all but one of them a file")
    }
    var targets: [(file: File, target: String, key: RunOutputs.Key)] = []
    for file in given where file.path != "-" {
      try Paths.checkOutput(file.path, io, option: file.option)
      let opened = Paths.open(file.path, io)
      let target: String
      do {
        target = try FileSystem.writeTarget(of: opened)
      } catch {
        throw CommandFailure(.ioError, "\(file.path): \(error.message); check \(file.option)")
      }
      if target != opened {
        // A link's target must be writable too.
        try Paths.checkOutput(target, io, option: file.option)
      }
      let key = Key(target: target)
      if let other = targets.first(where: { $0.key.matches(key) }) {
        throw UsageError(
          "'\(file.option) \(file.path)' and '\(other.file.option) \(other.file.path)' name the "
            + "same file; give each output its own file")
      }
      for input in inputs where input.path != "-" {
        guard let identity = FileIdentity(path: Paths.open(input.path, io)),
          key.identity == identity
        else { continue }
        throw UsageError(
          "'\(file.option) \(file.path)' is an input of this run (\(input.option) "
            + "'\(input.path)'); an output never replaces an input: choose another \(file.option)")
      }
      if let kind = FileSystem.kind(of: target), kind != .regular {
        // A FIFO or a device (/dev/null, /dev/stdout, a terminal) is written as a stream, like
        // standard output: it cannot be replaced, and a temporary renamed over it would destroy
        // it.
        streams.insert(target)
      }
      targets.append((file, target, key))
    }
    for file in given {
      declared.append((file.option, file.path, targets.first { $0.file == file }?.target))
    }
    let replaced = targets.map(\.target).filter { [streams] in !streams.contains($0) }
    do {
      set = try OutputSet(
        targets: replaced, wait: wait,
        holder: FileLock.holderLine(arguments: context.arguments))
    } catch {
      switch error {
      case .busy(let target, _, let holder, let waited):
        let written = targets.first { $0.target == target }?.file
        throw LockBusy(
          path: written?.path ?? target, option: written?.option, holder: holder, waited: waited)
      case .system(let e):
        throw CommandFailure(.ioError, e.description)
      }
    }
    for path in set.removedStale {
      context.note("menudeck: removed '\(path)', a temporary file of a run that was killed")
    }
  }

  /// Whether `option` was given a path (a file or "-").
  func isGiven(_ option: String) -> Bool { declared.contains { $0.option == option } }

  /// The path of `option` as the user wrote it.
  func path(_ option: String) -> String? { declared.first { $0.option == option }?.path }

  /// Where the bytes of `option` (of its file `path`, for an option with several) go: its
  /// pending file, or standard output for "-" and for an option that was not given.
  func output(_ option: String, path: String? = nil) throws -> any ByteOutput {
    guard
      let index = declared.firstIndex(where: {
        $0.option == option && (path == nil || $0.path == path)
      })
    else {
      precondition(path == nil, "'\(option) \(path ?? "")' is not an output of this run")
      return StdoutOutput(io.stdout)
    }
    if let o = outputs[index] { return o }
    let d = declared[index]
    let output: any ByteOutput
    if let target = d.target, streams.contains(target) {
      output = try StreamOutput(path: target, name: d.path)
    } else if let target = d.target {
      do {
        output = PendingFileOutput(try set.file(target), name: d.path)
      } catch {
        throw CommandFailure(.ioError, "\(d.path): \(error.message)")
      }
    } else {
      output = StdoutOutput(io.stdout)
    }
    outputs[index] = output
    return output
  }

  /// Writes `bytes` as the whole of `option`'s output (of its file `path`).
  func write(_ bytes: [UInt8], to option: String, path: String? = nil) throws {
    try output(option, path: path).write(bytes)
  }

  /// Replaces every written target together. `verify` runs after everything is on disk and just
  /// before the renames (for checks that must be as late as possible).
  func commit(verify: () throws -> Void = {}) throws {
    do {
      try set.prepare()
      try verify()
      try set.commit()
    } catch let error as SystemError {
      set.abort()
      let name = declared.first { $0.target == error.path }?.path ?? error.path
      throw CommandFailure(.ioError, "\(name): \(error.message)")
    } catch {
      set.abort()
      throw error
    }
  }

  /// Leaves every target as it was.
  func abort() { set.abort() }

  /// Same file: the same inode when the target exists, else the same name in the same directory.
  struct Key {
    var identity: FileIdentity?
    var directory: FileIdentity?
    var name: String

    init(target: String) {
      identity = FileIdentity(path: target)
      let (dir, name) = FileSystem.split(target)
      directory = FileIdentity(path: dir)
      self.name = name
    }

    func matches(_ other: Key) -> Bool {
      if let a = identity, let b = other.identity { return a == b }
      return directory != nil && directory == other.directory && name == other.name
    }
  }
}

/// An output that is a FIFO or a device, written as it is produced (not atomic, like standard
/// output). Opened on first use: a FIFO's open waits for its reader.
final class StreamOutput: ByteOutput {
  private let fd: Int32
  private let name: String

  init(path: String, name: String) throws {
    self.name = name
    fd = open(path, O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw CommandFailure(.ioError, "\(name): cannot open for writing: \(errnoText())")
    }
  }

  deinit { close(fd) }

  func write(_ bytes: [UInt8]) throws(DeckIOError) {
    if let code = bytes.withUnsafeBytes({ writeAll(fd, $0) }) {
      throw .io(path: name, message: "cannot write: \(errnoText(code))")
    }
  }
}

/// Another run holds the lock of an output (exit 75).
struct LockBusy: ExitCodeProviding, Equatable, CustomStringConvertible {
  var path: String
  var option: String?
  var holder: String?
  var waited: Double

  var exitCode: ExitCode { .busy }

  var description: String {
    let who = holder.map { " (\($0))" } ?? ""
    let after = waited > 0 ? " after waiting \(Int(waited.rounded(.up))) s" : ""
    return "\(path): another menudeck run is writing it\(who)\(after); nothing was written. "
      + "Run again when it has finished, or give --wait SECONDS to wait for it"
  }
}

/// Bytes into a pending file of the run, errors named as the user wrote the path.
final class PendingFileOutput: ByteOutput {
  let file: PendingFile
  let name: String

  init(_ file: PendingFile, name: String) {
    self.file = file
    self.name = name
  }

  func write(_ bytes: [UInt8]) throws(DeckIOError) {
    do {
      try file.write(bytes)
    } catch {
      throw .io(path: name, message: "\(error.message); check the disk")
    }
  }
}

/// `--wait SECONDS`, for every command that writes files.
enum OutputOptions {
  static let wait = CommandOption.option(
    "wait", valueName: "seconds",
    help:
      "If another run is writing one of this run's output files, wait up to this long for it "
      + "(default 0: stop at once with exit 75).")

  /// The longest `--wait` (a week).
  static let maxWait = 7 * 86_400.0

  static func wait(_ args: ParsedArguments) throws -> Double {
    guard let seconds = try args.double("wait") else { return 0 }
    guard seconds >= 0, seconds <= maxWait else {
      throw UsageError(
        "'--wait' must be between 0 and \(Int(maxWait)) seconds (a week), got \(seconds)")
    }
    return seconds
  }
}
