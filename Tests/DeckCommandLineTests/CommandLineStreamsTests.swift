import Foundation
import Testing

@testable import DeckCommandLine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite struct CommandLineStreamsTests {
  /// A fresh temporary file opened for writing; returns its path and descriptor.
  func temporaryFile() throws -> (path: String, fd: Int32) {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("menudeck-cli-\(UUID().uuidString)").path
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    try #require(fd >= 0)
    return (path, fd)
  }

  func contents(_ path: String) -> String {
    String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
  }

  @Test func fileSinkBuffersUpToItsCapacityThenWritesThrough() throws {
    let (path, fd) = try temporaryFile()
    defer {
      close(fd)
      try? FileManager.default.removeItem(atPath: path)
    }
    let sink = FileDescriptorSink(fileDescriptor: fd, name: path, bufferCapacity: 8)
    sink.write("abc")
    #expect(contents(path) == "")
    sink.write(bytes: Array("defgh".utf8))  // exactly fills the buffer: still held
    #expect(contents(path) == "")
    sink.write("i")  // does not fit: the 8 buffered bytes go out, "i" waits
    #expect(contents(path) == "abcdefgh")
    sink.write("0123456789")  // larger than the buffer: "i" then this, at once
    #expect(contents(path) == "abcdefghi0123456789")
    sink.write("é\n")
    try sink.flush()
    #expect(contents(path) == "abcdefghi0123456789é\n")
    try sink.flush()
    #expect(contents(path) == "abcdefghi0123456789é\n")
  }

  @Test func unbufferedSinkWritesEveryCallAtOnce() throws {
    let (path, fd) = try temporaryFile()
    defer {
      close(fd)
      try? FileManager.default.removeItem(atPath: path)
    }
    let sink = FileDescriptorSink(fileDescriptor: fd, name: path, bufferCapacity: 0)
    sink.write("progress 1\r")
    #expect(contents(path) == "progress 1\r")
    sink.write("")
    sink.writeLine("done")
    #expect(contents(path) == "progress 1\rdone\n")
  }

  @Test func largeOutputArrivesWhole() throws {
    let (path, fd) = try temporaryFile()
    defer {
      close(fd)
      try? FileManager.default.removeItem(atPath: path)
    }
    let sink = FileDescriptorSink(fileDescriptor: fd, name: path)
    var expected = ""
    for n in 0..<100_000 {
      let line = "{\"user\":\"u\(n)\",\"cards\":[\"a\",\"b\"]}\n"
      sink.write(line)
      expected += line
    }
    try sink.flush()
    #expect(FileManager.default.contents(atPath: path) == Data(expected.utf8))
  }

  @Test func aFailedWriteToStandardOutputEndsWithExit74() throws {
    let fd = open("/dev/full", O_WRONLY)
    try #require(fd >= 0)
    defer { close(fd) }
    let err = CapturingSink()
    let io = CLIStreams(
      stdout: FileDescriptorSink(fileDescriptor: fd, name: "standard output"), stderr: err,
      stdin: BytesSource([]))
    let root = CommandSpec(
      name: "tool", abstract: "", options: [.flag("fail", help: "")],
      run: { args, context in
        context.io.stdout.write("decks\n")
        return args.flag("fail") ? .dataError : .success
      })
    #expect(runCommand(root, arguments: [], io: io) == .ioError)
    #expect(
      err.text
        == "tool: error: cannot write to standard output: no space left on device; "
        + "check the disk or the pipe\n")
    // A run that already failed keeps its own exit code; the write error is still reported.
    let err2 = CapturingSink()
    let io2 = CLIStreams(
      stdout: FileDescriptorSink(fileDescriptor: fd, name: "standard output"), stderr: err2,
      stdin: BytesSource([]))
    #expect(runCommand(root, arguments: ["--fail"], io: io2) == .dataError)
    #expect(err2.text.hasPrefix("tool: error: cannot write to standard output: "))
  }

  @Test func runCommandFlushesBothStreams() {
    let (io, out, err) = CLIStreams.capturing()
    let root = CommandSpec(name: "tool", abstract: "", run: { _, _ in .success })
    #expect(runCommand(root, arguments: [], io: io) == .success)
    #expect(out.flushCount == 1)
    #expect(err.flushCount == 1)
  }

  @Test func fileSourceReadsToTheEnd() throws {
    let (path, fd) = try temporaryFile()
    defer {
      close(fd)
      try? FileManager.default.removeItem(atPath: path)
    }
    let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    let writer = FileDescriptorSink(fileDescriptor: fd, name: path)
    writer.write(bytes: bytes)
    try writer.flush()
    let readFD = open(path, O_RDONLY)
    try #require(readFD >= 0)
    defer { close(readFD) }
    let source = FileDescriptorSource(fileDescriptor: readFD, name: path)
    #expect(try source.readAll() == bytes)
    #expect(try source.readAll() == [])
  }

  @Test func fileSourceReportsReadErrors() {
    let source = FileDescriptorSource(fileDescriptor: -1, name: "standard input")
    #expect(throws: CommandFailure(.ioError, "cannot read standard input: bad file descriptor")) {
      try source.readAll()
    }
  }

  @Test func bytesSourceHandsOutItsBytesInPieces() throws {
    let source = BytesSource("hello, deck")
    var piece = [UInt8](repeating: 0, count: 4)
    var seen: [String] = []
    while true {
      let count = try piece.withUnsafeMutableBytes { try source.read(into: $0) }
      if count == 0 { break }
      seen.append(String(decoding: piece[0..<count], as: UTF8.self))
    }
    #expect(seen == ["hell", "o, d", "eck"])
    #expect(try BytesSource([]).readAll() == [])
  }

  @Test func capturingSinkKeepsBytesAndText() {
    let sink = CapturingSink()
    sink.write("a")
    sink.write(bytes: [0xE3, 0x81, 0x82])
    sink.writeLine()
    #expect(sink.bytes == [0x61, 0xE3, 0x81, 0x82, 0x0A])
    #expect(sink.text == "aあ\n")
  }

  @Test func pathsResolveAgainstTheCurrentDirectory() {
    var (io, _, _) = CLIStreams.capturing(currentDirectory: "/srv/menudeck")
    #expect(io.resolvePath("Config/menudeck.json") == "/srv/menudeck/Config/menudeck.json")
    #expect(io.resolvePath("/etc/x.json") == "/etc/x.json")
    #expect(io.resolvePath("-") == "-")
    io.currentDirectory = "/"
    #expect(io.resolvePath("a") == "/a")
  }

  @Test func contextHelpersWriteToStandardError() {
    let (io, out, err) = CLIStreams.capturing()
    let context = CommandContext(io: io, commandPath: ["menudeck", "deck"])
    context.warn("user 'u7' gets 8 cards, not 10: only 8 dishes pass the rules")
    context.note("built 20 decks")
    #expect(context.commandName == "menudeck deck")
    #expect(context.programName == "menudeck")
    #expect(out.text == "")
    #expect(
      err.text
        == "menudeck: warning: user 'u7' gets 8 cards, not 10: only 8 dishes pass the rules\n"
        + "menudeck: note: built 20 decks\n")
  }
}
