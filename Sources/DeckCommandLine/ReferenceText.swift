import Foundation

/// The discussion of a command split into what the pages render differently: prose paragraphs
/// and preformatted lines (examples), by the rule the help text follows (a line that starts with
/// a space or a tab is kept as it is; other lines run together into a paragraph).
package enum DiscussionBlock: Equatable {
  case paragraph(String)
  case preformatted([String])

  package static func parse(_ text: String) -> [DiscussionBlock] {
    var blocks: [DiscussionBlock] = []
    var paragraph: [Substring] = []
    var lines: [Substring] = []
    func endParagraph() {
      if !paragraph.isEmpty {
        blocks.append(.paragraph(paragraph.joined(separator: " ")))
        paragraph = []
      }
    }
    func endLines() {
      if lines.isEmpty { return }
      // Examples are indented in the help; the pages indent them themselves.
      let indent = lines.map { line in line.prefix { $0 == " " || $0 == "\t" }.count }.min() ?? 0
      blocks.append(
        .preformatted(
          lines.map { String($0.dropFirst(indent).reversed().drop { $0 == " " }.reversed()) }))
      lines = []
    }
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      let trimmed = line.drop { $0 == " " || $0 == "\t" }
      if trimmed.isEmpty {
        endParagraph()
        endLines()
      } else if trimmed.count != line.count {
        endParagraph()
        lines.append(line)
      } else {
        endLines()
        paragraph.append(line)
      }
    }
    endParagraph()
    endLines()
    return blocks
  }
}

/// Escaping for the two page languages, Markdown and roff.
package enum ReferenceEscaping {
  /// Prose for Markdown: a '<' that could open an HTML tag is written as an entity, so that
  /// `<file>` shows as typed; everything else (quotes, `>=`, underscores in names) stays.
  package static func markdown(_ text: String) -> String {
    var out = ""
    var previous: Character?
    for c in text {
      if previous == "<" {
        if c.isLetter || c == "/" || c == "!" || c == "?" {
          out += "&lt;"
        } else {
          out += "<"
        }
      }
      if c != "<" { out.append(c) }
      previous = c
    }
    if previous == "<" { out += "<" }
    return out
  }

  /// A Markdown table cell: prose with its '|' escaped (a bare one would end the cell).
  package static func cell(_ text: String) -> String {
    markdown(text).replacingOccurrences(of: "|", with: "\\|")
  }

  /// Inline code in Markdown; a backtick inside gets a longer fence.
  package static func code(_ text: String) -> String {
    text.contains("`") ? "`` " + text + " ``" : "`" + text + "`"
  }

  /// Text for roff: backslashes doubled as `\e`, hyphens of options as `\-`, and a line that
  /// would start with a control character ('.' or '\'') protected by `\&`.
  package static func roff(_ text: String) -> String {
    var out = text.replacingOccurrences(of: "\\", with: "\\e")
    out = out.replacingOccurrences(of: "-", with: "\\-")
    return out.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : String(line)
    }.joined(separator: "\n")
  }
}
