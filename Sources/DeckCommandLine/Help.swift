/// Help and usage text generated from the command tree (80 columns, help text from column 27).
enum HelpFormatter {
  static let width = 80
  static let labelColumn = 26

  /// "USAGE: menudeck deck [--date <date>] ...", wrapped; continuation lines align with the
  /// first option.
  static func usageLines(_ path: [CommandSpec]) -> [String] {
    let command = path[path.count - 1]
    let base = "USAGE: " + path.map(\.name).joined(separator: " ")
    if let usage = command.usage { return ["USAGE: " + usage] }
    let indent = base.count + 1 <= 40 ? base.count + 1 : 9
    return wrapUsage(base: base, items: command.usageItems, indent: indent)
  }

  /// The full help of the last command of `path`.
  static func help(_ path: [CommandSpec]) -> String {
    let command = path[path.count - 1]
    let commandName = path.map(\.name).joined(separator: " ")
    var sections: [String] = []
    if !command.abstract.isEmpty {
      sections.append(wrap("OVERVIEW: " + command.abstract, width: width).joined(separator: "\n"))
    }
    let discussion = formatDiscussion(command.discussion)
    if !discussion.isEmpty { sections.append(discussion) }
    sections.append(usageLines(path).joined(separator: "\n"))

    if !command.arguments.isEmpty {
      var rows = ["ARGUMENTS:"]
      for argument in command.arguments {
        rows += row("<\(argument.name)>", argumentHelp(argument))
      }
      sections.append(rows.joined(separator: "\n"))
    }

    var rows = ["OPTIONS:"]
    var shown: Set<String> = []
    for level in path.reversed() {
      for option in level.options where !option.isHidden && !shown.contains(option.name) {
        shown.insert(option.name)
        rows += row(label(option), optionHelp(option))
      }
    }
    if path.count == 1, command.version != nil {
      rows += row(label(.builtinVersion), CommandOption.builtinVersion.help)
    }
    rows += row(label(.builtinHelp), CommandOption.builtinHelp.help)
    sections.append(rows.joined(separator: "\n"))

    if !command.subcommands.isEmpty {
      var rows = ["SUBCOMMANDS:"]
      for sub in command.subcommands where !sub.isHidden {
        let name = sub.name == command.defaultSubcommand ? sub.name + " (default)" : sub.name
        rows += row(name, sub.abstract)
      }
      rows += row("help", "Show subcommand help information.")
      rows.append("")
      rows.append("  See '\(commandName) help <subcommand>' for detailed help.")
      sections.append(rows.joined(separator: "\n"))
    }
    return sections.joined(separator: "\n\n") + "\n"
  }

  /// The pointer that follows a usage error: "see 'menudeck deck --help'". The usage block
  /// itself is only in the help, so that the error stays the line a reader sees first (cron
  /// mail, a log shipper).
  static func helpPointer(path: [CommandSpec]) -> String {
    "see '" + path.map(\.name).joined(separator: " ") + " --help'"
  }

  static func label(_ option: CommandOption) -> String {
    var text = option.short.map { "-\($0), " } ?? ""
    text += "--" + option.name
    if option.takesValue { text += " <\(option.valueName)>" }
    return text
  }

  /// The help of an option followed by its choices, default and whether it repeats, kept before
  /// the final period: "Output format (values: json, csv; default: json)."
  static func optionHelp(_ option: CommandOption) -> String {
    var notes: [String] = []
    if let choices = option.choices { notes.append("values: " + choices.joined(separator: ", ")) }
    if let value = option.defaultValue { notes.append("default: " + value) }
    if option.kind == .repeatable { notes.append("repeatable") }
    if notes.isEmpty { return option.help }
    let note = "(" + notes.joined(separator: "; ") + ")"
    if option.help.isEmpty { return note }
    if option.help.hasSuffix(".") { return option.help.dropLast() + " " + note + "." }
    return option.help + " " + note
  }

  /// The help of an argument followed by its choices, kept before the final period: "The shell
  /// (values: bash, zsh, fish)."
  static func argumentHelp(_ argument: CommandArgument) -> String {
    guard let choices = argument.choices else { return argument.help }
    let note = "(values: " + choices.joined(separator: ", ") + ")"
    if argument.help.isEmpty { return note }
    if argument.help.hasSuffix(".") { return argument.help.dropLast() + " " + note + "." }
    return argument.help + " " + note
  }

  /// "  label" then the help from column 27, wrapped; a label too long for its column gets a
  /// line of its own.
  static func row(_ label: String, _ help: String) -> [String] {
    let indent = String(repeating: " ", count: labelColumn)
    let helpLines = wrap(help, width: width - labelColumn)
    let head = "  " + label
    guard head.count + 2 <= labelColumn, let first = helpLines.first else {
      return [head] + helpLines.map { indent + $0 }
    }
    let padding = String(repeating: " ", count: labelColumn - head.count)
    return [head + padding + first] + helpLines.dropFirst().map { indent + $0 }
  }

  /// Paragraphs reflowed to the width; lines starting with a space or tab kept as they are.
  static func formatDiscussion(_ text: String) -> String {
    var lines: [String] = []
    var paragraph: [Substring] = []
    func endParagraph() {
      if paragraph.isEmpty { return }
      lines += wrap(paragraph.joined(separator: " "), width: width)
      paragraph = []
    }
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      let trimmed = line.drop { $0 == " " || $0 == "\t" }
      if trimmed.isEmpty {
        endParagraph()
        lines.append("")
      } else if trimmed.count != line.count {
        endParagraph()
        lines.append(String(line.reversed().drop { $0 == " " }.reversed()))
      } else {
        paragraph.append(line)
      }
    }
    endParagraph()
    while lines.first == "" { lines.removeFirst() }
    while lines.last == "" { lines.removeLast() }
    return lines.joined(separator: "\n")
  }

  /// Words of `text` in lines of at most `width` characters (a longer word gets its own line).
  static func wrap(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    var current = ""
    for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
      if current.isEmpty {
        current = String(word)
      } else if current.count + 1 + word.count <= width {
        current += " " + word
      } else {
        lines.append(current)
        current = String(word)
      }
    }
    if !current.isEmpty { lines.append(current) }
    return lines
  }
}

extension CommandSpec {
  /// The items of a generated usage line: every visible option, the subcommand, the arguments.
  package var usageItems: [String] {
    var items: [String] = []
    for option in options where !option.isHidden {
      switch option.kind {
      case .flag: items.append("[--\(option.name)]")
      case .value: items.append("[--\(option.name) <\(option.valueName)>]")
      case .repeatable: items.append("[--\(option.name) <\(option.valueName)> ...]")
      }
    }
    if !subcommands.isEmpty {
      let optional = defaultSubcommand != nil || run != nil
      items.append(optional ? "[<subcommand>]" : "<subcommand>")
    }
    items += arguments.map(\.usageLabel)
    return items
  }
}

extension CommandArgument {
  /// `<name>`, `<name> ...` when it repeats, in brackets when it may be left out.
  package var usageLabel: String {
    let core = "<\(name)>" + (isRepeating ? " ..." : "")
    return isOptional ? "[\(core)]" : core
  }
}

/// `base` and the usage items, wrapped at `width` columns; continuation lines start with
/// `indent` spaces.
package func wrapUsage(base: String, items: [String], indent: Int, width: Int = 80) -> [String] {
  let indentText = String(repeating: " ", count: indent)
  var lines: [String] = []
  var current = base
  for item in items {
    if current == base || current.count + 1 + item.count <= width {
      current += " " + item
    } else {
      lines.append(current)
      current = indentText + item
    }
  }
  lines.append(current)
  return lines
}
