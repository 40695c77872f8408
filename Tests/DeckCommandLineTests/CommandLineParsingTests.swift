import Testing

@testable import DeckCommandLine

/// A command tree shaped like menudeck's, whose commands print what they parsed.
enum CommandLineSample {
  static let deckOptions: [CommandOption] = [
    .option("config", valueName: "file", default: "Config/menudeck.json", help: "Config file."),
    .option("date", help: "Deck date, YYYY-MM-DD (default: today in the configured time zone)."),
    .repeatable("user", valueName: "id", help: "Build only this diner's deck."),
    .repeatable("option", valueName: "key=value", help: "A strategy option."),
    .option("strategy", valueName: "name", help: "Ranking strategy."),
    .option(
      "format", short: "f", default: "json", choices: ["json", "jsonl", "csv", "table"],
      help: "Output format."),
    .option("size", valueName: "n", default: "10", help: "Cards per deck."),
    .option("out", short: "o", valueName: "file", help: "Write to this file, not standard output."),
    .option("progress-interval", valueName: "seconds", help: "Seconds between progress lines."),
    .flag("verbose", short: "v", help: "Explain every choice."),
    .flag("debug-dump", help: "Dump internals.", isHidden: true),
  ]

  static let root = CommandSpec(
    name: "menudeck",
    abstract: "Build swipe-card menu decks for every diner.",
    discussion: """
      Every day a cron job builds tomorrow's deck for every diner from the catalog, the diners and \
      their swipe history. Swipe right means "I'll have this today", swipe left "not this one".

      Examples:
        menudeck --date 2026-11-30
        menudeck validate Data/events.jsonl
      """,
    options: [.flag("quiet", short: "q", help: "Print no progress or warnings.")],
    subcommands: [
      CommandSpec(
        name: "deck", abstract: "Build every diner's deck for a date.", options: deckOptions,
        run: echo(deckOptions + [.flag("quiet", help: "")])),
      CommandSpec(
        name: "validate", abstract: "Check the config, catalog, users and event logs.",
        options: [.option("config", valueName: "file", help: "Config file.")],
        arguments: [
          CommandArgument(
            "logs", help: "Event logs to check; '-' reads standard input.", isOptional: true,
            isRepeating: true)
        ],
        run: { args, context in
          if args.arguments("logs") == ["-"] {
            let bytes = try context.io.stdin.readAll()
            context.io.stdout.write("stdin: \(bytes.count) bytes\n")
            return .success
          }
          return try echo([.option("config", help: ""), .flag("quiet", help: "")])(args, context)
        }),
      CommandSpec(
        name: "lab", abstract: "Simulate diners and compare strategies.",
        subcommands: [
          CommandSpec(
            name: "simulate", abstract: "Run simulated diners for some days.",
            options: [.option("days", valueName: "n", default: "14", help: "Days to simulate.")],
            run: echo([.option("days", help: "")])),
          CommandSpec(
            name: "compare", abstract: "Compare two strategies on a log.",
            arguments: [
              CommandArgument("baseline", help: "The strategy to beat."),
              CommandArgument("candidate", help: "The new strategy."),
            ],
            run: echo([])),
        ]),
      CommandSpec(
        name: "secret", abstract: "Not listed.", isHidden: true, run: echo([])),
    ],
    defaultSubcommand: "deck",
    version: "menudeck 1.4.0")

  /// A run closure printing "<command>: name=value ... -- positionals".
  static func echo(_ options: [CommandOption]) -> CommandSpec.Run {
    { args, context in
      var parts: [String] = []
      for option in options {
        switch option.kind {
        case .flag: if args.flag(option.name) { parts.append(option.name) }
        case .value:
          if let value = args.value(option.name) { parts.append("\(option.name)=\(value)") }
        case .repeatable:
          let values = args.values(option.name)
          if !values.isEmpty { parts.append("\(option.name)=[\(values.joined(separator: ","))]") }
        }
      }
      if !args.positionals.isEmpty {
        parts.append("-- " + args.positionals.joined(separator: " "))
      }
      context.io.stdout.write(context.commandName + ":" + parts.map { " " + $0 }.joined() + "\n")
      return .success
    }
  }

  struct Outcome {
    var code: ExitCode
    var stdout: String
    var stderr: String
  }

