import DeckBase
import DeckCommandLine
import DeckCore
import Foundation
import Testing

@testable import MenuDeckCLI

extension CLIRun {
  /// `menudeck <arguments>` with an environment, and standard error a terminal or not.
  init(
    _ arguments: [String], in directory: String = CLITest.repoRoot, terminal: Bool,
    environment: [String: String] = [:]
  ) {
    let (io, out, err) = CLIStreams.capturing(
      stderrIsTerminal: terminal, environment: environment, currentDirectory: directory)
    code = run(arguments, io)
    stdoutBytes = out.bytes
    stderr = err.text
  }
}

/// What menudeck writes to standard error: `--quiet`, `--verbose`, `--log-format json` on every
/// command, and the progress line (in process with a pretend terminal).
@Suite struct CLIDiagnosticsTests {
  /// The lines of `text` as JSON objects, read by the one JSON parser.
  static func objects(_ text: String) throws -> [JSONObject] {
    try text.split(separator: "\n").map { line in
      let value = try JSONReader.parse(Array(line.utf8), file: "stderr")
      return try #require(value.objectValue, "not a JSON object: \(line)")
    }
  }

  static func string(_ object: JSONObject, _ key: String) -> String? { object[key]?.stringValue }

  static let noProgress = ["MENUDECK_PROGRESS_DELAY_MS": "0"]

  // MARK: - quiet and verbose

  @Test func quietRemovesNotesAndWarningsOfEveryCommand() throws {
    let dir = try TempDir("menudeck-diagnostics")
    let runs: [[String]] = [
      ["deck", "--date", "2026-11-30", "--user", "zz9", "--format", "jsonl"],
      ["ingest", "Data/swipes.jsonl", "--out", dir.file("h.snap")],
      ["sample", "--out", dir.file("sample")],
      ["simulate", "--users", "12", "--days", "2", "--strategy", "popularity"],
      ["validate"],
      ["stats", "Data/swipes.jsonl"],
    ]
    for arguments in runs {
      let loud = CLIRun(arguments)
      #expect(loud.code == .success, "\(arguments): \(loud.stderr)")
      let quiet = CLIRun(arguments + ["--quiet"])
      #expect(quiet.code == .success, "\(arguments) --quiet: \(quiet.stderr)")
      #expect(quiet.stderr == "", "\(arguments) --quiet")
      #expect(quiet.stdout == loud.stdout, "\(arguments)")
      // Before the command's name too.
      #expect(CLIRun(["-q"] + arguments).stderr == "", "-q \(arguments)")
    }
    // The ones that say something without --quiet.
    #expect(CLIRun(runs[0]).stderr.contains("menudeck: warning: user 'zz9' is in neither"))
    #expect(CLIRun(runs[3]).stderr.hasPrefix("menudeck: note: simulated 12 diners x 2 days"))
  }

