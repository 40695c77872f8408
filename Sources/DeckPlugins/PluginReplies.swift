import DeckBase
import DeckCore
import DeckStrategies
import Foundation

/// Reading a `ranked` reply: each diner's result becomes its `Scores`, and anything that does
/// not fit the request is a fault of the plugin.
extension PluginStrategy {
  /// The most orders a `rankings` policy may list for one diner.
  package static let maxPolicyOrders = 100_000
  /// The most candidate ids a `rankings` policy may list for one diner, over all its orders
  /// (e.g. 100,000 orders of 10 cards): what menudeck keeps of a diner's distribution stays
  /// within a few megabytes, and is bounded before any of it is built.
  package static let maxPolicyEntries = 1_000_000

  /// One diner's scores from its result; order replies become scores n, n-1, ..., 1.
  ///
  /// Minor version 1 adds two fields. `prefix_propensities` (aligned like `propensities`)
  /// become `Scores.prefixPropensities`; `policy`, which only a rank request with
  /// `want_policy` (`asked`) may be answered with, becomes `Scores.policy`. Both are checked
  /// whatever the deck rules, but used as a built-in's are, only where the rules keep the
  /// plugin's order (`ScoringContext.deck` is nil): rules that may move cards make the deck
  /// something else than the first cards of the plugin's order, so its distribution and the
  /// probabilities of its order's prefixes are not the deck's, and are dropped (an evaluation
  /// then takes that diner's one deck, and says so).
  func scores(_ result: JSONValue, for context: ScoringContext, request: String, asked: Bool)
    throws(StrategyError) -> Scores
  {
    let user = context.user.id
    let n = context.candidates.count
    let propensities = result["propensities"]
    // The values, and where the result's per-position lists go (`position[k]`: the place of
    // candidate k in an order reply; nil for scores, whose lists are in candidate order).
    let values: [Double]
    var position: [Int]?
    if let list = result["scores"] {
      guard let entries = list.arrayValue else {
        throw fail(
          .malformed, request, "'scores' of user '\(user)' is \(list.typeDescription), not an array"
        )
      }
      guard entries.count == n else {
        throw fail(
          .wrongCount, request,
          "returned \(entries.count) scores for \(n) candidates of user '\(user)'; send one score per candidate, in candidate order"
        )
      }
      let (out, firstNonNumber) = list.numberElements()!
      // The first fault in candidate order: `out` ends before the first element that is not a
      // number.
      if let k = out.firstIndex(where: { !$0.isFinite }) {
        throw fail(
          .nonFinite, request,
          "returned a non-finite score (\(out[k])) for item '\(itemID(k, context))' of user '\(user)'"
        )
      }
      if let k = firstNonNumber {
        throw fail(
          .malformed, request,
          "score \(k + 1) of user '\(user)' is \(entries[k].typeDescription), not a number")
      }
      values = out
    } else if let list = result["order"] {
      let order = try candidateOrder(
        list, whose: "of user '\(user)'", slot: slots(context), complete: true, context: context,
        request: request)
      var out = [Double](repeating: 0, count: n)
      var at = [Int](repeating: 0, count: n)
      for (rank, k) in order.enumerated() {
        at[k] = rank
        out[k] = Double(n - rank)
      }
      values = out
      position = at
    } else {
      throw fail(
        .malformed, request, "the result of user '\(user)' has neither 'scores' nor 'order'")
    }
    var p = try numbers(
      propensities, .propensities, count: n, user: user, request: request)
    if let byRank = p, let position { p = position.map { byRank[$0] } }

    let prefixValue = result["prefix_propensities"].flatMap { $0.isNull ? nil : $0 }
    let policyValue = result["policy"].flatMap { $0.isNull ? nil : $0 }
    for (key, value) in [("prefix_propensities", prefixValue), ("policy", policyValue)]
    where value != nil && minorVersion < 1 {
      throw fail(
        .malformed, request,
        "the result of user '\(user)' carries '\(key)', a field of minor version 1, but the"
          + " plugin declared minor version 0 in its describe reply; declare \"minor\": 1 there"
          + " to send it")
    }
    var prefix = try numbers(
      prefixValue, .prefixPropensities, count: n, user: user, request: request)
    if let byRank = prefix, let position { prefix = position.map { byRank[$0] } }
    if let prefix {
      try checkPrefixes(
        prefix, propensities: p, values: values, context: context, request: request)
    }
    var policy: RankingPolicy?
    if let policyValue {
      guard asked else {
        throw fail(
          .malformed, request,
          "the result of user '\(user)' carries a 'policy', but the rank request did not ask for"
            + " one (it has no \"want_policy\": true); send a policy only when asked")
      }
      policy = try self.policy(policyValue, context: context, request: request)
    }
    let keepsOrder = context.deck == nil
    return Scores(
      values, propensities: p, prefixPropensities: keepsOrder ? prefix : nil,
      policy: keepsOrder && context.wantsPolicy ? policy : nil)
  }

