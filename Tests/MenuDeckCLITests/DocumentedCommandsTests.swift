import DeckBase
import DeckCommandLine
import DeckJobs
import DeckSimulation
import Foundation
import Testing

@testable import MenuDeckCLI

/// Every shipped config validates, and every command that README.md and docs/ show runs (issue
/// 26), so that a new limit or option cannot break a shipped file or a page again.
///
/// The commands are those of the fenced blocks of README.md and every docs/**/*.md page
/// (generated command pages too) whose language is a shell's (```sh, ```bash, ```console ...),
/// and the `$ ` lines of any block. Each block runs in a fresh copy of the repository's
/// Config/, Data/ and docs/schemas/ (the "world"), with `HOME` in it, shell variables kept from
/// block to block of a page as a reader's shell keeps them. A command runs:
/// - in process through `run(_:_:)` when it is one plain `menudeck` call (`swift run menudeck`
///   and `.build/release/menudeck` are the same code);
/// - under a pseudo-terminal with the built binary when it is `menudeck play` (it quits with `q`);
/// - in bash, with the built binary first on `PATH`, when it needs a shell (a pipe, a
///   redirection, a loop, a pattern, a substitution) and runs only `shellPrograms`;
/// - not at all when `notRun` lists it, with the reason, printed.
/// Anything else fails the test: a new command on a page is run or listed, never passed over.
/// Paths outside the world are mapped into it (`mappings`), files a page takes for granted are
/// made when a command reads them (`fixtures`), and the external data sets are small stand-ins
/// in their formats (`RealDataStandIns`). The exit status must be 0 unless a comment on the
/// command says `# exits N`; output the page shows (the `$ ` lines' output, or a block without
/// a language right after a shell block) must start the command's output, line for line, up to
/// a `...` line.
@Suite struct DocumentedCommandsTests {
  // MARK: What the test reads

  /// README.md and every page under docs/.
  static let pages: [String] = {
    var pages = ["README.md"]
    let docs = CLITest.repoRoot + "/docs"
    if let names = FileManager.default.enumerator(atPath: docs) {
      for case let name as String in names where name.hasSuffix(".md") {
        pages.append("docs/" + name)
      }
    }
    return pages.sorted()
  }()

  /// Every config shipped in Config/.
  static let configs: [String] = {
    let root = CLITest.repoRoot + "/Config"
    var names: [String] = []
    if let found = FileManager.default.enumerator(atPath: root) {
      for case let name as String in found where name.hasSuffix(".json") { names.append(name) }
    }
    return names.sorted()
  }()

  static func page(_ path: String) throws -> String {
    try String(contentsOfFile: CLITest.repoRoot + "/" + path, encoding: .utf8)
  }

  // MARK: What is not run, and why

  struct NotRun: Sendable {
    /// A regular expression that the whole command, on one line, matches.
    var pattern: String
    var reason: String
    /// Run after all when this program is installed.
    var unlessInstalled: String? = nil
  }

