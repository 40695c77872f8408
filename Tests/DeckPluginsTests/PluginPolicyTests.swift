import DeckCore
import DeckPlugins
import DeckStrategies
import Foundation
import Testing

/// A distribution.py plugin (minor version 1, Tests/Fixtures/plugins) in `mode`, with more
/// options and environment as given.
private func distribution(
  _ mode: String, options: [String: String] = [:], environment: [String: String] = [:],
  timeout: Double = 10, log: LogLines = LogLines()
) throws -> PluginStrategy {
  var options = options
  options["mode"] = mode
  return try plugin(
    "distribution.py", name: "dist", options: options, environment: environment,
    timeout: timeout, log: log)
}

/// The contexts of `contexts(_:users:candidates:)`, asking for ranking distributions.
private func wanting(
  _ history: History, users: [String] = ["u1", "u2"], candidates: [Int32] = [0, 1, 2]
) -> [ScoringContext] {
  contexts(history, users: users, candidates: candidates).map {
    var c = $0
    c.wantsPolicy = true
    return c
  }
}

/// The order the deck takes from scores: by score, ties by candidate order.
private func order(_ values: [Double]) -> [Int] {
  values.indices.sorted { values[$0] != values[$1] ? values[$0] > values[$1] : $0 < $1 }
}

@Suite(.enabled(if: python3Available, "python3 is not on PATH: the plugin tests need it"))
struct PluginPolicyTests {
  static let request1 = "rank request 1 (1 diner, 'u1')"

