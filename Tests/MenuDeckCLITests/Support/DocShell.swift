import Foundation

/// A fenced code block of a Markdown page, where `DocumentedCommandsTests` finds the commands
/// the manual shows and the output it shows for them.
struct MarkdownBlock: Sendable {
  /// The page, relative to the repository root.
  var file: String
  /// The line of the opening fence (1-based).
  var fenceLine: Int
  /// The info string's first word, lowercased: "sh", "console", "" for none.
  var language: String
  /// The lines between the fences, without the fence's indentation.
  var lines: [String]
  /// Only blank lines stand between this block and the one before it on the page.
  var followsPrevious: Bool

  /// The page's line number of `lines[index]`.
  func line(_ index: Int) -> Int { fenceLine + 1 + index }
}

enum Markdown {
  /// Every fenced block (``` or ~~~, indented or not) of `text`, in page order. A block left
  /// open runs to the end of the page.
  static func blocks(_ text: String, file: String) -> [MarkdownBlock] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var blocks: [MarkdownBlock] = []
    var lastClosing: Int? = nil
    var i = 0
    while i < lines.count {
      let indent = lines[i].prefix { $0 == " " }.count
      let rest = lines[i].dropFirst(indent)
      guard let mark = rest.first, mark == "`" || mark == "~" else {
        i += 1
        continue
      }
      let fence = rest.prefix { $0 == mark }.count
      guard fence >= 3 else {
        i += 1
        continue
      }
      let info = rest.dropFirst(fence).trimmingCharacters(in: .whitespaces)
      let language = info.split(separator: " ").first.map { $0.lowercased() } ?? ""
      var j = i + 1
      while j < lines.count {
        let closing = lines[j].drop { $0 == " " }
        if closing.prefix { $0 == mark }.count >= fence,
          closing.drop(while: { $0 == mark }).allSatisfy(\.isWhitespace)
        {
          break
        }
        j += 1
      }
      let body = lines[(i + 1)..<j].map { line -> String in
        let spaces = min(indent, line.prefix { $0 == " " }.count)
        return String(line.dropFirst(spaces))
      }
      let follows =
        lastClosing.map { last in
          lines[(last + 1)..<i].allSatisfy { $0.allSatisfy(\.isWhitespace) }
        } ?? false
      blocks.append(
        MarkdownBlock(
          file: file, fenceLine: i + 1, language: language, lines: body, followsPrevious: follows))
      lastClosing = j
      i = j + 1
    }
    return blocks
  }
}

extension Markdown {
  /// Lines outside fenced blocks indented by four spaces or more (an indented code block, or
  /// the continuation of a list item), with their line numbers.
  static func indentedLines(_ text: String) -> [(Int, String)] {
    var fenced = Set<Int>()
    for block in blocks(text, file: "") {
      fenced.formUnion(block.fenceLine...(block.fenceLine + block.lines.count + 1))
    }
    return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap {
      let line = $0.offset + 1
      guard !fenced.contains(line), $0.element.hasPrefix("    ") else { return nil }
      return (line, String($0.element))
    }
  }
}

/// One command of a shell block, as a reader would type it: continuation lines joined, and a
/// `for ... done` or `if ... fi` kept whole.
struct DocCommand: Sendable {
  var file: String
  /// The page's line of its first line.
  var line: Int
  /// As written on the page (its lines joined with newlines), for messages.
  var text: String
  /// What a shell runs: comments removed, continuation lines joined by a space.
  var script: String
  /// Its comments, without the `#`.
  var comments: [String]
  /// The output the page shows for it, when it is a `$ ` line of a console block.
  var shownOutput: [String] = []

  /// The exit status the page gives in a comment (`# exits 1`, `# exit 65`), else 0.
  var expectedStatus: Int32 {
    for comment in comments {
      let words = comment.split(whereSeparator: \.isWhitespace)
      for (i, word) in words.enumerated() where word == "exit" || word == "exits" {
        if i + 1 < words.count, let code = Int32(words[i + 1]) { return code }
      }
    }
    return 0
  }

  /// The text on one line, continuation lines joined: for tables and messages.
  var oneLine: String {
    script.split(whereSeparator: \.isWhitespace).joined(separator: " ")
  }
}

/// The shell languages of fenced blocks: every line of one is a command (or, with `$ `
/// prompts, the lines after the prompt).
enum ShellBlocks {
  static let languages: Set<String> = ["sh", "bash", "shell", "console", "zsh", "shell-session"]

