import DeckBase
import DeckCommandLine

/// `menudeck completion SHELL`: the shell completion script, generated from the command tree.
let completionCommand: CommandSpec = CommandSpec(
  name: "completion",
  abstract: "Print the shell completion script for bash, zsh or fish.",
  discussion: """
    Completes the commands and their subcommands, their options, the values of options and \
    arguments that take a fixed set, the built-in strategies after --strategy (a config's \
    named configurations are not known to the script), and file names, generated from the \
    same command specs as the help. Load it for the session or install it:

      source <(menudeck completion bash)
      menudeck completion zsh > "${fpath[1]}/_menudeck"
      menudeck completion fish > ~/.config/fish/completions/menudeck.fish
    """,
  arguments: [
    CommandArgument(
      "shell", help: "The shell to complete in.",
      choices: Completion.Shell.allCases.map(\.rawValue))
  ],
  run: { args, context in
    let given = args.argument("shell") ?? ""
    guard let shell = Completion.Shell(rawValue: given) else {
      // No guess: the name of another shell (tcsh, ksh) is near one of these by spelling only.
      throw UsageError("unknown shell '\(given)'; give bash, zsh or fish")
    }
    context.io.stdout.write(Completion.script(for: menudeckCommand, shell: shell))
    return .success
  })