  /// The id of candidate `k`, for messages.
  private func itemID(_ k: Int, _ context: ScoringContext) -> String {
    catalog![context.candidates[k]].id
  }

  /// The candidate index of each catalog index of the request.
  private func slots(_ context: ScoringContext) -> [Int: Int] {
    var slot: [Int: Int] = [:]
    slot.reserveCapacity(context.candidates.count)
    for (k, item) in context.candidates.enumerated() { slot[Int(item)] = k }
    return slot
  }

  /// The candidate indices of an order of ids (`order` of a result, or of a policy), each a
  /// candidate, none twice, every candidate when `complete`. `whose` ends each message: "of
  /// user 'u1'", "of the epsilon_greedy policy of user 'u1'".
  private func candidateOrder(
    _ list: JSONValue, whose: String, slot: [Int: Int], complete: Bool,
    context: ScoringContext, request: String
  ) throws(StrategyError) -> [Int] {
    guard let entries = list.arrayValue else {
      throw fail(.malformed, request, "'order' \(whose) is \(list.typeDescription), not an array")
    }
    let n = context.candidates.count
    var seen = [Bool](repeating: false, count: n)
    var out: [Int] = []
    out.reserveCapacity(min(entries.count, n))
    for (rank, entry) in entries.enumerated() {
      guard let id = entry.stringValue else {
        throw fail(
          .malformed, request,
          "order entry \(rank + 1) \(whose) is \(entry.typeDescription), not an item id")
      }
      guard let index = indexOfID[IDKey(id)], let k = slot[index] else {
        let what = indexOfID[IDKey(id)] == nil ? "not in the catalog" : "not a candidate"
        throw fail(
          .badItem, request,
          "order \(whose) names '\(id)', which is \(what); order only the request's candidates")
      }
      guard !seen[k] else {
        throw fail(.badItem, request, "order \(whose) lists '\(id)' twice")
      }
      seen[k] = true
      out.append(k)
    }
    guard !complete || entries.count == n else {
      let missing = seen.firstIndex(of: false).map { itemID($0, context) } ?? ""
      throw fail(
        .wrongCount, request,
        "order \(whose) lists \(entries.count) of \(n) candidates (missing '\(missing)'); order every candidate"
      )
    }
    return out
  }

  /// The per-candidate probabilities a result may carry, and how each is named and bounded.
  private enum PerCandidate {
    case propensities, prefixPropensities

    var key: String { self == .propensities ? "propensities" : "prefix_propensities" }
    var noun: String { self == .propensities ? "propensity" : "prefix propensity" }
    var plural: String { self == .propensities ? "propensities" : "prefix propensities" }
    var rule: String {
      self == .propensities
        ? "a propensity is a probability in 0...1"
        : "a prefix propensity is a probability in (0, 1]: that of the plugin's order up to and"
          + " including the candidate, which it has drawn"
    }
    func allows(_ p: Double) -> Bool {
      p.isFinite && p <= 1 && (self == .propensities ? p >= 0 : p > 0)
    }
  }

  /// `propensities` or `prefix_propensities`: nil when absent or null, else n probabilities in
  /// the list's own alignment (the caller maps an order reply's positions to candidates).
  private func numbers(
    _ value: JSONValue?, _ kind: PerCandidate, count n: Int, user: String, request: String
  ) throws(StrategyError) -> [Double]? {
    guard let value, !value.isNull else { return nil }
    guard let list = value.arrayValue else {
      throw fail(
        .malformed, request,
        "'\(kind.key)' of user '\(user)' is \(value.typeDescription), not an array")
    }
    guard list.count == n else {
      throw fail(
        .wrongCount, request,
        "returned \(list.count) \(kind.plural) for \(n) candidates of user '\(user)'")
    }
    let (out, firstNonNumber) = value.numberElements()!
    let bad = firstNonNumber ?? out.firstIndex(where: { !kind.allows($0) })
    if let k = bad {
      let shown = k < out.count ? String(out[k]) : list[k].typeDescription
      throw fail(
        .nonFinite, request, "\(kind.noun) \(k + 1) of user '\(user)' is \(shown); \(kind.rule)")
    }
    return out
  }

