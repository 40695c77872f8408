import DeckBase
import DeckCommandLine
import DeckCore
import DeckIO
import DeckJobs
import DeckPlay
import Foundation
import Testing

@testable import MenuDeckCLI

/// The real binary under a pseudo-terminal: keys sent to the master side, the screen read back
/// from it, standard error in a file. Synchronised on output only (wait for a given text, with a
/// generous timeout), never on sleeps.
final class PseudoTerminal {
  let master: Int32
  let slave: Int32
  private(set) var output: [UInt8] = []

  struct Unavailable: Error, CustomStringConvertible {
    var description: String
  }

  /// The C library's pseudo-terminal calls, which the Glibc module does not import.
  private typealias OpenPT = @convention(c) (Int32) -> Int32
  private typealias NamePT = @convention(c) (Int32, UnsafeMutablePointer<CChar>, Int) -> Int32

  private static func function<T>(_ name: String, as: T.Type) throws -> T {
    guard let symbol = dlsym(nil, name) else { throw Unavailable(description: "no \(name)") }
    return unsafeBitCast(symbol, to: T.self)
  }

  init(columns: UInt16 = 80, rows: UInt16 = 24) throws {
    let openpt = try Self.function("posix_openpt", as: OpenPT.self)
    let grantpt = try Self.function("grantpt", as: OpenPT.self)
    let unlockpt = try Self.function("unlockpt", as: OpenPT.self)
    let ptsname = try Self.function("ptsname_r", as: NamePT.self)
    master = openpt(O_RDWR | O_NOCTTY)
    var name = [CChar](repeating: 0, count: 128)
    guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0,
      ptsname(master, &name, name.count) == 0
    else { throw Unavailable(description: "no pseudo-terminal: \(errnoText())") }
    slave = open(String(cString: name), O_RDWR | O_NOCTTY)
    guard slave >= 0 else { throw Unavailable(description: "cannot open the pty's slave") }
    resize(columns: columns, rows: rows)
  }

  func resize(columns: UInt16, rows: UInt16) {
    var size = winsize(ws_row: rows, ws_col: columns, ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(master, UInt(TIOCSWINSZ), &size)
  }

  deinit {
    close(master)
    close(slave)
  }

  /// The slave's local flags (echo, canonical mode), to see that they were put back.
  var localFlags: tcflag_t {
    var settings = termios()
    tcgetattr(slave, &settings)
    return settings.c_lflag
  }

  func send(_ text: String) {
    _ = Array(text.utf8).withUnsafeBytes { writeAll(master, $0) }
  }

  /// Reads what arrives within `timeout` milliseconds; the number of bytes read (0 for none).
  @discardableResult
  func pump(timeout: Int32) -> Int {
    var fds = [pollfd(fd: master, events: Int16(POLLIN), revents: 0)]
    guard poll(&fds, 1, timeout) > 0 else { return 0 }
    var buffer = [UInt8](repeating: 0, count: 65536)
    let n = buffer.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
    guard n > 0 else { return 0 }
    output += buffer[0..<n]
    return n
  }

  var text: String { String(decoding: output, as: UTF8.self) }

  /// Reads until the output holds `needle` (counted from `after` bytes on).
  func wait(for needle: String, after: Int = 0, seconds: Double = 30) -> Bool {
    let deadline = monotonicSeconds() + seconds
    while monotonicSeconds() < deadline {
      let tail = String(decoding: output[min(after, output.count)...], as: UTF8.self)
      if tail.contains(needle) { return true }
      pump(timeout: 100)
    }
    return false
  }

  /// Reads until `process` ends.
  func drain(until process: Process, seconds: Double = 60) -> Bool {
    let deadline = monotonicSeconds() + seconds
    while monotonicSeconds() < deadline {
      pump(timeout: 50)
      if !process.isRunning {
        while pump(timeout: 50) > 0 {}
        return true
      }
    }
    return false
  }

  /// Starts the binary in `directory` (the repository root unless told) with the slave as
  /// standard input and output.
  func start(
    _ arguments: [String], stderr: URL, environment: [String: String] = [:],
    directory: String = CLITest.repoRoot
  ) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try #require(MenudeckBinary.path))
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    var env = ProcessInfo.processInfo.environment
    env["NO_COLOR"] = "1"
    for (k, v) in environment { env[k] = v }
    process.environment = env
    let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
    process.standardInput = handle
    process.standardOutput = handle
    _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
    process.standardError = try FileHandle(forWritingTo: stderr)
    try process.run()
    return process
  }
}

