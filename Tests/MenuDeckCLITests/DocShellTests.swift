import Foundation
import Testing

@testable import MenuDeckCLI

/// The parts `DocumentedCommandsTests` stands on: how it finds commands on a page, splits them
/// into words, tells which programs they start, and maps paths; and that it refuses what it
/// must not run.
@Suite struct DocShellTests {
  static let page = """
    # Title

    ```sh
    menudeck deck --date 2026-11-30 \\
      --format table   # a comment
    # a comment line
    for p in part-*; do
      menudeck ingest --out "$p.snap" - < "$p"
    done
    menudeck validate --strict   # exits 1
    ```

    ```
    u01  2026-11-30
    ...
    ```

    Text.

    - A list item:

      ```console
      $ menudeck validate
      config   Config/menudeck.json        ok
      $ menudeck strategies
      ```

    ```
    menudeck deck [--config <file>]
    menudeck: error: shown, not run
    ```

        menudeck stats Data/swipes.jsonl

    """

  @Test func blocksHaveTheirLanguageLinesAndNeighbours() {
    let blocks = Markdown.blocks(Self.page, file: "p.md")
    #expect(blocks.map(\.language) == ["sh", "", "console", ""])
    #expect(blocks.map(\.fenceLine) == [3, 13, 22, 28])
    #expect(blocks.map(\.followsPrevious) == [false, true, false, true])
    #expect(blocks[1].lines == ["u01  2026-11-30", "..."])
    // The list item's indentation is not part of the block's lines.
    #expect(blocks[2].lines[0] == "$ menudeck validate")
    #expect(blocks[2].line(1) == 24)
    #expect(Markdown.indentedLines(Self.page).map(\.0) == [33])
  }