  static func run(_ arguments: [String], root: CommandSpec = root, stdin: String = "") -> Outcome {
    let (io, out, err) = CLIStreams.capturing(stdin: Array(stdin.utf8))
    let code = runCommand(root, arguments: arguments, io: io)
    return Outcome(code: code, stdout: out.text, stderr: err.text)
  }

  static let deckDefaults = "config=Config/menudeck.json format=json size=10"
}

@Suite struct CommandLineParsingTests {
  typealias Sample = CommandLineSample

  /// Runs `arguments`, expects success and no diagnostics, returns standard output.
  func output(_ arguments: [String]) -> String {
    let outcome = Sample.run(arguments)
    #expect(outcome.code == .success, "\(arguments): \(outcome.stderr)")
    #expect(outcome.stderr == "")
    return outcome.stdout
  }

  @Test func sampleTreeIsWellFormed() {
    #expect(Sample.root.definitionProblems() == [])
  }

  @Test func noArgumentsRunsTheDefaultSubcommandWithDefaults() {
    #expect(output([]) == "menudeck deck: \(Sample.deckDefaults)\n")
    #expect(output(["deck"]) == "menudeck deck: \(Sample.deckDefaults)\n")
  }

  @Test(arguments: [
    ["--date", "2026-11-30"],
    ["--date=2026-11-30"],
    ["deck", "--date", "2026-11-30"],
    ["deck", "--date=2026-11-30"],
  ])
  func valuedOptionForms(arguments: [String]) {
    #expect(
      output(arguments)
        == "menudeck deck: config=Config/menudeck.json date=2026-11-30 format=json size=10\n")
  }

  @Test(arguments: [
    ["-o", "decks.json"], ["--out", "decks.json"], ["--out=decks.json"],
  ])
  func shortAliasAndLongFormsAreTheSame(arguments: [String]) {
    #expect(output(arguments) == "menudeck deck: \(Sample.deckDefaults) out=decks.json\n")
  }

  @Test func shortFlagsBundleAndAValuedShortOptionMayEndTheBundle() {
    #expect(output(["-vq"]) == "menudeck deck: \(Sample.deckDefaults) verbose quiet\n")
    #expect(
      output(["-vo", "x.csv", "-f", "csv"])
        == "menudeck deck: config=Config/menudeck.json format=csv size=10 out=x.csv verbose\n")
  }

  @Test func flagsMayRepeat() {
    #expect(output(["-v", "--verbose"]) == "menudeck deck: \(Sample.deckDefaults) verbose\n")
  }

  @Test func repeatableOptionsKeepEveryValueInOrder() {
    #expect(
      output(["--user", "u2", "--user=u1", "--option", "prior=3", "--user", "u2"])
        == "menudeck deck: config=Config/menudeck.json user=[u2,u1,u2] option=[prior=3] "
        + "format=json size=10\n")
  }

  @Test func valuesMayLookLikeNegativeNumbersOrStdin() {
    #expect(
      output(["--size", "-5"]) == "menudeck deck: config=Config/menudeck.json format=json size=-5\n"
    )
    #expect(output(["--out", "-"]) == "menudeck deck: \(Sample.deckDefaults) out=-\n")
    #expect(
      output(["--strategy=--odd"])
        == "menudeck deck: config=Config/menudeck.json strategy=--odd format=json size=10\n")
    #expect(
      output(["--strategy="])
        == "menudeck deck: config=Config/menudeck.json strategy= format=json size=10\n")
  }

  /// A word of dashes and then a digit is a value (no option's name starts with a digit): the
  /// option judges it, instead of the parser saying no value was given. Other words that look
  /// like options are still not values.
  @Test func aDoubledSignIsAValueForTheOptionToJudge() {
    #expect(
      output(["--date", "--1"])
        == "menudeck deck: config=Config/menudeck.json date=--1 format=json size=10\n")
    #expect(
      output(["--size", "--5", "-v"])
        == "menudeck deck: config=Config/menudeck.json format=json size=--5 verbose\n")
    let optionLike = Sample.run(["--out", "--verbose"])
    #expect(optionLike.code == .usage)
    #expect(optionLike.stderr.hasPrefix("menudeck: error: missing value for '--out'"))
  }

  /// The command line as typed, for a message that shows the command to run instead: the
  /// values of an option or argument replaced (attached values keep their `--name=`), every
  /// other word as a shell reads it.
  @Test func theCommandLineAsTypedWithValuesReplaced() throws {
    let root = CommandSpec(
      name: "menudeck", abstract: "",
      subcommands: [
        CommandSpec(
          name: "deck", abstract: "",
          options: [
            .repeatable("history", help: ""), .option("date", help: ""),
            .option("out", short: "o", help: ""), .flag("verbose", short: "v", help: ""),
          ],
          arguments: [CommandArgument("log", help: "", isOptional: true, isRepeating: true)],
          run: { args, context in
            let history = args.shellCommand(replacingValuesOf: "history") {
              $0.hasSuffix(".gz") ? "-" : nil
            }
            let logs = args.shellCommand(replacingValuesOf: "log", with: { "<(zcat \($0))" })
            let added = args.shellCommand(
              replacingValuesOf: "nothing", with: { _ in nil }, appending: ["--history", "-"])
            context.io.stdout.write(history + "\n" + logs + "\n" + added + "\n")
            return .success
          })
      ])
    let outcome = Sample.run(
      [
        "deck", "-vo", "my decks.json", "--history", "a.gz", "--date", "2026-11-30",
        "--history=b.gz", "--history", "c.jsonl", "x.gz", "--", "-y.gz",
      ], root: root)
    #expect(outcome.code == .success, "\(outcome.stderr)")
    let typed = "menudeck deck -vo 'my decks.json' --history a.gz --date 2026-11-30"
    let lines: [String] = [
      "menudeck deck -vo 'my decks.json' --history - --date 2026-11-30 --history=- "
        + "--history c.jsonl x.gz -- -y.gz",
      typed + " --history=b.gz --history c.jsonl <(zcat x.gz) -- <(zcat -y.gz)",
      typed + " --history=b.gz --history c.jsonl x.gz -- -y.gz --history -",
    ]
    #expect(outcome.stdout == lines.joined(separator: "\n") + "\n")
  }

  @Test func doubleDashEndsOptions() {
    #expect(
      output(["validate", "a.jsonl", "--", "--config", "-v", "-"])
        == "menudeck validate: -- a.jsonl --config -v -\n")
    #expect(output(["validate", "--"]) == "menudeck validate:\n")
  }

  @Test func aLoneDashIsAPositionalValue() {
    let outcome = Sample.run(["validate", "-"], stdin: "line one\nline two\n")
    #expect(outcome.code == .success)
    #expect(outcome.stdout == "stdin: 18 bytes\n")
  }

  @Test func optionsAndArgumentsMayInterleave() {
    #expect(
      output(["validate", "a", "--config", "c.json", "b"])
        == "menudeck validate: config=c.json -- a b\n")
  }

  @Test func parentOptionsWorkBeforeAndAfterTheSubcommandName() {
    #expect(output(["-q", "validate", "a"]) == "menudeck validate: quiet -- a\n")
    #expect(output(["validate", "--quiet", "a"]) == "menudeck validate: quiet -- a\n")
    #expect(output(["--quiet", "deck"]) == "menudeck deck: \(Sample.deckDefaults) quiet\n")
  }

  @Test func rootOptionsItDoesNotKnowGoToTheDefaultSubcommand() {
    #expect(
      output(["-q", "--date", "2026-11-30", "-v"])
        == "menudeck deck: config=Config/menudeck.json date=2026-11-30 format=json size=10 "
        + "verbose quiet\n")
    #expect(
      output(["--date", "2026-11-30", "--quiet"])
        == "menudeck deck: config=Config/menudeck.json date=2026-11-30 format=json size=10 quiet\n")
  }

  @Test func nestedSubcommands() {
    #expect(output(["lab", "simulate"]) == "menudeck lab simulate: days=14\n")
    #expect(output(["-q", "lab", "simulate", "--days", "3"]) == "menudeck lab simulate: days=3\n")
    #expect(
      output(["lab", "compare", "popularity", "affinity"])
        == "menudeck lab compare: -- popularity affinity\n")
  }

  @Test func hiddenSubcommandsStillRun() {
    #expect(output(["secret"]) == "menudeck secret:\n")
  }

  @Test func givenAndDefaultValuesAreTellable() throws {
    let root = CommandSpec(
      name: "t", abstract: "",
      options: [
        .option("size", default: "10", help: ""), .option("seed", help: ""),
        .option("ratio", help: ""), .repeatable("option", help: ""), .flag("fast", help: ""),
      ],
      run: { args, context in
        let pairs = try args.keyValuePairs("option").map { "\($0.key)->\($0.value)" }
        context.io.stdout.write(
          "given=\(args.isGiven("size")) size=\(try args.int("size")!) "
            + "seed=\(try args.uint64("seed").map(String.init) ?? "nil") "
            + "ratio=\(try args.double("ratio").map { String($0) } ?? "nil") "
            + "pairs=\(pairs) fast=\(args.flag("fast")) fastGiven=\(args.isGiven("fast"))\n")
        return .success
      })
    let plain = Sample.run([], root: root)
    #expect(
      plain.stdout
        == "given=false size=10 seed=nil ratio=nil pairs=[] fast=false fastGiven=false\n")
    let full = Sample.run(
      [
        "--size", "10", "--seed", "18446744073709551615", "--ratio", "0.25", "--option", "a=b=c",
        "--option", "k=", "--fast",
      ], root: root)
    #expect(
      full.stdout
        == "given=true size=10 seed=18446744073709551615 ratio=0.25 "
        + "pairs=[\"a->b=c\", \"k->\"] fast=true fastGiven=true\n")
  }

  @Test(arguments: [
    (["--size", "ten"], "invalid value 'ten' for '--size'; expected a whole number like 10"),
    (["--size", "1.5"], "invalid value '1.5' for '--size'; expected a whole number like 10"),
    (
      ["--seed", "18446744073709551616"],
      "invalid value '18446744073709551616' for '--seed'; expected a whole number from 0 to "
        + "18446744073709551615"
    ),
    (
      ["--seed", "-1"],
      "invalid value '-1' for '--seed'; expected a whole number from 0 to 18446744073709551615"
    ),
    (["--ratio", "inf"], "invalid value 'inf' for '--ratio'; expected a number like 0.5"),
    (["--option", "=v"], "invalid value '=v' for '--option'; expected key=value"),
    (["--option", "novalue"], "invalid value 'novalue' for '--option'; expected key=value"),
  ])
  func typedAccessorsRejectBadValuesAsUsageErrors(arguments: [String], message: String) {
    let root = CommandSpec(
      name: "t", abstract: "",
      options: [
        .option("size", help: ""), .option("seed", help: ""), .option("ratio", help: ""),
        .repeatable("option", help: ""),
      ],
      run: { args, _ in
        _ = try args.int("size")
        _ = try args.uint64("seed")
        _ = try args.double("ratio")
        _ = try args.keyValuePairs("option")
        return .success
      })
    let outcome = Sample.run(arguments, root: root)
    #expect(outcome.code == .usage)
    #expect(outcome.stdout == "")
    #expect(
      outcome.stderr
        == "t: error: \(message)\nt: note: see 't --help'\n")
  }

  @Test func positionalArgumentsByName() {
    let root = CommandSpec(
      name: "t", abstract: "",
      arguments: [
        CommandArgument("first", help: ""), CommandArgument("second", help: "", isOptional: true),
        CommandArgument("rest", help: "", isOptional: true, isRepeating: true),
      ],
      run: { args, context in
        context.io.stdout.write(
          "\(args.argument("first") ?? "nil") \(args.argument("second") ?? "nil") "
            + "\(args.arguments("rest"))\n")
        return .success
      })
    #expect(Sample.run(["a"], root: root).stdout == "a nil []\n")
    #expect(Sample.run(["a", "b"], root: root).stdout == "a b []\n")
    #expect(Sample.run(["a", "b", "c", "d"], root: root).stdout == "a b [\"c\", \"d\"]\n")
    #expect(Sample.run([], root: root).stderr.hasPrefix("t: error: missing argument '<first>'\n"))
  }

  @Test func aRootWithoutSubcommandsIsACommandToo() {
    let root = CommandSpec(
      name: "tool", abstract: "", options: [.flag("x", short: "x", help: "")],
      run: CommandLineSample.echo([.flag("x", help: "")]))
    #expect(Sample.run(["-x"], root: root).stdout == "tool: x\n")
    #expect(
      Sample.run(["--version"], root: root).stderr.hasPrefix(
        "tool: error: unknown option '--version'\n"))
  }

  @Test func manyRunsInParallelDoNotShareState() async {
    await withTaskGroup(of: (Int, String).self) { group in
      for n in 0..<64 {
        group.addTask {
          (n, CommandLineSample.run(["--user", "u\(n)", "--size", "\(n)"]).stdout)
        }
      }
      for await (n, stdout) in group {
        #expect(
          stdout
            == "menudeck deck: config=Config/menudeck.json user=[u\(n)] format=json size=\(n)\n")
      }
    }
  }
}
