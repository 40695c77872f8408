/// The one JSON parser of menudeck: RFC 8259 over UTF-8 bytes, keeping the line and column of
/// every value, in two dialects.
///
/// - ``Dialect/document`` (config, catalogs, users): strict, and its messages are for a person
///   editing the file. Rejected, each at the offending byte with what was expected there:
///   trailing commas, comments, single-quoted strings, leading zeros, numbers out of range,
///   invalid escapes, lone surrogates, raw control characters in strings, invalid UTF-8,
///   duplicate keys (both positions named), nesting deeper than ``maxDepth``, and anything after
///   the value. A leading UTF-8 byte order mark is skipped (RFC 8259 section 8.1 allows ignoring
///   it). A carriage return is white space, as RFC 8259 says, so a document reads the same
///   whatever its line ends (LF, CRLF, or CR alone, as old Mac files have); for locations, a CR
///   not followed by a line feed ends a line, as a line feed does.
/// - ``Dialect/record`` (one line of a JSON Lines file read whole, a policy file's decks): the
///   document dialect, but a carriage return not followed by a line feed is refused
///   (`loneCarriageReturnMessage`), the rule of every reader of line records: a file with CR-only
///   line ends would be one record.
/// - ``Dialect/protocolLine`` (plugin replies, one line each): what a program writes. `NaN`,
///   `Infinity` and `-Infinity` are numbers (Python writes them by default; the plugin host
///   reports them as non-finite scores, a clearer fault than malformed JSON), as is a number too
///   large for a double (infinity); a repeated key keeps its last value; bytes that are not UTF-8
///   are decoded with replacement characters; any carriage return is white space. Its messages
///   are short ("expected ':'"), for the host to quote with a byte offset. Its numbers are values
///   only (their text is not kept): a rank reply carries millions of them.
///
/// Linear in the input (a 5 MB catalog parses in a fraction of a second). The event reader has a
/// parser of its own for JSON Lines (DeckIO's EventReaderJSON.swift), which never builds a tree.
package enum JSONReader {
  /// The deepest nesting of arrays and objects accepted, by every JSON reader of menudeck (this
  /// one in both dialects, and the event reader's).
  package static let maxDepth = 512

  /// How a JSON text is read; see ``JSONReader``.
  package struct Dialect: Sendable, Equatable {
    /// Messages for people (with what was found and hints at the usual mistakes), or short ones.
    package var explains: Bool
    /// Duplicate keys are refused, or the last one wins.
    package var refusesDuplicateKeys: Bool
    /// `NaN`, `Infinity` and `-Infinity` are numbers, and so is an overflowing number (infinity).
    package var allowsNonFinite: Bool
    /// UTF-8 is checked and a byte order mark skipped.
    package var checksText: Bool
    /// A carriage return not followed by a line feed is refused instead of being white space.
    package var refusesLoneCarriageReturn: Bool
    /// Numbers keep the text they were written with (for messages that quote it); without it a
    /// number's text is empty, and reading one makes no String.
    package var keepsNumberText: Bool

    /// Config, catalogs and users.
    package static let document = Dialect(
      explains: true, refusesDuplicateKeys: true, allowsNonFinite: false, checksText: true,
      refusesLoneCarriageReturn: false, keepsNumberText: true)
    /// One line of a JSON Lines file (a policy file's decks).
    package static let record = Dialect(
      explains: true, refusesDuplicateKeys: true, allowsNonFinite: false, checksText: true,
      refusesLoneCarriageReturn: true, keepsNumberText: true)
    /// One line of the plugin protocol.
    package static let protocolLine = Dialect(
      explains: false, refusesDuplicateKeys: false, allowsNonFinite: true, checksText: false,
      refusesLoneCarriageReturn: false, keepsNumberText: false)
  }

  /// Parses one JSON text. `file` names the input in locations.
  package static func parse(_ bytes: [UInt8], file: String, dialect: Dialect = .document)
    throws(JSONSyntaxError) -> JSONValue
  {
    var reader = JSONTreeReader(bytes: bytes, file: file, dialect: dialect)
    return try reader.document()
  }
}

/// Why a text is not JSON: where (line and column, and the byte offset from the start) and what
/// is wrong there, in the words of the dialect.
package struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
  package var location: SourceLocation
  /// The byte offset the dialect points at (for a protocol line, where reading stopped).
  package var offset: Int
  package var message: String

  package var description: String { "\(location): \(message)" }
}