  @Test func commandsJoinContinuationsDropCommentsAndKeepLoopsWhole() {
    let blocks = Markdown.blocks(Self.page, file: "p.md")
    let commands = ShellBlocks.commands(in: blocks[0])
    #expect(commands.map(\.line) == [4, 7, 10])
    #expect(!commands[0].script.contains("\n") && !commands[0].script.contains("#"))
    #expect(commands[0].oneLine == "menudeck deck --date 2026-11-30 --format table")
    #expect(commands[0].comments == ["a comment"])
    #expect(
      commands[0].text == "menudeck deck --date 2026-11-30 \\\n  --format table   # a comment")
    #expect(commands[1].script.hasPrefix("for p in part-*; do\n"))
    #expect(commands[1].script.hasSuffix("\ndone"))
    #expect(commands.map(\.expectedStatus) == [0, 0, 1])
    #expect(ShellBlocks.commands(in: blocks[1]).isEmpty)
    #expect(ShellBlocks.commands(in: blocks[3]).isEmpty)
    let console = ShellBlocks.commands(in: blocks[2])
    #expect(console.map(\.oneLine) == ["menudeck validate", "menudeck strategies"])
    #expect(console[0].shownOutput == ["config   Config/menudeck.json        ok"])
    #expect(console[1].shownOutput.isEmpty)
  }

  @Test func wordsFollowTheShellsQuotingAndExpansion() {
    let variables = ["S": "-s random  -s popularity", "HOME": "/h", "D": "a b"]
    let tokens = ShellWords.tokenize(
      #"menudeck compare $S --right 'rating>=4' "$D/x" ~/data a\ b X=~/y "${fpath[1]}/f""#,
      variables: variables)
    let words = tokens.compactMap { token -> ShellWord? in
      if case .word(let word) = token { return word }
      return nil
    }
    #expect(
      words.flatMap(\.fields) == [
        "menudeck", "compare", "-s", "random", "-s", "popularity", "--right", "rating>=4",
        "a b/x", "/h/data", "a b", "X=/h/y", "/f",
      ])
    #expect(words.last?.complex == true)
    #expect(words.dropLast().allSatisfy { !$0.complex && !$0.glob })
    #expect(words[words.count - 2].isAssignment)
    let unset = ShellWords.tokenize("menudeck stats $LOGS", variables: [:])
    #expect(unset.last == .word(ShellWord(raw: "$LOGS", fields: [], unset: ["LOGS"])))
    #expect(
      ShellWords.tokenize("cat a.snap>b 2>&1|x", variables: [:]).map { token -> String in
        switch token {
        case .word(let word): return word.raw
        case .op(let op): return "op" + op
        }
      } == ["cat", "a.snap", "op>", "b", "2", "op>&", "1", "op|", "x"])
  }

  @Test func programsAreFoundInPipesLoopsAndSubstitutions() {
    func programs(_ script: String) -> [String] {
      ShellWords.programs(ShellWords.tokenize(script, variables: [:]))
    }
    #expect(
      programs("tail -n +2 big.csv | menudeck ingest --out - - > part.snap") == [
        "tail", "menudeck",
      ])
    #expect(programs("source <(menudeck completion bash)") == ["source", "menudeck"])
    #expect(
      programs(
        "for p in part-*; do\n  menudeck ingest --csv-header \"$(head -1 x)\" - < \"$p\"\ndone")
        == ["menudeck", "head"])
    #expect(programs("X=1 crontab -l && rm -rf `pwd`") == ["crontab", "rm", "pwd"])
    #expect(programs("if true; then echo; fi; case x in") == ["true", "echo", "case"])
    #expect(ShellWords.compoundDepthChange("for p in a; do") == 1)
    #expect(ShellWords.compoundDepthChange("echo done") == 0)
    #expect(ShellWords.compoundDepthChange("done") == -1)
  }

  @Test func pathsMapIntoTheWorldOnce() throws {
    let session = try DocSession(page: "README.md")
    let world = session.world
    #expect(
      session.mapped(
        ".build/release/menudeck deck --config /etc/menudeck/m.json --out /srv/decks/t.json")
        == "menudeck deck --config \(world)/etc/menudeck/m.json --out \(world)/srv/decks/t.json")
    #expect(session.mapped("swift run menudeck --out /tmp/x") == "menudeck --out \(world)/tmp/x")
    #expect(
      session.mapped("swift run -c release menudeck-bench") == "swift run -c release menudeck-bench"
    )
    #expect(session.mapped("x swift run menudeck-bench") == "x swift run menudeck-bench")
    #expect(
      session.mapped(
        "compare --users 1000 --days 14 --users 100 --users 101 --users Data/users.json")
        == "compare --users 100 --days 14 --users 100 --users 100 --users Data/users.json")
    #expect(
      session.mapped(#"> "${fpath[1]}/_menudeck""#) == #"> "\#(world)/zsh-functions/_menudeck""#)
    // The page's placeholders map on its own page only.
    let other = "menudeck validate --catalog OUT/catalog.csv --history DIR/ratings.csv"
    #expect(session.mapped(other) == other)
    let importPage = try DocSession(page: "docs/commands/import.md")
    #expect(
      importPage.mapped(other)
        == "menudeck validate --catalog Real/movielens/catalog.csv --history ~/data/ml-latest-small/ratings.csv"
    )
  }

  static func command(_ script: String, comments: [String] = []) -> DocCommand {
    DocCommand(file: "README.md", line: 1, text: script, script: script, comments: comments)
  }

  @Test func whatMustNotRunIsRefusedAndWhatIsListedIsNotRun() throws {
    let session = try DocSession(page: "README.md")
    try session.resetWorld()
    #expect(session.run(Self.command("crontab -l | grep menudeck")) == nil)
    #expect(
      session.takeProblems() == [
        "README.md:1: `crontab -l | grep menudeck` is neither run nor listed: the test does not "
          + "start 'crontab'. List the command in DocumentedCommandsTests.notRun with the reason "
          + "it cannot run in a test, or add the program to shellPrograms if a test may run it"
      ])
    #expect(session.run(Self.command("menudeck deck --out /var/decks.json")) == nil)
    #expect(
      session.takeProblems() == [
        "README.md:1: `menudeck deck --out /var/decks.json` uses '/var/decks.json', outside the "
          + "test's directory: map it into the world (DocumentedCommandsTests.mappings)"
      ])
    #expect(session.run(Self.command("menudeck stats $LOGS")) == nil)
    #expect(
      session.takeProblems() == [
        "README.md:1: `menudeck stats $LOGS` uses $LOGS, which the page does not set before it"
      ])
    let wrong = try #require(session.run(Self.command("menudeck deck --size 0")))
    #expect(wrong.status == 64)
    let problems = session.takeProblems()
    #expect(problems.count == 1)
    #expect(
      problems.first?.hasPrefix(
        "README.md:1: `menudeck deck --size 0` exited 64, not 0 (run as: menudeck deck --size 0); "
          + "its output:\nmenudeck: error: '--size': '0' is out of range: give a whole number from "
          + "1 to 10000 (cards)\nmenudeck: note: see 'menudeck deck --help'"
      )
        == true)
    #expect(session.run(Self.command("swift test")) == nil)
    #expect(session.run(Self.command("LOG=Data/swipes.jsonl")) == nil)
    #expect(session.variables["LOG"] == "Data/swipes.jsonl")
    let stats = try #require(
      session.run(Self.command("menudeck stats $LOG", comments: ["exits 0"])))
    #expect(stats.status == 0)
    #expect(stats.stdout.contains("(all)"))
    let refused = try #require(
      session.run(Self.command("menudeck deck --size 0", comments: ["exits 64"])))
    #expect(refused.status == 64)
    #expect(session.takeProblems().isEmpty)
    #expect(session.summary.contains("not run: line 1: swift test: the test suite itself"))
  }

  /// A command in a block without a language would not run: it is reported, usage lines,
  /// diagrams and messages are not.
  @Test func commandsInBlocksWithoutALanguageAreReported() {
    let block = MarkdownBlock(
      file: "p.md", fenceLine: 10, language: "",
      lines: [
        "menudeck deck [--config <file>]", "menudeck         -> MenuDeckCLI",
        "menudeck: error: x", "menudeck deck --date 2026-11-30", "swift run menudeck",
        "Scripts/fuzz.sh all 600", "menudeck-bench   -> DeckBase",
      ], followsPrevious: false)
    #expect(
      DocumentedCommandsTests.unlabelledCommands(block).map(\.0) == [14, 15, 16])
    var text = block
    text.language = "text"
    #expect(DocumentedCommandsTests.unlabelledCommands(text).isEmpty)
  }

  @Test func shownOutputMustStartTheOutput() {
    let result = DocResult(status: 0, stdout: "a  \nb\nc\n", stderr: "menudeck: note: done\n")
    #expect(DocumentedCommandsTests.shownOutputProblem(["a", "b", "  ...", "x"], result) == nil)
    #expect(DocumentedCommandsTests.shownOutputProblem(["menudeck: note: done"], result) == nil)
    #expect(DocumentedCommandsTests.shownOutputProblem(["a", "c"], result) != nil)
    #expect(DocumentedCommandsTests.shownOutputProblem(["a", "b", "c", "d"], result) != nil)
  }

  /// README's first run shows the table that `deck --format table` prints, right after the
  /// command: the page test compares the two.
  @Test func readmesFirstRunTableIsCheckedAgainstTheCommand() throws {
    let blocks = Markdown.blocks(try DocumentedCommandsTests.page("README.md"), file: "README.md")
    let index = try #require(
      blocks.firstIndex {
        ShellBlocks.commands(in: $0).last?.oneLine
          == "swift run menudeck deck --date 2026-11-30 --format table"
      })
    let table = try #require(index + 1 < blocks.count ? blocks[index + 1] : nil)
    #expect(table.followsPrevious && table.language.isEmpty)
    #expect(table.lines.first?.hasPrefix("u01  2026-11-30 (mon)  ease") == true)
  }
}
