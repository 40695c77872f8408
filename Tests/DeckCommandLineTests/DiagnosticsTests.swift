import DeckBase
import Testing

@testable import DeckCommandLine

/// The diagnostic options on a small tree: `--quiet`, `--verbose`, `--log-format` (and its
/// environment variable) and the printer's text and JSON lines.
@Suite struct DiagnosticsTests {
  struct Located: ExitCodeProviding, DiagnosticDescribing, CustomStringConvertible {
    var exitCode: ExitCode { .dataError }
    var description: String { "menu.json:3:7: price: must be 0 or more" }
    var sourceLocation: DeckBase.SourceLocation? {
      DeckBase.SourceLocation(file: "menu.json", line: 3, column: 7, field: "price")
    }
    var diagnosticMessage: String { "must be 0 or more" }
    var diagnosticCode: String? { "malformed_input" }
  }

  static let fail = Option<String>(
    "fail", valueName: "how", choices: ["located", "plain", "usage", "internal"], help: "")

  static let tree = CommandSpec(
    name: "tool", abstract: "A tool.", options: DiagnosticOptions.all,
    subcommands: [
      CommandSpec(
        name: "work", abstract: "Works.", options: [fail.spec],
        run: { args, context in
          context.warn("a warning", code: "odd")
          context.note("a note")
          context.info("a detail", code: "timing")
          switch args.value(fail) {
          case "located": throw Located()
          case "plain": throw CommandFailure(.noInput, "x.json: no such file")
          case "usage": throw UsageError("'--fail' is not for today")
          case "internal": throw CancellationError()
          default: return .success
          }
        })
    ])

  func run(_ arguments: [String], environment: [String: String] = [:]) -> (
    code: ExitCode, stderr: String
  ) {
    let (io, _, err) = CLIStreams.capturing(environment: environment)
    let code = runCommand(Self.tree, arguments: arguments, io: io)
    return (code, err.text)
  }

  /// The lines of `text` parsed by the one JSON parser, each an object.
  func objects(_ text: String) throws -> [JSONObject] {
    try text.split(separator: "\n").map { line in
      let value = try JSONReader.parse(Array(line.utf8), file: "stderr")
      return try #require(value.objectValue, "not an object: \(line)")
    }
  }

  func string(_ object: JSONObject, _ key: String) -> String? { object[key]?.stringValue }

