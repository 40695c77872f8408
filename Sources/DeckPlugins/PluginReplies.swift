import DeckBase
import DeckCore
import DeckStrategies
import Foundation

/// Reading a `ranked` reply: each diner's result becomes its `Scores`, and anything that does
/// not fit the request is a fault of the plugin.
extension PluginStrategy {
  /// One diner's scores from its result; order replies become scores n, n-1, ..., 1.
  func scores(_ result: JSONValue, for context: ScoringContext, request: String)
    throws(StrategyError) -> Scores
  {
    let user = context.user.id
    let n = context.candidates.count
    let propensities = result["propensities"]
    if let list = result["scores"] {
      guard let values = list.arrayValue else {
        throw fail(
          .malformed, request, "'scores' of user '\(user)' is \(list.typeDescription), not an array"
        )
      }
      guard values.count == n else {
        throw fail(
          .wrongCount, request,
          "returned \(values.count) scores for \(n) candidates of user '\(user)'; send one score per candidate, in candidate order"
        )
      }
      let (out, firstNonNumber) = list.numberElements()!
      // The first fault in candidate order: `out` ends before the first element that is not a
      // number.
      if let k = out.firstIndex(where: { !$0.isFinite }) {
        throw fail(
          .nonFinite, request,
          "returned a non-finite score (\(out[k])) for item '\(catalog![context.candidates[k]].id)' of user '\(user)'"
        )
      }
      if let k = firstNonNumber {
        throw fail(
          .malformed, request,
          "score \(k + 1) of user '\(user)' is \(values[k].typeDescription), not a number")
      }
      let p = try self.propensities(propensities, count: n, user: user, request: request)
      return Scores(out, propensities: p)
    }
    if let list = result["order"] {
      guard let entries = list.arrayValue else {
        throw fail(
          .malformed, request, "'order' of user '\(user)' is \(list.typeDescription), not an array")
      }
      // Candidate index of each catalog index in this request.
      var slot: [Int: Int] = [:]
      for (k, item) in context.candidates.enumerated() { slot[Int(item)] = k }
      var out = [Double](repeating: 0, count: n)
      var seen = [Bool](repeating: false, count: n)
      var position = [Int](repeating: 0, count: n)
      for (rank, entry) in entries.enumerated() {
        guard let id = entry.stringValue else {
          throw fail(
            .malformed, request,
            "order entry \(rank + 1) of user '\(user)' is \(entry.typeDescription), not an item id")
        }
        guard let index = indexOfID[IDKey(id)], let k = slot[index] else {
          let what = indexOfID[IDKey(id)] == nil ? "not in the catalog" : "not a candidate"
          throw fail(
            .badItem, request,
            "order of user '\(user)' names '\(id)', which is \(what); order only the request's candidates"
          )
        }
        guard !seen[k] else {
          throw fail(.badItem, request, "order of user '\(user)' lists '\(id)' twice")
        }
        seen[k] = true
        position[k] = rank
        out[k] = Double(n - rank)
      }
      guard entries.count == n else {
        let missing = seen.firstIndex(of: false).map { catalog![context.candidates[$0]].id } ?? ""
        throw fail(
          .wrongCount, request,
          "order of user '\(user)' lists \(entries.count) of \(n) candidates (missing '\(missing)'); order every candidate"
        )
      }
      var p = try self.propensities(propensities, count: n, user: user, request: request)
      if let byRank = p { p = position.map { byRank[$0] } }
      return Scores(out, propensities: p)
    }
    throw fail(.malformed, request, "the result of user '\(user)' has neither 'scores' nor 'order'")
  }

  private func propensities(_ value: JSONValue?, count n: Int, user: String, request: String)
    throws(StrategyError) -> [Double]?
  {
    guard let value, !value.isNull else { return nil }
    guard let list = value.arrayValue else {
      throw fail(
        .malformed, request,
        "'propensities' of user '\(user)' is \(value.typeDescription), not an array")
    }
    guard list.count == n else {
      throw fail(
        .wrongCount, request,
        "returned \(list.count) propensities for \(n) candidates of user '\(user)'")
    }
    let (out, firstNonNumber) = value.numberElements()!
    let bad = firstNonNumber ?? out.firstIndex(where: { !($0.isFinite && $0 >= 0 && $0 <= 1) })
    if let k = bad {
      let shown = k < out.count ? String(out[k]) : list[k].typeDescription
      throw fail(
        .nonFinite, request,
        "propensity \(k + 1) of user '\(user)' is \(shown); a propensity is a probability in 0...1")
    }
    return out
  }
}
