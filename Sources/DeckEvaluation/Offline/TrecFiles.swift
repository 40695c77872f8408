import DeckBase
import DeckCore
import DeckIO

/// An id that cannot go into a TREC file: empty, or holding whitespace.
package struct TrecIDError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What the id names: "user", "item" or "run tag".
  package var kind: String
  package var id: String

  package var description: String {
    let shown = id.debugDescription
    if id.isEmpty {
      return "\(kind) id \(shown) is empty; TREC files need a non-empty id in every field"
    }
    return "\(kind) id \(shown) contains whitespace; TREC files separate fields by whitespace"
      + " and have no escape: rename the \(kind) or leave out the TREC export"
  }
}

/// TREC run and qrels files, the inputs of trec_eval, so that anyone can check the offline
/// ranking metrics with it (`trec_eval -c -m P.5 -m recall.5 -m ndcg_cut.5 -m map_cut.5
/// -m recip_rank qrels run`).
///
/// Ids are written as they are. trec_eval splits lines at whitespace and knows no escape, and an
/// escaped id would not match the ids an analyst sees everywhere else, so an id that is empty or
/// holds whitespace (any Unicode whitespace, line breaks included) is refused with `TrecIDError`
/// rather than escaped.
package enum TrecFiles {
  /// The run file of one strategy: per user with a non-empty ranking, in the order given, one
  /// line per ranked item, `user Q0 item rank score tag`, rank 1 first. The score is
  /// `n + 1 - rank` for a list of n items: a whole number, strictly decreasing with the rank, so
  /// trec_eval (which orders by score and ignores the rank column) keeps the list's order and
  /// never needs its own tie rule. Users with an empty ranking have no line (a run cannot say
  /// "nothing"): run trec_eval with `-c` to count them, with 0, as the offline metrics do.
  package static func run(users: [String], rankings: [[String]], tag: String)
    throws(TrecIDError) -> String
  {
    precondition(rankings.count == users.count, "one ranking per user")
    try check(tag, kind: "run tag")
    var text = ""
    for (user, ranking) in zip(users, rankings) where !ranking.isEmpty {
      try check(user, kind: "user")
      for (offset, item) in ranking.enumerated() {
        try check(item, kind: "item")
        text += "\(user) Q0 \(item) \(offset + 1) \(ranking.count - offset) \(tag)\n"
      }
    }
    return text
  }

  /// The run file of rankings of catalog indices, with `itemIDs[index]` written for an index.
  package static func run(users: [String], rankings: [[Int32]], itemIDs: [String], tag: String)
    throws(TrecIDError) -> String
  {
    try run(users: users, rankings: rankings.map { $0.map { itemIDs[Int($0)] } }, tag: tag)
  }

  /// The qrels file: per user, in the order given, one line `user 0 item 1` per relevant item,
  /// then one line `user 0 item 0` per item judged not relevant (swiped left only), each in the
  /// order given. Users without a relevant item have no line, so trec_eval does not evaluate
  /// them (nor do the offline metrics). The 0-judgements change no measure that counts
  /// relevant items only (P, recall, nDCG, MAP, reciprocal rank); they make `bpref` and
  /// judged-at-k computable.
  package static func qrels(
    users: [String], relevant: [[String]], nonRelevant: [[String]]? = nil
  ) throws(TrecIDError) -> String {
    precondition(relevant.count == users.count, "one relevant list per user")
    precondition(nonRelevant.map { $0.count == users.count } ?? true, "one list per user")
    var text = ""
    for (u, (user, items)) in zip(users, relevant).enumerated() where !items.isEmpty {
      try check(user, kind: "user")
      for item in items {
        try check(item, kind: "item")
        text += "\(user) 0 \(item) 1\n"
      }
      for item in nonRelevant?[u] ?? [] {
        try check(item, kind: "item")
        text += "\(user) 0 \(item) 0\n"
      }
    }
    return text
  }

  /// The qrels file of catalog indices, with `itemIDs[index]` written for an index.
  package static func qrels(
    users: [String], relevant: [[Int32]], nonRelevant: [[Int32]]? = nil, itemIDs: [String]
  ) throws(TrecIDError) -> String {
    try qrels(
      users: users, relevant: relevant.map { $0.map { itemIDs[Int($0)] } },
      nonRelevant: nonRelevant?.map { $0.map { itemIDs[Int($0)] } })
  }

  /// Reads a run file (`query Q0 doc rank score tag`) into, per query, its docs in trec_eval's
  /// order (`TrecRun.parse`: by score, highest first; equal scores by doc id, descending byte
  /// order). The rank column must be a whole number but is not used, as in trec_eval. Blank
  /// lines are skipped; a doc twice for one query is an error. Queries and docs are their
  /// bytes, as trec_eval compares them (`IDKey`).
  package static func readRun(_ text: String, name: String) throws(DeckIOError) -> [IDKey:
    [IDKey]]
  {
    try TrecRun.parse(Array(text.utf8), file: name).byQuery.mapValues { docs in
      docs.map { IDKey($0) }
    }
  }

  /// Reads a qrels file (`query iteration doc relevance`) into, per query, the docs with
  /// relevance ≥ 1 (trec_eval's default threshold). A query whose lines all have relevance ≤ 0
  /// maps to an empty set. Lines end with LF or CRLF and fields are separated by spaces or tabs,
  /// as in the run reader (`TrecRun.parse`): any other character, a line or paragraph separator
  /// included, is part of an id, and a lone carriage return is an error. Blank lines are
  /// skipped. Queries and docs are their bytes, as trec_eval compares them (`IDKey`).
  package static func readQrels(_ text: String, name: String) throws(DeckIOError) -> [IDKey:
    Set<IDKey>]
  {
    var relevant: [IDKey: Set<IDKey>] = [:]
    let lines = Array(text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false)
    for (index, piece) in lines.enumerated() {
      let number = index + 1
      // The last piece has no line feed after it: a carriage return there is a lone one.
      let line = index < lines.count - 1 && piece.last == 0x0D ? piece.dropLast() : piece
      if let cr = line.firstIndex(of: 0x0D) {
        let column = 1 + line[..<cr].count { $0 & 0xC0 != 0x80 }
        throw .malformed(
          SourceLocation(file: name, line: number, column: column),
          message: loneCarriageReturnMessage)
      }
      let fields = line.split(whereSeparator: { $0 == 0x20 || $0 == 0x09 }).map {
        String(decoding: $0, as: UTF8.self)
      }
      if fields.isEmpty { continue }
      let location = SourceLocation(file: name, line: number)
      guard fields.count == 4 else {
        throw .malformed(
          location,
          message: "expected 4 fields (query iteration doc relevance), found \(fields.count):"
            + " fix the line")
      }
      guard let level = Int(fields[3]) else {
        throw .malformed(
          location, message: "relevance \(fields[3].debugDescription) is not a whole number")
      }
      let query = IDKey(fields[0])
      var docs = relevant[query, default: []]
      if level >= 1 { docs.insert(IDKey(fields[2])) }
      relevant[query] = docs
    }
    return relevant
  }

  private static func check(_ id: String, kind: String) throws(TrecIDError) {
    if id.isEmpty || id.contains(where: \.isWhitespace) {
      throw TrecIDError(kind: kind, id: id)
    }
  }
}
