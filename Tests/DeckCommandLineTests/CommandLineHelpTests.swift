import Testing

@testable import DeckCommandLine

@Suite struct CommandLineHelpTests {
  typealias Sample = CommandLineSample

  /// Runs `arguments`, expects exit 0 with nothing on standard error, returns standard output.
  func help(_ arguments: [String]) -> String {
    let outcome = Sample.run(arguments)
    #expect(outcome.code == .success, "\(arguments)")
    #expect(outcome.stderr == "")
    return outcome.stdout
  }

  static let rootHelp = """
    OVERVIEW: Build swipe-card menu decks for every diner.

    Every day a cron job builds tomorrow's deck for every diner from the catalog,
    the diners and their swipe history. Swipe right means "I'll have this today",
    swipe left "not this one".

    Examples:
      menudeck --date 2026-11-30
      menudeck validate Data/events.jsonl

    USAGE: menudeck [--quiet] [<subcommand>]

    OPTIONS:
      -q, --quiet             Print no progress or warnings.
      --version               Show the version.
      -h, --help              Show help information.

    SUBCOMMANDS:
      deck (default)          Build every diner's deck for a date.
      validate                Check the config, catalog, users and event logs.
      lab                     Simulate diners and compare strategies.
      help                    Show subcommand help information.

      See 'menudeck help <subcommand>' for detailed help.

    """

  static let deckHelp = """
    OVERVIEW: Build every diner's deck for a date.

    USAGE: menudeck deck [--config <file>] [--date <date>] [--user <id> ...]
                         [--option <key=value> ...] [--strategy <name>]
                         [--format <format>] [--size <n>] [--out <file>]
                         [--progress-interval <seconds>] [--verbose]

    OPTIONS:
      --config <file>         Config file (default: Config/menudeck.json).
      --date <date>           Deck date, YYYY-MM-DD (default: today in the
                              configured time zone).
      --user <id>             Build only this diner's deck (repeatable).
      --option <key=value>    A strategy option (repeatable).
      --strategy <name>       Ranking strategy.
      -f, --format <format>   Output format (values: json, jsonl, csv, table;
                              default: json).
      --size <n>              Cards per deck (default: 10).
      -o, --out <file>        Write to this file, not standard output.
      --progress-interval <seconds>
                              Seconds between progress lines.
      -v, --verbose           Explain every choice.
      -q, --quiet             Print no progress or warnings.
      -h, --help              Show help information.

    """

  static let validateHelp = """
    OVERVIEW: Check the config, catalog, users and event logs.

    USAGE: menudeck validate [--config <file>] [<logs> ...]

    ARGUMENTS:
      <logs>                  Event logs to check; '-' reads standard input.

    OPTIONS:
      --config <file>         Config file.
      -q, --quiet             Print no progress or warnings.
      -h, --help              Show help information.

    """

  static let labHelp = """
    OVERVIEW: Simulate diners and compare strategies.

    USAGE: menudeck lab <subcommand>

    OPTIONS:
      -q, --quiet             Print no progress or warnings.
      -h, --help              Show help information.

    SUBCOMMANDS:
      simulate                Run simulated diners for some days.
      compare                 Compare two strategies on a log.
      help                    Show subcommand help information.

      See 'menudeck lab help <subcommand>' for detailed help.

    """

  static let compareHelp = """
    OVERVIEW: Compare two strategies on a log.

    USAGE: menudeck lab compare <baseline> <candidate>

    ARGUMENTS:
      <baseline>              The strategy to beat.
      <candidate>             The new strategy.

    OPTIONS:
      -q, --quiet             Print no progress or warnings.
      -h, --help              Show help information.

    """

  @Test(arguments: [
    ["--help"], ["-h"], ["help"], ["--help", "--date", "2026-11-30"], ["-q", "-h"],
  ])
  func rootHelp(arguments: [String]) {
    #expect(help(arguments) == Self.rootHelp)
  }

  @Test(arguments: [
    ["deck", "--help"], ["deck", "-h"], ["help", "deck"], ["-h", "deck"],
    ["deck", "--date", "2026-11-30", "--help"], ["--date", "2026-11-30", "-h"],
    ["deck", "--bogus", "--help"], ["deck", "-vh"],
  ])
  func deckHelp(arguments: [String]) {
    #expect(help(arguments) == Self.deckHelp)
  }

  @Test(arguments: [["validate", "--help"], ["help", "validate"], ["validate", "a.jsonl", "-h"]])
  func helpShowsArguments(arguments: [String]) {
    #expect(help(arguments) == Self.validateHelp)
  }

  @Test(arguments: [["lab", "--help"], ["lab", "-h"], ["help", "lab"], ["lab", "help"]])
  func groupHelpListsItsSubcommands(arguments: [String]) {
    #expect(help(arguments) == Self.labHelp)
  }

  @Test(arguments: [
    ["help", "lab", "compare"], ["lab", "help", "compare"], ["lab", "compare", "--help"],
    ["lab", "compare", "-h"], ["help", "lab", "compare", "--help"],
  ])
  func nestedHelp(arguments: [String]) {
    #expect(help(arguments) == Self.compareHelp)
  }

  @Test func helpAfterDoubleDashIsAnArgument() {
    #expect(help(["validate", "--", "--help"]) == "menudeck validate: -- --help\n")
  }

