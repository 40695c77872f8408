import DeckBase

/// What a command line asks for.
enum Resolution {
  /// Run the last command of `path` with these arguments.
  case run(path: [CommandSpec], arguments: ParsedArguments)
  /// Print the help of the last command of `path`.
  case help(path: [CommandSpec])
  /// Print the version.
  case version(String)
  /// A wrong command line; `path` is the command whose usage to show.
  case usageError(path: [CommandSpec], message: String)
}

/// The options visible at a point of the command tree: the built-ins, then the options of every
/// command on the path (a deeper declaration wins).
private struct OptionTable {
  var byName: [String: CommandOption] = [:]
  var byShort: [Character: CommandOption] = [:]

  init(path: [CommandSpec]) {
    add(.builtinHelp)
    if path[0].version != nil { add(.builtinVersion) }
    for command in path {
      for option in command.options { add(option) }
    }
  }

  private mutating func add(_ option: CommandOption) {
    byName[option.name] = option
    if let short = option.short { byShort[short] = option }
  }

  /// Visible long names, for "did you mean".
  var suggestionNames: [String] {
    byName.values.filter { !$0.isHidden }.map(\.name).sorted()
  }
}

private enum OptionOutcome {
  case consumed
  case unknown
  case failed(String)
}

/// A token that names an option: starts with "-", but is neither "-" (stdin) nor "--".
private func isOptionToken(_ token: String) -> Bool {
  token.hasPrefix("-") && token != "-" && token != "--"
}

/// Whether `token` can be the value of the option before it: anything that does not look like
/// an option; "-" and negative numbers ("-5", "-0.25") are values, and so is a word of dashes
/// and then a digit ("--1", a doubled sign): no option's name starts with a digit, so it can
/// only be a value, which the option then judges ("invalid date '--1' ...") instead of the
/// parser saying that no value was given.
private func isValueToken(_ token: String) -> Bool {
  guard isOptionToken(token) else { return token != "--" }
  if Double(token) != nil { return true }
  let first = token.drop { $0 == "-" }.first
  return first.map { $0.isASCII && $0.isNumber } ?? false
}

/// The values given so far, by long option name, with where each came from: the index in the
/// tokens of the word that holds it (the value's own word, or `--name=value`).
private struct GivenValues {
  var values: [String: [String]] = [:]
  var tokens: [String: [Int]] = [:]

  subscript(name: String) -> [String]? { values[name] }

  mutating func append(_ name: String, _ value: String, token: Int) {
    values[name, default: []].append(value)
    tokens[name, default: []].append(token)
  }
}

struct CommandLineParser {
  let root: CommandSpec
  let tokens: [String]

  func resolve() -> Resolution {
    var path = [root]
    var given = GivenValues()
    var index = 0
    while true {
      let command = path[path.count - 1]
      let table = OptionTable(path: path)
      if command.subcommands.isEmpty {
        return parseLeaf(path: path, table: table, from: index, given: given)
      }
      // Options of this level may come before the subcommand name; the first option this level
      // does not know is left for the default subcommand.
      scan: while index < tokens.count, isOptionToken(tokens[index]) {
        var next = index
        switch consume(&next, table: table, given: &given) {
        case .consumed: index = next
        case .unknown: break scan
        case .failed(let message): return .usageError(path: path, message: message)
        }
      }
      if index < tokens.count, !isOptionToken(tokens[index]), tokens[index] != "--" {
        let word = tokens[index]
        if let sub = command.subcommand(named: word) {
          path.append(sub)
          index += 1
          continue
        }
        if word == "help" { return resolveHelp(path: path, from: index + 1) }
      }
      if given["help"] != nil { return .help(path: path) }
      if given["version"] != nil, let version = root.version { return .version(version) }
      if let name = command.defaultSubcommand, let sub = command.subcommand(named: name) {
        if index < tokens.count, !isOptionToken(tokens[index]), tokens[index] != "--",
          sub.arguments.isEmpty
        {
          return .usageError(path: path, message: unknownSubcommand(tokens[index], of: command))
        }
        path.append(sub)
        continue
      }
      if index < tokens.count {
        let token = tokens[index]
        if isOptionToken(token) {
          return .usageError(path: path, message: unknownOption(token, table: table))
        }
        if token != "--" {
          return .usageError(path: path, message: unknownSubcommand(token, of: command))
        }
      }
      if command.run != nil, index >= tokens.count {
        return parseLeaf(path: path, table: table, from: index, given: given)
      }
      let names = command.subcommands.filter { !$0.isHidden }.map(\.name)
      return .usageError(
        path: path,
        message: "missing subcommand; name one of: " + names.joined(separator: ", "))
    }
  }