  @Test func theMinorVersionIsReadFromDescribe() throws {
    #expect(try distribution("uniform").minorVersion == 1)
    // Absent: 0. A later minor than menudeck's is spoken to as menudeck's.
    #expect(
      try distribution("uniform", environment: ["DISTRIBUTION_MINOR": "none"]).minorVersion == 0)
    #expect(try distribution("uniform", environment: ["DISTRIBUTION_MINOR": "7"]).minorVersion == 1)
    #expect(try plugin("misbehave.py", name: "mis").minorVersion == 0)
    for bad in ["1.5", "-1", "\"1\""] {
      let m = message { _ = try distribution("uniform", environment: ["DISTRIBUTION_MINOR": bad]) }
      #expect(
        m
          == "strategy 'dist': handshake: the describe reply's 'minor' is \(bad); give the minor"
          + " version of protocol 1 the plugin speaks as a whole number (0, or 1 for ranking"
          + " distributions), or leave it out for 0")
    }
  }

  /// Each form becomes its `RankingPolicy`, and the plugin's prefix propensities (of the order
  /// it drew, by Python's arithmetic) are that policy's prefix probabilities along the order.
  @Test(arguments: [
    ("uniform", RankingPolicy.uniform(count: 3)),
    ("plackett_luce", .plackettLuce(logits: [0, -1, -2])),
    ("epsilon_greedy", .epsilonGreedy(greedy: [0, 1, 2], epsilon: 0.5)),
    (
      "rankings",
      .rankings(
        RankingDistribution(
          candidateCount: 3,
          [
            WeightedRanking(order: [0, 2], probability: 0.5),
            WeightedRanking(order: [1, 2], probability: 0.25),
            WeightedRanking(order: [2], probability: 0.25),
          ]))
    ),
  ])
  func eachFormIsItsPolicy(mode: String, expected: RankingPolicy) throws {
    let (catalog, history) = try pluginFixture()
    let s = try distribution(mode)
    try s.learn(catalog: catalog, history: history)
    var batch = wanting(history, users: ["u1", "u2", "u3", "u4"])
    let scores = try s.score(&batch)
    for score in scores {
      #expect(score.policy == expected)
      let drawn = order(score.values)
      if mode == "rankings" {
        #expect(score.prefixPropensities == nil)
        // The drawn order begins with one of the orders, the rest in candidate order.
        let begun = [[0, 2], [1, 2], [2]].first { Array(drawn.prefix($0.count)) == $0 }
        let head = try #require(begun, "\(drawn)")
        #expect(Array(drawn.dropFirst(head.count)) == (0..<3).filter { !head.contains($0) })
        continue
      }
      let prefix = try #require(score.prefixPropensities)
      let exact = expected.prefixProbabilities(drawn)
      for (place, k) in drawn.enumerated() {
        #expect(abs(prefix[k] - exact[place]) < 1e-12, "\(mode) \(drawn)")
      }
    }
    // Not asked: no policy, and the prefix propensities still come.
    var plain = contexts(history)
    let unasked = try s.score(&plain)
    #expect(unasked.allSatisfy { $0.policy == nil })
    #expect(unasked.allSatisfy { $0.prefixPropensities != nil } == (mode != "rankings"))
    try s.finish()
  }

  /// The uniform shuffle is seeded by (seed, date, user): the same diner gets the same order in
  /// any batch, and its propensities are 1/n.
  @Test func theUniformDrawIsTheDinersOwn() throws {
    let (catalog, history) = try pluginFixture()
    let s = try distribution("uniform")
    try s.learn(catalog: catalog, history: history)
    var alone = wanting(history, users: ["u3"])
    var batch = wanting(history, users: ["u1", "u2", "u3"])
    let one = try s.score(&alone)[0]
    let three = try s.score(&batch)
    #expect(three[2] == one)
    let third = 1.0 / 3
    #expect(one.propensities == [third, third, third])
    try s.finish()
  }

  /// Under deck rules that may move cards the policy and the prefix propensities are checked
  /// but not used: the deck is not the first cards of the plugin's order.
  @Test func rulesThatMoveCardsDropThePolicyAndThePrefixes() throws {
    let (catalog, history) = try pluginFixture()
    var rules = DeckRules()
    rules.maxPerCategory = 1  // katsu-curry and inari are both rice
    rules.size = 3
    (rules.repeatPickDays, rules.cooldownDays, rules.reshowDays) = (0, 0, 0)
    let builder = try DeckBuilder(catalog: catalog, rules: rules)
    let s = try distribution("uniform")
    try s.learn(catalog: catalog, history: history)
    var batch = wanting(history, users: ["u1"])
    let set = builder.candidates(
      for: batch[0].user, history: batch[0].userHistory, date: batch[0].date)
    #expect(set.items == [0, 1, 2])
    batch[0].deck = try #require(builder.slots(set))
    let scores = try s.score(&batch)[0]
    #expect(scores.policy == nil)
    #expect(scores.prefixPropensities == nil)
    #expect(scores.propensities != nil)
    try s.finish()
  }

  /// A minor-0 plugin is never sent want_policy: distribution.py answers a policy whenever it
  /// is asked for one, which from a minor-0 plugin would be a fault.
  @Test func aMinorZeroPluginIsNotAskedForAPolicy() throws {
    let (catalog, history) = try pluginFixture()
    let s = try distribution("rankings", environment: ["DISTRIBUTION_MINOR": "none"])
    try s.learn(catalog: catalog, history: history)
    var batch = wanting(history)
    let scores = try s.score(&batch)
    #expect(scores.allSatisfy { $0.policy == nil && $0.prefixPropensities == nil })
    try s.finish()
  }

  @Test(arguments: [
    (
      ["unasked": "true"], ["DISTRIBUTION_MINOR": "none"], "rankings",
      "the result of user 'u1' carries 'policy', a field of minor version 1, but the plugin"
        + " declared minor version 0 in its describe reply; declare \"minor\": 1 there to send it"
    ),
    (
      [:], ["DISTRIBUTION_MINOR": "none"], "uniform",
      "the result of user 'u1' carries 'prefix_propensities', a field of minor version 1, but"
        + " the plugin declared minor version 0 in its describe reply; declare \"minor\": 1 there"
        + " to send it"
    ),
  ])
  func minorOneFieldsFromAMinorZeroPlugin(
    options: [String: String], environment: [String: String], mode: String, text: String
  ) throws {
    let (catalog, history) = try pluginFixture()
    let s = try distribution(mode, options: options, environment: environment)
    try s.learn(catalog: catalog, history: history)
    var batch = wanting(history, users: ["u1"])
    let m = message { _ = try s.score(&batch) }
    #expect(m == "strategy 'dist': \(Self.request1): \(text)")
    #expect(s.fault?.kind == .malformed)
    #expect(isGone(s.processID))
  }

  @Test func aPolicyNotAskedForIsAFault() throws {
    let (catalog, history) = try pluginFixture()
    let s = try distribution("uniform", options: ["unasked": "true"])
    try s.learn(catalog: catalog, history: history)
    var batch = contexts(history, users: ["u1"])
    let m = message { _ = try s.score(&batch) }
    #expect(
      m
        == "strategy 'dist': \(Self.request1): the result of user 'u1' carries a 'policy', but the"
        + " rank request did not ask for one (it has no \"want_policy\": true); send a policy only"
        + " when asked")
    #expect(s.fault?.kind == .malformed)
    #expect(isGone(s.processID))
  }

  /// Raw policies and prefix propensities (candidates katsu-curry, veg-gyoza, inari as $0, $1,
  /// $2; the order is the candidate order), each fault with its message.
  @Test(arguments: [
    ("[1]", "", "", PluginFault.Kind.malformed, "'policy' of user 'u1' is an array, not an object"),
    (
      "{}", "", "", .malformed,
      "the policy of user 'u1' has none of 'uniform', 'plackett_luce', 'epsilon_greedy' and"
        + " 'rankings'; give one of them (docs/plugins.md)"
    ),
    (
      "{\"rankings\": [], \"uniform\": true}", "", "", .malformed,
      "the policy of user 'u1' gives both 'uniform' and 'rankings'; give one form"
    ),
    (
      "{\"uniform\": 1}", "", "", .malformed,
      "'uniform' of the policy of user 'u1' is 1, not true; send {\"uniform\": true} for every"
        + " order equally likely, or no policy"
    ),
    (
      "{\"plackett_luce\": {}}", "", "", .malformed,
      "'plackett_luce' of the plackett_luce policy of user 'u1' is an object, not an array"
    ),
    (
      "{\"plackett_luce\": [0, 1]}", "", "", .wrongCount,
      "the plackett_luce policy of user 'u1' has 2 logits for 3 candidates; send one logit per"
        + " candidate, in candidate order"
    ),
    (
      "{\"plackett_luce\": [0, NaN, \"x\"]}", "", "", .nonFinite,
      "returned a non-finite logit (nan) for item 'veg-gyoza' of user 'u1'; a logit is a finite"
        + " number, the log of the candidate's weight"
    ),
    (
      "{\"plackett_luce\": [0, \"x\", 1]}", "", "", .malformed,
      "logit 2 of the plackett_luce policy of user 'u1' is a string, not a number"
    ),
    (
      "{\"epsilon_greedy\": [1]}", "", "", .malformed,
      "'epsilon_greedy' of the policy of user 'u1' is an array, not an object with 'order' and"
        + " 'epsilon'"
    ),
    (
      "{\"epsilon_greedy\": {\"epsilon\": 0.5}}", "", "", .malformed,
      "the epsilon_greedy policy of user 'u1' has no 'order'; give every candidate id once, best"
        + " first"
    ),
    (
      "{\"epsilon_greedy\": {\"order\": [\"$0\", \"$1\"], \"epsilon\": 0.5}}", "", "", .wrongCount,
      "order of the epsilon_greedy policy of user 'u1' lists 2 of 3 candidates (missing"
        + " 'inari'); order every candidate"
    ),
    (
      "{\"epsilon_greedy\": {\"order\": [\"$0\", \"$1\", \"$0\"], \"epsilon\": 0.5}}", "", "",
      .badItem, "order of the epsilon_greedy policy of user 'u1' lists 'katsu-curry' twice"
    ),
    (
      "{\"epsilon_greedy\": {\"order\": [\"$0\", 2, \"$1\"], \"epsilon\": 0.5}}", "", "",
      .malformed,
      "order entry 2 of the epsilon_greedy policy of user 'u1' is a number, not an item id"
    ),
    (
      "{\"epsilon_greedy\": {\"order\": [\"$0\", \"$1\", \"$2\"]}}", "", "", .malformed,
      "the epsilon_greedy policy of user 'u1' has no 'epsilon'; give the probability of"
        + " exploring at each place, in 0...1"
    ),
    (
      "{\"epsilon_greedy\": {\"order\": [\"$0\", \"$1\", \"$2\"], \"epsilon\": \"x\"}}", "", "",
      .malformed, "'epsilon' of the epsilon_greedy policy of user 'u1' is a string, not a number"
    ),
    (
      "{\"epsilon_greedy\": {\"order\": [\"$0\", \"$1\", \"$2\"], \"epsilon\": 1.5}}", "", "",
      .nonFinite,
      "epsilon of the epsilon_greedy policy of user 'u1' is 1.5; epsilon is a probability in"
        + " 0...1"
    ),
    (
      "{\"rankings\": {\"order\": []}}", "", "", .malformed,
      "'rankings' of the policy of user 'u1' is an object, not an array"
    ),
    (
      "{\"rankings\": [3]}", "", "", .malformed,
      "ranking 1 of the policy of user 'u1' is a number, not an object with 'order' and"
        + " 'probability'"
    ),
    (
      "{\"rankings\": [{\"probability\": 0.5}]}", "", "", .malformed,
      "ranking 1 of the policy of user 'u1' has no 'order'; give its candidate ids, first place"
        + " first"
    ),
    (
      "{\"rankings\": [{\"order\": [\"$0\"]}]}", "", "", .malformed,
      "ranking 1 of the policy of user 'u1' has no 'probability'; give the probability of its"
        + " order"
    ),
    (
      "{\"rankings\": [{\"order\": [\"$0\"], \"probability\": null}]}", "", "", .malformed,
      "'probability' of ranking 1 of the policy of user 'u1' is null, not a number"
    ),
    (
      "{\"rankings\": [{\"order\": [\"$0\", \"no-such-dish\"], \"probability\": 0.5}]}", "", "",
      .badItem,
      "order of ranking 1 of the policy of user 'u1' names 'no-such-dish', which is not in the"
        + " catalog; order only the request's candidates"
    ),
    (
      "{\"rankings\": [{\"order\": [\"$1\"], \"probability\": 0.5},"
        + " {\"order\": [\"$2\", \"$2\"], \"probability\": 0.5}]}", "", "", .badItem,
      "order of ranking 2 of the policy of user 'u1' lists 'inari' twice"
    ),
    (
      "{\"rankings\": [{\"order\": [\"$0\"], \"probability\": 1.5}]}", "", "", .nonFinite,
      "the probability of ranking 1 of the policy of user 'u1' is 1.5; a probability is in 0...1"
    ),
    (
      "{\"rankings\": [{\"order\": [\"$0\"], \"probability\": 0.5},"
        + " {\"order\": [\"$1\"], \"probability\": 0.75}]}", "", "", .nonFinite,
      "the probabilities of the rankings policy of user 'u1' sum to 1.25, above 1; a diner is"
        + " shown one deck (the rest of 1 is no deck), so they sum to at most 1"
    ),
    (
      "{\"rankings\": [{\"order\": [\"$0\", \"$1\"], \"probability\": 0.25},"
        + " {\"order\": [\"$2\"], \"probability\": 0.25},"
        + " {\"order\": [\"$0\", \"$1\"], \"probability\": 0.25}]}", "", "", .badItem,
      "ranking 3 of the policy of user 'u1' repeats the order of ranking 1; give each order once"
    ),
    (
      "", "\"x\"", "", .malformed, "'prefix_propensities' of user 'u1' is a string, not an array"
    ),
    (
      "", "[0.5, 0.25]", "", .wrongCount,
      "returned 2 prefix propensities for 3 candidates of user 'u1'"
    ),
    (
      "", "[0.5, 0, 0]", "", .nonFinite,
      "prefix propensity 2 of user 'u1' is 0.0; a prefix propensity is a probability in (0, 1]:"
        + " that of the plugin's order up to and including the candidate, which it has drawn"
    ),
    (
      "", "[0.5, null, 0.1]", "", .nonFinite,
      "prefix propensity 2 of user 'u1' is null; a prefix propensity is a probability in (0, 1]:"
        + " that of the plugin's order up to and including the candidate, which it has drawn"
    ),
    (
      "", "[0.5, 0.6, 0.1]", "", .nonFinite,
      "the prefix propensity of 'veg-gyoza' (place 2 of the order of user 'u1') is 0.6, above the"
        + " 0.5 of 'katsu-curry' before it; a longer prefix of the order is no likelier than a"
        + " shorter one"
    ),
    (
      "", "[0.5, 0.25, 0.125]", "[0.5, 0.2, 0.5]", .nonFinite,
      "the prefix propensity of 'veg-gyoza' for user 'u1' is 0.25, above its propensity 0.2;"
        + " the probability of the order up to a card is at most that of the card at its place"
    ),
  ])
  func aBadPolicyOrPrefixIsAFault(
    policy: String, prefix: String, propensities: String, kind: PluginFault.Kind, text: String
  ) throws {
    let (catalog, history) = try pluginFixture()
    let s = try distribution(
      "raw", options: ["policy": policy, "prefix": prefix, "propensities": propensities])
    try s.learn(catalog: catalog, history: history)
    var batch = wanting(history, users: ["u1"])
    let m = message { _ = try s.score(&batch) }
    #expect(m == "strategy 'dist': \(Self.request1): \(text)")
    #expect(s.fault == PluginFault(kind, plugin: "dist", request: Self.request1, message: text))
    #expect(isGone(s.processID))
  }

  /// The same checks pass what is right: a short order, an empty one (no deck), probabilities
  /// summing to less than 1, prefix propensities that stay (tolerance) or fall.
  @Test func aRawPolicyWithinTheRulesIsRead() throws {
    let (catalog, history) = try pluginFixture()
    let s = try distribution(
      "raw",
      options: [
        "policy":
          "{\"rankings\": [{\"order\": [\"$2\"], \"probability\": 0.25},"
          + " {\"order\": [], \"probability\": 0.125}, {\"order\": [\"$0\", \"$2\", \"$1\"],"
          + " \"probability\": 0.5}]}",
        "prefix": "[0.5, 0.5000000000001, 0.25]", "propensities": "[0.5, 0.5, 0.5]",
      ])
    try s.learn(catalog: catalog, history: history)
    var batch = wanting(history, users: ["u1"])
    let scores = try s.score(&batch)[0]
    #expect(scores.prefixPropensities == [0.5, 0.5000000000001, 0.25])
    #expect(
      scores.policy
        == .rankings(
          RankingDistribution(
            candidateCount: 3,
            [
              WeightedRanking(order: [], probability: 0.125),
              WeightedRanking(order: [0, 2, 1], probability: 0.5),
              WeightedRanking(order: [2], probability: 0.25),
            ])))
    try s.finish()
  }

  @Test func aNotCandidateInARankingsOrder() throws {
    let (catalog, history) = try pluginFixture()
    let s = try distribution(
      "raw", options: ["policy": "{\"rankings\": [{\"order\": [\"inari\"], \"probability\": 1}]}"])
    try s.learn(catalog: catalog, history: history)
    var batch = wanting(history, users: ["u1"], candidates: [0, 1])
    let m = message { _ = try s.score(&batch) }
    #expect(
      m
        == "strategy 'dist': \(Self.request1): order of ranking 1 of the policy of user 'u1' names"
        + " 'inari', which is not a candidate; order only the request's candidates")
  }

  /// The caps: orders per diner, and ids over all of a diner's orders, counted before
  /// anything else of the orders is looked at (these orders repeat ids and each other).
  @Test(arguments: [
    (
      100_001, 1,
      "the rankings policy of user 'u1' lists 100001 orders, more than the 100000 menudeck reads"
        + " per diner; send fewer orders, or the distribution in another form (plackett_luce)"
    ),
    (
      50_000, 21,
      "the rankings policy of user 'u1' lists 1050000 candidate ids in all, more than the"
        + " 1000000 menudeck reads per diner; send fewer or shorter orders"
    ),
  ])
  func aRankingsPolicyOverTheCaps(orders: Int, length: Int, text: String) throws {
    #expect(PluginStrategy.maxPolicyOrders == 100_000)
    #expect(PluginStrategy.maxPolicyEntries == 1_000_000)
    let (catalog, history) = try pluginFixture()
    let s = try distribution(
      "many", options: ["orders": "\(orders)", "length": "\(length)"], timeout: 60)
    try s.learn(catalog: catalog, history: history)
    var batch = wanting(history, users: ["u1"])
    let m = message { _ = try s.score(&batch) }
    #expect(m == "strategy 'dist': \(Self.request1): \(text)")
    #expect(s.fault?.kind == .wrongCount)
  }

  /// Every mode distribution.py documents is one these tests use, and the other way round.
  @Test func distributionDocumentsItsModes() throws {
    let text = try String(contentsOfFile: pluginPath("distribution.py"), encoding: .utf8)
    let documented = text.split(separator: "\n")
      .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") && $0.count > 18 }
      .map { String($0.dropFirst(2).prefix { $0 != " " }) }
    #expect(
      Set(documented) == ["uniform", "plackett_luce", "epsilon_greedy", "rankings", "raw", "many"])
  }
}
