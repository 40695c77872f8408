import DeckBase

/// One option of a command: a flag (`--verbose`), a valued option (`--date 2026-11-30`,
/// `--date=2026-11-30`) or a repeatable valued option (`--user a --user b`).
///
/// Options declared on a command that has subcommands apply to its subcommands too: they may be
/// given before the subcommand name or among the subcommand's own options.
package struct CommandOption: Sendable, Equatable {
  package enum Kind: Sendable, Equatable {
    /// Present or absent; takes no value. Giving it twice is the same as once.
    case flag
    /// Takes one value; giving it twice is a usage error.
    case value
    /// Takes one value each time and may be given any number of times.
    case repeatable
  }

  /// The long name without dashes: "date" for `--date`.
  package var name: String
  /// A one-letter alias: "o" for `-o`.
  package var short: Character?
  package var kind: Kind
  /// The placeholder in help and usage: "date" shows as `<date>`.
  package var valueName: String
  /// The value `ParsedArguments.value(_:)` gives when the option is absent; shown in help.
  package var defaultValue: String?
  /// When set, the only accepted values (a usage error names them).
  package var choices: [String]?
  /// Values that shell completion offers when the option has no `choices`: the common ones of
  /// an open set (the built-in strategies of `--strategy`, which also takes configured names).
  /// Not checked, and not shown in help.
  package var completions: [String]?
  /// One or two sentences for the OPTIONS section.
  package var help: String
  /// Accepted but left out of help and usage.
  package var isHidden: Bool

  package init(
    _ name: String, short: Character? = nil, kind: Kind, valueName: String? = nil,
    defaultValue: String? = nil, choices: [String]? = nil, help: String, isHidden: Bool = false
  ) {
    self.name = name
    self.short = short
    self.kind = kind
    self.valueName = valueName ?? name
    self.defaultValue = defaultValue
    self.choices = choices
    self.help = help
    self.isHidden = isHidden
  }

  /// `--name`, present or absent.
  package static func flag(
    _ name: String, short: Character? = nil, help: String, isHidden: Bool = false
  ) -> CommandOption {
    CommandOption(name, short: short, kind: .flag, help: help, isHidden: isHidden)
  }

  /// `--name <value>`, at most once.
  package static func option(
    _ name: String, short: Character? = nil, valueName: String? = nil,
    default defaultValue: String? = nil,
    choices: [String]? = nil, help: String, isHidden: Bool = false
  ) -> CommandOption {
    CommandOption(
      name, short: short, kind: .value, valueName: valueName, defaultValue: defaultValue,
      choices: choices, help: help, isHidden: isHidden)
  }

  /// `--name <value>`, any number of times.
  package static func repeatable(
    _ name: String, short: Character? = nil, valueName: String? = nil, choices: [String]? = nil,
    help: String, isHidden: Bool = false
  ) -> CommandOption {
    CommandOption(
      name, short: short, kind: .repeatable, valueName: valueName, choices: choices, help: help,
      isHidden: isHidden)
  }

  /// `--name` as typed on the command line.
  package var spelling: String { "--" + name }

  var takesValue: Bool { kind != .flag }

  static let builtinHelp = CommandOption.flag("help", short: "h", help: "Show help information.")
  static let builtinVersion = CommandOption.flag("version", help: "Show the version.")
}

/// A positional argument: `<file>`, optional `[<file>]`, repeating `<file> ...`.
package struct CommandArgument: Sendable, Equatable {
  package var name: String
  package var help: String
  package var isOptional: Bool
  /// Takes every remaining positional value; only the last argument may repeat.
  package var isRepeating: Bool
  /// When set, the values it takes: help lists them and shell completion offers them (instead
  /// of file names). The command checks the value itself, so that its error can say more than
  /// the list.
  package var choices: [String]?

  package init(
    _ name: String, help: String, isOptional: Bool = false, isRepeating: Bool = false,
    choices: [String]? = nil
  ) {
    self.name = name
    self.help = help
    self.isOptional = isOptional
    self.isRepeating = isRepeating
    self.choices = choices
  }
}