  /// Parses the options and arguments of the command at the end of `path`.
  private func parseLeaf(
    path: [CommandSpec], table: OptionTable, from start: Int, given: GivenValues
  ) -> Resolution {
    let command = path[path.count - 1]
    let optionPart = tokens[start...].prefix { $0 != "--" }
    if given["help"] != nil || optionPart.contains("--help") || optionPart.contains("-h") {
      return .help(path: path)
    }
    if let version = root.version, given["version"] != nil || optionPart.contains("--version") {
      return .version(version)
    }
    var given = given
    var positionals: [String] = []
    var positionalTokens: [Int] = []
    var index = start
    while index < tokens.count {
      let token = tokens[index]
      if token == "--" {
        positionals.append(contentsOf: tokens[(index + 1)...])
        positionalTokens.append(contentsOf: (index + 1)..<tokens.count)
        break
      }
      guard isOptionToken(token) else {
        positionals.append(token)
        positionalTokens.append(index)
        index += 1
        continue
      }
      var next = index
      switch consume(&next, table: table, given: &given) {
      case .consumed: index = next
      case .unknown: return .usageError(path: path, message: unknownOption(token, table: table))
      case .failed(let message): return .usageError(path: path, message: message)
      }
    }
    if given["help"] != nil { return .help(path: path) }
    if let version = root.version, given["version"] != nil { return .version(version) }
    let specs = command.arguments
    let required = specs.filter { !$0.isOptional }.count
    if positionals.count < required {
      return .usageError(
        path: path, message: "missing argument '<\(specs[positionals.count].name)>'")
    }
    if positionals.count > specs.count, specs.last?.isRepeating != true {
      return .usageError(
        path: path, message: "unexpected argument '\(positionals[specs.count])'")
    }
    var declared: [String: CommandOption] = [:]
    for level in path {
      for option in level.options { declared[option.name] = option }
    }
    var arguments = ParsedArguments(declared: declared, arguments: specs)
    arguments.given = given.values.filter { declared[$0.key] != nil }
    arguments.positionals = positionals
    arguments.commandName = path.map(\.name).joined(separator: " ")
    // The words as typed, the program's name first: each index one more than in `tokens`.
    arguments.commandLine = [root.name] + tokens
    arguments.valueWords = given.tokens.filter { declared[$0.key] != nil }.mapValues {
      $0.map { $0 + 1 }
    }
    arguments.positionalWords = positionalTokens.map { $0 + 1 }
    return .run(path: path, arguments: arguments)
  }

  /// `help [<subcommand> ...]`: the help of the named command.
  private func resolveHelp(path: [CommandSpec], from start: Int) -> Resolution {
    var target = path
    for word in tokens[start...] where word != "-h" && word != "--help" {
      let command = target[target.count - 1]
      guard let sub = command.subcommand(named: word) else {
        return .usageError(path: target, message: unknownSubcommand(word, of: command))
      }
      target.append(sub)
    }
    return .help(path: target)
  }