  /// The commands of `block`: all its lines when its language is a shell's; only the `$ ` lines
  /// of a block with prompts (any language), each with the output lines after it.
  static func commands(in block: MarkdownBlock) -> [DocCommand] {
    let prompted = block.lines.contains { $0.hasPrefix("$ ") }
    guard prompted || languages.contains(block.language) else { return [] }
    var commands: [DocCommand] = []
    var pending: DocCommand? = nil
    var quotes = ShellWords.QuoteState()
    var depth = 0
    for (index, rawLine) in block.lines.enumerated() {
      var line = rawLine
      if prompted {
        if pending == nil {
          guard line.hasPrefix("$ ") else {
            if !commands.isEmpty { commands[commands.count - 1].shownOutput.append(line) }
            continue
          }
          line.removeFirst(2)
        } else if line.hasPrefix("> ") {
          line.removeFirst(2)
        }
      }
      if pending == nil && line.allSatisfy(\.isWhitespace) { continue }
      let scanned = ShellWords.scanLine(line, quotes: &quotes)
      var command =
        pending
        ?? DocCommand(file: block.file, line: block.line(index), text: "", script: "", comments: [])
      command.text += (command.text.isEmpty ? "" : "\n") + rawLine
      if let comment = scanned.comment { command.comments.append(comment) }
      command.script += scanned.code
      if scanned.continues {
        command.script += " "
        pending = command
        continue
      }
      if quotes.open {
        command.script += "\n"
        pending = command
        continue
      }
      depth += ShellWords.compoundDepthChange(scanned.code)
      if depth > 0 {
        command.script += "\n"
        pending = command
        continue
      }
      depth = 0
      pending = nil
      command.script = command.script.trimmingCharacters(in: .whitespacesAndNewlines)
      if command.script.isEmpty {
        // A comment on its own line: nothing to run.
        continue
      }
      commands.append(command)
    }
    if var last = pending {
      last.script = last.script.trimmingCharacters(in: .whitespacesAndNewlines)
      if !last.script.isEmpty { commands.append(last) }
    }
    return commands
  }
}

/// A shell word after expansion, and what about it needs a real shell.
struct ShellWord: Equatable, Sendable {
  /// As written.
  var raw: String
  /// The fields it expands to (an unquoted `$S` may give several, an empty one none).
  var fields: [String]
  /// Holds an unquoted `*`, `?` or `[`: a pattern for the shell to expand.
  var glob = false
  /// Holds `$( )` or backquotes, or an expansion other than `$NAME` and `${NAME}`.
  var complex = false
  /// The commands inside its `$( )` and backquotes.
  var substitutions: [String] = []
  /// Names it expands that have no value.
  var unset: [String] = []

  /// `NAME=value`.
  var isAssignment: Bool { ShellWords.assignmentNameLength(Array(raw)) != nil }
}

enum ShellToken: Equatable, Sendable {
  case word(ShellWord)
  /// `|`, `||`, `&&`, `;` (a newline too), `&`, `(`, `)`, `<`, `>`, `>>`, `<(`, `>(`, ...
  case op(String)
}

/// The part of POSIX shell syntax that documented commands use: quotes, backslashes, comments,
/// `$NAME` and `${NAME}` (unquoted ones split on blanks), `~`, operators; and enough of the rest
/// (substitutions, patterns, compound commands) to know that a real shell must run it and which
/// programs it would start.
enum ShellWords {
  struct QuoteState: Sendable {
    var single = false
    var double = false
    var open: Bool { single || double }
  }

  static let operatorCharacters: Set<Character> = ["|", "&", ";", "<", ">", "(", ")"]
  static let twoCharacterOperators: Set<String> = [
    "||", "&&", ";;", ">>", "<(", ">(", "&>", ">&", "<<",
  ]
  static let redirections: Set<String> = [">", ">>", "<", "&>", ">&", "<<"]

  /// One physical line: the code without its comment, the comment, and whether a backslash at
  /// its end continues it on the next line. `quotes` carries quotes left open across lines.
  static func scanLine(_ line: String, quotes: inout QuoteState) -> (
    code: String, comment: String?, continues: Bool
  ) {
    let c = Array(line)
    var i = 0
    while i < c.count {
      let ch = c[i]
      if quotes.single {
        if ch == "'" { quotes.single = false }
      } else if quotes.double {
        if ch == "\\" {
          i += 1
        } else if ch == "\"" {
          quotes.double = false
        }
      } else if ch == "\\" {
        if i == c.count - 1 { return (String(c[..<i]), nil, true) }
        i += 1
      } else if ch == "'" {
        quotes.single = true
      } else if ch == "\"" {
        quotes.double = true
      } else if ch == "#", i == 0 || c[i - 1].isWhitespace || operatorCharacters.contains(c[i - 1])
      {
        let comment = String(c[(i + 1)...]).trimmingCharacters(in: .whitespaces)
        return (String(c[..<i]), comment, false)
      }
      i += 1
    }
    return (line, nil, false)
  }

