import DeckBase

/// The command line after parsing, with typed access by option name.
///
/// Asking for a name the command does not declare is a programming error and stops the program
/// (a test catches it at once); bad values given by the user are `UsageError`s (exit 64).
package struct ParsedArguments: Sendable {
  /// Every option the command accepts (its own and its parents'), by long name.
  let declared: [String: CommandOption]
  let argumentSpecs: [CommandArgument]
  /// Values given on the command line, in order; a flag holds one empty string per use.
  var given: [String: [String]]
  /// Positional values in order, after `--` included; "-" is a positional value (stdin).
  package internal(set) var positionals: [String]
  /// The command as typed to run it, "menudeck stats": for messages that show a command line.
  package internal(set) var commandName = ""
  /// The whole command line as typed, the program's name first (`menudeck`, whatever path
  /// started it): for messages that show the command to run instead.
  package internal(set) var commandLine: [String] = []
  /// The index in `commandLine` of the word that holds each given value, by option name, in
  /// the order of `given` (the value's own word, or `--name=value`).
  var valueWords: [String: [Int]] = [:]
  /// The index in `commandLine` of each positional value.
  var positionalWords: [Int] = []

  init(declared: [String: CommandOption], arguments: [CommandArgument]) {
    self.declared = declared
    self.argumentSpecs = arguments
    self.given = [:]
    self.positionals = []
  }

  private func option(_ name: String, _ kinds: Set<CommandOption.Kind>) -> CommandOption {
    guard let option = declared[name] else {
      preconditionFailure("option '--\(name)' is not declared by this command")
    }
    precondition(kinds.contains(option.kind), "option '--\(name)' is a \(option.kind)")
    return option
  }

  /// Whether this command declares the option (for code shared by several commands).
  package func declares(_ name: String) -> Bool { declared[name] != nil }

  /// Whether this command declares the positional argument `<name>`.
  package func declaresArgument(_ name: String) -> Bool {
    argumentSpecs.contains { $0.name == name }
  }

  /// Whether the command declares exactly this option (not another one of the same name, such
  /// as `validate`'s report `--format` beside the deck `--format`).
  package func declares(exactly spec: CommandOption) -> Bool { declared[spec.name] == spec }

  /// Whether the flag was given.
  package func flag(_ name: String) -> Bool {
    _ = option(name, [.flag])
    return given[name] != nil
  }

  /// Whether the option was given on the command line (a default does not count).
  package func isGiven(_ name: String) -> Bool {
    _ = option(name, [.flag, .value, .repeatable])
    return given[name] != nil
  }

  /// The value given, or the declared default, or nil.
  package func value(_ name: String) -> String? {
    let option = option(name, [.value])
    return given[name]?.last ?? option.defaultValue
  }

  /// Every value given for a repeatable option, in order.
  package func values(_ name: String) -> [String] {
    _ = option(name, [.repeatable])
    return given[name] ?? []
  }

  /// The value (or default) converted by `parse`; a value `parse` rejects is a usage error
  /// "invalid value 'x' for '--name'; expected <expected>".
  package func value<T>(_ name: String, expected: String, _ parse: (String) -> T?) throws -> T? {
    guard let text = value(name) else { return nil }
    guard let parsed = parse(text) else {
      throw UsageError("invalid value '\(text)' for '--\(name)'; expected \(expected)")
    }
    return parsed
  }

  /// Every value of a repeatable option converted by `parse`, or a usage error for the first
  /// one it rejects.
  package func values<T>(_ name: String, expected: String, _ parse: (String) -> T?) throws -> [T] {
    try values(name).map { text in
      guard let parsed = parse(text) else {
        throw UsageError("invalid value '\(text)' for '--\(name)'; expected \(expected)")
      }
      return parsed
    }
  }

  /// The value as a whole number (decimal digits, optional sign).
  package func int(_ name: String) throws -> Int? {
    try value(name, expected: "a whole number like 10") { Int($0) }
  }

  /// The value as an unsigned 64-bit number (for seeds).
  package func uint64(_ name: String) throws -> UInt64? {
    try value(name, expected: "a whole number from 0 to \(UInt64.max)") { UInt64($0) }
  }

  /// The value as a finite decimal number.
  package func double(_ name: String) throws -> Double? {
    try value(name, expected: "a number like 0.5") { text in
      guard let v = Double(text), v.isFinite else { return nil }
      return v
    }
  }

  /// Each value of a repeatable `key=value` option, split at the first "=" (the key must not be
  /// empty; the value may be).
  package func keyValuePairs(_ name: String) throws -> [(key: String, value: String)] {
    try values(name, expected: "key=value") { text -> (key: String, value: String)? in
      guard let eq = text.firstIndex(of: "="), eq != text.startIndex else { return nil }
      return (String(text[..<eq]), String(text[text.index(after: eq)...]))
    }
  }

  /// The command line as typed, as a shell reads it (`TextLayout.shellWord`), with each value
  /// of the option or positional argument `name` that `replace` maps to shell text replaced by
  /// that text, as it is (`-`, `<(zcat a.gz)`; after `--name=` when the value was attached),
  /// and `appending` (shell text) at the end: the command a message tells to run instead.
  package func shellCommand(
    replacingValuesOf name: String, with replace: (String) -> String?, appending: [String] = []
  ) -> String {
    var words = commandLine.map { TextLayout.shellWord($0) }
    var replaced: [(word: Int, value: String)] = []
    if declared[name] != nil {
      for (k, word) in (valueWords[name] ?? []).enumerated() where k < (given[name]?.count ?? 0) {
        replaced.append((word, given[name]![k]))
      }
    } else if argumentSpecs.contains(where: { $0.name == name }) {
      for k in positionRange(of: name).values where k < positionalWords.count {
        replaced.append((positionalWords[k], positionals[k]))
      }
    }
    for (word, value) in replaced {
      guard word < commandLine.count, let text = replace(value) else { continue }
      let typed = commandLine[word]
      if typed != value, typed.hasPrefix("--"), let eq = typed.firstIndex(of: "="),
        typed[typed.index(after: eq)...] == value
      {
        words[word] = TextLayout.shellWord(String(typed[...eq])) + text
      } else {
        words[word] = text
      }
    }
    return (words + appending).joined(separator: " ")
  }

  /// The value of a single positional argument, nil when an optional one was left out.
  package func argument(_ name: String) -> String? {
    let range = positionRange(of: name)
    precondition(!argumentSpecs[range.spec].isRepeating, "argument '<\(name)>' repeats")
    return range.values.first.map { positionals[$0] }
  }

  /// Every value of a repeating positional argument.
  package func arguments(_ name: String) -> [String] {
    Array(positionals[positionRange(of: name).values])
  }

  private func positionRange(of name: String) -> (spec: Int, values: Range<Int>) {
    guard let spec = argumentSpecs.firstIndex(where: { $0.name == name }) else {
      preconditionFailure("argument '<\(name)>' is not declared by this command")
    }
    let start = min(spec, positionals.count)
    let end = argumentSpecs[spec].isRepeating ? positionals.count : min(spec + 1, positionals.count)
    return (spec, start..<end)
  }
}