  @Test func levelsByVerbosity() {
    #expect(
      run(["work"]).stderr
        == "tool: warning: a warning\ntool: note: a note\n")
    #expect(run(["work", "-q"]).stderr == "")
    #expect(run(["--quiet", "work"]).stderr == "")
    #expect(
      run(["work", "--verbose"]).stderr.hasPrefix(
        "tool: warning: a warning\ntool: note: a note\ntool: info: a detail\n"))
    // The run's own time closes a verbose run.
    #expect(run(["-v", "work"]).stderr.contains("tool: info: tool work ended in "))
  }

  @Test func errorsPrintEvenWhenQuiet() {
    let r = run(["work", "-q", "--fail", "plain"])
    #expect(r.code == .noInput)
    #expect(r.stderr == "tool: error: x.json: no such file\n")
  }

  @Test func quietAndVerboseTogetherAreAUsageError() {
    let r = run(["work", "-qv"])
    #expect(r.code == .usage)
    #expect(
      r.stderr
        == "tool: error: give '--quiet' or '--verbose', not both\n"
        + "tool: note: see 'tool work --help'\n")
  }

  @Test func jsonLinesCarryEveryField() throws {
    let r = run(["work", "--log-format", "json", "--fail", "located"])
    #expect(r.code == .dataError)
    let lines = try objects(r.stderr)
    #expect(lines.count == 3)
    #expect(string(lines[0], "level") == "warning")
    #expect(string(lines[0], "code") == "odd")
    #expect(string(lines[0], "message") == "a warning")
    #expect(string(lines[1], "code") == "note")
    for line in lines {
      #expect(
        line.keys == [
          "level", "code", "message", "file", "line", "column", "field", "program", "command",
        ])
      #expect(string(line, "program") == "tool")
      #expect(string(line, "command") == "work")
    }
    #expect(lines[0]["file"]?.isNull == true)
    #expect(lines[0]["line"]?.isNull == true)
    let error = lines[2]
    #expect(string(error, "level") == "error")
    #expect(string(error, "code") == "malformed_input")
    #expect(string(error, "message") == "must be 0 or more")
    #expect(string(error, "file") == "menu.json")
    #expect(error["line"]?.doubleValue == 3)
    #expect(error["column"]?.doubleValue == 7)
    #expect(string(error, "field") == "price")
  }

  @Test func errorsWithoutAFinerCodeTakeTheirExitCodesClass() throws {
    let plain = try objects(run(["work", "-q", "--fail", "plain", "--log-format=json"]).stderr)
    #expect(plain.count == 1)
    #expect(string(plain[0], "code") == "missing_input")
    #expect(string(plain[0], "message") == "x.json: no such file")
    let failed = try objects(run(["work", "-q", "--fail", "internal", "--log-format=json"]).stderr)
    #expect(string(failed[0], "code") == "internal_error")
  }

  @Test func usageErrorsAreAnErrorAndAHelpNoteInJSONLines() throws {
    // Before the command line could be parsed: the format is found by scanning it.
    let unknown = run(["work", "--bogus", "--log-format", "json"])
    #expect(unknown.code == .usage)
    let lines = try objects(unknown.stderr)
    #expect(lines.count == 2)
    #expect(string(lines[0], "level") == "error")
    #expect(string(lines[0], "code") == "usage")
    #expect(string(lines[0], "message") == "unknown option '--bogus'")
    #expect(string(lines[0], "command") == "work")
    #expect(string(lines[1], "level") == "note")
    #expect(string(lines[1], "code") == "help")
    #expect(string(lines[1], "message") == "see 'tool work --help'")
    #expect(string(lines[1], "command") == "work")
    // Thrown by the command; the note prints with --quiet too, as the error does.
    let thrown = try objects(run(["work", "-q", "--fail", "usage", "--log-format", "json"]).stderr)
    #expect(thrown.count == 2)
    #expect(string(thrown[0], "message") == "'--fail' is not for today")
    #expect(string(thrown[1], "code") == "help")
    // Before any command: no command, and the pointer is to the root's help.
    let root = try objects(run(["--log-format", "json", "nope"]).stderr)
    #expect(string(root[0], "message")?.hasPrefix("unknown subcommand 'nope'") == true)
    #expect(root[0]["command"]?.isNull == true)
    #expect(string(root[1], "message") == "see 'tool --help'")
  }

  @Test func theEnvironmentGivesTheFormatWhenTheCommandLineDoesNot() throws {
    let json = run(["work", "-q", "--fail", "plain"], environment: ["TOOL_LOG_FORMAT": "json"])
    #expect(try objects(json.stderr).count == 1)
    let text = run(
      ["work", "-q", "--fail", "plain", "--log-format", "text"],
      environment: ["TOOL_LOG_FORMAT": "json"])
    #expect(text.stderr == "tool: error: x.json: no such file\n")
    let bad = run(["work"], environment: ["TOOL_LOG_FORMAT": "xml"])
    #expect(
      bad.stderr.hasPrefix(
        "tool: warning: TOOL_LOG_FORMAT='xml' is not a log format (text or json); writing text\n"))
  }

  @Test func scanningFindsTheLastFormatBeforeTheDoubleDash() {
    #expect(DiagnosticOptions.scanLogFormat(["--log-format", "json"]) == .json)
    #expect(
      DiagnosticOptions.scanLogFormat(["--log-format=json", "--log-format", "text"]) == .text)
    #expect(DiagnosticOptions.scanLogFormat(["--", "--log-format", "json"]) == nil)
    #expect(DiagnosticOptions.scanLogFormat(["--log-format", "xml"]) == nil)
    #expect(DiagnosticOptions.scanLogFormat(["--log-format"]) == nil)
  }

  @Test func pluginLinesSayWhoseTheyAre() throws {
    let sink = CapturingSink()
    let text = DiagnosticPrinter(program: "tool", command: "work", sink: sink)
    text.pluginLog(plugin: "veg-first", "3 dishes")
    #expect(sink.text == "tool: plugin veg-first: 3 dishes\n")
    let jsonSink = CapturingSink()
    let json = DiagnosticPrinter(
      program: "tool", command: "work", sink: jsonSink,
      settings: DiagnosticSettings(verbosity: .quiet, format: .json))
    json.pluginLog(plugin: "veg-first", "3 dishes")
    let line = try #require(try objects(jsonSink.text).first)
    #expect(string(line, "level") == "info")
    #expect(string(line, "code") == "plugin_log")
    #expect(string(line, "plugin") == "veg-first")
    #expect(string(line, "message") == "3 dishes")
  }

  /// Warnings, notes and info lines about a file carry it in the JSON form; the text form
  /// starts with a place in the file, and leaves a whole file to the message's own words.
  @Test func linesAboutAFileCarryIt() throws {
    let sink = CapturingSink()
    let text = DiagnosticPrinter(
      program: "tool", sink: sink, settings: DiagnosticSettings(verbosity: .verbose))
    text.info("history a.jsonl: 3 bytes", code: "input", location: .wholeFile("a.jsonl"))
    text.warning(
      "odd", code: "odd", location: SourceLocation(file: "b.json", line: 2, column: 5, field: "id"))
    text.note("a.jsonl: done", location: .wholeFile("a.jsonl"))
    #expect(
      sink.text
        == "tool: info: history a.jsonl: 3 bytes\ntool: warning: b.json:2:5: id: odd\n"
        + "tool: note: a.jsonl: done\n")
    let jsonSink = CapturingSink()
    let json = DiagnosticPrinter(
      program: "tool", sink: jsonSink,
      settings: DiagnosticSettings(verbosity: .verbose, format: .json))
    json.info("history a.jsonl: 3 bytes", code: "input", location: .wholeFile("a.jsonl"))
    json.warning(
      "odd", code: "odd", location: SourceLocation(file: "b.json", line: 2, column: 5, field: "id"))
    let lines = try objects(jsonSink.text)
    #expect(lines.map { string($0, "file") } == ["a.jsonl", "b.json"])
    #expect(lines[0]["line"]?.isNull == true)
    #expect(string(lines[0], "message") == "history a.jsonl: 3 bytes")
    #expect(lines[1]["line"]?.doubleValue == 2 && string(lines[1], "field") == "id")
    #expect(string(lines[1], "message") == "odd")
  }

  @Test func warningsThatMustBeSeenPassQuiet() {
    let sink = CapturingSink()
    let printer = DiagnosticPrinter(
      program: "tool", sink: sink, settings: DiagnosticSettings(verbosity: .quiet))
    printer.warning("hidden")
    printer.warnAlways("the fallback served 3 diners", code: "fallback")
    #expect(sink.text == "tool: warning: the fallback served 3 diners\n")
  }

  @Test func progressIsOnlyForTerminals() {
    func stderr(_ arguments: [String], terminal: Bool, _ environment: [String: String] = [:])
      -> String
    {
      var environment = environment
      environment["TOOL_PROGRESS_DELAY_MS"] = "0"
      let tree = CommandSpec(
        name: "tool", abstract: "", options: DiagnosticOptions.all,
        subcommands: [
          CommandSpec(
            name: "work", abstract: "",
            run: { _, context in
              context.withProgress("work", unit: .items("steps"), total: 4) { counter in
                counter?.add(1)
                context.note("halfway")
              }
              return .success
            })
        ])
      let (io, _, err) = CLIStreams.capturing(
        stderrIsTerminal: terminal, environment: environment)
      _ = runCommand(tree, arguments: arguments, io: io)
      return err.text
    }
    // Drawn at once (no delay), then erased before the note; the timer may draw again between
    // the two on a busy machine, so only the order is pinned.
    func drew(_ text: String) -> Bool {
      text.hasPrefix("\rtool: work  0/4 steps  0%\u{1B}[K")
        && text.hasSuffix("\r\u{1B}[K" + "tool: note: halfway\n")
    }
    #expect(drew(stderr(["work"], terminal: true)))
    #expect(drew(stderr(["work"], terminal: true, ["NO_COLOR": ""])))
    #expect(stderr(["work"], terminal: false) == "tool: note: halfway\n")
    #expect(stderr(["work", "--no-progress"], terminal: true) == "tool: note: halfway\n")
    #expect(stderr(["work"], terminal: true, ["NO_COLOR": "1"]) == "tool: note: halfway\n")
    #expect(stderr(["work"], terminal: true, ["TERM": "dumb"]) == "tool: note: halfway\n")
    #expect(stderr(["work", "-q"], terminal: true) == "")
    let json = stderr(["work", "--log-format", "json"], terminal: true)
    #expect(json.hasPrefix("{") && !json.contains("\r"))
  }
}