  /// How many compound commands (`for`, `while`, `until`, `if`, `case`) `code` opens minus
  /// those it closes (`done`, `fi`, `esac`).
  static func compoundDepthChange(_ code: String) -> Int {
    var change = 0
    var position = true
    for token in tokenize(code, variables: [:]) {
      switch token {
      case .op(let op): position = !redirections.contains(op) && op != ")"
      case .word(let word):
        guard position else { continue }
        switch word.raw {
        case "for", "while", "until", "if", "case": change += 1
        case "done", "fi", "esac": change -= 1
        case "do", "then", "else", "elif", "!", "{", "in": continue
        default: if !word.isAssignment { position = false }
        }
      }
    }
    return change
  }

  /// The length of `NAME=` at the start of `chars`, when it starts with an assignment.
  static func assignmentNameLength(_ chars: [Character]) -> Int? {
    guard let first = chars.first, first == "_" || (first.isASCII && first.isLetter) else {
      return nil
    }
    var i = 1
    while i < chars.count,
      chars[i] == "_" || (chars[i].isASCII && (chars[i].isLetter || chars[i].isNumber))
    {
      i += 1
    }
    return i < chars.count && chars[i] == "=" ? i + 1 : nil
  }

  /// The tokens of `script`, words expanded with `variables` (`HOME` for `~`).
  static func tokenize(_ script: String, variables: [String: String]) -> [ShellToken] {
    let c = Array(script)
    var tokens: [ShellToken] = []
    var i = 0
    while i < c.count {
      let ch = c[i]
      if ch == "\n" {
        tokens.append(.op(";"))
        i += 1
      } else if ch.isWhitespace {
        i += 1
      } else if ch == "\\" && i + 1 < c.count && c[i + 1] == "\n" {
        i += 2
      } else if operatorCharacters.contains(ch) {
        let two = i + 1 < c.count ? String(c[i...(i + 1)]) : ""
        if twoCharacterOperators.contains(two) {
          tokens.append(.op(two))
          i += 2
        } else {
          tokens.append(.op(String(ch)))
          i += 1
        }
      } else {
        tokens.append(.word(word(c, &i, variables: variables)))
      }
    }
    return tokens
  }

