import DeckBase

/// The byte that separates the fields of a CSV input: a comma (RFC 4180's, the default), a
/// semicolon (what spreadsheets write where the comma is the decimal mark, Excel in most of
/// Europe) or a tab. Quoting stays RFC 4180's with any of them: a field that holds the
/// delimiter, a quote or a line break is quoted, and quotes inside are doubled.
///
/// Every CSV reader takes one (catalogs, users, swipe logs with or without a column mapping,
/// policy files); none guesses it. A header row that is one field holding another of these
/// bytes is refused with a message naming the delimiter it has (`wrongDelimiter`), so a
/// semicolon file read as commas never goes on to "no 'user' column" or a count of fields.
package enum CSVDelimiter: UInt8, Sendable, CaseIterable, CustomStringConvertible {
  case comma = 0x2C
  case semicolon = 0x3B
  case tab = 0x09

  /// The byte.
  @inline(__always) package var byte: UInt8 { rawValue }

  /// How `--delimiter` and the config spell it: `,`, `;` or `tab`.
  package var spelling: String {
    switch self {
    case .comma: return ","
    case .semicolon: return ";"
    case .tab: return "tab"
    }
  }

  /// How messages name it: `','`, `';'`, `tab`.
  package var description: String {
    self == .tab ? "tab" : "'\(spelling)'"
  }

  /// The words for a hint: `--delimiter ';'`, `--delimiter tab`.
  package var option: String {
    "--delimiter " + (self == .tab ? "tab" : "'\(spelling)'")
  }

  /// "commas", "semicolons", "tabs": for "quote fields that contain ...".
  package var plural: String {
    switch self {
    case .comma: return "commas"
    case .semicolon: return "semicolons"
    case .tab: return "tabs"
    }
  }

  /// What `spelling` accepts, for messages.
  package static let expected =
    "',' (or comma), ';' (or semicolon), or tab (a tab character or '\\t')"

  /// The delimiter a text names: `,` or `comma`, `;` or `semicolon`, `tab`, `\t` (backslash
  /// and t, as shells pass it) or a tab character; any case for the words. nil for anything
  /// else.
  package init?(spelling text: String) {
    switch text.lowercased() {
    case ",", "comma": self = .comma
    case ";", "semicolon": self = .semicolon
    case "tab", "\t", "\\t": self = .tab
    default: return nil
    }
  }

  /// The delimiter that separates a header line read as one field with `self` (`field`: its
  /// bytes, unquoted): the one of the others it holds most often, or nil when it holds none of
  /// them. A header of one column never holds one in a valid file (the column would be named
  /// after two), so this is no guess: the file cannot be read as given.
  package func separating<C: Collection>(_ field: C) -> CSVDelimiter? where C.Element == UInt8 {
    var best: CSVDelimiter?
    var bestCount = 0
    for other in CSVDelimiter.allCases where other != self {
      let count = field.reduce(0) { $0 + ($1 == other.byte ? 1 : 0) }
      if count > bestCount {
        best = other
        bestCount = count
      }
    }
    return best
  }

  /// The message of a header separated by `found` where `self` was expected: "the header is
  /// separated by ';', not ','; give --delimiter ';'".
  package func wrongDelimiter(_ found: CSVDelimiter) -> String {
    "the header is separated by \(found.separating), not \(separating); give \(found.option)"
  }

  /// The message of a log whose first row after the header is one field holding `found`
  /// where `self` was expected: "the rows are separated by ';', not ','; give --delimiter ';'",
  /// and, for a header given on the command line (`--csv-header`), that its names are
  /// separated the same way.
  package func wrongRowDelimiter(_ found: CSVDelimiter, givenHeader: Bool) -> String {
    "the rows are separated by \(found.separating), not \(separating); give \(found.option)"
      + (givenHeader ? " and separate the names of --csv-header by \(found.separating) too" : "")
  }

  /// `';'` or `tabs`, after "separated by".
  private var separating: String { self == .tab ? "tabs" : description }
}