  /// A prefix propensity is the probability of the plugin's order up to its candidate: it does
  /// not grow along the order (the order of the scores, ties by candidate order, as the deck
  /// takes it), and it is at most the candidate's own propensity where there is one. The rules
  /// a log's prefix propensities are read by, with the same relative tolerance of 1e-9, so that
  /// a log `simulate` writes from them can be read back.
  private func checkPrefixes(
    _ prefix: [Double], propensities: [Double]?, values: [Double], context: ScoringContext,
    request: String
  ) throws(StrategyError) {
    let user = context.user.id
    func exceeds(_ a: Double, _ b: Double) -> Bool { a - b > 1e-9 * b }
    let order = values.indices.sorted {
      values[$0] != values[$1] ? values[$0] > values[$1] : $0 < $1
    }
    for (place, k) in order.enumerated() {
      if let p = propensities, exceeds(prefix[k], p[k]) {
        throw fail(
          .nonFinite, request,
          "the prefix propensity of '\(itemID(k, context))' for user '\(user)' is \(prefix[k]),"
            + " above its propensity \(p[k]); the probability of the order up to a card is at"
            + " most that of the card at its place")
      }
      if place > 0, exceeds(prefix[k], prefix[order[place - 1]]) {
        let before = order[place - 1]
        throw fail(
          .nonFinite, request,
          "the prefix propensity of '\(itemID(k, context))' (place \(place + 1) of the order of"
            + " user '\(user)') is \(prefix[k]), above the \(prefix[before]) of"
            + " '\(itemID(before, context))' before it; a longer prefix of the order is no"
            + " likelier than a shorter one")
      }
    }
  }

  /// The forms of a `policy` object, by key.
  private static let policyForms = ["uniform", "plackett_luce", "epsilon_greedy", "rankings"]

  /// A result's `policy`: the distribution over orders of the request's candidates that the
  /// plugin drew its order from, in one of four forms (docs/plugins.md).
  private func policy(_ value: JSONValue, context: ScoringContext, request: String)
    throws(StrategyError) -> RankingPolicy
  {
    let user = context.user.id
    let n = context.candidates.count
    guard value.objectValue != nil else {
      throw fail(
        .malformed, request, "'policy' of user '\(user)' is \(value.typeDescription), not an object"
      )
    }
    let forms = Self.policyForms.filter { value[$0] != nil }
    guard forms.count == 1, let form = forms.first else {
      throw fail(
        .malformed, request,
        forms.isEmpty
          ? "the policy of user '\(user)' has none of 'uniform', 'plackett_luce',"
            + " 'epsilon_greedy' and 'rankings'; give one of them (docs/plugins.md)"
          : "the policy of user '\(user)' gives both '\(forms[0])' and '\(forms[1])'; give one form"
      )
    }
    let body = value[form]!
    switch form {
    case "uniform":
      guard body.boolValue == true else {
        throw fail(
          .malformed, request,
          "'uniform' of the policy of user '\(user)' is \(body.text), not true; send"
            + " {\"uniform\": true} for every order equally likely, or no policy")
      }
      return .uniform(count: n)
    case "plackett_luce":
      let whose = "of the plackett_luce policy of user '\(user)'"
      guard let entries = body.arrayValue else {
        throw fail(
          .malformed, request, "'plackett_luce' \(whose) is \(body.typeDescription), not an array")
      }
      guard entries.count == n else {
        throw fail(
          .wrongCount, request,
          "the plackett_luce policy of user '\(user)' has \(entries.count) logits for \(n)"
            + " candidates; send one logit per candidate, in candidate order")
      }
      let (logits, firstNonNumber) = body.numberElements()!
      if let k = logits.firstIndex(where: { !$0.isFinite }) {
        throw fail(
          .nonFinite, request,
          "returned a non-finite logit (\(logits[k])) for item '\(itemID(k, context))' of user"
            + " '\(user)'; a logit is a finite number, the log of the candidate's weight")
      }
      if let k = firstNonNumber {
        throw fail(
          .malformed, request,
          "logit \(k + 1) \(whose) is \(entries[k].typeDescription), not a number")
      }
      return .plackettLuce(logits: logits)
    case "epsilon_greedy":
      let whose = "of the epsilon_greedy policy of user '\(user)'"
      guard body.objectValue != nil else {
        throw fail(
          .malformed, request,
          "'epsilon_greedy' of the policy of user '\(user)' is \(body.typeDescription), not an"
            + " object with 'order' and 'epsilon'")
      }
      guard let list = body["order"] else {
        throw fail(
          .malformed, request,
          "the epsilon_greedy policy of user '\(user)' has no 'order'; give every candidate id"
            + " once, best first")
      }
      let greedy = try candidateOrder(
        list, whose: whose, slot: slots(context), complete: true, context: context,
        request: request)
      guard let e = body["epsilon"] else {
        throw fail(
          .malformed, request,
          "the epsilon_greedy policy of user '\(user)' has no 'epsilon'; give the probability"
            + " of exploring at each place, in 0...1")
      }
      guard let epsilon = e.doubleValue else {
        throw fail(.malformed, request, "'epsilon' \(whose) is \(e.typeDescription), not a number")
      }
      guard epsilon.isFinite, epsilon >= 0, epsilon <= 1 else {
        throw fail(
          .nonFinite, request,
          "epsilon \(whose) is \(epsilon); epsilon is a probability in 0...1")
      }
      return .epsilonGreedy(greedy: greedy, epsilon: epsilon)
    default:
      return .rankings(try rankings(body, context: context, request: request))
    }
  }

