/// The Markdown reference of a command: everything its `CommandSpec` says (name, abstract,
/// usage, arguments, options with their kinds, defaults and choices, discussion), and the same
/// for each of its subcommands. It knows only the specs, so any command tree gets its pages
/// (menudeck's are the generated part of docs/commands/NAME.md).
package enum CommandPage {
  /// The block for `command`, a subcommand of `root` (headings start at level 1). `globalsLink`
  /// follows the list of the root's options that every command takes (where they are explained,
  /// in Markdown).
  package static func markdown(_ command: CommandSpec, root: CommandSpec, globalsLink: String)
    -> String
  {
    section([root, command], level: 1, globalsLink: globalsLink)
  }

  /// `path` from the root to the command described; its options are those of every level below
  /// the root (a parent's options apply to its subcommands).
  package static func section(_ path: [CommandSpec], level: Int, globalsLink: String) -> String {
    let command = path[path.count - 1]
    let name = path.map(\.name).joined(separator: " ")
    var out = String(repeating: "#", count: level) + " " + name + "\n\n"
    out += ReferenceEscaping.markdown(command.abstract) + "\n\n"
    out += "```\n" + usage(path).joined(separator: "\n") + "\n```\n\n"
    for block in DiscussionBlock.parse(command.discussion) {
      switch block {
      case .paragraph(let text): out += ReferenceEscaping.markdown(text) + "\n\n"
      case .preformatted(let lines): out += "```sh\n" + lines.joined(separator: "\n") + "\n```\n\n"
      }
    }
    let sub = String(repeating: "#", count: level + 1)
    if !command.arguments.isEmpty {
      out += sub + " Arguments\n\n| argument | meaning |\n|---|---|\n"
      for argument in command.arguments {
        out +=
          "| " + ReferenceEscaping.code(argumentLabel(argument)) + " | "
          + ReferenceEscaping.cell(meaning(argument)) + " |\n"
      }
      out += "\n"
    }
    let options = visibleOptions(path)
    if !options.isEmpty {
      out += sub + " Options\n\n| option | takes | default | meaning |\n|---|---|---|---|\n"
      for option in options {
        out +=
          "| " + optionLabel(option).map(ReferenceEscaping.code).joined(separator: ", ") + " | "
          + kind(option) + " | " + (option.defaultValue.map(ReferenceEscaping.code) ?? "")
          + " | " + ReferenceEscaping.cell(meaning(option)) + " |\n"
      }
      out += "\n"
    }
    if level == 1 {
      let global = path[0].options.filter { !$0.isHidden }
      if !global.isEmpty {
        out +=
          "Every command also takes "
          + global.map { optionLabel($0).map(ReferenceEscaping.code).joined(separator: "/") }
          .joined(separator: ", ")
          + " " + globalsLink + ".\n\n"
      }
    }
    for subcommand in command.subcommands where !subcommand.isHidden {
      out += section(path + [subcommand], level: level + 1, globalsLink: globalsLink)
    }
    return out
  }

  /// The options a user can give at the end of `path`, nearest level first, without those the
  /// help hides; the root's are left out (they are the global ones: --help, --version).
  package static func visibleOptions(_ path: [CommandSpec]) -> [CommandOption] {
    var seen: Set<String> = []
    var options: [CommandOption] = []
    for level in path.dropFirst().reversed() {
      for option in level.options where !option.isHidden && seen.insert(option.name).inserted {
        options.append(option)
      }
    }
    return options
  }

  /// `-c`, `--config <file>`.
  package static func optionLabel(_ option: CommandOption) -> [String] {
    var labels = option.short.map { ["-\($0)"] } ?? []
    labels.append("--" + option.name + (option.kind == .flag ? "" : " <\(option.valueName)>"))
    return labels
  }

  package static func argumentLabel(_ argument: CommandArgument) -> String { argument.usageLabel }

  package static func kind(_ option: CommandOption) -> String {
    switch option.kind {
    case .flag: return "flag"
    case .value: return "a value"
    case .repeatable: return "a value, repeatable"
    }
  }

  /// The help, then the values it takes when they are fixed.
  package static func meaning(_ argument: CommandArgument) -> String {
    guard let choices = argument.choices else { return argument.help }
    let values = "Values: " + choices.joined(separator: ", ") + "."
    return argument.help.isEmpty ? values : argument.help + " " + values
  }

  /// The help, then the accepted values when they are fixed.
  package static func meaning(_ option: CommandOption) -> String {
    guard let choices = option.choices else { return option.help }
    let values = "Values: " + choices.joined(separator: ", ") + "."
    return option.help.isEmpty ? values : option.help + " " + values
  }

  /// The usage of the last command of `path`, wrapped to 80 columns: the spec's own usage when
  /// it has one, else every visible option, the subcommand and the arguments.
  package static func usage(_ path: [CommandSpec]) -> [String] {
    let command = path[path.count - 1]
    if let usage = command.usage { return [usage] }
    let base = path.map(\.name).joined(separator: " ")
    return wrapUsage(base: base, items: command.usageItems, indent: min(base.count + 1, 9))
  }

}
