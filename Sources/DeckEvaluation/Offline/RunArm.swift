import DeckBase
import DeckCore
import DeckIO

/// A TREC run file evaluated beside the strategies (`compare --run`): its rankings of the
/// evaluated diners as catalog indices, ready for `OfflineEvaluation`, and what did not fit.
///
/// A query is a diner id and a doc a dish id, both compared by their bytes. As trec_eval does
/// with `-c -M depth`:
/// - an evaluated diner the run has no line for gets an empty ranking (0 for every accuracy
///   metric);
/// - queries that are not evaluated diners are ignored (trec_eval evaluates the queries of the
///   relevance judgements only);
/// - only the first `depth` docs of a query are evaluated (the deck size, so that every arm is
///   judged on as many ranks);
/// - a doc that is no catalog dish is a document without a judgement: not relevant. It keeps
///   its rank, as a negative index (`OfflineArm`), and is left out of coverage, novelty,
///   diversity and popularity bias.
package struct RunArm: Sendable, Equatable {
  package var name: String
  package var file: String
  /// Per evaluated diner (in the order given), its first `depth` docs as catalog indices; a doc
  /// the catalog does not hold is -1 - (its number among the unknown docs).
  package var rankings: [[Int32]]
  /// Per catalog index, how many of the evaluated rankings hold it (the report's top dishes).
  package var shown: [Int]
  /// Evaluated diners without a line in the run.
  package var missingDiners: Int
  /// Queries of the run that are not evaluated diners.
  package var ignoredQueries: Int
  /// Evaluated diners whose query lists more docs than `depth`.
  package var truncatedDiners: Int
  /// Evaluated ranks (within `depth`, of evaluated diners) that name no catalog dish.
  package var unknownRanks: Int
  /// The distinct unknown doc ids among them, in order of first rank (at most
  /// `unknownExamples` kept).
  package var unknownDocs: [String]
  /// How many distinct unknown doc ids there are.
  package var unknownDocCount: Int
  /// The depth evaluated.
  package var depth: Int

  /// How many unknown doc ids a note names.
  package static let unknownExamples = 3

  /// The run's rankings of `users` (the evaluated diners, in the evaluation's order).
  package init(
    _ run: TrecRun, name: String, users: [String], catalog: Catalog, depth: Int
  ) {
    precondition(depth >= 1, "the depth must be at least 1")
    self.name = name
    file = run.file
    self.depth = depth
    var byQuery: [[UInt8]: Int] = [:]
    for (q, query) in run.queries.enumerated() { byQuery[Array(query.utf8)] = q }
    var unknownIndex: [String: Int32] = [:]
    var examples: [String] = []
    var counts = [Int](repeating: 0, count: catalog.count)
    var rankings: [[Int32]] = []
    rankings.reserveCapacity(users.count)
    var used = 0
    var missing = 0
    var truncated = 0
    var unknownRanks = 0
    for user in users {
      guard let q = byQuery[Array(user.utf8)] else {
        missing += 1
        rankings.append([])
        continue
      }
      used += 1
      let docs = run.rankings[q]
      if docs.count > depth { truncated += 1 }
      var list: [Int32] = []
      list.reserveCapacity(min(docs.count, depth))
      for doc in docs.prefix(depth) {
        // By bytes: a doc spelt another way than the catalog's id (another Unicode form) is
        // another doc, as for trec_eval, and never the dish twice.
        if let item = catalog.index(of: doc),
          catalog.items[Int(item)].id.utf8.elementsEqual(doc.utf8)
        {
          counts[Int(item)] += 1
          list.append(item)
        } else {
          unknownRanks += 1
          if let known = unknownIndex[doc] {
            list.append(known)
          } else {
            let index = -1 - Int32(unknownIndex.count)
            unknownIndex[doc] = index
            if examples.count < Self.unknownExamples { examples.append(doc) }
            list.append(index)
          }
        }
      }
      rankings.append(list)
    }
    self.rankings = rankings
    shown = counts
    missingDiners = missing
    ignoredQueries = run.queries.count - used
    truncatedDiners = truncated
    self.unknownRanks = unknownRanks
    unknownDocs = examples
    unknownDocCount = unknownIndex.count
  }

  /// The arm for `OfflineEvaluation`.
  package var offlineArm: OfflineArm { OfflineArm(name: name, rankings: rankings) }

  /// The notes of the report about this run: diners it does not rank, queries it ranks that are
  /// not evaluated, docs below the depth, docs that are no dish. Empty when all fit.
  package func notes(evaluatedDiners: Int) -> [String] {
    var notes: [String] = []
    let plural = TextLayout.plural
    if missingDiners > 0 {
      notes.append(
        "the run \(name) (\(file)) ranks nothing for \(missingDiners) of the"
          + " \(plural(evaluatedDiners, "evaluated diner", nil)): they count 0 for it, as with"
          + " trec_eval -c")
    }
    if ignoredQueries > 0 {
      let one = ignoredQueries == 1
      notes.append(
        "\(plural(ignoredQueries, "query", "queries")) of the run \(name)"
          + (one ? " is not an evaluated diner" : " are not evaluated diners")
          + " (no right swipe in the evaluation period, or no diner of the log) and"
          + (one ? " is" : " are") + " ignored, as trec_eval ignores queries without relevance"
          + " judgements")
    }
    if truncatedDiners > 0 {
      notes.append(
        "the run \(name) lists more than \(plural(depth, "doc", nil)) (the deck size) for"
          + " \(plural(truncatedDiners, "evaluated diner", nil)); only the first \(depth) are"
          + " evaluated, as with trec_eval -M \(depth), so that every arm is judged on as many"
          + " ranks (give --size N to evaluate more)")
    }
    if unknownRanks > 0 {
      let shown = unknownDocs.map { "'\($0)'" }.joined(separator: ", ")
      let more = unknownDocCount > unknownDocs.count ? ", ..." : ""
      notes.append(
        "\(plural(unknownRanks, "evaluated rank", nil)) of the run \(name) name"
          + " \(plural(unknownDocCount, "doc", nil)) that \(unknownDocCount == 1 ? "is" : "are")"
          + " not a dish of the catalog (\(shown)\(more)): they count as not relevant, as"
          + " trec_eval counts documents without a judgement, and are left out of coverage,"
          + " novelty, diversity and popularity bias")
    }
    return notes
  }
}
