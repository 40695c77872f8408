/// Where in an input something is: file, 1-based line, optional 1-based column (in characters as
/// a text editor counts them) and the field name when that helps.
package struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
  package var file: String
  package var line: Int
  package var column: Int?
  package var field: String?

  package init(file: String, line: Int, column: Int? = nil, field: String? = nil) {
    self.file = file
    self.line = line
    self.column = column
    self.field = field
  }

  /// A file as a whole (line 0: no line of it in particular).
  package static func wholeFile(_ file: String) -> SourceLocation {
    SourceLocation(file: file, line: 0)
  }

  /// `file:line:column` (column omitted when unknown).
  package var description: String {
    var s = "\(file):\(line)"
    if let column { s += ":\(column)" }
    return s
  }
}