  static let notRun: [NotRun] = [
    NotRun(
      pattern: #"swift build -c release && install \.build/release/menudeck /usr/local/bin/"#,
      reason:
        "builds the package (minutes of every core) and installs it for every user of the "
        + "machine; the cron recipe's other commands run the build that `swift test` made"),
    NotRun(
      pattern: #"crontab /srv/menudeck/Config/cron/crontab"#,
      reason:
        "replaces the crontab of the user running the tests; CLINightlyCronTests runs the "
        + "crontab's PATH and job line as cron would, night after night"),
    NotRun(pattern: #"swift test( .*)?"#, reason: "the test suite itself, this test included"),
    NotRun(
      pattern: #"swift build( -c release)?"#,
      reason:
        "builds the package (minutes of every core); the commands after it run the build that "
        + "`swift test` made"),
    NotRun(
      pattern: #"swift run -c release menudeck-bench( .*)?"#,
      reason: "the release benchmark, a minute of full load: never in the tests (CONTRIBUTING.md)"),
    NotRun(
      pattern: #"Scripts/spark-recipe\.py --install .*"#,
      reason:
        "--install puts pyspark from PyPI into a venv, and Spark needs java; CLISparkRecipeTests "
        + "runs the recipe when both are there"),
    NotRun(
      pattern: #"(BASELINES_DATA=\S+ )?Scripts/check-baselines\.py( .*)?"#,
      reason:
        "installs numpy, scipy, implicit, lenskit and torch from PyPI into a venv, needs the real "
        + "data sets, and takes minutes of CPU; CheckBaselinesScriptTests runs its --self-test"),
    NotRun(
      pattern: #"check-jsonschema .*"#,
      reason:
        "needs the Python tool check-jsonschema (pipx install check-jsonschema); "
        + "OutputSchemaTests checks the same outputs against the same schemas",
      unlessInstalled: "check-jsonschema"),
  ]

  /// Programs a documented shell command may start: menudeck, and tools that only read files or
  /// write in the current directory.
  static let shellPrograms: Set<String> = [
    "menudeck", "cat", "tail", "head", "split", "zcat", "gzip", "cut", "sort", "grep", "wc",
    "echo", "printf", "source", "true", "test", "diff", "cmp", "ls", "mkdir", "tr", "cp",
    "nightly.sh",
  ]

  /// The repository's own scripts, which a page may run from their copy in the world (the cron
  /// recipe's job, at its mapped place on the server).
  static let worldScripts: Set<String> = ["Config/cron/nightly.sh"]

  static func isWorldScript(_ program: String, in world: String) -> Bool {
    worldScripts.contains { program.hasPrefix(world + "/") && program.hasSuffix("/" + $0) }
  }

  // MARK: How a page's paths map into the world

  struct Mapping: Sendable {
    /// Only on this page.
    var page: String? = nil
    /// Only in commands that contain this text.
    var when: String? = nil
    /// A regular expression, and its replacement: `{world}` is the world's directory.
    var pattern: String
    var template: String
    var why: String
  }

  static let mappings: [Mapping] = [
    Mapping(
      pattern: #"(^|[\s;|&(])(swift run |\.build/release/|\.build/debug/)menudeck(?=[\s;|&)]|$)"#,
      template: "$1menudeck", why: "the package's menudeck, as built for the tests"),
    // First of the paths: the world itself is under /tmp.
    Mapping(
      pattern: #"(^|[\s="'])/tmp/"#, template: "$1{world}/tmp/", why: "the temporary directory"),
    Mapping(
      pattern: #"(^|[\s="'])/etc/menudeck/"#, template: "$1{world}/etc/menudeck/",
      why: "a cron host's config directory"),
    Mapping(
      pattern: #"(^|[\s="'])/srv/decks/"#, template: "$1{world}/srv/decks/",
      why: "a cron host's output directory"),
    Mapping(
      pattern: #"(^|[\s="'])/srv/menudeck(?=[/\s]|$)"#, template: "$1{world}/srv/menudeck",
      why: "the cron recipe's folder on the server (docs/cron.md)"),
    Mapping(
      pattern: #"\$\{fpath\[1\]\}"#, template: "{world}/zsh-functions",
      why: "zsh's first function directory (the block runs in bash)"),
    Mapping(
      pattern: #"(?<=--users[ =])([0-9]{4,}|[2-9][0-9][0-9]|1[0-9][1-9]|1[1-9][0-9])(?=\s|$)"#,
      template: "100",
      why:
        "at most 100 simulated diners: 500 or 1,000 take 10 to 25 s each in a debug build, and "
        + "100 run the same code"),
    // The import page's follow-up commands name the directories OUT (--out) and DIR (the data).
    Mapping(
      page: "docs/commands/import.md", when: "DIR/ratings.csv", pattern: #"(^|\s)OUT/"#,
      template: "$1Real/movielens/", why: "OUT, the --out of the MovieLens import"),
    Mapping(
      page: "docs/commands/import.md", when: "DIR/ratings.csv", pattern: #"(^|\s)DIR/"#,
      template: "$1~/data/ml-latest-small/", why: "DIR, the MovieLens data set"),
    Mapping(
      page: "docs/commands/import.md", when: "DIR/rating_final.csv", pattern: #"(^|\s)OUT/"#,
      template: "$1Real/uci/", why: "OUT, the --out of the UCI import"),
    Mapping(
      page: "docs/commands/import.md", when: "DIR/rating_final.csv", pattern: #"(^|\s)DIR/"#,
      template: "$1~/data/uci-restaurants/", why: "DIR, the UCI data set"),
  ]

  // MARK: Files a page takes for granted

  /// A file (or the files of a pattern) that a command reads and the world does not hold: the
  /// script (bash, in the world, with menudeck on PATH) makes it before the command runs.
  struct Fixture: Sendable {
    var path: String
    var script: String
  }

  static let fixtures: [Fixture] = [
    Fixture(path: "history.snap", script: "menudeck ingest Data/swipes.jsonl --out history.snap"),
    Fixture(path: "todays-diners.txt", script: #"printf 'u01\nu07\nu12\n' > todays-diners.txt"#),
    // A CSV log of the four columns the pages' --csv-header names, with its header.
    Fixture(
      path: "big.csv",
      script:
        #"awk -F, 'NR == 1 || $3 != "" { print $1 "," $2 "," $3 "," $4 }' Data/swipes.csv > big.csv"#
    ),
    Fixture(
      path: "part.csv",
      script:
        #"awk -F, 'NR == 1 || $3 != "" { print $1 "," $2 "," $3 "," $4 }' Data/swipes.csv > part.csv"#
    ),
    Fixture(path: "logs/big.csv", script: "mkdir -p logs && cp Data/swipes.csv logs/big.csv"),
    Fixture(
      path: "logs/2026-11-29.jsonl",
      script:
        #"mkdir -p logs && grep '"deck":"2026-11-29"' Data/swipes.jsonl > logs/2026-11-29.jsonl"#
    ),
    Fixture(
      path: "today.jsonl.gz",
      script: #"grep '"deck":"2026-11-29"' Data/swipes.jsonl | gzip -c > today.jsonl.gz"#),
    twoSnapshots("part"),
    twoSnapshots("shard"),
    // The cron recipe installed on its server (docs/cron.md's first block).
    Fixture(
      path: "srv/menudeck/Config/cron/nightly.sh",
      script: "mkdir -p srv/menudeck && cp -R Config Data srv/menudeck/"),
    // The bundled config installed on a cron host, its paths made absolute.
    Fixture(
      path: "etc/menudeck/menudeck.json",
      script: #"""
        mkdir -p etc/menudeck
        sed -e "s#\"\.\./Data/#\"$PWD/Data/#" -e "s#\"plugins/#\"$PWD/Config/plugins/#" \
          Config/menudeck.json > etc/menudeck/menudeck.json
        """#),
    Fixture(path: "ratings.csv", script: "cp ~/data/ml-latest-small/ratings.csv ratings.csv"),
    Fixture(
      path: "tmp/menudeck-real/movielens/catalog.csv",
      script: "menudeck import movielens ~/data/ml-latest-small --out tmp/menudeck-real/movielens"),
    Fixture(
      path: "tmp/menudeck-real/uci/catalog.csv",
      script: "menudeck import uci ~/data/uci-restaurants --out tmp/menudeck-real/uci"),
    Fixture(
      path: "Real/movielens/catalog.csv",
      script: "menudeck import movielens ~/data/ml-latest-small --out Real/movielens"),
    Fixture(
      path: "Real/uci/catalog.csv",
      script: "menudeck import uci ~/data/uci-restaurants --out Real/uci"),
  ]

  /// `NAME-1.snap` and `NAME-2.snap`: the sample's log in two parts, one snapshot each.
  static func twoSnapshots(_ name: String) -> Fixture {
    Fixture(
      path: "\(name)-*.snap",
      script: """
        head -n 1700 Data/swipes.jsonl > a.jsonl && tail -n +1701 Data/swipes.jsonl > b.jsonl
        menudeck ingest a.jsonl --out \(name)-1.snap && menudeck ingest b.jsonl --out \(name)-2.snap
        rm a.jsonl b.jsonl
        """)
  }

  /// Options whose value is a file the command writes: never made by a fixture.
  static let outputOptions: Set<String> = [
    "--out", "--into", "--report", "--per-diner", "--events", "--log", "--rejects", "--trec",
  ]

  // MARK: The tests

  /// Every config in Config/ and its folders validates. A config that names no catalog (the real-data configs:
  /// their data is not shipped) validates with the stand-in data set, imported, as its catalog
  /// and its ratings as the history, read with the config's own column mapping; that mapping
  /// is the one `menudeck import` writes.
  @Test(arguments: configs)
  func everyShippedConfigValidates(_ name: String) throws {
    let dir = try TempDir("menudeck-configs")
    for folder in ["Config", "Data"] {
      try FileManager.default.copyItem(
        atPath: CLITest.repoRoot + "/" + folder, toPath: dir.file(folder))
    }
    try RealDataStandIns.write(into: dir.file("data"))
    let path = "Config/" + name
    let config: MenuDeckConfig
    do {
      config = try MenuDeckConfig.parse(try CLITest.repoFile(path), path: path)
    } catch {
      Issue.record("\(error)")
      return
    }
    var arguments = ["validate", "--config", path]
    if config.catalog == nil {
      let standIns: [String: (RealDataSet, String)] = [
        "movielens.json": (.movielens, RealDataStandIns.movieLens),
        "uci.json": (.uci, RealDataStandIns.uci),
      ]
      guard let (dataSet, folder) = standIns[name] else {
        Issue.record(
          Comment(
            rawValue:
              "\(path) names no catalog and the test has no stand-in data for it: add one to "
              + "DocumentedCommandsTests.everyShippedConfigValidates"))
        return
      }
      let imported = dir.run(["import", dataSet.rawValue, "data/" + folder, "--out", "imported"])
      try #require(imported.code == .success, "\(imported.stderr)")
      arguments += [
        "--catalog", "imported/catalog.csv", "--history", "data/\(folder)/\(dataSet.ratingsFile)",
      ]
      let columns = config.columns
      let imports = dataSet.mapping
      #expect(
        columns?.columns == imports.columns && columns?.right == imports.right
          && columns?.left == imports.left,
        "\(path)'s columns are not those 'menudeck import \(dataSet.rawValue)' writes")
    }
    // A snapshot the config names that its nightly job keeps (Config/cron/) does not exist
    // before the first night: the first ingest makes it, from the sample's log.
    // (The parsed config's paths are resolved from its folder already.)
    for history in config.history where history.hasSuffix(".snap") {
      let snapshot = dir.file(history)
      guard !FileManager.default.fileExists(atPath: snapshot) else { continue }
      try FileManager.default.createDirectory(
        atPath: (snapshot as NSString).deletingLastPathComponent,
        withIntermediateDirectories: true)
      let ingest = dir.run(["ingest", "--config", path, "Data/swipes.jsonl"])
      try #require(ingest.code == .success, "the first night's ingest: \(ingest.stderr)")
    }
    let result = dir.run(arguments)
    #expect(
      result.code == .success,
      "menudeck \(arguments.joined(separator: " ")) exited \(result.code.rawValue):\n\(result.stderr)"
    )
    #expect(result.stdout.hasSuffix("\nvalid\n"), "\(result.stdout)")
  }

  /// Every command of the page runs (or is listed with the reason it does not) and does what
  /// the page says.
  @Test(arguments: pages)
  func everyCommandOnThePageRuns(_ page: String) throws {
    let blocks = Markdown.blocks(try Self.page(page), file: page)
    for (line, text) in Markdown.indentedLines(try Self.page(page))
    where Self.looksLikeCommand(text.trimmingCharacters(in: .whitespaces)) {
      Issue.record(
        Comment(
          rawValue: "\(page):\(line): `\(text)` looks like an indented command: put it in a "
            + "```sh block so that it runs"))
    }
    for block in blocks {
      for (line, text) in Self.unlabelledCommands(block) {
        Issue.record(
          Comment(
            rawValue:
              "\(page):\(line): `\(text)` looks like a command in a block without a language: "
              + "mark the block ```sh so that it runs, or ```text if it is not a command"))
      }
    }
    let commands = blocks.map(ShellBlocks.commands(in:))
    guard commands.contains(where: { !$0.isEmpty }) else { return }
    let session = try DocSession(page: page)
    var previous: (command: DocCommand, result: DocResult)? = nil
    for (block, blockCommands) in zip(blocks, commands) {
      if blockCommands.isEmpty {
        if block.followsPrevious, ["", "text", "output"].contains(block.language),
          let (command, result) = previous,
          let problem = Self.shownOutputProblem(block.lines, result)
        {
          Issue.record(
            Comment(
              rawValue:
                "\(page):\(block.line(0)): the output shown for `\(command.oneLine)` (line "
                + "\(command.line)) is not what it prints: \(problem)"))
        }
        previous = nil
        continue
      }
      try session.resetWorld()
      previous = nil
      for command in blockCommands {
        let result = session.run(command)
        for problem in session.takeProblems() { Issue.record(Comment(rawValue: problem)) }
        guard let result else { continue }
        previous = (command, result)
        if let problem = Self.shownOutputProblem(command.shownOutput, result) {
          Issue.record(
            Comment(
              rawValue:
                "\(page):\(command.line): the output shown for `\(command.oneLine)` is not what it "
                + "prints: \(problem)"))
        }
      }
    }
    print(session.summary)
  }

  /// Each entry of `notRun` still matches a command on some page: the list says why a shown
  /// command does not run, never about a command that is gone.
  @Test func everyCommandNotRunIsStillShown() throws {
    var shown: [String] = []
    for page in Self.pages {
      for block in Markdown.blocks(try Self.page(page), file: page) {
        shown += ShellBlocks.commands(in: block).map(\.oneLine)
      }
    }
    #expect(shown.count > 30, "only \(shown.count) commands found on the pages")
    for entry in Self.notRun {
      #expect(
        shown.contains { Self.matches(entry.pattern, $0) },
        "no page shows a command that '\(entry.pattern)' matches: remove it from notRun")
    }
  }

  // MARK: Parts

  static func matches(_ pattern: String, _ text: String) -> Bool {
    guard let regex = try? NSRegularExpression(pattern: "^(?:" + pattern + ")$") else {
      return false
    }
    let range = NSRange(text.startIndex..., in: text)
    return regex.firstMatch(in: text, range: range) != nil
  }

  /// Lines of a block without a language that look like a command and are not a usage line
  /// (`menudeck deck [--config <file>] ...`).
  static func unlabelledCommands(_ block: MarkdownBlock) -> [(Int, String)] {
    guard block.language.isEmpty, !block.lines.contains(where: { $0.hasPrefix("$ ") }) else {
      return []
    }
    return block.lines.enumerated().filter { looksLikeCommand($0.element) }.map {
      (block.line($0.offset), $0.element)
    }
  }

  /// `line` starts a menudeck, swift or Scripts/ command and is not a usage line (no `[` or
  /// `<`).
  static func looksLikeCommand(_ line: String) -> Bool {
    let words = line.split(whereSeparator: \.isWhitespace).map(String.init)
    guard let first = words.first, !line.contains("["), !line.contains("<") else { return false }
    let second = words.count > 1 ? words[1] : ""
    switch first {
    case "menudeck", ".build/release/menudeck", ".build/debug/menudeck":
      let subcommands = Set(menudeckCommand.subcommands.map(\.name))
      return words.count == 1 || subcommands.contains(second) || second.hasPrefix("--")
    case "swift": return ["run", "build", "test"].contains(second)
    default:
      return first.hasPrefix("Scripts/") && (first.hasSuffix(".py") || first.hasSuffix(".sh"))
    }
  }

  /// Why `result` does not start with the `shown` lines (trailing blanks aside, up to a `...`
  /// line), or nil. Shown lines that start with `menudeck: ` are standard error's.
  static func shownOutputProblem(_ shown: [String], _ result: DocResult) -> String? {
    var expected: [String] = []
    for line in shown {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed == "..." || trimmed == "…" { break }
      expected.append(String(line.reversed().drop(while: \.isWhitespace).reversed()))
    }
    while expected.last?.isEmpty == true { expected.removeLast() }
    guard let first = expected.first else { return nil }
    let stream = first.hasPrefix("menudeck: ") ? result.stderr : result.stdout
    let actual = stream.split(separator: "\n", omittingEmptySubsequences: false).map {
      String($0.reversed().drop(while: \.isWhitespace).reversed())
    }
    for (i, line) in expected.enumerated() {
      let got = i < actual.count ? actual[i] : "(end of output)"
      if got != line { return "its line \(i + 1) is\n  \(got)\nnot\n  \(line)" }
    }
    return nil
  }
}

/// What a command did.
struct DocResult {
  var status: Int32
  var stdout: String
  var stderr: String
  /// What ran, after the mappings and the shell words: for messages.
  var ranAs = ""
}

/// The commands of one page, run one block at a time in a fresh world.
final class DocSession {
  typealias T = DocumentedCommandsTests

  let page: String
  let dir: TempDir
  let world: String
  let bin: String
  /// The shell variables the page's commands have set, and HOME.
  var variables: [String: String]
  private var ran: [String: Int] = [:]
  private var notRun: [String] = []
  private var problems: [String] = []

  init(page: String) throws {
    self.page = page
    dir = try TempDir("menudeck-docs")
    world = dir.file("world")
    bin = dir.file("bin")
    variables = ["HOME": world + "/home"]
    try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
    if let binary = MenudeckBinary.path {
      try FileManager.default.createSymbolicLink(
        atPath: bin + "/menudeck", withDestinationPath: binary)
    }
  }

  /// A fresh copy of Config/, Data/ and docs/schemas/, the stand-in data sets in ~/data, and
  /// the directories a host has (~/.config/fish/completions, zsh's function directory,
  /// /srv/decks, /tmp).
  func resetWorld() throws {
    let files = FileManager.default
    if files.fileExists(atPath: world) { try files.removeItem(atPath: world) }
    for folder in ["docs", "home/.config/fish/completions", "zsh-functions", "srv/decks", "tmp"] {
      try files.createDirectory(atPath: world + "/" + folder, withIntermediateDirectories: true)
    }
    for folder in ["Config", "Data", "docs/schemas"] {
      try files.copyItem(atPath: CLITest.repoRoot + "/" + folder, toPath: world + "/" + folder)
    }
    try RealDataStandIns.write(into: world + "/home/data")
  }

  var summary: String {
    let total = ran.values.reduce(0, +)
    let ways = ran.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
    var text = "DocumentedCommandsTests: \(page): \(total) commands run"
    if !ways.isEmpty { text += " (" + ways.joined(separator: ", ") + ")" }
    text += ", \(notRun.count) not run"
    for line in notRun { text += "\n  not run: " + line }
    return text
  }

  /// What went wrong since the last call, each naming the page, line and command: the page
  /// test records them as issues.
  func takeProblems() -> [String] {
    defer { problems = [] }
    return problems
  }

  private func fail(_ command: DocCommand, _ message: String) {
    problems.append("\(page):\(command.line): `\(command.oneLine)` " + message)
  }

  /// Runs `command` and checks its exit status; nil when it is not run (listed, a variable
  /// assignment, or refused with an issue).
  func run(_ command: DocCommand) -> DocResult? {
    var allowed: String? = nil
    if let entry = T.notRun.first(where: { T.matches($0.pattern, command.oneLine) }) {
      if let program = entry.unlessInstalled, installed(program) {
        allowed = program
      } else {
        notRun.append("line \(command.line): \(command.oneLine): \(entry.reason)")
        return nil
      }
    }
    let script = mapped(command.script)
    let tokens = ShellWords.tokenize(script, variables: variables)
    let words = ShellWords.allWords(tokens, variables: variables)

    let assignments = tokens.allSatisfy {
      if case .word(let word) = $0 { return word.isAssignment && !word.complex }
      return false
    }
    if assignments {
      for case .word(let word) in tokens {
        let field = word.fields.first ?? word.raw
        guard let equals = field.firstIndex(of: "=") else { continue }
        variables[String(field[..<equals])] = String(field[field.index(after: equals)...])
      }
      return nil
    }
    for word in words {
      for field in word.fields {
        for path in absolutePaths(field) where !insideTheTest(path) {
          fail(
            command,
            "uses '\(path)', outside the test's directory: map it into the world "
              + "(DocumentedCommandsTests.mappings)")
          return nil
        }
      }
    }

    let plain = tokens.allSatisfy {
      if case .word(let word) = $0 { return !word.complex && !word.glob && !word.isAssignment }
      return false
    }
    let arguments = words.flatMap(\.fields)
    let result: DocResult?
    if plain && arguments.first == "menudeck" {
      if let name = words.flatMap(\.unset).first {
        fail(command, "uses $\(name), which the page does not set before it")
        return nil
      }
      makeFixtures(tokens)
      let rest = Array(arguments.dropFirst())
      if rest.first == "play" {
        result = play(rest, command)
        count("under a terminal")
      } else {
        let run = CLIRun(rest, in: world)
        result = DocResult(
          status: run.code.rawValue, stdout: run.stdout, stderr: run.stderr,
          ranAs: (["menudeck"] + rest).map(Self.quoted).joined(separator: " "))
        count("in process")
      }
    } else {
      let refused = ShellWords.programs(tokens).filter {
        !T.shellPrograms.contains($0) && $0 != allowed && !T.isWorldScript($0, in: world)
      }
      if !refused.isEmpty {
        fail(
          command,
          "is neither run nor listed: the test does not start "
            + refused.map { "'\($0)'" }.joined(separator: ", ")
            + ". List the command in DocumentedCommandsTests.notRun with the reason it cannot run "
            + "in a test, or add the program to shellPrograms if a test may run it")
        return nil
      }
      makeFixtures(tokens)
      result = shell(script, command)
      count("through bash")
    }
    guard var result else { return nil }
    if result.ranAs.isEmpty { result.ranAs = script }
    if result.status != command.expectedStatus {
      let output = result.stderr.isEmpty ? result.stdout : result.stderr
      fail(
        command,
        "exited \(result.status), not \(command.expectedStatus) (run as: \(result.ranAs)); "
          + "its output:\n"
          + output.split(separator: "\n", omittingEmptySubsequences: false).suffix(30)
          .joined(separator: "\n")
          + (result.status == 66
            ? "\n(a file that the page takes for granted is made by one of "
              + "DocumentedCommandsTests.fixtures)" : ""))
    }
    return result
  }

  private func count(_ way: String) { ran[way, default: 0] += 1 }

  /// `word` as typed in a shell: single-quoted when it holds anything but plain characters.
  static func quoted(_ word: String) -> String {
    let plain =
      !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "/._-+=,:@%".contains($0) }
    return plain ? word : "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
  }

  /// The script with the mappings that apply on this page.
  func mapped(_ script: String) -> String {
    var text = script
    for mapping in T.mappings {
      if let only = mapping.page, only != page { continue }
      if let needle = mapping.when, !text.contains(needle) { continue }
      guard
        let regex = try? NSRegularExpression(pattern: mapping.pattern, options: .anchorsMatchLines)
      else {
        Issue.record("bad mapping pattern \(mapping.pattern)")
        continue
      }
      let template = mapping.template.replacingOccurrences(
        of: "{world}", with: NSRegularExpression.escapedTemplate(for: world))
      text = regex.stringByReplacingMatches(
        in: text, range: NSRange(text.startIndex..., in: text), withTemplate: template)
    }
    return text
  }

  private func absolutePaths(_ field: String) -> [String] {
    if field.hasPrefix("/") { return [field] }
    if let equals = field.firstIndex(of: "="), field[field.index(after: equals)...].hasPrefix("/") {
      return [String(field[field.index(after: equals)...])]
    }
    return []
  }

  private func insideTheTest(_ path: String) -> Bool {
    path.hasPrefix(dir.path + "/") || ["/dev/null", "/dev/stdin", "/dev/stdout"].contains(path)
  }

  private func installed(_ program: String) -> Bool {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").contains {
      FileManager.default.isExecutableFile(atPath: "\($0)/\(program)")
    }
  }

  /// Makes the fixtures of the files `tokens` read (not those they write) that are missing.
  private func makeFixtures(_ tokens: [ShellToken]) {
    var output = false
    for token in tokens {
      switch token {
      case .op(let op):
        output = ShellWords.redirections.contains(op) && op != "<"
      case .word(let word):
        if output {
          output = false
          continue
        }
        if T.outputOptions.contains(word.raw) {
          output = true
          continue
        }
        for field in word.fields {
          var value = field
          if field.hasPrefix("--"), let equals = field.firstIndex(of: "=") {
            if T.outputOptions.contains(String(field[..<equals])) { continue }
            value = String(field[field.index(after: equals)...])
          }
          if value.hasPrefix(world + "/") { value.removeFirst(world.count + 1) }
          guard let fixture = T.fixtures.first(where: { $0.path == value }), !exists(fixture.path)
          else { continue }
          let made = shell(fixture.script, nil)
          if made?.status != 0 {
            problems.append(
              "\(page): the fixture \(fixture.path) failed: \(made?.stderr ?? "bash did not run")")
          }
        }
      }
    }
  }

  private func exists(_ path: String) -> Bool {
    guard path.contains("*") else {
      return FileManager.default.fileExists(atPath: world + "/" + path)
    }
    let slash = path.lastIndex(of: "/")
    let folder = slash.map { world + "/" + path[..<$0] } ?? world
    let pattern = slash.map { String(path[path.index(after: $0)...]) } ?? path
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return names.contains { fnmatch(pattern, $0, 0) == 0 }
  }

  /// `script` in bash (`set -e -o pipefail`) in the world, with the built menudeck first on
  /// PATH, HOME in the world and the page's variables exported. Standard input is empty.
  func shell(_ script: String, _ command: DocCommand?) -> DocResult? {
    guard FileManager.default.fileExists(atPath: bin + "/menudeck") else {
      if let command {
        fail(
          command, "needs the menudeck binary (a pipe, a redirection or a shell): run swift build")
      }
      return nil
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", "set -e -o pipefail\n" + script]
    process.currentDirectoryURL = URL(fileURLWithPath: world)
    var environment = ProcessInfo.processInfo.environment
    environment["MENUDECK_LOG_FORMAT"] = nil
    environment["NO_COLOR"] = "1"
    for (name, value) in variables { environment[name] = value }
    environment["PATH"] = bin + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
    process.environment = environment
    let out = dir.file("shell.stdout")
    let err = dir.file("shell.stderr")
    do {
      for file in [out, err] { _ = FileManager.default.createFile(atPath: file, contents: nil) }
      process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
      process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
      process.standardInput = FileHandle.nullDevice
      let done = DispatchSemaphore(value: 0)
      process.terminationHandler = { _ in done.signal() }
      try process.run()
      if done.wait(timeout: .now() + 600) == .timedOut {
        process.terminate()
        process.waitUntilExit()
        if let command { fail(command, "did not end within 10 minutes; stopped") }
        return nil
      }
      return DocResult(
        status: process.terminationStatus, stdout: try dir.read("shell.stdout"),
        stderr: try dir.read("shell.stderr"))
    } catch {
      if let command { fail(command, "could not run in bash: \(error)") }
      return nil
    }
  }

  /// `menudeck play ...` under a pseudo-terminal: waits for the first screen, quits with `q`.
  /// Its output is the screen's bytes.
  func play(_ arguments: [String], _ command: DocCommand) -> DocResult? {
    guard MenudeckBinary.path != nil else {
      fail(command, "needs the menudeck binary (play needs a terminal): run swift build")
      return nil
    }
    do {
      let pty = try PseudoTerminal()
      let stderr = dir.url("play.stderr")
      let process = try pty.start(
        arguments, stderr: stderr, environment: ["HOME": variables["HOME"] ?? world],
        directory: world)
      let shown = pty.wait(for: "q quit", seconds: 120)
      pty.send("q")
      if !pty.drain(until: process, seconds: 120) {
        process.terminate()
      }
      process.waitUntilExit()
      let errors = try dir.read("play.stderr")
      if !shown {
        fail(
          command, "showed no deck screen; the terminal got:\n\(pty.text.suffix(400))\n\(errors)")
        return nil
      }
      return DocResult(status: process.terminationStatus, stdout: pty.text, stderr: errors)
    } catch {
      fail(command, "could not run under a pseudo-terminal: \(error)")
      return nil
    }
  }
}
