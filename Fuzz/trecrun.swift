// TrecRun (Sources/DeckIO/TrecRunReader.swift): the reader of `compare --run` files.
// Invariant: a run that parses, written back (its queries in order, each query's docs in the
// order read, scores falling strictly, one tag) parses to the same queries and rankings, with
// LF and with CRLF line ends; every query has at most TrecRun.maxRanks docs, none twice.

@testable import DeckIO

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTrecRun(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
  let input = FuzzBytes(data, count)
  guard let run = try? TrecRun.parse(input.bytes, file: "fuzz.run") else { return 0 }
  require(run.queries.count == run.rankings.count, "a ranking per query")
  require(Set(run.queries.map { Array($0.utf8) }).count == run.queries.count, "a query once")
  for docs in run.rankings {
    require(!docs.isEmpty && docs.count <= TrecRun.maxRanks, "\(docs.count) docs for a query")
    require(Set(docs.map { Array($0.utf8) }).count == docs.count, "a doc twice: \(docs)")
  }
  let tag = run.tag ?? "t"
  for eol in ["\n", "\r\n"] {
    var text = ""
    for (query, docs) in zip(run.queries, run.rankings) {
      for (rank, doc) in docs.enumerated() {
        text += "\(query) Q0 \(doc) \(rank + 1) \(docs.count - rank) \(tag)\(eol)"
      }
    }
    let again: TrecRun
    do {
      again = try TrecRun.parse(Array(text.utf8), file: "again.run")
    } catch {
      require(false, "the written run does not parse: \(error)\n\(text.debugDescription)")
      return 0
    }
    require(again.queries == run.queries, "other queries for \(text.debugDescription)")
    require(again.rankings == run.rankings, "other rankings for \(text.debugDescription)")
    require(again.tag == run.tag, "other tag")
  }
  return 0
}