  @Test(arguments: [
    ["--version"], ["--date", "2026-11-30", "--version"], ["-q", "--version"],
    ["deck", "--version"],
  ])
  func version(arguments: [String]) {
    #expect(help(arguments) == "menudeck 1.4.0\n")
  }

  @Test func helpWinsOverVersion() {
    #expect(help(["--version", "--help"]) == Self.rootHelp)
  }

  @Test func hiddenCommandsAndOptionsAreLeftOutButStillWork() {
    #expect(!Self.rootHelp.contains("secret"))
    #expect(!Self.deckHelp.contains("debug-dump"))
    #expect(
      help(["--debug-dump"]) == "menudeck deck: \(Sample.deckDefaults) debug-dump\n")
  }

  @Test func usageOverrideReplacesTheGeneratedLine() {
    let root = CommandSpec(
      name: "tool", abstract: "Do a thing.", usage: "tool [options] <input>",
      arguments: [CommandArgument("input", help: "")], run: { _, _ in .success })
    let outcome = Sample.run(["--help"], root: root)
    #expect(
      outcome.stdout
        == """
        OVERVIEW: Do a thing.

        USAGE: tool [options] <input>

        ARGUMENTS:
          <input>

        OPTIONS:
          -h, --help              Show help information.

        """)
    #expect(
      Sample.run([], root: root).stderr
        == "tool: error: missing argument '<input>'\ntool: note: see 'tool --help'\n")
  }

  @Test func optionHelpNotes() {
    #expect(
      HelpFormatter.optionHelp(.option("a", default: "1", help: "Alpha.")) == "Alpha (default: 1).")
    #expect(
      HelpFormatter.optionHelp(.option("a", default: "1", help: "Alpha")) == "Alpha (default: 1)")
    #expect(HelpFormatter.optionHelp(.option("a", default: "1", help: "")) == "(default: 1)")
    #expect(HelpFormatter.optionHelp(.option("a", help: "Alpha.")) == "Alpha.")
    #expect(
      HelpFormatter.optionHelp(.repeatable("a", choices: ["x", "y"], help: "Alpha."))
        == "Alpha (values: x, y; repeatable).")
  }

  /// An argument with a fixed set of values lists them in help, as an option's choices are.
  @Test func argumentHelpListsItsChoices() {
    let shell = CommandArgument("shell", help: "The shell.", choices: ["bash", "zsh"])
    #expect(HelpFormatter.argumentHelp(shell) == "The shell (values: bash, zsh).")
    #expect(HelpFormatter.argumentHelp(CommandArgument("file", help: "A file.")) == "A file.")
    let root = CommandSpec(
      name: "tool", abstract: "Do a thing.", arguments: [shell], run: { _, _ in .success })
    #expect(
      Sample.run(["--help"], root: root).stdout.contains(
        "  <shell>                 The shell (values: bash, zsh).\n"))
    var empty = shell
    empty.choices = []
    var flag = CommandOption.flag("fast", help: "Go.")
    flag.completions = ["x"]
    let bad = CommandSpec(
      name: "tool", abstract: "", options: [flag], arguments: [empty], run: { _, _ in .success })
    #expect(
      bad.definitionProblems() == [
        "'tool': flag '--fast' cannot have a default or choices",
        "'tool': argument '<shell>' has an empty list of choices",
      ])
  }

  @Test func rowsAlignAtColumn27AndMoveLongLabelsToTheirOwnLine() {
    // 22 characters of label leave the two spaces the column needs; 23 do not.
    let fits = String(repeating: "a", count: 22)
    let tooLong = String(repeating: "b", count: 23)
    #expect(HelpFormatter.row(fits, "Help.") == ["  " + fits + "  Help."])
    #expect(
      HelpFormatter.row(tooLong, "Help.")
        == ["  " + tooLong, String(repeating: " ", count: 26) + "Help."])
    #expect(HelpFormatter.row("x", "") == ["  x"])
  }

  @Test func wrapFillsLinesUpToTheWidthExactly() {
    #expect(HelpFormatter.wrap("aaaa bbbb cccc", width: 9) == ["aaaa bbbb", "cccc"])
    #expect(HelpFormatter.wrap("aaaa bbbb cccc", width: 8) == ["aaaa", "bbbb", "cccc"])
    #expect(
      HelpFormatter.wrap("averyveryverylongword b", width: 5) == ["averyveryverylongword", "b"])
    #expect(HelpFormatter.wrap("  spaced   out  ", width: 80) == ["spaced out"])
    #expect(HelpFormatter.wrap("", width: 80) == [])
  }

  @Test func discussionKeepsIndentedLinesAndBlankLines() {
    let text = """

      First paragraph
      continues here.

        keep   this   spacing   
      Second.

      """
    #expect(
      HelpFormatter.formatDiscussion(text)
        == "First paragraph continues here.\n\n  keep   this   spacing\nSecond.")
  }

  @Test func usageWrapsAtEightyColumnsAndAlignsContinuations() {
    let options = (1...6).map { CommandOption.option("option\($0)", valueName: "value", help: "") }
    let root = CommandSpec(name: "t", abstract: "", options: options, run: { _, _ in .success })
    let lines = HelpFormatter.usageLines([root])
    #expect(
      lines == [
        "USAGE: t [--option1 <value>] [--option2 <value>] [--option3 <value>]",
        "         [--option4 <value>] [--option5 <value>] [--option6 <value>]",
      ])
    #expect(lines.allSatisfy { $0.count <= 80 })
  }
}