/// What a running command gets besides its arguments.
package struct CommandContext: Sendable {
  package var io: CLIStreams
  /// Names from the root to the running command: ["menudeck", "deck"].
  package var commandPath: [String]
  /// The whole command line, program name first (for the lock files' holder lines).
  package var arguments: [String]

  /// A context for `commandPath`; streams whose printer has no program yet (not set up by
  /// `runCommand`) get one that names this program and command.
  package init(io: CLIStreams, commandPath: [String], arguments: [String] = []) {
    self.io = io
    self.commandPath = commandPath
    self.arguments = arguments.isEmpty ? commandPath : arguments
    if self.io.diagnostics.program.isEmpty, let program = commandPath.first {
      self.io.diagnostics.program = program
      self.io.diagnostics.command =
        commandPath.count > 1 ? commandPath.dropFirst().joined(separator: " ") : nil
    }
  }

  /// "menudeck deck".
  package var commandName: String { commandPath.joined(separator: " ") }

  /// The program name: "menudeck".
  package var programName: String { commandPath.first ?? "" }

  /// Diagnostic lines to standard error, each starting with the program name, with the run's
  /// settings (`--quiet`, `--verbose`, `--log-format`) and progress line.
  package var diagnostics: DiagnosticPrinter { io.diagnostics }

  /// Whether `--verbose` asked for the operator's details (`info`).
  package var isVerbose: Bool { diagnostics.shows(.info) }

  /// Writes "<program>: error: <message>" to standard error (for a run that goes on, or ends
  /// with a thrown `ExitCode`).
  package func error(_ message: String, code: String? = nil) {
    diagnostics.error(message, code: code)
  }

  /// Writes a thrown error as `runCommand` would (for a run that goes on after it): its location
  /// in the JSON form's fields.
  package func error(_ error: any Error) { diagnostics.error(error) }

  /// Writes "<program>: warning: <message>" to standard error, unless `--quiet`. `location`:
  /// the input it is about, for the JSON form (`SourceLocation.wholeFile` for a file as a whole,
  /// which the message names itself).
  package func warn(_ message: String, code: String? = nil, location: SourceLocation? = nil) {
    diagnostics.warning(message, code: code, location: location)
  }

  /// Writes a warning even with `--quiet`: for the one line a cron operator must see.
  package func warnAlways(_ message: String, code: String) {
    diagnostics.warnAlways(message, code: code)
  }

  /// Writes "<program>: note: <message>" to standard error, unless `--quiet`; `location` as for
  /// `warn`.
  package func note(_ message: String, code: String? = nil, location: SourceLocation? = nil) {
    diagnostics.note(message, code: code, location: location)
  }

  /// Writes "<program>: info: <message>" to standard error with `--verbose` only; `location` as
  /// for `warn`.
  package func info(_ message: String, code: String? = nil, location: SourceLocation? = nil) {
    diagnostics.info(message, code: code, location: location)
  }

  /// Runs `body` as the task `label` of the progress line (see `DiagnosticPrinter.withProgress`).
  package func withProgress<T>(
    _ label: String, unit: ProgressUnit, total: Int? = nil,
    _ body: (ProgressCounter?) throws -> T
  ) rethrows -> T {
    try diagnostics.withProgress(label, unit: unit, total: total, body)
  }
}