@Suite struct CLIPlayTests {
  let play = ["play", "--user", "u01", "--date", "2026-11-30"]

  /// Raw mode and the alternate screen on a pseudo-terminal, and both undone by `restore()`
  /// (once: a second call writes nothing), the cleanup registry emptied.
  @Test func rawScreenIsRestored() throws {
    let pty = try PseudoTerminal()
    let flags = pty.localFlags
    #expect(flags & tcflag_t(ICANON) != 0)
    #expect(Terminal.isTerminal(pty.slave))
    #expect(!Terminal.isTerminal(FileHandle.nullDevice.fileDescriptor))
    #expect(Terminal.size(pty.slave)! == (80, 24))
    let screen = try Terminal.RawScreen(input: pty.slave, output: pty.slave)
    #expect(pty.localFlags & tcflag_t(ICANON | ECHO | ISIG) == 0)
    #expect(pty.wait(for: "\u{1B}[?1049h\u{1B}[?25l"))
    screen.draw(Array("frame".utf8))
    #expect(pty.wait(for: "frame"))
    screen.restore()
    #expect(pty.localFlags == flags)
    #expect(!RunCleanup.shared.hasTerminals)
    #expect(pty.wait(for: "\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l"))
    let mark = pty.output.count
    screen.restore()
    screen.draw(Array("late".utf8))
    pty.pump(timeout: 50)
    #expect(pty.output.count == mark)
  }

  /// The card width of the relative rule is the config's simulation.card_width, whose default
  /// is the screen's own.
  @Test func cardWidthDefaultsAgree() {
    #expect(MenuDeckConfig().simulation.cardWidth == PlayOptions.defaultCardWidth)
  }