  /// Consumes the option at `tokens[index]` (and its value), recording it in `given`.
  private func consume(
    _ index: inout Int, table: OptionTable, given: inout GivenValues
  ) -> OptionOutcome {
    let token = tokens[index]
    if token.hasPrefix("--") {
      let body = token.dropFirst(2)
      let name: String
      var attached: String?
      if let eq = body.firstIndex(of: "=") {
        name = String(body[..<eq])
        attached = String(body[body.index(after: eq)...])
      } else {
        name = String(body)
      }
      guard let option = table.byName[name] else { return .unknown }
      let word = index
      index += 1
      if option.kind == .flag {
        if let attached {
          return .failed("flag '--\(name)' takes no value; remove '=\(attached)'")
        }
        given.append(name, "", token: word)
        return .consumed
      }
      if let attached { return record(option, value: attached, given: &given, token: word) }
      guard index < tokens.count, isValueToken(tokens[index]) else {
        return .failed(missingValue("--\(name)", option))
      }
      index += 1
      return record(option, value: tokens[index - 1], given: &given, token: index - 1)
    }
    // One or more short options: "-v", "-vq", "-o file", "-vo file".
    let letters = Array(token.dropFirst())
    var options: [CommandOption] = []
    for letter in letters {
      guard let option = table.byShort[letter] else { return .unknown }
      options.append(option)
    }
    let word = index
    index += 1
    for (position, option) in options.enumerated() {
      let spelling = "-\(letters[position])"
      if option.kind == .flag {
        given.append(option.name, "", token: word)
        continue
      }
      if position != options.count - 1 {
        return .failed("option '\(spelling)' takes a value, so it must come last in '\(token)'")
      }
      guard index < tokens.count, isValueToken(tokens[index]) else {
        return .failed(missingValue(spelling, option))
      }
      let value = tokens[index]
      index += 1
      if case .failed(let message) = record(option, value: value, given: &given, token: index - 1) {
        return .failed(message)
      }
    }
    return .consumed
  }

  private func record(
    _ option: CommandOption, value: String, given: inout GivenValues, token: Int
  ) -> OptionOutcome {
    if let choices = option.choices, !choices.contains(value) {
      return .failed(
        "invalid value '\(value)' for '--\(option.name)'\(suggestion(value, choices)); "
          + "expected one of: " + choices.joined(separator: ", "))
    }
    if option.kind == .value, let previous = given[option.name]?.first {
      return .failed(
        "option '--\(option.name)' given twice ('\(previous)' and '\(value)'); give it once")
    }
    given.append(option.name, value, token: token)
    return .consumed
  }

  private func missingValue(_ spelling: String, _ option: CommandOption) -> String {
    "missing value for '\(spelling)'; give it as '\(spelling) <\(option.valueName)>'"
  }

  private func unknownOption(_ token: String, table: OptionTable) -> String {
    if token.hasPrefix("--") {
      let name = String(token.dropFirst(2).prefix { $0 != "=" })
      let shown = token.contains("=") ? "--" + name : token
      return "unknown option '\(shown)'\(suggestion(name, table.suggestionNames, prefix: "--"))"
    }
    let letters = token.dropFirst()
    if letters.count > 1, table.byName[String(letters)] != nil {
      return "unknown option '\(token)' (did you mean '--\(letters)'?)"
    }
    let unknown = letters.first { table.byShort[$0] == nil } ?? letters.first!
    if letters.count > 1 {
      return "unknown option '-\(unknown)' in '\(token)'"
    }
    return "unknown option '\(token)'"
  }

  private func unknownSubcommand(_ word: String, of command: CommandSpec) -> String {
    let names = command.subcommands.filter { !$0.isHidden }.map(\.name) + ["help"]
    return "unknown subcommand '\(word)'\(suggestion(word, names))"
  }

  private func suggestion(_ word: String, _ candidates: [String], prefix: String = "") -> String {
    guard let best = closestMatch(word, candidates) else { return "" }
    return " (did you mean '\(prefix)\(best)'?)"
  }
}