/// A command, as data: its name and help, its options and arguments, its subcommands and what it
/// runs. The whole command tree is one value built at startup.
package struct CommandSpec: Sendable {
  package typealias Run = @Sendable (ParsedArguments, CommandContext) throws -> ExitCode

  package var name: String
  /// One line, shown after OVERVIEW and in the parent's SUBCOMMANDS.
  package var abstract: String
  /// Paragraphs shown after the overview, wrapped to 80 columns. Lines that start with a space
  /// are kept as they are (examples).
  package var discussion: String
  /// Replaces the generated usage (the text after "USAGE: ").
  package var usage: String?
  package var options: [CommandOption]
  package var arguments: [CommandArgument]
  package var subcommands: [CommandSpec]
  /// The subcommand run when none is named; options its parent does not know go to it.
  package var defaultSubcommand: String?
  /// Printed by `--version`; set it on the root.
  package var version: String?
  /// Left out of the parent's SUBCOMMANDS.
  package var isHidden: Bool
  /// What the command does; nil for a pure group of subcommands.
  package var run: Run?

  package init(
    name: String, abstract: String, discussion: String = "", usage: String? = nil,
    options: [CommandOption] = [], arguments: [CommandArgument] = [],
    subcommands: [CommandSpec] = [], defaultSubcommand: String? = nil, version: String? = nil,
    isHidden: Bool = false, run: Run? = nil
  ) {
    self.name = name
    self.abstract = abstract
    self.discussion = discussion
    self.usage = usage
    self.options = options
    self.arguments = arguments
    self.subcommands = subcommands
    self.defaultSubcommand = defaultSubcommand
    self.version = version
    self.isHidden = isHidden
    self.run = run
  }

  package func subcommand(named name: String) -> CommandSpec? {
    subcommands.first { $0.name == name }
  }

  /// Mistakes in the definition of this command tree (duplicate names, a default subcommand that
  /// does not exist, ...), one message each; empty when the tree is well formed. A test of the
  /// real tree should expect this to be empty.
  package func definitionProblems() -> [String] {
    var problems: [String] = []
    collectProblems(path: [name], inherited: [:], into: &problems)
    return problems
  }

  private func collectProblems(
    path: [String], inherited: [String: String], into problems: inout [String]
  ) {
    let place = "'" + path.joined(separator: " ") + "'"
    var longs = inherited
    var shorts: [Character: String] = [:]
    var reserved: Set<String> = ["help"]
    if path.count == 1 && version != nil { reserved.insert("version") }
    for option in options {
      if option.name.isEmpty || option.name.hasPrefix("-") || option.name.contains("=")
        || option.name.contains(" ")
      {
        problems.append("\(place): option name '\(option.name)' must be a bare word like 'date'")
      }
      if reserved.contains(option.name) {
        problems.append("\(place): option '--\(option.name)' is built in")
      } else if let owner = longs[option.name] {
        problems.append("\(place): option '--\(option.name)' is already declared by '\(owner)'")
      }
      longs[option.name] = path.joined(separator: " ")
      if let short = option.short {
        if short == "h" || short == "-" || short == "=" {
          problems.append("\(place): short name '-\(short)' is reserved")
        } else if let other = shorts[short] {
          problems.append("\(place): short name '-\(short)' is used by '--\(other)' too")
        }
        shorts[short] = option.name
      }
      if option.kind == .flag
        && (option.defaultValue != nil || option.choices != nil || option.completions != nil)
      {
        problems.append("\(place): flag '--\(option.name)' cannot have a default or choices")
      }
      if option.kind == .repeatable && option.defaultValue != nil {
        problems.append("\(place): repeatable option '--\(option.name)' cannot have a default")
      }
      if let choices = option.choices, let value = option.defaultValue, !choices.contains(value) {
        problems.append(
          "\(place): default '\(value)' of '--\(option.name)' is not one of its choices")
      }
    }
    var seenOptional = false
    for (index, argument) in arguments.enumerated() {
      if argument.isRepeating && index != arguments.count - 1 {
        problems.append("\(place): only the last argument may repeat ('<\(argument.name)>')")
      }
      if seenOptional && !argument.isOptional {
        problems.append(
          "\(place): required argument '<\(argument.name)>' follows an optional one")
      }
      seenOptional = seenOptional || argument.isOptional
      if argument.choices?.isEmpty == true {
        problems.append("\(place): argument '<\(argument.name)>' has an empty list of choices")
      }
    }
    if !subcommands.isEmpty && !arguments.isEmpty {
      problems.append("\(place): a command with subcommands cannot take positional arguments")
    }
    var names: Set<String> = []
    for sub in subcommands {
      if sub.name == "help" { problems.append("\(place): subcommand name 'help' is built in") }
      if !names.insert(sub.name).inserted {
        problems.append("\(place): subcommand '\(sub.name)' is declared twice")
      }
    }
    if let defaultSubcommand, subcommand(named: defaultSubcommand) == nil {
      problems.append("\(place): default subcommand '\(defaultSubcommand)' does not exist")
    }
    if subcommands.isEmpty && run == nil {
      problems.append("\(place): a command without subcommands needs a run closure")
    }
    if path.count > 1 && version != nil {
      problems.append("\(place): only the root command has a version")
    }
    for sub in subcommands {
      sub.collectProblems(path: path + [sub.name], inherited: longs, into: &problems)
    }
  }
}
