import DeckBase
import DeckCommandLine

/// `menudeck completion SHELL`: the shell completion script, generated from the command tree.
let completionCommand: CommandSpec = CommandSpec(
  name: "completion",
  abstract: "Print the shell completion script for bash, zsh or fish.",
  discussion: """
    Completes the commands, their options, the choices of options that have them and file \
    names, generated from the same command specs as the help. Load it for the session or \
    install it:

      source <(menudeck completion bash)
      menudeck completion zsh > "${fpath[1]}/_menudeck"
      menudeck completion fish > ~/.config/fish/completions/menudeck.fish
    """,
  arguments: [CommandArgument("shell", help: "bash, zsh or fish.")],
  run: { args, context in
    let given = args.argument("shell") ?? ""
    guard let shell = Completion.Shell(rawValue: given) else {
      let near = closestMatch(given, Completion.Shell.allCases.map(\.rawValue))
      throw UsageError(
        "unknown shell '\(given)'\(near.map { " (did you mean '\($0)'?)" } ?? ""); give bash,"
          + " zsh or fish")
    }
    context.io.stdout.write(Completion.script(for: menudeckCommand, shell: shell))
    return .success
  })
