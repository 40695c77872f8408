// CSVParser (Sources/DeckIO/CSVParser.swift): the parser of CSV catalogs, users and imports.
// Invariant: a table that parses, written back with every field quoted, parses to the same
// header and fields; the LF and CRLF versions of the written table parse alike.

@testable import DeckIO

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSV(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  let input = FuzzBytes(data, count)
  guard let table = try? CSVParser.parse(input.bytes, file: "fuzz.csv") else { return 0 }
  // A line break inside quotes reads as LF whether it is LF or CRLF, so data can hold CRLF only
  // from a lone CR before a CRLF ("\r\r\n"), and written back it reads as LF: not comparable.
  // Looked for in the bytes: as characters, a CRLF before a combining mark ("\r\n\u{31A}") was
  // not found (found by this target).
  let crlf = ([table.header] + table.records.map(\.fields)).contains {
    $0.contains { field in
      let bytes = Array(field.utf8)
      return bytes.indices.dropLast().contains { bytes[$0] == 0x0D && bytes[$0 + 1] == 0x0A }
    }
  }
  if crlf { return 0 }
  for eol in ["\n", "\r\n"] {
    var text = table.header.map(quoted).joined(separator: ",") + eol
    for r in table.records { text += r.fields.map(quoted).joined(separator: ",") + eol }
    let again: CSVTable
    do {
      again = try CSVParser.parse(text, file: "again.csv")
    } catch {
      require(false, "the written table does not parse: \(error)\n\(text.debugDescription)")
      return 0
    }
    require(again.header == table.header, "other header: \(again.header) for \(table.header)")
    require(
      again.records.map(\.fields) == table.records.map(\.fields),
      "other records for \(text.debugDescription)")
  }
  // Lines of the records only increase, and fields start where the text says.
  var line = table.headerLine
  for r in table.records {
    require(r.line > line, "record line \(r.line) after \(line)")
    require(r.positions.count == r.fields.count, "a position per field")
    line = r.line
  }
  return 0
}

/// `s` quoted with its quotes doubled, byte by byte (by characters, a quote followed by a
/// combining mark is one character and would not be doubled).
private func quoted(_ s: String) -> String {
  var out: [UInt8] = [0x22]
  for b in s.utf8 {
    if b == 0x22 { out.append(0x22) }
    out.append(b)
  }
  out.append(0x22)
  return String(decoding: out, as: UTF8.self)
}