  /// The word starting at `c[i]`; `i` ends after it.
  private static func word(_ c: [Character], _ i: inout Int, variables: [String: String])
    -> ShellWord
  {
    let start = i
    let assignment = assignmentNameLength(Array(c[i...]))
    var result = ShellWord(raw: "", fields: [])
    var current = ""
    var started = false
    func flush() {
      if started { result.fields.append(current) }
      current = ""
      started = false
    }
    func expand(_ name: String, quoted: Bool) {
      guard let value = variables[name] else {
        result.unset.append(name)
        return
      }
      if quoted || assignment != nil {
        current += value
        started = true
        return
      }
      if value.first?.isWhitespace == true { flush() }
      for (n, piece) in value.split(whereSeparator: \.isWhitespace).enumerated() {
        if n > 0 { flush() }
        current += piece
        started = true
      }
      if value.last?.isWhitespace == true { flush() }
    }
    /// `$...` at `c[i]`: a variable, or a substitution or form only a shell knows.
    func dollar(quoted: Bool) {
      let next = i + 1 < c.count ? c[i + 1] : " "
      if next == "(" {
        let inner = balanced(c, from: i + 2)
        result.substitutions.append(String(c[(i + 2)..<max(i + 2, inner - 1)]))
        result.complex = true
        started = true
        i = inner
      } else if next == "{" {
        var j = i + 2
        while j < c.count && c[j] != "}" { j += 1 }
        let name = String(c[(i + 2)..<min(j, c.count)])
        if assignmentNameLength(Array(name + "=")) == name.count + 1 {
          expand(name, quoted: quoted)
        } else {
          result.complex = true
          started = true
        }
        i = min(j + 1, c.count)
      } else if next == "_" || (next.isASCII && next.isLetter) {
        var j = i + 1
        while j < c.count, c[j] == "_" || (c[j].isASCII && (c[j].isLetter || c[j].isNumber)) {
          j += 1
        }
        expand(String(c[(i + 1)..<j]), quoted: quoted)
        i = j
      } else if next.isWhitespace || next == "\"" || i + 1 == c.count {
        current.append("$")
        started = true
        i += 1
      } else {
        // $?, $1, $$, $@ ...
        result.complex = true
        started = true
        i += 2
      }
    }
    func backquote() {
      var j = i + 1
      while j < c.count && c[j] != "`" {
        if c[j] == "\\" { j += 1 }
        j += 1
      }
      result.substitutions.append(String(c[(i + 1)..<min(j, c.count)]))
      result.complex = true
      started = true
      i = min(j + 1, c.count)
    }

    while i < c.count {
      let ch = c[i]
      if ch.isWhitespace || operatorCharacters.contains(ch) { break }
      switch ch {
      case "\\":
        if i + 1 < c.count {
          if c[i + 1] != "\n" { current.append(c[i + 1]) }
          started = true
        }
        i += 2
      case "'":
        var j = i + 1
        while j < c.count && c[j] != "'" { j += 1 }
        current += String(c[(i + 1)..<min(j, c.count)])
        started = true
        i = min(j + 1, c.count)
      case "\"":
        started = true
        i += 1
        while i < c.count && c[i] != "\"" {
          if c[i] == "\\", i + 1 < c.count, "$`\"\\\n".contains(c[i + 1]) {
            if c[i + 1] != "\n" { current.append(c[i + 1]) }
            i += 2
          } else if c[i] == "$" {
            dollar(quoted: true)
          } else if c[i] == "`" {
            backquote()
          } else {
            current.append(c[i])
            i += 1
          }
        }
        i += 1
      case "$":
        dollar(quoted: false)
      case "`":
        backquote()
      case "~" where i == start || (assignment != nil && i == start + assignment!):
        let end = i + 1 == c.count || c[i + 1] == "/" || c[i + 1].isWhitespace
        if end, let home = variables["HOME"] {
          current += home
        } else {
          current.append("~")
          result.complex = !end
        }
        started = true
        i += 1
      case "*", "?", "[":
        result.glob = true
        current.append(ch)
        started = true
        i += 1
      default:
        current.append(ch)
        started = true
        i += 1
      }
    }
    flush()
    result.raw = String(c[start..<i])
    return result
  }

  /// The index after the `)` that closes a `(` just before `from`, quotes respected.
  private static func balanced(_ c: [Character], from: Int) -> Int {
    var depth = 1
    var quotes = QuoteState()
    var i = from
    while i < c.count {
      let ch = c[i]
      if quotes.single {
        if ch == "'" { quotes.single = false }
      } else if ch == "\\" {
        i += 1
      } else if quotes.double {
        if ch == "\"" { quotes.double = false }
      } else if ch == "'" {
        quotes.single = true
      } else if ch == "\"" {
        quotes.double = true
      } else if ch == "(" {
        depth += 1
      } else if ch == ")" {
        depth -= 1
        if depth == 0 { return i + 1 }
      }
      i += 1
    }
    return c.count
  }

  /// The programs `tokens` start, as written: the first word of each simple command (after its
  /// assignments), and those of its substitutions, in order.
  static func programs(_ tokens: [ShellToken]) -> [String] {
    var programs: [String] = []
    var position = true
    var redirectTarget = false
    var forHeader = false
    for token in tokens {
      switch token {
      case .op(let op):
        if redirections.contains(op) {
          redirectTarget = true
        } else {
          position = op != ")"
        }
      case .word(let word):
        for inner in word.substitutions {
          programs += Self.programs(tokenize(inner, variables: [:]))
        }
        if redirectTarget {
          redirectTarget = false
          continue
        }
        if forHeader {
          if word.raw == "do" {
            forHeader = false
            position = true
          }
          continue
        }
        guard position else { continue }
        switch word.raw {
        // `case` is left a program, unknown to the test: its patterns are not commands.
        case "for": forHeader = true
        case "do", "then", "else", "elif", "if", "while", "until", "!", "{": continue
        case "done", "fi", "esac", "}": position = false
        default:
          if word.isAssignment { continue }
          programs.append(word.raw)
          position = false
        }
      }
    }
    return programs
  }

  /// Every word of `tokens` and of their substitutions.
  static func allWords(_ tokens: [ShellToken], variables: [String: String]) -> [ShellWord] {
    var words: [ShellWord] = []
    for case .word(let word) in tokens {
      words.append(word)
      for inner in word.substitutions {
        words += allWords(tokenize(inner, variables: variables), variables: variables)
      }
    }
    return words
  }
}
