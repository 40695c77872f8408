import DeckBase
import DeckIO
import Foundation

/// An output of a run, named by its key rather than by how a command line spells it. `name` is
/// what messages call it (the option's spelling, "--out"); the command line declares each key
/// once, beside its option (`MenuDeckCLI/OutputRequests.swift`).
package struct OutputKey: Hashable, Sendable {
  package let name: String

  package init(_ name: String) { self.name = name }
}

/// An output a request names: the key the command line declared for it (beside its option)
/// and its path as written ("-" is standard output; nil when it was not given).
package struct RequestedOutput: Sendable, Equatable {
  package var key: OutputKey
  package var path: String?

  package init(_ key: OutputKey, _ path: String?) {
    self.key = key
    self.path = path
  }
}

/// The files one run writes, as a command declares them: each output option with its path as
/// the user wrote it ("-" is standard output), checked against the run's inputs and against each
/// other, locked for the whole run, written to temporaries and replaced together by `commit()`.
///
/// A command reads: parse -> `RunOutputs(...)` (before it reads any input the outputs depend
/// on) -> load inputs -> run, writing to `output(_:)` -> `commit()`. A thrown error, a signal or
/// a kill before `commit()` leaves every target as it was.
package final class RunOutputs {
  /// An output or input of the run: the option that names it and its path as written.
  package struct File: Equatable {
    package var option: String
    package var path: String

    package init(_ option: String, _ path: String) {
      self.option = option
      self.path = path
    }
  }

  private let io: JobIO
  /// The locked pending files; nil in a dry run, which locks and writes nothing.
  private let set: OutputSet?
  /// `--dry-run`: every check is made, the bytes are counted, nothing is written or locked.
  package let dryRun: Bool
  /// The option of standard output when it was not given (`standardOutput`), which the
  /// dry run's note does not name.
  private var implicitOutput: OutputKey?
  /// Where each declared output goes.
  private enum Destination {
    case standardOutput
    case standardError
    /// A file replaced at commit (its write target: links followed).
    case file(String)
    /// A FIFO, a device or an open descriptor (`/dev/fd/N`), written as a stream.
    case stream(path: String, descriptor: Int32?)
  }
  /// The declared outputs: key, path as written, destination.
  private var declared: [(key: OutputKey, path: String, to: Destination)] = []
  private var outputs: [Int: any ByteOutput] = [:]

  /// Declares `outputs` (entries whose path is nil are not written), refuses any that is one of
  /// `inputs` or another output, and locks them, waiting up to `wait` seconds for a run that
  /// holds a lock. Notes on stderr which temporaries of killed runs it removed.
  ///
  /// `standardOutput` names the output that writes to standard output when it is not given (the
  /// command's main result, `--out`). The missing directories of the outputs of the options in
  /// `createDirectories` are created once every check has passed (for outputs that are whole
  /// directories, `--trec DIR`, `import --out DIR`); any other output whose directory is missing
  /// is refused, so that a mistyped path fails instead of creating directories.
  ///
  /// With `dryRun` the same checks are made, but nothing is locked, created or written: every
  /// output (standard output too) counts the bytes it is given, and `commit` says on stderr
  /// what would have been written where. A check that fails says that the real run would fail.
  ///
  /// `origins` says, by output, where an output's path came from when the command line did not
  /// give it (the config's snapshot that `ingest` adds to): messages about the path name it.
  package init(
    _ outputs: [(key: OutputKey, path: String?)], inputs: [File],
    origins: [OutputKey: String] = [:], wait: Double, standardOutput: OutputKey? = nil,
    createDirectories: Set<OutputKey> = [], dryRun: Bool = false, io: JobIO
  ) throws {
    self.io = io
    self.dryRun = dryRun
    let given = try Self.given(outputs, standardOutput: standardOutput)
    if let main = standardOutput, !outputs.contains(where: { $0.key == main && $0.path != nil }) {
      implicitOutput = main
    }
    var plan = Plan(
      io: io, inputs: Self.identities(of: inputs, io), createDirectories: createDirectories,
      origins: origins)
    do {
      for (key, file) in given { try plan.add(file, key) }
    } catch var failure as JobError where dryRun {
      // The same exit status as the real run's, which this one stands for.
      failure.message = "the real run would fail: " + failure.message
      throw failure
    }
    if dryRun {
      set = nil
      declared = plan.declared
      return
    }
    for dir in plan.directoriesToMake {
      do {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
      } catch {
        throw JobError(
          .ioError, "\(dir): cannot create the directory; check the path and permissions")
      }
    }
    let set = try Self.lock(plan.files, wait: wait, io: io)
    self.set = set
    declared = plan.declared
    for path in set.removedStale {
      io.diagnostics.note(
        "removed '\(path)', a temporary file of a run that was killed", code: "stale_temporary",
        location: nil)
    }
  }

  /// The descriptor paths of standard output are standard output.
  private static func isStandardOutput(_ path: String) -> Bool {
    path == "-" || FileSystem.descriptorPath(path) == 1
  }

  /// The outputs given a path, with `standardOutput` ("-") first when it was not given; at most
  /// one of them writes to standard output.
  private static func given(
    _ outputs: [(key: OutputKey, path: String?)], standardOutput: OutputKey?
  ) throws -> [(key: OutputKey, file: File)] {
    var given: [(key: OutputKey, file: File)] = outputs.compactMap { o in
      o.path.map { (o.key, File(o.key.name, $0)) }
    }
    if let key = standardOutput, !given.contains(where: { $0.key == key }) {
      let main = key.name
      if let other = given.first(where: { isStandardOutput($0.file.path) })?.file {
        throw JobError(
          .usage,
          "'\(other.option) \(other.path)' writes to standard output, where \(main) goes when it "
            + "is not given; give \(main) a file")
      }
      given.insert((key, File(main, "-")), at: 0)
    }
    // Standard output takes one of them at most.
    let toStdout = given.map(\.file).filter { isStandardOutput($0.path) }
    if toStdout.count > 1 {
      let named = toStdout.map { "'\($0.option) \($0.path)'" }
      throw JobError(
        .usage,
        toStdout.count == 2
          ? "\(named[0]) and \(named[1]) both write to standard output; give one of them a file"
          : named.dropLast().joined(separator: ", ") + " and \(named.last!) all write to "
            + "standard output; give all but one of them a file")
    }
    return given
  }

  /// What the inputs are: their files, and standard input's when one of them is "-".
  fileprivate static func identities(of inputs: [File], _ io: JobIO)
    -> [(file: File, identity: FileIdentity)]
  {
    var identities: [(file: File, identity: FileIdentity)] = []
    for input in inputs {
      if input.path == "-" {
        if let descriptor = io.standardInput.fileDescriptor,
          let identity = FileIdentity(fileDescriptor: descriptor)
        {
          identities.append((input, identity))
        }
      } else if let identity = FileIdentity(path: Paths.open(input.path, io)) {
        identities.append((input, identity))
      }
    }
    return identities
  }

  /// The lock of every file output, waiting up to `wait` seconds for a run that holds one.
  private static func lock(
    _ files: [(file: File, target: String, key: Key)], wait: Double, io: JobIO
  ) throws -> OutputSet {
    do {
      return try OutputSet(
        targets: files.map(\.target), wait: wait,
        holder: FileLock.holderLine(arguments: io.arguments))
    } catch {
      switch error {
      case .busy(let target, _, let holder, let waited):
        let written = files.first { $0.target == target }?.file
        throw LockBusy(
          path: written?.path ?? target, option: written?.option, holder: holder, waited: waited)
      case .system(let e):
        let written = files.first { $0.target == e.path }?.file.path ?? e.path
        throw JobError(.ioError, "\(written): \(e.message)")
      }
    }
  }

  /// The outputs checked one by one and sorted by where they go, before anything is locked.
  private struct Plan {
    let io: JobIO
    let inputs: [(file: File, identity: FileIdentity)]
    let createDirectories: Set<OutputKey>
    /// Where the paths of some outputs came from (see `RunOutputs.init`).
    let origins: [OutputKey: String]
    var declared: [(key: OutputKey, path: String, to: Destination)] = []
    var files: [(file: File, target: String, key: Key)] = []
    var directoriesToMake: [String] = []

    init(
      io: JobIO, inputs: [(file: File, identity: FileIdentity)],
      createDirectories: Set<OutputKey>, origins: [OutputKey: String] = [:]
    ) {
      self.io = io
      self.inputs = inputs
      self.createDirectories = createDirectories
      self.origins = origins
    }

    func refuseInput(_ file: File, _ identity: FileIdentity?, what: String = "") throws {
      try RunOutputs.refuse(file, identity, inputs: inputs, what: what)
    }

    /// Standard output or error, a stream, or a file replaced at commit.
    mutating func add(_ file: File, _ key: OutputKey) throws {
      if RunOutputs.isStandardOutput(file.path) {
        declared.append((key, file.path, .standardOutput))
        return
      }
      if let fd = FileSystem.descriptorPath(file.path) {
        if fd == 2 {
          declared.append((key, file.path, .standardError))
        } else {
          try refuseInput(file, FileIdentity(fileDescriptor: fd))
          declared.append((key, file.path, .stream(path: file.path, descriptor: fd)))
        }
        return
      }
      let opened = Paths.open(file.path, io)
      if let kind = FileSystem.kind(of: opened), kind != .regular, kind != .directory {
        // A FIFO or a device (/dev/null, a terminal) is written as a stream, like standard
        // output: a temporary renamed over it would destroy it.
        try refuseInput(file, FileIdentity(path: opened))
        declared.append((key, file.path, .stream(path: opened, descriptor: nil)))
        return
      }
      try addFile(file, key, opened: opened)
    }

    /// A file output: its write target (links followed) checked, and checked against the other
    /// outputs, their lock files and the inputs.
    mutating func addFile(_ file: File, _ output: OutputKey, opened: String) throws {
      let target: String
      do {
        target = try FileSystem.writeTarget(of: opened)
      } catch {
        throw JobError(.ioError, "\(file.path): \(error.message); check \(file.option)")
      }
      // Checked as written, or, through a link, as the file the link names.
      let checked = target == opened ? file.path : target
      var shown = target == opened ? file.path : "\(file.path) (a link to \(target))"
      if let origin = origins[output] { shown += " (\(origin))" }
      let dir = FileSystem.split(target).directory
      if createDirectories.contains(output) && FileSystem.kind(of: dir) == nil {
        if !directoriesToMake.contains(dir) { directoriesToMake.append(dir) }
      } else {
        try Paths.checkOutput(checked, io, option: file.option, shown: shown)
      }
      if FileSystem.isMountPoint(target) {
        throw JobError(
          .ioError,
          "\(shown): is a mount point (a file mounted into a container?), which cannot be "
            + "replaced atomically; write to a file beside it and move it, or choose another "
            + file.option)
      }
      let key = Key(target: target)
      if let other = files.first(where: { $0.key.matches(key) }) {
        throw JobError(
          .usage,
          "'\(file.option) \(file.path)' and '\(other.file.option) \(other.file.path)' name the "
            + "same file; give each output its own file")
      }
      try refuseInput(file, key.identity)
      // No output may be the lock file of another (it would be written as a lock, then removed).
      for other in files
      where Key(target: FileLock.lockPath(for: other.target)).matches(key)
        || Key(target: FileLock.lockPath(for: target)).matches(other.key)
      {
        throw JobError(
          .usage,
          "'\(file.option) \(file.path)' and '\(other.file.option) \(other.file.path)': one is "
            + "the lock file of the other; give each output its own file")
      }
      // Its lock file is written: it must not be an input either.
      try refuseInput(
        file, FileIdentity(path: FileLock.lockPath(for: target)),
        what: " has a lock file '\(FileLock.lockPath(for: target))' that")
      files.append((file, target, key))
      declared.append((output, file.path, .file(target)))
    }
  }

  /// Whether `key` was given a path (a file or "-").
  package func isGiven(_ key: OutputKey) -> Bool { declared.contains { $0.key == key } }

  /// The path of `key` as the user wrote it.
  package func path(_ key: OutputKey) -> String? { declared.first { $0.key == key }?.path }

  /// Where the bytes of `key` (of its file `path`, for an output with several) go: its pending
  /// file, or standard output for "-" and for an output that was not given.
  package func output(_ key: OutputKey, path: String? = nil) throws -> any ByteOutput {
    guard
      let index = declared.firstIndex(where: {
        $0.key == key && (path == nil || $0.path == path)
      })
    else {
      precondition(path == nil, "'\(key.name) \(path ?? "")' is not an output of this run")
      return StandardOutput(io.standardOutput)
    }
    if let o = outputs[index] { return o }
    let d = declared[index]
    let output: any ByteOutput
    guard let set else {
      output = CountingOutput()
      outputs[index] = output
      return output
    }
    switch d.to {
    case .standardOutput: output = StandardOutput(io.standardOutput)
    case .standardError: output = StandardOutput(io.standardError)
    case .stream(let path, let descriptor):
      output = try StreamOutput(path: path, descriptor: descriptor, name: d.path)
    case .file(let target):
      do {
        output = PendingFileOutput(try set.file(target), name: d.path)
      } catch {
        throw JobError(.ioError, "\(d.path): \(error.message)")
      }
    }
    outputs[index] = output
    return output
  }

  /// Writes `bytes` as the whole of `key`'s output (of its file `path`).
  package func write(_ bytes: [UInt8], to key: OutputKey, path: String? = nil) throws {
    try output(key, path: path).write(bytes)
  }

  /// Replaces every written target together. `verify` runs after everything is on disk and just
  /// before the renames (for checks that must be as late as possible).
  ///
  /// Standard output is flushed first: a run whose standard output failed (a full disk, a
  /// reader that went away) replaces none of its files.
  package func commit(verify: () throws -> Void = {}) throws {
    guard let set else { return reportDryRun() }
    do {
      try io.standardOutput.flush()
      if io.standardOutput.isBrokenPipe {
        throw JobError(.ioError, "cannot write to standard output: broken pipe")
      }
      try set.prepare()
      try verify()
      try set.commit()
    } catch let error as SystemError {
      set.abort()
      throw JobError(.ioError, "\(shown(error.path)): \(error.message)")
    } catch {
      set.abort()
      throw error
    }
    for failure in set.unsyncedDirectories {
      io.diagnostics.warning(
        "\(failure.description); the outputs are in place, but a power cut could lose the rename",
        code: "sync_failed", location: nil)
    }
  }

  /// A target as the user wrote it.
  private func shown(_ target: String) -> String {
    for d in declared {
      if case .file(let t) = d.to, t == target { return d.path }
    }
    return target
  }

  /// Leaves every target as it was.
  package func abort() { set?.abort() }

  /// What a dry run would have written: a note per declared output, with its byte count, or,
  /// for a file the run would not have touched (an ingest with nothing new), that it stays.
  private func reportDryRun() {
    for (index, d) in declared.enumerated() {
      if outputs[index] == nil, case .file(let target) = d.to {
        let fate =
          FileSystem.kind(of: target) == nil ? "would not be created" : "would stay as it is"
        io.diagnostics.note(
          "dry run: \(d.path) \(fate); nothing was written", code: "dry_run", location: nil)
        continue
      }
      let bytes = (outputs[index] as? CountingOutput)?.count ?? 0
      let shown: String
      switch d.to {
      case .standardOutput: shown = "standard output"
      case .standardError: shown = "standard error"
      case .file, .stream: shown = d.path
      }
      // An output that was not given is not named: its bytes go to standard output.
      let option = d.key == implicitOutput && shown == "standard output" ? "" : d.key.name + " "
      io.diagnostics.note(
        "dry run: \(option)would write \(TextLayout.plural(bytes, "byte")) to \(shown); "
          + "nothing was written", code: "dry_run", location: nil)
    }
  }

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

/// An output that is a FIFO, a device or an open descriptor (`/dev/fd/3`), written as it is
/// produced (not atomic, like standard output). A descriptor is duplicated, so that a file the
/// shell opened for appending is appended to; a path is opened (a FIFO's open waits for its
/// reader).
package final class StreamOutput: ByteOutput {
  private let fd: Int32
  private let name: String

  init(path: String, descriptor: Int32?, name: String) throws {
    self.name = name
    fd = descriptor.map { fcntl($0, F_DUPFD_CLOEXEC, 3) } ?? open(path, O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw JobError(
        .ioError, "\(name): cannot open for writing: \(errnoText()); check the path")
    }
  }

  deinit { close(fd) }

  package func write(_ bytes: [UInt8]) throws(DeckIOError) {
    if let code = bytes.withUnsafeBytes({ writeAll(fd, $0) }) {
      let hint = code == EPIPE ? "its reader went away" : "check the device or the pipe"
      throw .io(path: name, message: "cannot write: \(errnoText(code)); \(hint)")
    }
  }
}

/// Another run holds the lock of an output (exit 75, mapped in `MenuDeckCLI/MenuDeck.swift`).
package struct LockBusy: Error, Equatable, Sendable, CustomStringConvertible {
  package var path: String
  package var option: String?
  package var holder: String?
  package var waited: Double

  package var description: String {
    let who = holder.map { " (\($0))" } ?? ""
    let after = waited > 0 ? " after waiting \(formatSeconds(waited))" : ""
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

  package func write(_ bytes: [UInt8]) throws(DeckIOError) {
    do {
      try file.write(bytes)
    } catch {
      throw .io(path: name, message: "\(error.message); check the disk")
    }
  }
}

extension RunOutputs {
  /// Refuses `file`, an output, when it is one of `inputs` (the check every output passes), for
  /// a file a run appends to instead of replacing (`play --log`).
  package static func refuseInput(_ file: File, inputs: [File], io: JobIO) throws {
    let identity = FileIdentity(path: Paths.open(file.path, io))
    guard let identity,
      let input = identities(of: inputs, io).first(where: { $0.identity == identity })
    else { return }
    throw JobError(
      .usage,
      "'\(file.option) \(file.path)' would append to an input of this run "
        + "(\(input.file.option) '\(input.file.path)'); choose another \(file.option)")
  }

  fileprivate static func refuse(
    _ file: File, _ identity: FileIdentity?, inputs: [(file: File, identity: FileIdentity)],
    what: String
  ) throws {
    guard let identity, let input = inputs.first(where: { $0.identity == identity }) else {
      return
    }
    throw JobError(
      .usage,
      "'\(file.option) \(file.path)'\(what) is an input of this run (\(input.file.option) "
        + "'\(input.file.path)'); an output never replaces an input: choose another "
        + file.option)
  }
}

/// Bytes to the run's standard output (or error), stopping at once when the reader has gone
/// (`menudeck deck | head`), not after the last deck.
final class StandardOutput: ByteOutput {
  let stream: any JobOutput
  init(_ stream: any JobOutput) { self.stream = stream }
  package func write(_ bytes: [UInt8]) throws(DeckIOError) {
    stream.write(bytes: bytes)
    if stream.isBrokenPipe {
      throw .io(path: "standard output", message: "the reader closed the pipe")
    }
  }
}

/// Counts the bytes of a dry run's output and drops them.
final class CountingOutput: ByteOutput {
  private(set) var count = 0
  package func write(_ bytes: [UInt8]) throws(DeckIOError) { count += bytes.count }
}
