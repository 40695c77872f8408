import DeckBase
import DeckCore

/// A TREC run file read as trec_eval reads it: per query, its documents ranked by score.
///
/// Each line is `query Q0 doc rank score tag`, six fields separated by spaces or tabs:
///
///     u07 Q0 nikujaga 1 12.5 bm25
///     u07 Q0 gyudon 2 11.0 bm25
///
/// - The order of the documents of a query is trec_eval's: by score, highest first; equal
///   scores by document id in descending byte order. The rank column must be a whole number but
///   is not used (trec_eval ignores it too); the `Q0` column is not looked at.
/// - The tag of the first line is the run's name (trec_eval's `runid`); other lines may carry
///   other tags.
/// - Blank lines are skipped. Lines end with LF or CRLF (the one line-end rule); ids are
///   compared by their UTF-8 bytes, as everywhere in menudeck.
///
/// Every mistake stops the read with its file, line and column (exit 65): a line without six
/// fields, a rank that is not a whole number, a score that is not a finite number, a document
/// listed twice for one query, a query with more than `maxRanks` documents, a line longer than
/// `maxLineBytes`, invalid UTF-8, a lone carriage return. Files over `maxBytes` are refused.
package struct TrecRun: Sendable, Equatable {
  package var file: String
  /// The tag (sixth field) of the first line: the name trec_eval gives the run. nil when the
  /// file has no line.
  package var tag: String?
  /// The query ids, in the order of their first line.
  package var queries: [String]
  /// Per query (in `queries` order), its document ids in trec_eval's order.
  package var rankings: [[String]]
  /// Lines read (not counting blank ones).
  package var lines: Int

  /// The most documents one query may list: the longest deck (`DeckRules.maxSize`).
  package static let maxRanks = 10_000
  /// The longest line, in bytes (without its line end).
  package static let maxLineBytes = 1 << 16
  /// The largest run file read, in bytes: a line takes about twice its size in memory while the
  /// file is sorted.
  package static let maxBytes = 512 << 20

  /// The documents of each query, by query id (its bytes: queries are distinct by bytes).
  package var byQuery: [IDKey: [String]] {
    Dictionary(zip(queries.map { IDKey($0) }, rankings), uniquingKeysWith: { first, _ in first })
  }

  /// Reads a run file's bytes.
  package static func parse(_ bytes: [UInt8], file: String) throws(DeckIOError) -> TrecRun {
    // Ids by their bytes: two spellings of one character are two ids, as everywhere.
    var queries = InternedIDs()
    var docs = InternedIDs()
    // Per query, its (document, score) pairs in file order.
    var entries: [[(doc: Int32, score: Double)]] = []
    // (query << 32 | document) of every line, to find a document listed twice.
    var seen = Set<UInt64>()
    var tag: String?
    var lines = 0
    var line = 1
    var start = 0
    let n = bytes.count

    while start < n {
      // The line [start, end), its line feed at `end` (or the end of the file).
      var end = start
      while end < n && bytes[end] != 0x0A { end += 1 }
      var contentEnd = end
      if contentEnd > start && bytes[contentEnd - 1] == 0x0D && end < n { contentEnd -= 1 }
      let here = LineStart(file: file, line: line, start: start)
      let fields = try self.fields(bytes, here, contentEnd: contentEnd)
      defer {
        line += 1
        start = end + 1
      }
      if fields.isEmpty { continue }
      guard fields.count == 6 else {
        let at = fields.count > 6 ? fields[6].lowerBound : contentEnd
        throw here.failure(
          bytes, at,
          "expected 6 fields (query Q0 doc rank score tag), found \(fields.count): fix the line")
      }
      func text(_ f: Int) -> String { String(decoding: bytes[fields[f]], as: UTF8.self) }
      let rank = text(3)
      guard Int(rank) != nil else {
        throw here.failure(
          bytes, fields[3].lowerBound, "rank \(rank.debugDescription) is not a whole number")
      }
      let scoreText = text(4)
      guard let score = Double(scoreText), score.isFinite else {
        throw here.failure(
          bytes, fields[4].lowerBound,
          "score \(scoreText.debugDescription) is not a finite number")
      }
      let (q, newQuery) = queries.id(bytes[fields[0]])
      if newQuery { entries.append([]) }
      let query = queries.names[Int(q)]
      let d = docs.id(bytes[fields[2]]).id
      let doc = docs.names[Int(d)]
      guard seen.insert(UInt64(UInt32(q)) << 32 | UInt64(UInt32(d))).inserted else {
        throw here.failure(
          bytes, fields[2].lowerBound,
          "doc \(doc.debugDescription) is listed twice for query \(query.debugDescription):"
            + " keep one line")
      }
      guard entries[Int(q)].count < maxRanks else {
        throw here.failure(
          bytes, fields[0].lowerBound,
          "query \(query.debugDescription) lists more than \(maxRanks) docs; a run ranks at most"
            + " \(maxRanks) per query (the longest deck)")
      }
      entries[Int(q)].append((d, score))
      if tag == nil { tag = text(5) }
      lines += 1
    }
    return TrecRun(
      file: file, tag: tag, queries: queries.names,
      rankings: trecOrder(entries, docs: docs.names), lines: lines)
  }

  /// The fields of the line from `here.start` to `contentEnd`: runs of bytes other than space and
  /// tab. Refuses an over-long line, a carriage return and invalid UTF-8.
  private static func fields(_ bytes: [UInt8], _ here: LineStart, contentEnd: Int)
    throws(DeckIOError) -> [Range<Int>]
  {
    let start = here.start
    if contentEnd - start > maxLineBytes {
      throw here.failure(
        bytes, start + maxLineBytes,
        "the line is longer than \(maxLineBytes) bytes; a run line is query Q0 doc rank score"
          + " tag")
    }
    var fields: [Range<Int>] = []
    var i = start
    while i < contentEnd {
      let b = bytes[i]
      if b == 0x20 || b == 0x09 {
        i += 1
        continue
      }
      let fieldStart = i
      while i < contentEnd && bytes[i] != 0x20 && bytes[i] != 0x09 {
        let c = bytes[i]
        if c == 0x0D {
          throw here.failure(bytes, i, loneCarriageReturnMessage)
        }
        if c >= 0x80 {
          guard let length = utf8SequenceLength(bytes, i) else {
            throw here.failure(bytes, i, invalidUTF8Message(bytes, i))
          }
          i += length
        } else {
          i += 1
        }
      }
      fields.append(fieldStart..<i)
    }
    return fields
  }

  /// Each query's documents in trec_eval's order: by score, highest first; equal scores, the
  /// document id later in byte order first.
  private static func trecOrder(_ entries: [[(doc: Int32, score: Double)]], docs: [String])
    -> [[String]]
  {
    let byteOrder = docs.indices.sorted { docs[$0].utf8.lexicographicallyPrecedes(docs[$1].utf8) }
    var place = [Int32](repeating: 0, count: docs.count)
    for (p, d) in byteOrder.enumerated() { place[d] = Int32(p) }
    return entries.map { list in
      list.sorted {
        $0.score != $1.score ? $0.score > $1.score : place[Int($0.doc)] > place[Int($1.doc)]
      }.map { docs[Int($0.doc)] }
    }
  }

  /// Where a line starts, for its failures.
  private struct LineStart {
    var file: String
    var line: Int
    var start: Int

    /// A failure at byte `offset` of the file: its column counts characters from the line start.
    func failure(_ bytes: [UInt8], _ offset: Int, _ message: String) -> DeckIOError {
      var column = 1
      var k = start
      while k < offset && k < bytes.count {
        if bytes[k] & 0xC0 != 0x80 { column += 1 }
        k += 1
      }
      return .malformed(SourceLocation(file: file, line: line, column: column), message: message)
    }
  }

  /// Ids numbered in order of first appearance, told apart by their bytes.
  private struct InternedIDs {
    var index: [[UInt8]: Int32] = [:]
    var names: [String] = []

    /// The number of the id spelled by `bytes`, and whether it is new.
    mutating func id(_ bytes: ArraySlice<UInt8>) -> (id: Int32, new: Bool) {
      let key = Array(bytes)
      if let known = index[key] { return (known, false) }
      let id = Int32(names.count)
      index[key] = id
      names.append(String(decoding: key, as: UTF8.self))
      return (id, true)
    }
  }
}
