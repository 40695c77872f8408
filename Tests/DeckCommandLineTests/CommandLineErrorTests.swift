import Testing

@testable import DeckCommandLine

@Suite struct CommandLineErrorTests {
  typealias Sample = CommandLineSample

  /// Expects a usage error: exit 64, nothing on standard output, and standard error exactly
  /// "menudeck: error: <message>" and the note pointing at the help of `command`; no usage
  /// block (that is in `--help`).
  func expectUsageError(
    _ arguments: [String], _ message: String, command: String = "menudeck deck",
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let outcome = Sample.run(arguments)
    #expect(outcome.code == .usage, sourceLocation: sourceLocation)
    #expect(outcome.code.rawValue == 64, sourceLocation: sourceLocation)
    #expect(outcome.stdout == "", sourceLocation: sourceLocation)
    #expect(
      outcome.stderr
        == "menudeck: error: \(message)\nmenudeck: note: see '\(command) --help'\n",
      sourceLocation: sourceLocation)
    #expect(!outcome.stderr.contains("USAGE"), sourceLocation: sourceLocation)
  }

  @Test func unknownOptionSuggestsTheClosestOne() {
    expectUsageError(
      ["--strategi", "affinity"], "unknown option '--strategi' (did you mean '--strategy'?)")
    expectUsageError(
      ["deck", "--dat=2026-11-30"], "unknown option '--dat' (did you mean '--date'?)")
    expectUsageError(["--Verbose"], "unknown option '--Verbose' (did you mean '--verbose'?)")
    expectUsageError(["--quite"], "unknown option '--quite' (did you mean '--quiet'?)")
  }

  @Test func unknownOptionWithNothingClose() {
    expectUsageError(["--zzzzzz"], "unknown option '--zzzzzz'")
    expectUsageError(["-x"], "unknown option '-x'")
    expectUsageError(["-vx"], "unknown option '-x' in '-vx'")
  }

  @Test func hiddenOptionsAreNotSuggested() {
    expectUsageError(["--debug-dum"], "unknown option '--debug-dum'")
  }

  @Test func singleDashLongNameSuggestsTheDoubleDash() {
    expectUsageError(["-verbose"], "unknown option '-verbose' (did you mean '--verbose'?)")
  }

  @Test func missingValue() {
    expectUsageError(["--date"], "missing value for '--date'; give it as '--date <date>'")
    expectUsageError(
      ["--date", "--user", "u1"], "missing value for '--date'; give it as '--date <date>'")
    expectUsageError(["-o"], "missing value for '-o'; give it as '-o <file>'")
    expectUsageError(["deck", "-vo"], "missing value for '-o'; give it as '-o <file>'")
    expectUsageError(
      ["--user", "--", "u1"], "missing value for '--user'; give it as '--user <id>'")
  }

  @Test func aValuedShortOptionMustEndItsBundle() {
    expectUsageError(
      ["-ov", "x.json"], "option '-o' takes a value, so it must come last in '-ov'")
  }

  @Test func aNonRepeatableOptionGivenTwice() {
    expectUsageError(
      ["--date", "2026-11-30", "--date=2026-12-01"],
      "option '--date' given twice ('2026-11-30' and '2026-12-01'); give it once")
    expectUsageError(
      ["-o", "a", "--out", "a"], "option '--out' given twice ('a' and 'a'); give it once")
  }

  @Test func aFlagTakesNoValue() {
    expectUsageError(["--verbose=yes"], "flag '--verbose' takes no value; remove '=yes'")
  }

  @Test func valuesOutsideTheChoices() {
    expectUsageError(
      ["--format", "jsn"],
      "invalid value 'jsn' for '--format' (did you mean 'json'?); "
        + "expected one of: json, jsonl, csv, table")
    expectUsageError(
      ["-f", "xml"], "invalid value 'xml' for '--format'; expected one of: json, jsonl, csv, table")
    expectUsageError(
      ["--format=JSON"],
      "invalid value 'JSON' for '--format' (did you mean 'json'?); "
        + "expected one of: json, jsonl, csv, table")
  }

  @Test func unknownSubcommandSuggestsTheClosestOne() {
    expectUsageError(
      ["valdate"], "unknown subcommand 'valdate' (did you mean 'validate'?)", command: "menudeck")
    expectUsageError(
      ["-q", "dek"], "unknown subcommand 'dek' (did you mean 'deck'?)", command: "menudeck")
    expectUsageError(
      ["lab", "simulat"], "unknown subcommand 'simulat' (did you mean 'simulate'?)",
      command: "menudeck lab")
    expectUsageError(
      ["nonsense"], "unknown subcommand 'nonsense'", command: "menudeck")
    expectUsageError(
      ["secre"], "unknown subcommand 'secre'", command: "menudeck")
  }

  @Test func unknownSubcommandInHelp() {
    expectUsageError(
      ["help", "dek"], "unknown subcommand 'dek' (did you mean 'deck'?)", command: "menudeck")
    expectUsageError(
      ["help", "lab", "comapre"], "unknown subcommand 'comapre' (did you mean 'compare'?)",
      command: "menudeck lab")
  }

  @Test func missingSubcommandOfAGroup() {
    expectUsageError(
      ["lab"], "missing subcommand; name one of: simulate, compare", command: "menudeck lab")
    expectUsageError(
      ["lab", "--days", "3"], "unknown option '--days'", command: "menudeck lab")
  }

  @Test func unexpectedAndMissingPositionals() {
    expectUsageError(["deck", "extra"], "unexpected argument 'extra'")
    expectUsageError(["--date", "2026-11-30", "extra"], "unexpected argument 'extra'")
    expectUsageError(["deck", "--", "--date"], "unexpected argument '--date'")
    expectUsageError(["deck", "-"], "unexpected argument '-'")
    expectUsageError(
      ["lab", "compare", "a"], "missing argument '<candidate>'", command: "menudeck lab compare")
    expectUsageError(
      ["lab", "compare", "a", "b", "c"], "unexpected argument 'c'", command: "menudeck lab compare")
  }

  // MARK: Errors thrown by run closures

  struct StaleCache: ExitCodeProviding, CustomStringConvertible {
    var exitCode: ExitCode { .dataError }
    var description: String { "cache.bin: written by another version; delete it and run again" }
  }

  struct Surprise: Error {}

  static let throwing = CommandSpec(
    name: "tool", abstract: "",
    options: [.option("kind", help: "")],
    run: { args, context in
      context.io.stdout.write("partial output\n")
      switch args.value("kind") {
      case "usage": throw UsageError("'--kind' needs a friend; add '--friend'")
      case "usageFailure":
        throw CommandFailure(.usage, "'--out -' and '--log -' both write to standard output")
      case "usageCode": throw ExitCode.usage
      case "noInput":
        throw CommandFailure(.noInput, "Data/missing.json: no such file; check --catalog")
      case "silent":
        context.io.stderr.write("3 checks failed\n")
        throw ExitCode.failure
      case "provider": throw StaleCache()
      case "surprise": throw Surprise()
      case "returned": return .ioError
      default: return .success
      }
    })

  @Test(arguments: [
    (
      "usage", 64,
      "tool: error: '--kind' needs a friend; add '--friend'\ntool: note: see 'tool --help'\n"
    ),
    // Any error whose code is usage points at the help, not only a UsageError; a bare code,
    // which prints no error, prints no pointer either.
    (
      "usageFailure", 64,
      "tool: error: '--out -' and '--log -' both write to standard output\n"
        + "tool: note: see 'tool --help'\n"
    ),
    ("usageCode", 64, ""),
    ("noInput", 66, "tool: error: Data/missing.json: no such file; check --catalog\n"),
    ("silent", 1, "3 checks failed\n"),
    (
      "provider", 65,
      "tool: error: cache.bin: written by another version; delete it and run again\n"
    ),
    (
      "surprise", 70,
      "tool: error: internal error: Surprise(); this is a bug in tool, please report it with the "
        + "command line that caused it\n"
    ),
    ("returned", 74, ""),
    ("fine", 0, ""),
  ])
  func errorsThrownByRunMapToExitCodes(kind: String, code: Int32, stderr: String) {
    let outcome = Sample.run(["--kind", kind], root: Self.throwing)
    #expect(outcome.code.rawValue == code)
    #expect(outcome.stderr == stderr)
    #expect(outcome.stdout == "partial output\n")
  }

  @Test func exitCodeValuesAreTheDocumentedOnes() {
    let codes: [ExitCode] = [
      .success, .failure, .usage, .dataError, .noInput, .software, .ioError,
    ]
    #expect(codes.map(\.rawValue) == [0, 1, 64, 65, 66, 70, 74])
    #expect(ExitCode.success.isSuccess)
    #expect(!ExitCode.failure.isSuccess)
    #expect(ExitCode(rawValue: 65) == .dataError)
    #expect(ExitCode.dataError.description == "65")
  }

  @Test func exitCodeForErrors() {
    #expect(ExitCode.for(UsageError("x")) == .usage)
    #expect(ExitCode.for(CommandFailure(.ioError, "x")) == .ioError)
    #expect(ExitCode.for(ExitCode.noInput) == .noInput)
    #expect(ExitCode.for(StaleCache()) == .dataError)
    #expect(ExitCode.for(Surprise()) == .software)
    #expect(ExitCode.message(for: ExitCode.failure, program: "p") == nil)
    #expect(
      ExitCode.message(for: CommandFailure(.ioError, "disk full"), program: "p") == "disk full")
  }

  // MARK: Definition problems

  @Test func definitionProblemsNameEveryMistake() {
    let broken = CommandSpec(
      name: "tool", abstract: "",
      options: [
        .option("out", short: "o", help: ""), .option("out", help: ""),
        .flag("open", short: "o", help: ""), .option("help", help: ""),
        .flag("fast", short: "h", help: ""), .option("--bad", help: ""),
        CommandOption("loud", kind: .flag, defaultValue: "1", help: ""),
        CommandOption("many", kind: .repeatable, defaultValue: "1", help: ""),
        .option("format", default: "xml", choices: ["json"], help: ""),
      ],
      subcommands: [
        CommandSpec(
          name: "run", abstract: "", options: [.option("out", help: "")],
          arguments: [
            CommandArgument("rest", help: "", isRepeating: true),
            CommandArgument("maybe", help: "", isOptional: true),
            CommandArgument("must", help: ""),
          ], version: "1"),
        CommandSpec(name: "run", abstract: "", run: { _, _ in .success }),
        CommandSpec(name: "help", abstract: "", run: { _, _ in .success }),
      ],
      defaultSubcommand: "go")
    #expect(
      broken.definitionProblems() == [
        "'tool': option '--out' is already declared by 'tool'",
        "'tool': short name '-o' is used by '--out' too",
        "'tool': option '--help' is built in",
        "'tool': short name '-h' is reserved",
        "'tool': option name '--bad' must be a bare word like 'date'",
        "'tool': flag '--loud' cannot have a default or choices",
        "'tool': repeatable option '--many' cannot have a default",
        "'tool': default 'xml' of '--format' is not one of its choices",
        "'tool': subcommand 'run' is declared twice",
        "'tool': subcommand name 'help' is built in",
        "'tool': default subcommand 'go' does not exist",
        "'tool run': option '--out' is already declared by 'tool'",
        "'tool run': only the last argument may repeat ('<rest>')",
        "'tool run': required argument '<must>' follows an optional one",
        "'tool run': a command without subcommands needs a run closure",
        "'tool run': only the root command has a version",
      ])
  }
}