  /// stats and compare on logs end with a summary note, as deck, simulate and ingest do.
  @Test func statsAndCompareOnLogsSayWhatTheyDid() throws {
    let stats = CLIRun(["stats", "Data/swipes.jsonl"])
    #expect(stats.code == .success)
    #expect(
      stats.stderr == "menudeck: note: stats of 1 log (3379 swipes, 516 decks over 14 days)\n")
    let compare = CLIRun([
      "compare", "-s", "random", "-s", "popularity", "--split", "2026-11-24", "Data/swipes.jsonl",
      "--resamples", "20", "--log-format", "json",
    ])
    #expect(compare.code == .success, "\(compare.stderr)")
    let lines = try Self.objects(compare.stderr)
    let summary = try #require(lines.first { Self.string($0, "code") == "summary" })
    #expect(
      Self.string(summary, "message")
        == "compared 2 strategies on 44 diners of Data/swipes.jsonl, split at 2026-11-24")
    #expect(
      CLIRun([
        "compare", "-s", "random", "-s", "popularity", "--split", "2026-11-24",
        "Data/swipes.jsonl", "--resamples", "20", "-q",
      ]).stderr == "")
  }

  /// Under --verbose, the inputs come first, then the timings of the work done on them.
  @Test func verboseTellsTheInputsBeforeTheTimings() {
    let runs: [[String]] = [
      [
        "compare", "-s", "random", "-s", "popularity", "--split", "2026-11-24", "Data/swipes.jsonl",
        "--resamples", "20",
      ],
      [
        "compare", "-s", "random", "-s", "popularity", "--users", "12", "--days", "2",
        "--resamples", "20",
      ],
      ["simulate", "--users", "12", "--days", "2", "-s", "popularity"],
    ]
    for arguments in runs {
      let r = CLIRun(arguments + ["-v"])
      #expect(r.code == .success, "\(arguments): \(r.stderr)")
      let lines = r.stderr.split(separator: "\n").map(String.init)
      let config = lines.firstIndex { $0.hasPrefix("menudeck: info: config ") }
      let timing = lines.firstIndex {
        $0.hasPrefix("menudeck: info: ranked ") || $0.hasPrefix("menudeck: info: simulated ")
      }
      #expect(config != nil && timing != nil && config! < timing!, "\(arguments): \(r.stderr)")
    }
    let onLogs = CLIRun(runs[0] + ["-v"])
    #expect(
      onLogs.stderr.contains("menudeck: info: ranked the decks of 44 diners for 2 strategies in "))
    #expect(!onLogs.stderr.contains("'s decks"))
  }

  @Test func errorsPrintWhenQuiet() {
    let r = CLIRun(["deck", "-q", "--catalog", "/nonexistent/catalog.json"])
    #expect(r.code == .noInput)
    #expect(
      r.stderr
        == "menudeck: error: /nonexistent/catalog.json: no such file (the catalog); check the "
        + "path or the config\n")
  }

  @Test func verboseAddsTheInputsTimingsAndThreads() throws {
    let deck = CLIRun(["deck", "--date", "2026-11-30", "--format", "jsonl", "-v", "-j", "2"])
    #expect(deck.code == .success)
    let catalog = try CLITest.repoFile("Data/catalog.json")
    let hash = SHA256.hex(SHA256.hash(catalog))
    #expect(
      deck.stderr.contains(
        "menudeck: info: catalog Data/catalog.json: \(catalog.count) bytes, sha256 \(hash)\n"))
    #expect(deck.stderr.contains("menudeck: info: history Data/swipes.jsonl: "))
    #expect(deck.stderr.contains("menudeck: info: built 48 decks in "))
    #expect(deck.stderr.contains(" on 2 threads\n"))
    #expect(deck.stderr.contains("menudeck: note: 48 decks for 2026-11-30 with 'ease'\n"))
    #expect(deck.stderr.contains("menudeck: info: menudeck deck ended in "))
    // Without --verbose, none of it.
    let plain = CLIRun(["deck", "--date", "2026-11-30", "--format", "jsonl", "-j", "2"])
    #expect(!plain.stderr.contains("info:"))

    let dir = try TempDir("menudeck-diagnostics")
    let log = try CLITest.repoFile("Data/swipes.jsonl")
    let ingest = CLIRun(["ingest", "Data/swipes.jsonl", "--out", dir.file("h.snap"), "--verbose"])
    #expect(ingest.code == .success)
    #expect(
      ingest.stderr.contains(
        "menudeck: info: history Data/swipes.jsonl: \(log.count) bytes, "))
    #expect(ingest.stderr.contains("sha256 \(SHA256.hex(SHA256.hash(log)))\n"))
    #expect(ingest.stderr.contains("menudeck: info: read 1 log on "))
  }

  // MARK: - JSON lines

  @Test func jsonLinesOfASuccessfulRun() throws {
    let r = CLIRun(
      [
        "deck", "--date", "2026-11-30", "--user", "zz9", "--format", "jsonl", "--log-format",
        "json",
      ])
    #expect(r.code == .success)
    let lines = try Self.objects(r.stderr)
    #expect(lines.map { Self.string($0, "level") } == ["warning", "note"])
    #expect(lines.map { Self.string($0, "code") } == ["unknown_diner", "summary"])
    #expect(Self.string(lines[1], "message") == "1 deck for 2026-11-30 with 'ease'")
    for line in lines {
      #expect(Self.string(line, "program") == "menudeck")
      #expect(Self.string(line, "command") == "deck")
      #expect(line["file"]?.isNull == true && line["line"]?.isNull == true)
    }
  }

  /// `-v`'s input lines carry the file they are about in `file`, as the other lines about a
  /// file do.
  @Test func inputLinesNameTheirFile() throws {
    let deck = CLIRun(
      ["deck", "--date", "2026-11-30", "--format", "jsonl", "-v", "--log-format", "json"])
    #expect(deck.code == .success, "\(deck.stderr)")
    let inputs = try Self.objects(deck.stderr).filter { Self.string($0, "code") == "input" }
    #expect(
      inputs.map { Self.string($0, "file") } == [
        "Config/menudeck.json", "Data/catalog.json", "Data/users.json", "Data/swipes.jsonl",
      ])
    for line in inputs {
      let file = try #require(Self.string(line, "file"))
      #expect(Self.string(line, "message")?.contains(" \(file): ") == true)
      #expect(line["line"]?.isNull == true)
    }
    let dir = try TempDir("menudeck-diagnostics")
    let ingest = CLIRun(
      ["ingest", "Data/swipes.jsonl", "--out", dir.file("h.snap"), "-v", "--log-format", "json"])
    #expect(ingest.code == .success, "\(ingest.stderr)")
    let input = try #require(
      try Self.objects(ingest.stderr).first { Self.string($0, "code") == "input" })
    #expect(Self.string(input, "file") == "Data/swipes.jsonl")
    #expect(Self.string(input, "message")?.hasPrefix("history Data/swipes.jsonl: ") == true)
  }

  /// Skipped lines are counted per log, each warning at its log's first skipped line.
  @Test func skippedLinesAreWarnedPerLog() throws {
    let dir = try TempDir("menudeck-diagnostics")
    let good = #"{"user":"u1","item":"gyudon","swipe":"right","at":"2026-11-29T12:00:00Z"}"#
    let bad = #"{"user":"u1","item":"gyudon","swipe":"up","at":"2026-11-29T12:00:00Z"}"#
    let a = try dir.write("a.jsonl", [good, bad, bad].joined(separator: "\n") + "\n")
    let b = try dir.write("b.jsonl", [bad, good].joined(separator: "\n") + "\n")
    let c = try dir.write("c.jsonl", good + "\n")
    let arguments = [
      "deck", "--date", "2026-11-30", "--format", "jsonl", "--skip-bad-lines", "--history", a,
      "--history", c, "--history", b,
    ]
    let json = CLIRun(arguments + ["--log-format", "json"])
    #expect(json.code == .success, "\(json.stderr)")
    let skipped = try Self.objects(json.stderr).filter {
      Self.string($0, "code") == "skipped_lines"
    }
    #expect(skipped.map { Self.string($0, "file") } == [a, b])
    #expect(skipped.map { $0["line"]?.doubleValue } == [2, 1])
    #expect(
      skipped.map { Self.string($0, "message") } == [
        "skipped 2 malformed event lines, the first on this line",
        "skipped 1 malformed event line",
      ])
    let text = CLIRun(arguments)
    #expect(
      text.stderr.contains(
        "menudeck: warning: \(a):2: skipped 2 malformed event lines, the first on this line\n"),
      "\(text.stderr)")
    #expect(
      text.stderr.contains("menudeck: warning: \(b):1: skipped 1 malformed event line\n"),
      "\(text.stderr)")
  }

  /// A field of the wrong type in a users file or a catalog is named in `field`.
  @Test func aFieldOfTheWrongTypeIsNamed() throws {
    let dir = try TempDir("menudeck-diagnostics")
    let users = try dir.write("users.json", #"{"users":[{"id":7}]}"#)
    let catalog = try dir.write(
      "catalog.json", #"[{"id":"a","name":"A","category":"x","tags":"b"}]"#)
    for (option, path, field, column) in [
      ("--users", users, "id", 17), ("--catalog", catalog, "tags", 45),
    ] {
      let r = CLIRun(["deck", "--date", "2026-11-30", option, path, "--log-format", "json"])
      #expect(r.code == .dataError)
      let error = try #require(try Self.objects(r.stderr).first)
      #expect(Self.string(error, "file") == path)
      #expect(Self.string(error, "field") == field, "\(r.stderr)")
      #expect(error["column"]?.doubleValue == Double(column))
      #expect(Self.string(error, "message")?.hasPrefix("expected ") == true)
      let text = CLIRun(["deck", "--date", "2026-11-30", option, path])
      #expect(text.stderr.hasPrefix("menudeck: error: \(path):1:\(column): \(field): expected "))
    }
  }

  @Test func aBadCatalogIsAnErrorWithItsFileLineAndColumn() throws {
    let dir = try TempDir("menudeck-diagnostics")
    let path = try dir.write(
      "catalog.json",
      "[\n  {\"id\": \"a\", \"name\": \"A\", \"category\": \"x\", \"price\": -5}\n]\n")
    for command in [["deck"], ["validate"]] {
      let text = CLIRun(command + ["--catalog", path])
      let json = CLIRun(command + ["--catalog", path, "--log-format", "json"])
      #expect(json.code == .dataError && text.code == .dataError)
      let errors = try Self.objects(json.stderr).filter { Self.string($0, "level") == "error" }
      let error = try #require(errors.first)
      #expect(Self.string(error, "code") == "malformed_input")
      #expect(Self.string(error, "file") == path)
      #expect(error["line"]?.doubleValue == 2)
      let column = try #require(error["column"]?.doubleValue)
      #expect(Self.string(error, "command") == command[0])
      // The same error as the text form, its location in fields of their own.
      let message = try #require(Self.string(error, "message"))
      #expect(
        text.stderr.contains("menudeck: error: \(path):2:\(Int(column)): \(message)\n"),
        "\(text.stderr)")
    }
  }

  @Test func aBadEventLineIsAnErrorWithItsField() throws {
    let dir = try TempDir("menudeck-diagnostics")
    let log = try dir.write(
      "today.jsonl",
      #"{"user":"u1","item":"gyudon","swipe":"right","at":"2026-11-29T12:00:00Z"}"# + "\n"
        + #"{"user":"u1","item":"gyudon","swipe":"up","at":"2026-11-29T12:00:00Z"}"# + "\n")
    let r = CLIRun(["deck", "--date", "2026-11-30", "--history", log, "--log-format", "json"])
    #expect(r.code == .dataError)
    let lines = try Self.objects(r.stderr)
    #expect(lines.count == 1)
    #expect(Self.string(lines[0], "code") == "malformed_input")
    #expect(Self.string(lines[0], "file") == log)
    #expect(lines[0]["line"]?.doubleValue == 2)
    #expect(lines[0]["column"]?.doubleValue == 39)
    #expect(Self.string(lines[0], "field") == "swipe")
    #expect(Self.string(lines[0], "message")?.hasPrefix("'up' is not right or left") == true)
  }

  @Test func aMissingFileNamesTheFileWithoutALine() throws {
    let r = CLIRun(["deck", "--catalog", "/nonexistent/catalog.json", "--log-format", "json"])
    let line = try #require(try Self.objects(r.stderr).first)
    #expect(Self.string(line, "code") == "missing_file")
    #expect(Self.string(line, "file") == "/nonexistent/catalog.json")
    #expect(line["line"]?.isNull == true)
    #expect(
      Self.string(line, "message") == "no such file (the catalog); check the path or the config")
  }

  @Test func usageErrorsAreJSONLinesToo() throws {
    // The text form is the error and the pointer to the help; the usage is only in --help.
    let text = CLIRun(["deck", "--dat", "2026-11-30"])
    #expect(
      text.stderr
        == "menudeck: error: unknown option '--dat' (did you mean '--date'?)\n"
        + CLITest.deckHelpNote)
    let json = CLIRun(["deck", "--dat", "2026-11-30", "--log-format", "json"])
    #expect(json.code == .usage)
    let lines = try Self.objects(json.stderr)
    #expect(lines.count == 2)
    #expect(Self.string(lines[0], "level") == "error")
    #expect(Self.string(lines[0], "code") == "usage")
    #expect(Self.string(lines[0], "message") == "unknown option '--dat' (did you mean '--date'?)")
    #expect(Self.string(lines[0], "command") == "deck")
    #expect(Self.string(lines[1], "level") == "note")
    #expect(Self.string(lines[1], "code") == "help")
    #expect(Self.string(lines[1], "message") == "see 'menudeck deck --help'")
    #expect(Self.string(lines[1], "command") == "deck")
    // A usage error the command finds, after parsing.
    let bad = CLIRun(["deck", "--date", "2026-13-01", "--log-format", "json"])
    #expect(bad.code == .usage)
    #expect(try Self.objects(bad.stderr).map { Self.string($0, "code") } == ["usage", "help"])
  }

  @Test func theEnvironmentAsksForJSONLines() throws {
    let r = CLIRun(
      ["deck", "--date", "2026-13-01"], terminal: false,
      environment: ["MENUDECK_LOG_FORMAT": "json"])
    #expect(try Self.objects(r.stderr).count == 2)
    let text = CLIRun(
      ["deck", "--date", "2026-13-01", "--log-format", "text"], terminal: false,
      environment: ["MENUDECK_LOG_FORMAT": "json"])
    #expect(text.stderr.hasPrefix("menudeck: error: invalid date '2026-13-01'"))
  }

  /// Every command, hidden ones too, takes the four options, before its own unknown option.
  @Test func everyCommandTakesTheFourOptions() throws {
    var paths: [[String]] = []
    func collect(_ command: CommandSpec, _ path: [String]) {
      if command.run != nil && command.subcommands.isEmpty { paths.append(path) }
      for sub in command.subcommands { collect(sub, path + [sub.name]) }
    }
    collect(menudeckCommand, [])
    #expect(paths.count >= 14)
    for path in paths {
      let json = CLIRun(
        path + ["--quiet", "--no-progress", "--log-format", "json", "--no-such-option"])
      #expect(json.code == .usage, "\(path)")
      let lines = try Self.objects(json.stderr)
      #expect(lines.count == 2, "\(path)")
      #expect(Self.string(lines[0], "message") == "unknown option '--no-such-option'", "\(path)")
      #expect(Self.string(lines[0], "command") == path.joined(separator: " "))
      let command = (["menudeck"] + path).joined(separator: " ")
      #expect(Self.string(lines[1], "message") == "see '\(command) --help'", "\(path)")
      let text = CLIRun(["-v"] + path + ["--log-format=text", "--no-such-option"])
      #expect(
        text.stderr
          == "menudeck: error: unknown option '--no-such-option'\n"
          + "menudeck: note: see '\(command) --help'\n",
        "\(path)")
      let help = CLIRun(path + ["--help"])
      for option in ["-q, --quiet", "-v, --verbose", "--log-format <format>", "--no-progress"] {
        #expect(help.stdout.contains(option), "\(path) --help: \(option)")
      }
    }
  }

  // MARK: - The progress line, in process

  @Test func progressIsDrawnOnATerminalOnly() throws {
    let dir = try TempDir("menudeck-diagnostics")
    func ingest(
      _ extra: [String] = [], terminal: Bool = true, _ environment: [String: String] = [:]
    )
      -> CLIRun
    {
      try? FileManager.default.removeItem(atPath: dir.file("h.snap"))
      return CLIRun(
        ["ingest", "Data/swipes.jsonl", "--out", dir.file("h.snap")] + extra, terminal: terminal,
        environment: Self.noProgress.merging(environment) { $1 })
    }
    let drawn = ingest()
    #expect(drawn.code == .success)
    #expect(drawn.stderr.hasPrefix("\rmenudeck: ingest  0.0/"), "\(drawn.stderr)")
    #expect(drawn.stderr.contains(" MiB  0%\u{1B}[K"))
    // Erased before the summary, which ends the output.
    let tail = drawn.stderr.components(separatedBy: "\r").last ?? ""
    #expect(tail.hasPrefix("\u{1B}[Kmenudeck: note: ingested 1 log (") && tail.hasSuffix("\n"))
    let plain = ingest(terminal: false)
    #expect(!plain.stderr.contains("\r") && plain.stderr.hasPrefix("menudeck: note: ingested"))
    for (extra, environment) in [
      (["--no-progress"], [:]), ([], ["NO_COLOR": "1"]), ([], ["TERM": "dumb"]),
      (["--log-format", "json"], [:]), (["-q"], [:]),
    ] as [([String], [String: String])] {
      let r = ingest(extra, environment)
      #expect(r.code == .success)
      #expect(!r.stderr.contains("\r") && !r.stderr.contains("\u{1B}"), "\(extra) \(environment)")
    }
  }

  @Test func everyLongStepHasItsLine() throws {
    func stderr(_ arguments: [String]) -> String {
      let r = CLIRun(arguments, terminal: true, environment: Self.noProgress)
      #expect(r.code == .success, "\(arguments): \(r.stderr)")
      return r.stderr
    }
    let deck = stderr(["deck", "--date", "2026-11-30", "--format", "jsonl"])
    #expect(deck.contains("\rmenudeck: read  0.0/"))
    #expect(deck.contains("\rmenudeck: deck  0/48 diners  0%"))
    let simulate = stderr([
      "simulate", "--users", "12", "--days", "3", "-s", "random", "-s", "popularity",
    ])
    #expect(simulate.contains("\rmenudeck: simulate  0/6 days  0%"))
    let compare = stderr([
      "compare", "-s", "random", "-s", "popularity", "--baseline", "random", "--users", "12",
      "--days", "2", "--resamples", "50", "--permutations", "50",
    ])
    #expect(compare.contains("\rmenudeck: simulate  0/4 days  0%"))
    #expect(compare.contains("\rmenudeck: resample  0/100 resamples  0%"))
    let onLogs = stderr([
      "compare", "-s", "random", "-s", "popularity", "--baseline", "random", "--split",
      "2026-11-24", "Data/swipes.jsonl", "--resamples", "20",
    ])
    #expect(onLogs.contains("\rmenudeck: read  0.0/"))
    #expect(onLogs.contains("\rmenudeck: rank  0/"))
    #expect(onLogs.contains("\rmenudeck: resample  0/"))
    // The line is erased at the end: after the last erase, only whole lines.
    for text in [deck, simulate, compare, onLogs] {
      let tail = text.components(separatedBy: "\r").last ?? ""
      #expect(tail.hasPrefix("\u{1B}[K"), "\(tail)")
      #expect(tail == "\u{1B}[K" || tail.hasSuffix("\n"), "\(tail)")
    }
  }
}

extension CLIPluginTests {
  @Test func pluginLogLinesAreDiagnostics() throws {
    let dir = try Self.fixture()
    let r = deck(dir, ["--strategy", "veg-first", "--format", "jsonl", "--log-format", "json"])
    #expect(r.code == .success, "\(r.stderr)")
    let lines = try CLIDiagnosticsTests.objects(r.stderr)
    let logs = lines.filter { CLIDiagnosticsTests.string($0, "code") == "plugin_log" }
    #expect(!logs.isEmpty)
    for line in logs {
      #expect(CLIDiagnosticsTests.string(line, "level") == "info")
      #expect(CLIDiagnosticsTests.string(line, "plugin") == "veg-first")
      #expect(CLIDiagnosticsTests.string(line, "command") == "deck")
    }
    // Relayed under --quiet too: they are the plugin's words.
    let quiet = deck(dir, ["--strategy", "veg-first", "--format", "jsonl", "-q"])
    #expect(!quiet.stderr.isEmpty)
    #expect(
      quiet.stderr.split(separator: "\n").allSatisfy {
        $0.hasPrefix("menudeck: plugin veg-first: ")
      })
  }
}