  /// A `rankings` policy: orders of distinct candidates (any length), each once, with
  /// probabilities in 0...1 that sum to at most 1 (+ 1e-9); at most `maxPolicyOrders` orders
  /// and `maxPolicyEntries` ids in all, counted before anything is built.
  private func rankings(_ body: JSONValue, context: ScoringContext, request: String)
    throws(StrategyError) -> RankingDistribution
  {
    let user = context.user.id
    guard let entries = body.arrayValue else {
      throw fail(
        .malformed, request,
        "'rankings' of the policy of user '\(user)' is \(body.typeDescription), not an array")
    }
    guard entries.count <= Self.maxPolicyOrders else {
      throw fail(
        .wrongCount, request,
        "the rankings policy of user '\(user)' lists \(entries.count) orders, more than the"
          + " \(Self.maxPolicyOrders) menudeck reads per diner; send fewer orders, or the"
          + " distribution in another form (plackett_luce)")
    }
    var ids = 0
    for entry in entries { ids += entry["order"]?.arrayValue?.count ?? 0 }
    guard ids <= Self.maxPolicyEntries else {
      throw fail(
        .wrongCount, request,
        "the rankings policy of user '\(user)' lists \(ids) candidate ids in all, more than the"
          + " \(Self.maxPolicyEntries) menudeck reads per diner; send fewer or shorter orders")
    }
    let slot = slots(context)
    var rankings: [WeightedRanking] = []
    rankings.reserveCapacity(entries.count)
    var first: [[Int]: Int] = [:]  // each order, and the ranking that gave it
    var total = 0.0
    for (i, entry) in entries.enumerated() {
      let name = "ranking \(i + 1) of the policy of user '\(user)'"
      guard entry.objectValue != nil else {
        throw fail(
          .malformed, request,
          "\(name) is \(entry.typeDescription), not an object with 'order' and 'probability'")
      }
      guard let list = entry["order"] else {
        throw fail(
          .malformed, request,
          "\(name) has no 'order'; give its candidate ids, first place first")
      }
      let order = try candidateOrder(
        list, whose: "of " + name, slot: slot, complete: false, context: context,
        request: request)
      guard let p = entry["probability"] else {
        throw fail(
          .malformed, request, "\(name) has no 'probability'; give the probability of its order")
      }
      guard let probability = p.doubleValue else {
        throw fail(
          .malformed, request, "'probability' of \(name) is \(p.typeDescription), not a number")
      }
      guard probability.isFinite, probability >= 0, probability <= 1 else {
        throw fail(
          .nonFinite, request,
          "the probability of \(name) is \(probability); a probability is in 0...1")
      }
      if let j = first.updateValue(i, forKey: order) {
        throw fail(
          .badItem, request,
          "\(name) repeats the order of ranking \(j + 1); give each order once")
      }
      total += probability
      rankings.append(WeightedRanking(order: order, probability: probability))
    }
    guard total <= 1 + RankingDistribution.sumTolerance else {
      throw fail(
        .nonFinite, request,
        "the probabilities of the rankings policy of user '\(user)' sum to \(total), above 1;"
          + " a diner is shown one deck (the rest of 1 is no deck), so they sum to at most 1")
    }
    return RankingDistribution(candidateCount: context.candidates.count, rankings)
  }
}
