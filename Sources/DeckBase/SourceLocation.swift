/// Where in an input something is: file, 1-based line, optional 1-based column (in characters as
/// a text editor counts them) and the field name when that helps.
public struct SourceLocation: Sendable, Equatable, CustomStringConvertible {
  public var file: String
  public var line: Int
  public var column: Int?
  public var field: String?

  public init(file: String, line: Int, column: Int? = nil, field: String? = nil) {
    self.file = file
    self.line = line
    self.column = column
    self.field = field
  }

  /// `file:line:column` (column omitted when unknown).
  public var description: String {
    var s = "\(file):\(line)"
    if let column { s += ":\(column)" }
    return s
  }
}
