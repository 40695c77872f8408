import DeckCommandLine
import DeckStrategies
import Foundation
import Testing

@testable import MenuDeckCLI

/// `menudeck completion SHELL`: the scripts, loaded into the shells and asked to complete.
@Suite struct CLICompletionTests {
  /// Runs `script` in `shell` (found on PATH), or nil with a printed reason when it is absent.
  static func shell(_ shell: String, _ script: String) throws -> String? {
    let path = ["/usr/bin/", "/bin/", "/usr/local/bin/"].map { $0 + shell }
      .first { FileManager.default.isExecutableFile(atPath: $0) }
    guard let path else {
      print("skipped: \(shell) is not installed")
      return nil
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = ["-c", script]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }

  /// The script written to a file in a temporary directory (kept while the caller holds it).
  static func script(_ shell: String) throws -> (dir: TempDir, path: String) {
    let r = CLIRun(["completion", shell])
    #expect(r.code == .success, "\(r.stderr)")
    let dir = try TempDir("menudeck-completion")
    try dir.write("script", r.stdout)
    return (dir, dir.path + "/script")
  }

  /// What the bash script at `path` completes after `menudeck <words>`, run in `dir` (so that
  /// file names come from there): COMPREPLY's words, space-separated, and a line end.
  static func bash(_ words: [String], _ path: String, in dir: TempDir) throws -> String? {
    let quoted = words.map { "'\($0)'" }.joined(separator: " ")
    return try shell(
      "bash",
      "cd '\(dir.path)'; source '\(path)'; COMP_WORDS=(menudeck \(quoted));"
        + " COMP_CWORD=\(words.count); _menudeck_complete; echo \"${COMPREPLY[*]}\"")
  }

  /// bash completes commands, options of the command given, option choices and the root's
  /// options, from the script as `source` loads it.
  @Test func bashCompletesCommandsOptionsAndChoices() throws {
    let (dir, path) = try Self.script("bash")
    defer { withExtendedLifetime(dir) {} }
    func complete(_ words: [String]) throws -> String? { try Self.bash(words, path, in: dir) }
    #expect(try complete(["co"]) == "compare completion\n")
    #expect(try complete(["compare", "--ope-s"]) == "--ope-samples\n")
    #expect(try complete(["deck", "--format", ""]) == "json jsonl csv table\n")
    #expect(try complete(["--vers"]) == "--version\n")
    // Options of one command are not offered for another.
    #expect(try complete(["deck", "--ope"]) == "\n")
    // The root's options are every command's.
    #expect(try complete(["ingest", "--log-f"]) == "--log-format\n")
    #expect(try complete(["ingest", "--log-format", ""]) == "text json\n")
    #expect(try complete(["stats", "--no-pro"]) == "--no-progress\n")
    // Every visible option of every command is in the script.
    let text = try String(contentsOfFile: path, encoding: .utf8)
    for command in menudeckCommand.subcommands where !command.isHidden {
      for option in command.options where !option.isHidden {
        #expect(text.contains(option.spelling), "\(command.name) \(option.spelling)")
      }
    }
  }

  /// bash completes the subcommands of `import` and their own options, a positional argument's
  /// choices, after root options that take a value, and the strategies of `--strategy`.
  @Test func bashCompletesNestedCommandsArgumentsAndStrategies() throws {
    let (dir, path) = try Self.script("bash")
    defer { withExtendedLifetime(dir) {} }
    func complete(_ words: [String]) throws -> String? { try Self.bash(words, path, in: dir) }
    #expect(try complete(["import", ""]) == "movielens uci\n")
    #expect(try complete(["import", "movielens", "--o"]) == "--out\n")
    #expect(try complete(["import", "movielens", "--w"]) == "--wait\n")
    #expect(try complete(["import", "uci", "--log-f"]) == "--log-format\n")
    #expect(try complete(["-q", "import", "m"]) == "movielens\n")
    #expect(try complete(["completion", ""]) == "bash zsh fish\n")
    #expect(try complete(["completion", "z"]) == "zsh\n")
    // A root option's value is not the command word.
    #expect(try complete(["--log-format", "json", "deck", "--fo"]) == "--format\n")
    #expect(try complete(["--log-format=json", "deck", "--fo"]) == "--format\n")
    #expect(try complete(["-v", "--log-format", "json", "stats", "--fo"]) == "--format\n")
    // An option the root does not know goes to the default command, deck.
    #expect(try complete(["--date", "2026-11-30", "--fo"]) == "--format\n")
    let strategies = StrategyRegistry.identifiers
    #expect(try complete(["deck", "--strategy", ""]) == strategies.joined(separator: " ") + "\n")
    #expect(try complete(["compare", "-s", "random", "-s", "pop"]) == "popularity\n")
    #expect(try complete(["-v", "simulate", "-vs", "aff"]) == "affinity\n")
    // Files stay files: the value of --out, the logs of stats.
    try dir.write("swipes.jsonl", "")
    #expect(try complete(["deck", "--out", "swi"]) == "swipes.jsonl\n")
    #expect(try complete(["stats", "--format", "csv", "swi"]) == "swipes.jsonl\n")
  }

  /// zsh and fish load their scripts without a syntax error, and fish completes (zsh's
  /// completion needs its line editor, so only the load is checked there).
  @Test func zshAndFishLoadTheirScripts() throws {
    let zsh = try Self.script("zsh")
    if let out = try Self.shell("zsh", "zsh -n '\(zsh.path)' && echo ok") { #expect(out == "ok\n") }
    let fish = try Self.script("fish")
    if let out = try Self.shell(
      "fish",
      "source '\(fish.path)'; complete -C 'menudeck comp'; complete -C 'menudeck deck --format '")
    {
      let lines = out.split(separator: "\n").map { $0.split(separator: "\t").first ?? "" }
      #expect(lines == ["compare", "completion", "csv", "json", "jsonl", "table"], "\(out)")
    }
    // Nested commands, an argument's choices, the strategies, root options before the command.
    func fishCompletes(_ line: String) throws -> [Substring]? {
      try Self.shell("fish", "source '\(fish.path)'; complete -C '\(line)'")?
        .split(separator: "\n").map { $0.split(separator: "\t").first ?? "" }
    }
    if let words = try fishCompletes("menudeck import ") { #expect(words == ["movielens", "uci"]) }
    if let words = try fishCompletes("menudeck import movielens --") {
      #expect(words.contains("--out") && words.contains("--wait") && words.contains("--quiet"))
      #expect(!words.contains("--date"))
    }
    if let words = try fishCompletes("menudeck completion ") {
      #expect(words == ["bash", "fish", "zsh"])
    }
    if let words = try fishCompletes("menudeck --log-format json deck --strategy ") {
      #expect(words.map(String.init) == StrategyRegistry.identifiers.sorted())
    }
  }

  /// A shell menudeck has no script for is named with the ones it has, without a guess.
  @Test func anUnknownShellIsAUsageError() {
    for shell in ["tcsh", "bsh"] {
      let r = CLIRun(["completion", shell])
      #expect(r.code == .usage)
      #expect(
        r.stderr.hasPrefix("menudeck: error: unknown shell '\(shell)'; give bash, zsh or fish\n"),
        "\(r.stderr)")
    }
  }
}