  /// Without a terminal, play says so before it reads anything (no stale-history warning, no
  /// missing file), with the pointer to its help as every usage error.
  @Test func notATerminalIsAUsageError() {
    for args in [
      play, play + ["--history", "nothere.jsonl"],
      ["play", "--user", "u01", "--date", "2027-01-01"],
    ] {
      let run = CLIRun(args)
      #expect(run.code == .usage)
      #expect(
        run.stderr
          == "menudeck: error: play needs a terminal: standard input is not a terminal; run it "
          + "in a terminal, or use `menudeck deck` for batch output\n"
          + "menudeck: note: see 'menudeck play --help'\n", "\(args)")
      #expect(run.stdout == "")
    }
  }

  @Test(
    .enabled(if: MenudeckBinary.path != nil, "menudeck binary not found; run swift build first"))
  func notATerminalFromTheBinary() throws {
    let result = try MenudeckBinary.run(play)
    #expect(result.status == 64)
    #expect(result.stderr.contains("standard input is not a terminal"))
    #expect(result.stdout == "")
  }

  /// Runs play under a pseudo-terminal until it ends: its exit status and standard error.
  static func underATerminal(_ arguments: [String], quit: Bool = false) throws -> (
    status: Int32, stderr: String
  ) {
    let dir = try TempDir("menudeck-play")
    let pty = try PseudoTerminal()
    let process = try pty.start(arguments, stderr: dir.url("stderr"))
    if quit {
      #expect(pty.wait(for: " / "), "no first screen: \(pty.text.suffix(300))")
      pty.send("q")
    }
    #expect(pty.drain(until: process))
    process.waitUntilExit()
    return (process.terminationStatus, try dir.read("stderr"))
  }

  @Test(
    .enabled(if: MenudeckBinary.path != nil, "menudeck binary not found; run swift build first"))
  func oneDinerIsRequired() throws {
    let run = try Self.underATerminal(["play", "--date", "2026-11-30"])
    #expect(run.status == 64)
    #expect(
      run.stderr
        == "menudeck: error: play swipes one diner's deck: give --user ID (the users file has 48 "
        + "diners)\nmenudeck: note: see 'menudeck play --help'\n")
  }

  /// --log appends: it never names an input of the run (the config's history, a --history),
  /// and its name says JSON Lines (.jsonl, .ndjson) or CSV.
  @Test(
    .enabled(if: MenudeckBinary.path != nil, "menudeck binary not found; run swift build first"))
  func theLogIsNeverAnInput() throws {
    let run = try Self.underATerminal(play + ["--log", "Data/swipes.jsonl"])
    #expect(run.status == 64)
    #expect(
      run.stderr
        == "menudeck: error: '--log Data/swipes.jsonl' would append to an input of this run (the "
        + "config's \"history\" 'Data/swipes.jsonl'); choose another --log\n"
        + "menudeck: note: see 'menudeck play --help'\n")
    let dir = try TempDir()
    let log = try dir.write("mine.jsonl", "")
    let given = try Self.underATerminal(play + ["--history", log, "--log", log])
    #expect(given.status == 64)
    #expect(given.stderr.contains("would append to an input of this run (--history '\(log)')"))
    #expect(try dir.read("mine.jsonl") == "")
    let other = CLIRun(play + ["--log", dir.file("log.txt")])
    #expect(other.code == .usage)
    #expect(other.stderr.contains("give the log a .jsonl or .ndjson (JSON Lines) or .csv name"))
    // An .ndjson log is JSON Lines, as --rejects takes it.
    let ndjson = dir.file("today.ndjson")
    let swiped = try Self.swipeOnce(play + ["--log", ndjson])
    #expect(swiped == 0)
    #expect(try dir.read("today.ndjson").hasPrefix(#"{"user":"u01","item":"#))
  }

  /// Swipes the first card left under a pseudo-terminal and quits: the exit status.
  static func swipeOnce(_ arguments: [String]) throws -> Int32 {
    let dir = try TempDir("menudeck-play")
    let pty = try PseudoTerminal()
    let process = try pty.start(arguments, stderr: dir.url("stderr"))
    #expect(pty.wait(for: "1 / 10"), "no first screen: \(pty.text.suffix(300))")
    let mark = pty.output.count
    pty.send("h")
    #expect(pty.wait(for: "2 / 10", after: mark))
    pty.send("q")
    #expect(pty.drain(until: process))
    process.waitUntilExit()
    return process.terminationStatus
  }

  /// The done-when of issue 13: swipe with the arrow keys, a drag that springs back, a quick
  /// swipe, a drag that commits the pick; the terminal is given back as it was, and the log
  /// is read back by stats, validate, ingest and deck --history.
  @Test(
    .enabled(if: MenudeckBinary.path != nil, "menudeck binary not found; run swift build first"))
  func pickADishUnderAPseudoTerminal() throws {
    let dir = try TempDir("menudeck-play")
    let log = dir.file("today.jsonl")
    let pty = try PseudoTerminal()
    let flags = pty.localFlags
    let process = try pty.start(play + ["--log", log], stderr: dir.url("stderr"))
    #expect(pty.wait(for: "1 / 10"), "no first screen: \(pty.text.suffix(300))")
    // Three steps right (0.15 of the width): the hint, then a release that springs back.
    pty.send("\u{1B}[C\u{1B}[C\u{1B}[C")
    #expect(pty.wait(for: "I'll have this today!"))
    var mark = pty.output.count
    pty.send("\r")
    #expect(pty.wait(for: "sprang back", after: mark))
    mark = pty.output.count
    pty.send("h")
    #expect(pty.wait(for: "2 / 10", after: mark))
    mark = pty.output.count
    pty.send(String(repeating: "\u{1B}[C", count: 10) + " ")
    #expect(pty.wait(for: "Today's pick!", after: mark))
    pty.send("q")
    #expect(pty.drain(until: process))
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(pty.text.hasPrefix("\u{1B}[?1049h"))
    #expect(pty.text.hasSuffix("\u{1B}[?1049l"), "not restored: \(pty.text.suffix(80))")
    #expect(pty.localFlags == flags)
    #expect(!pty.text.contains("\u{1B}[1;3"), "colour under NO_COLOR")
    let stderr = try dir.read("stderr")
    #expect(stderr.hasPrefix("menudeck: note: picked '"))
    #expect(stderr.hasSuffix(" at 2 of 10; 3 events appended to \(log)\n"))

    let lines = try dir.read("today.jsonl").split(separator: "\n")
    #expect(lines.count == 3)
    let events = try lines.map {
      try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(events.map { $0["user"] as? String } == ["u01", "u01", "u01"])
    #expect(events.map { $0["position"] as? Int } == [1, 1, 2])
    #expect(events.map { $0["deck"] as? String } == Array(repeating: "2026-11-30", count: 3))
    #expect(events[0]["dx"] as? Double == 58.5)
    #expect(events[0]["width"] as? Double == 390)
    #expect(events[0]["swipe"] == nil)
    #expect(events[1]["swipe"] as? String == "left")
    #expect(events[2]["dx"] as? Double == 195)
    #expect(events[0]["item"] as? String == events[1]["item"] as? String)
    // The times carry the config's offset (Asia/Tokyo), as every other log does.
    for event in events {
      let at = try #require(event["at"] as? String)
      #expect(at.count == 25 && at.hasSuffix("+09:00"), "\(at)")
    }
    // The first deck's cards, as `deck` builds them.
    let deck = CLIRun(["deck", "--user", "u01", "--date", "2026-11-30", "--format", "jsonl"])
    let cards = try #require(try deck.jsonLines().first?["cards"] as? [[String: Any]])
    #expect(events[1]["item"] as? String == cards[0]["item"] as? String)
    #expect(events[2]["item"] as? String == cards[1]["item"] as? String)

    let stats = CLIRun(["stats", log])
    #expect(stats.code == .success, "\(stats.stderr)")
    #expect(stats.stdout.contains("(all)     all             1            2             1"))
    #expect(stats.stdout.contains("(all)     all                      2.0000        0.0000"))
    let validate = CLIRun(["validate", "--history", log])
    #expect(validate.stdout.contains("3 lines, 2 swipes (1 right, 1 left), 1 hesitation"))
    let ingest = CLIRun(["ingest", "--into", dir.file("snapshot.json"), log])
    #expect(ingest.code == .success, "\(ingest.stderr)")
    let again = CLIRun([
      "deck", "--user", "u01", "--date", "2026-12-31", "--history", log, "--format", "jsonl",
    ])
    #expect(again.code == .success, "\(again.stderr)")
  }

  /// A log line's time is the instant's wall-clock time in the config's zone with the offset
  /// in effect then: daylight saving time in summer, not in winter.
  @Test func aLogLinesTimeCarriesTheOffsetOfItsInstant() throws {
    let zone = try #require(TimeZone(identifier: "America/New_York"))
    let settings = RunSettings.readingLogs(MenuDeckConfig(), zone: zone, skipBadLines: false)
    let entry = PlayLogEntry(item: "gyudon", swipe: .right, position: 1)
    let summer = Date(timeIntervalSince1970: 1_784_000_000)  // 2026-07-14T03:33:20Z
    let winter = Date(timeIntervalSince1970: 1_796_000_000.75)  // 2026-11-30T00:53:20.75Z
    let out = MemoryOutput()
    let writer = EventWriter(format: .jsonLines, output: out)
    for now in [summer, winter] {
      try writer.write(PlayRun.logEvent(entry, user: "u01", settings: settings, now: now))
    }
    try writer.finish()
    let times = out.text.split(separator: "\n").map {
      $0.components(separatedBy: "\"at\":\"")[1].prefix(25)
    }
    #expect(times == ["2026-07-13T23:33:20-04:00", "2026-11-29T19:53:20-05:00"])
    // Read back in that zone: the same wall-clock times.
    var sink = SwipeEventCollector()
    _ = try EventReader(options: EventReaderOptions(zone: TimeZoneOffsets(zone))).read(
      text: out.text, name: "log", format: .jsonLines, into: &sink)
    let summerAt: Int64 = 1_784_000_000 - 4 * 3600
    let winterAt: Int64 = 1_796_000_000 - 5 * 3600
    #expect(sink.events.map(\.at) == [summerAt, winterAt])
  }

  /// An error while the deck is on screen (here the log's disk is full) gives the terminal
  /// back before the message and the exit code (74).
  @Test(
    .enabled(
      if: MenudeckBinary.path != nil && FileManager.default.fileExists(atPath: "/dev/full"),
      "needs the menudeck binary and /dev/full"))
  func anErrorOnScreenRestoresTheTerminal() throws {
    let dir = try TempDir("menudeck-play")
    let log = dir.file("full.jsonl")
    try FileManager.default.createSymbolicLink(atPath: log, withDestinationPath: "/dev/full")
    let pty = try PseudoTerminal()
    let flags = pty.localFlags
    let process = try pty.start(play + ["--log", log], stderr: dir.url("stderr"))
    #expect(pty.wait(for: "1 / 10"), "no first screen: \(pty.text.suffix(300))")
    pty.send("h")
    #expect(pty.drain(until: process))
    process.waitUntilExit()
    #expect(process.terminationStatus == 74)
    #expect(pty.text.hasSuffix("\u{1B}[?1049l"), "not restored: \(pty.text.suffix(80))")
    #expect(pty.localFlags == flags)
    #expect(
      try dir.read("stderr")
        == "menudeck: error: \(log): cannot append to the log: no space left on device\n")
  }

  /// A CSV log as play appends it (a swipe, then a hesitation) is read back by the readers.
  @Test func csvLogIsReadBack() throws {
    let dir = try TempDir()
    let path = dir.file("today.csv")
    for event in [
      LogEvent(
        user: "u01", item: "gyudon", swipe: .right, at: 1_764_500_000, position: 1,
        deck: DeckDate.parse("2026-11-30")),
      LogEvent(
        user: "u01", item: "oyakodon", swipe: nil, drag: LoggedDrag(dx: -58.5, width: 390),
        at: 1_764_500_001, position: 2, deck: DeckDate.parse("2026-11-30")),
    ] {
      try EventAppender(path: path, name: "today.csv", format: .csv).append(event)
    }
    let validate = CLIRun(["validate", "--history", path])
    #expect(validate.stdout.contains("3 lines, 1 swipe (1 right, 0 left), 1 hesitation"))
    let stats = CLIRun(["stats", path])
    #expect(stats.code == .success, "\(stats.stderr)")
  }

  /// Ctrl-C in raw mode is byte 3, a key: it quits like `q`, the session abandoned, exit 0.
  @Test(
    .enabled(if: MenudeckBinary.path != nil, "menudeck binary not found; run swift build first"))
  func controlCQuits() throws {
    let dir = try TempDir("menudeck-play")
    let pty = try PseudoTerminal()
    let process = try pty.start(play + ["--mode", "all"], stderr: dir.url("stderr"))
    #expect(pty.wait(for: "1 / 10"), "no first screen: \(pty.text.suffix(300))")
    let mark = pty.output.count
    pty.send("l")
    #expect(pty.wait(for: "2 / 10", after: mark))
    pty.send("\u{03}")
    #expect(pty.drain(until: process))
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(pty.text.hasSuffix("\u{1B}[?1049l"))
    #expect(try dir.read("stderr") == "menudeck: note: stopped after 1 swipe of 10\n")
  }

  /// The users file's only diner needs no --user.
  @Test(
    .enabled(if: MenudeckBinary.path != nil, "menudeck binary not found; run swift build first"))
  func theOnlyDinerNeedsNoUser() throws {
    let dir = try TempDir()
    let users = try dir.write("users.json", #"{"users": [{"id": "solo"}]}"#)
    let run = try Self.underATerminal(
      ["play", "--date", "2026-11-30", "--users", users], quit: true)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(!run.stderr.contains("error"), "\(run.stderr)")
  }

  /// A resize (SIGWINCH) redraws at the new size; SIGTERM from outside while the deck is on
  /// screen restores the terminal before the process ends by the signal.
  @Test(
    .enabled(if: MenudeckBinary.path != nil, "menudeck binary not found; run swift build first"))
  func signalRestoresTheTerminal() throws {
    let dir = try TempDir("menudeck-play")
    let pty = try PseudoTerminal(columns: 40, rows: 12)
    let flags = pty.localFlags
    let process = try pty.start(play + ["--mode", "all", "--carousel"], stderr: dir.url("stderr"))
    #expect(pty.wait(for: "1 / 10"), "no first screen: \(pty.text.suffix(300))")
    // The child is not in the pty's session, so the kernel's SIGWINCH is sent by hand.
    pty.resize(columns: 30, rows: 10)
    kill(process.processIdentifier, SIGWINCH)
    #expect(pty.wait(for: "terminal too small: 30x10"))
    process.terminate()
    #expect(pty.drain(until: process))
    process.waitUntilExit()
    #expect(process.terminationReason == .uncaughtSignal)
    #expect(process.terminationStatus == SIGTERM)
    #expect(pty.text.hasSuffix("\u{1B}[?1049l"), "not restored: \(pty.text.suffix(80))")
    #expect(pty.localFlags == flags)
    #expect(try dir.read("stderr") == "menudeck: error: stopped by SIGTERM\n")
  }
}
